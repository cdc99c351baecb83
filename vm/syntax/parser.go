package syntax

import "fmt"

// maxErrors is the number of errors after which parsing stops.
const maxErrors = 50

// maxNesting bounds the recursion depth of the parser (nested
// expressions, statements and types), so hostile input cannot exhaust the
// Go stack.
const maxNesting = 1000

// Parse parses one source file. It returns the (possibly partial) file and,
// if there were errors, an ErrorList with every error found (the parser
// recovers at statement and declaration boundaries, so one run reports all
// errors of a file, up to a limit of 50).
func Parse(filename string, src []byte) (f *File, err error) {
	p := &parser{file: filename}
	f = &File{Name: filename, Src: src}
	defer p.finish(&err)
	p.init(src)
	p.parseFile(f)
	return f, nil
}

// ParseExpr parses a single expression (used by the debugger's evaluate).
// The expression must make up the whole of src.
func ParseExpr(filename string, src []byte) (x Expr, err error) {
	p := &parser{file: filename}
	defer p.finish(&err)
	p.init(src)
	func() {
		defer p.recoverBailout()
		x = p.parseExpr()
		if p.tok.tok != EOF {
			p.failf(p.tok.pos, "unexpected %s after expression", p.tok)
		}
	}()
	return x, nil
}

// bailout is the panic value with which the parser abandons a construct
// after reporting an error; the nearest statement or declaration boundary
// recovers it.
type bailout struct{}

// tooManyErrors is the panic value that stops parsing once maxErrors is
// exceeded, or once the program nests too deeply (parsing on after that
// would only report the same again at each level).
type tooManyErrors struct{}

// The parser reads tokens from the scanner as it goes (it keeps the
// current one, the one before and at most one ahead), so the memory it
// needs besides the tree is independent of the length of the source.
type parser struct {
	file  string
	sc    *scanner
	cur   token   // the current token
	prev  token   // the token before it (valid when i > 0)
	ahead []token // tokens scanned after cur, for peek
	i     int     // number of tokens consumed: the index of the current token
	tok   *token  // &cur; overwritten by next
	errs  ErrorList
	nest  int // current recursion depth (see enter)
}

func (p *parser) init(src []byte) {
	p.sc = newScanner(src, func(pos Pos, msg string) {
		if len(p.errs) <= maxErrors { // later ones would be cut by finish anyway
			p.errs.Add(p.file, pos, msg)
		}
	})
	p.cur = p.sc.scan()
	p.i = 0
	p.tok = &p.cur
}

// finish is deferred by the API functions: it turns a stray panic into an
// "internal error" diagnostic and sets *errp from the error list.
func (p *parser) finish(errp *error) {
	if r := recover(); r != nil {
		switch r.(type) {
		case tooManyErrors, bailout:
		default:
			var pos Pos
			if p.tok != nil {
				pos = p.tok.pos
			}
			p.errs.Add(p.file, pos, fmt.Sprintf("internal error: %v", r))
		}
	}
	p.errs.RemoveDuplicates()
	if len(p.errs) > maxErrors {
		last := p.errs[maxErrors-1]
		p.errs = append(p.errs[:maxErrors], &Error{File: p.file, Pos: last.Pos, Msg: "too many errors"})
	}
	*errp = p.errs.Err()
}

// next advances to the next token (staying at EOF).
func (p *parser) next() {
	if p.cur.tok == EOF {
		return
	}
	p.prev = p.cur
	if len(p.ahead) > 0 {
		p.cur = p.ahead[0]
		p.ahead = p.ahead[:copy(p.ahead, p.ahead[1:])]
	} else {
		p.cur = p.sc.scan()
	}
	p.i++
}

// peek returns the token n positions ahead (EOF past the end).
func (p *parser) peek(n int) *token {
	if p.cur.tok == EOF {
		return &p.cur
	}
	for len(p.ahead) < n {
		if k := len(p.ahead); k > 0 && p.ahead[k-1].tok == EOF {
			return &p.ahead[k-1]
		}
		p.ahead = append(p.ahead, p.sc.scan())
	}
	return &p.ahead[n-1]
}

// errorf records an error and continues.
func (p *parser) errorf(pos Pos, format string, args ...any) {
	p.errs.Add(p.file, pos, fmt.Sprintf(format, args...))
	if len(p.errs) > maxErrors {
		panic(tooManyErrors{})
	}
}

