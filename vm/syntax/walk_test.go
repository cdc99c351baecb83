package syntax

import (
	"strings"
	"testing"
)

// TestWalkExprOrder: every expression once, each before what is inside
// it, in source order; false skips what is inside.
func TestWalkExprOrder(t *testing.T) {
	e, err := ParseExpr("t.n", []byte(`f(a + b[c], new P(d), new Dict<int, int>{k: e})`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	WalkExpr(e, func(x Expr) bool {
		if id, ok := x.(*Ident); ok {
			names = append(names, id.Name)
		}
		return true
	})
	if got := strings.Join(names, " "); got != "f a b c d k e" {
		t.Errorf("identifiers in walk order: %q", got)
	}
	names = names[:0]
	WalkExpr(e, func(x Expr) bool {
		if id, ok := x.(*Ident); ok {
			names = append(names, id.Name)
		}
		_, bin := x.(*Binary)
		return !bin
	})
	if got := strings.Join(names, " "); got != "f d k e" {
		t.Errorf("skipping inside a binary: %q", got)
	}
}

// TestWalkExprDeep: a chain as long as a large source does not recurse.
func TestWalkExprDeep(t *testing.T) {
	src := "x" + strings.Repeat(" + x", 200000)
	e, err := ParseExpr("t.n", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	WalkExpr(e, func(x Expr) bool {
		if _, ok := x.(*Ident); ok {
			n++
		}
		return true
	})
	if n != 200001 {
		t.Errorf("%d identifiers, want 200001", n)
	}
}
