package vm

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Stop says why Run returned.
type Stop uint8

// Reasons Run returns.
const (
	// StopBudget: the reduction budget ran out at a safepoint (function
	// entry or loop back-edge).
	StopBudget Stop = iota
	// StopYield: the thread gave up its quantum (thread.yield).
	StopYield
	// StopPark: a native parked the thread (Thread.WaitReason says on
	// what); it resumes after Complete or CompleteThrow.
	StopPark
	// StopDone: the thread ended: it returned (Result) or an exception
	// escaped its bottom frame (Uncaught).
	StopDone
	// StopTrap: the debug hook asked to stop at a trapped instruction; the
	// thread's pc is the trap's pc (not yet executed).
	StopTrap
)

func (s Stop) String() string {
	switch s {
	case StopBudget:
		return "budget"
	case StopYield:
		return "yield"
	case StopPark:
		return "park"
	case StopDone:
		return "done"
	case StopTrap:
		return "trap"
	}
	return fmt.Sprintf("Stop(%d)", s)
}

// ThreadState is the scheduling state of a thread. The vm does not change
// it; the scheduler does, through one transition function.
type ThreadState uint8

// Thread states.
const (
	Runnable ThreadState = iota
	Running
	Waiting
	Dead
)

func (s ThreadState) String() string {
	switch s {
	case Runnable:
		return "runnable"
	case Running:
		return "running"
	case Waiting:
		return "waiting"
	case Dead:
		return "dead"
	}
	return "?"
}

// Frame is one activation record. Frames live in Thread.frames, on the
// heap; registers live in Thread.stack starting at Base.
type Frame struct {
	Fn   *Funcode
	PC   int32 // next instruction; for a caller frame the return address
	Base int32 // first register in Thread.stack
	Ret  int32 // stack index receiving the result (-1: none)
}

// DebugHook is installed by the debugger. OnTrap is called when a thread
// reaches a patched (trapped) instruction at pc of fn; it returns true to
// stop the thread there (Run returns StopTrap) or false to execute the
// original instruction and go on.
type DebugHook interface {
	OnTrap(t *Thread, fn *Funcode, pc int32) bool
}

// Machine holds what all threads of one program run share.
type Machine struct {
	Prog   *Program
	Stdout io.Writer
	Stderr io.Writer
	// MaxFrames bounds a thread's call depth: a call past it throws
	// StackOverflowException.
	MaxFrames int
	// MaxHeap bounds the heap the program holds (bytes): an allocation
	// that would cross it throws OutOfMemoryException (see heap.go).
	MaxHeap int64
	heap    heapMeter // heap.go
	// FS, if set, restricts the program's file access (perm.go).
	FS *FSPolicy
	// DebugLog, if set, receives the Go stack of every panic that Run
	// contained (turned into an InternalError).
	DebugLog io.Writer
	// Hook is the debugger's trap handler; nil when no debugger is attached.
	Hook DebugHook
	// Sched is the scheduler driving the threads; nil when the host runs
	// threads itself (a read of blocking input then blocks).
	Sched Scheduler
	// OutMu serialises writes to Stdout and Stderr.
	OutMu sync.Mutex
	// Parallel is set by a scheduler that runs threads on several carriers
	// at once (before any thread runs). Natives that guard shared host
	// data (Dict) lock only when it is set, so the one-carrier default
	// pays nothing.
	Parallel bool

	// interrupt, while set, makes every running thread return StopBudget
	// at its next safepoint (stop-the-world with several carriers).
	interrupt atomic.Bool

	in *input // standard input

	termOnce  sync.Once
	termClass *Class // the class of terminations (terminate.go)

	objIDs atomic.Int64 // the last identity number given (ObjectID)
	seqIDs atomic.Int64 // the last allocation number of an array or List (NumberSeq)
}

// SetInterrupt sets or clears the machine's interrupt: while it is set,
// every thread inside Run returns StopBudget at its next safepoint
// (function entry or loop back-edge), whatever budget it has left. A
// scheduler with several carriers uses it to stop the world promptly;
// with one carrier it is never set.
func (m *Machine) SetInterrupt(on bool) { m.interrupt.Store(on) }

