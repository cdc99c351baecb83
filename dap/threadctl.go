package dap

import (
	"errors"
	"fmt"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/inspect"
)

// Error ids of the thread-control requests.
const (
	errTerminateThreads = 1060
	errRestartFrame     = 1061
	errGoto             = 1062
)

// onTerminateThreadsRequest ends the chosen threads: each unwinds
// through its finally blocks when the program resumes (see
// inspect.Session.TerminateThreads and docs/dap.md).
func (c *session) onTerminateThreadsRequest(req *dap.TerminateThreadsRequest) {
	if !c.haveProgram(req) {
		return
	}
	var ids []int64
	for _, id := range req.Arguments.ThreadIds {
		ids = append(ids, int64(id))
	}
	if len(ids) == 0 {
		c.sendError(req, errBadArguments, "terminateThreads: no threadIds")
		return
	}
	if err := c.prog.TerminateThreads(ids); err != nil {
		c.sendError(req, errID(err, errTerminateThreads), "terminateThreads: "+err.Error())
		return
	}
	c.resumed() // the stacks changed: the old frame ids mean nothing
	c.respond(&dap.TerminateThreadsResponse{Response: newResponse(req)})
}

// onRestartFrameRequest re-enters a frame's function from its first
// line; the stop (reason restart) follows the response.
func (c *session) onRestartFrameRequest(req *dap.RestartFrameRequest) {
	if !c.haveProgram(req) {
		return
	}
	f, err := c.frame(req.Arguments.FrameId)
	if err != nil {
		c.sendError(req, errRestartFrame, "restartFrame: "+err.Error())
		return
	}
	if err := c.prog.RestartFrame(f.thread, f.depth); err != nil {
		c.sendError(req, errID(err, errRestartFrame), "restartFrame: "+err.Error())
		return
	}
	c.resumed()
	c.respond(&dap.RestartFrameResponse{Response: newResponse(req)})
	c.invalidate(int(f.thread), "stacks", "variables")
}

// onGotoTargetsRequest lists the statement starts of a line.
func (c *session) onGotoTargetsRequest(req *dap.GotoTargetsRequest) {
	if !c.haveProgram(req) {
		return
	}
	a := req.Arguments
	if a.Source.Path == "" {
		c.sendError(req, errBadArguments, "gotoTargets: source.path is missing")
		return
	}
	list, err := c.prog.GotoTargets(a.Source.Path, a.Line)
	if err != nil {
		c.sendError(req, errGoto, "gotoTargets: "+err.Error())
		return
	}
	out := make([]dap.GotoTarget, 0, len(list))
	for _, g := range list {
		out = append(out, dap.GotoTarget{Id: g.ID, Label: g.Label, Line: g.Line, Column: g.Col})
	}
	c.respond(&dap.GotoTargetsResponse{Response: newResponse(req), Body: dap.GotoTargetsResponseBody{Targets: out}})
}

// onGotoRequest moves a thread to a target; the stop (reason goto)
// follows the response.
func (c *session) onGotoRequest(req *dap.GotoRequest) {
	if !c.haveProgram(req) {
		return
	}
	a := req.Arguments
	if err := c.prog.Goto(int64(a.ThreadId), a.TargetId); err != nil {
		if errors.Is(err, inspect.ErrNoThread) {
			err = fmt.Errorf("no thread %d", a.ThreadId)
		}
		c.sendError(req, errID(err, errGoto), "goto: "+err.Error())
		return
	}
	c.resumed()
	c.respond(&dap.GotoResponse{Response: newResponse(req)})
	c.invalidate(a.ThreadId, "stacks", "variables")
}
