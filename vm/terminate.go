package vm

// Termination: a debugger ends a thread by raising in it an exception
// that no catch clause matches (its class is outside the Exception
// hierarchy, so `catch (Exception e)` and its subclasses let it pass),
// while finally blocks, which catch everything and rethrow, still run.
// The thread unwinds frame by frame as for any exception, and ends with
// the termination as its Uncaught exception.

// TerminationClass is the name of the class of terminations.
const TerminationClass = "ThreadTermination"

// NewTermination returns a termination exception with a message. Its
// class has the fields of Exception (message, backtrace) and no base.
func (m *Machine) NewTermination(msg string) *Object {
	m.termOnce.Do(func() {
		exc := m.Prog.mustClass("Exception")
		m.termClass = &Class{Name: TerminationClass, Fields: exc.Fields, Methods: exc.Methods,
			VTable: exc.VTable, ID: -1}
	})
	o := m.NewObject(m.termClass)
	o.Fields[excMessage] = StrV(msg)
	return o
}

// IsTermination reports whether exc is a termination (NewTermination).
func IsTermination(exc *Object) bool {
	return exc != nil && exc.Class != nil && exc.Class.ID == -1 && exc.Class.Name == TerminationClass
}

// RaiseWhenResumed makes the thread raise exc when it next runs, at the
// instruction it is at (a thread stopped at an instruction boundary: exc
// is raised as if that instruction threw it; a thread parked in a
// native: as if the native did). Call it only while the thread is not
// running.
func (t *Thread) RaiseWhenResumed(exc *Object) {
	if !t.inNative && len(t.frames) > 0 {
		// raise takes the top frame's PC as just past the faulting
		// instruction
		t.frames[len(t.frames)-1].PC++
		t.inNative = true
	}
	c := t.cx()
	c.skipFn = nil
	c.reported = nil
	c.pendingThrow = &Throw{Obj: exc}
}

// RestartFrame drops the depth frames above frame depth (0: the
// innermost) and puts that frame back at its function's first
// instruction; its registers (the parameters included) keep their
// current values. A breakpoint at the new place is not reported again
// when the thread resumes (as at any stop). Call it only while the
// thread is stopped at an instruction boundary (not inside a native:
// InNative false).
func (t *Thread) RestartFrame(depth int) {
	t.frames = t.frames[:len(t.frames)-depth]
	f := &t.frames[len(t.frames)-1]
	f.PC = 0
	if c := t.cold; c != nil {
		c.call = nil
		c.reported = nil
	}
	t.skipAt(f.Fn, 0)
}

// skipAt makes the thread, which is now at pc of fn, not report a trap
// there when it resumes (a breakpoint where it stands is not hit again);
// nothing is left to skip if pc is not patched.
func (t *Thread) skipAt(fn *Funcode, pc int32) {
	if c := t.cold; c != nil {
		c.skipFn, c.skipPC = nil, 0
	}
	if fn.HasTrap(pc) {
		c := t.cx()
		c.skipFn, c.skipPC = fn, pc
	}
}

// SetPC moves the innermost frame to pc of its function. Call it only
// while the thread is stopped at an instruction boundary.
func (t *Thread) SetPC(pc int32) {
	f := &t.frames[len(t.frames)-1]
	f.PC = pc
	t.skipAt(f.Fn, pc)
}
