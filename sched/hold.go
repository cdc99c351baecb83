package sched

import "github.com/nlangdbg/nlangdbg/vm"

// This file holds what non-stop debugging needs: a debugger holds one
// thread (or several) where it stopped while the others go on.
//
// A held thread is kept off the run queue, as a frozen one is (it may
// still be woken: it is then runnable but not dispatched), until it is
// released. A hold begins at a trap, inside the dispatch that met it
// (HoldAtTrap, from a debug hook: the thread's quantum is cut there and
// goes on with its rest once released, as after a trap), or at a dispatch
// boundary (Hold: a thread paused by itself); a release (Release) always
// at a dispatch boundary. What the debugger asks for from outside a
// dispatch is done at the start of the next dispatch, before its timers
// fire and its input arrives: the one moment of a schedule that does not
// depend on when the request came. A recording logs each hold and
// release there (HoldRecorder), and a replay does them again at the same
// moments, so that a run with holds replays exactly, without the
// debugger.

// HoldChange is a hold (On) or a release of thread ID, as a replay does
// it again at the start of a dispatch.
type HoldChange struct {
	ID int64
	On bool
}

// A HoldRecorder is a Recorder that also records the debugger's holds
// and releases (SetRecorder finds it). Its methods are called on the
// carrier with the scheduler's lock held; they must not call the
// Scheduler's methods.
type HoldRecorder interface {
	Recorder
	// Held is told of every hold (on) and release as it takes effect:
	// at the start of a dispatch, or for a hold at a trap (atTrap), at
	// the end of the dispatch whose trap t stopped at (its position:
	// t.TrapReductions, its depth, its top frame, whether it stopped at a
	// throw).
	Held(t *vm.Thread, on, atTrap bool)
	// DueHolds returns the holds and releases a replay does at the start
	// of this dispatch (nil for a recording).
	DueHolds() []HoldChange
}

// HoldAtTrap is for a vm.DebugHook (or vm.ThrowHook) whose OnTrap (or
// OnThrow) returns true to stop t: called on t before returning, the stop
// holds t alone — its quantum cut there, as at a trap, and it stays off
// the run queue until Release — and the others go on: the scheduler does
// not pause, unless pause is set too (a stop of every thread that also
// holds t). The EventTrap that reports the stop has Held set.
func HoldAtTrap(t *vm.Thread, pause bool) {
	if ti := info(t); ti != nil {
		x := ti.extra()
		x.holdTrap, x.holdPause = true, pause
	}
}

// HoldsAtTrap reports whether HoldAtTrap was called on t in the trap
// being decided.
func HoldsAtTrap(t *vm.Thread) bool {
	ti := info(t)
	return ti != nil && ti.x != nil && ti.x.holdTrap
}

// Hold holds t at the start of the next dispatch: it is kept off the run
// queue from then on (a thread running on another carrier then, once its
// quantum is over), and an EventHold says so. Holding a held or ended
// thread does nothing.
func (s *Scheduler) Hold(t *vm.Thread) { s.requestHold(t, true) }

// Release lets a held thread go on from the start of the next dispatch:
// runnable, it goes to the back of the run queue (with the rest of the
// quantum a trap cut, if it was held at one), and an EventRelease says
// so. Releasing a thread that is not held does nothing.
func (s *Scheduler) Release(t *vm.Thread) { s.requestHold(t, false) }

func (s *Scheduler) requestHold(t *vm.Thread, on bool) {
	s.mu.Lock()
	s.holdReqs = append(s.holdReqs, holdReq{t, on})
	s.broadcast() // an idle carrier dispatches, which applies it
	s.mu.Unlock()
	s.notify()
}

// holdReq is a hold or release asked for, not done yet.
type holdReq struct {
	t  *vm.Thread
	on bool
}

// Held reports whether t is held, or will be at the next dispatch.
func (s *Scheduler) Held(t *vm.Thread) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := false
	if ti := info(t); ti != nil && ti.x != nil {
		held = ti.x.held
	}
	for _, r := range s.holdReqs {
		if r.t == t {
			held = r.on
		}
	}
	return held
}

