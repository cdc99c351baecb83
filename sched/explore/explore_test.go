package explore

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/internal/scripttest"
	"github.com/nlangdbg/nlangdbg/internal/testmode"
	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

func library() *vm.Library {
	lib := vm.StdLib()
	lib.Merge(sched.Lib())
	return lib
}

// load compiles a program of the repository's testdata.
func load(t testing.TB, path string) Config {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := compile.CompileFile(path, src, compile.Options{Lib: library()})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return Config{Prog: prog, Path: path, Source: src}
}

// plainRun runs the program as `nlangdbg run` does and returns its exit
// code, stdout and stderr.
func plainRun(cfg Config) (int, string, string) {
	var out, errb bytes.Buffer
	m := vm.NewMachine(cfg.Prog, strings.NewReader(""), &out, &errb)
	s := sched.New(m, sched.Options{})
	s.Start(m.NewCallThread(cfg.Prog.Main, nil))
	code := s.Run()
	return code, out.String(), errb.String()
}

// planted lists the planted bugs and the failure each must produce.
var planted = []struct {
	file, kind, place string
}{
	{"lock_order.n", "deadlock", "mutex at transfer (lock_order.n:19)"},
	{"dict_check_then_act.n", "assertion failure", "main (dict_check_then_act.n:40)"},
	{"missed_wakeup.n", "deadlock", "chan at worker (missed_wakeup.n:26)"},
	{"atomicity.n", "exit code 1", ""},
	{"lost_update.n", "exit code 1", ""}, // at the default granularity, shared
}

const plantedDir = "../../testdata/explore"

// TestPlantedBugsPassPlainRuns: every planted bug hides from a plain run.
func TestPlantedBugsPassPlainRuns(t *testing.T) {
	for _, p := range planted {
		cfg := load(t, filepath.Join(plantedDir, p.file))
		if code, out, errs := plainRun(cfg); code != 0 || errs != "" {
			t.Errorf("%s: plain run exit %d, stdout %q, stderr %q; want a clean run", p.file, code, out, errs)
		}
	}
}

// TestPlantedBugsFound: each strategy finds every planted bug, PCT (the
// default) within 200 schedules, and each failure is shrunk to one
// preemption.
func TestPlantedBugsFound(t *testing.T) {
	for _, strategy := range []string{PCT, Random, DFS} {
		for _, p := range planted {
			t.Run(strategy+"/"+p.file, func(t *testing.T) {
				cfg := load(t, filepath.Join(plantedDir, p.file))
				cfg.Strategy, cfg.Schedules = strategy, 200
				res, err := Explore(cfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Failures) != 1 {
					t.Fatalf("%d failures, want 1: %+v", len(res.Failures), res.Failures)
				}
				f := res.Failures[0]
				if f.Kind != p.kind || !strings.Contains(f.Place, p.place) {
					t.Fatalf("found %s at %q, want %s at %q", f.Kind, f.Place, p.kind, p.place)
				}
				if f.Shrunk != 1 || f.Shrunk > f.Preemptions {
					t.Errorf("shrunk to %d preemptions (found with %d), want 1", f.Shrunk, f.Preemptions)
				}
				t.Logf("%s: found after %d schedules (%d hits), %d preemptions shrunk to %d",
					p.file, f.Schedule+1, f.Hits, f.Preemptions, f.Shrunk)
			})
		}
	}
}

// TestShrunkScheduleIsMinimal: the shrunk schedule still fails the same
// way, and no schedule with fewer preemptions does.
func TestShrunkScheduleIsMinimal(t *testing.T) {
	cfg := load(t, filepath.Join(plantedDir, "lock_order.n"))
	cfg.Schedules = 50
	res, err := Explore(cfg, nil)
	if err != nil || len(res.Failures) != 1 {
		t.Fatalf("explore: %v, %d failures", err, len(res.Failures))
	}
	f := res.Failures[0]
	_ = cfg.defaults()
	r := newRunner(&cfg)
	got, err := r.run(&forced{ds: f.Decisions}, nil)
	if err != nil || got == nil || got.key() != f.Key() {
		t.Fatalf("the shrunk schedule %v gives %+v, %v; want %s", f.Decisions, got, err, f.Kind)
	}
	if _, pre := r.ctl.decisions(); pre != f.Shrunk {
		t.Errorf("the shrunk schedule has %d preemptions, the failure says %d", pre, f.Shrunk)
	}
	ds, runs, err := searchBound(r, f.Shrunk-1, 1_000_000, f.Key())
	if err != nil || ds != nil {
		t.Errorf("a schedule with fewer preemptions fails too: %v, %v", ds, err)
	}
	if runs < 1 {
		t.Errorf("the search ran nothing")
	}
}

