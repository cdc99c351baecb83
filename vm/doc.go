// Package vm is NLang's virtual machine: values, objects and classes, the
// compiled program, heap frames and threads, the interpreter loop, the
// built-in library written in Go, and the hooks a debugger and a
// scheduler plug into. Package vm/syntax parses and vm/compile compiles a
// program into a Program for it; package sched runs its threads.
//
// # Shape
//
// A Program is a set of Funcodes (compiled functions: register-based
// bytecode, constants, a pc→line:col table, the live ranges of the
// locals, exception handlers) and classes. A Machine holds what all
// threads of one run of a program share: output, limits (MaxFrames,
// MaxHeap), the file-system policy, standard input, the debug hook and
// the scheduler. A Thread is plain data: a slice of heap Frames (function,
// pc, base of its registers, where its result goes) over one slice of
// register Values, plus a scheduling state and what it waits on. No
// thread owns a goroutine or a Go stack.
//
// A Value is one slot: scalars unboxed in N, references (string,
// *Object, *Array, *List, *Dict, *FuncVal, host objects such as the
// scheduler's channels) in R.
//
// # The interpreter
//
// Thread.Run(budget) is a step function: it runs the thread until it
// has counted budget reductions (one per function entry and loop
// back-edge, the safepoints), or parks in a native, yields, ends, or
// stops at a trap — and returns why (a Stop). An NLang call pushes a
// heap frame and the loop goes on; a return pops it; nothing recurses on
// the Go stack per NLang call. Code the runtime itself must run (a user
// toString while formatting a List) is pushed the same way, with a
// continuation frame under it (CallThen; cont.go). Exceptions unwind
// frame by frame through each function's handler table; a Go panic
// inside Run becomes an NLang InternalError. The loop is one switch in
// interp.go; it is the semantics of each opcode.
//
// # The opcode table
//
// What each opcode does, as data, is in one table (opinfo.go), in the
// spirit of Lua's lopcodes.h and Go's cmd/compile opInfo: its name, what
// each operand A, B, C holds (register, immediate, jump target, index of
// a constant, type, function…), which operand is a jump's target, what
// kind of call it is, the field, array or List element it loads or
// stores, and flags: writes only R[A], straight-line (goes on to pc+1
// without calling), safepoint, may throw, may run NLang code, never goes
// on to pc+1, returns. Opcode.Info returns an entry; Funcode.AccessOf
// adds what a native call touches (Native.Recv: the List and Dict
// methods). The table is sized by the opcode count: an opcode without an
// entry does not compile. Everything outside the loop asks it — the
// disassembler, the compiler's jump patching, the debugger (going back,
// data breakpoints, read-only evaluation, step-in targets, the registers
// an instruction writes), the race detector and schedule exploration —
// rather than listing opcodes. The interpreter does not read it; a test
// runs the test scripts with every instruction trapped and checks what
// each instruction did against its entry.
//
// # Frames for a debugger
//
// Thread.DebugFrame(depth) is the one accessor for "where is this frame":
// its function, the pc it is at (the next instruction of a thread
// stopped between instructions; the instruction in progress — the call —
// in a caller's frame, or in a top frame stopped inside an instruction),
// the source position of that pc, the locals live there
// (Funcode.LocalsAt, LocalVar.LiveAt) and its registers. Backtraces use
// the same rule. A DebugFrame, like Thread.Frame and Thread.Reg, is valid
// only while the thread is stopped: it reads the thread's frames in
// place, and the next Run may move or pop them, so it must not be kept
// after the thread resumes.
//
// # Hooks
//
// A debugger patches instructions with TRAP (Funcode.SetTrap; debug.go):
// the loop calls Machine.Hook's OnTrap only there, so code without
// breakpoints runs unchanged. A ThrowHook sees every exception before any
// frame unwinds. A Scheduler (Machine.Sched) is told of natives that pin
// their carrier and of input a thread parks for. An Outside (outside.go)
// is the one door to the world a recording logs and a replay feeds.
//
// # State as data
//
// Everything a running program is lives in values the VM owns, so a
// Copier (snapshot.go) can copy a stopped machine's threads and heap into
// a new machine — the debugger's checkpoints — with host objects copying
// themselves (Copyable).
package vm
