package dap

import (
	"io"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/dap/daptest"
	"github.com/nlangdbg/nlangdbg/inspect"
)

// TestNonStopDeadlock: in a nonStop session main is held at its
// breakpoint while the worker waits on a channel: the console says that
// nothing else can run, and it is no deadlock. The waiting worker is
// paused too (held while parked); main, continued alone, joins it: now
// it is a deadlock, every thread stops, and the report names the worker
// as held by the debugger.
func TestNonStopDeadlock(t *testing.T) {
	runSession(t, "testdata/dap/nonstop_deadlock.n", func(c *daptest.Client, f *fixture) {
		st := expectHeld(t, c)
		if st.Body.ThreadId != 1 || st.Body.Reason != "breakpoint" {
			t.Fatalf("main's breakpoint: %+v", st.Body)
		}
		cons := c.WaitOutput(t, "console", func(s string) bool { return strings.Contains(s, "nothing else can run") })
		if !strings.Contains(cons, `thread 2 "thread-2" waits for chan recv`) {
			t.Errorf("console:\n%s", cons)
		}
		c.PauseRequest(2)
		daptest.ExpectResponse[*dap.PauseResponse](t, c)
		if st := expectHeld(t, c); st.Body.ThreadId != 2 || st.Body.Reason != "pause" {
			t.Fatalf("pause of the worker: %+v", st.Body)
		}
		if top := topFrame(t, c, 2); top.Name != "worker" {
			t.Errorf("the worker is in %s", top.Name)
		}
		continueAlone(t, c, 1)
		dl := c.ExpectStoppedEvent(t)
		if s := c.StopOf(dl); !dl.Body.AllThreadsStopped || s == nil || s.Reason != api.StopDeadlock {
			t.Fatalf("the deadlock: %+v", dl.Body)
		}
		report := c.Output("stderr")
		if !strings.Contains(report, "all threads are asleep - deadlock!") ||
			!strings.Contains(report, `thread 2 "thread-2" [chan recv, held by the debugger]`) {
			t.Errorf("report:\n%s", report)
		}
	}, withLaunch(map[string]any{"nonStop": true}), withBreakpoints("main"))
}

// TestNonStopAttach: attach with "nonStop": true pauses the program as
// ever (every thread); once it runs, a pause of the ticker holds it
// alone, continue with no thread lets every held thread go, and a
// detach lets go the threads it still holds and leaves all-stop.
func TestNonStopAttach(t *testing.T) {
	f := loadFixture(t, "testdata/dap/nonstop_pause.n")
	prog, err := inspect.Launch(inspect.Config{Program: f.Path, Stdout: io.Discard}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(prog.Terminate)
	prog.ConfigurationDone()
	c := startServer(t, NewAttachServer(prog))
	c.Initialize(t)
	c.AttachRequest(map[string]any{"nonStop": true})
	daptest.ExpectResponse[*dap.AttachResponse](t, c)
	if st := c.ExpectStoppedEvent(t); !st.Body.AllThreadsStopped {
		t.Fatalf("attach: %+v", st.Body)
	}
	c.ConfigurationDoneRequest()
	daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
	if !prog.NonStop() {
		t.Fatal("attach with nonStop: the session is not non-stop")
	}
	c.ContinueRequest(1, false)
	daptest.ExpectResponse[*dap.ContinueResponse](t, c)
	pauseTicker := func() {
		t.Helper()
		c.PauseRequest(2)
		daptest.ExpectResponse[*dap.PauseResponse](t, c)
		if st := expectHeld(t, c); st.Body.ThreadId != 2 {
			t.Fatalf("pause: %+v", st.Body)
		}
	}
	pauseTicker()
	c.ContinueRequest(0, false)
	if r := daptest.ExpectResponse[*dap.ContinueResponse](t, c); !r.Body.AllThreadsContinued {
		t.Error("continue with no thread: not allThreadsContinued")
	}
	if h := prog.HeldThreads(); len(h) != 0 {
		t.Errorf("after continue with no thread, held %v", h)
	}
	pauseTicker()
	c.DisconnectRequest(false)
	daptest.ExpectResponse[*dap.DisconnectResponse](t, c)
	if h := prog.HeldThreads(); len(h) != 0 || prog.NonStop() {
		t.Errorf("after detach: held %v, non-stop %v", h, prog.NonStop())
	}
}

// TestNonStopConsole: the debug console's :nonstop reads and sets the
// session's mode (for a client that cannot say a breakpoint's mode):
// turned on, a breakpoint without a mode stops its thread alone.
func TestNonStopConsole(t *testing.T) {
	runSession(t, "testdata/dap/nonstop.n", func(c *daptest.Client, f *fixture) {
		c.ExpectStoppedEvent(t) // entry
		say := func(cmd string) string {
			t.Helper()
			c.EvaluateRequest(cmd, 0, "repl")
			return daptest.ExpectResponse[*dap.EvaluateResponse](t, c).Body.Result
		}
		if r := say(":nonstop"); !strings.HasPrefix(r, "non-stop mode is off") {
			t.Errorf(":nonstop: %q", r)
		}
		if r := say(":nonstop on"); !strings.HasPrefix(r, "non-stop mode is on") {
			t.Errorf(":nonstop on: %q", r)
		}
		c.EvaluateRequest(":nonstop sometimes", 0, "repl")
		if e := c.ExpectErrorResponse(t, "evaluate"); !strings.Contains(e.Message, "want on or off") {
			t.Errorf(":nonstop sometimes: %s", e.Message)
		}
		c.SetBreakpointsRequest(f.Path, f.Line("work"))
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		expectHeld(t, c)
		expectHeld(t, c) // both workers
		if r := say(":nonstop"); r != "non-stop mode is on: a breakpoint that names no mode stops only the thread that reaches it; stopped: 3 4" {
			t.Errorf(":nonstop with the workers stopped: %q", r)
		}
		// the views an editor asks for at a stop answer while the
		// ticker runs (VS Code's Virtual threads view: leaks, scheduler)
		c.CustomRequest(api.CmdLeaks, api.LeaksArgs{})
		var leaks api.LeaksBody
		c.ExpectCustomResponse(t, api.CmdLeaks, &leaks)
		if leaks.Total != 4 || len(leaks.Threads) != 0 {
			t.Errorf("leaks: %+v", leaks)
		}
		c.CustomRequest(api.CmdScheduler, nil)
		c.ExpectCustomResponse(t, api.CmdScheduler, nil)
	}, withLaunch(map[string]any{"stopOnEntry": true}))
}
