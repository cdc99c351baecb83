package dap

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// launchWith starts a session whose client declares caps (JSON fields of
// InitializeRequestArguments), launches the fixture with breakpoints at
// markers and sends configurationDone.
func launchWith(t *testing.T, rel, caps string, markers ...string) (*daptest.Client, *fixture) {
	t.Helper()
	f := loadFixture(t, rel)
	c := startServer(t, nil)
	initializeWith(t, c, caps)
	c.LaunchRequest(map[string]any{"program": f.Path})
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
	if len(markers) > 0 {
		var lines []int
		for _, m := range markers {
			lines = append(lines, f.Line(m))
		}
		c.SetBreakpointsRequest(f.Path, lines...)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	}
	c.ConfigurationDoneRequest()
	daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
	return c, f
}

// reasonsOf reads the breakpoints' reasons (DAP 1.64) from a message as
// read.
func reasonsOf(t *testing.T, c *daptest.Client, m dap.Message) []string {
	t.Helper()
	var r struct {
		Body struct {
			Breakpoints []struct {
				Reason string `json:"reason"`
			} `json:"breakpoints"`
			Breakpoint *struct {
				Reason string `json:"reason"`
			} `json:"breakpoint"`
		} `json:"body"`
	}
	if err := json.Unmarshal(c.Raw(m), &r); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range r.Body.Breakpoints {
		out = append(out, b.Reason)
	}
	if b := r.Body.Breakpoint; b != nil {
		out = append(out, b.Reason)
	}
	return out
}

// TestBreakpointReason: an unverified breakpoint says why (DAP 1.64):
// pending before the launch, failed where no code can ever stop.
func TestBreakpointReason(t *testing.T) {
	f := loadFixture(t, "testdata/dap/steps.n")
	c := startServer(t, nil)
	c.Initialize(t)
	c.SetBreakpointsRequest(f.Path, f.Line("work"))
	r := daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	if got := reasonsOf(t, c, r); len(got) != 1 || got[0] != "pending" {
		t.Errorf("before launch: reasons %q, want pending", got)
	}
	c.LaunchRequest(map[string]any{"program": f.Path})
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
	ev := daptest.Expect[*dap.BreakpointEvent](t, c)
	if got := reasonsOf(t, c, ev); !ev.Body.Breakpoint.Verified || len(got) != 1 || got[0] != "" {
		t.Errorf("placed at launch: %+v, reasons %q", ev.Body, got)
	}
	c.SetBreakpointsRequest(f.Path, f.Line("work"), 9999)
	r = daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	if got := reasonsOf(t, c, r); len(got) != 2 || got[0] != "" || got[1] != "failed" {
		t.Errorf("after launch: reasons %q, want \"\" and failed", got)
	}
	c.SetFunctionBreakpointsRequest("nosuch")
	fr := daptest.ExpectResponse[*dap.SetFunctionBreakpointsResponse](t, c)
	if got := reasonsOf(t, c, fr); len(got) != 1 || got[0] != "failed" {
		t.Errorf("no such function: reasons %q", got)
	}
}