// failf records an error and abandons the current construct. Never returns.
func (p *parser) failf(pos Pos, format string, args ...any) {
	p.errorf(pos, format, args...)
	panic(bailout{})
}

// recoverBailout is deferred to stop a bailout panic; other panics go on.
func (p *parser) recoverBailout() {
	if r := recover(); r != nil {
		if _, ok := r.(bailout); !ok {
			panic(r)
		}
	}
}

// enter counts one level of recursion; the caller defers p.leave().
func (p *parser) enter() {
	p.nest++
	if p.nest > maxNesting {
		p.errorf(p.tok.pos, "program is nested too deeply (more than %d levels)", maxNesting)
		panic(tooManyErrors{})
	}
}

func (p *parser) leave() { p.nest-- }

// got reports whether the current token is t, and if so consumes it.
func (p *parser) got(t Token) bool {
	if p.tok.tok == t {
		p.next()
		return true
	}
	return false
}

// expect consumes a token of kind t and returns its position, or fails.
func (p *parser) expect(t Token) Pos {
	pos := p.tok.pos
	if p.tok.tok != t {
		p.failf(pos, "expected '%s', got %s", t, p.tok)
	}
	p.next()
	return pos
}

// expectIdent consumes an identifier and returns it.
func (p *parser) expectIdent() (string, Pos) {
	if p.tok.tok != IDENT {
		p.failf(p.tok.pos, "expected identifier, got %s", p.tok)
	}
	name, pos := p.tok.lit, p.tok.pos
	p.next()
	return name, pos
}

// expectSemi consumes the ';' that ends a statement or declaration. A
// missing ';' before a token on a later line (or before '}') is reported
// and parsing goes on as if it were there; otherwise the construct is
// abandoned.
func (p *parser) expectSemi() {
	if p.got(SEMI) {
		return
	}
	if p.tok.tok == RBRACE || p.tok.tok == EOF || p.i > 0 && p.prev.pos.Line < p.tok.pos.Line {
		if p.i == 0 || !p.prev.bad { // else the ';' was swallowed by an unterminated literal
			p.errorf(p.tok.pos, "expected ';', got %s", p.tok)
		}
		return
	}
	p.failf(p.tok.pos, "expected ';', got %s", p.tok)
}

// stmtKeywords start statements; error recovery stops in front of them.
var stmtKeywords = map[Token]bool{
	IF: true, WHILE: true, DO: true, FOR: true, FOREACH: true, SWITCH: true,
	RETURN: true, BREAK: true, CONTINUE: true, TRY: true, THROW: true,
	ASSERT: true, CASE: true, DEFAULT: true,
}

// declKeywords start declarations; error recovery stops in front of them.
var declKeywords = map[Token]bool{
	CLASS: true, STRUCT: true, ENUM: true, INTERFACE: true, IMPORT: true,
	USING: true, PUBLIC: true, PRIVATE: true, PROTECTED: true, STATIC: true,
	VIRTUAL: true, NATIVE: true,
}

// syncStmt skips tokens after an error inside the statement that began at
// token index start: up to and including the next ';' at the same nesting,
// past a '{…}' group that closes at that nesting, or up to (not including)
// a '}' that closes the enclosing block or a statement keyword.
func (p *parser) syncStmt(start int) {
	if p.i == start {
		p.next() // always make progress
	}
	depth := 0
	for {
		switch t := p.tok.tok; t {
		case EOF:
			return
		case LPAREN, LBRACK, LBRACE:
			depth++
		case RPAREN, RBRACK:
			if depth > 0 {
				depth--
			}
		case RBRACE:
			if depth == 0 {
				return
			}
			depth--
			if depth == 0 {
				p.next()
				return
			}
		case SEMI:
			if depth == 0 {
				p.next()
				return
			}
		default:
			if depth == 0 && stmtKeywords[t] {
				return
			}
		}
		p.next()
	}
}

