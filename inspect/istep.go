package inspect

import "github.com/nlangdbg/nlangdbg/vm"

// Stepping by instructions (DAP granularity "instruction"): the same
// three kinds as by statements, ending at the next instruction instead
// of the next statement. StepOver ends at the next instruction the
// thread executes in this frame or a caller (a call runs to its return);
// StepIn also at the first instruction of a callee; StepOut at the
// caller's return address, as a step out by statements does.

// StepInstruction is Step by instructions.
func (s *Session) StepInstruction(threadID int64, kind StepKind, singleThread bool) error {
	defer s.quiet()() // (catchup.go)
	return s.startStep(threadID, kind, singleThread, true)
}

// instrStepTrapsLocked patches what an instruction step may end at:
// every instruction of the functions on the stack (fns), and for a step
// in, the entry of every function. The thread's current instruction is
// executed once without trapping (it is where the step starts). Must
// hold s.mu with the world stopped.
func (s *Session) instrStepTrapsLocked(st *stepReq, t *vm.Thread, fns map[*vm.Funcode]bool) {
	set := func(fn *vm.Funcode, pc int32) {
		k := trapKey{fn, pc}
		s.setTrapLocked(k)
		st.traps = append(st.traps, k)
	}
	if st.kind == StepIn {
		for _, fn := range s.prog.Funcs {
			if !fns[fn] && len(fn.Code) > 0 {
				set(fn, 0)
			}
		}
	}
	for fn := range fns {
		for pc := range fn.Code {
			set(fn, int32(pc))
		}
	}
	if !t.InNative() {
		t.SkipTrapOnce(st.fn, st.pc)
	}
}

// matchesInstr reports whether an instruction step ends at pc of fn.
func (st *stepReq) matchesInstr(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	d := t.Depth()
	switch {
	case st.kind == StepOut:
		return st.isReturn(t, fn, pc) || d < st.depth && !(fn == st.retFn && pc == st.retPC)
	case d > st.depth:
		return st.kind == StepIn
	}
	return true
}
