// Package inspect is the debugger core, independent of any front end. A
// Session runs one NLang program under the scheduler, stops it at
// breakpoints, steps, pauses and resumes its virtual threads, goes back
// in its recording, and shows their stacks and variables as plain data
// (no live VM pointers). The DAP server (package dap) and through it the
// REPL are thin layers over it.
//
// A Session outlives its runs. The session holds what the user set up
// and what is true of the whole timeline: the program, the
// configuration, the breakpoint table (with the one breakpoint rule,
// decide, that every execution applies), the exception filters, the
// scheduler-event stops, the recording and its checkpoints. A run
// (run.go) is one execution: a machine and its scheduler, built by
// sched.Boot, and what the debugger knows of it — running or stopped,
// where and why, the steps under way, the breakpoints' hit counts, the
// handles of the last stop. Going back re-executes the recording on a new
// run (from the nearest checkpoint before the target) and swaps it in
// (Session.swap); nothing of the old run is left behind, and its events
// are dropped.
//
// Concurrency: a Session's methods may be called from any goroutine. A
// run's carrier goroutine (one per carrier, owned by the session) runs
// the program; inspection methods (Threads, Stack, Scopes, Variables,
// Evaluate, SetVariable, ExceptionInfo) require the program to be
// stopped and return ErrRunning otherwise. Going back (StepBack,
// ReverseContinue, RestartAt) re-executes on the caller's goroutine and
// returns once the session stopped at the target. Listener methods are
// called from the carrier goroutine (or from the goroutine calling the
// method that caused the event) and must not call back into the Session
// synchronously.
package inspect

import (
	"errors"
	"io"
	"time"

	"github.com/nlangdbg/nlangdbg/vm"
)

// Errors returned by Session methods.
var (
	ErrRunning    = errors.New("the program is running (pause it first)")
	ErrNotRunning = errors.New("the program is not running")
	ErrNoThread   = errors.New("no such thread")
	ErrNoFrame    = errors.New("no such frame")
	ErrBadRef     = errors.New("unknown or expired variable reference")
)

// Config describes a program to debug.
type Config struct {
	Program   string // path of the main .n file
	Args      []string
	Cwd       string
	Quota     int   // reductions per dispatch (0: default 4000)
	Seed      int64 // scheduler seed (0: FIFO)
	Carriers  int   // carriers running threads in parallel (0, 1: one, deterministic)
	MaxFrames int   // 0: default
	MaxHeap   int64 // bytes the program may hold (0: default)
	// AllowRead, AllowWrite and DenyFS restrict the program's file access
	// (vm.NewFSPolicy); none set: no restriction.
	AllowRead, AllowWrite []string
	DenyFS                bool
	StopOnEntry           bool
	Stdin                 io.Reader // nil: empty input
	// Stdout and Stderr, if set, receive the program's output; otherwise
	// it goes to the Listener as Output events.
	Stdout, Stderr io.Writer
	// Lib, if set, adds natives to the library the program is compiled
	// with (for embedders, and tests that need a native of their own).
	Lib *vm.Library
	// DebugLog, if set, receives the Go stacks of internal errors (a
	// panic in a native or the interpreter, raised in the program as an
	// InternalError).
	DebugLog io.Writer
	// NoRecord turns off the session's recording (with one carrier a
	// session records its run so that it can go back); StepBack and
	// ReverseContinue then return ErrNoRecording.
	NoRecord bool
	// RecordBudget bounds the memory of the session's recording, in
	// bytes (0: DefaultRecordBudget). Past it the session stops recording
	// (and says so): it can no longer go back.
	RecordBudget int64
	// SnapshotInterval is the run time between two checkpoints of the
	// execution, which going back starts from (0:
	// DefaultSnapshotInterval; negative: none, going back re-executes
	// from the start). Below a millisecond a checkpoint may be taken at
	// the end of every quantum (for tests).
	SnapshotInterval time.Duration
	// SnapshotBudget bounds the memory of the checkpoints, in bytes (0:
	// DefaultSnapshotBudget).
	SnapshotBudget int64
	// Replay, if set, is a recording (nlangdbg run --record) to debug
	// instead of Program: its program, options and inputs are the
	// recorded ones, and the session can go back and forth in it.
	Replay string
	// Race runs the program with the race detector: a thread whose
	// access races with an earlier one stops (ReasonDataRace). One
	// carrier.
	Race bool
	// NonStop makes ModeThread the mode of the breakpoints and exception
	// filters that name none, and a Pause of one thread hold it alone
	// (see SetNonStop and nonstop.go).
	NonStop bool
}

// StopReason says why the program stopped (the DAP `stopped` reasons).
type StopReason string

// Stop reasons.
const (
	ReasonEntry      StopReason = "entry"
	ReasonBreakpoint StopReason = "breakpoint"
	ReasonFunction   StopReason = "function breakpoint"
	ReasonStep       StopReason = "step"
	ReasonPause      StopReason = "pause"
	ReasonException  StopReason = "exception"
	ReasonDeadlock   StopReason = "deadlock"
	ReasonSafepoint  StopReason = "safepoint"
	ReasonSched      StopReason = "scheduler"
)

