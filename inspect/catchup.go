package inspect

// Catching up at a stop. Going back from a stop re-executes from the
// copy before it; going back again near there starts from the copy the
// first re-execution took near the stop (nearCopy). The first step back
// after the program ran on for a while has no such copy: copies of a
// large heap are seconds of run apart (the policy keeps their cost under
// a twentieth of the run), and it re-executes all of that — 400–500 ms
// at 200,000 live objects. So at a stop the session starts that
// re-execution itself, in the background on the second core, while the
// user reads the stop: a catch-up. It restores its own copy of the
// checkpoint going back would start from (the one restored ahead stays
// for going back: snapStore.prepare), re-executes up to the copy near
// the stop, takes that copy, and ends; the step back then starts near.
//
// A catch-up shares the program's code with the session (traps are
// patched in it) and reads the breakpoint table, so it gives way to
// whatever changes them: every request that changes the session's state
// hushes it first (hush: it is cancelled and its end awaited), and so
// does patching a trap, whoever does it. A catch-up never waits for the
// session's lock (catchUp.lock): a request may hold it while it hushes
// the catch-up. Going back from the stop it catches up to waits for it
// instead once it is half way (awaitCatchUp); before, it hushes it and
// starts from the copy restored ahead, as without catch-ups.
//
// Only where it pays: a copy of 1 MiB or more (a smaller one restores in
// about a millisecond, and the copies of a small heap are 25 ms of run
// apart), more than catchUpMinRun of journal or catchUpMinQuanta of the
// stop's thread's run between that copy and the stop, two cores or more, copies near stops on; not in non-stop mode,
// with access traps (data breakpoints, the race detector), or while a
// breakpoint counts its hits from the start (no near copy then).

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
)

// catchUpMinRun is the least journal (bytes of events, a few per
// quantum) between the copy going back would start from and the stop for
// a catch-up: the re-executions that start from a copy near the stop
// (150–300 quanta) stay below it, the first after a long run (thousands
// of quanta) above.
const catchUpMinRun = 4 << 10

// catchUpMinQuanta is the least run of the stop's thread, in quanta of
// its reductions, between that copy and the stop for a catch-up: a
// program whose one thread runs on logs less than a byte a quantum.
const catchUpMinQuanta = 1000

// catchUp is a re-execution, started at a stop, that takes the copy near
// it (see the top of the file).
type catchUp struct {
	now    moment // the stop
	cancel atomic.Bool
	done   chan struct{} // closed once its machine no longer runs
	took   bool          // it took the copy near the stop (read after done)
	// progress is how far it got, in thousandths of the stop's thread's
	// reductions between the copy it started from and the stop
	progress atomic.Int32
}

// lock takes the session's lock for the catch-up's hooks, as a
// re-execution's hooks do, but gives way instead of waiting for it once
// the catch-up is hushed: false then, and the caller stops the
// re-execution where it is.
func (cu *catchUp) lock(s *Session) bool {
	for {
		if cu.cancel.Load() {
			return false
		}
		if s.mu.TryLock() {
			return true
		}
		time.Sleep(20 * time.Microsecond)
	}
}

// catchUpAt starts a catch-up to the stop now from checkpoint from, if it
// pays (see the top of the file), and reports whether it did. It restores
// from ahead (snapStore.prepare) and re-executes from that copy. A stop
// reported while a request that changes the session is under way (quiet)
// gets its catch-up once the request is over, if the session is still
// stopped there.
func (s *Session) catchUpAt(now moment, from *snap) bool {
	st := s.tt.snaps
	if from == nil || !(now.trap || now.throw) || s.noCatchUp.Load() || st.noNear || st.noSpare ||
		runtime.GOMAXPROCS(0) < 2 || s.nonStop.Load() || s.everHeld.Load() || s.accessTraps != nil {
		return false
	}
	s.hush() // (one cancelled when the program resumed may still end)
	cu := &catchUp{now: now, done: make(chan struct{})}
	s.cuMu.Lock()
	if s.cu != nil || s.changing.Load() > 0 {
		// (a request changes the session: quiet; the order of its count
		// and of cu makes one see the other)
		if s.cu == nil {
			s.cuPending = &pendingCatchUp{now: now, from: from}
		}
		s.cuMu.Unlock()
		return false
	}
	s.cu, s.cuLast = cu, cu
	s.cuMu.Unlock()
	// (read with cu registered: a request that changes them hushes it
	// first, and so waits for these reads)
	if !s.catchUpPays(now, from) {
		s.cuMu.Lock()
		s.cu = nil
		s.cuMu.Unlock()
		close(cu.done)
		return false
	}
	st.prepare(from) // (for going back before the catch-up is done)
	s.hostHeap(from.sn.Bytes)
	go s.runCatchUp(cu, from)
	return true
}

// pendingCatchUp is a catch-up a stop asked for while a request was under
// way (catchUpAt).
type pendingCatchUp struct {
	now  moment
	from *snap
}

