package compile

import (
	"errors"
	"fmt"
	"sync"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// This file compiles expressions for the debugger: watch expressions,
// breakpoint conditions, the REPL, and the values of setVariable. An
// expression is compiled as a small function in the scope of a stopped
// frame: the frame's receiver and the locals live at its pc become the
// function's parameters, so the debugger copies their registers into the
// arguments of a scratch thread and runs it there.

// EvalLocal is a variable an evaluated expression can read by name.
type EvalLocal struct {
	Name string
	Type *vm.Type
}

// EvalScope is the scope an expression is compiled in: what a frame sees.
type EvalScope struct {
	// File is the source file of the frame's function; its type aliases
	// apply. Every library package is usable, imported by File or not.
	File string
	// This is the class of the receiver (nil in functions). Its fields
	// and methods are visible by bare name, as in the method's body.
	This *vm.Class
	// Locals are the variables visible at the frame's pc. The compiled
	// function takes them as parameters in this order (after this, if
	// This is set). When a name repeats, the last one wins.
	Locals []EvalLocal
}

// debugInfo is what CompileFile keeps in vm.Program.Debug: the compiler
// with its symbol tables. mu serialises evaluations, which reuse the
// compiler's caches.
type debugInfo struct {
	mu sync.Mutex
	c  *compiler
}

func newDebugInfo(c *compiler) *debugInfo { return &debugInfo{c: c} }

// evalName is the name of compiled expressions (in backtraces).
const evalName = "<eval>"

// CompileEval compiles expr (an NLang expression) in scope for prog,
// which must come from CompileFile. It returns a function whose
// parameters are the receiver (if scope.This is set) and scope.Locals,
// and which returns the value of expr (nothing if expr is void, such as a
// call of a void method), with the static type of expr. Errors are a
// syntax.ErrorList whose positions are columns of expr (line 1).
func CompileEval(prog *vm.Program, scope EvalScope, expr string) (*vm.Funcode, *vm.Type, error) {
	return compileEval(prog, scope, expr, nil)
}

// CompileEvalAs is CompileEval with the value converted to type want by
// the language's implicit conversions (those of an assignment): a value
// that does not convert is a compile error ("cannot use string as int").
// Struct values are copied. The debugger uses it for setVariable.
func CompileEvalAs(prog *vm.Program, scope EvalScope, expr string, want *vm.Type) (*vm.Funcode, error) {
	if want == nil || want == vm.Void {
		return nil, errors.New("cannot assign to a void target")
	}
	fn, _, err := compileEval(prog, scope, expr, want)
	return fn, err
}

func compileEval(prog *vm.Program, scope EvalScope, expr string, want *vm.Type) (fn *vm.Funcode, typ *vm.Type, err error) {
	d, _ := prog.Debug.(*debugInfo)
	if d == nil {
		return nil, nil, errors.New("the program has no compiler information for evaluation")
	}
	x, err := syntax.ParseExpr("", []byte(expr))
	if err != nil {
		return nil, nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.c
	saved := c.errs
	c.errs = nil
	defer func() {
		c.errs = saved
		if r := recover(); r != nil {
			fn, typ, err = nil, nil, fmt.Errorf("internal error: %v", r)
		}
	}()
	ef, ci, restore, err := c.evalContext(scope)
	if err != nil {
		return nil, nil, err
	}
	defer restore()
	before := map[*classInfo]bool{}
	for _, k := range c.order {
		before[k] = k.init != nil
	}
	c.setBudget(len(expr))
	fn, typ = c.evalFunc(x, scope, ef, ci, want)
	if c.budgetErr != nil {
		c.errs = append(c.errs, c.budgetErr)
	}
	if len(c.errs) > 0 {
		var errs syntax.ErrorList
		for _, e := range c.errs {
			if e.File == ef.ast.Name {
				// A position in expr, not in the frame's file.
				e = &syntax.Error{Pos: e.Pos, Msg: e.Msg}
			}
			errs = append(errs, e)
		}
		errs.Sort()
		return nil, nil, errs
	}
	if typ == badType {
		return nil, nil, errors.New("cannot evaluate this expression")
	}
	// Prepare the new code to run (inline caches), including field
	// initializer functions first made for this expression.
	tmp := vm.NewProgram()
	tmp.AddFunc(fn)
	for _, k := range c.order {
		if k.init != nil && !before[k] {
			tmp.AddFunc(k.init)
		}
	}
	tmp.Finish()
	return fn, typ, nil
}

// evalContext returns the file context and receiver class of scope.
// The file is the frame's own (so that its visibility rules apply) with
// every library package imported until restore is called.
func (c *compiler) evalContext(scope EvalScope) (ef *fileInfo, ci *classInfo, restore func(), err error) {
	for _, f := range c.files {
		if f.ast.Name == scope.File {
			ef = f
		}
	}
	if ef == nil {
		ef = &fileInfo{ast: &syntax.File{Name: scope.File}, imports: map[string]bool{},
			aliases: map[string]*syntax.TypeExpr{}}
	}
	saved := ef.imports
	imports := map[string]bool{"thread": true}
	for pkg := range c.lib.Packages {
		imports[pkg] = true
	}
	for pkg := range c.lib.Sources {
		imports[pkg] = true
	}
	for pkg := range saved {
		imports[pkg] = true
	}
	ef.imports = imports
	restore = func() { ef.imports = saved }
	if scope.This != nil {
		ci = c.classes[scope.This.Name]
		if ci == nil || ci.cls != scope.This {
			restore()
			return nil, nil, nil, fmt.Errorf("class %s is not part of this program", scope.This.Name)
		}
	}
	return ef, ci, restore, nil
}

// evalFunc compiles x as the body of the evaluation function. With want
// set, the value is converted to it.
func (c *compiler) evalFunc(x syntax.Expr, scope EvalScope, ef *fileInfo, ci *classInfo, want *vm.Type) (*vm.Funcode, *vm.Type) {
	fn := &vm.Funcode{Name: evalName, Short: evalName, File: evalName, Line: 1, EndLine: 1, Result: vm.Void, VIndex: -1}
	fi := &funcInfo{decl: &syntax.FuncDecl{Name: evalName}, fn: fn, cls: ci, file: ef, result: vm.Void}
	fc := &fcomp{fbuilder: newBuilder(fn), c: c, fi: fi, file: ef, cls: ci}
	fc.push()
	if ci != nil {
		fn.Class = ci.cls
		fc.this = vm.ClassType(ci.cls)
		fc.alloc(1)
		fn.Locals = append(fn.Locals, vm.LocalVar{Name: "this", Type: fc.this, Reg: 0, IsParam: true})
		fn.Params = append(fn.Params, fc.this)
	}
	top := fc.scopes[len(fc.scopes)-1]
	for _, l := range scope.Locals {
		t := l.Type
		if t == nil {
			t = badType
		}
		fn.Params = append(fn.Params, t)
		if l.Name == "" || l.Name == "this" || l.Name[0] == 0 {
			fc.alloc(1) // keep the parameter's register, unnamed
			continue
		}
		delete(top.vars, l.Name) // a later variable of the same name wins
		v := fc.declare(l.Name, t, syntax.Pos{}, false)
		fn.Locals[v.varIdx].IsParam = true
	}
	fn.ParamOut = make([]bool, len(fn.Params))
	fn.NumParams = len(fn.Params)
	fc.line(x.Start(), true)
	var r int32
	var t *vm.Type
	if want != nil {
		r, t = fc.value(x, want, -1), want
	} else {
		r, t = fc.gen(x, nil, -1)
	}
	if t == vm.Void {
		fc.emit(vm.RETV, 0, 0, 0)
	} else {
		fc.emit(vm.RET, r, 0, 0)
		fn.Result = t
	}
	fc.pop()
	fc.finish()
	return fn, t
}
