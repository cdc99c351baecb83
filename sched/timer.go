package sched

import (
	"container/heap"
	"sync/atomic"
	"time"

	"github.com/nlangdbg/nlangdbg/vm"
)

// Clock is the scheduler's source of time for thread.sleep and timers.
type Clock interface {
	// Now returns the time elapsed since the clock started.
	Now() time.Duration
	// Sleep blocks the carrier for d, or until wake is signalled. It is
	// called only when no thread can run and a timer is pending.
	Sleep(d time.Duration, wake <-chan struct{})
}

// WallClock returns a clock that reads the monotonic wall clock and
// really sleeps. It is the default.
func WallClock() Clock { return &wallClock{start: time.Now()} }

type wallClock struct{ start time.Time }

func (c *wallClock) Now() time.Duration { return time.Since(c.start) }

func (c *wallClock) Sleep(d time.Duration, wake <-chan struct{}) {
	if d <= 0 {
		return
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-wake:
	}
}

// VirtualClock is a deterministic clock for tests and replay: time stands
// still while threads run, except for Step added after every dispatch, and
// Sleep jumps straight to the deadline instead of waiting. With Step = 0 a
// sleeping thread wakes only once every other thread is blocked; a small
// Step lets a thread that spins (yield in a loop) see a sleeper wake.
type VirtualClock struct {
	// Step is added to the time after each dispatch.
	Step time.Duration
	now  atomic.Int64
}

// Now returns the virtual time.
func (c *VirtualClock) Now() time.Duration { return time.Duration(c.now.Load()) }

// Sleep advances the virtual time by d without blocking.
func (c *VirtualClock) Sleep(d time.Duration, _ <-chan struct{}) { c.Advance(d) }

// Advance moves the virtual time forward by d (d <= 0 does nothing).
func (c *VirtualClock) Advance(d time.Duration) {
	if d > 0 {
		c.now.Add(int64(d))
	}
}

// Timer is a pending timer: Thread is woken at Deadline (time on the
// scheduler's clock). Timers fire in (Deadline, creation) order.
type Timer struct {
	Thread   *vm.Thread
	Deadline time.Duration

	seq   uint64 // creation order, the tie-breaker
	park  uint64 // the park of Thread that the timer ends (its park number)
	index int    // in the heap
}

// timerHeap orders timers by (deadline, sequence).
type timerHeap []*Timer

func (h timerHeap) Len() int { return len(h) }

func (h timerHeap) Less(i, j int) bool {
	if h[i].Deadline != h[j].Deadline {
		return h[i].Deadline < h[j].Deadline
	}
	return h[i].seq < h[j].seq
}

func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h *timerHeap) Push(x any) {
	tm := x.(*Timer)
	tm.index = len(*h)
	*h = append(*h, tm)
}

func (h *timerHeap) Pop() any {
	old := *h
	tm := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	tm.index = -1
	return tm
}

// addTimer arms a timer that ends the park w at deadline. Must hold s.mu.
func (s *Scheduler) addTimer(w waiter, deadline time.Duration) *Timer {
	s.timerSeq++
	tm := &Timer{Thread: w, Deadline: deadline, seq: s.timerSeq, park: info(w).seq}
	heap.Push(&s.timers, tm)
	if s.sleeping {
		s.notify() // the carrier sleeping for the next timer re-reads it
	}
	return tm
}

// fireTimers wakes the threads of every due timer, earliest first. Must
// hold s.mu.
func (s *Scheduler) fireTimers() {
	if len(s.timers) == 0 {
		return
	}
	now := s.clock.Now()
	for len(s.timers) > 0 && s.timers[0].Deadline <= now {
		tm := heap.Pop(&s.timers).(*Timer)
		if t := tm.Thread; t.State == vm.Waiting && info(t).seq == tm.park {
			s.wake(t, vm.Value{}, nil)
		}
	}
}

// untilNextTimer returns how long until the earliest timer is due (0 if
// it already is) and whether there is one. Must hold s.mu.
func (s *Scheduler) untilNextTimer() (time.Duration, bool) {
	if len(s.timers) == 0 {
		return 0, false
	}
	return max(0, s.timers[0].Deadline-s.clock.Now()), true
}
