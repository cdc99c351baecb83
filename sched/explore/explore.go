// Package explore runs a program under many schedules on one carrier to
// find the interleavings that break it: deadlocks, uncaught exceptions,
// assertion failures, nonzero exit codes, livelocks (a run past a step
// bound) and output that differs from the expected one.
//
// The schedule of a run is chosen by a sched.Strategy (controller) that
// numbers the scheduling points (see Decision) and asks a strategy:
// probabilistic concurrency testing (PCT, the default), a seeded random
// walk, or a depth-first search of all schedules with a bounded number of
// preemptions (DFS). Each distinct failure (kind and place) is reported
// once, with the number of schedules it took; its schedule is shrunk to
// the fewest preemptions and can be saved as a recording (Save) that
// `nlangdbg replay` reproduces.
//
// Schedules are numbered; --shard I/K runs those whose number is I modulo
// K (for DFS: the subtrees of the first-level choices), so that K shards
// run on K machines cover what one run covers, and Merge combines their
// results.
package explore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/race"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
)

// Strategies.
const (
	PCT    = "pct"
	Random = "random"
	DFS    = "dfs"
)

// Config says what to explore and how.
type Config struct {
	Prog   *vm.Program
	Path   string // the program's file, as given
	Source []byte
	Args   []string

	Strategy  string // PCT (default), Random or DFS
	Schedules int    // how many schedules to run (all shards together); 0: 1000
	// Depth is PCT's bug depth (default 3) or DFS's preemption bound
	// (default 2); unused by Random.
	Depth int
	Seed  int64 // PCT's and Random's seed
	Jobs  int   // parallel workers on this machine; 0: 1
	// Shard I of Shards runs the schedules whose number is I modulo
	// Shards; Shards 0 or 1 runs them all.
	Shard, Shards int
	// StepBound is the number of scheduling points after which a run
	// is stopped and reported as a livelock; 0: 1,000,000.
	StepBound int64
	Quota     int    // the quota of a quantum; 0: sched.DefaultQuota
	Expect    []byte // the expected stdout, if not nil
	MaxFrames int
	MaxHeap   int64
	// FS, if not nil, restricts the file access of every run.
	FS *vm.FSPolicy
	// Granularity is "shared" (the default: scheduling points at
	// safepoints, synchronisation operations and before every access of
	// a field, an array or List element, a List or a Dict) or "sync"
	// (only safepoints and synchronisation operations). Explore
	// instruments Prog for "shared".
	Granularity string
	// Race runs every schedule with the race detector (sched/race): a
	// data race is a failure. Explore instruments Prog for it.
	Race bool
	// StateCache makes dfs hash the program's state at every scheduling
	// point (sched.StateHasher) and run no schedule that branches after a
	// state the search has met before with as many preemptions left: its
	// future is one already explored (see docs/explore.md).
	StateCache bool
	// ShrinkRuns caps the runs spent shrinking each failure; 0: 2000.
	ShrinkRuns int
	// FailOnLeak makes a run that ends with leaked threads (parked on
	// what no thread that can run reaches: sched.Scheduler.Leaks) a
	// failure.
	FailOnLeak bool

	fair int64
	hash string // the program's record.ProgramHash
}

// Check returns the error Explore would return for the configuration
// before it runs anything (an unknown strategy, a shard out of range).
func (c Config) Check() error { return c.defaults() }

func (c *Config) defaults() error {
	if c.Strategy == "" {
		c.Strategy = PCT
	}
	switch c.Strategy {
	case PCT, Random, DFS:
	default:
		return fmt.Errorf("unknown strategy %q (want pct, random or dfs)", c.Strategy)
	}
	switch c.Granularity {
	case "":
		c.Granularity = "shared"
	case "sync", "shared":
	default:
		return fmt.Errorf("unknown granularity %q (want sync or shared)", c.Granularity)
	}
	if c.Schedules <= 0 {
		c.Schedules = 1000
	}
	if c.Depth <= 0 {
		c.Depth = 3
		if c.Strategy == DFS {
			c.Depth = 2
		}
	}
	if c.Jobs <= 0 {
		c.Jobs = 1
	}
	if c.Shards <= 0 {
		c.Shards = 1
	}
	if c.Shard < 0 || c.Shard >= c.Shards {
		return fmt.Errorf("shard %d/%d: want 0 ≤ I < K", c.Shard, c.Shards)
	}
	if c.StepBound <= 0 {
		c.StepBound = 1_000_000
	}
	if c.Quota <= 0 {
		c.Quota = sched.DefaultQuota
	}
	if c.ShrinkRuns <= 0 {
		c.ShrinkRuns = 2000
	}
	c.fair = 10_000
	if c.Prog == nil {
		return errors.New("no program")
	}
	return nil
}

