// Package api is the typed surface of nlangdbg's DAP server beyond the
// protocol: the custom requests (commands in the "nlang/" namespace) for
// what DAP has no request for — the scheduler, thread control, going
// back, checkpoints — with their arguments and response bodies, the
// fields nlangdbg adds to standard events, and the text forms that the
// terminal debugger and the debug console's ':' commands print.
//
// A client sends a custom request as any DAP request, with the command
// and arguments below, and decodes the response's body into the type
// named beside the command. The terminal debugger (nlangdbg debug) is
// such a client: it formats what it gets with the functions of this
// package and never parses the server's text. A user of another client
// types the same commands in its debug console with a leading ':'
// (ParseConsole); the server runs the same request and answers with the
// same text.
package api

import "github.com/google/go-dap"

// The custom requests, each with its arguments and body ("-": none).
const (
	// CmdScheduler: the scheduler's state. - → SchedulerBody.
	CmdScheduler = "nlang/scheduler"
	// CmdSchedStep runs exactly one quantum, then stops (a stopped
	// event follows). - → DispatchBody.
	CmdSchedStep = "nlang/schedStep"
	// CmdSchedNext chooses the thread of the next dispatch. ThreadArgs → -.
	CmdSchedNext = "nlang/schedNext"
	// CmdQuota reads or sets the reductions per dispatch. QuotaArgs → QuotaBody.
	CmdQuota = "nlang/quota"
	// CmdSchedBreaks adds or removes stops at scheduler events.
	// SchedBreaksArgs → SchedBreaksBody.
	CmdSchedBreaks = "nlang/schedBreaks"
	// CmdWaitGraph: who waits for whom. - → Graph.
	CmdWaitGraph = "nlang/waitGraph"
	// CmdFreeze keeps a thread off the run queue, or lets it run again.
	// FreezeArgs → -.
	CmdFreeze = "nlang/freeze"
	// CmdBreakSafepoint stops a thread at its next safepoint.
	// ThreadArgs → -.
	CmdBreakSafepoint = "nlang/breakSafepoint"
	// CmdThreads lists threads, filtered. ThreadsArgs → ThreadsBody.
	CmdThreads = "nlang/threads"
	// CmdThreadGroups counts threads by a key. ThreadGroupsArgs →
	// ThreadGroupsBody.
	CmdThreadGroups = "nlang/threadGroups"
	// CmdFunctions lists the program's functions and where they are
	// declared. FunctionsArgs → FunctionsBody.
	CmdFunctions = "nlang/functions"
	// CmdDisassemble: a function's bytecode. DisassembleArgs →
	// DisassembleBody.
	CmdDisassemble = "nlang/disassemble"
	// CmdBreakpoints: the hit and ignore counts of the breakpoints. - →
	// BreakpointsBody.
	CmdBreakpoints = "nlang/breakpoints"
	// CmdIgnore lets a breakpoint go on through its next hits.
	// IgnoreArgs → -.
	CmdIgnore = "nlang/ignore"
	// CmdStepBack goes back one statement, into or out of calls (a
	// stopped event follows). StepBackArgs → -.
	CmdStepBack = "nlang/stepBack"
	// CmdCheckpoint names the present. CheckpointArgs → Checkpoint.
	CmdCheckpoint = "nlang/checkpoint"
	// CmdCheckpoints: the named checkpoints and the copies of the
	// execution. - → CheckpointsBody.
	CmdCheckpoints = "nlang/checkpoints"
	// CmdGoToCheckpoint goes to a checkpoint, forward or back (a stopped
	// event follows). GoToCheckpointArgs → -.
	CmdGoToCheckpoint = "nlang/goToCheckpoint"
	// CmdDump writes the present to a file that debug --core opens.
	// DumpArgs → -.
	CmdDump = "nlang/dump"
	// CmdWhen: where the session is in its recording. - → WhenBody.
	CmdWhen = "nlang/when"
	// CmdNonStop reads or sets the session's mode: non-stop (breakpoints
	// without a mode stop their thread only, pause pauses one thread) or
	// all-stop. NonStopArgs → NonStopBody.
	CmdNonStop = "nlang/nonStop"
)

// Commands lists every custom request.
var Commands = []string{
	CmdScheduler, CmdSchedStep, CmdSchedNext, CmdQuota, CmdSchedBreaks, CmdWaitGraph,
	CmdFreeze, CmdBreakSafepoint, CmdThreads, CmdThreadGroups, CmdFunctions, CmdDisassemble,
	CmdBreakpoints, CmdIgnore, CmdStepBack, CmdCheckpoint, CmdCheckpoints, CmdGoToCheckpoint,
	CmdDump, CmdWhen, CmdLeaks, CmdNonStop,
	CmdLastWrites, CmdTravel, CmdOrigin, CmdQuery, CmdTimeline, // (past.go)
	CmdReload, CmdWhatIf, // reload.go
}

