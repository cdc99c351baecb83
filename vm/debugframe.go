package vm

// DebugFrame is a debugger's view of one frame of a thread: its
// function, the pc it is at, the source position of that pc, the locals
// live there and its registers. It is the one place that says which pc
// a frame is at; everything that shows a frame (stacks, variables,
// evaluation in a frame, disassembly, backtraces, race reports) asks it.
//
// Lifetime: a DebugFrame reads the thread's frames and registers in
// place. Get it while the thread is stopped (no Run in progress) and do
// not keep it after the thread resumes: the next Run may move, reuse or
// pop them.
type DebugFrame struct {
	t     *Thread
	f     *Frame
	depth int
}

// DebugFrame returns frame depth of the thread, counting from the
// innermost (0 <= depth < Depth()). The thread must be stopped; see
// DebugFrame for how long the result is valid.
func (t *Thread) DebugFrame(depth int) DebugFrame {
	return DebugFrame{t: t, f: t.Frame(depth), depth: depth}
}

// Func returns the frame's function.
func (d DebugFrame) Func() *Funcode { return d.f.Fn }

// Depth returns the frame's depth (0: the innermost).
func (d DebugFrame) Depth() int { return d.depth }

// PC returns the pc the frame is at: the instruction the innermost frame
// executes next, when the thread stopped between two instructions; the
// instruction in progress — the call — in a caller's frame, and in the
// innermost frame of a thread stopped inside an instruction (parked in a
// native call, or stopped at a throw: Thread.InNative).
func (d DebugFrame) PC() int32 { return framePC(d.f, d.depth > 0 || d.t.inNative) }

// InInstr reports whether the frame is in the middle of the instruction
// at PC (a call in progress) rather than about to execute it.
func (d DebugFrame) InInstr() bool { return (d.depth > 0 || d.t.inNative) && d.f.PC > 0 }

// Position returns the source line and column of PC.
func (d DebugFrame) Position() (line, col int32) { return d.f.Fn.Pos(d.PC()) }

// Locals returns the frame's variables live at PC (see Funcode.LocalsAt).
func (d DebugFrame) Locals() []LocalVar { return d.f.Fn.LocalsAt(d.PC()) }

// Reg returns a pointer to register r of the frame (a local's LocalVar.Reg).
func (d DebugFrame) Reg(r int32) *Value { return d.t.Reg(d.f, r) }

// Base returns the index of the frame's first register in the thread's
// register stack: with the thread and the depth it tells a frame from
// another activation of the same function.
func (d DebugFrame) Base() int32 { return d.f.Base }

// framePC is the pc a frame is at: its PC, or the instruction before it
// when the frame is inside that instruction (inInstr: a caller, whose PC
// is its return address, or a frame past the instruction in progress).
func framePC(f *Frame, inInstr bool) int32 {
	if inInstr && f.PC > 0 {
		return f.PC - 1
	}
	return f.PC
}

// LiveAt reports whether the local holds its variable at pc: pc is in
// its range [StartPC, EndPC) (EndPC < 0: to the end of the function).
func (l *LocalVar) LiveAt(pc int32) bool {
	return l.StartPC <= pc && (pc < l.EndPC || l.EndPC < 0)
}

// Hidden reports whether the local is the compiler's (no name a program
// can use): the debugger does not show it.
func (l *LocalVar) Hidden() bool { return l.Name == "" || l.Name[0] == 0 }

// LocalsAt returns the variables of fn live at pc, in declaration order:
// the receiver (named "this") and the parameters, then the other locals
// whose range holds pc. The compiler's hidden locals are left out.
func (fn *Funcode) LocalsAt(pc int32) []LocalVar {
	var out []LocalVar
	for i := range fn.Locals {
		if l := &fn.Locals[i]; !l.Hidden() && (l.IsParam || l.LiveAt(pc)) {
			out = append(out, *l)
		}
	}
	return out
}