// A Failure is one distinct failure an exploration found.
type Failure struct {
	Kind  string `json:"kind"`  // "deadlock", "assertion failure", "uncaught X", "exit code N", "livelock", "output differs", "data race"
	Place string `json:"place"` // where: the throw, the blocked threads, the first differing line
	// Message is the failing run's report (the deadlock report, the
	// exception and its backtrace, the differing line).
	Message string `json:"message"`
	// Schedule is the number (from 0) of the first schedule that hit
	// it: it took Schedule+1 schedules. Hits counts the schedules that
	// hit it.
	Schedule int `json:"schedule"`
	Hits     int `json:"hits"`
	// Preemptions of the schedule that first hit it, and of the shrunk
	// schedule Decisions.
	Preemptions int        `json:"preemptions"`
	Shrunk      int        `json:"shrunkPreemptions"`
	Decisions   []Decision `json:"decisions"`
	// Replay is the recording of the shrunk schedule, once saved.
	Replay string `json:"replay,omitempty"`
	// Shard is the shard that found it (merged results).
	Shard int `json:"shard"`

	found []Decision // the schedule as found
}

// Key identifies a failure: its kind and place.
func (f *Failure) Key() string { return f.Kind + "\x00" + f.Place }

// Result is what an exploration found.
type Result struct {
	Program     string `json:"program"`
	Strategy    string `json:"strategy"`
	Granularity string `json:"granularity"`
	Depth       int    `json:"depth"`
	Seed        int64  `json:"seed"`
	Shard       int    `json:"shard"`
	Shards      int    `json:"shards"`
	Schedules   int    `json:"schedules"` // schedules run
	// Complete says that DFS ran every schedule within its preemption
	// bound (the search space is exhausted).
	Complete bool `json:"complete"`
	// Points is the length, in scheduling points, of the run under the
	// default schedule (PCT's k).
	Points   int64      `json:"points"`
	Seconds  float64    `json:"seconds"`
	Failures []*Failure `json:"failures"`

	hash string // the program's hash, for Save
}

// Failed reports whether anything was found.
func (r *Result) Failed() bool { return len(r.Failures) > 0 }

// Progress counts what a running exploration has done; read it from
// another goroutine while Explore runs.
type Progress struct {
	Done     atomic.Int64 // schedules run
	Failures atomic.Int64 // distinct failures found so far (per worker, so it may count one twice)
	stop     atomic.Bool
}

// Stop ends the exploration early: each worker stops after the schedule
// it runs, and Explore shrinks and returns what was found (Schedules
// counts the schedules run).
func (p *Progress) Stop() { p.stop.Store(true) }

// stopped reports whether Stop was called.
func (p *Progress) stopped() bool { return p.stop.Load() }

