package inspect

import (
	"sort"

	"github.com/nlangdbg/nlangdbg/vm"
)

// stepReq is a step in progress on one thread.
type stepReq struct {
	thread *vm.Thread
	kind   StepKind
	depth  int // frames when the step began
	fn     *vm.Funcode
	pc     int32 // pc when the step began
	line   int32
	traps  []trapKey

	// a step out: the caller's return address, the slot receiving the
	// result (-1: none) and the function stepped out of
	retFn   *vm.Funcode
	retPC   int32
	retSlot int32
	callee  *vm.Funcode

	instr bool  // by instructions, not statements (see istep.go)
	into  int32 // a step in to the callee of the call at pc into-1 (0: any; stepin.go)
	// threadOnly: a step of a thread held alone (non-stop), whose end
	// holds it alone again
	threadOnly bool
}

// retValue is what a step out brought back: the function it left and the
// value it returned (has: a value, not void), recorded at the stop in the
// caller right after the return.
type retValue struct {
	thread *vm.Thread
	callee *vm.Funcode
	pc     int32 // the caller's return address, where the thread stopped
	v      vm.Value
	typ    *vm.Type
	has    bool
	// atCall: the stop shows the call's line (the thread is right after
	// the call, which may be the first instruction of the next line)
	atCall bool
}

// isReturn reports whether the trap at pc of fn is the return of a step
// out into the caller.
func (st *stepReq) isReturn(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	return st.kind == StepOut && st.retFn == fn && st.retPC == pc && t.Depth() == st.depth-1
}

// returned reads the value the stepped-out function returned, at the
// caller's return address.
func (st *stepReq) returned(t *vm.Thread) *retValue {
	// (by instructions, the stop shows where the thread really is)
	rv := &retValue{thread: t, callee: st.callee, pc: st.retPC, atCall: !st.instr}
	caller := t.Frame(0)
	if r := st.callee.Result; st.retSlot >= caller.Base && r != nil && r != vm.Void {
		rv.v, rv.typ, rv.has = *t.Reg(caller, st.retSlot-caller.Base), r, true
	}
	return rv
}

// matches reports whether the step ends at pc of fn (a statement
// boundary) on its thread.
func (st *stepReq) matches(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	if st.instr {
		return st.matchesInstr(t, fn, pc)
	}
	if !isStmt(fn, pc) && !st.isReturn(t, fn, pc) {
		// a trap of something else (an instruction or data breakpoint)
		// inside a statement
		return false
	}
	d := t.Depth()
	line, _ := fn.Pos(pc)
	switch st.kind {
	case StepOut:
		// the return into the caller (its return address is trapped), or
		// a statement of a caller that caught an exception
		return st.isReturn(t, fn, pc) || d < st.depth && !(fn == st.retFn && pc == st.retPC)
	case StepIn:
		if d > st.depth {
			return st.into == 0 || st.entersTarget(t)
		}
	}
	if d < st.depth {
		return true
	}
	if d > st.depth {
		return false
	}
	return fn != st.fn || line != st.line || pc < st.pc
}

// Step resumes the program until threadID reaches the next statement
// (StepOver: in this function or a caller; StepIn: also in a callee;
// StepOut: in a caller). Other threads run too, unless singleThread; if
// one of them stops first (a breakpoint), the step is cancelled.
func (s *Session) Step(threadID int64, kind StepKind, singleThread bool) error {
	defer s.quiet()() // (catchup.go)
	return s.startStep(threadID, kind, singleThread, false)
}

// startStep starts a step by statements, or by instructions (instr).
func (s *Session) startStep(threadID int64, kind StepKind, singleThread, instr bool) error {
	if handled, err := s.stepHeld(threadID, kind, instr); handled {
		return err // a thread held alone (non-stop: nonstop.go)
	}
	if err := s.checkStopped(); err != nil {
		return err
	}
	t, err := s.thread(threadID)
	if err != nil {
		return err
	}
	if s.reportQueued(threadID, singleThread) {
		return nil // another thread's stop is reported instead
	}
	if kind != StepOut && !instr && s.stepFromCall(threadID, t) {
		return nil
	}
	s.mu.Lock()
	var release []*vm.Thread
	var recorded []StopInfo
	defer func() {
		sch := s.r.sch
		s.mu.Unlock()
		s.emit(func(l Listener) { l.Continued(threadID, !singleThread) })
		s.resumeHeld(sch, release, recorded)
		sch.Resume()
	}()
	s.endStepsLocked()
	s.r.steps[t] = s.newStepLocked(t, kind, instr)
	if singleThread {
		if err := s.freezeOthersLocked(threadID); err != nil {
			return err
		}
	}
	release, recorded = s.releaseForResumeLocked(threadID, singleThread)
	s.resumeLocked()
	return nil
}