// None is the arguments or body of a request that has none.
type None struct{}

// ThreadArgs name a thread.
type ThreadArgs struct {
	ThreadID int64 `json:"threadId"`
}

// SchedulerBody is the scheduler's state.
type SchedulerBody struct {
	Quota    int       `json:"quota"`
	Carriers []Carrier `json:"carriers"`
	RunQueue []Thread  `json:"runQueue"` // in dispatch order
	Parked   []Thread  `json:"parked"`   // waiting threads, with what they wait on
	Frozen   []Thread  `json:"frozen"`
	Timers   []Timer   `json:"timers"`
	Graph    Graph     `json:"waitGraph"`
	Deadlock bool      `json:"deadlock"`
}

// Carrier is one carrier of the scheduler.
type Carrier struct {
	ID       int     `json:"id"`
	Running  int64   `json:"running,omitempty"` // thread id; absent: idle
	RunQueue []int64 `json:"runQueue"`
}

// Thread describes a virtual thread.
type Thread struct {
	ID         int64       `json:"id"`
	Name       string      `json:"name"`
	State      string      `json:"state"`                // runnable, running, waiting, dead, frozen, pinned, stopped
	WaitReason string      `json:"waitReason,omitempty"` // chan recv, sleep, … (waiting threads)
	WaitsOn    string      `json:"waitsOn,omitempty"`    // node id of the object in the wait graph
	Function   string      `json:"function,omitempty"`   // of its top frame
	Source     *dap.Source `json:"source,omitempty"`
	Line       int         `json:"line,omitempty"`
	Stopped    bool        `json:"stopped,omitempty"` // the thread the last stop is about
	Held       bool        `json:"held,omitempty"`    // stopped alone while the others run (non-stop)
	// Parent spawned it at SpawnedAt (absent: main, or not recorded).
	Parent    int64  `json:"parent,omitempty"`
	SpawnedAt *Place `json:"spawnedAt,omitempty"`
}

// Timer is a thread asleep until a time.
type Timer struct {
	ThreadID int64   `json:"threadId"`
	Name     string  `json:"name"`
	InMs     float64 `json:"inMs"` // time left when the program stopped (≤ 0: due)
}

// Graph is the wait graph: threads and the objects they wait on.
type Graph struct {
	Nodes  []Node    `json:"nodes"`
	Edges  []Edge    `json:"edges"`
	Cycles [][]int64 `json:"cycles"` // deadlock cycles, as thread ids
	// Deadlock says the scheduler found a deadlock (all threads asleep).
	Deadlock bool `json:"deadlock,omitempty"`
}

// Node is a thread ("t3") or an object ("o1") of the wait graph.
type Node struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"` // "thread", "Mutex", "Channel", "Future", "Thread", "Semaphore", "timer", …
	Label    string `json:"label"`
	ThreadID int64  `json:"threadId,omitempty"`
	Name     string `json:"name,omitempty"` // a thread's name
}

// Edge is "waits for" (thread to object) or "held by" (object to thread).
type Edge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label"`
	Cycle bool   `json:"cycle,omitempty"`
}

// DispatchBody reports one dispatch of CmdSchedStep.
type DispatchBody struct {
	ThreadID   int64  `json:"threadId,omitempty"` // absent: nothing ran
	Name       string `json:"name,omitempty"`
	Reductions int    `json:"reductions"`
	// Why is "quota", "yield", "parked on chan recv", "ended", "trap",
	// "idle" (nothing runnable: timers pending), "deadlock" or "end".
	Why     string  `json:"why"`
	Woken   []int64 `json:"woken,omitempty"`
	Spawned []int64 `json:"spawned,omitempty"`
}

// QuotaArgs set the quota (absent: read it).
type QuotaArgs struct {
	Quota *int `json:"quota,omitempty"`
}

// QuotaBody is the quota.
type QuotaBody struct {
	Quota int `json:"quota"`
}

// SchedBreaksArgs add (Set) or remove a stop at every scheduler event
// of Kind ("spawn", "park", "wake", "exit", "deadlock"); without Kind
// they only read.
type SchedBreaksArgs struct {
	Kind string `json:"kind,omitempty"`
	Set  bool   `json:"set,omitempty"`
}

// SchedBreaksBody lists the kinds of scheduler events that stop.
type SchedBreaksBody struct {
	Kinds []string `json:"kinds"`
}

// FreezeArgs freeze (Frozen) or thaw a thread.
type FreezeArgs struct {
	ThreadID int64 `json:"threadId"`
	Frozen   bool  `json:"frozen"`
}

