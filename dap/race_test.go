package dap

import (
	"path/filepath"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
	"github.com/nlangdbg/nlangdbg/inspect"
	"github.com/nlangdbg/nlangdbg/sched/explore"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// TestRaceStop: with "race": true the second thread's unlocked read of the
// counter stops with reason "data race", the report (with the first
// thread's access, which has ended since) as text; the other threads'
// frames are at hand; the program then runs to its end (the same race is
// reported once).
func TestRaceStop(t *testing.T) {
	runSession(t, "testdata/dap/race.n", func(c *daptest.Client, f *fixture) {
		stop, _ := checkStop(t, c, 3, "add", f.Line("racy"))
		if stop.Body.Reason != "data race" || !strings.Contains(stop.Body.Text, "WARNING: DATA RACE") ||
			!strings.Contains(stop.Body.Text, "Previous write of Counter.n by thread 2") {
			t.Fatalf("stop %+v: want a data race with its report", stop.Body)
		}
		if top := topFrame(t, c, 1); top.Name != "main" {
			t.Fatalf("main's thread in %s at line %d", top.Name, top.Line)
		}
		continueToExit(t, c, 3, 0)
		if out := c.Output("stdout"); out != "200\n" {
			t.Errorf("stdout %q", out)
		}
	}, withLaunch(map[string]any{"race": true}))
}

// TestRaceNeedsOneCarrier: "race" with two carriers is refused.
func TestRaceNeedsOneCarrier(t *testing.T) {
	f := loadFixture(t, "testdata/dap/race.n")
	c := startServer(t, nil)
	c.Initialize(t)
	c.LaunchRequest(map[string]any{"program": f.Path, "race": true, "carriers": 2})
	r := c.ExpectErrorResponse(t, "launch")
	if !strings.Contains(r.Message, `"race" needs one carrier`) {
		t.Errorf("error %+v", r)
	}
}

// TestRaceWithBreakpoints: the detector's traps live beside breakpoints
// at the same pcs: a breakpoint on the racy line stops as a breakpoint; a
// step from it ends at a statement, not at the next access; once the
// breakpoint is cleared, the race still stops the program.
func TestRaceWithBreakpoints(t *testing.T) {
	runSession(t, "testdata/dap/race.n", func(c *daptest.Client, f *fixture) {
		stop, _ := checkStop(t, c, 2, "add", f.Line("racy"))
		if stop.Body.Reason != "breakpoint" {
			t.Fatalf("stop %+v, want the breakpoint", stop.Body)
		}
		// the statement's own accesses are not stops: the step ends at
		// the loop's next test
		next(t, c, 2)
		if stop, _ := checkStop(t, c, 2, "add", f.Line("loop")); stop.Body.Reason != "step" {
			t.Fatalf("step: %+v", stop.Body)
		}
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		c.ContinueRequest(2, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		stop = c.ExpectStoppedEvent(t)
		if stop.Body.Reason != "data race" || stop.Body.ThreadId != 3 {
			t.Fatalf("after the breakpoint went: %+v, want thread 3's data race", stop.Body)
		}
		continueToExit(t, c, 3, 0)
	}, withLaunch(map[string]any{"race": true}), withBreakpoints("racy"))
}

// TestRaceAfterGoingBack: the re-executions of going back run the
// detector too: stepped back from the race stop, the program stops at the
// same race again when it goes on, with the same report; reverse
// continue from there to the racy line's breakpoint and on again stops at
// the race once more.
func TestRaceAfterGoingBack(t *testing.T) {
	runSession(t, "testdata/dap/race.n", func(c *daptest.Client, f *fixture) {
		stop, _ := checkStop(t, c, 3, "add", f.Line("racy"))
		report := stop.Body.Text
		if stop.Body.Reason != "data race" || !strings.Contains(report, "WARNING: DATA RACE") {
			t.Fatalf("stop %+v: want the data race", stop.Body)
		}
		stepBack(t, c, 3)
		if stop, _ := checkStop(t, c, 3, "add", f.Line("loop")); stop.Body.Reason != "step" {
			t.Fatalf("step back from the race: %+v", stop.Body)
		}
		c.ContinueRequest(3, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		stop, _ = checkStop(t, c, 3, "add", f.Line("racy"))
		if stop.Body.Reason != "data race" || stop.Body.Text != report {
			t.Fatalf("after going back: %+v, want the same race stop again", stop.Body)
		}
		// back to the first add of thread 2, before any race
		c.SetBreakpointsRequest(f.Path, f.Line("racy"))
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		c.ReverseContinueRequest(3)
		daptest.ExpectResponse[*dap.ReverseContinueResponse](t, c)
		if stop, _ := checkStop(t, c, 0, "add", f.Line("racy")); stop.Body.Reason != "breakpoint" {
			t.Fatalf("reverse continue: %+v", stop.Body)
		}
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		c.ContinueRequest(3, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		stop, _ = checkStop(t, c, 3, "add", f.Line("racy"))
		if stop.Body.Reason != "data race" || stop.Body.Text != report {
			t.Fatalf("after reverse continue: %+v, want the race stop", stop.Body)
		}
		continueToExit(t, c, 3, 0)
		if out := c.Output("stdout"); out != "200\n" {
			t.Errorf("stdout %q", out)
		}
	}, withLaunch(map[string]any{"race": true}))
}

// TestRaceReplayOfExploredRace: a data race found by explore --race is
// saved with the detector's flag, and launch "replay" runs the detector
// without "race": the replay stops at the race.
func TestRaceReplayOfExploredRace(t *testing.T) {
	f := loadFixture(t, "testdata/dap/race.n")
	prog, err := compile.CompileFile(f.Path, []byte(f.Src), compile.Options{Lib: inspect.Library()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.Config{Prog: prog, Path: f.Path, Source: []byte(f.Src), Schedules: 10, Race: true}
	res, err := explore.Explore(cfg, nil)
	if err != nil || len(res.Failures) == 0 || res.Failures[0].Kind != "data race" {
		t.Fatalf("explore: %v, %+v", err, res.Failures)
	}
	dir := t.TempDir()
	if err := explore.Save(cfg, res, dir); err != nil {
		t.Fatal(err)
	}
	runSession(t, "testdata/dap/race.n", func(c *daptest.Client, f *fixture) {
		stop := c.ExpectStoppedEvent(t)
		if stop.Body.Reason != "data race" || !strings.Contains(stop.Body.Text, "Counter.n") {
			t.Fatalf("stop %+v: want the data race", stop.Body)
		}
		if top := topFrame(t, c, stop.Body.ThreadId); top.Name != "add" || top.Line != f.Line("racy") {
			t.Fatalf("stopped in %s at line %d", top.Name, top.Line)
		}
	}, withLaunch(map[string]any{"replay": filepath.Join(dir, "failure-1.replay")}))
}
