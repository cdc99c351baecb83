package sched

import (
	"errors"

	"github.com/nlangdbg/nlangdbg/vm"
)

// This file lets a Strategy take the scheduler's decisions: which thread
// runs at each scheduling point and for how long. Schedule exploration
// (package sched/explore) and replays of explored schedules use it. With
// no strategy installed the scheduler behaves as without this file (one
// nil check per dispatch and per synchronisation native).

// A Strategy chooses the schedule of a one-carrier run. Its Pick is
// called at every scheduling point: the start of every dispatch, which
// with a strategy installed comes after every synchronisation operation
// (the natives of spawn, join, channels, futures, locks, semaphores and
// atomics end the quantum of the thread that calls them), when a thread
// parks, yields or ends, and when the budget a Pick gave runs out (at a
// safepoint: a function entry or a loop back-edge).
//
// Pick is called on the carrier with the scheduler's lock held: it must
// not call the Scheduler's methods.
type Strategy interface {
	// Pick chooses among runnable, the runnable threads in run-queue
	// order (never empty). The threads' Reductions and States tell what
	// happened since the last Pick.
	Pick(runnable []*vm.Thread) Pick
}

// A Pick is a Strategy's decision at a scheduling point.
type Pick struct {
	// Thread is the thread to run, one of the runnable ones; nil leaves
	// the choice to the scheduler (its run queue, Options.Seed).
	Thread *vm.Thread
	// Budget is the number of reductions the thread may spend before it
	// is preempted (at its Budget-th safepoint); 0 is the quota.
	Budget int
	// End ends the program now, with exit code Code, instead of running
	// a thread.
	End  bool
	Code int
}

// ErrStrategyCarriers is returned by SetStrategy and SetRaceHook for a
// scheduler with several carriers.
var ErrStrategyCarriers = errors.New("a scheduling strategy or a race detector needs one carrier")

// SetStrategy installs st (nil removes it). Call it before Run or the
// first Dispatch; it needs one carrier.
func (s *Scheduler) SetStrategy(st Strategy) error {
	if len(s.carriers) > 1 {
		return ErrStrategyCarriers
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.strat = st
	return nil
}

// pickStrategy asks the strategy which thread carrier c runs next. It
// reports false when the strategy leaves the choice to the scheduler.
// Must hold s.mu.
func (s *Scheduler) pickStrategy(c *carrier) (*vm.Thread, bool) {
	n := c.runq.len()
	if n == 0 {
		return nil, false
	}
	buf := s.stratBuf[:0]
	for i := 0; i < n; i++ {
		buf = append(buf, c.runq.at(i))
	}
	s.stratBuf = buf
	p := s.strat.Pick(buf)
	clear(buf)
	if p.End {
		if !s.ended {
			s.end(p.Code)
		}
		return nil, true
	}
	t := p.Thread
	if t == nil || t.Sched == nil || !info(t).queued {
		return nil, false
	}
	s.dequeue(t)
	s.stratBudget = max(0, p.Budget)
	return t, true
}

// syncPoint makes the native call in progress of t a scheduling point of
// the strategy, if one is installed and t is being dispatched, and tells
// the race hook, if any. For the natives that do not go through serial
// (atomics); a strategy and a race hook need one carrier, so the fields
// read need no lock.
func syncPoint(t *vm.Thread, args []vm.Value) {
	s := schedOf(t)
	if s == nil || (s.strat == nil && s.race == nil) {
		return
	}
	if ti := info(t); ti != nil && ti.on != nil {
		if s.strat != nil {
			t.YieldAfterNative = true
		}
		if s.race != nil {
			raceSync(s, t, args)
		}
	}
}

// PreemptAtTrap is for a vm.DebugHook whose OnTrap returns true to make
// the trap a scheduling point rather than a debugger's stop: called on t
// before returning true, the stop is a yield (the thread goes to the back
// of the run queue and the strategy picks), not a trap. For
// --granularity shared, whose traps are the shared accesses
// (InstrumentAccesses).
func PreemptAtTrap(t *vm.Thread) {
	if ti := info(t); ti != nil {
		ti.preempt = true
	}
}

// IsAccess reports whether the instruction of fn at pc (as compiled)
// reads or writes what threads may share: a field, an array or List
// element, or a List or Dict through one of their methods.
func IsAccess(fn *vm.Funcode, pc int32) bool {
	return fn.AccessOf(fn.Instr(pc)).Kind != vm.NoAccess
}

// InstrumentAccesses patches every access of prog (IsAccess) with a
// trap, for the race detector or --granularity shared. Call it before any
// machine runs the program; a program never instrumented runs its
// instructions unchanged.
func InstrumentAccesses(prog *vm.Program) {
	for _, fn := range prog.Funcs {
		for pc := range fn.Code {
			if IsAccess(fn, int32(pc)) {
				fn.SetTrap(int32(pc))
			}
		}
	}
}

// AccessPoints is the debug hook of a run at --granularity shared: every
// instrumented access is a scheduling point (PreemptAtTrap). Next, if not
// nil, sees every trap first (the race detector sees the access); where
// it stops the thread (returns true) there is no scheduling point. A
// debugger, whose stops at an access must keep the scheduling point for
// when the thread resumes, composes them itself (inspect/shared.go).
type AccessPoints struct{ Next vm.DebugHook }

// OnTrap implements vm.DebugHook.
func (h AccessPoints) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	if h.Next != nil && h.Next.OnTrap(t, fn, pc) {
		return true
	}
	if IsAccess(fn, pc) {
		PreemptAtTrap(t)
		return true
	}
	return false
}
