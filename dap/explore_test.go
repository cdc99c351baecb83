package dap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
	"github.com/nlangdbg/nlangdbg/inspect"
	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/explore"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// exploreFixture explores a fixture and returns the recording of its
// first failure.
func exploreFixture(t *testing.T, f *fixture) string {
	t.Helper()
	prog, err := compile.CompileFile(f.Path, []byte(f.Src), compile.Options{Lib: inspect.Library()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.Config{Prog: prog, Path: f.Path, Source: []byte(f.Src), Schedules: 100}
	res, err := explore.Explore(cfg, nil)
	if err != nil || len(res.Failures) == 0 {
		t.Fatalf("explore: %v, no failure", err)
	}
	dir := t.TempDir()
	if err := explore.Save(cfg, res, dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "failure-1.replay")
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDebugExploredFailure: a failure saved by explore, launched with
// "replay", runs to the deadlock of the explored schedule (which a plain
// run never has); each worker holds its first lock and waits at its
// second, and stepping back on one goes to its first lock.
func TestDebugExploredFailure(t *testing.T) {
	f := loadFixture(t, "testdata/dap/explored.n")
	rec := exploreFixture(t, f)
	runSession(t, "testdata/dap/explored.n", func(c *daptest.Client, f *fixture) {
		stop := c.ExpectStoppedEvent(t)
		if stop.Body.Reason != "exception" || stop.Body.Description != "Deadlock" {
			t.Fatalf("stopped: %+v, want the deadlock", stop.Body)
		}
		c.ThreadsRequest()
		threads := daptest.ExpectResponse[*dap.ThreadsResponse](t, c)
		if len(threads.Body.Threads) != 3 {
			t.Fatalf("threads %+v, want main and two workers", threads.Body.Threads)
		}
		for _, tid := range []int{2, 3} {
			if top := topFrame(t, c, tid); top.Name != "transfer" || top.Line != f.Line("second") {
				t.Fatalf("thread %d in %s at line %d, want transfer at line %d", tid, top.Name, top.Line, f.Line("second"))
			}
		}
		if !strings.Contains(c.Output("stderr"), "deadlock!") {
			t.Errorf("stderr %q: want the deadlock report", c.Output("stderr"))
		}
		tid := 2
		// The first step back goes to the start of the line the thread
		// is parked in, the next to the line before it: its first lock.
		stepBack(t, c, tid)
		checkStop(t, c, tid, "transfer", f.Line("second"))
		stepBack(t, c, tid)
		checkStop(t, c, tid, "transfer", f.Line("first"))
	}, withLaunch(map[string]any{"replay": rec}))
}

// exploreShared explores a fixture at --granularity shared and returns
// the recording of its first failure.
func exploreShared(t *testing.T, f *fixture) string {
	t.Helper()
	prog, err := compile.CompileFile(f.Path, []byte(f.Src), compile.Options{Lib: inspect.Library()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.Config{Prog: prog, Path: f.Path, Source: []byte(f.Src), Schedules: 100, Granularity: "shared"}
	res, err := explore.Explore(cfg, nil)
	if err != nil || len(res.Failures) == 0 {
		t.Fatalf("explore: %v, no failure", err)
	}
	dir := t.TempDir()
	if err := explore.Save(cfg, res, dir); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "failure-1.replay")
}

// startsWithAccess reports whether the first instruction of line in the
// fixture's function fn reads or writes shared data (a scheduling point
// at --granularity shared).
func startsWithAccess(t *testing.T, f *fixture, fn string, line int) bool {
	t.Helper()
	prog, err := compile.CompileFile(f.Path, []byte(f.Src), compile.Options{Lib: inspect.Library()})
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range prog.Funcs {
		if code.Name != fn {
			continue
		}
		for pc := range code.Code {
			if l, _ := code.Pos(int32(pc)); int(l) == line {
				return sched.IsAccess(code, int32(pc))
			}
		}
	}
	t.Fatalf("no line %d in %s", line, fn)
	return false
}

// notForked fails the test if the session's run left its recording
// (":when" says so).
func notForked(t *testing.T, c *daptest.Client, after string) {
	t.Helper()
	c.EvaluateRequest(":when", 0, "repl")
	r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c)
	if strings.Contains(r.Body.Result, "forked") {
		t.Fatalf("after %s: %s", after, r.Body.Result)
	}
}

// TestDebugSharedExploredFailure: a lost update found at --granularity
// shared, opened with "replay", runs to the failure (main sees fewer than
// 200 and is about to return 1). A breakpoint on the racy line, whose
// first instruction is a field read (a scheduling point of the explored
// schedule), takes reverse continue to its last hit; stepping back and
// forward from there and going on reach the same failure with the same
// count: the breakpoints at the scheduling points neither lose them nor
// add any, so neither the session's run nor the re-executions diverge
// from the explored schedule.
func TestDebugSharedExploredFailure(t *testing.T) {
	f := loadFixture(t, "testdata/dap/lost.n")
	if !startsWithAccess(t, f, "add", f.Line("racy")) || !startsWithAccess(t, f, "main", f.Line("count")) {
		t.Fatal("the racy and count lines must start with a field access")
	}
	rec := exploreShared(t, f)
	runSession(t, "testdata/dap/lost.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("count"))
		next(t, c, 1)
		checkStop(t, c, 1, "main", f.Line("count")+1)
		lost := locals(t, c, 1)["n"]
		if lost == "200" || lost == "" {
			t.Fatalf("n = %q at the failure, want a lost update", lost)
		}
		c.SetBreakpointsRequest(f.Path, f.Line("racy"), f.Line("count"))
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		c.ReverseContinueRequest(1)
		daptest.ExpectResponse[*dap.ReverseContinueResponse](t, c)
		// back to the count line first (its own breakpoint), then to the
		// last add
		checkStop(t, c, 1, "main", f.Line("count"))
		c.ReverseContinueRequest(1)
		daptest.ExpectResponse[*dap.ReverseContinueResponse](t, c)
		stop, _ := checkStop(t, c, 0, "add", f.Line("racy"))
		if stop.Body.Reason != "breakpoint" {
			t.Fatalf("reverse continue: %+v", stop.Body)
		}
		tid := stop.Body.ThreadId
		if i := locals(t, c, tid)["i"]; i != "99" {
			t.Fatalf("the last add: i = %s, want 99", i)
		}
		notForked(t, c, "reverse continue")
		// the loop's line has two statements: its test and i += 1
		for _, line := range []int{f.Line("loop"), f.Line("loop"), f.Line("racy")} {
			stepBack(t, c, tid)
			checkStop(t, c, tid, "add", line)
		}
		if i := locals(t, c, tid)["i"]; i != "98" {
			t.Fatalf("three steps back: i = %s, want 98", i)
		}
		notForked(t, c, "stepping back")
		next(t, c, tid)
		checkStop(t, c, tid, "add", f.Line("loop"))
		next(t, c, tid)
		checkStop(t, c, tid, "add", f.Line("racy"))
		if i := locals(t, c, tid)["i"]; i != "99" {
			t.Fatalf("forward again: i = %s, want 99", i)
		}
		c.ContinueRequest(tid, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		checkStop(t, c, 1, "main", f.Line("count"))
		next(t, c, 1)
		checkStop(t, c, 1, "main", f.Line("count")+1)
		if n := locals(t, c, 1)["n"]; n != lost {
			t.Fatalf("after going back and forth n = %s, want %s as in the explored schedule", n, lost)
		}
		notForked(t, c, "going forward again")
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		continueToExit(t, c, 1, 1)
		if out := c.Output("stdout"); out != lost+"\n" {
			t.Errorf("stdout %q, want %s once", out, lost)
		}
	}, withLaunch(map[string]any{"replay": rec}), withBreakpoints("count"))
}
