package explore

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nlangdbg/nlangdbg/vm"
)

// pct is probabilistic concurrency testing (Burckhardt, Kothari,
// Musuvathi, Nagarakatte: "A Randomized Scheduler with Probabilistic
// Guarantees of Finding Bugs", ASPLOS 2010). Every thread gets a random
// priority above depth-1 when it first becomes runnable; the runnable
// thread of highest priority always runs; at depth-1 change points,
// drawn uniformly among the first k points of the run (k: the length of
// a run under the default schedule), the running thread's priority drops
// to depth-1-i at the i-th one. A bug that needs depth ordering
// constraints is found by one run with probability at least
// 1/(n·k^(depth-1)) for n threads.
//
// A thread that runs more than fair points in a row while others could
// run (a spin-wait) drops below every other priority, so that a
// spin-wait is not mistaken for a livelock.
type pct struct {
	rng     *rand.Rand
	depth   int
	changes []int64 // change points, sorted
	next    int
	// prio is each thread's priority, by thread id (ids are dense from
	// 1); NaN is none yet. A slice, not a map: every Pick reads the
	// priority of every runnable thread.
	prio []float64
	low  float64 // the lowest priority given so far
	fair int64
}

func newPCT(rng *rand.Rand, depth int, k, fair int64) *pct {
	p := &pct{rng: rng, depth: depth, fair: fair}
	for i := 1; i < depth; i++ {
		p.changes = append(p.changes, 1+rng.Int64N(max(1, k)))
	}
	slices.Sort(p.changes)
	p.low = 0
	return p
}

func (p *pct) choose(c *controller, runnable []*vm.Thread, def *vm.Thread) (*vm.Thread, int) {
	last := int64(-1)
	if n := len(c.trace); n > 0 {
		last = c.trace[n-1].thread
	}
	for p.next < len(p.changes) && p.changes[p.next] <= c.point {
		if last >= 0 {
			p.set(last, float64(p.depth-1-p.next))
			p.low = min(p.low, float64(p.depth-1-p.next))
		}
		p.next++
	}
	if last >= 0 && c.runLen > p.fair && len(runnable) > 1 {
		p.low--
		p.set(last, p.low)
	}
	var best *vm.Thread
	bp := 0.0
	for _, t := range runnable {
		pr, ok := p.get(t.ID)
		if !ok {
			pr = float64(p.depth) + p.rng.Float64()
			p.set(t.ID, pr)
		}
		if best == nil || pr > bp {
			best, bp = t, pr
		}
	}
	if p.next < len(p.changes) {
		return best, int(p.changes[p.next] - c.point)
	}
	return best, 0
}

// get returns the priority of thread id, if it has one.
func (p *pct) get(id int64) (float64, bool) {
	if id < 0 || id >= int64(len(p.prio)) || math.IsNaN(p.prio[id]) {
		return 0, false
	}
	return p.prio[id], true
}

// set gives thread id priority pr.
func (p *pct) set(id int64, pr float64) {
	if id < 0 {
		return
	}
	for int64(len(p.prio)) <= id {
		p.prio = append(p.prio, math.NaN()) // none yet
	}
	p.prio[id] = pr
}

// random is a seeded random walk: at every point a thread drawn
// uniformly among the runnable ones runs.
type random struct{ rng *rand.Rand }

func (r random) choose(c *controller, runnable []*vm.Thread, def *vm.Thread) (*vm.Thread, int) {
	if len(runnable) == 1 {
		return runnable[0], 0 // until something else can run
	}
	return runnable[r.rng.IntN(len(runnable))], 1
}
