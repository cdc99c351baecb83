package sched

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/nlangdbg/nlangdbg/vm"
)

// This file holds what a debugger needs: views of the scheduler (all
// copies, consistent because a dispatch holds the lock) and the controls
// to stop, step and steer it.

// Threads returns the live threads (not yet ended), by id.
func (s *Scheduler) Threads() []*vm.Thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*vm.Thread, 0, s.live)
	for _, t := range s.threads {
		if t.State != vm.Dead {
			out = append(out, t)
		}
	}
	return out
}

// FirstThreads returns the live threads of the n lowest ids, by id, and
// the number of live threads: a page of a long list without copying it.
func (s *Scheduler) FirstThreads(n int) (first []*vm.Thread, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	first = make([]*vm.Thread, 0, min(n, s.live))
	for _, t := range s.threads {
		if len(first) >= n {
			break
		}
		if t.State != vm.Dead {
			first = append(first, t)
		}
	}
	return first, s.live
}

// Thread returns the live thread with the given id, or nil.
func (s *Scheduler) Thread(id int64) *vm.Thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := sort.Search(len(s.threads), func(i int) bool { return s.threads[i].ID >= id })
	if i < len(s.threads) && s.threads[i].ID == id && s.threads[i].State != vm.Dead {
		return s.threads[i]
	}
	return nil
}

// Main returns the main thread (nil before Start).
func (s *Scheduler) Main() *vm.Thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.main
}

// RunQueue returns the runnable threads in the order FIFO dispatch would
// take them (frozen threads are not in it). With several carriers it is
// their queues one after the other, by carrier (see Carriers).
func (s *Scheduler) RunQueue() []*vm.Thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*vm.Thread
	for _, c := range s.carriers {
		out = append(out, c.runq.items()...)
	}
	return out
}

// Timers returns the pending timers in the order they will fire.
func (s *Scheduler) Timers() []Timer {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := append(timerHeap(nil), s.timers...)
	sort.Slice(h, h.Less)
	out := make([]Timer, len(h))
	for i, tm := range h {
		out[i] = Timer{Thread: tm.Thread, Deadline: tm.Deadline, seq: tm.seq}
	}
	return out
}

// Now returns the time on the scheduler's clock, comparable with
// Timer.Deadline.
func (s *Scheduler) Now() time.Duration {
	if p, ok := s.clock.(interface{ Peek() time.Duration }); ok {
		return p.Peek() // a recording clock: the debugger's reads are not the program's
	}
	return s.clock.Now()
}

// Joiners returns the threads parked in a join of t, first come first.
func (s *Scheduler) Joiners(t *vm.Thread) []*vm.Thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ti := info(t); ti != nil && ti.x != nil {
		return liveThreads(&ti.x.joiners)
	}
	return nil
}

// FutureOf returns the future that thread t completes, or nil if t was
// not spawned for a value.
func (s *Scheduler) FutureOf(t *vm.Thread) *Future {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ti := info(t); ti != nil {
		return ti.future()
	}
	return nil
}

// liveThreads lists the threads of the live entries of q. Must hold s.mu.
func liveThreads(q *waitq) []*vm.Thread {
	var out []*vm.Thread
	for i := 0; i < q.len(); i++ {
		if w := q.at(i); live(w) {
			out = append(out, w)
		}
	}
	return out
}

// SetNext makes the next dispatch take t, if t is then in the run queue
// (runnable and not frozen); otherwise the next dispatch picks as usual.
// A nil t cancels it.
func (s *Scheduler) SetNext(t *vm.Thread) {
	s.mu.Lock()
	s.next = t
	s.mu.Unlock()
	s.notify()
}

// SetQuota sets the reduction budget of the following dispatches; n <= 0
// restores DefaultQuota.
func (s *Scheduler) SetQuota(n int) {
	if n <= 0 {
		n = DefaultQuota
	}
	s.mu.Lock()
	s.quota = n
	s.mu.Unlock()
}

// Quota returns the reduction budget of a dispatch.
func (s *Scheduler) Quota() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.quota
}

// Freeze keeps t off the run queue until Thaw: it may still be woken
// (become Runnable) but is not dispatched. Freezing every thread but one
// steps that one alone.
func (s *Scheduler) Freeze(t *vm.Thread) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ti := info(t); ti != nil && ti.x != nil && ti.x.held {
		ti.x.wasFrozen = true // held: frozen too once released
		return
	}
	if ti := info(t); ti != nil && !ti.frozen && t.State != vm.Dead {
		s.dequeue(t)
		ti.frozen = true
		s.nfrozen++
	}
}

// Thaw undoes Freeze: a runnable t goes to the back of the run queue.
func (s *Scheduler) Thaw(t *vm.Thread) {
	s.mu.Lock()
	if ti := info(t); ti != nil && ti.x != nil && ti.x.held {
		ti.x.wasFrozen = false // held: it stays off the queue until released
	} else if ti != nil && ti.frozen {
		ti.frozen = false
		s.nfrozen--
		if t.State == vm.Runnable {
			s.enqueue(t)
		}
	}
	s.mu.Unlock()
	s.notify()
}

