package inspect

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// EvalStepLimit is the number of reductions (function entries and loop
// back-edges) an evaluation may spend before it is abandoned.
const EvalStepLimit = 100_000

// EvalHeapBudget is the number of bytes one evaluation may allocate: the
// step limit alone does not bound memory (a loop of large allocations).
const EvalHeapBudget = 64 << 20

// ErrStepLimit is returned by an evaluation that exceeded EvalStepLimit.
var ErrStepLimit = errors.New("evaluation exceeded the step limit")

// ErrCallsNotAllowed is wrapped by the error of a watch, hover or
// condition expression that would run user code or change the program's
// state (use the REPL for those).
var ErrCallsNotAllowed = errors.New("this expression may not run code (only the REPL may)")

// frameVars returns the variables of frame depth of t: the receiver (nil
// in functions), the parameters and the other locals live at the frame's
// pc (vm.DebugFrame), each in declaration order. The thread must be
// stopped.
func frameVars(t *vm.Thread, depth int) (this *vm.LocalVar, params, locals []vm.LocalVar) {
	df := t.DebugFrame(depth)
	return varsAt(df.Func(), df.PC())
}

// evalInFrame compiles expr in the scope of frame depth of t (its locals
// live at the frame's pc, its receiver, the fields of the receiver by
// bare name, the program's functions, classes and enums, every library
// package) and runs it on a scratch thread under EvalStepLimit. It
// returns the value and its static type. Without allowCalls, expressions
// that call user code or natives that change state are rejected before
// they run. It may run inside a dispatch (breakpoint conditions); it
// takes no session lock.
func (s *Session) evalInFrame(t *vm.Thread, depth int, expr string, allowCalls bool) (vm.Value, *vm.Type, error) {
	return s.evalAs(t, depth, expr, nil, allowCalls)
}

// evalAs is evalInFrame with the value converted to want (nil: as is).
func (s *Session) evalAs(t *vm.Thread, depth int, expr string, want *vm.Type, allowCalls bool) (vm.Value, *vm.Type, error) {
	if depth < 0 || depth >= t.Depth() {
		return vm.Value{}, nil, ErrNoFrame
	}
	f := t.Frame(depth)
	this, params, locals := frameVars(t, depth)
	scope := compile.EvalScope{File: f.Fn.File}
	var args []vm.Value
	if this != nil && f.Fn.Class != nil {
		scope.This = f.Fn.Class
		args = append(args, *t.Reg(f, this.Reg))
	}
	for _, lv := range append(params, locals...) {
		scope.Locals = append(scope.Locals, compile.EvalLocal{Name: lv.Name, Type: lv.Type})
		args = append(args, *t.Reg(f, lv.Reg))
	}
	var fn *vm.Funcode
	typ := want
	var err error
	if want != nil {
		fn, err = compile.CompileEvalAs(s.prog, scope, expr, want)
	} else {
		fn, typ, err = compile.CompileEval(s.prog, scope, expr)
	}
	if err != nil {
		return vm.Value{}, nil, exprError(err)
	}
	if !allowCalls {
		if err := checkReadOnly(fn); err != nil {
			return vm.Value{}, nil, err
		}
	}
	v, err := s.runEval(fn, args)
	if err != nil {
		return vm.Value{}, nil, err
	}
	return v, typ, nil
}

// runEval runs fn(args…) on a scratch thread of the session's machine
// that ignores breakpoints, within EvalStepLimit. A thrown exception
// becomes the error.
func (s *Session) runEval(fn *vm.Funcode, args []vm.Value) (v vm.Value, err error) {
	return s.runEvalOn(s.r.m, fn, args)
}

// runEvalOn is runEval on machine m (a re-execution's, for an
// expression about one of its threads).
func (s *Session) runEvalOn(m *vm.Machine, fn *vm.Funcode, args []vm.Value) (v vm.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error during evaluation: %v", r)
		}
	}()
	th := m.NewCallThread(fn, args)
	th.NoDebug = true
	th.SetHeapBudget(EvalHeapBudget)
	defer th.SetHeapBudget(0)
	th.SetName("eval")
	for {
		left := EvalStepLimit - int(th.Reductions())
		if left <= 0 {
			return vm.Value{}, ErrStepLimit
		}
		if s.cancelled() {
			return vm.Value{}, ErrCancelled
		}
		switch stop := th.Run(min(left, evalSlice)); stop {
		case vm.StopDone:
			if th.Uncaught != nil {
				return vm.Value{}, fmt.Errorf("evaluation threw %s", vm.ExceptionString(th.Uncaught))
			}
			return th.Result, nil
		case vm.StopYield:
			// thread.yield or sleep(0): nothing else runs; go on.
		case vm.StopBudget:
			// a slice spent: the step limit is checked above
		case vm.StopPark:
			return vm.Value{}, fmt.Errorf("evaluation would block (%s)", th.WaitReason)
		default:
			return vm.Value{}, fmt.Errorf("evaluation stopped (%s)", stop)
		}
	}
}

