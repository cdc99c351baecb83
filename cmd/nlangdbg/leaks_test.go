package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunLeaks: run --leaks reports, after the program's output, the
// threads left parked on what no thread that can run reaches — with
// what they wait on, where that was made, who spawned them where, and
// their stacks — and keeps the program's exit code; a program that
// leaks nothing gets no report, and the flag is refused where it has no
// meaning.
func TestRunLeaks(t *testing.T) {
	code, out, errs := cli("run", "--leaks", "../../testdata/dap/leaky.n")
	if code != 0 || out != "served\n69\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, want := range []string{
		`(?m)^leaked: 3 threads are parked on what no thread that can run reaches:$`,
		`(?m)^thread 6 "thread-6" \[chan send on Channel<int>\(len 0/cap 0\), made at leaky.n:23\], spawned by thread 1 at leaky.n:24:\n  at handle \(leaky.n:12\)$`,
		`(?m)^thread 9 "thread-9" `,
		`(?m)^thread 12 "thread-12" `,
	} {
		if !regexp.MustCompile(want).MatchString(errs) {
			t.Errorf("stderr lacks %s:\n%s", want, errs)
		}
	}
	if n := strings.Count(errs, "spawned by"); n != 3 {
		t.Errorf("%d threads reported, want 3:\n%s", n, errs)
	}
	// the workers were served: no report
	if code, out, errs := cli("run", "--leaks", "../../testdata/run/concurrency/worker_pool.n"); code != 0 || errs != "" || out == "" {
		t.Errorf("worker_pool: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// under FIFO the worker replies before main looks: no leak; with
	// this seed main looks first and gives up
	if code, _, errs := cli("run", "--leaks", "../../testdata/explore/leak_timeout.n"); code != 0 || errs != "" {
		t.Errorf("leak_timeout, FIFO: exit %d, stderr %q", code, errs)
	}
	if code, out, errs := cli("run", "--leaks", "--seed", "3", "../../testdata/explore/leak_timeout.n"); code != 0 || out != "gave up\n" ||
		!strings.Contains(errs, `thread 2 "thread-2" [chan send on Channel<int>(len 0/cap 0), made at leak_timeout.n:13], spawned by thread 1 at leak_timeout.n:14:`) {
		t.Errorf("leak_timeout, seed 3: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := cli("run", "--leaks", "--race", "../../testdata/dap/leaky.n"); code != 2 || !strings.Contains(errs, "--leaks goes without") {
		t.Errorf("--leaks --race: exit %d, stderr %q", code, errs)
	}
}

// TestExploreFailOnLeak: with --fail-on-leak, explore finds the schedule
// where main gives up on the worker's reply and the worker leaks, reports
// it with the worker's spawn site, and saves a replay that leaks the
// same way; without the flag the program explores clean.
func TestExploreFailOnLeak(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := cli("explore", "--schedules", "50", "--fail-on-leak", "--out", dir, "../../testdata/explore/leak_timeout.n")
	if code != 3 {
		t.Fatalf("explore exit %d, want 3; stdout %s stderr %s", code, out, errs)
	}
	for _, want := range []string{
		`1  leaked threads  chan at worker \(leak_timeout.n:9\)`,
		`thread 2 "thread-2" \[chan send on Channel<int>\(len 0/cap 0\), made at leak_timeout.n:13\], spawned by thread 1 at leak_timeout.n:14:`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	// the replay runs the leaking schedule: main gives up
	if code, rout, _ := cli("replay", filepath.Join(dir, "failure-1.replay")); code != 0 || rout != "gave up\n" {
		t.Errorf("replay: exit %d, stdout %q", code, rout)
	}
	if code, out, _ := cli("explore", "--schedules", "50", "--out", t.TempDir(), "../../testdata/explore/leak_timeout.n"); code != 0 || !strings.Contains(out, "no failure") {
		t.Errorf("without --fail-on-leak: exit %d, %s", code, out)
	}
}
