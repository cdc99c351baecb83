package record

import (
	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// This file replays schedules: a recording whose Header.Scheduled is set
// (one made by nlangdbg explore) is replayed with the Replayer as the
// scheduler's Strategy, so that every quantum is the recorded one
// whatever the quota and seed would have chosen.

// SetClock makes c the clock whose readings r logs (the wall clock by
// default). Call it before Start.
func (r *Recorder) SetClock(c sched.Clock) { r.inner = c }

// Pick implements sched.Strategy: the thread of the next recorded
// quantum, with a budget that ends it where it ended; at the end of the
// recorded quanta, the end of the program with the recorded exit code.
func (p *Replayer) Pick(runnable []*vm.Thread) sched.Pick {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pick(runnable, true)
}

// pick is Pick; with end false, a recording without more quanta leaves
// the choice to the scheduler. Must hold p.mu.
func (p *Replayer) pick(runnable []*vm.Thread, end bool) sched.Pick {
	if p.div != nil {
		return sched.Pick{}
	}
	d := decoder{p: p.d.p, off: p.d.off}
	for d.off < len(d.p) && d.err == nil {
		if d.p[d.off] != evDispatch {
			skipEvent(&d)
			continue
		}
		d.byte()
		id, stop, red := int64(d.uvarint()), vm.Stop(d.byte()), int(d.uvarint())
		red -= p.traps[id] // a debugger's trap cut the quantum: the rest
		budget := red + 1  // it stops by itself before its next safepoint
		if stop == vm.StopBudget {
			budget = red
		}
		budget = min(budget, p.maxBudget())
		for _, t := range runnable {
			if t.ID == id {
				return sched.Pick{Thread: t, Budget: max(1, budget)}
			}
		}
		return sched.Pick{} // diverged: AfterDispatch says so
	}
	if end && d.err == nil {
		return sched.Pick{End: true, Code: p.rec.ExitCode}
	}
	return sched.Pick{}
}

// maxBudget bounds the budget of a replayed quantum: a recorded quantum
// is not longer than the quota (checked against sched.MaxQuota), whatever
// its event says, nor than what is left under the step cap. Must hold
// p.mu.
func (p *Replayer) maxBudget() int {
	q := p.rec.Header.Quota
	if q <= 0 {
		q = sched.DefaultQuota
	}
	b := int64(q) + 1 // a quantum that stops by itself may spend all of its quota
	if p.maxSteps > 0 {
		b = min(b, max(1, p.maxSteps-p.steps+1))
	}
	return int(b)
}

// journalStrategy replays the schedule of a journal's log while it
// replays, and leaves the scheduler to its own choices past the frontier.
type journalStrategy struct{ j *Journal }

func (js journalStrategy) Pick(runnable []*vm.Thread) sched.Pick {
	rp := js.j.live()
	if rp == nil {
		return sched.Pick{}
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.pick(runnable, false)
}

// sharedPoints makes every shared access of m's program a scheduling
// point again, as in the explored run of a recording at --granularity
// shared.
func sharedPoints(m *vm.Machine) {
	sched.InstrumentAccesses(m.Prog)
	m.Hook = sched.AccessPoints{Next: m.Hook}
}