// checkReadOnly rejects code that could run user code or change the
// program's state: calls of user functions and methods, natives that are
// not vm.ReadOnly (or that format objects: they call toString), and
// conversions to string of values that may hold objects.
func checkReadOnly(fn *vm.Funcode) error {
	for _, in := range fn.Code {
		why := ""
		info := in.Op.Info()
		switch info.Call {
		case vm.CallFunc:
			why = "calls " + fn.Funcs[in.B].Name
		case vm.CallVirtual, vm.CallByName:
			why = "calls a method"
		case vm.CallValue:
			why = "calls a function value"
		case vm.CallCont:
			why = "resumes a continuation"
		case vm.CallNative:
			nc := fn.NCalls[in.B]
			n := nc.Native
			if !n.Is(vm.ReadOnly) || n.Is(vm.Formats) && nc.Type != nil && mayHoldObjects(nc.Type, 0) {
				why = "calls " + n.Name
			}
		default:
			switch {
			case !info.Is(vm.RunsCode):
			case in.Op != vm.TOSTR:
				why = "runs code (" + in.Op.String() + ")"
			case mayHoldObjects(fn.Types[in.C], 0):
				why = "converts " + fn.Types[in.C].String() + " to a string (calls toString)"
			}
		}
		if why != "" {
			return fmt.Errorf("%w: it %s", ErrCallsNotAllowed, why)
		}
	}
	return nil
}

// mayHoldObjects reports whether a value of type t may contain class
// objects (whose toString is user code).
func mayHoldObjects(t *vm.Type, depth int) bool {
	if t == nil || depth > 8 {
		return true
	}
	switch t.Kind {
	case vm.KObject, vm.KClass, vm.KInterface:
		return true
	case vm.KArray, vm.KList:
		return mayHoldObjects(t.Elem, depth+1)
	case vm.KDict:
		return mayHoldObjects(t.Key, depth+1) || mayHoldObjects(t.Elem, depth+1)
	case vm.KStruct:
		for _, f := range t.Class.Fields {
			if mayHoldObjects(f.Type, depth+1) {
				return true
			}
		}
	}
	return false
}

// evalThread returns the thread to evaluate in for threadID (0: the
// thread of the last stop, or main).
func (s *Session) evalThread(threadID int64) (*vm.Thread, error) {
	if threadID > 0 {
		return s.thread(threadID)
	}
	s.mu.Lock()
	t := s.r.stopped
	if s.r.state == stateRunning {
		t = s.r.lastHeld // non-stop: the thread held last
	}
	s.mu.Unlock()
	if t == nil || t.Done() {
		t = s.r.sch.Main()
	}
	if t == nil || t.Done() {
		return nil, ErrNoThread
	}
	return t, nil
}

// Evaluate evaluates expr in frame depth of a thread (threadID 0: the
// thread of the last stop) and returns its value as a Var named expr,
// with a Ref if it has children. Context "repl" may call methods and
// functions; "watch", "hover", "clipboard" (and any other) may not: such
// expressions fail with ErrCallsNotAllowed before they run. Every
// evaluation runs under EvalStepLimit.
func (s *Session) Evaluate(threadID int64, depth int, expr string, ctx EvalContext) (Var, error) {
	if err := s.checkInspect(); err != nil {
		return Var{}, err
	}
	t, err := s.evalThread(threadID)
	if err != nil {
		return Var{}, err
	}
	if depth < 0 || depth >= t.Depth() {
		return Var{}, ErrNoFrame
	}
	stop := s.watchCancel(s.r.m) // a cancel interrupts the evaluation (cancel.go)
	v, typ, err := s.evalInFrame(t, depth, expr, ctx == "repl")
	stop()
	if err != nil {
		return Var{}, err
	}
	if typ == vm.Void {
		return Var{Name: expr, Type: "void"}, nil
	}
	root := &node{t: t, depth: depth}
	return s.makeVar(root, child{name: expr, v: v, typ: typ, expr: pathExpr(expr)}), nil
}

