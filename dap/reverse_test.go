package dap

import (
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// locals returns the values of the locals of thread tid's top frame.
func locals(t *testing.T, c *daptest.Client, tid int) map[string]string {
	t.Helper()
	top := topFrame(t, c, tid)
	out := map[string]string{}
	for _, v := range variables(t, c, scopes(t, c, top.Id)["Locals"].VariablesReference) {
		out[v.Name] = v.Value
	}
	return out
}

func stepBack(t *testing.T, c *daptest.Client, tid int) {
	t.Helper()
	c.StepBackRequest(tid)
	daptest.ExpectResponse[*dap.StepBackResponse](t, c)
}

func next(t *testing.T, c *daptest.Client, tid int) {
	t.Helper()
	c.NextRequest(tid, false)
	daptest.ExpectResponse[*dap.NextResponse](t, c)
}

// TestStepBackThreeLines: step over three lines, step back three times
// (the locals are the old values), step forward again (the same values).
func TestStepBackThreeLines(t *testing.T) {
	runSession(t, "testdata/dap/back.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("a"))
		lines := []int{f.Line("a"), f.Line("b"), f.Line("c"), f.Line("d")}
		want := []string{"", "1", "2", "20"}
		for i := 1; i < 4; i++ {
			next(t, c, 1)
			checkStop(t, c, 1, "main", lines[i])
			if got := locals(t, c, 1)["a"]; got != want[i] {
				t.Fatalf("forward to line %d: a = %q, want %s", lines[i], got, want[i])
			}
		}
		for i := 2; i >= 1; i-- {
			stepBack(t, c, 1)
			stop, _ := checkStop(t, c, 1, "main", lines[i])
			if stop.Body.Reason != "step" {
				t.Fatalf("step back: reason %q", stop.Body.Reason)
			}
			if got := locals(t, c, 1)["a"]; got != want[i] {
				t.Fatalf("back at line %d: a = %q, want %s", lines[i], got, want[i])
			}
		}
		stepBack(t, c, 1)
		checkStop(t, c, 1, "main", lines[0])
		for i := 1; i < 4; i++ {
			next(t, c, 1)
			checkStop(t, c, 1, "main", lines[i])
			if got := locals(t, c, 1)["a"]; got != want[i] {
				t.Fatalf("forward again to line %d: a = %q, want %s", lines[i], got, want[i])
			}
		}
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		continueToExit(t, c, 1, 0)
		if out := c.Output("stdout"); out != "56\n" {
			t.Fatalf("stdout %q, want the program's one line once", out)
		}
	}, withBreakpoints("a"))
}

// TestStepBackOverParkedRecv: stepping back over a recv that parked stays
// on main's thread, and the sender's thread shows its state of that
// moment (it had not run yet).
func TestStepBackOverParkedRecv(t *testing.T) {
	runSession(t, "testdata/dap/back.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("recv"))
		next(t, c, 1)
		checkStop(t, c, 1, "main", f.Line("recv2"))
		if got := locals(t, c, 1)["got"]; got != "0" {
			t.Fatalf("after the recv: got = %s", got)
		}
		if top := topFrame(t, c, 2); top.Line != f.Line("send") {
			t.Fatalf("the producer is at line %d, want its send (%d)", top.Line, f.Line("send"))
		}
		stepBack(t, c, 1)
		checkStop(t, c, 1, "main", f.Line("recv"))
		if top := topFrame(t, c, 2); top.Line != f.Line("prodstart") {
			t.Fatalf("in the past the producer is at line %d, want its first line (%d): it has not run", top.Line, f.Line("prodstart"))
		}
		c.ThreadsRequest()
		th := daptest.ExpectResponse[*dap.ThreadsResponse](t, c)
		if len(th.Body.Threads) != 2 {
			t.Fatalf("threads in the past: %+v", th.Body.Threads)
		}
	}, withBreakpoints("recv"))
}

