package syntax

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A strPart is one piece of a string literal: literal text, or (name != "")
// an interpolated identifier at pos.
type strPart struct {
	lit  string
	name string
	pos  Pos
}

// A token is one scanned token with its decoded value.
type token struct {
	tok   Token
	pos   Pos
	lit   string    // source text (identifiers, literals)
	ival  uint64    // INT value
	ovf   bool      // INT beyond UINT64_MAX
	fval  float64   // FLOAT value
	f32   bool      // FLOAT with f suffix
	char  rune      // CHAR value
	parts []strPart // STRING pieces (literal text and ${name}s)
	bad   bool      // STRING or CHAR not terminated (already reported)
}

// String describes the token for diagnostics: `identifier "x"`, `';'`,
// `keyword 'if'`, `end of file`, …
func (t *token) String() string {
	switch t.tok {
	case IDENT:
		return fmt.Sprintf("identifier %q", t.lit)
	case INT, FLOAT, CHAR, STRING:
		lit := t.lit
		if len(lit) > 24 {
			n := 20
			for n > 0 && !utf8.RuneStart(lit[n]) {
				n--
			}
			lit = lit[:n] + "…"
		}
		return t.tok.String() + " " + lit
	case EOF, ILLEGAL:
		return t.tok.String()
	}
	if t.tok.IsKeyword() {
		return "keyword '" + t.tok.String() + "'"
	}
	return "'" + t.tok.String() + "'"
}

// scanner turns source bytes into tokens. Errors go to errh; the scanner
// always continues, skipping characters it cannot use.
type scanner struct {
	src     []byte
	ch      rune // current character; -1 at end of input
	off     int  // offset of ch
	rdOff   int  // offset after ch
	line    int  // line of ch
	lineOff int  // offset of the first byte of the current line
	badOff  int  // offset of the last invalid UTF-8 byte reported (-1: none)
	errh    func(pos Pos, msg string)
}

func newScanner(src []byte, errh func(Pos, string)) *scanner {
	s := &scanner{src: src, ch: ' ', line: 1, badOff: -1, errh: errh}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.rdOff = 3 // leading BOM: skipped, columns count from after it
		s.lineOff = 3
	}
	s.next()
	return s
}

func (s *scanner) pos() Pos { return s.posAt(s.off) }

// posAt returns the position of offset off on the current line.
func (s *scanner) posAt(off int) Pos {
	return Pos{Line: int32(s.line), Col: int32(off - s.lineOff + 1)}
}

func (s *scanner) error(pos Pos, msg string) { s.errh(pos, msg) }

// next reads the next character into s.ch.
func (s *scanner) next() {
	if s.ch == '\n' {
		s.line++
		s.lineOff = s.rdOff
	}
	s.off = s.rdOff
	if s.off >= len(s.src) {
		s.ch = -1
		return
	}
	r, w := rune(s.src[s.off]), 1
	if r >= utf8.RuneSelf {
		r, w = utf8.DecodeRune(s.src[s.off:])
		if r == utf8.RuneError && w == 1 {
			s.badOff = s.off
			s.error(s.pos(), "invalid UTF-8 encoding (save the file as UTF-8)")
		}
	}
	s.rdOff += w
	s.ch = r
}

// peek returns the byte after the current character (0 at end of input).
func (s *scanner) peek() byte {
	if s.rdOff < len(s.src) {
		return s.src[s.rdOff]
	}
	return 0
}

func isLetter(c rune) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
func isDigit(c rune) bool  { return '0' <= c && c <= '9' }
func isHex(c rune) bool    { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// isIdentifier reports whether s is a non-keyword identifier.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !isLetter(c) && (i == 0 || !isDigit(c)) {
			return false
		}
	}
	_, kw := keywords[s]
	return !kw
}

// scanAll returns every token of the input, ending with EOF.
func (s *scanner) scanAll() []token {
	toks := make([]token, 0, len(s.src)/8+16)
	for {
		t := s.scan()
		toks = append(toks, t)
		if t.tok == EOF {
			return toks
		}
	}
}

