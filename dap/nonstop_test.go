package dap

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// TestBreakpointModesCapability: the initialize response offers the two
// modes, "all" (the default) first, for every kind of breakpoint.
func TestBreakpointModesCapability(t *testing.T) {
	a, b := net.Pipe()
	go (&Server{}).ServeConn(b)
	defer a.Close()
	dap.WriteProtocolMessage(a, &dap.InitializeRequest{Request: dap.Request{ProtocolMessage: dap.ProtocolMessage{Seq: 1, Type: "request"}, Command: "initialize"},
		Arguments: dap.InitializeRequestArguments{AdapterID: "nlang", PathFormat: "path"}})
	content, err := dap.ReadBaseMessage(bufio.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Body struct {
			BreakpointModes  []breakpointMode `json:"breakpointModes"`
			SupportsStepBack bool             `json:"supportsStepBack"`
		} `json:"body"`
	}
	if err := json.Unmarshal(content, &resp); err != nil {
		t.Fatal(err)
	}
	m := resp.Body.BreakpointModes
	if len(m) != 2 || m[0].Mode != "all" || m[1].Mode != "thread" || !resp.Body.SupportsStepBack {
		t.Fatalf("breakpointModes %+v in %s", m, content)
	}
	if got := strings.Join(m[1].AppliesTo, " "); got != "source function exception data instruction" {
		t.Errorf("appliesTo %q", got)
	}
}

// tickCount counts the ticker's lines in out.
func tickCount(out string) int { return strings.Count(out, "tick ") }

// expectHeld expects a stop that holds its thread alone (non-stop).
func expectHeld(t *testing.T, c *daptest.Client) *dap.StoppedEvent {
	t.Helper()
	st := c.ExpectStoppedEvent(t)
	if st.Body.AllThreadsStopped {
		t.Fatalf("stop %+v stops every thread, want its thread alone", st.Body)
	}
	if s := c.StopOf(st); s == nil || !s.Held {
		t.Fatalf("stop %+v: nlang %+v, want held", st.Body, s)
	}
	return st
}

// TestNonStopThreadModeBreakpoint: a breakpoint in mode "thread" holds
// each worker that reaches it while the ticker keeps printing; the held
// one is read (stack, scopes, variables, evaluate) and changed
// (setVariable) while the ticker runs; the two held at once resume one
// by one, one of them with a step; an "all" breakpoint in main then stops
// every thread, and continue resumes them all. On one carrier and four.
func TestNonStopThreadModeBreakpoint(t *testing.T) {
	for _, carriers := range []int{1, 4} {
		t.Run(fmt.Sprint(carriers, " carriers"), func(t *testing.T) {
			runSession(t, "testdata/dap/nonstop.n", func(c *daptest.Client, f *fixture) {
				first := expectHeld(t, c)
				second := expectHeld(t, c)
				n := tickCount(c.Output("stdout"))
				c.WaitOutput(t, "stdout", func(s string) bool { return tickCount(s) > n+20 })
				// the threads list: the held workers are stopped
				c.ThreadsRequest()
				ths := daptest.ExpectResponse[*dap.ThreadsResponse](t, c)
				for _, th := range ths.Body.Threads {
					held := th.Id == first.Body.ThreadId || th.Id == second.Body.ThreadId
					if held != strings.HasSuffix(th.Name, "· stopped") {
						t.Errorf("thread %q (held %v)", th.Name, held)
					}
				}
				top := topFrame(t, c, first.Body.ThreadId)
				if top.Name != "work" || top.Line != f.Line("work") {
					t.Fatalf("held at %s:%d", top.Name, top.Line)
				}
				locals := scopes(t, c, top.Id)["Locals"]
				acc := variables(t, c, locals.VariablesReference)["acc"]
				if acc.Value != "10" && acc.Value != "20" {
					t.Fatalf("acc = %s", acc.Value)
				}
				if r := evaluate(t, c, "acc * 2", top.Id); r != fmt.Sprint(2*atoi(t, acc.Value)) {
					t.Errorf("acc * 2 = %s", r)
				}
				c.SetVariableRequest(locals.VariablesReference, "acc", "41")
				if r := daptest.ExpectResponse[*dap.SetVariableResponse](t, c); r.Body.Value != "41" {
					t.Errorf("set: %s", r.Body.Value)
				}
				n = tickCount(c.Output("stdout"))
				c.WaitOutput(t, "stdout", func(s string) bool { return tickCount(s) > n+20 })
				// the first resumes alone
				c.ContinueRequest(first.Body.ThreadId, false)
				if r := daptest.ExpectResponse[*dap.ContinueResponse](t, c); r.Body.AllThreadsContinued {
					t.Error("continue of a held thread: allThreadsContinued")
				}
				// its frames are gone; the second's are still valid
				c.NextRequest(second.Body.ThreadId, false)
				daptest.ExpectResponse[*dap.NextResponse](t, c)
				st := expectHeld(t, c)
				if st.Body.ThreadId != second.Body.ThreadId || st.Body.Reason != "step" {
					t.Fatalf("after next: %+v", st.Body)
				}
				if top := topFrame(t, c, st.Body.ThreadId); top.Line != f.Line("next") {
					t.Fatalf("next ended at line %d", top.Line)
				}
				c.ContinueRequest(second.Body.ThreadId, false)
				daptest.ExpectResponse[*dap.ContinueResponse](t, c)
				all := c.ExpectStoppedEvent(t)
				if !all.Body.AllThreadsStopped || all.Body.ThreadId != 1 {
					t.Fatalf("the all-mode breakpoint: %+v", all.Body)
				}
				continueToExit(t, c, 1, 0)
				want := "results 43 22"
				if first.Body.ThreadId == 4 {
					want = "results 12 43"
				}
				if out := c.Output("stdout"); !strings.Contains(out, want) || !strings.Contains(out, "ticker done") {
					t.Errorf("output ends %q, want %q", out[max(0, len(out)-60):], want)
				}
			}, withLaunch(map[string]any{"carriers": carriers}), withSetup(func(c *daptest.Client, f *fixture) {
				c.SetModeBreakpointsRequest(f.Path,
					daptest.ModeBreakpoint{SourceBreakpoint: dap.SourceBreakpoint{Line: f.Line("work")}, Mode: "thread"},
					daptest.ModeBreakpoint{SourceBreakpoint: dap.SourceBreakpoint{Line: f.Line("main")}, Mode: "all"})
				r := daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
				if len(r.Body.Breakpoints) != 2 || !r.Body.Breakpoints[0].Verified || !r.Body.Breakpoints[1].Verified {
					t.Fatalf("breakpoints %+v", r.Body.Breakpoints)
				}
			}))
		})
	}
}