// syncDecl skips tokens after an error in a declaration that began at
// token index start, up to the next declaration keyword, past the next ';'
// or '{…}' group at the same nesting. In a class body (inClass) it also
// stops in front of the '}' that closes the class.
func (p *parser) syncDecl(start int, inClass bool) {
	if p.i == start {
		p.next()
	}
	depth := 0
	for {
		switch t := p.tok.tok; t {
		case EOF:
			return
		case LPAREN, LBRACK, LBRACE:
			depth++
		case RPAREN, RBRACK:
			if depth > 0 {
				depth--
			}
		case RBRACE:
			if depth == 0 {
				if inClass {
					return
				}
				break // stray '}' at top level: skip it
			}
			depth--
			if depth == 0 {
				p.next()
				return
			}
		case SEMI:
			if depth == 0 {
				p.next()
				return
			}
		default:
			if depth == 0 && declKeywords[t] {
				return
			}
		}
		p.next()
	}
}

// ---- declarations ----

func (p *parser) parseFile(f *File) {
	for p.tok.tok != EOF {
		p.topLevel(f)
	}
}

// topLevel parses one top-level item into f, recovering from errors.
func (p *parser) topLevel(f *File) {
	start := p.i
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			p.syncDecl(start, false)
		}
	}()
	switch p.tok.tok {
	case IMPORT:
		f.Imports = append(f.Imports, p.parseImport())
	case USING:
		f.Aliases = append(f.Aliases, p.parseAlias())
	case SEMI:
		p.next()
	case RBRACE:
		p.failf(p.tok.pos, "unexpected '}' at top level")
	default:
		if d := p.parseDecl(); d != nil {
			f.Decls = append(f.Decls, d)
		}
	}
}

// parseImport parses `import a.b;` or `import a.*;`.
func (p *parser) parseImport() *Import {
	imp := &Import{Pos: p.tok.pos}
	p.next()
	if p.tok.tok == STRING {
		p.failf(p.tok.pos, "import of a file name is no longer supported (write import name; without quotes)")
	}
	name, _ := p.expectIdent()
	imp.Path = append(imp.Path, name)
	for p.got(DOT) {
		if p.got(STAR) {
			imp.Star = true
			break
		}
		name, _ := p.expectIdent()
		imp.Path = append(imp.Path, name)
	}
	p.expectSemi()
	return imp
}

// parseAlias parses `using Name = Type;`.
func (p *parser) parseAlias() *Alias {
	a := &Alias{Pos: p.tok.pos}
	p.next()
	a.Name, a.NamePos = p.expectIdent()
	p.expect(ASSIGN)
	a.Type = p.parseType()
	p.expectSemi()
	return a
}

// parseModifiers parses access and other modifiers in any order.
func (p *parser) parseModifiers() Modifiers {
	var m Modifiers
	for {
		pos := p.tok.pos
		var flag *bool
		switch p.tok.tok {
		case PUBLIC, PRIVATE, PROTECTED:
			if m.Access != "" {
				p.errorf(pos, "multiple access modifiers (%s and %s)", m.Access, p.tok.tok)
			}
			m.Access = p.tok.tok.String()
			p.next()
			continue
		case STATIC:
			flag = &m.Static
		case VIRTUAL:
			flag = &m.Virtual
		case NATIVE:
			flag = &m.Native
		case CONST:
			flag = &m.Const
		default:
			return m
		}
		if *flag {
			p.errorf(pos, "duplicate modifier '%s'", p.tok.tok)
		}
		*flag = true
		p.next()
	}
}

func (m Modifiers) onlyAccess() bool { return !m.Static && !m.Virtual && !m.Native && !m.Const }

// parseDecl parses a function, class, interface, struct or enum.
func (p *parser) parseDecl() Decl {
	pos := p.tok.pos
	mods := p.parseModifiers()
	switch p.tok.tok {
	case CLASS, INTERFACE, STRUCT, ENUM:
		if !mods.onlyAccess() {
			p.errorf(pos, "modifiers other than an access modifier are not allowed on a %s", p.tok.tok)
		}
		switch p.tok.tok {
		case STRUCT:
			return p.parseStruct(pos)
		case ENUM:
			return p.parseEnum(pos)
		}
		return p.parseClass(pos)
	}
	if !p.isTypeStart() {
		p.failf(p.tok.pos, "expected declaration, got %s", p.tok)
	}
	if p.tok.tok == IDENT && p.peek(1).tok == LPAREN {
		p.failf(p.tok.pos, "missing result type before %s (use void if it returns nothing)", p.tok.lit)
	}
	result := p.parseType()
	name, namePos := p.expectIdent()
	if p.tok.tok != LPAREN {
		switch p.tok.tok {
		case ASSIGN, SEMI, COMMA:
			p.failf(namePos, "global variables are not supported (use a local variable or a class field)")
		}
		p.failf(p.tok.pos, "expected '(', got %s", p.tok)
	}
	return p.parseFuncRest(pos, mods, result, name, namePos)
}

