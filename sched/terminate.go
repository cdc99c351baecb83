package sched

import (
	"container/heap"
	"errors"
	"fmt"

	"github.com/nlangdbg/nlangdbg/vm"
)

// Terminate makes t raise exc (a vm.NewTermination) where it is, so that
// it unwinds through its finally blocks and ends. A parked thread leaves
// the wait queue of what it waits on and is woken with exc (a sleep's
// timer is dropped); a runnable one raises exc at its next instruction
// when next dispatched. A thread blocked on input or pinned in a native
// cannot be reached and is refused, as is an ended one. The scheduler
// must not be dispatching (the debugger has stopped the world).
func (s *Scheduler) Terminate(t *vm.Thread, exc *vm.Object) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ti := info(t)
	switch {
	case t.State == vm.Dead || ti == nil:
		return fmt.Errorf("thread %d has ended", t.ID)
	case ti.pinned() != nil:
		return fmt.Errorf("thread %d is pinned in %s (a native blocking its carrier): it cannot be terminated until that returns", t.ID, ti.pinned().Name)
	case t.State == vm.Waiting:
		if !s.unwait(t) {
			return fmt.Errorf("thread %d waits for %s, which cannot be interrupted", t.ID, t.WaitReason)
		}
		s.wake(t, vm.Value{}, &vm.Throw{Obj: exc})
	case t.State == vm.Runnable:
		t.RaiseWhenResumed(exc)
	default:
		return errors.New("sched: Terminate while the thread runs")
	}
	return nil
}

// unwait takes the parked t out of the wait queue of what it waits on
// and reports whether it could. Must hold s.mu.
func (s *Scheduler) unwait(t *vm.Thread) bool {
	switch o := t.WaitOn.(type) {
	case Primitive:
		return o.unwait(t)
	case *vm.Thread:
		if ji := info(o); ji != nil && ji.x != nil {
			return removeWaiter(&ji.x.joiners, t)
		}
	case *Timer:
		if o.index >= 0 && o.index < len(s.timers) && s.timers[o.index] == o {
			heap.Remove(&s.timers, o.index)
		}
		return true
	}
	return false
}

// removeWaiter removes t from q and reports whether it was there.
func removeWaiter(q *waitq, t *vm.Thread) bool {
	for i := 0; i < q.len(); i++ {
		if q.at(i) == t {
			q.removeAt(i)
			return true
		}
	}
	return false
}

// TerminatedExitCode is the program's exit code when its main thread is
// terminated (128 + SIGTERM, as a shell reports a terminated process).
const TerminatedExitCode = 143

// terminatedException is what a Future's get throws when the thread
// computing it was terminated: an IllegalStateException naming it.
func terminatedException(s *Scheduler, th *vm.Thread) *vm.Object {
	return s.m.NewException("IllegalStateException", fmt.Sprintf("thread %d %q was terminated before it computed the future", th.ID, th.Name()))
}
