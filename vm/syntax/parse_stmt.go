package syntax

import "fmt"

// ---- statements ----

// parseBlock parses `{ stmts }`.
func (p *parser) parseBlock() *Block {
	b := &Block{Pos: p.expect(LBRACE)}
	b.Stmts = p.parseStmtList(false)
	b.End = p.expect(RBRACE)
	return b
}

// parseStmtList parses statements up to a '}' (or, in a switch body
// (inCase), up to the next case or default label).
func (p *parser) parseStmtList(inCase bool) []Stmt {
	var list []Stmt
	for {
		switch p.tok.tok {
		case EOF, RBRACE:
			return list
		case CASE, DEFAULT:
			if inCase {
				return list
			}
		}
		if s := p.safeStmt(); s != nil {
			list = append(list, s)
		}
	}
}

// safeStmt parses one statement; after an error it skips to a statement
// boundary and returns nil.
func (p *parser) safeStmt() (s Stmt) {
	start := p.i
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			p.syncStmt(start)
			s = nil
		}
	}()
	return p.parseStmt()
}

// isDeclStart reports whether the tokens at the current position begin a
// local variable declaration: a primitive type keyword or `const`; an
// identifier followed by an identifier or `[]`; or a generic type name
// followed by `<`.
func (p *parser) isDeclStart() bool {
	switch p.tok.tok {
	case CONST:
		return true
	case IDENT:
		switch p.peek(1).tok {
		case IDENT, BRACKETS:
			return true
		case LT:
			return GenericTypeNames[p.tok.lit]
		}
		return false
	}
	return primitiveTypes[p.tok.tok]
}

// parseStmt parses one statement.
func (p *parser) parseStmt() Stmt {
	p.enter()
	defer p.leave()
	pos := p.tok.pos
	switch p.tok.tok {
	case LBRACE:
		return p.parseBlock()
	case SEMI:
		p.next()
		return &Empty{Pos: pos}
	case IF:
		p.next()
		return p.parseIfRest(pos)
	case WHILE:
		p.next()
		s := &While{Pos: pos, Cond: p.parseCond()}
		s.Body = p.parseBodyStmt("while")
		return s
	case DO:
		p.next()
		s := &DoWhile{Pos: pos, Body: p.parseBodyStmt("do")}
		p.expect(WHILE)
		s.Cond = p.parseCond()
		p.expectSemi()
		return s
	case FOR:
		return p.parseFor()
	case FOREACH:
		return p.parseForeach()
	case SWITCH:
		return p.parseSwitch()
	case BREAK:
		p.next()
		p.expectSemi()
		return &Break{Pos: pos}
	case CONTINUE:
		p.next()
		p.expectSemi()
		return &Continue{Pos: pos}
	case RETURN:
		p.next()
		s := &Return{Pos: pos}
		if p.tok.tok != SEMI && p.tok.tok != RBRACE {
			s.X = p.parseExpr()
		}
		p.expectSemi()
		return s
	case TRY:
		return p.parseTry()
	case THROW:
		p.next()
		s := &Throw{Pos: pos}
		if p.tok.tok != SEMI {
			s.X = p.parseExpr()
		}
		p.expectSemi()
		return s
	case ASSERT:
		p.next()
		p.expect(LPAREN)
		s := &Assert{Pos: pos, Cond: p.parseExpr()}
		p.expect(RPAREN)
		p.expectSemi()
		return s
	case SUPER:
		if p.peek(1).tok == LPAREN {
			p.next()
			args, _, _ := p.parseArgs()
			p.expectSemi()
			return &SuperCall{Pos: pos, Args: args}
		}
	case ELSE, ELSEIF:
		p.failf(pos, "'%s' without 'if'", p.tok.tok)
	case CATCH, FINALLY:
		p.failf(pos, "'%s' without 'try'", p.tok.tok)
	case CASE, DEFAULT:
		p.failf(pos, "'%s' outside a switch", p.tok.tok)
	case CLASS, STRUCT, ENUM, INTERFACE, IMPORT, USING:
		p.failf(pos, "'%s' is not allowed inside a function body", p.tok.tok)
	}
	s := p.parseSimpleStmt("")
	p.expectSemi()
	return s
}