// DefaultMaxFrames allows a million-deep recursion of a small function.
const DefaultMaxFrames = 1_100_000

// DefaultMaxHeap is 4 GiB.
const DefaultMaxHeap = 4 << 30

// NewMachine returns a machine for prog writing to stdout and stderr.
func NewMachine(prog *Program, stdin io.Reader, stdout, stderr io.Writer) *Machine {
	return &Machine{Prog: prog, Stdout: stdout, Stderr: stderr, in: newInput(stdin),
		MaxFrames: DefaultMaxFrames, MaxHeap: DefaultMaxHeap}
}

// Thread is a virtual thread: a chain of heap frames and a state. It never
// owns a goroutine; a scheduler calls Run to advance it.
type Thread struct {
	M  *Machine
	ID int64
	// name is the name the thread was given (named); if none, its name
	// is "thread-ID", made only when asked for (Name): a spawn allocates
	// no string, and a parked thread has one pointer fewer for the
	// collector to follow.
	name string

	frames []Frame
	stack  []Value

	frames0 [2]Frame // the first frames and registers, in the same allocation
	stack0  [8]Value

	// Scheduling and waiting, managed by the scheduler and natives.
	WaitReason string // what a parked thread waits for: "chan recv", "sleep", …
	WaitOn     any    // the object it waits on (a channel, a thread, …)
	Sched      any    // the scheduler's per-thread data

	// Result is the value the entry function returned.
	Result Value
	// Uncaught is the exception that ended the thread, if any.
	Uncaught *Object

	reductions int64       // total reductions spent
	runBudget  int         // the budget of the Run in progress
	left       int         // the budget left in the Run in progress
	cold       *threadCold // what few threads need, made on first use
	nativeDest int32       // stack index awaiting a parked native's result
	nativeArgs int32       // stack index of the native call's first argument

	// (the small fields last, together: a parked thread is 448 bytes)

	State ThreadState
	// YieldAfterNative makes the native call in progress end the thread's
	// quantum when it returns (the scheduler sets it so that a debugger
	// stopping at a scheduler event sees the thread right after the call
	// that caused it).
	YieldAfterNative bool
	// NoDebug makes the thread ignore traps and the debugger's throw hook
	// (threads the debugger runs to evaluate expressions).
	NoDebug  bool
	inNative bool // parked inside a native call (top frame PC is past the call)
	named    bool // name was given (SetName)
}

// threadCold is the part of a Thread that few threads need, kept out of
// it so that a parked thread stays small (see TestThreadSize).
type threadCold struct {
	concatBuf    []byte // the buffer behind the last long string built (concat)
	pendingThrow error
	reported     *Object      // exception already shown to the debugger's ThrowHook
	skipFn       *Funcode     // execute the trapped instruction at (skipFn, skipPC) once
	call         *pendingCall // the call a native asked for (CallThen)
	skipPC       int32
	// skipRed is the thread's reductions when the skip was asked for:
	// the skip is for reaching (skipFn, skipPC) with as many, not for a
	// later pass of a loop (between two reductions a thread passes each
	// pc of a frame at most once)
	skipRed int64
}

// cx returns t's threadCold, made on first use.
func (t *Thread) cx() *threadCold {
	if t.cold == nil {
		t.cold = &threadCold{}
	}
	return t.cold
}

// pendingThrow returns the error the thread raises when it resumes
// (CompleteThrow), or nil.
func (t *Thread) pendingThrow() error {
	if t.cold == nil {
		return nil
	}
	return t.cold.pendingThrow
}

// NewThread returns a thread that will call f with args when first run.
// For a bound method value the receiver is passed first.
func (m *Machine) NewThread(f *FuncVal, args []Value) (*Thread, error) {
	fn := f.Target()
	if fn == nil {
		return nil, fmt.Errorf("cannot start a thread on a native function")
	}
	t := &Thread{M: m}
	// A small thread lives in one allocation: its first frames and
	// registers are arrays inside the Thread (they move to the heap
	// proper if the thread grows).
	if n := fn.NumRegs + 1; n <= len(t.stack0) {
		t.stack = t.stack0[:n:len(t.stack0)]
	} else {
		t.stack = make([]Value, n, n+4)
	}
	base := 1 // stack[0] receives the result
	i := base
	if f.Bound {
		t.stack[i] = f.Recv
		i++
	}
	copy(t.stack[i:], args)
	t.frames = t.frames0[:1]
	t.frames[0] = Frame{Fn: fn, Base: int32(base), Ret: 0}
	return t, nil
}

