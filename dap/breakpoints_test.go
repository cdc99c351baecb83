package dap

import (
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

func TestBreakpointMovesToNextCodeLine(t *testing.T) {
	runSession(t, "testdata/dap/basic.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("after_blank"))
		continueToExit(t, c, 1, 0)
	}, withSetup(func(c *daptest.Client, f *fixture) {
		c.SetBreakpointsRequest(f.Path, f.Line("blank"))
		r := daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		if len(r.Body.Breakpoints) != 1 {
			t.Fatalf("got %d breakpoints, want 1", len(r.Body.Breakpoints))
		}
		b := r.Body.Breakpoints[0]
		if !b.Verified || b.Line != f.Line("after_blank") || b.Id == 0 {
			t.Errorf("breakpoint at a line without code: %+v, want it verified at line %d", b, f.Line("after_blank"))
		}
		if b.Source == nil || b.Source.Path != f.Path {
			t.Errorf("breakpoint source %+v, want %s", b.Source, f.Path)
		}
	}))
}

func TestBreakpointsBeforeLaunchAndClearing(t *testing.T) {
	f := loadFixture(t, "testdata/dap/basic.n")
	c := startServer(t, nil)
	c.Initialize(t)
	// Before launch the breakpoint is recorded, not verified.
	c.SetBreakpointsRequest(f.Path, f.Line("loop"))
	r := daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	if len(r.Body.Breakpoints) != 1 || r.Body.Breakpoints[0].Verified {
		t.Fatalf("breakpoint before launch: %+v", r.Body.Breakpoints)
	}
	c.LaunchRequest(map[string]any{"program": f.Path})
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
	checkStop(t, c, 1, "main", f.Line("loop"))
	// Clearing the file's breakpoints: an empty list, never null.
	c.SetBreakpointsRequest(f.Path)
	cleared := daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	if cleared.Body.Breakpoints == nil || len(cleared.Body.Breakpoints) != 0 {
		t.Errorf("cleared breakpoints: %#v", cleared.Body.Breakpoints)
	}
	continueToExit(t, c, 1, 0)
}

func TestConditionalBreakpointInSpawnedThread(t *testing.T) {
	runSession(t, "testdata/dap/threads.n", func(c *daptest.Client, f *fixture) {
		// Thread ids: main 1, a 2, b ("beta") 3.
		stop, _ := checkStop(t, c, 3, "worker", f.Line("send"))
		if stop.Body.Reason != "breakpoint" || len(stop.Body.HitBreakpointIds) != 1 || !stop.Body.AllThreadsStopped {
			t.Errorf("stop %+v", stop.Body)
		}
		frame := topFrame(t, c, 3)
		c.EvaluateRequest("i", frame.Id, "watch")
		if r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c); r.Body.Result != "3" {
			t.Errorf("i = %s, want 3", r.Body.Result)
		}
		// The threads list names the threads and their state.
		c.ThreadsRequest()
		th := daptest.ExpectResponse[*dap.ThreadsResponse](t, c)
		names := map[int]string{}
		for _, x := range th.Body.Threads {
			names[x.Id] = x.Name
		}
		if len(names) < 2 {
			t.Fatalf("threads %+v, want main and beta at least", th.Body.Threads)
		}
		if want := "[1] main · main · "; !strings.HasPrefix(names[1], want) {
			t.Errorf("thread 1 is %q, want %q…", names[1], want)
		}
		if want := "[3] beta · worker · "; !strings.HasPrefix(names[3], want) {
			t.Errorf("thread 3 is %q, want %q…", names[3], want)
		}
		if n, ok := names[2]; ok && !strings.HasPrefix(n, "[2] thread-2 · worker · ") {
			t.Errorf("thread 2 is %q, want [2] thread-2 · worker · …", n) // if it has not ended yet
		}
		continueToExit(t, c, 3, 0)
		if got := c.Output("stdout"); got != "1520\n" {
			t.Errorf("stdout %q", got)
		}
	}, withSetup(func(c *daptest.Client, f *fixture) {
		c.SetSourceBreakpointsRequest(f.Path, dap.SourceBreakpoint{Line: f.Line("send"), Condition: "id == 2 && i == 3"})
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	}))
}

func TestHitConditionAndLogPoint(t *testing.T) {
	runSession(t, "testdata/dap/basic.n", func(c *daptest.Client, f *fixture) {
		_, frame := checkStop(t, c, 1, "square", f.Line("square"))
		c.EvaluateRequest("n", frame.Id, "hover")
		if r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c); r.Body.Result != "2" {
			t.Errorf("n = %s on the 3rd hit, want 2", r.Body.Result)
		}
		continueToExit(t, c, 1, 0)
		if got, want := c.Output("console"), "total is 0\ntotal is 0\ntotal is 1\n"; !strings.Contains(got, want) {
			t.Errorf("logpoint output %q, want %q", got, want)
		}
	}, withSetup(func(c *daptest.Client, f *fixture) {
		c.SetSourceBreakpointsRequest(f.Path,
			dap.SourceBreakpoint{Line: f.Line("loop"), LogMessage: "total is {total}"},
			dap.SourceBreakpoint{Line: f.Line("square"), HitCondition: "3"})
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	}))
}