// ThreadsArgs filter the threads: by state or wait reason, by a
// substring of the top frame's function, and by each of With (views.go).
type ThreadsArgs struct {
	State    string         `json:"state,omitempty"`
	Function string         `json:"function,omitempty"`
	With     []ThreadFilter `json:"with,omitempty"`
}

// ThreadsBody lists the threads selected (of Total).
type ThreadsBody struct {
	Threads []Thread `json:"threads"`
	Total   int      `json:"total"`
}

// ThreadGroupsArgs count the threads (filtered as by ThreadsArgs) by a
// key (GroupKeys): "function" (of the top frame), "location" (its
// file:line), "state", "waitReason" (the state of the threads that wait
// on nothing), "spawnSite" (file:line of the spawn) or "stack" (the
// whole stack: threads with the same functions at the same lines).
type ThreadGroupsArgs struct {
	By string `json:"by"`
	ThreadsArgs
}

// ThreadGroupsBody lists the groups, largest first.
type ThreadGroupsBody struct {
	Groups []ThreadGroup `json:"groups"`
	// Selected counts the threads the filters selected, of Total.
	Selected int `json:"selected"`
	Total    int `json:"total"`
}

// ThreadGroup is the threads that share a key.
type ThreadGroup struct {
	Key   string `json:"key"`
	Count int    `json:"count"`
	// ThreadIDs are the first of the group's threads (at most 100).
	ThreadIDs []int64 `json:"threadIds"`
	// Stack is the stack the threads share, innermost first (by
	// "stack").
	Stack []Frame `json:"stack,omitempty"`
}

// MaxGroupIDs is the most thread ids a ThreadGroup lists.
const MaxGroupIDs = 100

// FunctionsArgs select functions by name (empty: all of the program's).
type FunctionsArgs struct {
	Name string `json:"name,omitempty"`
}

// FunctionsBody lists functions, by name; overloads appear once.
type FunctionsBody struct {
	Functions []Function `json:"functions"`
}

// Function is a function and where it is declared.
type Function struct {
	Name   string      `json:"name"`
	Source *dap.Source `json:"source,omitempty"`
	Line   int         `json:"line,omitempty"`
}

// DisassembleArgs name a function, or a frame whose function it is.
type DisassembleArgs struct {
	Function string `json:"function,omitempty"`
	FrameID  int    `json:"frameId,omitempty"`
	// ThreadID and Depth name the frame when FrameID is absent (the
	// console's default: the selected frame).
	ThreadID int64 `json:"threadId,omitempty"`
	Depth    int   `json:"depth,omitempty"`
}

// DisassembleBody is a function's bytecode.
type DisassembleBody struct {
	Function     string        `json:"function"`
	Source       *dap.Source   `json:"source,omitempty"`
	Line         int           `json:"line"`
	Instructions []Instruction `json:"instructions"`
}

// Instruction is one instruction of a function.
type Instruction struct {
	PC      int    `json:"pc"`
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Current bool   `json:"current,omitempty"` // the frame's pc
}

// BreakpointsBody gives the counts of every breakpoint (the client's ids).
type BreakpointsBody struct {
	Breakpoints []BreakpointCounts `json:"breakpoints"`
}

// BreakpointCounts are a breakpoint's hits so far and the hits it still
// goes on through (IgnoreArgs).
type BreakpointCounts struct {
	ID     int `json:"id"`
	Hits   int `json:"hits"`
	Ignore int `json:"ignore"`
}

// IgnoreArgs let breakpoint ID go on through its next Count hits.
type IgnoreArgs struct {
	ID    int `json:"id"`
	Count int `json:"count"`
}

// StepBackArgs go back one step of thread ThreadID: Kind "over" (the
// previous statement in its function or a caller), "in" (the previous
// statement wherever it was) or "out" (the statement that called the
// current function).
type StepBackArgs struct {
	ThreadID int64  `json:"threadId"`
	Kind     string `json:"kind"`
}

// CheckpointArgs name the present.
type CheckpointArgs struct {
	Note string `json:"note,omitempty"`
}

// Checkpoint is a moment the user named.
type Checkpoint struct {
	ID    int    `json:"id"`
	Note  string `json:"note,omitempty"`
	Where string `json:"where"` // the moment: thread, function and line
}

// CheckpointsBody lists the checkpoints and the copies of the execution
// that going back starts from.
type CheckpointsBody struct {
	Checkpoints    []Checkpoint `json:"checkpoints"`
	RecordingBytes int          `json:"recordingBytes,omitempty"` // (absent: unknown while the program runs)
	Copies         Copies       `json:"copies"`
}

