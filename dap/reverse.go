package dap

import (
	"errors"
	"fmt"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/inspect"
)

// Going back (capability supportsStepBack): a one-carrier session records
// its run, and stepBack and reverseContinue re-execute it up to an
// earlier moment (see inspect/reverse.go). The stopped event follows the
// response.

func (c *session) onStepBackRequest(req *dap.StepBackRequest) {
	a := req.Arguments
	kind := inspect.StepOver
	switch a.Granularity {
	case "instruction":
		kind = inspect.StepIn
	}
	if c.goBackRequest(req, func() error { return c.prog.StepBack(int64(a.ThreadId), kind) }) {
		c.respond(&dap.StepBackResponse{Response: newResponse(req)})
	}
}

func (c *session) onReverseContinueRequest(req *dap.ReverseContinueRequest) {
	a := req.Arguments
	if c.goBackRequest(req, func() error { return c.prog.ReverseContinue(int64(a.ThreadId)) }) {
		c.respond(&dap.ReverseContinueResponse{Response: newResponse(req)})
	}
}

// goBackRequest runs a going-back request. On failure it answers req and
// returns false.
func (c *session) goBackRequest(req dap.RequestMessage, do func() error) bool {
	cmd := req.GetRequest().Command
	if !c.haveProgram(req) {
		return false
	}
	if err := c.goBack(do); err != nil {
		if errors.Is(err, inspect.ErrCancelled) {
			c.sendCancelled(req)
			return false
		}
		c.sendError(req, customErrID(err), fmt.Sprintf("%s: %v", cmd, err))
		return false
	}
	return true
}

// goBack moves the program to another moment of its recording with do
// (the stop there follows as an event).
func (c *session) goBack(do func() error) error {
	if err := c.prog.NoRecordingReason(); err != nil {
		return &reqError{errExecution, err.Error()}
	}
	c.resumed()
	if err := c.longRequest("Going back", do); err != nil {
		if errors.Is(err, inspect.ErrCancelled) {
			return err
		}
		if errors.Is(err, inspect.ErrNoThread) {
			err = fmt.Errorf("no such thread")
		}
		return &reqError{errID(err, errExecution), err.Error()}
	}
	c.invalidate(0, "all") // another moment: every thread, stack and value
	return nil
}
