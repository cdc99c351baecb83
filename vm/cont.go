package vm

import "sync"

// Continuations let the runtime run NLang code without running it on the
// Go stack. A native (or an instruction such as TOSTR) that needs the
// result of an NLang call — a user toString while formatting a List —
// does not call the interpreter recursively. It records the call and a
// Continuation with CallThen and returns ErrCall; the loop then pushes a
// continuation frame (a heap frame like any other, of a function whose
// only instruction is CONT) and the callee's frame above it, and goes on.
// When the callee returns into the continuation frame, CONT resumes the
// continuation with the result; it either finishes (its value goes where
// the native's result would have gone and the frame is popped) or asks
// for another call. So a runtime-invoked toString is an ordinary
// activation: breakpoints fire in it, it can park, it is preempted by its
// quota and stopped by a pause, and backtraces show it, with the
// continuation frame between it and the code that caused it (as
// "List.toString (native)", say). This is Lua 5.2's lua_callk.

// A Continuation resumes a native's work after an NLang call it asked for
// (CallThen) has returned.
type Continuation interface {
	// Resume receives the result of the call. It returns the native's
	// final result; or asks for another call (CallThen) and returns
	// ErrCall; or returns an error to raise (a *Throw) at the native's
	// call site. It must not park or yield.
	Resume(t *Thread, result Value) (Value, error)
}

// ErrCall is returned by a native, or a Continuation's Resume, right
// after CallThen.
var ErrCall error = errCall

// pendingCall is the call a native asked for with CallThen.
type pendingCall struct {
	fn   *Funcode
	args []Value
	k    Continuation
	name string
	buf  [2]Value
}

// CallThen asks the interpreter to call fn(args…) (for a method, the
// receiver first) when the native returns ErrCall, and to resume k with
// the result. name labels the continuation frame in stacks and
// backtraces (the native's name, e.g. "List.toString").
func (t *Thread) CallThen(fn *Funcode, args []Value, name string, k Continuation) error {
	pc := &pendingCall{fn: fn, k: k, name: name}
	if len(args) <= len(pc.buf) {
		pc.args = pc.buf[:len(args)]
	} else {
		pc.args = make([]Value, len(args))
	}
	copy(pc.args, args)
	t.cx().call = pc
	return ErrCall
}

// contRegs is the register count of a continuation frame: R[0] holds the
// Continuation, R[1] receives the callee's result.
const contRegs = 2

// contFuncs interns the functions of continuation frames by name.
var contFuncs sync.Map // string -> *Funcode

// contFunc returns the function of continuation frames labelled name.
func contFunc(name string) *Funcode {
	if f, ok := contFuncs.Load(name); ok {
		return f.(*Funcode)
	}
	f := &Funcode{Name: name, Short: name, File: NativeFile, NumRegs: contRegs, VIndex: -1,
		Code: withSlack([]Instr{{Op: CONT}}), Cont: true}
	actual, _ := contFuncs.LoadOrStore(name, f)
	return actual.(*Funcode)
}

// NativeFile is the file name of continuation frames, which have no
// source ("List.toString (native)" in backtraces).
const NativeFile = "<native>"

// startCall pushes a continuation frame whose result goes to stack index
// dest, and above it the frame of the call recorded by CallThen. The
// caller's PC must be saved. It reports false if the frame limit is
// reached.
func (t *Thread) startCall(dest int32) bool {
	top := &t.frames[len(t.frames)-1]
	base := top.Base + int32(top.Fn.NumRegs)
	call := t.cold.call
	if !t.push(contFunc(call.name), base, dest) {
		t.cold.call = nil
		return false
	}
	t.stack[base] = Value{R: call.k}
	t.stack[base+1] = Value{}
	return t.continueCall()
}

// continueCall pushes the frame of the call recorded by CallThen above
// the continuation frame on top, with its result going to the
// continuation frame's R[1].
func (t *Thread) continueCall() bool {
	cf := &t.frames[len(t.frames)-1]
	c := t.cold.call
	t.cold.call = nil
	base := cf.Base + contRegs
	if need := int(base) + len(c.args) + c.fn.NumRegs; need > len(t.stack) {
		t.growStack(need, false)
	}
	copy(t.stack[base:], c.args)
	return t.push(c.fn, base, cf.Base+1)
}
