package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/sched/explore"
)

// Regression tests of the smaller command-line defects of round 3 (see
// repl_round3_test.go for the debugger's).

// TestExploreWords: a merged result says it is merged (not "shard 0/2");
// a complete search of depth 1 says "1 preemption"; no rate is printed
// for a run too short to time.
func TestExploreWords(t *testing.T) {
	prog := "../../testdata/explore/atomicity.n"
	var dirs []string
	for _, shard := range []string{"0/2", "1/2"} {
		dir := t.TempDir()
		dirs = append(dirs, dir)
		cli("explore", "--schedules", "20", "--shard", shard, "--out", dir, prog)
	}
	_, out, _ := cli(append([]string{"explore", "merge"}, dirs...)...)
	if !strings.Contains(out, ", 2 of 2 shards merged)") || strings.Contains(out, "shard 0/2") {
		t.Errorf("merge: %s", out)
	}
	_, out, _ = cli("explore", "--strategy", "dfs", "--depth", "1", "--schedules", "100000", "--out", t.TempDir(), prog)
	if !strings.Contains(out, "every schedule with at most 1 preemption was run") {
		t.Errorf("dfs depth 1: %s", out)
	}
	var b bytes.Buffer
	printSummary(&b, &explore.Result{Program: "p.n", Strategy: "pct", Schedules: 3}, 0)
	if strings.Contains(b.String(), "/s)") {
		t.Errorf("a rate for no time: %s", b.String())
	}
}

// TestReplayRefusalsSayWhy: a program changed in place since it was
// recorded is named once, as changed; a recording whose bytes were
// changed (not cut) says so, without "<nil>".
func TestReplayRefusalsSayWhy(t *testing.T) {
	dir := t.TempDir()
	prog, rec := filepath.Join(dir, "p.n"), filepath.Join(dir, "p.rec")
	os.WriteFile(prog, []byte("import io;\nint main() {\n    io.print(\"hello\");\n    return 0;\n}\n"), 0o644)
	cliOut(t, "run", "--record", rec, prog)
	os.WriteFile(prog, []byte("import io;\nint main() {\n    io.print(\"jello\");\n    return 0;\n}\n"), 0o644)
	_, _, errs := cli("replay", rec, prog)
	if want := "nlangdbg replay: " + prog + " changed since " + rec + " was recorded; refusing to replay it"; !strings.HasPrefix(errs, want) {
		t.Errorf("replay of a changed program: %q, want %q…", errs, want)
	}
	data, _ := os.ReadFile(rec)
	i := bytes.LastIndex(data, []byte("hello"))
	data[i] = 'j'
	os.WriteFile(rec, data, 0o644)
	_, _, errs = cli("replay", rec)
	if !regexp.MustCompile(`bad recording: corrupt \(checksum mismatch: the file was changed after it was written\)\n$`).MatchString(errs) {
		t.Errorf("replay of a changed recording: %q", errs)
	}
}
