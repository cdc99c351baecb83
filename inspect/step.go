package inspect

import (
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
}

// matches reports whether the step ends at pc of fn (a statement
// boundary) on its thread.
func (st *stepReq) matches(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	d := t.Depth()
	line, _ := fn.Pos(pc)
	switch st.kind {
	case StepOut:
		return d < st.depth
	case StepIn:
		if d > st.depth {
			return true
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
	s.mu.Lock()
	defer func() {
		s.mu.Unlock()
		s.emit(func(l Listener) { l.Continued(threadID, !singleThread) })
		s.sch.Resume()
	}()
	if s.step != nil {
		s.endStepLocked()
	}
	f := t.Frame(0)
	st := &stepReq{thread: t, kind: kind, depth: t.Depth(), fn: f.Fn, pc: f.PC}
	st.line, _ = f.Fn.Pos(f.PC)
	// Patch the statement boundaries the step may end at: those of the
	// functions on the stack (callers and, for recursion, this one), and
	// for a step in, of every function.
	fns := map[*vm.Funcode]bool{}
	for i := 0; i < t.Depth(); i++ {
		fns[t.Frame(i).Fn] = true
	}
	if kind == StepIn {
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
	s.step = st
	if singleThread {
		if err := s.freezeOthersLocked(threadID); err != nil {
			return err
		}
	}
	s.resumeLocked()
	return nil
}

// endStepLocked removes the step's traps. Must hold s.mu with no dispatch
// running.
func (s *Session) endStepLocked() {
	st := s.step
	if st == nil {
		return
	}
	s.step = nil
	for _, k := range st.traps {
		s.clearTrapLocked(k)
	}
}