func atoi(t *testing.T, s string) int {
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}

// TestNonStopLaunchPause: launched with "nonStop": true, a pause with a
// threadId pauses that thread alone; main, which joins it, waits as
// usual, and the console says that nothing else can run while the
// debugger holds it. Its variable set, it goes on alone and ends. A
// breakpoint with an unknown mode is refused.
func TestNonStopLaunchPause(t *testing.T) {
	runSession(t, "testdata/dap/nonstop_pause.n", func(c *daptest.Client, f *fixture) {
		c.WaitOutput(t, "stdout", func(s string) bool { return tickCount(s) > 5 })
		c.PauseRequest(2)
		daptest.ExpectResponse[*dap.PauseResponse](t, c)
		st := expectHeld(t, c)
		if st.Body.ThreadId != 2 || st.Body.Reason != "pause" {
			t.Fatalf("pause: %+v", st.Body)
		}
		c.WaitOutput(t, "console", func(s string) bool { return strings.Contains(s, "nothing else can run") })
		if out := c.Output("console"); !strings.Contains(out, `thread 1 "main" waits for join thread-2, held by thread 2 "thread-2" (stopped by the debugger)`) {
			t.Errorf("console:\n%s", out)
		}
		// main is not stopped: its stack cannot be read
		c.StackTraceRequest(1, 0, 1)
		if e := c.ExpectErrorResponse(t, "stackTrace"); !strings.Contains(e.Message, "thread 1 is running") {
			t.Errorf("stack of main: %s", e.Message)
		}
		top := topFrame(t, c, 2)
		locals := scopes(t, c, top.Id)["Locals"]
		c.SetVariableRequest(locals.VariablesReference, "n", "100000000")
		daptest.ExpectResponse[*dap.SetVariableResponse](t, c)
		continueToExit(t, c, 2, 0)
		if out := c.Output("stdout"); !strings.Contains(out, "ticker done at 100000000\njoined") {
			t.Errorf("output ends %q", out[max(0, len(out)-60):])
		}
	}, withLaunch(map[string]any{"nonStop": true}), withSetup(func(c *daptest.Client, f *fixture) {
		c.SetModeBreakpointsRequest(f.Path, daptest.ModeBreakpoint{SourceBreakpoint: dap.SourceBreakpoint{Line: 9}, Mode: "sometimes"})
		r := daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		if b := r.Body.Breakpoints[0]; b.Verified || !strings.Contains(b.Message, `unknown breakpoint mode "sometimes"`) {
			t.Errorf("breakpoint %+v", b)
		}
	}))
}

