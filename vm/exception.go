package vm

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Field indexes of the prelude's Exception class.
const (
	excMessage   = 0
	excBacktrace = 1
)

// NewException allocates an exception of the named built-in class (or of
// any class of the program) with a message. It does not run constructors.
func (m *Machine) NewException(class, msg string) *Object {
	c := m.Prog.ClassByName(class)
	if c == nil {
		c = m.Prog.mustClass("Exception")
	}
	o := m.NewObject(c)
	o.Fields[excMessage] = StrV(msg)
	return o
}

// NewObject allocates an object of class c with zeroed fields (struct
// fields hold fresh zero structs). Objects are numbered in the order the
// machine allocates them (Machine.ObjectID), so that the same run numbers
// them alike — the debugger follows an object from one execution of a
// recording to another by its number.
func (m *Machine) NewObject(c *Class) *Object {
	o := allocObject(len(c.Fields))
	o.Class, o.id = c, m.objIDs.Add(1)
	for i, f := range c.Fields {
		if f.Type.Kind == KStruct {
			o.Fields[i] = RefV(m.NewObject(f.Type.Class))
		}
	}
	return o
}

// ExceptionMessage returns an exception object's message.
func ExceptionMessage(o *Object) string {
	if len(o.Fields) > excMessage {
		return o.Fields[excMessage].S()
	}
	return ""
}

// ExceptionString renders an exception as "Class: message" (or "Class"
// when the message is empty).
func ExceptionString(o *Object) string {
	msg := ExceptionMessage(o)
	if msg == "" {
		return o.Class.Name
	}
	return o.Class.Name + ": " + msg
}

// ExceptionTrace returns where the exception was thrown, innermost first.
func ExceptionTrace(o *Object) []CallFrame {
	if tr, ok := o.Native.(*Trace); ok {
		return tr.Frames
	}
	return nil
}

// FormatUncaught renders an uncaught exception: its text and backtrace.
func FormatUncaught(o *Object) string {
	return ExceptionString(o) + "\n" + FormatTrace(o)
}

// FormatTrace renders where an exception was thrown (FormatBacktrace)
// and then where other threads threw it again: an exception rethrown by
// Future.get() shows the worker's frames and where get() was called.
func FormatTrace(o *Object) string {
	tr, _ := o.Native.(*Trace)
	if tr == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(FormatBacktrace(tr.Frames))
	for _, r := range tr.Rethrown {
		fmt.Fprintf(&b, "rethrown in thread %q:\n", r.Thread)
		b.WriteString(FormatBacktrace(r.Frames))
	}
	return b.String()
}

// maxRethrows bounds the rethrow sites an exception keeps (a loop may
// get() a failed future over and over).
const maxRethrows = 4

// Error is a runtime failure reported to the host: an uncaught NLang
// exception with the stack where it was thrown.
type Error struct {
	Exc   *Object
	Msg   string
	Stack []CallFrame
}

func (e *Error) Error() string { return "Runtime error: " + e.Msg }

// Backtrace returns the "  at f (file:line)" lines.
func (e *Error) Backtrace() string { return FormatBacktrace(e.Stack) }

// UncaughtError returns the thread's uncaught exception as an *Error, or
// nil.
func (t *Thread) UncaughtError() *Error {
	if t.Uncaught == nil {
		return nil
	}
	return &Error{Exc: t.Uncaught, Msg: ExceptionString(t.Uncaught), Stack: ExceptionTrace(t.Uncaught)}
}

// errToException converts an error returned by a native into an
// exception object.
func (t *Thread) errToException(err error) *Object {
	if th, ok := err.(*Throw); ok {
		if th.Obj != nil {
			return th.Obj
		}
		return t.M.NewException(th.Class, th.Msg)
	}
	return t.M.NewException("Exception", err.Error())
}