// catchUpPays reports whether a catch-up from checkpoint from to the stop
// now pays (see the top of the file). The session is stopped at now.
func (s *Session) catchUpPays(now moment, from *snap) bool {
	tt := s.tt
	st := tt.snaps
	if from.sn.Bytes < st.spareMin || !st.active() || tt.stopped != "" || tt.sets > 0 || tt.j.Forked() != "" ||
		s.hitCounted() || s.dataHitCounted() {
		return false
	}
	s.mu.Lock()
	stopped := len(s.r.held) == 0 && s.r.state == stateStopped
	quota := int64(s.r.sch.Quota())
	s.mu.Unlock()
	// far enough: by the recording's length, or by the stop's thread's
	// reductions (one thread's quanta log a few bytes or less each)
	far := tt.j.Offset()-from.off >= s.catchUpMin()
	if t := from.sn.Thread(now.thread); t != nil && s.catchUpMinTest.Load() == 0 {
		far = far || now.red-t.Reductions() >= catchUpMinQuanta*quota
	}
	return stopped && far
}

// catchUpMin returns catchUpMinRun, or what a test set instead.
func (s *Session) catchUpMin() int {
	if n := s.catchUpMinTest.Load(); n > 0 {
		return int(n)
	}
	return catchUpMinRun
}

// runCatchUp is the catch-up cu from checkpoint from, on its goroutine.
func (s *Session) runCatchUp(cu *catchUp, from *snap) {
	defer func() {
		s.cuMu.Lock()
		if s.cu == cu {
			s.cu = nil
		}
		s.cuMu.Unlock()
		close(cu.done)
	}()
	onEv := func(p *pass, ev sched.Event) {
		// (it ends at the copy near its stop, or where it would pass the
		// stop without one: the stop's thread beyond it, or the replay
		// at the recording's end)
		nc := p.near
		if nc != nil && nc.thread != nil {
			red0 := p.red0(cu.now.thread)
			if span := cu.now.red - red0; span > 0 {
				cu.progress.Store(int32(min(1000, 1000*(nc.thread.Reductions()-red0)/span)))
			}
		}
		if cu.cancel.Load() || nc == nil || nc.done || nc.thread != nil && nc.thread.Reductions() > cu.now.red || !p.j.Replaying() {
			p.r.sch.Pause()
			p.finish(false)
		}
	}
	p, err := s.startPassWith(from, cu.now, nil, onEv, nil, cu)
	if err != nil {
		return
	}
	<-p.done
	p.discard()
	<-p.r.carrierDone
	cu.took = p.near != nil && p.near.took
	s.tt.snaps.mu.Lock()
	s.tt.snaps.catchUps++
	if cu.took {
		s.tt.snaps.caughtUp++
	}
	s.tt.snaps.mu.Unlock()
	s.hostHeap(0)
}

// hostHeap sets the bytes of the catch-up's machine (0: none), which the
// program's heap limit does not count, as it does not count the copies
// (vm.Machine.ExcludeHeap), and tells the session's machine.
func (s *Session) hostHeap(n int64) {
	st := s.tt.snaps
	st.mu.Lock()
	st.catchUpBytes = n
	st.storeHeap()
	st.mu.Unlock()
	if r := s.live.Load(); r != nil {
		r.m.ExcludeHeap(st.heap.Load())
	}
}

// catchUp returns the catch-up under way, if any.
func (s *Session) catchUp() *catchUp {
	s.cuMu.Lock()
	defer s.cuMu.Unlock()
	return s.cu
}

// hush cancels the catch-up under way, if any, and waits until its
// machine no longer runs. Anything that changes the session's state, the
// program's code or its breakpoints calls it first. It may be called
// with s.mu held (the catch-up never waits for it).
func (s *Session) hush() {
	cu := s.catchUp()
	if cu == nil {
		return
	}
	cu.cancel.Store(true)
	<-cu.done
}

// quiet hushes the catch-up under way (hush) and keeps new ones from
// starting until the function it returns is called: a request that
// changes the session's state runs between the two (defer s.quiet()()).
func (s *Session) quiet() func() {
	s.changing.Add(1)
	s.hush()
	return func() {
		if s.changing.Add(-1) > 0 {
			return
		}
		s.cuMu.Lock()
		p := s.cuPending
		s.cuPending = nil
		s.cuMu.Unlock()
		if p != nil && s.stoppedAt(p.now) {
			s.catchUpAt(p.now, p.from)
		}
	}
}

// stoppedAt reports whether the session is stopped at moment m.
func (s *Session) stoppedAt(m moment) bool {
	s.mu.Lock()
	stopped := s.r.state == stateStopped
	s.mu.Unlock()
	return stopped && s.present() == m
}

// cancelCatchUp cancels the catch-up under way, if any, without waiting
// for its end: the program resumes (its code runs on both machines, and
// whatever patches it next hushes the catch-up).
func (s *Session) cancelCatchUp() {
	s.cuMu.Lock()
	if s.cu != nil {
		s.cu.cancel.Store(true)
	}
	s.cuMu.Unlock()
}

// awaitCatchUp waits for the catch-up to the present to end, if it is
// more than half way: going back from the present then starts from the
// copy it took near it. One less far on is hushed: going back does the
// same from the copy restored ahead at the stop (the catch-up restores
// its own), sooner than the catch-up would be done (it has the same
// re-execution left, and the copy near the stop to restore after it).
func (s *Session) awaitCatchUp() {
	cu := s.catchUp()
	if cu == nil {
		return
	}
	if s.present() != cu.now || cu.progress.Load() < catchUpHalf {
		s.hush()
		return
	}
	<-cu.done
}

// catchUpHalf is the progress (catchUp.progress) past which going back
// waits for the catch-up.
const catchUpHalf = 500
