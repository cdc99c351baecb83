package dap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
	"github.com/nlangdbg/nlangdbg/inspect"
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

// TestDebugSharedRecordingRefused: a failure explored at --granularity
// shared is refused by launch "replay" with a message (nlangdbg replay
// reproduces it; the debugger cannot yet).
func TestDebugSharedRecordingRefused(t *testing.T) {
	f := loadFixture(t, "testdata/dap/race.n")
	prog, err := compile.CompileFile(f.Path, []byte(f.Src), compile.Options{Lib: inspect.Library()})
	if err != nil {
		t.Fatal(err)
	}
	// race.n prints the count: expect 200, so a lost update differs.
	cfg := explore.Config{Prog: prog, Path: f.Path, Source: []byte(f.Src), Schedules: 100, Granularity: "shared", Expect: []byte("200\n")}
	res, err := explore.Explore(cfg, nil)
	if err != nil || len(res.Failures) == 0 {
		t.Fatalf("explore: %v, no failure", err)
	}
	dir := t.TempDir()
	if err := explore.Save(cfg, res, dir); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, nil)
	c.Initialize(t)
	c.LaunchRequest(map[string]any{"replay": filepath.Join(dir, "failure-1.replay")})
	r := c.ExpectErrorResponse(t, "launch")
	if !strings.Contains(r.Message, "granularity shared") {
		t.Errorf("error %q", r.Message)
	}
}
