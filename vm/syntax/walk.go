package syntax

// WalkExpr calls visit for e and every expression inside it, each before
// the expressions inside it and in source order; when visit returns
// false, what is inside that expression is skipped. It keeps its own
// stack instead of recursing: an expression can be as deep as its source
// is long.
func WalkExpr(e Expr, visit func(Expr) bool) {
	if e == nil {
		return
	}
	stack := []Expr{e}
	var kids []Expr
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == nil || !visit(x) {
			continue
		}
		kids = appendChildren(kids[:0], x)
		for i := len(kids) - 1; i >= 0; i-- { // the first child on top
			stack = append(stack, kids[i])
		}
	}
}

// appendChildren appends the expressions directly inside e, in source
// order (absent ones left out).
func appendChildren(out []Expr, e Expr) []Expr {
	args := func(as []*Arg) {
		for _, a := range as {
			out = append(out, a.X)
		}
	}
	switch e := e.(type) {
	case *Binary:
		out = append(out, e.X, e.Y)
	case *Unary:
		out = append(out, e.X)
	case *Cast:
		out = append(out, e.X)
	case *Member:
		out = append(out, e.X)
	case *Index:
		out = append(out, e.X, e.Index)
	case *Call:
		out = append(out, e.Fun)
		args(e.Args)
	case *New:
		args(e.Args)
		if e.Len != nil {
			out = append(out, e.Len)
		}
		if e.Init != nil {
			out = append(out, e.Init)
		}
	case *InitList:
		for _, en := range e.Entries {
			if en.Key != nil {
				out = append(out, en.Key)
			}
			out = append(out, en.Value)
		}
	case *ArrayLit:
		out = append(out, e.Elems...)
	}
	return out
}
