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
	delete(fn.unset, pc) // (a pinned trap: SetTrap holds it too now)
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

// ClearTrap restores the original instruction at pc, unless PinTrap
// holds the trap there (it stays until the last UnpinTrap).
func (fn *Funcode) ClearTrap(pc int32) {
	if fn.pins[pc] > 0 {
		if fn.unset == nil {
			fn.unset = map[int32]bool{}
		}
		fn.unset[pc] = true
		return
	}
	if orig, ok := fn.trapped[pc]; ok {
		fn.Code[pc] = orig
		delete(fn.trapped, pc)
	}
}

// PinTrap patches the instruction at pc as SetTrap does, counting its
// holders apart from SetTrap's: the trap stays until as many UnpinTrap
// calls have undone them, whatever ClearTrap does meanwhile. It is for a
// second user of the traps of a program (a replay that cuts a quantum
// where a debugger held a thread) beside the debugger, whose SetTrap and
// ClearTrap it leaves alone. It reports false if pc is out of range.
func (fn *Funcode) PinTrap(pc int32) bool {
	if pc < 0 || int(pc) >= len(fn.Code) {
		return false
	}
	if fn.Code[pc].Op == TRAP && !fn.HasTrap(pc) {
		return true // a TRAP as compiled
	}
	if fn.pins == nil {
		fn.pins = map[int32]int32{}
	}
	if fn.pins[pc] == 0 {
		if fn.HasTrap(pc) {
			delete(fn.unset, pc) // SetTrap's, kept when unpinned
		} else {
			fn.SetTrap(pc)
			if fn.unset == nil {
				fn.unset = map[int32]bool{}
			}
			fn.unset[pc] = true // nobody called SetTrap
		}
	}
	fn.pins[pc]++
	return true
}

// UnpinTrap undoes one PinTrap: the last one restores the instruction,
// unless SetTrap patched it too and ClearTrap was not called since.
func (fn *Funcode) UnpinTrap(pc int32) {
	if fn.pins[pc] == 0 {
		return
	}
	if fn.pins[pc]--; fn.pins[pc] > 0 {
		return
	}
	delete(fn.pins, pc)
	if fn.unset[pc] {
		delete(fn.unset, pc)
		fn.ClearTrap(pc)
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
