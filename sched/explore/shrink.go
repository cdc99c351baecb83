package explore

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/nlangdbg/nlangdbg/vm"
)

// shrinkAll shrinks the schedule of every failure, cfg.Jobs at a time.
func shrinkAll(cfg *Config, fs []*Failure) error {
	errs := make([]error, len(fs))
	sem := make(chan struct{}, cfg.Jobs)
	var wg sync.WaitGroup
	for i, f := range fs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = shrink(cfg, f)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// shrink makes f.Decisions a schedule with as few preemptions (then as
// few decisions) as it finds that still hits f: it drops one decision at
// a time, last first, and keeps the run's own schedule whenever the run
// still fails the same way, until no single decision can go (or
// cfg.ShrinkRuns runs are spent). The result is minimal in that sense:
// dropping any one of its decisions loses the failure.
func shrink(cfg *Config, f *Failure) error {
	r := newRunner(cfg)
	ds, pre := f.found, f.Preemptions
	runs := 0
	for improved := true; improved && runs < cfg.ShrinkRuns; {
		improved = false
		for i := len(ds) - 1; i >= 0 && runs < cfg.ShrinkRuns; i-- {
			cand := append(append([]Decision(nil), ds[:i]...), ds[i+1:]...)
			got, err := r.run(&forced{ds: cand}, nil)
			runs++
			if err != nil {
				return err
			}
			if got == nil || got.key() != f.Key() {
				continue
			}
			nds, npre := r.ctl.decisions()
			if npre < pre || (npre == pre && len(nds) < len(ds)) {
				ds, pre, improved = nds, npre, true
				break
			}
		}
	}
	// Then look for a schedule with fewer preemptions: every schedule
	// with 0, 1, … preemptions in turn, depth first, within the runs
	// left; the first that fails the same way has the fewest.
	for b := 0; b < pre && runs < cfg.ShrinkRuns; b++ {
		got, n, err := searchBound(r, b, cfg.ShrinkRuns-runs, f.Key())
		runs += n
		if err != nil {
			return err
		}
		if got != nil {
			ds, pre = got, b
			break
		}
	}
	f.Decisions, f.Shrunk = ds, pre
	return nil
}

// searchBound runs the schedules with at most bound preemptions, depth
// first, at most max of them, and returns the decisions of the first
// whose failure has key want (nil if none), and the runs spent.
func searchBound(r *runner, bound, max int, want string) ([]Decision, int, error) {
	r.ctl.alts = true
	defer func() { r.ctl.alts = false }()
	runs := 0
	run := func(ds []Decision, cost int, after int64) (*dfsFrame, bool, error) {
		f, err := r.run(&forced{ds: ds}, nil)
		runs++
		if err != nil {
			return nil, false, err
		}
		fr := &dfsFrame{ds: ds, cost: cost, after: after,
			trace: append([]quantum(nil), r.ctl.trace...), ids: append([]int64(nil), r.ctl.ids...)}
		return fr, f != nil && f.key() == want, nil
	}
	root, hit, err := run(nil, 0, -1)
	if err != nil || hit {
		return []Decision{}, runs, err
	}
	stack := []*dfsFrame{root}
	for len(stack) > 0 && runs < max {
		top := stack[len(stack)-1]
		ds, cost, ok := top.next(bound)
		if !ok {
			stack = stack[:len(stack)-1]
			continue
		}
		fr, hit, err := run(ds, cost, ds[len(ds)-1].Point)
		if err != nil {
			return nil, runs, err
		}
		if hit {
			nds, _ := r.ctl.decisions()
			return nds, runs, nil
		}
		stack = append(stack, fr)
	}
	return nil, runs, nil
}

// Save writes the recording of each failure's shrunk schedule to
// dir/failure-K.replay (K from 1, in the order of res.Failures) and the
// result to dir/result.json; it sets each Failure's Replay.
func Save(cfg Config, res *Result, dir string) error {
	if err := cfg.defaults(); err != nil {
		return err
	}
	if res.hash != "" {
		cfg.hash = res.hash
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	r := newRunner(&cfg)
	for k, f := range res.Failures {
		path := filepath.Join(dir, fmt.Sprintf("failure-%d.replay", k+1))
		file, err := os.Create(path)
		if err != nil {
			return err
		}
		bw := bufio.NewWriter(file)
		got, err := r.run(&forced{ds: f.Decisions}, bw)
		if err == nil {
			err = bw.Flush()
		}
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		if got == nil || got.key() != f.Key() {
			// The program depends on something outside the schedule
			// (files it wrote in an earlier run): keep the result, say so.
			os.Remove(path)
			f.Message += fmt.Sprintf("\n(not saved: run again with this schedule, the program did not fail the same way; does it depend on files it writes?)")
			continue
		}
		f.Replay = path
	}
	return WriteResult(res, filepath.Join(dir, "result.json"))
}

// CheckOut checks that dir can hold what Save writes: it makes the
// directory (as Save does) and a file in it, which it removes. Call it
// before exploring, so that a directory that cannot be written is
// reported at once rather than after the exploration.
func CheckOut(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".explore-check-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// WriteResult writes res as JSON to path.
func WriteResult(res *Result, path string) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadResult reads a result written by WriteResult: a regular file of at
// most MaxResultSize bytes (vm.ReadRegularFile), checked by ParseResult.
func ReadResult(path string) (*Result, error) {
	b, err := vm.ReadRegularFile(path, MaxResultSize, "a result must be the result.json of an nlangdbg explore --out directory")
	if err != nil {
		return nil, err
	}
	res, err := ParseResult(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return res, nil
}

// MaxResultSize is the largest result.json ReadResult reads; MaxExpectSize
// the largest --expect-output file.
const (
	MaxResultSize = 64 << 20
	MaxExpectSize = 64 << 20
)

// ParseResult decodes a result written by WriteResult and checks what
// Merge relies on: a shard within its shards, counts that are not
// negative, failures that are there. A result file is not trusted (shards
// come from other machines).
func ParseResult(b []byte) (*Result, error) {
	res := &Result{}
	if err := json.Unmarshal(b, res); err != nil {
		return nil, fmt.Errorf("not an exploration result: %v", err)
	}
	if err := res.check(); err != nil {
		return nil, fmt.Errorf("not an exploration result: %v", err)
	}
	return res, nil
}

// check returns what is wrong with a result read from a file, or nil.
func (r *Result) check() error {
	switch {
	case r.Shards < 1 || r.Shard < 0 || r.Shard >= r.Shards:
		return fmt.Errorf("shard %d of %d (want 0 ≤ shard < shards)", r.Shard, r.Shards)
	case !count(int64(r.Schedules)) || !count(int64(r.Depth)) || !count(r.Points) || r.Seconds < 0:
		return fmt.Errorf("a count out of range (schedules %d, depth %d, points %d, seconds %g)", r.Schedules, r.Depth, r.Points, r.Seconds)
	}
	switch r.Strategy {
	case PCT, Random, DFS:
	default:
		return fmt.Errorf("unknown strategy %q", r.Strategy)
	}
	switch r.Granularity {
	case "", "sync", "shared":
	default:
		return fmt.Errorf("unknown granularity %q", r.Granularity)
	}
	for i, f := range r.Failures {
		switch {
		case f == nil:
			return fmt.Errorf("failure %d is null", i+1)
		case f.Kind == "":
			return fmt.Errorf("failure %d has no kind", i+1)
		case !count(int64(f.Schedule)) || !count(int64(f.Hits)) || f.Hits < 1 || !count(int64(f.Preemptions)) || !count(int64(f.Shrunk)):
			return fmt.Errorf("failure %d: a count out of range (schedule %d, hits %d, preemptions %d, shrunk %d)", i+1, f.Schedule, f.Hits, f.Preemptions, f.Shrunk)
		}
	}
	return nil
}

// maxCount bounds the counts of a result: more than any exploration
// runs, little enough that the counts of many shards add up without
// overflowing.
const maxCount = 1 << 50

// count reports whether n is a count a result may hold.
func count(n int64) bool { return n >= 0 && n <= maxCount }

// Merge combines the results of shards of one exploration: the schedules
// add up, and each distinct failure is kept once, with the earliest
// schedule that found it and the hits of all. The results must be of the
// same program, strategy, depth and seed.
func Merge(rs []*Result) (*Result, error) {
	if len(rs) == 0 || rs[0] == nil {
		return nil, errors.New("nothing to merge")
	}
	out := &Result{Program: rs[0].Program, Strategy: rs[0].Strategy, Granularity: rs[0].Granularity, Depth: rs[0].Depth, Seed: rs[0].Seed,
		Shards: rs[0].Shards, Points: rs[0].Points, Complete: true, Failures: []*Failure{}}
	all := map[string]*Failure{}
	seen := map[int]bool{}
	for _, r := range rs {
		if r == nil {
			return nil, errors.New("a result is missing")
		}
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("shard %d/%d: %v", r.Shard, r.Shards, err)
		}
		if r.Program != out.Program || r.Strategy != out.Strategy || r.Granularity != out.Granularity || r.Depth != out.Depth || r.Seed != out.Seed || r.Shards != out.Shards {
			return nil, fmt.Errorf("shard %d/%d (%q, %s depth %d seed %d) is not of the same exploration as %q, %s depth %d seed %d in %d shards",
				r.Shard, r.Shards, r.Program, r.Strategy, r.Depth, r.Seed, out.Program, out.Strategy, out.Depth, out.Seed, out.Shards)
		}
		if seen[r.Shard] {
			return nil, fmt.Errorf("shard %d/%d given twice", r.Shard, r.Shards)
		}
		seen[r.Shard] = true
		out.Schedules += r.Schedules
		out.Seconds = max(out.Seconds, r.Seconds)
		out.Complete = out.Complete && r.Complete
		m := map[string]*Failure{}
		for _, f := range r.Failures {
			f.Shard = r.Shard
			m[f.Key()] = f
		}
		mergeFound(all, m)
	}
	if len(seen) != out.Shards {
		out.Complete = false
	}
	for _, f := range all {
		out.Failures = append(out.Failures, f)
	}
	sortFailures(out.Failures)
	return out, nil
}