// NewCallThread returns a thread that will call fn with args (the
// receiver first for methods). Used for main and for evaluations.
func (m *Machine) NewCallThread(fn *Funcode, args []Value) *Thread {
	t, _ := m.NewThread(&FuncVal{Fn: fn}, args)
	return t
}

// Done reports whether the thread has ended.
func (t *Thread) Done() bool { return len(t.frames) == 0 }

// Depth returns the number of frames.
func (t *Thread) Depth() int { return len(t.frames) }

// Frame returns frame i, counting from the innermost (0). Valid only while
// the thread is stopped; must not be retained after it resumes.
func (t *Thread) Frame(i int) *Frame { return &t.frames[len(t.frames)-1-i] }

// Reg returns a pointer to register r of frame f. Valid only while the
// thread is stopped.
func (t *Thread) Reg(f *Frame, r int32) *Value { return &t.stack[f.Base+r] }

// Complete delivers the result of the native the thread is parked in.
func (t *Thread) Complete(v Value) {
	if t.nativeDest >= 0 && int(t.nativeDest) < len(t.stack) {
		t.stack[t.nativeDest] = v
	}
}

// NativeArg returns argument i of the native call the thread is parked
// in (for a method, 0 is the receiver): the registers of a parked call
// stay as they were, so a waker can read what the call offered (the
// value of a blocked Channel.send). Valid only while parked.
func (t *Thread) NativeArg(i int) Value { return t.stack[t.nativeArgs+int32(i)] }

// CompleteThrow makes the native the thread is parked in raise err (a
// *Throw) when the thread resumes.
func (t *Thread) CompleteThrow(err error) { t.cx().pendingThrow = err }

// NativeType returns the type attached to the current native call site
// (the instantiated host type for constructors and methods).
// It is read from the call site: the CALLN instruction before the top
// frame's pc (nil for a native called through a function value).
func (t *Thread) NativeType() *Type {
	if len(t.frames) == 0 {
		return nil
	}
	fr := &t.frames[len(t.frames)-1]
	if fr.PC <= 0 || int(fr.PC) > len(fr.Fn.Code) {
		return nil
	}
	if in := fr.Fn.original(fr.PC - 1); in.Op == CALLN && int(in.B) < len(fr.Fn.NCalls) {
		return fr.Fn.NCalls[in.B].Type
	}
	return nil
}

// Reductions returns the total number of reductions the thread has spent.
func (t *Thread) Reductions() int64 { return t.reductions }

// InNative reports whether the thread is parked inside a native call.
func (t *Thread) InNative() bool { return t.inNative }

// String identifies the thread ("Thread[2 thread-2]").
func (t *Thread) String() string { return fmt.Sprintf("Thread[%d %s]", t.ID, t.Name()) }

// Name returns the thread's name: the one it was given (SetName), or
// "thread-ID" for a thread a scheduler numbered; "" for an unnumbered
// thread (ID 0) nobody named.
func (t *Thread) Name() string {
	if t.named || t.ID == 0 {
		return t.name
	}
	return DefaultThreadName(t.ID)
}

// SetName names the thread ("" too is a name).
func (t *Thread) SetName(name string) { t.name, t.named = name, true }

// Named reports whether the thread was given a name of its own.
func (t *Thread) Named() bool { return t.named }

// DefaultThreadName returns "thread-ID", the name of a thread nobody
// named (without fmt or strconv: it is made each time it is asked for).
func DefaultThreadName(id int64) string {
	var b [32]byte
	i := len(b)
	for u := uint64(id); ; u /= 10 {
		i--
		b[i] = byte('0' + u%10)
		if u < 10 {
			break
		}
	}
	i -= len("thread-")
	copy(b[i:], "thread-")
	return string(b[i:])
}