// Frozen reports whether t is frozen (by Freeze; a held thread is not
// frozen unless Freeze was called on it too).
func (s *Scheduler) Frozen(t *vm.Thread) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ti := info(t)
	if ti != nil && ti.x != nil && ti.x.held {
		return ti.x.wasFrozen
	}
	return ti != nil && ti.frozen
}

// Pause stops Run from dispatching: when Pause returns, no quantum is
// running and none starts until Resume (every thread is at a boundary:
// the world is stopped), except that a thread blocked in a pinned native
// (see EnterPinned) is still in host code; it stops when the native
// returns, until Resume. Dispatch still works, so a debugger can step the
// paused scheduler one dispatch at a time.
//
// With several carriers, Pause raises the machine's interrupt so that
// every running thread stops at its next safepoint (a loop back-edge or a
// call), and returns once every carrier has finished its quantum.
func (s *Scheduler) Pause() {
	s.mu.Lock()
	s.paused = true
	s.pauseCarriers()
	s.mu.Unlock()
}

// Resume lets a paused Run dispatch again.
func (s *Scheduler) Resume() {
	s.mu.Lock()
	s.paused = false
	s.idleTold = false
	if s.busy && s.pinnedN == 0 {
		// A Dispatch or Drive runs: the carriers would only wait again
		// (its end wakes them), and no pinned native waits for Resume.
		s.mu.Unlock()
		return
	}
	s.broadcast()
	s.mu.Unlock()
	s.notify()
}

// Paused reports whether the scheduler is paused.
func (s *Scheduler) Paused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paused
}

// Ended reports whether the program is over (its Run returns, or has
// returned): a Pause that returns with it ended stopped nothing.
func (s *Scheduler) Ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// deadlock writes the deadlock report (one block per live thread, by id:
// its wait reason and stack) and ends the program with exit code 2. Must
// hold s.mu.
func (s *Scheduler) deadlock() {
	var b strings.Builder
	b.WriteString("fatal: all threads are asleep - deadlock!\n\n")
	for _, t := range s.threads {
		if t.State == vm.Dead {
			continue
		}
		fmt.Fprintf(&b, "thread %d %q [%s]:\n", t.ID, t.Name(), waitText(t))
		b.WriteString(vm.FormatBacktrace(backtrace(t)))
	}
	s.report(b.String())
	s.emit(Event{Kind: EventDeadlock, Code: 2})
	s.end(2)
}

// waitText says what a thread waits for in reports.
func waitText(t *vm.Thread) string {
	if ti := info(t); ti != nil && ti.x != nil && ti.x.held {
		if t.State == vm.Waiting && t.WaitReason != "" {
			return t.WaitReason + ", held by the debugger"
		}
		return "held by the debugger"
	}
	if t.State == vm.Waiting && t.WaitReason != "" {
		return t.WaitReason
	}
	if ti := info(t); ti != nil && ti.pinned() != nil {
		return "pinned in " + ti.pinned().Name
	}
	if ti := info(t); ti != nil && ti.frozen {
		return "frozen"
	}
	return strings.ToLower(stateName(t.State))
}

// backtrace returns t's call stack, innermost first. A parked thread's pc
// is already past the native call it waits in, so its top frame is
// reported at the call's line.
func backtrace(t *vm.Thread) []vm.CallFrame {
	return t.CallStack() // a parked thread's top frame shows the call it waits in
}

// Pinned returns the name of the pinned native t is blocked in, or "".
func (s *Scheduler) Pinned(t *vm.Thread) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ti := info(t); ti != nil && ti.pinned() != nil {
		return ti.pinned().Name
	}
	return ""
}

// SetBudgetOnce makes t's next dispatch run with budget n instead of the
// quota (n = 1 stops it at its next safepoint: a function entry or loop
// back-edge).
func (s *Scheduler) SetBudgetOnce(t *vm.Thread, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ti := info(t); ti != nil && n > 0 {
		ti.budgetOnce = int32(min(n, math.MaxInt32))
	}
}

// SetYieldOn makes the thread that causes an event of kind (a spawn, a
// wake) give up its quantum right after the native call that caused it,
// so that a debugger stopping at scheduler events sees it there.
func (s *Scheduler) SetYieldOn(kind EventKind, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if int(kind) < len(s.yieldOn) {
		s.yieldOn[kind] = on
	}
	s.yieldAny = false
	for _, y := range s.yieldOn {
		s.yieldAny = s.yieldAny || y
	}
}

// Kill ends the program now with exit code code: Run returns (after the
// dispatch in progress, if any) and no thread runs again.
func (s *Scheduler) Kill(code int) {
	s.mu.Lock()
	if !s.ended {
		s.end(code)
	}
	s.paused = false
	s.mu.Unlock()
	s.notify()
}

// Cut returns the thread whose quantum a trap or a pause cut short and
// that goes on with the rest of it at the next dispatch (nil: the last
// quantum ended by itself). The debugger names the moment of a pause by
// it: the thread is mid-quantum, at the boundary where it stopped.
func (s *Scheduler) Cut() *vm.Thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cut
}
