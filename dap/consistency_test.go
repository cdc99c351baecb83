package dap

import (
	"fmt"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

func TestReadOnlyCommandKeepsFrameIDs(t *testing.T) {
	runSession(t, "testdata/dap/threads.n", func(c *daptest.Client, f *fixture) {
		stop := c.ExpectStoppedEvent(t)
		top := topFrame(t, c, stop.Body.ThreadId)
		for _, cmd := range []string{":threads", ":sched", ":funcs", ":breakpoints"} {
			c.EvaluateRequest(cmd, top.Id, "repl")
			daptest.ExpectResponse[*dap.EvaluateResponse](t, c)
		}
		// the frame id the client holds still works
		c.ScopesRequest(top.Id)
		daptest.ExpectResponse[*dap.ScopesResponse](t, c)
		c.EvaluateRequest("id", top.Id, "hover")
		if r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c); r.Body.Result == "" {
			t.Errorf("hover after :threads: %+v", r.Body)
		}
		// a quantum run by :sched step moves threads: the client is told
		// to fetch them again
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		c.EvaluateRequest(":sched step", top.Id, "repl")
		daptest.ExpectResponse[*dap.EvaluateResponse](t, c)
		st := c.ExpectStoppedEvent(t)
		if st.Body.Description != "Scheduler step" || !st.Body.PreserveFocusHint {
			t.Errorf("after :sched step: %+v", st.Body)
		}
		c.ScopesRequest(top.Id)
		c.ExpectErrorResponse(t, "scopes")
	}, withBreakpoints("send"))
}

func TestRestartSendsContinued(t *testing.T) {
	runSession(t, "testdata/dap/steps.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("callwork"))
		c.RestartRequest(nil)
		daptest.ExpectResponse[*dap.RestartResponse](t, c)
		checkStop(t, c, 1, "main", f.Line("callwork"))
		// between the restart and the new stop: the old threads continued
		var cont *dap.ContinuedEvent
		restarted := false
		for _, m := range c.Transcript() {
			switch m := m.(type) {
			case *dap.RestartResponse:
				restarted = true
			case *dap.ContinuedEvent:
				if restarted {
					cont = m
				}
			}
		}
		if cont == nil || !cont.Body.AllThreadsContinued || cont.Body.ThreadId != 1 {
			t.Errorf("no continued event for thread 1 after the restart: %+v", cont)
		}
	}, withBreakpoints("callwork"))
}

func TestThreadsWhileRunningAreCurrent(t *testing.T) {
	for _, carriers := range []int{1, 2} {
		t.Run(fmt.Sprintf("carriers=%d", carriers), func(t *testing.T) { threadsWhileRunning(t, carriers) })
	}
}

func threadsWhileRunning(t *testing.T, carriers int) {
	runSession(t, "testdata/dap/rename.n", func(c *daptest.Client, f *fixture) {
		for !strings.Contains(c.ExpectOutputEvent(t, "stdout").Body.Output, "renamed") {
		}
		c.ThreadsRequest()
		r := daptest.ExpectResponse[*dap.ThreadsResponse](t, c)
		names := map[int]string{}
		for _, th := range r.Body.Threads {
			names[th.Id] = th.Name
		}
		if !strings.HasPrefix(names[2], "[2] spinner · spin") || !strings.HasPrefix(names[1], "[1] main · main") {
			t.Errorf("threads while running: %v", names)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withLaunch(map[string]any{"carriers": carriers}))
}

func TestSetBreakpointsKeepsIdentityAndHits(t *testing.T) {
	runSession(t, "testdata/dap/threads.n", func(c *daptest.Client, f *fixture) {
		first := c.ExpectStoppedEvent(t)
		id := first.Body.HitBreakpointIds[0]
		c.ContinueRequest(first.Body.ThreadId, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		c.ExpectStoppedEvent(t)
		// the client toggles another breakpoint: it sends the whole list
		c.SetBreakpointsRequest(f.Path, f.Line("send"), 16)
		r := daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		if r.Body.Breakpoints[0].Id != id {
			t.Fatalf("breakpoint id %d became %d", id, r.Body.Breakpoints[0].Id)
		}
		c.EvaluateRequest(":breakpoints", 0, "repl")
		ev := daptest.ExpectResponse[*dap.EvaluateResponse](t, c)
		if !strings.Contains(ev.Body.Result, "hits 2") {
			t.Errorf(":breakpoints = %q, want the 2 hits kept", ev.Body.Result)
		}
		c.EvaluateRequest(":ignore 1 x", 0, "repl")
		c.ExpectErrorResponse(t, "evaluate")
		c.DisconnectRequest(true)
		daptest.ExpectResponse[*dap.DisconnectResponse](t, c)
	}, withBreakpoints("send"))
}