// scan returns the next token.
func (s *scanner) scan() token {
redo:
	for s.ch == ' ' || s.ch == '\t' || s.ch == '\n' || s.ch == '\r' || s.ch == '\f' || s.ch == '\v' {
		s.next()
	}
	pos := s.pos()
	start := s.off
	ch := s.ch
	switch {
	case ch < 0:
		return token{tok: EOF, pos: pos}
	case isLetter(ch):
		for isLetter(s.ch) || isDigit(s.ch) {
			s.next()
		}
		lit := string(s.src[start:s.off])
		if kw, ok := keywords[lit]; ok {
			return token{tok: kw, pos: pos, lit: lit}
		}
		return token{tok: IDENT, pos: pos, lit: lit}
	case isDigit(ch) || ch == '.' && isDigit(rune(s.peek())):
		return s.number(pos)
	}
	s.next()
	t := token{pos: pos}
	switch ch {
	case '"':
		return s.stringLit(pos, start)
	case '\'':
		return s.charLit(pos, start)
	case '/':
		switch s.ch {
		case '/':
			for s.ch != '\n' && s.ch >= 0 {
				s.next()
			}
			goto redo
		case '*':
			s.next()
			for {
				if s.ch < 0 {
					s.error(pos, "comment not terminated")
					break
				}
				c := s.ch
				s.next()
				if c == '*' && s.ch == '/' {
					s.next()
					break
				}
			}
			goto redo
		}
		t.tok = s.choose('=', SLASHEQ, SLASH)
	case '+':
		t.tok = s.choose2('=', PLUSEQ, '+', INC, PLUS)
	case '-':
		t.tok = s.choose2('=', MINUSEQ, '-', DEC, MINUS)
	case '*':
		t.tok = s.choose('=', STAREQ, STAR)
	case '%':
		t.tok = s.choose('=', PERCENTEQ, PERCENT)
	case '<':
		t.tok = s.choose2('=', LE, '<', SHL, LT)
	case '>':
		t.tok = s.choose2('=', GE, '>', SHR, GT)
	case '=':
		t.tok = s.choose('=', EQL, ASSIGN)
	case '!':
		t.tok = s.choose('=', NEQ, NOT)
	case '&':
		t.tok = s.choose2('&', ANDAND, '=', ANDEQ, AMP)
	case '|':
		t.tok = s.choose2('|', OROR, '=', OREQ, PIPE)
	case '^':
		t.tok = CARET
	case '~':
		t.tok = s.choose('=', TILDEQ, TILDE)
	case '.':
		t.tok = DOT
	case ',':
		t.tok = COMMA
	case ';':
		t.tok = SEMI
	case ':':
		t.tok = COLON
	case '(':
		t.tok = LPAREN
	case ')':
		t.tok = RPAREN
	case '{':
		t.tok = LBRACE
	case '}':
		t.tok = RBRACE
	case '[':
		t.tok = s.choose(']', BRACKETS, LBRACK)
	case ']':
		t.tok = RBRACK
	case '?':
		s.error(pos, "'?' is not an NLang operator (there is no conditional expression; use if/else)")
		goto redo
	default:
		if ch == utf8.RuneError && s.badOff == start {
			goto redo // already reported as invalid UTF-8
		}
		s.error(pos, fmt.Sprintf("invalid character %#U", ch))
		goto redo
	}
	t.lit = t.tok.String()
	return t
}

// choose returns yes (consuming the character) if s.ch == c, else no.
func (s *scanner) choose(c rune, yes, no Token) Token {
	if s.ch == c {
		s.next()
		return yes
	}
	return no
}

func (s *scanner) choose2(c1 rune, t1 Token, c2 rune, t2 Token, no Token) Token {
	switch s.ch {
	case c1:
		s.next()
		return t1
	case c2:
		s.next()
		return t2
	}
	return no
}

// number scans an integer or floating literal starting at s.ch.
func (s *scanner) number(pos Pos) token {
	start := s.off
	t := token{tok: INT, pos: pos}
	if s.ch == '0' && (s.peek() == 'x' || s.peek() == 'X') {
		s.next()
		s.next()
		dstart := s.off
		for isHex(s.ch) {
			s.next()
		}
		digits := string(s.src[dstart:s.off])
		if digits == "" {
			s.error(pos, "hexadecimal literal has no digits")
		}
		for _, c := range digits {
			d := uint64(hexVal(c))
			if t.ival > (1<<64-1-d)/16 {
				t.ovf = true
			}
			t.ival = t.ival*16 + d
		}
		if t.ovf {
			t.ival = 0
		}
		s.badSuffix(pos)
		t.lit = string(s.src[start:s.off])
		return t
	}
	for isDigit(s.ch) {
		s.next()
	}
	mantEnd := s.off
	dot := false
	if s.ch == '.' && isDigit(rune(s.peek())) {
		dot = true
		s.next()
		for isDigit(s.ch) {
			s.next()
		}
	}
	expStart, hasExp, expOK := 0, false, true
	if s.ch == 'e' || s.ch == 'E' {
		hasExp = true
		s.next()
		expStart = s.off
		if s.ch == '+' || s.ch == '-' {
			s.next()
		}
		if !isDigit(s.ch) {
			s.error(pos, "exponent has no digits")
			expOK = false
		}
		for isDigit(s.ch) {
			s.next()
		}
	}
	numEnd := s.off
	f32 := false
	if s.ch == 'f' || s.ch == 'F' {
		f32 = true
		s.next()
	}
	s.badSuffix(pos)
	t.lit = string(s.src[start:s.off])
	num := string(s.src[start:numEnd])

	if !dot && !f32 {
		mant := string(s.src[start:mantEnd])
		exp := 0
		if hasExp {
			exp = parseExp(string(s.src[expStart:numEnd]))
		}
		if v, ovf, integral := intValue(mant, exp); integral {
			t.ival, t.ovf = v, ovf
			return t
		}
		// a non-integral exponent form such as 2e-3 is a double
	}
	t.tok = FLOAT
	t.f32 = f32
	bits := 64
	if f32 {
		bits = 32
	}
	if !expOK {
		return t // already reported
	}
	v, err := strconv.ParseFloat(num, bits)
	if err != nil {
		s.error(pos, "floating literal "+t.lit+" is out of range")
	}
	t.fval = v
	return t
}