// Explore runs the exploration cfg describes. prog, if not nil, is
// updated as it goes. Failures are shrunk but not saved (see Save).
func Explore(cfg Config, prog *Progress) (*Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if prog == nil {
		prog = &Progress{}
	}
	cfg.hash = record.ProgramHash(cfg.Prog) // before the race detector's traps, which the listing shows
	if cfg.Race || cfg.Granularity == "shared" {
		race.Instrument(cfg.Prog)
	}
	start := time.Now()
	res := &Result{Program: cfg.Path, Strategy: cfg.Strategy, Granularity: cfg.Granularity, Depth: cfg.Depth, Seed: cfg.Seed,
		Shard: cfg.Shard, Shards: cfg.Shards, Failures: []*Failure{}, hash: cfg.hash}
	// The default schedule, whose length is PCT's k.
	r0 := newRunner(&cfg)
	if _, err := r0.run(&forced{}, nil); err != nil {
		return nil, err
	}
	res.Points = max(1, r0.ctl.point)
	var found map[string]*Failure
	var err error
	if cfg.Strategy == DFS {
		found, err = exploreDFS(&cfg, res, prog)
	} else {
		found, err = exploreRandom(&cfg, res, prog)
	}
	if err != nil {
		return nil, err
	}
	for _, f := range found {
		res.Failures = append(res.Failures, f)
	}
	sortFailures(res.Failures)
	if err := shrinkAll(&cfg, res.Failures); err != nil {
		return nil, err
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// sortFailures orders failures by the schedule that found them.
func sortFailures(fs []*Failure) {
	slices.SortStableFunc(fs, func(a, b *Failure) int {
		if a.Schedule != b.Schedule {
			return a.Schedule - b.Schedule
		}
		if a.Kind != b.Kind {
			if a.Kind < b.Kind {
				return -1
			}
			return 1
		}
		if a.Place < b.Place {
			return -1
		}
		if a.Place > b.Place {
			return 1
		}
		return 0
	})
}

// note adds the failure f of schedule n (whose run r just ended) to found.
func note(found map[string]*Failure, f *failure, n, shard int, r *runner) bool {
	old := found[f.key()]
	if old != nil {
		old.Hits++
		if n >= old.Schedule {
			return false
		}
	}
	ds, pre := r.ctl.decisions()
	nf := &Failure{Kind: f.kind, Place: f.place, Message: f.message, Schedule: n, Hits: 1,
		Preemptions: pre, found: ds, Shard: shard}
	if old != nil {
		nf.Hits = old.Hits
	}
	found[f.key()] = nf
	return old == nil
}

// mergeFound merges the failures of b into a.
func mergeFound(a, b map[string]*Failure) {
	for k, f := range b {
		old := a[k]
		switch {
		case old == nil:
			a[k] = f
		case f.Schedule < old.Schedule:
			f.Hits += old.Hits
			a[k] = f
		default:
			old.Hits += f.Hits
		}
	}
}

// scheduleSeed returns the random source of schedule n.
func scheduleSeed(seed int64, n int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(n)^0x9e3779b97f4a7c15))
}

// exploreRandom runs PCT or random schedules: schedule n is a function of
// the seed and n, and shard I of K runs the n = I mod K.
func exploreRandom(cfg *Config, res *Result, prog *Progress) (map[string]*Failure, error) {
	// The shard's schedules are Shard, Shard+Shards, …: the i-th of them
	// is computed, not listed (a list of 2e9 took 16 GB before anything
	// ran).
	mine := 0
	if cfg.Shard < cfg.Schedules {
		mine = (cfg.Schedules-cfg.Shard-1)/cfg.Shards + 1
	}
	jobs := min(cfg.Jobs, max(1, mine))
	founds := make([]map[string]*Failure, jobs)
	errs := make([]error, jobs)
	counts := make([]int, jobs)
	var wg sync.WaitGroup
	for j := 0; j < jobs; j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := newRunner(cfg)
			found := map[string]*Failure{}
			founds[j] = found
			for i := j; i < mine && !prog.stopped(); i += jobs {
				n := cfg.Shard + i*cfg.Shards
				rng := scheduleSeed(cfg.Seed, n)
				var ch chooser = random{rng}
				switch {
				case n == 0:
					ch = &forced{} // schedule 0 is the default one
				case cfg.Strategy == PCT:
					ch = newPCT(rng, cfg.Depth, res.Points, cfg.fair)
				}
				f, err := r.run(ch, nil)
				if err != nil {
					errs[j] = err
					return
				}
				prog.Done.Add(1)
				counts[j]++
				if f != nil && note(found, f, n, cfg.Shard, r) {
					prog.Failures.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	all := map[string]*Failure{}
	for j, f := range founds {
		mergeFound(all, f)
		res.Schedules += counts[j]
	}
	return all, nil
}
