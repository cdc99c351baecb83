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

	// The run queue changes between two Picks only by losing the thread
	// chosen and gaining threads at its back (spawned, woken, preempted:
	// FIFO). So queue keeps the runnable threads of the last Pick but the
	// one chosen, and heap the same threads by priority: a Pick whose
	// runnable threads start with queue reads only the new ones (reading
	// each thread of a long queue at every Pick made a program of 100,000
	// threads take minutes a schedule); any other Pick starts over.
	queue []*vm.Thread
	heap  prioHeap
	seq   uint64 // order of insertion into heap: earlier is first in the queue
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
	fresh := runnable
	if len(runnable) >= len(p.queue) && slices.Equal(runnable[:len(p.queue)], p.queue) {
		fresh = runnable[len(p.queue):]
	} else {
		p.heap = p.heap[:0]
	}
	for _, t := range fresh {
		pr, ok := p.get(t.ID)
		if !ok {
			pr = float64(p.depth) + p.rng.Float64()
			p.set(t.ID, pr)
		}
		p.seq++
		p.heap.push(prioEntry{pr: pr, seq: p.seq, t: t})
	}
	// the runnable thread of highest priority (the first in the queue
	// among equals), as a scan of them all would find it
	best := p.heap.pop().t
	p.queue = p.queue[:0]
	for _, t := range runnable {
		if t != best {
			p.queue = append(p.queue, t)
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

// A prioEntry is a queued thread with its priority.
type prioEntry struct {
	pr  float64
	seq uint64
	t   *vm.Thread
}

// before orders entries: higher priority first, then earlier in the
// queue.
func (a prioEntry) before(b prioEntry) bool {
	return a.pr > b.pr || (a.pr == b.pr && a.seq < b.seq)
}

// prioHeap is a binary heap of entries, the first (before all others) on
// top.
type prioHeap []prioEntry

func (h *prioHeap) push(e prioEntry) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		up := (i - 1) / 2
		if !s[i].before(s[up]) {
			break
		}
		s[i], s[up] = s[up], s[i]
		i = up
	}
}

// pop removes and returns the top entry. The heap must not be empty.
func (h *prioHeap) pop() prioEntry {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = prioEntry{}
	s = s[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && s[l].before(s[m]) {
			m = l
		}
		if r < n && s[r].before(s[m]) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
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
