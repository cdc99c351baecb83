package dap

import (
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

func TestStepOverWhileAnotherThreadRuns(t *testing.T) {
	// A tiny quota makes the spinner run between main's statements.
	runSession(t, "testdata/dap/steps.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("callwork"))
		c.NextRequest(1, false)
		daptest.ExpectResponse[*dap.NextResponse](t, c)
		stop, _ := checkStop(t, c, 1, "main", f.Line("after"))
		if stop.Body.Reason != "step" {
			t.Errorf("stop %+v", stop.Body)
		}
		// The spinner (thread 2) ran during the step.
		spin := topFrame(t, c, 2)
		c.EvaluateRequest("i > 0", spin.Id, "watch")
		if r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c); r.Body.Result != "true" {
			t.Errorf("the spinner did not run during the step: i > 0 is %s", r.Body.Result)
		}
		continueToExit(t, c, 1, 0)
		if got := c.Output("stdout"); got != "12\nspinner done\n" {
			t.Errorf("stdout %q", got)
		}
	}, withLaunch(map[string]any{"quota": 1}), withBreakpoints("callwork"))
}

func TestStepInAndOut(t *testing.T) {
	runSession(t, "testdata/dap/steps.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("callwork"))
		c.StepInRequest(1)
		daptest.ExpectResponse[*dap.StepInResponse](t, c)
		checkStop(t, c, 1, "work", f.Line("work"))
		c.NextRequest(1, false)
		daptest.ExpectResponse[*dap.NextResponse](t, c)
		checkStop(t, c, 1, "work", f.Line("work2"))
		c.StepOutRequest(1)
		daptest.ExpectResponse[*dap.StepOutResponse](t, c)
		// Back in main right after the return, on the call's line, with
		// what work returned in Locals
		stop, top := checkStop(t, c, 1, "main", f.Line("callwork"))
		if stop.Body.Reason != "step" || stop.Body.Text != "work returned 12" {
			t.Errorf("after stepOut: %+v", stop.Body)
		}
		sc := scopes(t, c, top.Id)
		if h := sc["Return value"].PresentationHint; h != "returnValue" {
			t.Errorf("the return value's scope: hint %q, want returnValue", h)
		}
		locals := variables(t, c, sc["Return value"].VariablesReference)
		if rv, ok := locals["Return value"]; !ok || rv.Value != "12" || rv.Type != "int" {
			t.Errorf("the Return value scope after stepOut: %+v, want Return value int 12", locals)
		}
		c.NextRequest(1, false)
		daptest.ExpectResponse[*dap.NextResponse](t, c)
		checkStop(t, c, 1, "main", f.Line("after"))
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("callwork"))
}

func TestSingleThreadContinue(t *testing.T) {
	runSession(t, "testdata/dap/steps.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("callwork"))
		c.ContinueRequest(1, true)
		r := daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		if r.Body.AllThreadsContinued {
			t.Errorf("singleThread continue says all threads continued")
		}
		// Only main runs: it reaches the next breakpoint before the
		// spinner, which stays frozen, prints anything.
		checkStop(t, c, 1, "main", f.Line("after"))
		if strings.Contains(c.Output("stdout"), "spinner") {
			t.Errorf("the spinner ran during a single-thread continue")
		}
		c.ContinueRequest(1, false)
		if r := daptest.ExpectResponse[*dap.ContinueResponse](t, c); !r.Body.AllThreadsContinued {
			t.Errorf("continue says not all threads continued")
		}
		expectExit(t, c, 0)
	}, withLaunch(map[string]any{"quota": 1}), withBreakpoints("callwork", "after"))
}

func TestPauseBusyLoop(t *testing.T) {
	runSession(t, "testdata/dap/busy.n", func(c *daptest.Client, f *fixture) {
		// Once it prints, the program is about to loop.
		if o := c.ExpectOutputEvent(t, "stdout"); o.Body.Output != "looping\n" {
			t.Fatalf("output %q", o.Body.Output)
		}
		c.PauseRequest(1)
		daptest.ExpectResponse[*dap.PauseResponse](t, c)
		stop := c.ExpectStoppedEvent(t)
		if stop.Body.Reason != "pause" || stop.Body.ThreadId != 1 {
			t.Errorf("stop %+v", stop.Body)
		}
		top := topFrame(t, c, 1)
		if top.Name != "main" || top.Line < f.Line("start") || top.Line > f.Line("body") {
			t.Errorf("paused in %s at %d, want main's loop", top.Name, top.Line)
		}
		// Pausing a stopped program is fine.
		c.PauseRequest(1)
		daptest.ExpectResponse[*dap.PauseResponse](t, c)
		// End the loop by setting its flag, then let it finish.
		sc := scopes(t, c, top.Id)
		c.SetVariableRequest(sc["Locals"].VariablesReference, "done", "true")
		daptest.ExpectResponse[*dap.SetVariableResponse](t, c)
		continueToExit(t, c, 1, 3)
	})
}

func TestStopOnEntryAndTerminate(t *testing.T) {
	runSession(t, "testdata/dap/output.n", func(c *daptest.Client, f *fixture) {
		stop, _ := checkStop(t, c, 1, "main", f.Line("first"))
		if stop.Body.Reason != "entry" {
			t.Errorf("stop %+v", stop.Body)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
		c.ExpectExitedEvent(t)
		c.ExpectTerminatedEvent(t)
		if got := c.Output("stdout"); got != "" {
			t.Errorf("stdout %q after terminating at entry", got)
		}
		c.DisconnectRequest(false)
		daptest.ExpectResponse[*dap.DisconnectResponse](t, c)
		c.ExpectClosed(t)
	}, withLaunch(map[string]any{"stopOnEntry": true}))
}

func TestRestart(t *testing.T) {
	runSession(t, "testdata/dap/basic.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("print"))
		c.RestartRequest(nil)
		daptest.ExpectResponse[*dap.RestartResponse](t, c)
		// The new run stops at the same breakpoint, set again, with
		// nothing printed by the old one.
		checkStop(t, c, 1, "main", f.Line("print"))
		if got := c.Output("stdout"); got != "" {
			t.Errorf("stdout %q", got)
		}
		continueToExit(t, c, 1, 0)
		if got := c.Output("stdout"); got != "total 5\nsum 7 first 10\n" {
			t.Errorf("stdout %q", got)
		}
	}, withBreakpoints("print"))
}

func TestNoDebugRunsWithoutStopping(t *testing.T) {
	runSession(t, "testdata/dap/basic.n", func(c *daptest.Client, f *fixture) {
		expectExit(t, c, 0)
	}, withLaunch(map[string]any{"noDebug": true, "stopOnEntry": true}), withSetup(func(c *daptest.Client, f *fixture) {
		c.SetBreakpointsRequest(f.Path, f.Line("loop"))
		r := daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		if r.Body.Breakpoints[0].Verified {
			t.Errorf("a breakpoint is verified under noDebug")
		}
	}))
}
