package syntax

import "strings"

// ---- expressions ----

// precedence returns the binary precedence of t (1 = lowest), or 0 if t
// is not a binary operator.
func precedence(t Token) int {
	switch t {
	case OROR:
		return 1
	case ANDAND:
		return 2
	case EQL, NEQ:
		return 3
	case LT, LE, GT, GE:
		return 4
	case PLUS, MINUS:
		return 5
	case STAR, SLASH, PERCENT:
		return 6
	}
	return 0
}

// notOperator returns the diagnostic for a token that is lexed but has no
// grammar production.
func notOperator(t Token) string {
	hint := ""
	switch t {
	case INC:
		hint = " (use x += 1)"
	case DEC:
		hint = " (use x -= 1)"
	case AMP:
		hint = " (use && for logical and; there are no bitwise operators)"
	case PIPE:
		hint = " (use || for logical or; there are no bitwise operators)"
	case CARET, TILDE, ANDEQ, OREQ, TILDEQ:
		hint = " (there are no bitwise operators)"
	case SHL, SHR:
		hint = " (there are no shift operators)"
	}
	return "'" + t.String() + "' is not an NLang operator" + hint
}

func isUnusedOperator(t Token) bool { return t >= INC && t <= TILDE }

// parseExpr parses an expression.
func (p *parser) parseExpr() Expr {
	p.enter()
	defer p.leave()
	return p.parseBinary(1)
}

// parseBinary parses a chain of binary operators of precedence >= prec1.
func (p *parser) parseBinary(prec1 int) Expr {
	x := p.parseUnary()
	for {
		t := p.tok.tok
		if isUnusedOperator(t) && t != ANDEQ && t != OREQ && t != TILDEQ {
			p.failf(p.tok.pos, "%s", notOperator(t))
		}
		prec := precedence(t)
		if prec < prec1 {
			return x
		}
		pos := p.tok.pos
		p.next()
		y := p.parseBinary(prec + 1)
		x = &Binary{Pos: pos, Op: t, X: x, Y: y}
	}
}

// parseUnary parses `-x`, `+x`, `!x` or a cast expression. A `+` before
// a number literal is dropped: `+4` is the literal 4.
func (p *parser) parseUnary() Expr {
	switch t := p.tok.tok; t {
	case PLUS:
		p.enter()
		defer p.leave()
		pos := p.tok.pos
		p.next()
		x := p.parseUnary()
		switch x.(type) {
		case *IntLit, *FloatLit:
			return x
		}
		return &Unary{Pos: pos, Op: PLUS, X: x}
	case MINUS, NOT:
		p.enter()
		defer p.leave()
		pos := p.tok.pos
		p.next()
		return &Unary{Pos: pos, Op: t, X: p.parseUnary()}
	case INC, DEC, TILDE:
		p.failf(p.tok.pos, "%s", notOperator(t))
	}
	x := p.parsePostfix()
	for p.tok.tok == AS {
		pos := p.tok.pos
		p.next()
		x = &Cast{Pos: pos, X: x, Type: p.parseType()}
	}
	return x
}

// parsePostfix parses a primary expression followed by member accesses,
// calls and subscripts.
func (p *parser) parsePostfix() Expr {
	x := p.parsePrimary()
	for {
		switch p.tok.tok {
		case DOT:
			p.next()
			name, pos := p.expectIdent()
			x = &Member{X: x, Name: name, NamePos: pos}
		case LPAREN:
			args, lp, rp := p.parseArgs()
			x = &Call{Fun: x, Lparen: lp, Args: args, Rparen: rp}
		case LBRACK:
			lb := p.tok.pos
			p.next()
			idx := p.parseExpr()
			p.expect(RBRACK)
			x = &Index{X: x, Lbrack: lb, Index: idx}
		case INC, DEC:
			p.failf(p.tok.pos, "%s", notOperator(p.tok.tok))
		default:
			return x
		}
	}
}

// parseArgs parses `( args )`.
func (p *parser) parseArgs() (args []*Arg, lparen, rparen Pos) {
	lparen = p.expect(LPAREN)
	if p.tok.tok != RPAREN {
		for {
			args = append(args, p.parseArg())
			if !p.got(COMMA) {
				break
			}
		}
	}
	rparen = p.expect(RPAREN)
	return args, lparen, rparen
}

// parseArg parses a positional argument, `name = expr` or `out x`.
func (p *parser) parseArg() *Arg {
	a := &Arg{Pos: p.tok.pos}
	switch {
	case p.tok.tok == OUT:
		p.next()
		a.Out = true
	case p.tok.tok == IDENT && p.peek(1).tok == ASSIGN:
		a.Name = p.tok.lit
		p.next()
		p.next()
	}
	a.X = p.parseExpr()
	return a
}