// Scheduler is what the vm and its natives need of the scheduler that
// runs a machine's threads (Machine.Sched). The scheduler's own natives
// (channels, locks, …) know their scheduler; this is the contract for
// the rest of the vm.
type Scheduler interface {
	// EnterPinned is called before a native that blocks its carrier
	// (Native.Pinned) runs on thread t, and ExitPinned after it returns:
	// the scheduler shows t as pinned and does not wait for it to stop
	// the world.
	EnterPinned(t *Thread, n *Native)
	ExitPinned(t *Thread)
	// ParkIO parks the running thread t, which waits for an outside event
	// (input) described by reason, on obj; the native returns ErrPark
	// right after. Until WakeIO, a program with nothing else to run is
	// waiting, not deadlocked.
	ParkIO(t *Thread, reason string, obj any)
	// WakeIO completes the park begun by ParkIO: the native returns v,
	// or raises err if it is not nil (a *Throw). It may be called from
	// any goroutine.
	WakeIO(t *Thread, v Value, err error)
	// SwitchOnPark is called by RunSwitching when the thread t it runs
	// has just parked (a native returned ErrPark): it returns the thread
	// to run next in the same loop and its budget, having done all the
	// bookkeeping of ending t's quantum and beginning the next one, or
	// nil to have Run return StopPark.
	SwitchOnPark(t *Thread) (next *Thread, budget int)
}

// CallFrame is one line of a backtrace.
type CallFrame struct {
	Func string
	File string
	Line int32
	Col  int32
}

func (c CallFrame) String() string {
	if c.File == NativeFile {
		return c.Func + " (native)"
	}
	return fmt.Sprintf("%s (%s:%d)", c.Func, filepath.Base(c.File), c.Line)
}

// CallStack returns the thread's frames, innermost first, as plain data.
func (t *Thread) CallStack() []CallFrame { return t.callStack(t.inNative) }

// callStack is CallStack; midInstr says the top frame's PC is already past
// the instruction in progress (a native call, a throw).
func (t *Thread) callStack(midInstr bool) []CallFrame {
	out := make([]CallFrame, 0, len(t.frames))
	for i := len(t.frames) - 1; i >= 0; i-- {
		out = append(out, frameInfo(&t.frames[i], i == len(t.frames)-1 && !midInstr))
	}
	return out
}

func frameInfo(f *Frame, top bool) CallFrame {
	line, col := f.Fn.Pos(framePC(f, !top)) // (see DebugFrame.PC)
	return CallFrame{Func: f.Fn.Name, File: f.Fn.File, Line: line, Col: col}
}

// Trace is the backtrace recorded in an exception object when it is
// thrown.
type Trace struct {
	Frames []CallFrame
	Thread int64 // the thread that threw it first
	// Rethrown are the places other threads threw it again (Future.get
	// of a failed future), first come first, at most maxRethrows.
	Rethrown []Rethrow
}

// Rethrow is one place an exception was thrown again by another thread.
type Rethrow struct {
	Thread string // its name
	Frames []CallFrame
}

// FormatBacktrace renders frames as "  at f (file:line)" lines; of more
// than 100 frames it shows the first and last 50 and how many are elided.
func FormatBacktrace(frames []CallFrame) string {
	var b strings.Builder
	for i, f := range frames {
		// A deep stack (a runaway recursion) shows its two ends, as Go
		// and Python do: the innermost frames and how it began.
		if len(frames) > 2*backtraceEnds && i == backtraceEnds {
			fmt.Fprintf(&b, "  ... %d frames elided ...\n", len(frames)-2*backtraceEnds)
		}
		if len(frames) > 2*backtraceEnds && i >= backtraceEnds && i < len(frames)-backtraceEnds {
			continue
		}
		fmt.Fprintf(&b, "  at %s\n", f)
	}
	return b.String()
}

// backtraceEnds is how many frames of each end of a long backtrace
// FormatBacktrace shows.
const backtraceEnds = 50