// recordTrace stores the current stack in exc if it has no trace yet, and
// fills its backtrace list with "file:line" strings.
func (t *Thread) recordTrace(exc *Object) {
	if tr, ok := exc.Native.(*Trace); ok {
		if tr.Thread != t.ID && t.ID != 0 && len(tr.Rethrown) < maxRethrows {
			for _, r := range tr.Rethrown {
				if r.Thread == t.Name {
					return
				}
			}
			tr.Rethrown = append(tr.Rethrown, Rethrow{Thread: t.Name, Frames: t.callStack(true)})
		}
		return
	}
	frames := t.callStack(true) // the top frame's PC is past the faulting instruction
	exc.Native = &Trace{Frames: frames, Thread: t.ID}
	if len(exc.Fields) > excBacktrace && exc.Class.Fields[excBacktrace].Type.Kind == KList {
		l := &List{Type: exc.Class.Fields[excBacktrace].Type, Data: make([]Value, len(frames)), id: t.M.seqIDs.Add(1)}
		for i, f := range frames {
			l.Data[i] = StrV(fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line))
		}
		exc.Fields[excBacktrace] = RefV(l)
	}
}

type raiseResult uint8

const (
	raiseCaught   raiseResult = iota // unwound to a handler
	raiseUncaught                    // escaped the thread's bottom frame
	raiseStop                        // the debugger stopped the thread at the throw
)

// ThrowHook is implemented by a DebugHook that wants to see exceptions
// as they are thrown, before any frame is unwound. caught reports whether
// a handler in the thread will catch exc. Returning true stops the thread
// at the throwing instruction (Run returns StopTrap); when it resumes, the
// exception continues without a second report.
type ThrowHook interface {
	OnThrow(t *Thread, exc *Object, caught bool) bool
}

// raise throws exc in the thread's top frame, whose PC is just past the
// faulting instruction. It unwinds to the innermost matching handler, or,
// if none down to the thread's bottom, pops those frames and records exc
// as uncaught. A debugger's ThrowHook may stop the thread first.
func (t *Thread) raise(exc *Object) raiseResult {
	t.recordTrace(exc)
	if h, ok := t.M.Hook.(ThrowHook); ok && !t.NoDebug && (t.cold == nil || t.cold.reported != exc) {
		if h.OnThrow(t, exc, t.findHandler(exc) != nil) {
			c := t.cx()
			c.reported = exc
			c.pendingThrow = &Throw{Obj: exc}
			t.inNative = true // the top frame is in the middle of the throwing instruction
			return raiseStop
		}
	}
	if t.cold != nil {
		t.cold.reported = nil
	}
	for len(t.frames) > 0 {
		f := &t.frames[len(t.frames)-1]
		if h := findHandler(f, exc); h != nil {
			f.PC = h.Target
			t.stack[f.Base+h.Reg] = RefV(exc)
			return raiseCaught
		}
		t.frames = t.frames[:len(t.frames)-1]
	}
	t.Uncaught = exc
	return raiseUncaught
}

// findHandler returns the handler of frame f that catches exc at f's
// current instruction, or nil.
func findHandler(f *Frame, exc *Object) *Handler {
	pc := f.PC - 1
	for i := range f.Fn.Handlers {
		h := &f.Fn.Handlers[i]
		if pc >= h.StartPC && pc < h.EndPC && (h.Class == nil || exc.Class.IsSubclassOf(h.Class)) {
			return h
		}
	}
	return nil
}

// findHandler returns the handler that would catch exc, searching the
// thread's frames from the innermost, without unwinding.
func (t *Thread) findHandler(exc *Object) *Handler {
	for i := len(t.frames) - 1; i >= 0; i-- {
		if h := findHandler(&t.frames[i], exc); h != nil {
			return h
		}
	}
	return nil
}

// ThreadExceptionText is the report of an exception that ended a thread
// other than main.
func ThreadExceptionText(t *Thread) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Exception in thread %q: %s\n", t.Name, ExceptionString(t.Uncaught))
	b.WriteString(FormatTrace(t.Uncaught))
	return b.String()
}