// isTypeStart reports whether the current token can begin a type.
func (p *parser) isTypeStart() bool {
	return p.tok.tok == IDENT || primitiveTypes[p.tok.tok]
}

// parseFuncRest parses the parameters and body of a function whose
// header up to the name has been parsed.
func (p *parser) parseFuncRest(pos Pos, mods Modifiers, result *TypeExpr, name string, namePos Pos) *FuncDecl {
	fn := &FuncDecl{Pos: pos, Mods: mods, Result: result, Name: name, NamePos: namePos}
	p.expect(LPAREN)
	if p.tok.tok != RPAREN {
		for {
			fn.Params = append(fn.Params, p.parseParam())
			if !p.got(COMMA) {
				break
			}
		}
	}
	p.expect(RPAREN)
	switch p.tok.tok {
	case LBRACE:
		fn.Body = p.parseBlock()
	case SEMI:
		p.next()
	default:
		p.failf(p.tok.pos, "expected '{' or ';' after the parameters of %s, got %s", name, p.tok)
	}
	return fn
}

// parseParam parses `[out] Type name [= default]`.
func (p *parser) parseParam() *Param {
	prm := &Param{Pos: p.tok.pos}
	prm.Out = p.got(OUT)
	prm.Type = p.parseType()
	prm.Name, _ = p.expectIdent()
	if p.got(ASSIGN) {
		prm.Default = p.parseExpr()
	}
	return prm
}

// members collects what parseMembers finds in a class-like body.
type members struct {
	fields  []*FieldDecl
	methods []*FuncDecl
}

// parseClass parses a class or interface after its modifiers.
func (p *parser) parseClass(pos Pos) *ClassDecl {
	c := &ClassDecl{Pos: pos, IsInterface: p.tok.tok == INTERFACE}
	p.next()
	c.Name, _ = p.expectIdent()
	if p.got(COLON) {
		c.Base, c.BasePos = p.expectIdent()
	}
	if p.got(IMPLEMENTS) {
		for {
			name, npos := p.expectIdent()
			c.Implements = append(c.Implements, name)
			c.ImplPos = append(c.ImplPos, npos)
			if !p.got(COMMA) {
				break
			}
		}
	}
	var ms members
	p.parseBody(c.Name, &ms)
	c.Fields, c.Methods = ms.fields, ms.methods
	return c
}

// parseBody parses `{ members }`.
func (p *parser) parseBody(className string, ms *members) {
	p.expect(LBRACE)
	p.parseMembers(className, ms)
	p.expect(RBRACE)
}

// parseMembers parses fields and methods up to the closing '}'.
func (p *parser) parseMembers(className string, ms *members) {
	for p.tok.tok != RBRACE && p.tok.tok != EOF {
		p.member(className, ms)
	}
}

// member parses one field declaration or method, recovering from errors.
func (p *parser) member(className string, ms *members) {
	start := p.i
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			p.syncDecl(start, true)
		}
	}()
	if p.got(SEMI) {
		return
	}
	pos := p.tok.pos
	mods := p.parseModifiers()
	switch p.tok.tok {
	case CLASS, INTERFACE, STRUCT, ENUM:
		p.failf(p.tok.pos, "nested %s declarations are not supported", p.tok.tok)
	}
	if p.tok.tok == IDENT && p.tok.lit == className && p.peek(1).tok == LPAREN {
		// constructor written without a result type
		name, namePos := p.expectIdent()
		ms.methods = append(ms.methods, p.parseFuncRest(pos, mods, nil, name, namePos))
		return
	}
	if !p.isTypeStart() {
		p.failf(p.tok.pos, "expected field or method declaration, got %s", p.tok)
	}
	if p.tok.tok == IDENT && p.peek(1).tok == LPAREN {
		p.failf(p.tok.pos, "missing result type before %s (use void if it returns nothing; a constructor is named %s)", p.tok.lit, className)
	}
	typ := p.parseType()
	name, namePos := p.expectIdent()
	if p.tok.tok == LPAREN {
		ms.methods = append(ms.methods, p.parseFuncRest(pos, mods, typ, name, namePos))
		return
	}
	for first := true; ; first = false {
		if !first {
			name, namePos = p.expectIdent()
		}
		fd := &FieldDecl{Pos: namePos, Mods: mods, Type: typ, Name: name}
		if !first {
			fd.Type = typ.clone()
		}
		if p.got(ASSIGN) {
			fd.Init = p.parseExpr()
		}
		ms.fields = append(ms.fields, fd)
		if !p.got(COMMA) {
			break
		}
	}
	p.expectSemi()
}