// Copies describe the copies of the execution (checkpoints the session
// takes by itself).
type Copies struct {
	Kept  int `json:"kept"`
	Taken int `json:"taken"`
	// Near counts the copies (in Taken) that going back took near the
	// moment it went to.
	Near       int     `json:"near,omitempty"`
	Dropped    int     `json:"dropped"`
	Bytes      int64   `json:"bytes"`
	Budget     int64   `json:"budget"`
	IntervalMs float64 `json:"intervalMs"`
	// Stopped says why no more copies are taken ("" while they are).
	Stopped string `json:"stopped,omitempty"`
	// Restores counts the re-executions going back started from a copy
	// (not from the start); Spares, those that started from a copy
	// restored ahead, while the session waited.
	Restores int `json:"restores,omitempty"`
	Spares   int `json:"spares,omitempty"`
	// CatchUps counts the re-executions the session ran at stops, in the
	// background, to take a copy near the stop before going back asks
	// for one (ended, or given way to a request); CaughtUp, those that
	// took it.
	CatchUps int `json:"catchUps,omitempty"`
	CaughtUp int `json:"caughtUp,omitempty"`
}

// GoToCheckpointArgs name a checkpoint.
type GoToCheckpointArgs struct {
	ID int `json:"id"`
}

// DumpArgs name the file a dump goes to.
type DumpArgs struct {
	Path string `json:"path"`
}

// WhenBody says where the session is in its recording.
type WhenBody struct {
	// Recording says whether the session records at all.
	Recording bool `json:"recording"`
	// Replaying: the session is in the recorded past; going forward
	// re-executes it without showing its output again.
	Replaying bool `json:"replaying,omitempty"`
	// Offset is the present in bytes of events, of Size.
	Offset int `json:"offset"`
	Size   int `json:"size"`
	// Thread and Reductions: the moment (thread 0: the start).
	Thread     int64  `json:"thread,omitempty"`
	Reductions int64  `json:"reductions,omitempty"`
	Forked     string `json:"forked,omitempty"`
}

// NonStopArgs set the session's mode (absent: read it).
type NonStopArgs struct {
	On *bool `json:"on,omitempty"`
}

// NonStopBody is the session's mode and the threads held alone.
type NonStopBody struct {
	On   bool    `json:"on"`
	Held []int64 `json:"held,omitempty"`
}

// StoppedEvent is DAP's stopped event as nlangdbg sends it: Body.Nlang
// says why in nlangdbg's own terms, which the protocol's reasons cannot
// (a safepoint stop travels as "step", a scheduler event as "pause").
type StoppedEvent struct {
	dap.Event
	Body StoppedEventBody `json:"body"`
}

// StoppedEventBody is DAP's stopped event body with Nlang.
type StoppedEventBody struct {
	dap.StoppedEventBody
	Nlang *Stop `json:"nlang,omitempty"`
}

// Stop is why the program stopped.
type Stop struct {
	// Reason is one of the Stop… reasons.
	Reason string `json:"reason"`
	// Back says the stop was reached by going back.
	Back bool `json:"back,omitempty"`
	// Reload: the stop is reported again after reload number Reload
	// (nlang/reload); the program did not move.
	Reload int `json:"reload,omitempty"`
	// Change is the access a data breakpoint stopped at.
	Change *DataChange `json:"change,omitempty"`
	// Held says the stop holds its thread alone: the other threads run
	// on (a breakpoint in mode "thread", non-stop).
	Held bool `json:"held,omitempty"`
	// Recorded says the thread is held by the recording: the session is
	// in the past of its recording, where the debugger held it there.
	Recorded bool `json:"recorded,omitempty"`
}

// The reasons of Stop.
const (
	StopEntry       = "entry"
	StopBreakpoint  = "breakpoint"
	StopFunction    = "function breakpoint"
	StopInstruction = "instruction breakpoint"
	StopData        = "data breakpoint"
	StopStep        = "step"
	StopPause       = "pause"
	StopException   = "exception"
	StopDeadlock    = "deadlock"
	StopSafepoint   = "safepoint"
	StopScheduler   = "scheduler"
	StopDataRace    = "data race"
	StopRestart     = "restart"
	StopGoto        = "goto"
	// StopSchedStep: a quantum ran (CmdSchedStep) and reached no other
	// stop; the threads and stacks have changed.
	StopSchedStep = "scheduler step"
)

// DataChange is the access a data breakpoint stopped at: Name changed
// from Old to New, or (Read) was read holding New.
type DataChange struct {
	Name string `json:"name"`
	Old  string `json:"old,omitempty"`
	New  string `json:"new"`
	Read bool   `json:"read,omitempty"`
}

// String renders the access: "p.x changed from 0 to 1", "p.x read (1)".
func (d DataChange) String() string {
	if d.Read {
		return d.Name + " read (" + d.New + ")"
	}
	return d.Name + " changed from " + d.Old + " to " + d.New
}
