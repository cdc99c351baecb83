package explore

import (
	"errors"
	"sync"
)

// Bounded-preemption depth-first search (as CHESS: Musuvathi, Qadeer,
// "Iterative Context Bounding for Systematic Testing of Multithreaded
// Programs", PLDI 2007). A schedule is a list of Decisions; the search
// starts from the default schedule (no decision) and, from the trace of
// each run, makes its children: the same decisions plus one more at a
// later point, for every point and every other thread runnable there,
// as long as the preemptions stay within the bound. A choice where the
// previous thread cannot go on (it parked, ended) is free; a switch away
// from a thread that could go on is a preemption. Every schedule within
// the bound is run once, and the search says when it has run them all.

// A dfsFrame is a node of the search whose children are being run.
type dfsFrame struct {
	ds    []Decision
	cost  int
	after int64 // children decide at points after this one
	trace []quantum
	ids   []int64
	qi    int   // the quantum whose points are being tried
	off   int64 // the point in it (0: its Pick)
	ai    int   // the next runnable thread to try there
	kids  int   // children made so far
	// limit, if > 0, is the first point whose children are not made: the
	// state there was met before (the state cache).
	limit int64
}

// next returns the next child of f within the bound, or false.
func (f *dfsFrame) next(bound int) ([]Decision, int, bool) {
	for f.qi < len(f.trace) {
		q := &f.trace[f.qi]
		last := q.red - 1 // the budget ran out at q.red: the next Pick is there
		if q.self {
			last = q.red
		}
		if f.off > int64(max(0, last)) {
			f.qi, f.off, f.ai = f.qi+1, 0, 0
			continue
		}
		p := q.point + f.off
		if f.limit > 0 && p >= f.limit {
			return nil, 0, false
		}
		if p <= f.after {
			f.off, f.ai = f.off+1, 0
			continue
		}
		alts := f.ids[q.alt : q.alt+q.nal]
		for f.ai < len(alts) {
			u := alts[f.ai]
			f.ai++
			if u == q.thread {
				continue
			}
			cost := 1
			if f.off == 0 && !q.prevRun {
				cost = 0 // the previous thread could not go on: a free choice
			}
			if f.cost+cost > bound {
				continue
			}
			f.kids++
			ds := append(append([]Decision(nil), f.ds...), Decision{Point: p, Thread: u})
			return ds, f.cost + cost, true
		}
		f.off, f.ai = f.off+1, 0
	}
	return nil, 0, false
}

// exploreDFS runs the search; shard I of K (and worker j of J within it)
// takes the subtrees of the root's children c with c mod K·J = I + K·j.
func exploreDFS(cfg *Config, res *Result, prog *Progress) (map[string]*Failure, error) {
	slots := cfg.Shards * cfg.Jobs
	limit := (cfg.Schedules + slots - 1) / slots // schedules per worker
	founds := make([]map[string]*Failure, cfg.Jobs)
	errs := make([]error, cfg.Jobs)
	counts := make([]int, cfg.Jobs)
	complete := make([]bool, cfg.Jobs)
	var wg sync.WaitGroup
	for j := 0; j < cfg.Jobs; j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slot := cfg.Shard + cfg.Shards*j
			found := map[string]*Failure{}
			founds[j] = found
			r := newRunner(cfg)
			r.ctl.alts = true
			seen := stateCache{}
			n := 0
			cut := false // a point had more runnable threads than the search tries
			run := func(ds []Decision, cost int, after int64) (*dfsFrame, bool) {
				f, err := r.run(&forced{ds: ds}, nil)
				if err != nil {
					errs[j] = err
					return nil, false
				}
				cut = cut || r.ctl.cut
				fr := &dfsFrame{ds: ds, cost: cost, after: after,
					trace: append([]quantum(nil), r.ctl.trace...), ids: append([]int64(nil), r.ctl.ids...)}
				if r.ctl.hashing && (after >= 0 || slots == 1) {
					fr.limit = seen.prune(r.ctl.trace, r.ctl.hashes, after, cost)
				}
				if f != nil && (slot == 0 || after >= 0) {
					if note(found, f, n, cfg.Shard, r) {
						prog.Failures.Add(1)
					}
				}
				return fr, true
			}
			root, ok := run(nil, 0, -1)
			if !ok {
				return
			}
			if slot == 0 {
				n++
				prog.Done.Add(1)
			}
			stack := []*dfsFrame{root}
			for len(stack) > 0 && n < limit && !prog.stopped() {
				top := stack[len(stack)-1]
				ds, cost, ok := top.next(cfg.Depth)
				if !ok {
					stack = stack[:len(stack)-1]
					continue
				}
				if top == root && (top.kids-1)%slots != slot {
					continue
				}
				fr, ok := run(ds, cost, ds[len(ds)-1].Point)
				if !ok {
					return
				}
				n++
				prog.Done.Add(1)
				stack = append(stack, fr)
			}
			counts[j], complete[j] = n, len(stack) == 0 && !cut
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	all := map[string]*Failure{}
	res.Complete = true
	for j := range founds {
		mergeFound(all, founds[j])
		res.Schedules += counts[j]
		res.Complete = res.Complete && complete[j]
	}
	return all, nil
}

// stateCache holds the states a worker's search has met at a scheduling
// point where it branches (after the schedule's last decision), with the
// fewest preemptions spent to get there. A schedule that meets one of
// them again, with no fewer preemptions spent, has nothing left to try
// from there on: every schedule that branches later has the future of one
// that branches from the state met before, within the same bound. The
// cache is per worker (a shard's subtrees are its own), and the root's
// states are not kept when the root's children are shared out.
type stateCache map[uint64]int

// prune records the states of a run (trace and hashes) at its points
// after after, reached with cost preemptions, and returns the first point
// whose state was met before with no more preemptions (0: none).
func (c stateCache) prune(trace []quantum, hashes []uint64, after int64, cost int) int64 {
	for i, q := range trace {
		if q.point <= after || i >= len(hashes) || hashes[i] == 0 {
			continue
		}
		h := hashes[i]
		if old, ok := c[h]; ok && old <= cost {
			return max(q.point, 1)
		}
		c[h] = cost
	}
	return 0
}
