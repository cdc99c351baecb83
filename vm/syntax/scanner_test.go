package syntax

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// scanString scans src and returns its tokens (without EOF) and its errors
// as "line:col: msg" strings.
func scanString(src string) ([]token, []string) {
	var errs []string
	sc := newScanner([]byte(src), func(pos Pos, msg string) {
		errs = append(errs, fmt.Sprintf("%d:%d: %s", pos.Line, pos.Col, msg))
	})
	toks := sc.scanAll()
	return toks[:len(toks)-1], errs
}

// kinds renders the token kinds of src, space separated.
func kinds(toks []token) string {
	var s []string
	for _, t := range toks {
		s = append(s, t.tok.String())
	}
	return strings.Join(s, " ")
}

func TestScanTokens(t *testing.T) {
	tests := []struct{ src, want string }{
		{"+ - * / % < > <= >= == != && || ! = += -= *= /= %=", "+ - * / % < > <= >= == != && || ! = += -= *= /= %="},
		{". , ; : ( ) { } [ ] []", ". , ; : ( ) { } [ ] []"},
		{"++ -- << >> ~= &= |= & | ^ ~", "++ -- << >> ~= &= |= & | ^ ~"},
		{"a[] b[ ] c[i]", "identifier [] identifier [ ] identifier [ identifier ]"},
		{"x>>=y", "identifier >> = identifier"},
		{"<<=", "<< ="},
		{"int[][] x", "int [] [] identifier"},
		{"class Foo_1 _x as double ulong namespace elseif", "class identifier identifier as double ulong namespace elseif"},
		{"List Dict Func func Channel Future Object", "identifier identifier identifier identifier identifier identifier identifier"},
		{"a // comment\nb /* multi\nline */ c", "identifier identifier identifier"},
		{"a/**/b/ /c", "identifier identifier / / identifier"},
		{"/* a */ /* b ** / */ x", "identifier"},
		{"1 1.5 .5 2e5 2.5e-3 1.5f 0xFF 'a' \"s\"", "integer literal floating literal floating literal integer literal floating literal floating literal integer literal char literal string literal"},
		{"1..2", "integer literal . floating literal"},
		{"a.b.c()", "identifier . identifier . identifier ( )"},
		{"\uFEFFint x;", "int identifier ;"},
		{"", ""},
	}
	for _, tt := range tests {
		toks, errs := scanString(tt.src)
		if len(errs) > 0 {
			t.Errorf("scan %q: unexpected errors %v", tt.src, errs)
		}
		if got := kinds(toks); got != tt.want {
			t.Errorf("scan %q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestScanPositions(t *testing.T) {
	src := "int x;\n\tfoo(\"é\", y);\n/* c\n */ z"
	toks, errs := scanString(src)
	if errs != nil {
		t.Fatal(errs)
	}
	var got []string
	for _, tk := range toks {
		got = append(got, fmt.Sprintf("%s@%d:%d", tk.tok, tk.pos.Line, tk.pos.Col))
	}
	want := "int@1:1 identifier@1:5 ;@1:6 identifier@2:2 (@2:5 string literal@2:6 ,@2:10 identifier@2:12 )@2:13 ;@2:14 identifier@4:5"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
	// a leading BOM is not counted in columns
	toks, _ = scanString("\uFEFFab cd")
	if toks[1].pos != (Pos{1, 4}) {
		t.Errorf("after BOM: got %v, want 1:4", toks[1].pos)
	}
}

func TestScanIntLiterals(t *testing.T) {
	tests := []struct {
		src string
		val uint64
		ovf bool
	}{
		{"0", 0, false},
		{"007", 7, false},
		{"2147483647", 2147483647, false},
		{"2147483648", 2147483648, false},
		{"18446744073709551615", math.MaxUint64, false},
		{"18446744073709551616", 0, true},
		{"99999999999999999999999999", 0, true},
		{"0xFF", 255, false},
		{"0Xff", 255, false},
		{"0xFFFFFFFFFFFFFFFF", math.MaxUint64, false},
		{"0x10000000000000000", 0, true},
		{"2e5", 200000, false},
		{"2E5", 200000, false},
		{"2e+3", 2000, false},
		{"20e-1", 2, false},
		{"0e-7", 0, false},
		{"1e19", 1e19, false},
		{"1e20", 0, true},
		{"1e99999999999", 0, true},
	}
	for _, tt := range tests {
		toks, errs := scanString(tt.src)
		if len(errs) > 0 || len(toks) != 1 || toks[0].tok != INT {
			t.Errorf("%s: got %s %v, want one integer literal", tt.src, kinds(toks), errs)
			continue
		}
		if toks[0].ival != tt.val || toks[0].ovf != tt.ovf || toks[0].lit != tt.src {
			t.Errorf("%s: got %d ovf=%v lit=%q, want %d ovf=%v", tt.src, toks[0].ival, toks[0].ovf, toks[0].lit, tt.val, tt.ovf)
		}
	}
}

func TestScanFloatLiterals(t *testing.T) {
	tests := []struct {
		src string
		val float64
		f32 bool
	}{
		{"1.5", 1.5, false},
		{".5", 0.5, false},
		{"2.5e-3", 2.5e-3, false},
		{"2e-3", 2e-3, false},
		{"1.5e3", 1500, false},
		{"1.5f", 1.5, true},
		{"1.5F", 1.5, true},
		{"3f", 3, true},
		{"0.1", 0.1, false},
		{"1e308", 1e308, false}, // integral but > UINT64_MAX: still an (overflowing) int, see below
	}
	for _, tt := range tests[:len(tests)-1] {
		toks, errs := scanString(tt.src)
		if len(errs) > 0 || len(toks) != 1 || toks[0].tok != FLOAT {
			t.Errorf("%s: got %s %v, want one floating literal", tt.src, kinds(toks), errs)
			continue
		}
		want := tt.val
		if tt.f32 {
			want = float64(float32(tt.val))
		}
		if toks[0].fval != want || toks[0].f32 != tt.f32 || toks[0].lit != tt.src {
			t.Errorf("%s: got %v f32=%v lit=%q, want %v f32=%v", tt.src, toks[0].fval, toks[0].f32, toks[0].lit, want, tt.f32)
		}
	}
	toks, _ := scanString("1e308")
	if toks[0].tok != INT || !toks[0].ovf {
		t.Errorf("1e308: got %s ovf=%v, want overflowing int", toks[0].tok, toks[0].ovf)
	}
}

func TestScanCharLiterals(t *testing.T) {
	tests := []struct {
		src  string
		want rune
	}{
		{`'a'`, 'a'},
		{`'中'`, '中'},
		{`'😀'`, '😀'},
		{`'\n'`, '\n'},
		{`'\r'`, '\r'},
		{`'\t'`, '\t'},
		{`'\''`, '\''},
		{`'\\'`, '\\'},
		{`'\"'`, '"'},
		{`'"'`, '"'},
		{`'\0'`, 0},
		{`'\u4E2D'`, '中'},
		{`'\u0041'`, 'A'},
	}
	for _, tt := range tests {
		toks, errs := scanString(tt.src)
		if len(errs) > 0 || len(toks) != 1 || toks[0].tok != CHAR {
			t.Errorf("%s: got %s %v, want one char literal", tt.src, kinds(toks), errs)
			continue
		}
		if toks[0].char != tt.want {
			t.Errorf("%s: got %U, want %U", tt.src, toks[0].char, tt.want)
		}
	}
}

func TestScanStringLiterals(t *testing.T) {
	tests := []struct{ src, want string }{
		{`""`, ""},
		{`"abc"`, "abc"},
		{`"中文"`, "中文"},
		{`"\n\r\t\\\"\'\0\a\b\f\v"`, "\n\r\t\\\"'\x00\a\b\f\v"},
		{`"\u0041\u4e2D"`, "A中"},
		{`"\uD83D\uDE00"`, "😀"},
		{`"$ $x $$ $${x} a$"`, "$ $x $ ${x} a$"},
		{`"tab	in"`, "tab\tin"},
	}
	for _, tt := range tests {
		toks, errs := scanString(tt.src)
		if len(errs) > 0 || len(toks) != 1 || toks[0].tok != STRING {
			t.Errorf("%s: got %s %v, want one string literal", tt.src, kinds(toks), errs)
			continue
		}
		var got strings.Builder
		for _, p := range toks[0].parts {
			if p.name != "" {
				t.Errorf("%s: unexpected interpolation %q", tt.src, p.name)
			}
			got.WriteString(p.lit)
		}
		if got.String() != tt.want {
			t.Errorf("%s: got %q, want %q", tt.src, got.String(), tt.want)
		}
		if toks[0].lit != tt.src {
			t.Errorf("%s: lit %q", tt.src, toks[0].lit)
		}
	}
}

func TestScanErrors(t *testing.T) {
	tests := []struct {
		src  string
		want string // errors, "; "-separated
	}{
		// encoding
		{"int \xff x;", "1:5: invalid UTF-8 encoding (save the file as UTF-8)"},
		{"// \xfe\nx", "1:4: invalid UTF-8 encoding (save the file as UTF-8)"},
		{`"a` + "\xc3" + `"`, "1:3: invalid UTF-8 encoding (save the file as UTF-8)"},
		{"a \uFEFF b", "1:3: invalid character U+FEFF"},
		{"a @ b # c", "1:3: invalid character U+0040 '@'; 1:7: invalid character U+0023 '#'"},
		{"é", "1:1: invalid character U+00E9 'é'"},
		{"a\x00", "1:2: invalid character U+0000"},
		{"x ? y : z", "1:3: '?' is not an NLang operator (there is no conditional expression; use if/else)"},
		{"a /* never\nclosed", "1:3: comment not terminated"},
		// numbers
		{"0x", "1:1: hexadecimal literal has no digits"},
		{"0xG1", "1:1: hexadecimal literal has no digits; 1:1: invalid suffix \"G1\" on numeric literal"},
		{"12abc", "1:1: invalid suffix \"abc\" on numeric literal"},
		{"1.5x", "1:1: invalid suffix \"x\" on numeric literal"},
		{"2e", "1:1: exponent has no digits"},
		{"2e+", "1:1: exponent has no digits"},
		{"1e999", ""}, // integral: an overflowing int, reported by the compiler
		{"1.0e999", "1:1: floating literal 1.0e999 is out of range"},
		{"1e39f", "1:1: floating literal 1e39f is out of range"},
		// chars
		{"''", "1:1: empty char literal"},
		{"'ab'", "1:1: char literal has more than one character (use double quotes for a string)"},
		{"'a", "1:1: char literal not terminated"},
		{"'a\nb'", "1:1: char literal not terminated; 2:2: char literal not terminated"},
		{`'\q'`, `1:2: unknown escape sequence \q`},
		{`'\a'`, `1:2: unknown escape sequence \a`},
		{`'\uD800'`, `1:2: char literal \uD800 is a surrogate, not a Unicode scalar value`},
		{`'\u12'`, `1:2: invalid \u escape (want 4 hex digits)`},
		// strings
		{`"abc`, "1:1: string literal not terminated"},
		{"x = \"abc\ny\";", "1:5: newline in string literal; 2:2: string literal not terminated"},
		{`"a\qb"`, `1:3: unknown escape sequence \q`},
		{`"\$"`, `1:2: unknown escape sequence \$`},
		{`"ok \x41"`, `1:5: unknown escape sequence \x`},
		{"\"\\\x01\"", `1:2: unknown escape sequence \U+0001`},
		{`"\u00G1"`, `1:2: invalid \u escape (want 4 hex digits)`},
		{`"\uD800"`, `1:2: invalid Unicode escape \uD800 (lone surrogate)`},
		{`"\uDC00"`, `1:2: invalid Unicode escape \uDC00 (lone surrogate)`},
		{`"\uD800x"`, `1:2: invalid Unicode escape \uD800 (lone surrogate)`},
		{`"\uD800\u0041"`, `1:2: invalid Unicode escape \uD800 (lone surrogate)`},
		{`"\uD800\uD800\uDC00"`, `1:2: invalid Unicode escape \uD800 (lone surrogate)`},
		// interpolation
		{`"${}"`, "1:2: interpolation takes a single identifier: ${}"},
		{`"${a+b}"`, "1:2: interpolation takes a single identifier: ${a+b}"},
		{`"x ${this.x}"`, "1:4: interpolation takes a single identifier: ${this.x}"},
		{`"${f()}"`, "1:2: interpolation takes a single identifier: ${f()}"},
		{`"${this}"`, "1:2: interpolation takes a single identifier: ${this}"},
		{`"${1a}"`, "1:2: interpolation takes a single identifier: ${1a}"},
		{`"${abc"`, "1:2: unterminated interpolation ${abc"},
		{`"${a\"}"`, `1:2: interpolation takes a single identifier: ${a\"}`},
	}
	for _, tt := range tests {
		_, errs := scanString(tt.src)
		if got := strings.Join(errs, "; "); got != tt.want {
			t.Errorf("scan %q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestScanInterpolationParts(t *testing.T) {
	tests := []struct{ src, want string }{
		{`"${a}"`, `"" a@1:4 ""`},
		{`"x${a}y${b}"`, `"x" a@1:5 "y" b@1:10 ""`},
		{`"\t${ab}"`, `"\t" ab@1:6 ""`},
		{`"${ a }"`, `"" a@1:5 ""`},
		{`"a $${x} ${y}"`, `"a ${x} " y@1:12 ""`},
	}
	for _, tt := range tests {
		toks, errs := scanString(tt.src)
		if errs != nil {
			t.Errorf("%s: %v", tt.src, errs)
			continue
		}
		var s []string
		for _, p := range toks[0].parts {
			if p.name != "" {
				s = append(s, fmt.Sprintf("%s@%d:%d", p.name, p.pos.Line, p.pos.Col))
			} else {
				s = append(s, fmt.Sprintf("%q", p.lit))
			}
		}
		// the final part is omitted when empty
		got := strings.Join(s, " ")
		want := strings.TrimSuffix(tt.want, ` ""`)
		if got != want {
			t.Errorf("%s: got %s, want %s", tt.src, got, want)
		}
	}
}