// badSuffix reports and skips letters or digits glued to a number.
func (s *scanner) badSuffix(pos Pos) {
	if !isLetter(s.ch) && !isDigit(s.ch) {
		return
	}
	start := s.off
	for isLetter(s.ch) || isDigit(s.ch) {
		s.next()
	}
	s.error(pos, fmt.Sprintf("invalid suffix %q on numeric literal", s.src[start:s.off]))
}

func hexVal(c rune) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	}
	return 0
}

// parseExp parses an exponent like "-12" or "3", saturating at ±100000.
func parseExp(s string) int {
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg = true
		s = s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			continue
		}
		if n < 100000 {
			n = n*10 + int(c-'0')
		}
	}
	if neg {
		return -n
	}
	return n
}

// intValue computes mant×10^exp for a decimal digit string. integral is
// false when the value has a fractional part; ovf reports a value beyond
// UINT64_MAX.
func intValue(mant string, exp int) (v uint64, ovf, integral bool) {
	mant = strings.TrimLeft(mant, "0")
	for len(mant) > 0 && mant[len(mant)-1] == '0' && exp < 0 {
		mant = mant[:len(mant)-1]
		exp++
	}
	if mant == "" {
		return 0, false, true
	}
	if exp < 0 {
		return 0, false, false
	}
	if len(mant)+exp > 20 {
		return 0, true, true
	}
	for _, c := range mant {
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, true, true
		}
		v = v*10 + d
	}
	for ; exp > 0; exp-- {
		if v > (1<<64-1)/10 {
			return 0, true, true
		}
		v *= 10
	}
	return v, false, true
}

// escape scans an escape sequence after the backslash (s.ch is the
// character after `\`). quote is the enclosing quote; allowed lists the
// single-character escapes valid in this kind of literal. It reports
// errors itself and returns ok=false for an invalid escape; isU reports a
// \uXXXX escape (whose value may be a surrogate).
func (s *scanner) escape(escPos Pos, allowed string) (r rune, isU, ok bool) {
	c := s.ch
	if c == 'u' {
		s.next()
		var v rune
		for i := 0; i < 4; i++ {
			if !isHex(s.ch) {
				s.error(escPos, "invalid \\u escape (want 4 hex digits)")
				return 0, true, false
			}
			v = v*16 + rune(hexVal(s.ch))
			s.next()
		}
		return v, true, true
	}
	if c < 0 || c == '\n' {
		return 0, false, false // the caller reports the unterminated literal
	}
	s.next()
	if strings.ContainsRune(allowed, c) {
		switch c {
		case 'n':
			return '\n', false, true
		case 'r':
			return '\r', false, true
		case 't':
			return '\t', false, true
		case '0':
			return 0, false, true
		case 'a':
			return '\a', false, true
		case 'b':
			return '\b', false, true
		case 'f':
			return '\f', false, true
		case 'v':
			return '\v', false, true
		}
		return c, false, true // \\ \" \'
	}
	if c == utf8.RuneError && s.badOff == s.off-1 {
		return 0, false, false
	}
	if c < ' ' || c == 0x7f {
		s.error(escPos, fmt.Sprintf("unknown escape sequence \\%U", c))
	} else {
		s.error(escPos, fmt.Sprintf("unknown escape sequence \\%c", c))
	}
	return 0, false, false
}

const (
	charEscapes   = `nrt'\"0`
	stringEscapes = `nrt\"'0abfv`
)