// parseStruct parses `struct S { fields }`.
func (p *parser) parseStruct(pos Pos) *StructDecl {
	p.next()
	s := &StructDecl{Pos: pos}
	s.Name, _ = p.expectIdent()
	var ms members
	p.parseBody(s.Name, &ms)
	for _, m := range ms.methods {
		p.errorf(m.NamePos, "struct %s cannot have methods (use a class)", s.Name)
	}
	s.Fields = ms.fields
	return s
}

// parseEnum parses `enum E { A, B = 5, C [; methods] }`.
func (p *parser) parseEnum(pos Pos) *EnumDecl {
	p.next()
	e := &EnumDecl{Pos: pos}
	e.Name, _ = p.expectIdent()
	p.expect(LBRACE)
	for p.tok.tok == IDENT {
		m := &EnumMember{Pos: p.tok.pos, Name: p.tok.lit}
		p.next()
		if p.got(ASSIGN) {
			m.Value = p.parseExpr()
		}
		e.Members = append(e.Members, m)
		if !p.got(COMMA) {
			break
		}
	}
	if p.got(SEMI) {
		var ms members
		p.parseMembers(e.Name, &ms)
		for _, f := range ms.fields {
			p.errorf(f.Pos, "enum %s cannot have fields", e.Name)
		}
		e.Methods = ms.methods
	} else if p.tok.tok != RBRACE {
		p.failf(p.tok.pos, "expected enum member, ';' or '}', got %s", p.tok)
	}
	p.expect(RBRACE)
	return e
}

// ---- types ----

// parseType parses a type: a primitive keyword or an identifier, type
// arguments after a generic type name, then `[]` suffixes.
func (p *parser) parseType() *TypeExpr {
	t := p.parseTypeName()
	for p.got(BRACKETS) {
		t.Dims++
	}
	return t
}

// parseTypeName parses a type without its `[]` suffixes.
func (p *parser) parseTypeName() *TypeExpr {
	p.enter()
	defer p.leave()
	t := &TypeExpr{Pos: p.tok.pos}
	switch {
	case primitiveTypes[p.tok.tok]:
		t.Name = p.tok.tok.String()
		p.next()
	case p.tok.tok == IDENT:
		t.Name = p.tok.lit
		p.next()
		if GenericTypeNames[t.Name] && p.tok.tok == LT {
			p.parseTypeArgs(t)
		}
	default:
		p.failf(p.tok.pos, "expected type, got %s", p.tok)
	}
	return t
}

// parseTypeArgs parses `<[out] T, …>`; a `>>` token closing two lists is
// split in two.
func (p *parser) parseTypeArgs(t *TypeExpr) {
	p.next() // '<'
	for {
		out := false
		if p.tok.tok == OUT {
			if t.Name != "Func" && t.Name != "func" {
				p.errorf(p.tok.pos, "'out' is only allowed in Func type arguments")
			}
			out = true
			p.next()
		}
		t.Args = append(t.Args, p.parseType())
		t.ArgOut = append(t.ArgOut, out)
		if !p.got(COMMA) {
			break
		}
	}
	switch p.tok.tok {
	case GT:
		p.next()
	case SHR:
		// `>>` closes this list and the enclosing one: leave a `>` behind
		p.tok.tok = GT
		p.tok.lit = ">"
		p.tok.pos.Col++
	default:
		p.failf(p.tok.pos, "expected '>' or ',' in type arguments, got %s", p.tok)
	}
}

// clone returns a deep copy of t.
func (t *TypeExpr) clone() *TypeExpr {
	if t == nil {
		return nil
	}
	c := *t
	if t.Args != nil {
		c.Args = make([]*TypeExpr, len(t.Args))
		for i, a := range t.Args {
			c.Args[i] = a.clone()
		}
		c.ArgOut = append([]bool(nil), t.ArgOut...)
	}
	return &c
}