func TestFunctionBreakpoint(t *testing.T) {
	runSession(t, "testdata/dap/basic.n", func(c *daptest.Client, f *fixture) {
		stop, _ := checkStop(t, c, 1, "Point.sum", f.Line("sum"))
		if stop.Body.Reason != "function breakpoint" || len(stop.Body.HitBreakpointIds) != 1 {
			t.Errorf("stop %+v", stop.Body)
		}
		continueToExit(t, c, 1, 0)
	}, withSetup(func(c *daptest.Client, f *fixture) {
		c.SetFunctionBreakpointsRequest("Point.sum", "noSuchFunction")
		r := daptest.ExpectResponse[*dap.SetFunctionBreakpointsResponse](t, c)
		if len(r.Body.Breakpoints) != 2 {
			t.Fatalf("breakpoints %+v", r.Body.Breakpoints)
		}
		if b := r.Body.Breakpoints[0]; !b.Verified || b.Line != f.Line("sum") || b.Source == nil || b.Source.Path != f.Path {
			t.Errorf("Point.sum: %+v", b)
		}
		if b := r.Body.Breakpoints[1]; b.Verified || b.Message == "" {
			t.Errorf("noSuchFunction: %+v", b)
		}
	}))
}

func TestUncaughtExceptionBreakpoint(t *testing.T) {
	runSession(t, "testdata/dap/exception.n", func(c *daptest.Client, f *fixture) {
		// The first exception is caught: no stop there.
		stop, _ := checkStop(t, c, 1, "load", f.Line("throw"))
		if stop.Body.Reason != "exception" || !strings.Contains(stop.Body.Text, "missing b") {
			t.Errorf("stop %+v", stop.Body)
		}
		if !strings.Contains(c.Output("stdout"), "caught") {
			t.Errorf("stdout %q: the caught exception did not run its handler first", c.Output("stdout"))
		}
		c.ExceptionInfoRequest(1)
		info := daptest.ExpectResponse[*dap.ExceptionInfoResponse](t, c)
		b := info.Body
		if b.ExceptionId != "ConfigError" || b.Description != "missing b" || b.BreakMode != "unhandled" {
			t.Errorf("exceptionInfo %+v", b)
		}
		if b.Details == nil || !strings.Contains(b.Details.StackTrace, "load") {
			t.Errorf("exceptionInfo details %+v", b.Details)
		}
		// A thread that is not stopped on an exception has none.
		c.ExceptionInfoRequest(99)
		c.ExpectErrorResponse(t, "exceptionInfo")
		continueToExit(t, c, 1, 1)
		if !strings.Contains(c.Output("stderr"), "ConfigError: missing b") {
			t.Errorf("stderr %q", c.Output("stderr"))
		}
	}, withSetup(func(c *daptest.Client, f *fixture) {
		c.SetExceptionBreakpointsRequest("uncaught")
		daptest.ExpectResponse[*dap.SetExceptionBreakpointsResponse](t, c)
	}))
}

func TestAllExceptionsBreakpoint(t *testing.T) {
	runSession(t, "testdata/dap/exception.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "load", f.Line("throw"))
		c.ExceptionInfoRequest(1)
		info := daptest.ExpectResponse[*dap.ExceptionInfoResponse](t, c)
		if info.Body.Description != "missing a" || info.Body.BreakMode != "always" {
			t.Errorf("exceptionInfo %+v", info.Body)
		}
		c.SetExceptionBreakpointsRequest()
		daptest.ExpectResponse[*dap.SetExceptionBreakpointsResponse](t, c)
		continueToExit(t, c, 1, 1)
	}, withSetup(func(c *daptest.Client, f *fixture) {
		c.SetExceptionBreakpointsRequest("all")
		daptest.ExpectResponse[*dap.SetExceptionBreakpointsResponse](t, c)
	}))
}

func TestDeadlockStopsWithReport(t *testing.T) {
	runSession(t, "testdata/dap/deadlock.n", func(c *daptest.Client, f *fixture) {
		stop, _ := checkStop(t, c, 1, "main", f.Line("recv"))
		b := stop.Body
		if b.Reason != "exception" || b.Description != "Deadlock" {
			t.Errorf("stop %+v", b)
		}
		if !strings.Contains(b.Text, "fatal: all threads are asleep - deadlock!") || !strings.Contains(b.Text, "chan recv") {
			t.Errorf("stop text %q, want the deadlock report", b.Text)
		}
		if !strings.Contains(c.Output("stderr"), `thread 1 "main" [chan recv]`) {
			t.Errorf("stderr %q, want the report", c.Output("stderr"))
		}
		c.ExceptionInfoRequest(1)
		info := daptest.ExpectResponse[*dap.ExceptionInfoResponse](t, c)
		if info.Body.ExceptionId != "Deadlock" || !strings.Contains(info.Body.Description, "chan recv") {
			t.Errorf("exceptionInfo %+v", info.Body)
		}
		continueToExit(t, c, 1, 2)
	})
}

func TestBreakpointSetWhileRunning(t *testing.T) {
	runSession(t, "testdata/dap/busy.n", func(c *daptest.Client, f *fixture) {
		c.SetBreakpointsRequest(f.Path, f.Line("body"))
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		_, top := checkStop(t, c, 1, "main", f.Line("body"))
		sc := scopes(t, c, top.Id)
		c.SetVariableRequest(sc["Locals"].VariablesReference, "done", "true")
		daptest.ExpectResponse[*dap.SetVariableResponse](t, c)
		finishWithout(t, c, f.Path, 3, "looping\ndone\n")
	})
}
