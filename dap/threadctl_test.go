package dap

import (
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// stack returns the frames of a thread.
func stack(t *testing.T, c *daptest.Client, tid int) []dap.StackFrame {
	t.Helper()
	c.StackTraceRequest(tid, 0, 0)
	return daptest.ExpectResponse[*dap.StackTraceResponse](t, c).Body.StackFrames
}

// evaluate evaluates expr in a frame and returns the result.
func evaluate(t *testing.T, c *daptest.Client, expr string, frameID int) string {
	t.Helper()
	c.EvaluateRequest(expr, frameID, "watch")
	return daptest.ExpectResponse[*dap.EvaluateResponse](t, c).Body.Result
}

// gotoLine moves thread 1 to the first target of a line; it returns the
// error message ("" on success, after the goto stop).
func gotoLine(t *testing.T, c *daptest.Client, f *fixture, line int) string {
	t.Helper()
	c.GotoTargetsRequest(f.Path, line)
	targets := daptest.ExpectResponse[*dap.GotoTargetsResponse](t, c).Body.Targets
	if len(targets) == 0 || targets[0].Line != line {
		t.Fatalf("gotoTargets line %d: %+v", line, targets)
	}
	c.GotoRequest(1, targets[0].Id)
	switch m := daptest.Expect[dap.ResponseMessage](t, c).(type) {
	case *dap.GotoResponse:
		stop := c.ExpectStoppedEvent(t)
		if stop.Body.Reason != "goto" || stop.Body.ThreadId != 1 {
			t.Fatalf("after goto: %+v", stop.Body)
		}
		return ""
	case *dap.ErrorResponse:
		return m.Message
	default:
		t.Fatalf("goto: %s", daptest.Describe(m))
	}
	return ""
}

func TestRestartFrame(t *testing.T) {
	runSession(t, "testdata/dap/threadctl.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "count", f.Line("countr"))
		frames := stack(t, c, 1)
		c.RestartFrameRequest(frames[0].Id)
		daptest.ExpectResponse[*dap.RestartFrameResponse](t, c)
		stop := c.ExpectStoppedEvent(t)
		top := topFrame(t, c, 1)
		if stop.Body.Reason != "restart" || top.Name != "count" || top.Line != f.Line("count") {
			t.Fatalf("after restartFrame: %+v in %s line %d", stop.Body, top.Name, top.Line)
		}
		// the arguments it was called with; the side effect stays done
		if k, n := evaluate(t, c, "k", top.Id), evaluate(t, c, "b.n", top.Id); k != "4" || n != "1" {
			t.Errorf("after the restart: k = %s, b.n = %s, want 4 and 1", k, n)
		}
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		_, top = checkStop(t, c, 1, "count", f.Line("countr"))
		if n := evaluate(t, c, "b.n", top.Id); n != "2" {
			t.Errorf("the body ran twice: b.n = %s, want 2", n)
		}
		// a function that assigns a parameter restarts with the argument
		// it was called with (the copy its entry keeps), not the value
		// the parameter has now
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		_, top = checkStop(t, c, 1, "dec", f.Line("dec"))
		c.NextRequest(1, false)
		daptest.ExpectResponse[*dap.NextResponse](t, c)
		_, top = checkStop(t, c, 1, "dec", f.Line("dec")+1)
		if n := evaluate(t, c, "n", top.Id); n != "2" {
			t.Errorf("before the restart: n = %s, want 2", n)
		}
		c.RestartFrameRequest(top.Id)
		daptest.ExpectResponse[*dap.RestartFrameResponse](t, c)
		c.ExpectStoppedEvent(t)
		top = topFrame(t, c, 1)
		if n := evaluate(t, c, "n", top.Id); top.Line != f.Line("dec") || n != "3" {
			t.Errorf("after the restart of dec: line %d, n = %s, want line %d and n = 3", top.Line, n, f.Line("dec"))
		}
		c.RestartFrameRequest(99999)
		c.ExpectErrorResponse(t, "restartFrame")
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
		if out := c.Output("stdout"); !strings.Contains(out, "x 40 n 2") {
			t.Errorf("stdout %q, want x 40 n 2 (count ran twice)", out)
		}
	}, withBreakpoints("countr", "dec"))
}

