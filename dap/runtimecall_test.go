package dap

import (
	"testing"
	"time"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// TestBreakpointInRuntimeToString: a breakpoint in a toString that the
// runtime calls while converting a List fires; the stack shows the
// toString above a native "string conversion" frame (no source) above
// main, and the toString's fields are visible.
func TestBreakpointInRuntimeToString(t *testing.T) {
	runSession(t, "testdata/dap/tostring.n", func(c *daptest.Client, f *fixture) {
		stop := c.ExpectStoppedEvent(t)
		c.StackTraceRequest(stop.Body.ThreadId, 0, 0)
		st := daptest.ExpectResponse[*dap.StackTraceResponse](t, c).Body.StackFrames
		if len(st) != 3 || st[0].Name != "P.toString" || st[0].Line != f.Line("ts") ||
			st[1].Name != "string conversion" || st[1].Source != nil || st[1].PresentationHint != "subtle" ||
			st[2].Name != "main" || st[2].Line != f.Line("fmt") {
			t.Fatalf("stack %+v", st)
		}
		c.EvaluateRequest("this.n", st[0].Id, "watch")
		if r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c); r.Body.Result != "1" {
			t.Errorf("this.n = %q", r.Body.Result)
		}
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		if o := c.ExpectOutputEvent(t, "stdout"); o.Body.Output != "l = [P1, P2]\n" {
			t.Errorf("output %q", o.Body.Output)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("ts"))
}

// TestStepInFromFormattingLine: step in from a line that converts a List
// to a string enters the elements' toString.
func TestStepInFromFormattingLine(t *testing.T) {
	runSession(t, "testdata/dap/tostring.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("fmt"))
		c.StepInRequest(1)
		daptest.ExpectResponse[*dap.StepInResponse](t, c)
		checkStop(t, c, 1, "P.toString", f.Line("ts"))
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("fmt"))
}

// TestPauseAndTerminateInEndlessToString: while a runtime-called
// toString spins (another thread runs too), pause and terminate are
// answered at once, and the pause stops the thread it names.
func TestPauseAndTerminateInEndlessToString(t *testing.T) {
	runSession(t, "testdata/dap/tostring.n", func(c *daptest.Client, f *fixture) {
		for c.ExpectOutputEvent(t, "stdout").Body.Output != "spinning\n" {
		}
		// The toString never ends: a pause or terminate that waited for it
		// would never be answered. Pause until main is inside it.
		for try := 0; ; try++ {
			c.PauseRequest(1)
			daptest.ExpectResponse[*dap.PauseResponse](t, c)
			stop := c.ExpectStoppedEvent(t)
			if stop.Body.Reason != "pause" || stop.Body.ThreadId != 1 {
				t.Fatalf("stop %+v", stop.Body)
			}
			top := topFrame(t, c, 1)
			if top.Name == "Spin.toString" {
				break
			}
			if try == 100 {
				t.Fatalf("paused in %s, never in Spin.toString", top.Name)
			}
			c.ContinueRequest(1, false)
			daptest.ExpectResponse[*dap.ContinueResponse](t, c)
			time.Sleep(10 * time.Millisecond)
		}
		// pause names thread 2: the stop is about it
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		c.PauseRequest(2)
		daptest.ExpectResponse[*dap.PauseResponse](t, c)
		if stop := c.ExpectStoppedEvent(t); stop.Body.ThreadId != 2 {
			t.Errorf("pause of thread 2 stopped %d", stop.Body.ThreadId)
		}
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
		expectExit(t, c, 137)
	})
}
