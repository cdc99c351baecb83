package vm

// Traps implement breakpoints and stepping without slowing down code that
// never reaches them: the debugger replaces an instruction by TRAP and
// keeps the original aside. The interpreter pays only when it executes a
// TRAP. Patching must happen while no thread runs (the debugger stops the
// world first).

// SetTrap patches the instruction at pc. It reports false if pc is out of
// range.
func (fn *Funcode) SetTrap(pc int32) bool {
	if pc < 0 || int(pc) >= len(fn.Code) {
		return false
	}
	if fn.Code[pc].Op == TRAP {
		return true
	}
	if fn.trapped == nil {
		fn.trapped = map[int32]Instr{}
	}
	fn.trapped[pc] = fn.Code[pc]
	fn.Code[pc] = Instr{Op: TRAP}
	return true
}

// ClearTrap restores the original instruction at pc.
func (fn *Funcode) ClearTrap(pc int32) {
	if orig, ok := fn.trapped[pc]; ok {
		fn.Code[pc] = orig
		delete(fn.trapped, pc)
	}
}

// HasTrap reports whether pc is patched.
func (fn *Funcode) HasTrap(pc int32) bool {
	_, ok := fn.trapped[pc]
	return ok
}

// Instr returns the instruction at pc as compiled (ignoring traps).
func (fn *Funcode) Instr(pc int32) Instr { return fn.original(pc) }

func (fn *Funcode) original(pc int32) Instr {
	if orig, ok := fn.trapped[pc]; ok {
		return orig
	}
	return fn.Code[pc]
}

// SkipTrapOnce makes the thread execute the instruction at pc of fn as
// compiled the next time it reaches it, if that is the next instruction
// it executes (a debugger starting a step there, so that the step does
// not end where it begins): the skip holds until the thread meets a trap
// or spends a reduction (a later pass of a loop traps again). Call it
// only while the thread is stopped.
func (t *Thread) SkipTrapOnce(fn *Funcode, pc int32) {
	c := t.cx()
	c.skipFn, c.skipPC, c.skipRed = fn, pc, t.reductions
}
