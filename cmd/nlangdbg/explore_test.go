package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/nlangdbg/nlangdbg/internal/testmode"
	"github.com/nlangdbg/nlangdbg/sched/explore"
)

// cli runs nlangdbg with args and returns its exit status, stdout and
// stderr.
func cli(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := doMain(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestExploreFindsAndReplays: explore exits 3 on a planted bug, prints
// the summary and saves a recording that replay reproduces (the deadlock
// report, exit 2).
func TestExploreFindsAndReplays(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := cli("explore", "--schedules", "100", "--out", dir, "../../testdata/explore/lock_order.n")
	if code != 3 {
		t.Fatalf("explore exit %d, want 3; stderr %s", code, errs)
	}
	for _, want := range []string{
		`explore ../../testdata/explore/lock_order.n: 100 schedules \(pct, depth 3, seed 0\) in .* s \(\d+/s\): 1 failure`,
		`1  deadlock  join at main \(lock_order.n:31\), mutex at transfer \(lock_order.n:19\), mutex at transfer \(lock_order.n:19\)  \d+ +\d+ +1 \(found with \d+\)  .*failure-1.replay`,
		`thread 2 "thread-2" \[mutex lock\]`,
		`reproduce: nlangdbg replay .*failure-1.replay`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	code, rout, rerr := cli("replay", filepath.Join(dir, "failure-1.replay"))
	if code != 2 || !strings.Contains(rerr, "fatal: all threads are asleep - deadlock!") || !strings.Contains(rerr, "at transfer (lock_order.n:19)") {
		t.Errorf("replay: exit %d, stdout %q, stderr %q; want the deadlock, exit 2", code, rout, rerr)
	}
}

// TestExploreClean: a correct program explores clean with exit 0, also
// checked against its expected output.
func TestExploreClean(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, "want.txt")
	os.WriteFile(want, []byte("40\n"), 0o644)
	code, out, errs := cli("explore", "--schedules", "50", "--out", dir, "--expect-output", want, "../../testdata/explore/bench4.n")
	if code != 0 || !strings.Contains(out, "50 schedules") || !strings.Contains(out, "no failure") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	os.WriteFile(want, []byte("41\n"), 0o644)
	code, out, _ = cli("explore", "--schedules", "5", "--out", dir, "--expect-output", want, "../../testdata/explore/bench4.n")
	if code != 3 || !strings.Contains(out, `line 1: want "41", got "40"`) {
		t.Errorf("differing output: exit %d, %s", code, out)
	}
}

// TestExploreShardsMerge: three shards' results merge into the result of
// one run (--json), and merge exits 3 as the run does.
func TestExploreShardsMerge(t *testing.T) {
	base := t.TempDir()
	prog := "../../testdata/explore/atomicity.n"
	code, out, _ := cli("explore", "--json", "--schedules", "90", "--out", filepath.Join(base, "one"), prog)
	if code != 3 {
		t.Fatalf("one run: exit %d", code)
	}
	var one explore.Result
	if err := json.Unmarshal([]byte(out), &one); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	var dirs []string
	for i := range 3 {
		d := filepath.Join(base, "shard", string(rune('0'+i)))
		dirs = append(dirs, d)
		if code, _, errs := cli("explore", "--schedules", "90", "--shard", string(rune('0'+i))+"/3", "--jobs", "2", "--out", d, prog); code != 3 && code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errs)
		}
	}
	code, out, errs := cli(append([]string{"explore", "merge", "--json"}, dirs...)...)
	if code != 3 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	var merged explore.Result
	if err := json.Unmarshal([]byte(out), &merged); err != nil {
		t.Fatal(err)
	}
	if merged.Schedules != one.Schedules || len(merged.Failures) != len(one.Failures) {
		t.Fatalf("merged %d schedules, %d failures; one run %d, %d", merged.Schedules, len(merged.Failures), one.Schedules, len(one.Failures))
	}
	for i, f := range one.Failures {
		if g := merged.Failures[i]; g.Key() != f.Key() || g.Schedule != f.Schedule || g.Hits != f.Hits {
			t.Errorf("merged %+v, one run %+v", g, f)
		}
	}
	if code, _, errs := cli("explore", "merge", dirs[0]); code != 3 || !strings.Contains(errs, "warning: 1 of 3 shards") {
		t.Errorf("merge of one shard of three: exit %d, stderr %q", code, errs)
	}
}