// StopInfo describes a stop.
type StopInfo struct {
	Reason            StopReason
	ThreadID          int64
	AllThreadsStopped bool
	HitBreakpointIDs  []int
	Description       string // short, e.g. "Paused on exception"
	Text              string // exception text, deadlock report, …
	// Back says the stop was reached by going back (StepBack,
	// ReverseContinue).
	Back bool
	// Reload is the number of the reload that reports the stop again
	// (the program is where it was, in the new code's run: Reload).
	Reload int
	// Change is what a data breakpoint stopped at (ReasonData).
	Change *DataChange
	// Recorded says the stop is a hold the recording makes again: the
	// session is in the past of its recording, where the debugger held
	// the thread there (non-stop; AllThreadsStopped is false).
	Recorded bool
	// hold: the stop holds its thread alone (ModeThread), decided inside
	// the dispatch (hooks.go)
	hold bool
}

// DataChange is the access a data breakpoint stopped at: Name changed
// from Old to New, or (Read) was read holding New.
type DataChange struct {
	Name     string
	Old, New string
	Read     bool
}

// Listener receives a session's events. Calls are serialised.
type Listener interface {
	// Stopped: the program stopped (every thread is parked at an
	// instruction boundary), or, with AllThreadsStopped false (non-stop),
	// the debugger holds the stop's thread while the others run.
	Stopped(StopInfo)
	// Continued: the program resumed (threadID is the thread asked to run;
	// all reports whether every thread runs), or, with all false, thread
	// threadID was let go on (a single-thread resume, or a held thread).
	Continued(threadID int64, all bool)
	// ThreadStarted and ThreadExited report virtual threads.
	ThreadStarted(id int64)
	ThreadExited(id int64)
	// Output is program output ("stdout", "stderr") or a debugger note
	// ("console", e.g. a logpoint's message).
	Output(category, text string)
	// Exited: the program ended with this exit code; the session is over.
	Exited(code int)
}

// BreakpointSpec is a requested line breakpoint.
type BreakpointSpec struct {
	Line         int
	Condition    string // NLang bool expression; empty: always
	HitCondition string // "5", "==5", ">=5", ">5", "%5"
	LogMessage   string // if set: print it (with {expr} interpolated) instead of stopping
	Mode         string // ModeAll, ModeThread, or "": the session's (Config.NonStop)
}

// FunctionBreakpointSpec is a breakpoint on a function's first line:
// "func" or "Class.method".
type FunctionBreakpointSpec struct {
	Name         string
	Condition    string
	HitCondition string
	Mode         string // as BreakpointSpec's
}

// Breakpoint is a breakpoint as set: where it really is.
type Breakpoint struct {
	ID       int
	Verified bool
	File     string
	Line     int // the line it was moved to (the next line with code)
	Message  string
	Hits     int    // times reached with its condition true
	Ignore   int    // hits still to be ignored (IgnoreBreakpoint)
	Address  string // an instruction breakpoint's address
	Mode     string // the mode asked for ("": the session's)
}

// StepKind selects a step.
type StepKind int

// Step kinds.
const (
	StepOver StepKind = iota // next
	StepIn
	StepOut
)

// ThreadInfo describes a virtual thread.
type ThreadInfo struct {
	ID         int64
	Name       string
	State      string // "runnable", "running", "waiting", "dead", "frozen", "pinned", "stopped"
	WaitReason string // "chan recv", "sleep", … (waiting threads)
	Func       string // the function of its top frame
	File       string
	Line       int
	Stopped    bool // the thread the last stop is about
	// Held says the debugger holds the thread while the others run
	// (non-stop); its State is "stopped".
	Held bool
	// Parent is the thread that spawned it and Spawn where (views.go; 0
	// and no place for main, or when sites were not recorded).
	Parent int64
	Spawn  Place
}

// FrameInfo describes one frame of a thread's stack; Depth 0 is the
// innermost.
type FrameInfo struct {
	Depth int
	Func  string
	File  string
	Line  int
	Col   int
	// Native marks a frame of the runtime with no source: the
	// continuation of a native or of a string conversion that called
	// NLang code (a List's elements' toString), File is NativeFile.
	Native bool
	// PC is the instruction the frame is at (the call in progress for a
	// caller): it orders positions within one function (until).
	PC int
	// Address is PC's instruction address (see AddrShift); "" for a
	// native frame.
	Address string
	// OldCode marks a frame running the code its function had before a
	// reload (Reload); Line is then a line of that code's text, which
	// Source returns under the name OldSource.
	OldCode   bool
	OldSource string
}

// NativeFile is the File of native frames (FrameInfo.Native).
const NativeFile = vm.NativeFile

// Scope is a group of variables of a frame.
type Scope struct {
	Name      string // "Locals", "Arguments", "this"
	Ref       int    // variables reference
	Count     int    // number of variables
	Expensive bool
}

// Var is one variable as shown to the user: plain strings and a reference
// to load its children lazily (Ref 0: no children).
type Var struct {
	Name  string
	Type  string
	Value string
	// Ref loads the children with Variables; 0 if none.
	Ref int
	// Named and Indexed count the children (for paging).
	Named, Indexed int
	// EvaluateName is an expression that reads this variable again.
	EvaluateName string
	// Len is the full length of a truncated string (0 if not truncated).
	Len int
	// Decl is where the variable is declared (a local, a parameter, a
	// field); MadeAt where its value was made (ValueMadeAt). Either may
	// be unknown.
	Decl, MadeAt Place
}

// ExceptionDetails describes the exception a thread is stopped on.
type ExceptionDetails struct {
	ID          string // class name
	Description string // message
	Breakmode   string // "always" (all thrown) or "unhandled"
	StackTrace  string
}

// EvalContext is where an expression comes from ("watch", "hover",
// "repl", "clipboard"); "repl" may run user code (calls), the others only
// read.
type EvalContext string