func TestGoto(t *testing.T) {
	runSession(t, "testdata/dap/threadctl.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("y"))
		// forward over y's declaration: y would be garbage
		if msg := gotoLine(t, c, f, f.Line("printy")); !strings.Contains(msg, "y would be used before being set") {
			t.Errorf("goto over a declaration: %q", msg)
		}
		// into another function
		if msg := gotoLine(t, c, f, f.Line("count")); !strings.Contains(msg, "goto moves within the current function") {
			t.Errorf("goto into count: %q", msg)
		}
		c.NextRequest(1, false)
		daptest.ExpectResponse[*dap.NextResponse](t, c)
		checkStop(t, c, 1, "main", f.Line("y2"))
		// skip the increment
		if msg := gotoLine(t, c, f, f.Line("printy")); msg != "" {
			t.Fatalf("goto over y = y + 1: %s", msg)
		}
		if top := topFrame(t, c, 1); top.Line != f.Line("printy") {
			t.Errorf("after goto: line %d, want %d", top.Line, f.Line("printy"))
		}
		// and back: line y runs again
		if msg := gotoLine(t, c, f, f.Line("y")); msg != "" {
			t.Fatalf("goto back to y: %s", msg)
		}
		c.NextRequest(1, false)
		daptest.ExpectResponse[*dap.NextResponse](t, c)
		checkStop(t, c, 1, "main", f.Line("y2"))
		if msg := gotoLine(t, c, f, f.Line("printy")); msg != "" {
			t.Fatalf("goto over y = y + 1: %s", msg)
		}
		c.GotoRequest(1, 12345)
		c.ExpectErrorResponse(t, "goto")
		c.GotoTargetsRequest(f.Path, 1)
		c.ExpectErrorResponse(t, "gotoTargets")
		c.SetBreakpointsRequest(f.Path, f.Line("parked"))
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		checkStop(t, c, 1, "main", f.Line("parked"))
		if out := c.Output("stdout"); !strings.Contains(out, "y 1\n") {
			t.Errorf("stdout %q, want y 1 (the increment skipped)", out)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("y"))
}

func TestTerminateThreads(t *testing.T) {
	runSession(t, "testdata/dap/threadctl.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("parked"))
		// the worker holds the mutex main is about to lock, and waits in
		// recv inside a try with a catch (Exception) and a finally
		if top := topFrame(t, c, 2); top.Name != "worker" || top.Line != f.Line("wrecv") {
			t.Fatalf("thread 2 at %s line %d", top.Name, top.Line)
		}
		// a frame parked in a native cannot be restarted
		c.RestartFrameRequest(topFrame(t, c, 3).Id)
		if e := c.ExpectErrorResponse(t, "restartFrame"); !strings.Contains(e.Message, "parked in a native call (chan recv)") {
			t.Errorf("restart of a parked frame: %q", e.Message)
		}
		c.TerminateThreadsRequest(2, 99)
		if e := c.ExpectErrorResponse(t, "terminateThreads"); !strings.Contains(e.Message, "no thread 99") {
			t.Errorf("terminateThreads 2 99: %q", e.Message)
		}
		c.TerminateThreadsRequest(2, 3)
		daptest.ExpectResponse[*dap.TerminateThreadsResponse](t, c)
		c.SetExceptionBreakpointsRequest("all") // a termination is no exception stop
		daptest.ExpectResponse[*dap.SetExceptionBreakpointsResponse](t, c)
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		// main gets the lock the worker's finally released, the future
		// throws, the join returns
		stop := c.ExpectStoppedEvent(t)
		if stop.Body.Reason != "exception" || !strings.Contains(stop.Body.Text, "IllegalStateException") {
			t.Fatalf("stop %+v, want the future's IllegalStateException (all exceptions)", stop.Body)
		}
		c.SetExceptionBreakpointsRequest()
		daptest.ExpectResponse[*dap.SetExceptionBreakpointsResponse](t, c)
		continueToExit(t, c, 1, 0)
		out := c.Output("stdout")
		for _, want := range []string{"worker finally\n", "main locked\n",
			"future: thread 3 \"thread-3\" was terminated before it computed the future\n", "joined\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("stdout lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "worker caught") || strings.Contains(c.Output("stderr"), "Exception in thread") {
			t.Errorf("the termination was caught or reported:\nstdout %s\nstderr %s", out, c.Output("stderr"))
		}
	}, withBreakpoints("parked"))
}

// TestThreadControlAtADeadlockIsRefused: at a deadlock stop the run is
// over (continuing exits 2 whatever changed), so terminating a thread,
// moving one or restarting a frame is refused with the reason rather
// than answered with a success that changes nothing.
func TestThreadControlAtADeadlockIsRefused(t *testing.T) {
	runSession(t, "testdata/dap/deadlock.n", func(c *daptest.Client, f *fixture) {
		if stop := c.ExpectStoppedEvent(t); stop.Body.Description != "Deadlock" {
			t.Fatalf("stop %+v, want the deadlock", stop.Body)
		}
		c.TerminateThreadsRequest(1)
		if e := c.ExpectErrorResponse(t, "terminateThreads"); !strings.Contains(e.Message, "cannot terminate threads: the program has deadlocked: its run is over") {
			t.Errorf("terminateThreads at a deadlock: %q", e.Message)
		}
		c.RestartFrameRequest(topFrame(t, c, 1).Id)
		if e := c.ExpectErrorResponse(t, "restartFrame"); !strings.Contains(e.Message, "deadlocked") {
			t.Errorf("restartFrame at a deadlock: %q", e.Message)
		}
		continueToExit(t, c, 1, 2)
	})
}