// parseIfRest parses an if statement after `if` (or `elseif`). A chain of
// `else if` clauses is parsed by a loop, so a long chain does not nest (it
// is as flat as the switch it often stands for).
func (p *parser) parseIfRest(pos Pos) *If {
	first := &If{Pos: pos, Cond: p.parseCond()}
	first.Then = p.parseBodyStmt("if")
	for cur := first; ; {
		switch p.tok.tok {
		case ELSE:
			p.next()
			if p.tok.tok != IF {
				cur.Else = p.parseBodyStmt("else")
				return first
			}
		case ELSEIF:
		default:
			return first
		}
		next := &If{Pos: p.tok.pos}
		p.next()
		next.Cond = p.parseCond()
		next.Then = p.parseBodyStmt("if")
		cur.Else = next
		cur = next
	}
}

// parseCond parses `( expr )`.
func (p *parser) parseCond() Expr {
	p.expect(LPAREN)
	x := p.parseExpr()
	if p.tok.tok == ASSIGN {
		p.failf(p.tok.pos, "assignment is a statement, not an expression (did you mean ==?)")
	}
	p.expect(RPAREN)
	return x
}

// parseBodyStmt parses the body of if/else/while/do/for/foreach, which
// must not be a bare declaration.
func (p *parser) parseBodyStmt(ctx string) Stmt {
	if p.isDeclStart() {
		p.errorf(p.tok.pos, "a declaration cannot be the body of %s (use a block)", ctx)
	}
	return p.parseStmt()
}

// parseSimpleStmt parses a declaration, an assignment or a call, without
// the terminating ';'. If ctx is not "", the statement is the step of a
// for loop (named by ctx) where declarations are not allowed.
func (p *parser) parseSimpleStmt(ctx string) Stmt {
	if p.isDeclStart() {
		d := p.parseVarDecl()
		if ctx != "" {
			p.errorf(d.Pos, "a declaration is not allowed in %s", ctx)
		}
		return d
	}
	x := p.parseExpr()
	switch op := p.tok.tok; op {
	case ASSIGN, PLUSEQ, MINUSEQ, STAREQ, SLASHEQ, PERCENTEQ:
		opPos := p.tok.pos
		p.next()
		rhs := p.parseExpr()
		switch x.(type) {
		case *Ident, *Member:
		case *Index:
			if op != ASSIGN {
				p.errorf(opPos, "compound assignment to an element is not allowed (use a[i] = a[i] %s x)", op.String()[:1])
			}
		default:
			p.errorf(x.Start(), "cannot assign to this expression (want a variable, field or element)")
		}
		return &Assign{Pos: opPos, Op: op, LHS: x, RHS: rhs}
	case ANDEQ, OREQ, TILDEQ:
		p.failf(p.tok.pos, "%s", notOperator(op))
	}
	if _, ok := x.(*Call); !ok {
		switch p.tok.tok {
		case SEMI, RPAREN, RBRACE, EOF:
			p.errorf(x.Start(), "expression is not a statement")
		}
	}
	return &ExprStmt{X: x}
}

// parseVarDecl parses `[const] Type a [= e], b …` (without the ';').
func (p *parser) parseVarDecl() *VarDecl {
	d := &VarDecl{Pos: p.tok.pos}
	d.Const = p.got(CONST)
	d.Type = p.parseType()
	for {
		it := &VarItem{Pos: p.tok.pos}
		it.Name, _ = p.expectIdent()
		if p.got(ASSIGN) {
			it.Init = p.parseExpr()
		}
		d.Items = append(d.Items, it)
		if !p.got(COMMA) {
			return d
		}
	}
}