// newStepLocked makes a step of t and patches the statement boundaries
// it may end at. Must hold s.mu with no dispatch running.
func (s *Session) newStepLocked(t *vm.Thread, kind StepKind, instr bool) *stepReq {
	f := t.Frame(0)
	st := &stepReq{thread: t, kind: kind, depth: t.Depth(), fn: f.Fn, pc: f.PC, retSlot: -1, instr: instr, into: s.r.nextInto}
	s.r.nextInto = 0
	st.line, _ = f.Fn.Pos(f.PC)
	if kind == StepOut && t.Depth() > 1 {
		caller := t.Frame(1)
		st.retFn, st.retPC, st.retSlot, st.callee = caller.Fn, caller.PC, f.Ret, f.Fn
		k := trapKey{caller.Fn, caller.PC}
		s.setTrapLocked(k)
		st.traps = append(st.traps, k)
	}
	// Patch the statement boundaries the step may end at: those of the
	// functions on the stack (callers and, for recursion, this one), and
	// for a step in, of every function.
	fns := map[*vm.Funcode]bool{}
	for i := 0; i < t.Depth(); i++ {
		fns[t.Frame(i).Fn] = true
	}
	if instr {
		s.instrStepTrapsLocked(st, t, fns)
		fns = nil
	}
	if kind == StepIn && !instr {
		for _, fn := range s.prog.Funcs {
			fns[fn] = true
		}
	}
	for fn := range fns {
		for _, e := range stmtPCs(fn) {
			k := trapKey{fn, e.PC}
			s.setTrapLocked(k)
			st.traps = append(st.traps, k)
		}
	}
	return st
}

// endStepLocked removes the traps of the step of t, if any. Must hold
// s.mu with no dispatch running, or inside the dispatch that ends it.
func (s *Session) endStepLocked(t *vm.Thread) {
	st := s.r.steps[t]
	if st == nil {
		return
	}
	delete(s.r.steps, t)
	for _, k := range st.traps {
		s.clearTrapLocked(k)
	}
}

// endStepOf ends the step of t, if any, while other threads may run (a
// thread held alone, or ended): its traps are removed between two
// dispatches. Must not hold s.mu.
func (s *Session) endStepOf(t *vm.Thread) {
	s.mu.Lock()
	st := s.r.steps[t]
	delete(s.r.steps, t)
	running, sch := s.r.state == stateRunning, s.r.sch
	s.mu.Unlock()
	if st == nil {
		return
	}
	clear := func() {
		s.mu.Lock()
		for _, k := range st.traps {
			s.clearTrapLocked(k)
		}
		s.mu.Unlock()
	}
	if running {
		sch.Between(clear)
	} else {
		clear()
	}
}

// endStepsLocked ends every step under way (a stop of every thread).
// Must hold s.mu with no dispatch running.
func (s *Session) endStepsLocked() {
	for t := range s.r.steps {
		s.endStepLocked(t)
	}
}

// stepFromCall ends a step at once when the thread stopped right after a
// call returned (a step out) and the instruction it is at starts the next
// line: that line is the next statement, so the step reports it without
// running anything.
func (s *Session) stepFromCall(threadID int64, t *vm.Thread) bool {
	s.mu.Lock()
	rv := s.r.retOf(t)
	if rv == nil || !rv.atCall || t.Depth() == 0 || t.Frame(0).PC != rv.pc {
		s.mu.Unlock()
		return false
	}
	f := t.Frame(0)
	call, _ := f.Fn.Pos(f.PC - 1)
	here, _ := f.Fn.Pos(f.PC)
	if call == here || !isStmt(f.Fn, f.PC) {
		s.mu.Unlock()
		return false
	}
	info := StopInfo{Reason: ReasonStep, Description: "Step", ThreadID: t.ID, AllThreadsStopped: true}
	if h := s.r.held[t]; h != nil && s.r.state == stateRunning {
		// held alone (non-stop): it stays held, at its next statement
		info.AllThreadsStopped, info.hold = false, true
		s.releaseLocked(t)
		s.r.held[t] = &heldStop{info: info}
		s.everHeld.Store(true) // (catchup.go)
		s.mu.Unlock()
		s.emit(func(l Listener) { l.Continued(threadID, false) })
		s.emit(func(l Listener) { l.Stopped(info) })
		return true
	}
	s.r.ret = nil
	s.r.refs.reset()
	s.r.stop = info
	s.mu.Unlock()
	s.emit(func(l Listener) { l.Continued(threadID, true) })
	s.emit(func(l Listener) { l.Stopped(info) })
	return true
}

// isStmt reports whether pc of fn starts a statement. (The line table
// is sorted by pc.)
func isStmt(fn *vm.Funcode, pc int32) bool {
	i := sort.Search(len(fn.Lines), func(i int) bool { return fn.Lines[i].PC >= pc })
	for ; i < len(fn.Lines) && fn.Lines[i].PC == pc; i++ {
		if fn.Lines[i].Stmt {
			return true
		}
	}
	return false
}

// shownPC returns the pc whose line frame depth of t shows: the frame's
// pc (vm.DebugFrame), or in the top frame after a step out, the call just
// returned from.
func (s *Session) shownPC(t *vm.Thread, depth int) int32 {
	df := t.DebugFrame(depth)
	s.mu.Lock()
	rv := s.r.retOf(t)
	s.mu.Unlock()
	if depth == 0 && rv != nil && rv.atCall && !df.InInstr() {
		if pc := t.Frame(0).PC; pc == rv.pc && pc > 0 {
			return pc - 1
		}
	}
	return df.PC()
}