// TestNonStopStepBackAndDump: going back from a held worker stops every
// thread first (the console says so) and goes to its previous statement;
// forward again, the recording holds it there again. A dump of the
// session then opens at its moment: the re-execution makes the holds
// and releases of the recording again, exactly.
func TestNonStopStepBackAndDump(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "nonstop.dump")
	runSession(t, "testdata/dap/nonstop.n", func(c *daptest.Client, f *fixture) {
		first := expectHeld(t, c)
		second := expectHeld(t, c)
		n := tickCount(c.Output("stdout"))
		c.WaitOutput(t, "stdout", func(s string) bool { return tickCount(s) > n+20 })
		c.StepBackRequest(first.Body.ThreadId)
		daptest.ExpectResponse[*dap.StepBackResponse](t, c)
		var back *dap.StoppedEvent
		for back = c.ExpectStoppedEvent(t); !c.StopOf(back).Back; back = c.ExpectStoppedEvent(t) {
			if !back.Body.AllThreadsStopped {
				t.Fatalf("before going back: %+v", back.Body)
			}
		}
		if !back.Body.AllThreadsStopped || back.Body.ThreadId != first.Body.ThreadId {
			t.Fatalf("step back: %+v", back.Body)
		}
		if top := topFrame(t, c, first.Body.ThreadId); top.Line != f.Line("work")-1 {
			t.Fatalf("stepped back to line %d", top.Line)
		}
		if !strings.Contains(c.Output("console"), "going back stops every thread") {
			t.Errorf("console:\n%s", c.Output("console"))
		}
		// forward: the worker is held at its breakpoint again
		c.ContinueRequest(first.Body.ThreadId, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		seen := map[int]bool{}
		for len(seen) < 2 { // both workers, the one stepped back too
			seen[expectHeld(t, c).Body.ThreadId] = true
		}
		// one worker goes on, then main stops every thread at its
		// breakpoint (mode all), and the present is dumped
		c.ContinueRequest(first.Body.ThreadId, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		c.NextRequest(second.Body.ThreadId, false)
		daptest.ExpectResponse[*dap.NextResponse](t, c)
		if st := expectHeld(t, c); st.Body.ThreadId != second.Body.ThreadId {
			t.Fatalf("next: %+v", st.Body)
		}
		c.ContinueRequest(second.Body.ThreadId, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		if st := c.ExpectStoppedEvent(t); !st.Body.AllThreadsStopped || st.Body.ThreadId != 1 {
			t.Fatalf("main's breakpoint: %+v", st.Body)
		}
		c.CustomRequest(api.CmdDump, api.DumpArgs{Path: dump})
		c.ExpectCustomResponse(t, api.CmdDump, nil)
	}, withSetup(func(c *daptest.Client, f *fixture) {
		c.SetModeBreakpointsRequest(f.Path, daptest.ModeBreakpoint{SourceBreakpoint: dap.SourceBreakpoint{Line: f.Line("work")}, Mode: "thread"},
			daptest.ModeBreakpoint{SourceBreakpoint: dap.SourceBreakpoint{Line: f.Line("main")}})
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	}))
	// the dump opens at its moment: the re-execution makes the holds and
	// releases of the recording again, exactly, up to main's breakpoint
	runSession(t, "testdata/dap/nonstop.n", func(c *daptest.Client, f *fixture) {
		st := c.ExpectStoppedEvent(t)
		if !st.Body.AllThreadsStopped || st.Body.ThreadId != 1 {
			t.Fatalf("the dump's moment: %+v", st.Body)
		}
		if top := topFrame(t, c, 1); top.Line != f.Line("main") {
			t.Errorf("the dump's moment: main at line %d", top.Line)
		}
		if strings.Contains(c.Output("console"), "cannot reach") {
			t.Errorf("console:\n%s", c.Output("console"))
		}
		c.CustomRequest(api.CmdWhen, nil)
		var when api.WhenBody
		c.ExpectCustomResponse(t, api.CmdWhen, &when)
		if when.Forked != "" {
			t.Errorf("the re-execution diverged: %s", when.Forked)
		}
		continueToExit(t, c, 1, 0)
	}, withLaunch(map[string]any{"replay": dump}))
}