func isHighSurrogate(r rune) bool { return 0xD800 <= r && r < 0xDC00 }
func isLowSurrogate(r rune) bool  { return 0xDC00 <= r && r < 0xE000 }

// charLit scans a char literal; the opening quote is consumed.
func (s *scanner) charLit(pos Pos, start int) token {
	t := token{tok: CHAR, pos: pos}
	n, bad := 0, false
	for {
		if s.ch == '\'' {
			s.next()
			break
		}
		if s.ch < 0 || s.ch == '\n' {
			s.error(pos, "char literal not terminated")
			t.bad = true
			bad = true
			break
		}
		r := s.ch
		if r == '\\' {
			escPos := s.pos()
			s.next()
			v, isU, ok := s.escape(escPos, charEscapes)
			if !ok {
				bad = true
				continue
			}
			if isU && (isHighSurrogate(v) || isLowSurrogate(v)) {
				s.error(escPos, fmt.Sprintf("char literal \\u%04X is a surrogate, not a Unicode scalar value", v))
				bad = true
				continue
			}
			r = v
		} else {
			s.next()
		}
		if n == 0 {
			t.char = r
		}
		n++
	}
	if !bad {
		switch {
		case n == 0:
			s.error(pos, "empty char literal")
		case n > 1:
			s.error(pos, "char literal has more than one character (use double quotes for a string)")
		}
	}
	t.lit = string(s.src[start:s.off])
	return t
}

// stringLit scans a string literal; the opening quote is consumed.
func (s *scanner) stringLit(pos Pos, start int) token {
	t := token{tok: STRING, pos: pos}
	var buf []byte
	pendingHigh := rune(-1)
	var pendingPos Pos
	flushHigh := func() {
		if pendingHigh >= 0 {
			s.error(pendingPos, fmt.Sprintf("invalid Unicode escape \\u%04X (lone surrogate)", pendingHigh))
			pendingHigh = -1
		}
	}
	for {
		if s.ch == '"' {
			s.next()
			break
		}
		if s.ch == '\n' {
			s.error(pos, "newline in string literal")
			t.bad = true
			break
		}
		if s.ch < 0 {
			s.error(pos, "string literal not terminated")
			t.bad = true
			break
		}
		switch s.ch {
		case '\\':
			escPos := s.pos()
			s.next()
			r, isU, ok := s.escape(escPos, stringEscapes)
			if !ok {
				flushHigh()
				continue
			}
			if isU {
				if pendingHigh >= 0 {
					if isLowSurrogate(r) {
						r = 0x10000 + (pendingHigh-0xD800)<<10 + (r - 0xDC00)
						pendingHigh = -1
						buf = utf8.AppendRune(buf, r)
						continue
					}
					flushHigh()
				}
				if isHighSurrogate(r) {
					pendingHigh, pendingPos = r, escPos
					continue
				}
				if isLowSurrogate(r) {
					s.error(escPos, fmt.Sprintf("invalid Unicode escape \\u%04X (lone surrogate)", r))
					continue
				}
			} else {
				flushHigh()
			}
			buf = utf8.AppendRune(buf, r)
			continue
		case '$':
			flushHigh()
			dpos := s.pos()
			s.next()
			switch s.ch {
			case '$':
				s.next()
				buf = append(buf, '$')
				continue
			case '{':
			default:
				buf = append(buf, '$')
				continue
			}
			s.next()
			cstart := s.off
			for s.ch != '}' && s.ch != '"' && s.ch != '\n' && s.ch >= 0 {
				if s.ch == '\\' {
					s.next()
					if s.ch == '\n' || s.ch < 0 {
						break
					}
				}
				s.next()
			}
			content := string(s.src[cstart:s.off])
			if s.ch != '}' {
				s.error(dpos, "unterminated interpolation ${"+content)
				continue
			}
			s.next()
			name := strings.TrimLeft(content, " \t")
			lead := len(content) - len(name)
			name = strings.TrimRight(name, " \t")
			if !isIdentifier(name) {
				s.error(dpos, "interpolation takes a single identifier: ${"+content+"}")
				continue
			}
			t.parts = append(t.parts, strPart{lit: string(buf)}, strPart{name: name, pos: s.posAt(cstart + lead)})
			buf = buf[:0]
			continue
		}
		flushHigh()
		buf = utf8.AppendRune(buf, s.ch)
		s.next()
	}
	flushHigh()
	if len(buf) > 0 || len(t.parts) == 0 {
		t.parts = append(t.parts, strPart{lit: string(buf)})
	}
	t.lit = string(s.src[start:s.off])
	return t
}
