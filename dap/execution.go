package dap

import (
	"errors"
	"fmt"
	"time"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/inspect"
)

// errID picks the error id for an error from inspect.
func errID(err error, fallback int) int {
	switch {
	case errors.Is(err, inspect.ErrRunning):
		return errRunning
	case errors.Is(err, inspect.ErrNotRunning):
		return errNotLaunched
	}
	return fallback
}

// resumed forgets what the last stop's handles meant. Every resume the
// client asks for goes through it (the read loop is the only user of the
// handles, so resetting after the resume started is safe).
func (c *session) resumed() {
	c.frames.reset()
	c.indexed = nil
}

// haveProgram answers req with an error unless a program is launched
// (or attached) and has not ended.
func (c *session) haveProgram(req dap.RequestMessage) bool {
	cmd := req.GetRequest().Command
	if c.prog == nil {
		c.sendError(req, errNotLaunched, cmd+": no program (launch or attach first)")
		return false
	}
	c.mu.Lock()
	exited := c.exited
	c.mu.Unlock()
	if exited {
		c.sendError(req, errNotLaunched, cmd+": the program has ended")
		return false
	}
	return true
}

func (c *session) onContinueRequest(req *dap.ContinueRequest) {
	if !c.haveProgram(req) {
		return
	}
	args := req.Arguments
	alone := c.prog.ThreadHeld(int64(args.ThreadId)) // held alone: resumed alone (non-stop)
	if err := c.prog.Continue(int64(args.ThreadId), args.SingleThread); err != nil {
		if errors.Is(err, inspect.ErrNoThread) {
			err = fmt.Errorf("no thread %d", args.ThreadId)
		}
		c.sendError(req, errID(err, errExecution), fmt.Sprintf("continue: %v", err))
		return
	}
	if alone {
		c.resumedThread(int64(args.ThreadId))
	} else {
		c.resumed()
	}
	c.respond(&dap.ContinueResponse{Response: newResponse(req),
		Body: dap.ContinueResponseBody{AllThreadsContinued: !args.SingleThread && !alone}})
}

func (c *session) onNextRequest(req *dap.NextRequest) {
	a := req.Arguments
	if c.step(req, a.ThreadId, inspect.StepOver, a.SingleThread, a.Granularity) {
		c.respond(&dap.NextResponse{Response: newResponse(req)})
	}
}

func (c *session) onStepInRequest(req *dap.StepInRequest) {
	a := req.Arguments
	if a.TargetId != 0 {
		c.stepInto(req) // one call of the line (stepInTargets)
		return
	}
	if c.step(req, a.ThreadId, inspect.StepIn, a.SingleThread, a.Granularity) {
		c.respond(&dap.StepInResponse{Response: newResponse(req)})
	}
}

func (c *session) onStepOutRequest(req *dap.StepOutRequest) {
	a := req.Arguments
	if c.step(req, a.ThreadId, inspect.StepOut, a.SingleThread, a.Granularity) {
		c.respond(&dap.StepOutResponse{Response: newResponse(req)})
	}
}

// stepDrive bounds how long a step runs on the read loop (Drive) before
// the carrier takes over; the requests that come meanwhile wait that
// long at most.
const stepDrive = time.Millisecond

// step starts a step of thread tid by statements or, with granularity
// "instruction", by instructions ("line" and "statement" are the same
// here: a step ends at the next statement). On failure it answers req
// and returns false.
func (c *session) step(req dap.RequestMessage, tid int, kind inspect.StepKind, single bool, gran dap.SteppingGranularity) bool {
	cmd := req.GetRequest().Command
	if !c.haveProgram(req) {
		return false
	}
	stepFn := c.prog.Step
	switch gran {
	case "", "statement", "line":
	case "instruction":
		stepFn = c.prog.StepInstruction
	default:
		c.sendError(req, errBadArguments, fmt.Sprintf("%s: unknown granularity %q (want statement, line or instruction)", cmd, gran))
		return false
	}
	var err error
	run := func() { err = stepFn(int64(tid), kind, single) }
	alone := c.prog.ThreadHeld(int64(tid))
	if sch := c.prog.Scheduler(); sch != nil && !alone {
		// The step's quanta run here, and its stopped event goes out with
		// the response (handle holds the events): no hand-off to the
		// carrier and back.
		sch.Drive(stepDrive, run)
	} else {
		run()
	}
	if err != nil {
		if errors.Is(err, inspect.ErrNoThread) {
			err = fmt.Errorf("no thread %d", tid)
		}
		c.sendError(req, errID(err, errExecution), fmt.Sprintf("%s: %v", cmd, err))
		return false
	}
	if alone {
		c.resumedThread(int64(tid)) // (a thread held alone steps alone)
	} else {
		c.resumed()
	}
	return true
}

func (c *session) onPauseRequest(req *dap.PauseRequest) {
	if !c.haveProgram(req) {
		return
	}
	tid := int64(req.Arguments.ThreadId)
	if err := c.prog.PauseThread(tid); err != nil {
		if errors.Is(err, inspect.ErrNoThread) {
			err = fmt.Errorf("no thread %d", tid)
		}
		c.sendError(req, errID(err, errExecution), fmt.Sprintf("pause: %v", err))
		return
	}
	c.respond(&dap.PauseResponse{Response: newResponse(req)})
}