// TestExploreErrors: bad input is an error (exit 1) with a message.
func TestExploreErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.n")
	os.WriteFile(bad, []byte("int main() {\n    return x;\n}\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore"}, "want a program file"},
		{[]string{"explore", filepath.Join(dir, "missing.n")}, "no such file"},
		{[]string{"explore", "--out", dir, bad}, "bad.n:2:"},
		{[]string{"explore", "--strategy", "bfs", "--out", dir, "../../testdata/explore/bench4.n"}, `unknown strategy "bfs"`},
		{[]string{"explore", "--shard", "3/3", "../../testdata/explore/bench4.n"}, `--shard "3/3": want I/K`},
		{[]string{"explore", "--granularity", "fine", "../../testdata/explore/bench4.n"}, `unknown granularity "fine"`},
		{[]string{"explore", "--schedules", "0", "../../testdata/explore/bench4.n"}, "at least 1"},
		{[]string{"explore", "--state-cache", "../../testdata/explore/bench4.n"}, "--state-cache needs --strategy dfs"},
		{[]string{"explore", "merge"}, "want the --out directories"},
		{[]string{"explore", "merge", dir}, "result.json"},
	} {
		code, _, errs := cli(c.args...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestRunRace: run --race reports the race on stderr and exits 66 where
// the program would exit 0; it needs one carrier.
func TestRunRace(t *testing.T) {
	code, out, errs := cli("run", "--race", "../../testdata/explore/lost_update.n")
	if code != 66 || out != "200\n" || !strings.Contains(errs, "WARNING: DATA RACE\nRead of Counter.n by thread 3 \"thread-3\":\n  at add (lost_update.n:21)\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := cli("run", "--race", "../../testdata/explore/atomicity.n"); code != 0 || errs != "" {
		t.Errorf("a race-free program: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := cli("run", "--race", "--carriers", "2", "../../testdata/explore/atomicity.n"); code != 2 || !strings.Contains(errs, "one carrier") {
		t.Errorf("--race --carriers 2: exit %d, stderr %q", code, errs)
	}
	dir := t.TempDir()
	code, out, _ = cli("explore", "--race", "--schedules", "20", "--out", dir, "../../testdata/explore/lost_update.n")
	if code != 3 || !strings.Contains(out, "data race  Counter.n: add (lost_update.n:21), add (lost_update.n:21)") {
		t.Errorf("explore --race: exit %d\n%s", code, out)
	}
}

// TestReplayRace: a recording made with run --race replays with the
// detector (the report again, exit 66); replay --race runs it on a plain
// recording, which without the flag replays without a report; a race
// found by explore --race replays with its report.
func TestReplayRace(t *testing.T) {
	dir := t.TempDir()
	lost := "../../testdata/explore/lost_update.n"
	const report = "WARNING: DATA RACE\nRead of Counter.n by thread 3 \"thread-3\":\n  at add (lost_update.n:21)\n"
	raced, plain := filepath.Join(dir, "race.rec"), filepath.Join(dir, "plain.rec")
	if code, out, errs := cli("run", "--race", "--record", raced, lost); code != 66 || out != "200\n" || !strings.Contains(errs, report) {
		t.Fatalf("run --race --record: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := cli("run", "--record", plain, lost); code != 0 || errs != "" {
		t.Fatalf("run --record: exit %d, stderr %q", code, errs)
	}
	for _, c := range []struct {
		args []string
		code int
		race bool
	}{
		{[]string{"replay", raced}, 66, true},
		{[]string{"replay", "--race", plain}, 66, true},
		{[]string{"replay", plain}, 0, false},
	} {
		code, out, errs := cli(c.args...)
		if code != c.code || out != "200\n" || strings.Contains(errs, report) != c.race || strings.Contains(errs, "diverge") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, report %v", c.args, code, out, errs, c.code, c.race)
		}
	}
	out := filepath.Join(dir, "explored")
	if code, _, _ := cli("explore", "--race", "--schedules", "20", "--out", out, lost); code != 3 {
		t.Fatalf("explore --race: exit %d", code)
	}
	if code, _, errs := cli("replay", filepath.Join(out, "failure-1.replay")); code != 66 || !strings.Contains(errs, "WARNING: DATA RACE\nRead of Counter.n") {
		t.Errorf("replay of an explored race: exit %d, stderr %q", code, errs)
	}
}

// TestExploreStateCache: dfs --state-cache completes the bounded search
// over the atomicity violation with fewer schedules and the same failure.
func TestExploreStateCache(t *testing.T) {
	dir := t.TempDir()
	var got [2]explore.Result
	depth := "2" // (3 in the full run: 5,810 schedules without the cache)
	if testmode.Full() {
		depth = "3"
	}
	for i, args := range [][]string{nil, {"--state-cache"}} {
		args = append(append([]string{"explore", "--json", "--strategy", "dfs", "--depth", depth, "--schedules", "100000", "--out", dir}, args...),
			"../../testdata/explore/atomicity.n")
		code, out, errs := cli(args...)
		if code != 3 {
			t.Fatalf("%v: exit %d, %s", args, code, errs)
		}
		if err := json.Unmarshal([]byte(out), &got[i]); err != nil {
			t.Fatal(err)
		}
	}
	plain, cached := got[0], got[1]
	if !plain.Complete || !cached.Complete || cached.Schedules >= plain.Schedules ||
		len(cached.Failures) != 1 || cached.Failures[0].Key() != plain.Failures[0].Key() {
		t.Errorf("without the cache %d schedules (complete %v), with it %d (complete %v), failures %+v and %+v",
			plain.Schedules, plain.Complete, cached.Schedules, cached.Complete, plain.Failures, cached.Failures)
	}
}

// TestExploreDefaultGranularity: with no --granularity every shared access
// is a scheduling point, so explore finds the lost update inside one
// statement (main exits 1); --granularity sync does not.
func TestExploreDefaultGranularity(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := cli("explore", "--schedules", "200", "--out", dir, "../../testdata/explore/lost_update.n")
	if code != 3 || !strings.Contains(out, "1 failure") || !strings.Contains(out, "exit code 1") || strings.Contains(out, "granularity") {
		t.Errorf("explore: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = cli("explore", "--schedules", "200", "--granularity", "sync", "--out", dir, "../../testdata/explore/lost_update.n")
	if code != 0 || !strings.Contains(out, "granularity sync) in") || !strings.Contains(out, "no failure") {
		t.Errorf("explore --granularity sync: exit %d\n%s%s", code, out, errs)
	}
}

// TestExploreProgress: on a terminal explore shows its progress (the
// schedules run, the rate, the failures so far) and clears the line for
// the summary.
func TestExploreProgress(t *testing.T) {
	bin := nlangdbgBinary(t)
	dir := t.TempDir()
	prog, err := filepath.Abs("../../testdata/explore/bench4.n")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "explore", "--strategy", "random", "--schedules", "4000", "--out", dir, prog)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	scr := &screen{}
	go scr.copyFrom(f)
	scr.expect(t, `\r\x1b\[Kexplore: \d+/4000 schedules, \d+/s, 0 failures`)
	scr.expect(t, `\r\x1b\[Kexplore .*bench4.n: 4000 schedules \(random, depth 3, seed 0\) in .* s \(\d+/s\): no failure`)
	if err := cmd.Wait(); err != nil {
		t.Errorf("explore: %v", err)
	}
}

// TestExploreDenyFS: --deny-fs holds in every explored run: a program
// that reads a file gets an IOException, an uncaught one here.
func TestExploreDenyFS(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "reads.n")
	os.WriteFile(prog, []byte("import io;\nint main() {\n    io.print(io.readFile(\""+filepath.ToSlash(prog)+"\"));\n    return 0;\n}\n"), 0o644)
	if code, _, errs := cli("explore", "--schedules", "3", "--out", dir, prog); code != 0 {
		t.Fatalf("without --deny-fs: exit %d, %s", code, errs)
	}
	code, out, _ := cli("explore", "--deny-fs", "--schedules", "3", "--out", dir, prog)
	if code != 3 || !strings.Contains(out, "uncaught IOException") {
		t.Errorf("--deny-fs: exit %d\n%s", code, out)
	}
	if code, _, errs := cli("explore", "--deny-fs", "--allow-read", dir, prog); code != 1 || !strings.Contains(errs, "cannot be combined") {
		t.Errorf("--deny-fs with --allow-read: exit %d, %q", code, errs)
	}
}

// TestDebugReplayExplored: the REPL opens a failure saved by explore
// (debug --replay); continue runs to the explored deadlock, and a worker
// steps back from its second lock to its first.
func TestDebugReplayExplored(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := cli("explore", "--schedules", "50", "--out", dir, "../../testdata/explore/lock_order.n"); code != 3 {
		t.Fatalf("explore: exit %d, %s", code, errs)
	}
	ft := newFakeTerminalArgs(t, map[string]any{"replay": filepath.Join(dir, "failure-1.replay"), "stopOnEntry": true})
	for _, step := range []struct{ cmd, want string }{
		{"continue", `Deadlock at main (lock_order.n:31)`},
		{"thread 2", `Thread 2 "thread-2" at transfer (lock_order.n:19)`},
		{"rev next", `Step back at transfer (lock_order.n:19) [thread 2 "thread-2"]`},
		{"rev next", `Step back at transfer (lock_order.n:18) [thread 2 "thread-2"]`},
	} {
		if out := ft.Exec(step.cmd); !strings.Contains(out, step.want) {
			t.Fatalf("%s: %q, want %q", step.cmd, out, step.want)
		}
	}
}

// TestDebugReplaySharedExplored: the REPL opens the lost update explore
// finds at the default granularity; a breakpoint on the racy line (whose
// first instruction reads the field: a scheduling point) takes reverse
// continue from the failure to the last add; stepping back and forward
// from there keeps to the explored schedule (the recording has not
// forked), and the program ends with the lost update again.
func TestDebugReplaySharedExplored(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := cli("explore", "--schedules", "50", "--out", dir, "../../testdata/explore/lost_update.n"); code != 3 {
		t.Fatalf("explore: exit %d, %s", code, errs)
	}
	ft := newFakeTerminalArgs(t, map[string]any{"replay": filepath.Join(dir, "failure-1.replay"), "stopOnEntry": true})
	for _, step := range []struct{ cmd, want string }{
		{"break lost_update.n:33", "Breakpoint 1"},
		{"continue", `at main (lost_update.n:33)`},
		{"break lost_update.n:21", "Breakpoint 2"},
		{"rev continue", `at add (lost_update.n:21)`},
		{"print i", "99"},
		{"rev next", `Step back at add (lost_update.n:20)`},
		{"rev next", `Step back at add (lost_update.n:20)`},
		{"rev next", `Step back at add (lost_update.n:21)`},
		{"print i", "98"},
		{"next", `at add (lost_update.n:20)`},
		{"when", "event byte"},
		{"clear 2", "cleared"},
		{"continue", `at main (lost_update.n:33)`},
		{"print c.n", "\n"},
		{"when", "event byte"},
	} {
		out := ft.Exec(step.cmd)
		if !strings.Contains(out, step.want) || strings.Contains(out, "forked") {
			t.Fatalf("%s: %q, want %q", step.cmd, out, step.want)
		}
		if step.cmd == "print c.n" {
			if n, err := strconv.Atoi(strings.TrimSpace(out)); err != nil || n >= 200 {
				t.Fatalf("print c.n: %q, want the lost update (fewer than 200)", out)
			}
		}
	}
}