// TestReverseContinueInLoop: reverse continue goes to the previous hit of
// a breakpoint inside a loop, with i one less.
func TestReverseContinueInLoop(t *testing.T) {
	runSession(t, "testdata/dap/back.n", func(c *daptest.Client, f *fixture) {
		for i := 0; i < 3; i++ {
			if i > 0 {
				c.ContinueRequest(1, false)
				daptest.ExpectResponse[*dap.ContinueResponse](t, c)
			}
			checkStop(t, c, 1, "main", f.Line("loop"))
		}
		if got := locals(t, c, 1)["i"]; got != "2" {
			t.Fatalf("third hit: i = %s", got)
		}
		c.ReverseContinueRequest(1)
		daptest.ExpectResponse[*dap.ReverseContinueResponse](t, c)
		stop, _ := checkStop(t, c, 1, "main", f.Line("loop"))
		if stop.Body.Reason != "breakpoint" || len(stop.Body.HitBreakpointIds) != 1 {
			t.Fatalf("reverse continue: %+v", stop.Body)
		}
		if got := locals(t, c, 1)["i"]; got != "1" {
			t.Fatalf("after reverse continue: i = %s, want 1", got)
		}
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		checkStop(t, c, 1, "main", f.Line("loop"))
		if got := locals(t, c, 1)["i"]; got != "2" {
			t.Fatalf("forward again: i = %s, want 2", got)
		}
	}, withBreakpoints("loop"))
}

// TestStepBackNeedsOneCarrier: with several carriers the session does not
// record, and stepBack says why.
func TestStepBackNeedsOneCarrier(t *testing.T) {
	runSession(t, "testdata/dap/back.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 0, "main", f.Line("a"))
		c.StepBackRequest(1)
		r := c.ExpectErrorResponse(t, "stepBack")
		if want := "stepBack: going back needs a recording: a session records only with one carrier, and this one runs with 2"; r.Message != want {
			t.Fatalf("error %q, want %q", r.Message, want)
		}
	}, withBreakpoints("a"), withLaunch(map[string]any{"carriers": 2}))
}

// TestLaunchReplayBadFile: the launch argument "replay" names a recording;
// a file that is not one is refused with the reason.
func TestLaunchReplayBadFile(t *testing.T) {
	f := loadFixture(t, "testdata/dap/back.n")
	c := startServer(t, nil)
	c.Initialize(t)
	c.LaunchRequest(map[string]any{"replay": f.Path})
	r := c.ExpectErrorResponse(t, "launch")
	if want := "bad recording: not an nlangdbg recording"; !strings.Contains(r.Message, want) {
		t.Fatalf("error %q, want it to say %q", r.Message, want)
	}
}

// TestReverseContinueToTheSend is the producer/consumer case: stopped in
// the consumer after a recv, a breakpoint on the producer's send (with
// the condition that it sends the value received) and a reverse continue
// go to the send that delivered the value, on the producer's thread.
func TestReverseContinueToTheSend(t *testing.T) {
	runSession(t, "testdata/dap/back.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("recv"))
		next(t, c, 1)
		checkStop(t, c, 1, "main", f.Line("recv2"))
		next(t, c, 1)
		checkStop(t, c, 1, "main", f.Line("recv2")+1)
		got := locals(t, c, 1)["got"]
		if got != "10" {
			t.Fatalf("got = %s after two recvs", got)
		}
		c.SetSourceBreakpointsRequest(f.Path, dap.SourceBreakpoint{Line: f.Line("send"), Condition: "i * 10 == 10"})
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		c.ReverseContinueRequest(1)
		daptest.ExpectResponse[*dap.ReverseContinueResponse](t, c)
		stop, _ := checkStop(t, c, 2, "producer", f.Line("send"))
		if stop.Body.Reason != "breakpoint" {
			t.Fatalf("stop %+v", stop.Body)
		}
		if i := locals(t, c, 2)["i"]; i != "1" {
			t.Fatalf("the producer's i = %s, want 1 (it sends 10)", i)
		}
		// main is where it was at that moment: waiting in its first recv
		// or before its second.
		if top := topFrame(t, c, 1); top.Line != f.Line("recv") && top.Line != f.Line("recv2") {
			t.Fatalf("main at line %d", top.Line)
		}
	}, withBreakpoints("recv"))
}
