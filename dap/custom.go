package dap

// Custom requests: commands in the "nlang/" namespace (package dap/api
// lists them with their arguments and bodies), which go-dap does not
// know. Their responses are ordinary DAP responses. The debug console's
// ':' commands are the same requests, answered in text (console.go).

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/inspect"
)

// errCustom is the error id of a custom request that failed.
const errCustom = 1050

// reqError is an error with its DAP error id.
type reqError struct {
	id  int
	msg string
}

func (e *reqError) Error() string { return e.msg }

// customHandler runs a custom request on its decoded arguments and
// returns its body (api.None for none).
type customHandler func(c *session, args any) (any, error)

// customRequests are the handlers of the custom requests, with the
// types of their arguments.
var customRequests = map[string]struct {
	args func() any // a pointer to new arguments
	run  customHandler
}{}

// custom registers the handler of command, whose arguments are an A.
func custom[A any](command string, run func(c *session, a A) (any, error)) {
	customRequests[command] = struct {
		args func() any
		run  customHandler
	}{
		args: func() any { return new(A) },
		run:  func(c *session, a any) (any, error) { return run(c, a.(A)) },
	}
}

func init() {
	custom(api.CmdScheduler, func(c *session, _ api.None) (any, error) { return c.schedulerBody() })
	custom(api.CmdSchedStep, (*session).schedStep)
	custom(api.CmdSchedNext, func(c *session, a api.ThreadArgs) (any, error) { return api.None{}, c.prog.SchedNext(a.ThreadID) })
	custom(api.CmdQuota, func(c *session, a api.QuotaArgs) (any, error) {
		if a.Quota != nil {
			if err := c.prog.SetQuota(*a.Quota); err != nil {
				return nil, err
			}
		}
		return api.QuotaBody{Quota: c.prog.Quota()}, nil
	})
	custom(api.CmdSchedBreaks, func(c *session, a api.SchedBreaksArgs) (any, error) {
		if a.Kind != "" {
			if err := c.prog.BreakSched(a.Kind, a.Set); err != nil {
				return nil, err
			}
		}
		return api.SchedBreaksBody{Kinds: append([]string{}, c.prog.SchedBreaks()...)}, nil
	})
	custom(api.CmdWaitGraph, func(c *session, _ api.None) (any, error) {
		b, err := c.schedulerBody()
		return b.Graph, err
	})
	custom(api.CmdFreeze, func(c *session, a api.FreezeArgs) (any, error) {
		if a.Frozen {
			return api.None{}, c.prog.Freeze(a.ThreadID)
		}
		return api.None{}, c.prog.Thaw(a.ThreadID)
	})
	custom(api.CmdBreakSafepoint, func(c *session, a api.ThreadArgs) (any, error) {
		return api.None{}, c.prog.BreakSafepoint(a.ThreadID)
	})
	custom(api.CmdThreads, (*session).threadsBody)
	custom(api.CmdThreadGroups, (*session).threadGroups)
	custom(api.CmdLeaks, (*session).leaksBody) // (views.go)
	custom(api.CmdFunctions, func(c *session, a api.FunctionsArgs) (any, error) {
		fns, err := c.prog.Functions(a.Name)
		if err != nil {
			return nil, err
		}
		b := api.FunctionsBody{Functions: []api.Function{}}
		for _, f := range fns {
			b.Functions = append(b.Functions, api.Function{Name: f.Name, Source: c.source(f.File), Line: f.Line})
		}
		return b, nil
	})
	custom(api.CmdDisassemble, (*session).disassembleBody)
	custom(api.CmdBreakpoints, func(c *session, _ api.None) (any, error) {
		b := api.BreakpointsBody{Breakpoints: []api.BreakpointCounts{}}
		for _, bp := range c.prog.Breakpoints() {
			b.Breakpoints = append(b.Breakpoints, api.BreakpointCounts{ID: c.clientBPIDs([]int{bp.ID})[0], Hits: bp.Hits, Ignore: bp.Ignore})
		}
		return b, nil
	})
	custom(api.CmdIgnore, (*session).ignore)
	custom(api.CmdStepBack, func(c *session, a api.StepBackArgs) (any, error) {
		kind, ok := map[string]inspect.StepKind{"over": inspect.StepOver, "in": inspect.StepIn, "out": inspect.StepOut}[a.Kind]
		if !ok {
			return nil, &reqError{errBadArguments, fmt.Sprintf("kind %q: want over, in or out", a.Kind)}
		}
		return api.None{}, c.goBack(func() error { return c.prog.StepBack(a.ThreadID, kind) })
	})
	custom(api.CmdCheckpoint, func(c *session, a api.CheckpointArgs) (any, error) {
		cp, err := c.prog.AddCheckpoint(a.Note)
		return api.Checkpoint{ID: cp.ID, Note: cp.Note, Where: cp.Where}, err
	})
	custom(api.CmdCheckpoints, (*session).checkpointsBody)
	custom(api.CmdGoToCheckpoint, func(c *session, a api.GoToCheckpointArgs) (any, error) {
		return api.None{}, c.goBack(func() error { return c.prog.RestartAt(a.ID) })
	})
	custom(api.CmdDump, func(c *session, a api.DumpArgs) (any, error) { return api.None{}, c.prog.Dump(a.Path) })
	custom(api.CmdWhen, func(c *session, _ api.None) (any, error) {
		w, err := c.prog.When()
		return api.WhenBody{Recording: w.Recording, Replaying: w.Replaying, Offset: w.Offset, Size: w.Size - w.HeaderSize,
			Thread: w.Thread, Reductions: w.Reductions, Forked: w.Forked}, err
	})
}