// TestSavedFailuresReplay: a saved failure is a recording that replays
// (following its schedule) to the same failure, without divergence.
func TestSavedFailuresReplay(t *testing.T) {
	for _, p := range planted {
		cfg := load(t, filepath.Join(plantedDir, p.file))
		cfg.Schedules = 100
		res, err := Explore(cfg, nil)
		if err != nil || len(res.Failures) == 0 {
			t.Fatalf("%s: %v, no failure", p.file, err)
		}
		dir := t.TempDir()
		if err := Save(cfg, res, dir); err != nil {
			t.Fatal(err)
		}
		rec, err := record.ReadFile(filepath.Join(dir, "failure-1.replay"))
		if err != nil {
			t.Fatal(err)
		}
		if !rec.Header.Scheduled {
			t.Errorf("%s: the recording does not say its schedule is in its quanta", p.file)
		}
		var out, errb bytes.Buffer
		rp := record.NewReplayer(rec)
		m := vm.NewMachine(cfg.Prog, nil, rp.Stdout(&out), rp.Stderr(&errb))
		s := sched.New(m, sched.Options{Quota: rec.Header.Quota, Seed: rec.Header.Seed, Clock: rp.Clock()})
		if err := rp.Start(m, s); err != nil {
			t.Fatal(err)
		}
		main := m.NewCallThread(cfg.Prog.Main, nil)
		s.Start(main)
		code := s.Run()
		if div := rp.Finish(code); div != nil {
			t.Fatalf("%s: the replay diverged: %v", p.file, div)
		}
		if code != rec.ExitCode || code == 0 {
			t.Errorf("%s: replay exit %d, recorded %d", p.file, code, rec.ExitCode)
		}
		switch p.kind {
		case "deadlock":
			if !strings.Contains(errb.String(), "deadlock!") || main.State == vm.Dead {
				t.Errorf("%s: the replay did not deadlock: %q", p.file, errb.String())
			}
		case "assertion failure":
			if !strings.Contains(errb.String(), "AssertionException") {
				t.Errorf("%s: the replay did not fail the assert: %q", p.file, errb.String())
			}
		}
		got, err := ReadResult(filepath.Join(dir, "result.json"))
		if err != nil || len(got.Failures) != 1 || got.Failures[0].Replay == "" {
			t.Errorf("%s: result.json: %+v, %v", p.file, got, err)
		}
	}
}