// parseFor parses `for (init; cond; step) body`.
func (p *parser) parseFor() *For {
	s := &For{Pos: p.tok.pos}
	p.next()
	p.expect(LPAREN)
	if p.tok.tok != SEMI {
		s.Init = p.parseSimpleStmt("")
	}
	p.expect(SEMI)
	if p.tok.tok != SEMI {
		s.Cond = p.parseExpr()
	}
	p.expect(SEMI)
	if p.tok.tok != RPAREN {
		s.Step = p.parseSimpleStmt("the step of a for loop")
	}
	p.expect(RPAREN)
	s.Body = p.parseBodyStmt("for")
	return s
}

// parseForeach parses `foreach (Type name in x) body`.
func (p *parser) parseForeach() *Foreach {
	s := &Foreach{Pos: p.tok.pos}
	p.next()
	p.expect(LPAREN)
	s.Type = p.parseType()
	s.Name, s.NamePos = p.expectIdent()
	p.expect(IN)
	s.X = p.parseExpr()
	p.expect(RPAREN)
	s.Body = p.parseBodyStmt("foreach")
	return s
}

// parseSwitch parses `switch (x) { case a, b: stmts … default: stmts }`.
func (p *parser) parseSwitch() *Switch {
	s := &Switch{Pos: p.tok.pos}
	p.next()
	s.X = p.parseCond()
	p.expect(LBRACE)
	var dflt *Case
	for p.tok.tok != RBRACE && p.tok.tok != EOF {
		if p.tok.tok != CASE && p.tok.tok != DEFAULT {
			// statements outside a case: report them once and skip them
			p.errorf(p.tok.pos, "expected 'case', 'default' or '}', got %s", p.tok)
			p.parseStmtList(true)
			continue
		}
		c := &Case{Pos: p.tok.pos}
		if p.got(DEFAULT) {
			if dflt != nil {
				p.errorf(c.Pos, "multiple defaults in switch (first at %d:%d)", dflt.Pos.Line, dflt.Pos.Col)
			}
			dflt = c
			if !p.got(COLON) {
				p.syncCase(p.i, fmt.Sprintf("expected ':', got %s", p.tok))
			}
		} else {
			p.next()
			p.parseCaseLabels(c)
		}
		c.Body = p.parseStmtList(true)
		s.Cases = append(s.Cases, c)
	}
	s.End = p.expect(RBRACE)
	return s
}

// parseCaseLabels parses the labels of a case clause and the ':' after
// them; after an error it skips past that ':'.
func (p *parser) parseCaseLabels(c *Case) {
	start := p.i
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			p.syncCase(start, "")
		}
	}()
	for {
		c.Labels = append(c.Labels, p.parseExpr())
		if !p.got(COMMA) {
			break
		}
	}
	p.expect(COLON)
}

// syncCase reports msg (if not "") and skips the rest of a broken case
// header: past the next ':' at the same nesting, or up to the next case,
// default or '}' that ends the clause (also skipping the statements between).
func (p *parser) syncCase(start int, msg string) {
	if msg != "" {
		p.errorf(p.tok.pos, "%s", msg)
	}
	depth := 0
	for {
		switch p.tok.tok {
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
		case COLON:
			if depth == 0 {
				p.next()
				return
			}
		case CASE, DEFAULT:
			if depth == 0 && p.i != start {
				return
			}
		}
		p.next()
	}
}

// parseTry parses `try body catch (T e) body … [finally body]`.
func (p *parser) parseTry() *Try {
	s := &Try{Pos: p.tok.pos}
	p.next()
	s.Body = p.parseBodyStmt("try")
	for p.tok.tok == CATCH {
		c := &Catch{Pos: p.tok.pos}
		p.next()
		p.expect(LPAREN)
		c.Type = p.parseType()
		c.Name, c.NamePos = p.expectIdent()
		p.expect(RPAREN)
		c.Body = p.parseBodyStmt("catch")
		s.Catches = append(s.Catches, c)
	}
	if p.got(FINALLY) {
		s.Finally = p.parseBodyStmt("finally")
	}
	if s.Catches == nil && s.Finally == nil {
		p.errorf(s.Pos, "try without catch or finally")
	}
	return s
}
