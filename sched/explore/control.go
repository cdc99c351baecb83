package explore

import (
	"hash/maphash"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// Points. Every moment at which a thread may be preempted is a point,
// numbered from 0 in the order a run passes them: each Pick of the
// scheduler's Strategy is one, and so is each safepoint a thread passes
// inside a quantum. A quantum that starts at point P and spends k
// reductions ends at point P+k if its budget ran out there (the next Pick
// is at that safepoint), or P+k+1 if the thread stopped by itself (a
// synchronisation operation, a park, its end). Two runs that make the
// same choices up to a point pass the same points up to it, which is
// what lets a schedule be written as a list of Decisions.

// A Decision forces the choice at one point: thread Thread runs from
// point Point on.
type Decision struct {
	Point  int64 `json:"point"`
	Thread int64 `json:"thread"`
}

// A chooser is a strategy's choice at each Pick: the thread to run and
// its budget (0: until it stops by itself or the quota runs out). def is
// the default choice (the previous thread if it can go on, else the
// first runnable one).
type chooser interface {
	choose(c *controller, runnable []*vm.Thread, def *vm.Thread) (*vm.Thread, int)
}

// A quantum is what the trace keeps of one Pick and the quantum after it.
type quantum struct {
	point    int64 // the point of the Pick
	thread   int64 // the thread chosen
	def      int64 // the default choice
	prevRun  bool  // the previous thread could have gone on (a switch is a preemption)
	red      int   // reductions the quantum spent
	self     bool  // the thread stopped by itself (not at its budget)
	alt, nal int32 // the runnable threads at the Pick: c.ids[alt:alt+nal]
}

// The step bound's exit code: a run stopped there ends with it.
const boundCode = 124

// maxAlts is the most runnable threads a depth-first search tries at one
// point (the first in run-queue order): past it the search is not
// complete, and says so, but its memory stays linear in the run's length.
const maxAlts = 16

// controller is the sched.Strategy of one explored run: it numbers the
// points, keeps the trace, asks its chooser and stops the run at the step
// bound.
type controller struct {
	ch    chooser
	quota int
	bound int64 // points after which the run is stopped (livelock)
	// fair: a thread that ran more points in a row while others could
	// run is switched away from by the default choice (a spin-wait).
	fair int64

	prev       *vm.Thread
	prevRed    int64
	prevBudget int
	point      int64
	runStart   int64 // the point since which prev has been running
	runLen     int64 // points prev has run in a row, at this Pick
	trace      []quantum
	stopped    bool // the run passed the step bound

	// With alts (the runs a depth-first search branches from), ids holds
	// the runnable threads of every Pick (quantum.alt), at most maxAlts of
	// them; cut says that a Pick had more. Other runs keep none: a
	// program with n threads would keep n ids at each of its n Picks.
	alts bool
	ids  []int64
	cut  bool

	// With a state cache (dfs, Config.StateCache): the hash of the state
	// at every Pick (0: not hashable), parallel to trace.
	hashing bool
	s       *sched.Scheduler
	seed    maphash.Seed
	hashes  []uint64
	extra   func(h *maphash.Hash) // the runner's part of the state
	hash    maphash.Hash
	hasher  sched.StateHasher
}

func (c *controller) reset(ch chooser) {
	c.ch, c.prev, c.prevRed, c.prevBudget, c.point, c.stopped, c.cut = ch, nil, 0, 0, 0, false, false
	c.runStart, c.runLen = 0, 0
	c.trace, c.ids, c.hashes = c.trace[:0], c.ids[:0], c.hashes[:0]
}

// stateHash returns the hash of the state at this Pick (0: none): the
// program's (sched.StateHasher), the runner's, and what the default choice
// depends on (the previous thread, how long it has run).
func (c *controller) stateHash(prev *vm.Thread, prevRun bool) uint64 {
	h := &c.hash
	h.SetSeed(c.seed)
	if !c.hasher.Hash(c.s, h) {
		return 0
	}
	var b [24]byte
	if prev != nil {
		putU64(b[0:], uint64(prev.ID))
	}
	if prevRun {
		putU64(b[8:], uint64(c.runLen)+1)
	}
	h.Write(b[:16])
	if c.extra != nil {
		c.extra(h)
	}
	return h.Sum64() | 1
}

func putU64(b []byte, x uint64) {
	for i := range 8 {
		b[i] = byte(x >> (8 * i))
	}
}

// account closes the quantum of the previous Pick.
func (c *controller) account() {
	if c.prev == nil {
		return
	}
	k := int(c.prev.Reductions() - c.prevRed)
	self := !(k == c.prevBudget && c.prev.State == vm.Runnable)
	c.point += int64(k)
	if self {
		c.point++
	}
	if n := len(c.trace); n > 0 {
		c.trace[n-1].red, c.trace[n-1].self = k, self
	}
	c.prev = nil
}

// Pick implements sched.Strategy.
func (c *controller) Pick(runnable []*vm.Thread) sched.Pick {
	prev := c.prev
	c.account()
	if c.point > c.bound {
		c.stopped = true
		return sched.Pick{End: true, Code: boundCode}
	}
	def := runnable[0]
	prevRun := false
	c.runLen = 0
	if prev != nil && prev.State == vm.Runnable {
		def, prevRun = prev, true
		c.runLen = c.point - c.runStart
		if c.runLen > c.fair && len(runnable) > 1 {
			for _, r := range runnable {
				if r != prev {
					def = r
					break
				}
			}
		}
	}
	if c.hashing {
		var h uint64
		if f, ok := c.ch.(*forced); !ok || len(f.ds) == 0 || c.point > f.ds[len(f.ds)-1].Point {
			h = c.stateHash(prev, prevRun) // where the search branches: after the last decision
		}
		c.hashes = append(c.hashes, h)
	}
	t, budget := c.ch.choose(c, runnable, def)
	if t == nil {
		t = def
	}
	if t != prev {
		c.runStart = c.point
	}
	if budget <= 0 || budget > c.quota {
		budget = c.quota
	}
	alt, nal := int32(len(c.ids)), int32(0)
	if c.alts {
		alts := runnable
		if len(alts) > maxAlts {
			alts, c.cut = alts[:maxAlts], true
		}
		for _, r := range alts {
			c.ids = append(c.ids, r.ID)
		}
		nal = int32(len(alts))
	}
	c.trace = append(c.trace, quantum{point: c.point, thread: t.ID, def: def.ID, prevRun: prevRun,
		alt: alt, nal: nal})
	c.prev, c.prevRed, c.prevBudget = t, t.Reductions(), budget
	return sched.Pick{Thread: t, Budget: budget}
}

// finish closes the last quantum once the run is over.
func (c *controller) finish() { c.account() }

// decisions returns the schedule of the run as the list of its choices
// that differ from the default, and how many of them are preemptions.
func (c *controller) decisions() ([]Decision, int) {
	var ds []Decision
	pre := 0
	for _, q := range c.trace {
		if q.thread != q.def {
			ds = append(ds, Decision{Point: q.point, Thread: q.thread})
			if q.prevRun {
				pre++
			}
		}
	}
	return ds, pre
}

// forced follows a list of decisions (sorted by point) and takes the
// default choice everywhere else.
type forced struct {
	ds   []Decision
	next int
}

func (f *forced) choose(c *controller, runnable []*vm.Thread, def *vm.Thread) (*vm.Thread, int) {
	t := def
	for f.next < len(f.ds) && f.ds[f.next].Point < c.point {
		f.next++ // a decision the run did not reach as a point: it went another way
	}
	if f.next < len(f.ds) && f.ds[f.next].Point == c.point {
		for _, r := range runnable {
			if r.ID == f.ds[f.next].Thread {
				t = r
			}
		}
		f.next++
	}
	if f.next < len(f.ds) {
		return t, int(f.ds[f.next].Point - c.point)
	}
	return t, 0
}
