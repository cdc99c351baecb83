package compile

import (
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// The implicit conversion rule.
//
// Every context where a value meets the type it must have goes through
// convCost: assignment to a local, field or element, the initialiser of
// a local or field, argument passing (user functions, methods,
// constructors, function values, natives and the methods of built-in
// types such as List<float>.add), return, array, List, Dict and object
// initialisers, spawn arguments, switch labels and the loop variable of
// foreach. convTest enumerates these contexts.
//
// The rule has two steps:
//
//  1. Constant fitting. The expected type is passed down to the
//     expression while it is typed: an integer literal (or negated
//     literal) takes any integer type its value fits (byte b = 5), and a
//     floating literal without suffix takes type float when its value is
//     a float exactly (float f = 1.5). Arithmetic passes an expected float
//     on to its floating literals, so `float f = x + 0.5;` with int x is
//     float arithmetic.
//  2. The implicit conversions of convScore on the type so obtained:
//     integer widening, integer to float or double (with a warning when
//     it may round), float to double, enum to integer, anything scalar,
//     struct or reference to string, scalars boxed as Object, and class
//     upcasts. Everything else needs `as`.
//
// Two checks ask about types rather than about a value meeting a type,
// and call convScore directly: whether two references can be compared
// with == (one converts to the other), and whether a cast is redundant
// (the conversion is implicit anyway) or impossible.

// convCost reports whether e converts implicitly to want and at what
// overload distance (0 exact, larger is farther), or -1 when it does not.
// ctx is the type of e typed where want is expected (constant fitting
// done); natural, when not nil, gives e's own type with no expectation
// (it prices a fitted constant, which overload resolution needs). e may
// be nil for a value with no expression (a foreach element).
func (fc *fcomp) convCost(e syntax.Expr, ctx, want *vm.Type, natural func() *vm.Type) int {
	if e != nil && want.IsInteger() && isIntLit(e) && fc.litFits(e, want) {
		return litScore(intLitType(e), want)
	}
	if e != nil && ctx == want && want == vm.Float && natural != nil && natural() == vm.Double {
		return 1 // a double constant fitted to float: as far as float→double
	}
	return fc.c.convScore(ctx, want)
}

// intLitType is the type of an integer literal (or negated literal) by
// its value alone.
func intLitType(e syntax.Expr) *vm.Type {
	neg := false
	if u, ok := e.(*syntax.Unary); ok && u.Op == syntax.MINUS {
		e, neg = u.X, true
	}
	l := e.(*syntax.IntLit)
	if t := literalType(l.Value, neg); t != nil {
		return t
	}
	return vm.Long
}

// floatish reports whether an expected float changes how e is typed: e
// is a floating literal without suffix, or negation or arithmetic over
// one. (A search with a stack: an arithmetic chain can be as deep as its
// source is long.)
func (fc *fcomp) floatish(e syntax.Expr) bool {
	stack := []syntax.Expr{e}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch e := e.(type) {
		case *syntax.FloatLit:
			if !e.Float32 {
				return true
			}
		case *syntax.Unary:
			if e.Op == syntax.MINUS {
				stack = append(stack, e.X)
			}
		case *syntax.Binary:
			if isArith(e.Op) {
				stack = append(stack, e.Y, e.X)
			}
		}
	}
	return false
}

// isArith reports whether op is an arithmetic operator.
func isArith(op syntax.Token) bool {
	switch op {
	case syntax.PLUS, syntax.MINUS, syntax.STAR, syntax.SLASH, syntax.PERCENT:
		return true
	}
	return false
}

// hintMatters reports whether typing e where hint is expected can give a
// different type than typing it alone.
func (fc *fcomp) hintMatters(e syntax.Expr, hint *vm.Type) bool {
	if hint == nil {
		return false
	}
	switch e.(type) {
	case *syntax.InitList, *syntax.ArrayLit:
		return true
	case *syntax.Ident, *syntax.Member:
		return hint.Kind == vm.KFunc
	}
	return hint == vm.Float && fc.floatish(e)
}

// convError reports that e, of type t where want is expected, does not
// convert; where names the context (" in argument 1 of f", or "").
func (fc *fcomp) convError(e syntax.Expr, t, want *vm.Type, where string) {
	if t == vm.Void {
		fc.errorf(e.Start(), "cannot use the result of a void call as %s%s (it returns nothing)", want, where)
		return
	}
	if want.IsInteger() && isIntLit(e) {
		pos, text := e.Start(), ""
		if u, ok := e.(*syntax.Unary); ok {
			text, e = "-", u.X
		}
		fc.errorf(pos, "constant %s%s overflows %s%s", text, e.(*syntax.IntLit).Raw, want, where)
		return
	}
	if want == vm.Float && t == vm.Double && fc.floatish(e) && !fc.doubleOperand(e) {
		fc.errorf(e.Start(), "cannot use double as float%s: a floating constant here must be exactly a float (write it with an f suffix, or use as float)", where)
		return
	}
	fc.errorf(e.Start(), "cannot use %s as %s%s%s", t, want, where, fc.castHint(t, want))
}

// doubleOperand reports whether a floatish expression has an operand
// other than a floating literal whose own type is double (then the
// operand, not a constant, makes the expression double).
func (fc *fcomp) doubleOperand(e syntax.Expr) bool {
	stack := []syntax.Expr{e}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := e.(type) {
		case *syntax.FloatLit:
			continue
		case *syntax.Unary:
			if x.Op == syntax.MINUS {
				stack = append(stack, x.X)
				continue
			}
		case *syntax.Binary:
			if isArith(x.Op) {
				stack = append(stack, x.Y, x.X)
				continue
			}
		}
		if fc.peekType(e) == vm.Double {
			return true
		}
	}
	return false
}