// TestANSIStyling: the server supports ANSI styles (DAP 1.69) and uses
// them only for a client that does too: string values in green, the
// debugger's notes in yellow.
func TestANSIStyling(t *testing.T) {
	for _, ansi := range []bool{false, true} {
		caps := ""
		if ansi {
			caps = `,"supportsANSIStyling":true`
		}
		f := loadFixture(t, "testdata/dap/steps.n")
		c := startServer(t, nil)
		initResp := func() *dap.InitializeResponse {
			c.SendRaw(`{"seq":1000,"type":"request","command":"initialize","arguments":{"adapterID":"nlangdbg","pathFormat":"path","linesStartAt1":true,"columnsStartAt1":true` + caps + `}}`)
			r := daptest.ExpectResponse[*dap.InitializeResponse](t, c)
			c.ExpectInitializedEvent(t)
			return r
		}()
		var adv struct {
			Body struct {
				SupportsANSIStyling bool `json:"supportsANSIStyling"`
			} `json:"body"`
		}
		json.Unmarshal(c.Raw(initResp), &adv)
		if !adv.Body.SupportsANSIStyling {
			t.Errorf("supportsANSIStyling not advertised")
		}
		c.LaunchRequest(map[string]any{"program": f.Path})
		daptest.ExpectResponse[*dap.LaunchResponse](t, c)
		c.SetBreakpointsRequest(f.Path, f.Line("work"))
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		c.ConfigurationDoneRequest()
		daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
		_, top := checkStop(t, c, 1, "work", f.Line("work"))
		got := evaluate(t, c, `"hi"`, top.Id)
		want := `"hi"`
		if ansi {
			want = "\x1b[32m\"hi\"\x1b[0m"
		}
		if got != want {
			t.Errorf("ansi %v: \"hi\" shows as %q, want %q", ansi, got, want)
		}
		if got := evaluate(t, c, "a + 1", top.Id); got != "6" {
			t.Errorf("ansi %v: a number shows as %q", ansi, got)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}
}

// TestInvalidatedEvents: a client that supports the invalidated event is
// told what it fetched is stale after setVariable (another variable may
// alias the object), goto and restartFrame (a thread moved) and going
// back (everything); one that does not is not.
func TestInvalidatedEvents(t *testing.T) {
	c, f := launchWith(t, "testdata/dap/steps.n", `,"supportsInvalidatedEvent":true`, "work2")
	_, top := checkStop(t, c, 1, "work", f.Line("work2"))
	invalidated := func(what string, areas ...string) {
		t.Helper()
		m := daptest.Expect[*dap.InvalidatedEvent](t, c)
		var got []string
		for _, a := range m.Body.Areas {
			got = append(got, string(a))
		}
		if strings.Join(got, ",") != strings.Join(areas, ",") {
			t.Errorf("%s: invalidated %v, want %v", what, got, areas)
		}
	}
	stepBack(t, c, 1)
	c.ExpectStoppedEvent(t)
	invalidated("stepBack", "all")
	if top = topFrame(t, c, 1); top.Line != f.Line("work") {
		t.Fatalf("after stepBack at line %d", top.Line)
	}
	c.SetVariableRequest(scopes(t, c, top.Id)["Arguments"].VariablesReference, "a", "41")
	daptest.ExpectResponse[*dap.SetVariableResponse](t, c)
	invalidated("setVariable", "variables")
	c.RestartFrameRequest(top.Id)
	daptest.ExpectResponse[*dap.RestartFrameResponse](t, c)
	c.ExpectStoppedEvent(t)
	invalidated("restartFrame", "stacks", "variables")

	c2, f2 := launchWith(t, "testdata/dap/steps.n", "", "work2")
	_, top2 := checkStop(t, c2, 1, "work", f2.Line("work2"))
	c2.SetVariableRequest(scopes(t, c2, top2.Id)["Locals"].VariablesReference, "b", "41")
	daptest.ExpectResponse[*dap.SetVariableResponse](t, c2)
	c2.StackTraceRequest(1, 0, 1)
	daptest.ExpectResponse[*dap.StackTraceResponse](t, c2)
	for _, m := range c2.Transcript() {
		if _, ok := m.(*dap.InvalidatedEvent); ok {
			t.Errorf("an invalidated event for a client that does not support it")
		}
	}
}

// TestEvaluateAtSourcePosition: an evaluate with line and source (DAP
// 1.67) runs in the frame whose function is at that line — a hover over
// the caller's code while the callee's frame is selected.
func TestEvaluateAtSourcePosition(t *testing.T) {
	c, f := launchWith(t, "testdata/dap/steps.n", "", "work2")
	_, top := checkStop(t, c, 1, "work", f.Line("work2"))
	at := func(expr string, line int) string {
		t.Helper()
		c.SendRaw(fmt.Sprintf(`{"seq":3000,"type":"request","command":"evaluate","arguments":{"expression":%q,"frameId":%d,"context":"hover","line":%d,"column":5,"source":{"path":%q}}}`,
			expr, top.Id, line, f.Path))
		return daptest.ExpectResponse[*dap.EvaluateResponse](t, c).Body.Result
	}
	// t is main's local (the spinner thread), not work's
	if got := at("t.name()", f.Line("callwork")); !strings.Contains(got, "thread-2") {
		t.Errorf("t at main's line: %q", got)
	}
	if got := at("a", f.Line("work")); got != "5" {
		t.Errorf("a at work's line: %q", got)
	}
}

// TestProgressAndCancel: a long request reports progress (here from the
// start: progressDelay 0), and a cancel naming its progress id cancels
// it; going back reports progress too.
func TestProgressAndCancel(t *testing.T) {
	saved := progressDelay
	progressDelay = 0
	defer func() { progressDelay = saved }()
	c, f := launchWith(t, "testdata/dap/slow.n", `,"supportsProgressReporting":true`, "start")
	_, top := checkStop(t, c, 1, "main", f.Line("start"))
	eval := c.EvaluateRequest("slow(20)", top.Id, "repl")
	start := daptest.Expect[*dap.ProgressStartEvent](t, c)
	if start.Body.RequestId != eval || !start.Body.Cancellable || start.Body.Title != "Evaluating" {
		t.Fatalf("progressStart %+v", start.Body)
	}
	c.Send(&dap.CancelRequest{Request: dap.Request{Command: "cancel"}, Arguments: &dap.CancelArguments{ProgressId: start.Body.ProgressId}})
	sawEnd := false
	for done := 0; done < 2; {
		switch m := c.Next(t).(type) {
		case *dap.ErrorResponse:
			if m.Command != "evaluate" || m.Message != "cancelled" {
				t.Fatalf("%+v", m.Response)
			}
			done++
		case *dap.CancelResponse:
			done++
		case *dap.ProgressEndEvent:
			sawEnd = m.Body.ProgressId == start.Body.ProgressId
		}
	}
	if !sawEnd {
		end := daptest.Expect[*dap.ProgressEndEvent](t, c)
		sawEnd = end.Body.ProgressId == start.Body.ProgressId
	}
	if !sawEnd {
		t.Errorf("no progressEnd for %s", start.Body.ProgressId)
	}
	next(t, c, 1)
	checkStop(t, c, 1, "main", f.Line("start")+1)
	rc := c.ReverseContinueRequest(1)
	if start := daptest.Expect[*dap.ProgressStartEvent](t, c); start.Body.RequestId != rc || start.Body.Title != "Going back" {
		t.Errorf("reverseContinue's progressStart %+v", start.Body)
	}
	daptest.Expect[*dap.ProgressEndEvent](t, c)
}