// TestShardsCoverOneRun: K shards (and J jobs) together run the
// schedules of one run and find the same failures after the same
// schedules.
func TestShardsCoverOneRun(t *testing.T) {
	for _, strategy := range []string{PCT, Random} {
		cfg := load(t, filepath.Join(plantedDir, "atomicity.n"))
		cfg.Strategy, cfg.Schedules = strategy, 120
		one, err := Explore(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		var shards []*Result
		for i := 0; i < 3; i++ {
			c := cfg
			c.Shard, c.Shards, c.Jobs = i, 3, 2
			r, err := Explore(c, nil)
			if err != nil {
				t.Fatal(err)
			}
			shards = append(shards, r)
		}
		merged, err := Merge(shards)
		if err != nil {
			t.Fatal(err)
		}
		if merged.Schedules != one.Schedules {
			t.Errorf("%s: shards ran %d schedules, one run %d", strategy, merged.Schedules, one.Schedules)
		}
		if len(merged.Failures) != len(one.Failures) || len(one.Failures) == 0 {
			t.Fatalf("%s: shards found %d failures, one run %d", strategy, len(merged.Failures), len(one.Failures))
		}
		for i, f := range one.Failures {
			g := merged.Failures[i]
			if g.Key() != f.Key() || g.Schedule != f.Schedule || g.Hits != f.Hits {
				t.Errorf("%s: shards: %s after %d (%d hits); one run: %s after %d (%d hits)",
					strategy, g.Kind, g.Schedule, g.Hits, f.Kind, f.Schedule, f.Hits)
			}
		}
	}
}

// TestDFSShardsExhaust: on a small program DFS runs every schedule within
// its bound, and shards run the same number in all.
func TestDFSShardsExhaust(t *testing.T) {
	cfg := load(t, filepath.Join(plantedDir, "atomicity.n"))
	cfg.Strategy, cfg.Schedules, cfg.Depth = DFS, 1_000_000, 1
	one, err := Explore(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !one.Complete || one.Schedules < 10 {
		t.Fatalf("one run: complete %v after %d schedules", one.Complete, one.Schedules)
	}
	var shards []*Result
	for i := 0; i < 2; i++ {
		c := cfg
		c.Shard, c.Shards, c.Jobs = i, 2, 1+i
		r, err := Explore(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, r)
	}
	merged, err := Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	if !merged.Complete || merged.Schedules != one.Schedules {
		t.Errorf("shards: complete %v, %d schedules; one run: %d", merged.Complete, merged.Schedules, one.Schedules)
	}
	if len(merged.Failures) != len(one.Failures) {
		t.Errorf("shards found %d failures, one run %d", len(merged.Failures), len(one.Failures))
	}
	t.Logf("DFS, bound 1: %d schedules", one.Schedules)
}

// TestMergeRefusesOtherExplorations: shards of different explorations do
// not merge.
func TestMergeRefusesOtherExplorations(t *testing.T) {
	a := &Result{Program: "a.n", Strategy: PCT, Depth: 3, Shards: 2, Shard: 0}
	b := &Result{Program: "a.n", Strategy: PCT, Depth: 3, Seed: 1, Shards: 2, Shard: 1}
	if _, err := Merge([]*Result{a, b}); err == nil || !strings.Contains(err.Error(), "not of the same exploration") {
		t.Errorf("merge of two seeds: %v", err)
	}
	c := &Result{Program: "a.n", Strategy: PCT, Depth: 3, Shards: 2, Shard: 0}
	if _, err := Merge([]*Result{a, c}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("merge of one shard twice: %v", err)
	}
}

// TestConcurrencyScriptsExploreClean: the concurrency scripts that must
// succeed succeed under every explored schedule with their expected
// output (no false positives); those that must fail fail in every one.
// 25 schedules of each strategy per script, 100 in the full run.
func TestConcurrencyScriptsExploreClean(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/run/concurrency/*.n")
	if len(files) < 30 {
		t.Fatalf("%d scripts", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cfg := load(t, path)
			sc, err := scripttest.Parse(path, cfg.Source)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Expect = []byte(sc.Stdout)
			// A script fails by design if its plain run does: a nonzero
			// exit (deadlock) or a report on stderr (a thread's uncaught
			// exception).
			code, _, errs := plainRun(cfg)
			byDesign := code != 0 || errs != ""
			schedules := 25 // (100 in the full run)
			if testmode.Full() {
				schedules = 100
			}
			for _, strategy := range []string{PCT, Random} {
				cfg.Strategy, cfg.Schedules = strategy, schedules
				res, err := Explore(cfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !byDesign {
					for _, f := range res.Failures {
						t.Errorf("%s: false positive after %d schedules: %s at %s: %s", strategy, f.Schedule+1, f.Kind, f.Place, f.Message)
					}
					continue
				}
				// A script that fails by design fails in the first schedule.
				if len(res.Failures) == 0 || res.Failures[0].Schedule != 0 {
					t.Errorf("%s: the failure the script expects (exit %d, stderr %q) was not found at once: %+v", strategy, code, errs, res.Failures)
				}
			}
		})
	}
}

// TestStepBound: a run that never ends is a livelock.
func TestStepBound(t *testing.T) {
	src := []byte("import thread;\nvoid spin() {\n    while (true) {\n    }\n}\nint main() {\n    Thread t = thread.spawn(spin);\n    t.join();\n    return 0;\n}\n")
	prog, err := compile.CompileFile("spin.n", src, compile.Options{Lib: library()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Explore(Config{Prog: prog, Path: "spin.n", Source: src, Schedules: 3, StepBound: 50_000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 || res.Failures[0].Kind != "livelock" || res.Failures[0].Hits != 3 {
		t.Errorf("failures %+v, want one livelock hit by all 3 schedules", res.Failures)
	}
}

// TestLostUpdateNeedsRace: a lost update with no scheduling point between
// the read and the write is out of reach of sync granularity; the race
// detector finds it there in the first schedule, which needs no
// preemption.
func TestLostUpdateNeedsRace(t *testing.T) {
	path := filepath.Join(plantedDir, "lost_update.n")
	cfg := load(t, path)
	if code, out, _ := plainRun(cfg); code != 0 || out != "200\n" {
		t.Fatalf("plain run: exit %d, %q", code, out)
	}
	cfg.Schedules, cfg.Expect, cfg.Granularity = 200, []byte("200\n"), "sync"
	res, err := Explore(cfg, nil)
	if err != nil || len(res.Failures) != 0 {
		t.Fatalf("without the detector: %v, %+v", err, res.Failures)
	}
	cfg = load(t, path)
	cfg.Schedules, cfg.Race, cfg.Granularity = 200, true, "sync"
	res, err = Explore(cfg, nil)
	if err != nil || len(res.Failures) != 1 {
		t.Fatalf("with the detector: %v, %+v", err, res.Failures)
	}
	f := res.Failures[0]
	if f.Kind != "data race" || f.Place != "Counter.n: add (lost_update.n:21), add (lost_update.n:21)" || f.Schedule != 0 || f.Shrunk != 0 {
		t.Errorf("found %s at %q after %d schedules, %d preemptions", f.Kind, f.Place, f.Schedule+1, f.Shrunk)
	}
	if !strings.Contains(f.Message, "WARNING: DATA RACE") {
		t.Errorf("message %q", f.Message)
	}
	dir := t.TempDir()
	if err := Save(cfg, res, dir); err != nil {
		t.Fatalf("save: %v", err)
	}
	rec, err := record.ReadFile(filepath.Join(dir, "failure-1.replay"))
	if err != nil {
		t.Fatal(err)
	}
	if fresh := load(t, path); rec.Header.Hash != record.ProgramHash(fresh.Prog) {
		t.Errorf("the recording's hash is of the instrumented program: a replay would refuse it")
	}
}

// TestFailureNotReproduced: a failure that depends on a file the program
// writes (the first run fails, the next ones find the file) is reported
// but not saved, and saving goes on.
func TestFailureNotReproduced(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	m := `"` + filepath.ToSlash(marker) + `"`
	// The first run writes 1, the second finds it, writes 2 and fails.
	src := []byte("import io;\nimport fs;\nint main() {\n    if (!fs.exists(" + m + ")) {\n        io.writeFile(" + m + ", \"1\");\n        return 0;\n    }\n" +
		"    if (io.readFile(" + m + ") == \"1\") {\n        io.writeFile(" + m + ", \"2\");\n        return 4;\n    }\n    return 0;\n}\n")
	prog, err := compile.CompileFile("marker.n", src, compile.Options{Lib: library()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Prog: prog, Path: "marker.n", Source: src, Schedules: 3}
	res, err := Explore(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 || res.Failures[0].Kind != "exit code 4" {
		t.Fatalf("failures %+v, want the second run's exit code 4", res.Failures)
	}
	dir := t.TempDir()
	if err := Save(cfg, res, dir); err != nil {
		t.Fatalf("save: %v", err)
	}
	f := res.Failures[0]
	if _, err := os.Stat(filepath.Join(dir, "failure-1.replay")); f.Replay != "" || err == nil || !strings.Contains(f.Message, "not saved") {
		t.Errorf("replay %q (%v), message %q: want no recording and a note", f.Replay, err, f.Message)
	}
}

// TestPlantedBugsAcrossSeeds: PCT finds every planted bug within 200
// schedules whatever the seed (here 1 to 20 in the full run, 1 to 4
// otherwise), not just with the default.
func TestPlantedBugsAcrossSeeds(t *testing.T) {
	seeds := int64(4)
	if testmode.Full() {
		seeds = 20
	}
	for _, p := range planted {
		worst := 0
		for seed := int64(1); seed <= seeds; seed++ {
			cfg := load(t, filepath.Join(plantedDir, p.file))
			cfg.Schedules, cfg.Seed, cfg.ShrinkRuns = 200, seed, 1
			res, err := Explore(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Failures) == 0 {
				t.Fatalf("%s, seed %d: not found in 200 schedules", p.file, seed)
			}
			worst = max(worst, res.Failures[0].Schedule+1)
		}
		t.Logf("%s: at worst %d schedules over seeds 1-%d", p.file, worst, seeds)
	}
}

// TestSharedGranularity: at --granularity shared, the default, every
// access is a scheduling point, so the lost update with no call inside
// the statement is found (main exits 1) with one preemption, and its
// recording replays on a fresh compile of the program, whose accesses the
// replay makes scheduling points again.
func TestSharedGranularity(t *testing.T) {
	path := filepath.Join(plantedDir, "lost_update.n")
	cfg := load(t, path)
	cfg.Schedules = 200 // no Granularity: the default
	res, err := Explore(cfg, nil)
	if err != nil || len(res.Failures) != 1 {
		t.Fatalf("%v, %+v", err, res.Failures)
	}
	f := res.Failures[0]
	if f.Kind != "exit code 1" || f.Shrunk != 1 || res.Granularity != "shared" {
		t.Fatalf("found %s with %d preemptions (granularity %q)", f.Kind, f.Shrunk, res.Granularity)
	}
	t.Logf("lost update: found after %d schedules, %d preemptions shrunk to %d", f.Schedule+1, f.Preemptions, f.Shrunk)
	dir := t.TempDir()
	if err := Save(cfg, res, dir); err != nil {
		t.Fatal(err)
	}
	rec, err := record.ReadFile(filepath.Join(dir, "failure-1.replay"))
	if err != nil || !rec.Header.Shared || !rec.Header.Scheduled {
		t.Fatalf("recording: %v, header %+v", err, rec.Header)
	}
	fresh := load(t, path)
	var out bytes.Buffer
	rp := record.NewReplayer(rec)
	m := vm.NewMachine(fresh.Prog, nil, rp.Stdout(&out), rp.Stderr(&out))
	s := sched.New(m, sched.Options{Quota: rec.Header.Quota, Clock: rp.Clock()})
	if err := rp.Start(m, s); err != nil {
		t.Fatal(err)
	}
	s.Start(m.NewCallThread(fresh.Prog.Main, nil))
	code := s.Run()
	if div := rp.Finish(code); div != nil || code != 1 || out.String() == "200\n" {
		t.Errorf("replay: exit %d, output %q, divergence %v", code, out.String(), div)
	}
}

// TestConcurrencyScriptsExploreSync: the correct concurrency scripts stay
// clean at --granularity sync too (TestConcurrencyScriptsExploreClean
// explores them at the default, shared): 15 schedules each, 60 in the
// full run.
func TestConcurrencyScriptsExploreSync(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/run/concurrency/*.n")
	for _, path := range files {
		cfg := load(t, path)
		if code, _, errs := plainRun(cfg); code != 0 || errs != "" {
			continue // fails by design
		}
		sc, err := scripttest.Parse(path, cfg.Source)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Expect, cfg.Schedules, cfg.Granularity = []byte(sc.Stdout), 15, "sync"
		if testmode.Full() {
			cfg.Schedules = 60
		}
		res, err := Explore(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Failures {
			t.Errorf("%s: after %d schedules: %s at %s: %s", filepath.Base(path), f.Schedule+1, f.Kind, f.Place, f.Message)
		}
	}
}

// TestDFSRunsEachScheduleOnce: the search's schedules are distinct runs
// (no interleaving is run twice), and the bound holds: no schedule has
// more preemptions than it.
func TestDFSRunsEachScheduleOnce(t *testing.T) {
	for _, c := range []struct {
		gran  string
		bound int
	}{{"sync", 1}, {"sync", 2}, {"shared", 1}} {
		bound := c.bound
		cfg := load(t, filepath.Join(plantedDir, "atomicity.n"))
		cfg.Strategy, cfg.Depth, cfg.Schedules, cfg.Granularity = DFS, bound, 1_000_000, c.gran
		if err := cfg.defaults(); err != nil {
			t.Fatal(err)
		}
		if c.gran == "shared" {
			sched.InstrumentAccesses(cfg.Prog) // as Explore does
		}
		r := newRunner(&cfg)
		r.ctl.alts = true // as exploreDFS does
		seen := map[string]bool{}
		run := func(ds []Decision, cost int, after int64) *dfsFrame {
			if _, err := r.run(&forced{ds: ds}, nil); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, q := range r.ctl.trace {
				fmt.Fprintf(&b, "%d:%d:%v ", q.thread, q.red, q.self)
			}
			if seen[b.String()] {
				t.Fatalf("bound %d: schedule %v runs an interleaving already run: %s", bound, ds, b.String())
			}
			seen[b.String()] = true
			if _, pre := r.ctl.decisions(); pre > bound {
				t.Fatalf("bound %d: schedule %v has %d preemptions", bound, ds, pre)
			}
			return &dfsFrame{ds: ds, cost: cost, after: after,
				trace: append([]quantum(nil), r.ctl.trace...), ids: append([]int64(nil), r.ctl.ids...)}
		}
		stack := []*dfsFrame{run(nil, 0, -1)}
		for len(stack) > 0 {
			ds, cost, ok := stack[len(stack)-1].next(bound)
			if !ok {
				stack = stack[:len(stack)-1]
				continue
			}
			stack = append(stack, run(ds, cost, ds[len(ds)-1].Point))
		}
		res, err := Explore(cfg, nil)
		if err != nil || !res.Complete || res.Schedules != len(seen) {
			t.Fatalf("%s, bound %d: explore ran %d schedules (complete %v, %v), the search here %d", c.gran, bound, res.Schedules, res.Complete, err, len(seen))
		}
		t.Logf("%s, bound %d: %d distinct schedules", c.gran, bound, len(seen))
	}
}

// TestStateCache: with the state cache, the bounded search over each
// planted bug still runs to its end and finds the same failures, with
// fewer schedules; the correct concurrency scripts stay clean with it.
// (Outside the full run the bound is 2 and the scripts get 15 schedules.)
func TestStateCache(t *testing.T) {
	for _, p := range planted {
		if p.file == "lost_update.n" {
			continue // millions of schedules within the bound (BenchmarkDFSComplete)
		}
		depth := 3
		if p.file == "dict_check_then_act.n" || p.file == "atomicity.n" || !testmode.Full() {
			depth = 2 // 14,383 and 5,810 schedules at depth 3: BenchmarkDFSComplete
		}
		var keys [2][]string
		var schedules [2]int
		for i, cache := range []bool{false, true} {
			cfg := load(t, filepath.Join(plantedDir, p.file))
			cfg.Strategy, cfg.Depth, cfg.StateCache, cfg.Schedules, cfg.ShrinkRuns = DFS, depth, cache, 1_000_000, 1
			res, err := Explore(cfg, nil)
			if err != nil || !res.Complete {
				t.Fatalf("%s, cache %v: %v, complete %v", p.file, cache, err, res.Complete)
			}
			for _, f := range res.Failures {
				keys[i] = append(keys[i], f.Key())
			}
			schedules[i] = res.Schedules
		}
		if !slices.Equal(keys[0], keys[1]) || len(keys[1]) == 0 {
			t.Errorf("%s: failures %q without the cache, %q with it", p.file, keys[0], keys[1])
		}
		if schedules[1] >= schedules[0] {
			t.Errorf("%s: %d schedules with the cache, %d without", p.file, schedules[1], schedules[0])
		}
		t.Logf("%s, depth %d: %d schedules, %d with the state cache", p.file, depth, schedules[0], schedules[1])
	}
	files, _ := filepath.Glob("../../testdata/run/concurrency/*.n")
	for _, path := range files {
		cfg := load(t, path)
		if code, _, errs := plainRun(cfg); code != 0 || errs != "" {
			continue // fails by design
		}
		sc, err := scripttest.Parse(path, cfg.Source)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Expect, cfg.Schedules, cfg.Strategy, cfg.StateCache = []byte(sc.Stdout), 15, DFS, true
		if testmode.Full() {
			cfg.Schedules = 60
		}
		res, err := Explore(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Failures {
			t.Errorf("%s: %s at %s: %s", filepath.Base(path), f.Kind, f.Place, f.Message)
		}
	}
}

// TestStateHashIgnoresAddresses: two runs of the same schedule, on fresh
// machines whose objects live at other addresses, hash every scheduling
// point alike; a run that switches threads elsewhere differs after the
// switch.
func TestStateHashIgnoresAddresses(t *testing.T) {
	cfg := load(t, filepath.Join(plantedDir, "atomicity.n"))
	cfg.Strategy, cfg.StateCache = DFS, true
	if err := cfg.defaults(); err != nil {
		t.Fatal(err)
	}
	sched.InstrumentAccesses(cfg.Prog)
	r := newRunner(&cfg)
	var runs [3][]uint64
	for i, ds := range [][]Decision{nil, nil, {{Point: 5, Thread: 3}}} {
		if _, err := r.run(&forced{ds: ds}, nil); err != nil {
			t.Fatal(err)
		}
		runs[i] = append([]uint64(nil), r.ctl.hashes...)
	}
	hashed := 0
	for _, h := range runs[0] {
		if h != 0 {
			hashed++
		}
	}
	if hashed < len(runs[0])/2 || !slices.Equal(runs[0], runs[1]) {
		t.Fatalf("the same schedule twice: %x and %x (%d of %d points hashed)", runs[0], runs[1], hashed, len(runs[0]))
	}
	if slices.Equal(runs[0], runs[2]) {
		t.Errorf("another schedule hashes alike: %x", runs[2])
	}
}

// TestStateCacheKeepsOutcomes: the state cache runs fewer schedules but
// leaves out no outcome: over every schedule within two preemptions of a
// program whose output is its interleaving (three threads adding to one
// List), the search with the cache prints each output the search without
// it prints. (A hash that leaves out the List's elements fails here.)
func TestStateCacheKeepsOutcomes(t *testing.T) {
	src := []byte(`import io;
import thread;

class Log {
    public List<int> xs;
    public Log() {
        xs = {};
    }
}

void w(Log l, int id) {
    for (int i = 0; i < 2; i += 1) {
        l.xs.add(id);
    }
}

int main() {
    Log l = new Log();
    Thread a = thread.spawn(w, l, 1);
    Thread b = thread.spawn(w, l, 2);
    Thread c = thread.spawn(w, l, 3);
    a.join();
    b.join();
    c.join();
    io.print(l.xs);
    return 0;
}
`)
	outcomes := func(cache bool) (map[string]bool, int) {
		prog, err := compile.CompileFile("log.n", src, compile.Options{Lib: library()})
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Prog: prog, Path: "log.n", Source: src, Strategy: DFS, Depth: 2, StateCache: cache,
			Expect: []byte("the output is part of the state\n")}
		if err := cfg.defaults(); err != nil {
			t.Fatal(err)
		}
		sched.InstrumentAccesses(cfg.Prog)
		r := newRunner(&cfg)
		r.ctl.alts = true // as exploreDFS does
		seen := stateCache{}
		outs := map[string]bool{}
		runs := 0
		run := func(ds []Decision, cost int, after int64) *dfsFrame {
			if _, err := r.run(&forced{ds: ds}, nil); err != nil {
				t.Fatal(err)
			}
			runs++
			outs[r.out.String()] = true
			fr := &dfsFrame{ds: ds, cost: cost, after: after,
				trace: append([]quantum(nil), r.ctl.trace...), ids: append([]int64(nil), r.ctl.ids...)}
			if cache {
				fr.limit = seen.prune(r.ctl.trace, r.ctl.hashes, after, cost)
			}
			return fr
		}
		stack := []*dfsFrame{run(nil, 0, -1)}
		for len(stack) > 0 {
			ds, cost, ok := stack[len(stack)-1].next(cfg.Depth)
			if !ok {
				stack = stack[:len(stack)-1]
				continue
			}
			stack = append(stack, run(ds, cost, ds[len(ds)-1].Point))
		}
		return outs, runs
	}
	all, n := outcomes(false)
	cached, m := outcomes(true)
	if len(all) < 3 || !maps.Equal(all, cached) || m >= n {
		t.Fatalf("without the cache %d schedules print %v; with it %d print %v", n, all, m, cached)
	}
	t.Logf("%d outputs: %d schedules, %d with the state cache", len(all), n, m)
}