// parsePrimary parses an operand.
func (p *parser) parsePrimary() Expr {
	t := *p.tok // (a copy: the current token is overwritten by p.next)
	pos := t.pos
	switch t.tok {
	case IDENT:
		p.next()
		return &Ident{Pos: pos, Name: t.lit}
	case INT:
		p.next()
		return &IntLit{Pos: pos, Raw: t.lit, Value: t.ival, Overflow: t.ovf}
	case FLOAT:
		p.next()
		return &FloatLit{Pos: pos, Raw: t.lit, Value: t.fval, Float32: t.f32}
	case CHAR:
		p.next()
		return &CharLit{Pos: pos, Value: t.char}
	case STRING:
		p.next()
		return stringExpr(t)
	case TRUE, FALSE:
		p.next()
		return &BoolLit{Pos: pos, Value: t.tok == TRUE}
	case NULL:
		p.next()
		return &NullLit{Pos: pos}
	case THIS:
		p.next()
		return &This{Pos: pos}
	case LPAREN:
		p.next()
		x := p.parseExpr()
		p.expect(RPAREN)
		return x
	case LBRACK:
		p.next()
		a := &ArrayLit{Pos: pos}
		for p.tok.tok != RBRACK {
			a.Elems = append(a.Elems, p.parseExpr())
			if !p.got(COMMA) {
				break
			}
		}
		p.expect(RBRACK)
		return a
	case BRACKETS:
		p.failf(pos, "the empty array literal [] is not allowed (use new T[0] or new List<T>{})")
	case LBRACE:
		return p.parseInitList()
	case NEW:
		return p.parseNew()
	case SUPER:
		p.failf(pos, "'super' is only allowed as a constructor call super(args);")
	}
	p.failf(pos, "expected expression, got %s", t.String())
	panic("unreachable")
}

// parseInitList parses `{ [entry {, entry} [,]] }` where an entry is
// `key: value` or `value`.
func (p *parser) parseInitList() *InitList {
	l := &InitList{Pos: p.expect(LBRACE)}
	for p.tok.tok != RBRACE {
		e := &InitEntry{Value: p.parseExpr()}
		if p.got(COLON) {
			e.Key = e.Value
			e.Value = p.parseExpr()
		}
		l.Entries = append(l.Entries, e)
		if !p.got(COMMA) {
			break
		}
	}
	l.End = p.expect(RBRACE)
	return l
}

// parseNew parses `new T(args)`, `new T[n]{[]}`, `new T{init}` and
// `new T[]{init}`.
func (p *parser) parseNew() *New {
	n := &New{Pos: p.tok.pos}
	p.next()
	n.Type = p.parseTypeName()
	switch p.tok.tok {
	case LPAREN:
		n.Args, _, _ = p.parseArgs()
	case LBRACK:
		p.next()
		n.Len = p.parseExpr()
		p.expect(RBRACK)
		for p.got(BRACKETS) {
			n.Type.Dims++
		}
	case BRACKETS:
		for p.got(BRACKETS) {
			n.Type.Dims++
		}
		if p.tok.tok != LBRACE {
			p.failf(p.tok.pos, "expected array length new %s[n] or initializer new %s{…}, got %s", n.Type.Name, n.Type, p.tok)
		}
		n.Init = p.parseInitList()
	case LBRACE:
		n.Init = p.parseInitList()
	default:
		p.failf(p.tok.pos, "expected '(', '[' or '{' after new %s, got %s", n.Type, p.tok)
	}
	return n
}

// stringExpr turns a STRING token into a *StringLit or, for an
// interpolated string, a left-folded `+` chain of *StringLit and *Ident
// pieces (with "" prepended when the first piece is an identifier).
func stringExpr(t token) Expr {
	var pieces []Expr
	var lit strings.Builder
	interpolated := false
	flush := func() {
		if lit.Len() > 0 {
			pieces = append(pieces, &StringLit{Pos: t.pos, Value: lit.String()})
			lit.Reset()
		}
	}
	for _, pt := range t.parts {
		if pt.name == "" {
			lit.WriteString(pt.lit)
			continue
		}
		interpolated = true
		flush()
		pieces = append(pieces, &Ident{Pos: pt.pos, Name: pt.name})
	}
	if !interpolated {
		return &StringLit{Pos: t.pos, Value: lit.String()}
	}
	flush()
	if _, ok := pieces[0].(*Ident); ok {
		pieces = append([]Expr{&StringLit{Pos: t.pos}}, pieces...)
	}
	x := pieces[0]
	for _, y := range pieces[1:] {
		x = &Binary{Pos: t.pos, Op: PLUS, X: x, Y: y}
	}
	return x
}
