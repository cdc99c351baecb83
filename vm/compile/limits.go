package compile

import (
	"fmt"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// Limits on the work of a compilation.
//
// Most of the compiler's work is proportional to the source, but two
// constructs copy code: a default value is compiled at each call that
// uses it (with the defaults of the calls inside it), and a finally block
// at each way out of its try statement (with the finally blocks nested in
// it). A few lines can therefore expand exponentially, as can typing an
// argument of an overloaded call before compiling it if nothing
// remembered the answer (peekAs does). The compiler counts the
// expressions and statements it compiles and gives up with one error
// when the count passes a budget proportional to the source, far above
// what any program that is not such a bomb needs.
const workPerByte = 16 // expressions and statements per byte of source (programs need less than 1)

// workBase is the budget whatever the size of the source (a variable so
// that a test can make a bomb go off sooner).
var workBase int64 = 1 << 20

// setBudget sets the work budget for srcBytes bytes of source.
func (c *compiler) setBudget(srcBytes int) {
	c.work = 0
	c.workLimit = workBase + workPerByte*int64(srcBytes)
	c.budgetErr = nil
}

// charge counts one expression or statement n compiled and reports
// whether the budget is spent: then the caller compiles nothing more (the
// error is reported once, where the budget ran out).
func (fc *fcomp) charge(n syntax.Node) bool {
	c := fc.c
	c.work++
	if c.work <= c.workLimit {
		return false
	}
	if c.budgetErr == nil {
		name := "<input>"
		if fc.file != nil && fc.file.ast != nil {
			name = fc.file.ast.Name
		}
		c.budgetErr = &syntax.Error{File: name, Pos: n.Start(), Msg: fmt.Sprintf(
			"program too large to compile: it expands to more than %d expressions and statements "+
				"(a default value is compiled again at each call that uses it, a finally block at each way out of its try; "+
				"nest fewer of them)", c.workLimit)}
	}
	return true
}

// peekKey is what peekAs remembers a type for.
type peekKey struct {
	e    syntax.Expr
	hint *vm.Type
}

// defaultUse is a default value being compiled: parameter i of function
// fi (see emitArgs).
type defaultUse struct {
	fi *funcInfo
	i  int
}

// enterDefaultUse records that the default value of parameter i of fi is
// being compiled into the function fc compiles. It reports the cycle and
// returns false if that default is already being compiled further out:
// the default calls a function that, without that argument, needs the
// same default again (int f(int n = f()), or through other functions),
// which would never end. (Another function compiled meanwhile, such as a
// class's field initialisers, has its own record: its code is not
// expanded here.)
func (fc *fcomp) enterDefaultUse(fi *funcInfo, i int, pos syntax.Pos) bool {
	for k, u := range fc.defaults {
		if u.fi != fi || u.i != i {
			continue
		}
		path := ""
		for _, v := range fc.defaults[k:] {
			path += v.fi.fn.Name + "." + v.fi.names[v.i] + " → "
		}
		path += fi.fn.Name + "." + fi.names[i]
		fc.errorf(pos, "default value of parameter %s of %s is cyclic: it needs itself again (%s)",
			fi.names[i], fi.fn.Name, path)
		return false
	}
	fc.defaults = append(fc.defaults, defaultUse{fi, i})
	return true
}

// leaveDefaultUse ends what enterDefaultUse began.
func (fc *fcomp) leaveDefaultUse() { fc.defaults = fc.defaults[:len(fc.defaults)-1] }

// badDefault stands for a default value with an error found when its
// function was declared: it compiles to nothing, with no further error.
// (gen knows this pointer.)
var badDefault syntax.Expr = &syntax.NullLit{}

// laterParam reports (and returns true) if the default value of parameter
// i of fi (declared in file f) names a parameter that comes after it (or
// i itself): a default may use only the parameters before it. The error
// does not stop the compilation of bodies.
func (c *compiler) laterParam(f *fileInfo, fi *funcInfo, i int) bool {
	earlier := map[string]bool{}
	for _, n := range fi.names[:i] {
		earlier[n] = true
	}
	later := map[string]bool{}
	for _, n := range fi.names[i:] {
		if !earlier[n] {
			later[n] = true
		}
	}
	for _, id := range idents(fi.defaults[i]) {
		if later[id.Name] {
			c.later.Add(f.ast.Name, id.Pos, fmt.Sprintf("default value of parameter %s uses parameter %s, which does not come before it (a default may use only earlier parameters)", fi.names[i], id.Name))
			return true
		}
	}
	return false
}

// idents returns the identifiers that e uses as values (a walk with a
// stack: an expression can be as deep as its source is long).
func idents(e syntax.Expr) []*syntax.Ident {
	var out []*syntax.Ident
	var callee syntax.Expr // a called function's name is not a value
	syntax.WalkExpr(e, func(x syntax.Expr) bool {
		switch x := x.(type) {
		case *syntax.Ident:
			if x != callee {
				out = append(out, x)
			}
		case *syntax.Call:
			if id, ok := x.Fun.(*syntax.Ident); ok {
				callee = id
			}
		}
		return true
	})
	return out
}