// pathExpr returns expr ready to be followed by ".f" or "[i]":
// parenthesised unless it is a plain access path.
func pathExpr(expr string) string {
	expr = strings.TrimSpace(expr)
	for _, r := range expr {
		if !(r == '_' || r == '.' || r == '[' || r == ']' || r == '"' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "(" + expr + ")"
		}
	}
	return expr
}

// SetVariable sets the variable name of the container ref (a scope of
// Scopes or a value of Variables/Evaluate) to the value of the NLang
// expression value, evaluated in the frame that produced ref (or main's
// top frame) and converted to the variable's type by the language's
// implicit conversions. Containers: frame scopes (locals, arguments),
// objects and structs (fields), arrays and Lists ("[i]") and Dicts (the
// value of a key, named as Variables names it). It returns the
// variable's new value.
func (s *Session) SetVariable(ref int, name, value string) (out Var, err error) {
	defer s.quiet()()                  // (catchup.go)
	defer func() { s.afterSet(err) }() // a new future (reverse.go)
	if err := s.checkInspect(); err != nil {
		return Var{}, err
	}
	n, err := s.node(ref)
	if err != nil {
		return Var{}, err
	}
	t, depth := n.t, n.depth
	if t == nil || t.Done() || depth >= t.Depth() {
		if t = s.r.sch.Main(); t == nil || t.Done() {
			return Var{}, ErrNoThread
		}
		depth = 0
	}
	eval := func(want *vm.Type) (vm.Value, error) {
		v, _, err := s.evalAs(t, depth, value, want, true)
		return v, err
	}
	switch n.kind {
	case nodeScope:
		for _, lv := range n.vars {
			if lv.Name != name {
				continue
			}
			v, err := eval(lv.Type)
			if err != nil {
				return Var{}, err
			}
			f := n.t.Frame(n.depth)
			*n.t.Reg(f, lv.Reg) = v
			return s.makeVar(n, child{name: name, v: v, typ: lv.Type, expr: name}), nil
		}
		return Var{}, fmt.Errorf("no variable %s in this scope", name)
	case nodeValue:
		return s.setElem(n, name, eval)
	}
	return Var{}, fmt.Errorf("cannot set %s: it is read-only", name)
}

// setElem sets the child name of the value of n: a field, an element or
// a Dict value.
func (s *Session) setElem(n *node, name string, eval func(*vm.Type) (vm.Value, error)) (Var, error) {
	switch x := n.v.R.(type) {
	case *vm.Object:
		for i, f := range x.Class.Fields {
			if f.Name != name || i >= len(x.Fields) {
				continue
			}
			v, err := eval(f.Type)
			if err != nil {
				return Var{}, err
			}
			x.Fields[i] = v
			return s.makeVar(n, child{name: name, v: v, typ: f.Type, expr: join(n.expr, "."+name)}), nil
		}
		return Var{}, fmt.Errorf("%s has no field %s", x.Class.Name, name)
	case *vm.Array, *vm.List:
		var data []vm.Value
		var elem *vm.Type
		if a, ok := x.(*vm.Array); ok {
			data, elem = a.Data, a.Type.Elem
		} else {
			l := x.(*vm.List)
			data, elem = l.Data, l.Type.Elem
		}
		var i int
		if _, err := fmt.Sscanf(name, "[%d]", &i); err != nil || i < 0 || i >= len(data) {
			return Var{}, fmt.Errorf("no element %s (length %d)", name, len(data))
		}
		v, err := eval(elem)
		if err != nil {
			return Var{}, err
		}
		data[i] = v
		return s.makeVar(n, child{name: name, v: v, typ: elem, expr: join(n.expr, name)}), nil
	case *vm.Dict:
		for i := range x.Keys {
			kname, kexpr := s.keyName(x.Keys[i], x.Type.Key)
			if kname != name {
				continue
			}
			v, err := eval(x.Type.Elem)
			if err != nil {
				return Var{}, err
			}
			x.Set(x.Keys[i], v)
			return s.makeVar(n, child{name: name, v: v, typ: x.Type.Elem, expr: join(n.expr, kexpr)}), nil
		}
		return Var{}, fmt.Errorf("no key %s", name)
	}
	return Var{}, fmt.Errorf("cannot set %s: it is read-only", name)
}

// join appends an access suffix to a base expression ("" if the base has
// none).
func join(base, suffix string) string {
	if base == "" || suffix == "" {
		return ""
	}
	return base + suffix
}