// applyHolds does, at the start of a dispatch, the holds and releases a
// replay does there, then those asked for since the last one. Must hold
// s.mu.
func (s *Scheduler) applyHolds() {
	if s.holdRec != nil {
		for _, h := range s.holdRec.DueHolds() {
			if t := s.threadByID(h.ID); t != nil {
				s.setHeld(t, h.On, false, false)
			}
		}
	}
	for len(s.holdReqs) > 0 {
		reqs := s.holdReqs
		s.holdReqs = nil
		for _, r := range reqs {
			s.setHeld(r.t, r.on, false, true)
		}
	}
}

// threadByID returns the live thread id, or nil. Must hold s.mu.
func (s *Scheduler) threadByID(id int64) *vm.Thread {
	lo, hi := 0, len(s.threads)
	for lo < hi {
		m := (lo + hi) / 2
		if s.threads[m].ID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(s.threads) && s.threads[lo].ID == id && s.threads[lo].State != vm.Dead {
		return s.threads[lo]
	}
	return nil
}

// setHeld holds or releases t (atTrap: t is held at the trap of the
// dispatch that just ended), tells the recorder if record is set (a hold
// the debugger asked for; a replay's own were consumed as it gave them)
// and emits the event. Must hold s.mu.
func (s *Scheduler) setHeld(t *vm.Thread, on, atTrap, record bool) {
	ti := info(t)
	if ti == nil || t.State == vm.Dead {
		return
	}
	x := ti.extra()
	if x.held == on {
		return
	}
	x.held = on
	if on {
		x.wasFrozen = ti.frozen
		if !ti.frozen {
			s.dequeue(t)
			ti.frozen = true
			s.nfrozen++
		}
	} else if !x.wasFrozen {
		ti.frozen = false
		s.nfrozen--
		if t.State == vm.Runnable {
			s.enqueue(t)
		}
	}
	if record && s.holdRec != nil {
		s.holdRec.Held(t, on, atTrap)
	}
	kind := EventRelease
	if on {
		kind = EventHold
		if ti.on != nil {
			// running on another carrier: its quantum's end reports it
			x.holdLate = true
			return
		}
	}
	if !atTrap && s.OnEvent != nil {
		s.events = append(s.events, Event{Kind: kind, Thread: t})
	}
}

// holdAtTrap holds t at the trap its quantum stopped at, if a hook asked
// for it (HoldAtTrap), and reports whether it did and whether the
// scheduler pauses too. Must hold s.mu, with t Runnable off the carrier.
func (s *Scheduler) holdAtTrap(t *vm.Thread, ti *threadInfo) (held, pause bool) {
	x := ti.x
	if x == nil || !x.holdTrap {
		return false, true
	}
	pause = x.holdPause
	x.holdTrap, x.holdPause = false, false
	if x.held {
		// held already (replayed, or Hold asked meanwhile): the stop
		// keeps it held
		return true, pause
	}
	s.setHeld(t, true, true, true)
	return true, pause
}

// lateHold reports the hold of a thread that was running when it was
// held, now that its quantum is over. Must hold s.mu.
func (s *Scheduler) lateHold(t *vm.Thread, ti *threadInfo) {
	if x := ti.x; x != nil && x.holdLate {
		x.holdLate = false
		if x.held && s.OnEvent != nil {
			s.events = append(s.events, Event{Kind: EventHold, Thread: t})
		}
	}
}

// Between runs f between two dispatches: no quantum starts while f runs,
// and those running when Between is called end first (at the end of
// their quantum: Between does not cut one short, so the schedule does not
// change). A thread inside a pinned native is still in host code; it
// waits for the end of f when the native returns. The debugger reads and
// changes the threads it holds (non-stop) this way while the others run.
// f may call the Scheduler's methods, but not from a dispatch.
func (s *Scheduler) Between(f func()) {
	s.mu.Lock()
	s.between++
	for s.running-s.pinnedN > 0 {
		s.wait()
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.between--
		s.broadcast()
		s.mu.Unlock()
		s.notify()
	}()
	f()
}