// customRequest handles content if it is a custom request and reports
// whether it was one. The command is matched once decoded ("nlang\/x",
// as some JSON encoders write it, is "nlang/x").
func (c *session) customRequest(content []byte) bool {
	var head struct {
		Seq       int             `json:"seq"`
		Type      string          `json:"type"`
		Command   string          `json:"command"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(content, &head) != nil || head.Type != "request" {
		return false
	}
	h, ok := customRequests[head.Command]
	if std, isStd := standardRequests[head.Command]; isStd { // go-dap does not know them (locations.go)
		h, ok = std, true
	} else if !strings.HasPrefix(head.Command, "nlang/") {
		return false
	}
	c.curSeq = head.Seq
	c.hold()
	defer c.release()
	defer func() {
		if r := recover(); r != nil {
			c.srv.logf("panic in %s: %v\n%s", head.Command, r, debug.Stack())
			c.sendErrorResponse(head.Seq, head.Command, errInternal, fmt.Sprintf("internal error in %s: %v", head.Command, r))
		}
	}()
	if !ok {
		c.sendErrorResponse(head.Seq, head.Command, errUnsupported, fmt.Sprintf("unsupported command %q", head.Command))
		return true
	}
	args := h.args()
	if len(head.Arguments) > 0 && string(head.Arguments) != "null" {
		if err := json.Unmarshal(head.Arguments, args); err != nil {
			c.sendErrorResponse(head.Seq, head.Command, errBadArguments, fmt.Sprintf("bad arguments for %q: %v", head.Command, err))
			return true
		}
	}
	c.past.seq = head.Seq
	var body any
	var err error
	run := func() { body, err = c.runCustom(head.Command, derefArgs(args)) }
	if stillCustom[head.Command] {
		c.stillRequest(run) // (reads threads that may be held alone: nonstop.go)
	} else {
		run()
	}
	c.past.seq = 0
	if errors.Is(err, inspect.ErrCancelled) {
		c.sendErrorResponse(head.Seq, head.Command, customErrID(err), "cancelled")
		return true
	}
	if err != nil {
		c.sendErrorResponse(head.Seq, head.Command, customErrID(err), head.Command+": "+err.Error())
		return true
	}
	c.respond(&customResponse{Response: dap.Response{
		ProtocolMessage: dap.ProtocolMessage{Type: "response"}, RequestSeq: head.Seq, Command: head.Command, Success: true},
		Body: body})
	return true
}

// stillCustom are the custom requests that read the program's threads:
// while it runs with threads held alone (non-stop), they read them
// between two dispatches.
var stillCustom = map[string]bool{api.CmdScheduler: true, api.CmdWaitGraph: true, api.CmdThreads: true,
	api.CmdThreadGroups: true, api.CmdDisassemble: true, api.CmdLeaks: true, api.CmdNonStop: true}

// derefArgs returns the value a pointer to arguments points to.
func derefArgs(p any) any { return reflect.ValueOf(p).Elem().Interface() }

// runCustom runs the custom request command with arguments args (a
// value of the type it takes) and returns its body.
func (c *session) runCustom(command string, args any) (any, error) {
	h, ok := customRequests[command]
	if !ok {
		h, ok = standardRequests[command]
	}
	if !ok {
		return nil, &reqError{errUnsupported, fmt.Sprintf("unsupported command %q", command)}
	}
	if c.prog == nil {
		return nil, inspect.ErrNotRunning
	}
	return h.run(c, args)
}

// customErrID is the error id of a custom request's error.
func customErrID(err error) int {
	var re *reqError
	if errors.As(err, &re) {
		return re.id
	}
	return errID(err, errCustom)
}

// customResponse is the response to a custom request.
type customResponse struct {
	dap.Response
	Body any `json:"body,omitempty"`
}

// schedStep runs one quantum. If it reached no stop of its own, a
// stopped event (reason api.StopSchedStep) tells the client to fetch
// threads and stacks again.
func (c *session) schedStep(_ api.None) (any, error) {
	c.mu.Lock()
	stops := c.stops
	c.mu.Unlock()
	d, err := c.prog.SchedStep()
	c.resumed() // the frames the client holds may not be where they were
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	stopped := c.stops != stops
	c.mu.Unlock()
	if !stopped {
		c.send(&api.StoppedEvent{Event: newEvent("stopped"), Body: api.StoppedEventBody{
			StoppedEventBody: dap.StoppedEventBody{Reason: "step", Description: "Scheduler step",
				ThreadId: int(c.prog.StoppedThread()), AllThreadsStopped: true, PreserveFocusHint: true},
			Nlang: &api.Stop{Reason: api.StopSchedStep}}})
	}
	b := api.DispatchBody{ThreadID: d.ThreadID, Name: d.Name, Reductions: d.Reductions, Why: d.Why, Woken: d.Woken, Spawned: d.Spawned}
	return b, nil
}

// disassembleBody answers api.CmdDisassemble.
func (c *session) disassembleBody(a api.DisassembleArgs) (any, error) {
	tid, depth := a.ThreadID, a.Depth
	if a.Function == "" && a.FrameID != 0 {
		f, err := c.frame(a.FrameID)
		if err != nil {
			return nil, err
		}
		tid, depth = f.thread, f.depth
	}
	if a.Function == "" && tid == 0 {
		return nil, api.ErrNoThread
	}
	fc, err := c.prog.FunctionCode(a.Function, tid, depth)
	if err != nil {
		return nil, err
	}
	b := api.DisassembleBody{Function: fc.Func, Source: c.source(fc.File), Line: fc.Line, Instructions: []api.Instruction{}}
	for _, in := range fc.Instrs {
		b.Instructions = append(b.Instructions, api.Instruction{PC: in.PC, Line: in.Line, Text: in.Text, Current: in.Current})
	}
	return b, nil
}

// ignore answers api.CmdIgnore (the breakpoint by the client's id).
func (c *session) ignore(a api.IgnoreArgs) (any, error) {
	c.mu.Lock()
	inner := -1
	for in, out := range c.bpIDs {
		if out == a.ID {
			inner = in
		}
	}
	c.mu.Unlock()
	if inner < 0 {
		return nil, fmt.Errorf("ignore: no breakpoint %d", a.ID)
	}
	return api.None{}, c.prog.IgnoreBreakpoint(inner, a.Count)
}

// checkpointsBody answers api.CmdCheckpoints.
func (c *session) checkpointsBody(_ api.None) (any, error) {
	if err := c.prog.NoRecordingReason(); err != nil {
		return nil, err
	}
	b := api.CheckpointsBody{Checkpoints: []api.Checkpoint{}}
	for _, cp := range c.prog.Checkpoints() {
		b.Checkpoints = append(b.Checkpoints, api.Checkpoint{ID: cp.ID, Note: cp.Note, Where: cp.Where})
	}
	if w, err := c.prog.When(); err == nil {
		b.RecordingBytes = w.Size
	}
	st := c.prog.SnapshotStats()
	b.Copies = api.Copies{Kept: st.Kept, Taken: st.Taken, Near: st.Near, Dropped: st.Dropped, Bytes: st.Bytes, Budget: st.Budget,
		IntervalMs: float64(st.Interval) / 1e6, Stopped: st.Stopped, Restores: st.Restores, Spares: st.Spares,
		CatchUps: st.CatchUps, CaughtUp: st.CaughtUp}
	return b, nil
}
