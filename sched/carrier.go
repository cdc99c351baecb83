package sched

import (
	"sync"
	"time"

	"github.com/nlangdbg/nlangdbg/vm"
)

// This file holds the carriers (one by default, Options.Carriers). The
// package documentation explains the design; in short: s.mu guards all
// scheduler state, a carrier holds it only to pick a thread and to act on
// its Stop, and runs t.Run without it; the natives that touch scheduler
// state take it themselves (serial). One carrier is this path with N = 1.

// A carrier is one goroutine that runs virtual threads, with its own FIFO
// run queue. Its fields are guarded by s.mu.
type carrier struct {
	id   int // 1-based, as the debugger shows it
	runq queue[*vm.Thread]
	cur  *vm.Thread // the thread inside Run on this carrier, if any
	// The threads woken and spawned by the current dispatch, listed only
	// when it builds an Event (list).
	woken, spawned []*vm.Thread
	list           bool
	// held says that a native of the thread running here holds s.mu for
	// the carrier: one that parked its thread and kept the lock (see
	// serial), or one in progress when a Go panic unwound it (a method's
	// fast path releases s.mu without a deferred call). The carrier then
	// takes s.mu over when Run returns instead of locking it. Only the
	// carrier's own goroutine touches it.
	held bool
	// The quantum in progress: its budget, whether it is a
	// SetBudgetOnce's, and the thread's reductions when it began.
	quota int
	once  bool
	r0    int64
	// full is the budget the quantum would have had without
	// SetBudgetOnce: in a recorded run the thread goes on with the rest
	// of it after the debugger's stop.
	full int
	// loop is set while the carriers' own loop dispatches (not the
	// debugger's Dispatch or Drive): a parking thread may then hand the
	// carrier to the next one (SwitchOnPark).
	loop bool
}

// CarrierState is a snapshot of one carrier for the debugger.
type CarrierState struct {
	ID       int
	Running  *vm.Thread   // the thread it runs now; nil when idle or stopped
	RunQueue []*vm.Thread // its run queue, in dispatch order
}

// Carriers returns the state of each carrier.
func (s *Scheduler) Carriers() []CarrierState {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]CarrierState, len(s.carriers))
	for i, c := range s.carriers {
		out[i] = CarrierState{ID: c.id, Running: c.cur, RunQueue: c.runq.items()}
	}
	return out
}

// NumCarriers returns the number of carriers.
func (s *Scheduler) NumCarriers() int { return len(s.carriers) }

// initCarriers makes n carriers; with more than one it marks the machine
// parallel.
func (s *Scheduler) initCarriers(n int) {
	s.carriers = make([]*carrier, n)
	for i := range s.carriers {
		s.carriers[i] = &carrier{id: i + 1}
	}
	if n > 1 {
		s.m.Parallel = true
		if s.m.Hook != nil {
			s.m.Hook = serialHook{h: s.m.Hook, mu: &s.hookMu}
		}
	}
}

// serialHook serialises the debugger's hooks, which carriers call at
// the same time but which were written for one carrier.
type serialHook struct {
	h  vm.DebugHook
	mu *sync.Mutex
}

func (h serialHook) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.h.OnTrap(t, fn, pc)
}

func (h serialHook) OnThrow(t *vm.Thread, exc *vm.Object, caught bool) bool {
	th, ok := h.h.(vm.ThrowHook)
	if !ok {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return th.OnThrow(t, exc, caught)
}

// enqueueOn puts t in a carrier's run queue: the carrier of the current
// dispatch (a woken or spawned thread goes to its waker's carrier), else
// the carrier t ran on last, else the first; but if that queue is longer
// than the shortest by more than one thread, the shortest (stealing only
// when a queue runs dry would leave, say, three busy threads on one
// carrier and one on the other). At the front if front. t, whose
// scheduler data is ti, is marked queued already. Must hold s.mu.
func (s *Scheduler) enqueueOn(t *vm.Thread, ti *threadInfo, front bool) {
	c := s.curC
	if c == nil {
		c = ti.last
	}
	if c == nil {
		c = s.carriers[0]
	}
	if s.firing {
		// Woken by a timer on the carrier about to pick: no balancing,
		// and the idle carriers are not woken (the dispatch's end wakes
		// them), so that the first sleeper due runs first, as with one
		// carrier, even when the carrier was late and several timers
		// fire at once.
		ti.qc = c
		c.runq.push(t)
		return
	}
	if !front && len(s.carriers) > 1 {
		short := c
		for _, o := range s.carriers {
			if o.runq.len() < short.runq.len() {
				short = o
			}
		}
		if c.runq.len() > short.runq.len()+1 {
			c = short
		}
	}
	ti.qc = c
	if front {
		c.runq.pushFront(t)
	} else {
		c.runq.push(t)
	}
	if s.idle > 0 {
		s.broadcast()
	}
	if s.sleeping {
		s.notify()
	}
}

// pickOn removes and returns the thread carrier c dispatches next: the
// one named by SetNext if it is queued, else (a seeded random one of) its
// own queue, else the head of another carrier's queue (stealing, from the
// next carrier on). Must hold s.mu.
func (s *Scheduler) pickOn(c *carrier) *vm.Thread {
	if next := s.next; next != nil {
		s.next = nil
		if info(next).queued {
			s.dequeue(next)
			return next
		}
	}
	if s.strat != nil {
		if t, ok := s.pickStrategy(c); ok {
			return t
		}
	}
	var t *vm.Thread
	if n := c.runq.len(); n > 0 {
		if s.rng != nil {
			if i := s.rng.IntN(n); i > 0 {
				t = c.runq.removeAt(i)
			}
		}
		if t == nil {
			t, _ = c.runq.pop()
		}
	} else {
		for i := 1; i < len(s.carriers) && t == nil; i++ {
			t, _ = s.carriers[(c.id-1+i)%len(s.carriers)].runq.pop()
		}
	}
	if t != nil {
		ti := info(t)
		ti.queued, ti.qc = false, nil
	}
	return t
}

// updateInterrupt sets the machine's interrupt while carriers run and a
// Pause waits for them or the program is over; it clears it otherwise, so
// that a stopped program can still be stepped and evaluated. Must hold
// s.mu.
func (s *Scheduler) updateInterrupt() {
	if s.running == 0 {
		s.trapping = false
	}
	if on := s.running > 0 && (s.pausing > 0 || s.trapping || s.ended); on != s.irq {
		s.irq = on
		s.m.SetInterrupt(on)
	}
}

// trapStop pauses the scheduler when a thread stops at a debugger trap
// (breakpoint, step, exception): the other carriers stop at their next
// safepoint, and none starts a quantum (not even the trapped thread
// again) before the debugger, told by the EventTrap, has seen the stop and
// resumes. With one carrier the dispatch loop delivers the event before
// its next dispatch, which has the same effect. Must hold s.mu.
func (s *Scheduler) trapStop() {
	s.paused = true
	s.trapping = true
	s.updateInterrupt()
}

// dispatchOn runs one quantum on carrier c: it fires the due timers,
// picks a thread, runs it without s.mu, and acts on its Stop. It reports
// false, with an EventIdle, when no thread was runnable. Must hold s.mu;
// releases it while the thread runs.
//
// If ev is not nil it receives the dispatch's Event (or the EventIdle);
// the carriers' own loop passes nil and builds none.
//
// In the carriers' own loop (c.loop), a thread that parks may hand the
// carrier to the next thread without leaving the interpreter
// (SwitchOnPark): several quanta then run inside this one call, each
// begun and ended by the same code as here, in the same order.
func (s *Scheduler) dispatchOn(c *carrier, ev *Event) bool {
	t := s.beginQuantum(c, ev)
	if t == nil {
		if ev != nil {
			*ev = Event{Kind: EventIdle, Woken: c.woken}
		}
		return false
	}
	s.running++
	s.mu.Unlock()

	var stop vm.Stop
	if c.loop {
		t, stop = t.RunSwitching(c.quota)
	} else {
		stop = t.Run(c.quota)
	}

	if c.held { // the parking (or panicking) native kept s.mu for us
		c.held = false
	} else {
		s.mu.Lock()
	}
	s.endQuantum(c, t, stop, ev)
	if ti := info(t); ti.frozen {
		// held while it ran (hold.go). Here, not in endQuantum: the
		// quanta SwitchOnPark ends run with no OnEvent, which a late
		// hold is reported to, so the switch does not pay for the test.
		s.lateHold(t, ti)
	}
	return true
}

// beginQuantum starts a quantum on carrier c: it fires the due timers,
// picks a thread and makes it Running on c, with its budget in c.quota.
// It returns nil if no thread is runnable. Must hold s.mu.
func (s *Scheduler) beginQuantum(c *carrier, ev *Event) *vm.Thread {
	// The lists of threads woken and spawned reuse the carrier's buffers:
	// the Event returned holds them only until c's next dispatch
	// (dispatchStep, which returns the Event to the debugger, copies).
	c.woken, c.spawned, c.list = c.woken[:0], c.spawned[:0], ev != nil
	// (holdRec is set only with rec: one test more on the hot path)
	if (s.cut == nil || !s.trapCont()) && (s.rec != nil || len(s.timers) > 0 || len(s.holdReqs) > 0) {
		if s.holdRec != nil || len(s.holdReqs) > 0 {
			s.applyHolds() // the debugger's (hold.go)
		}
		if s.rec != nil || len(s.timers) > 0 {
			s.curC, s.firing = c, true // threads woken by timers (or input) go to c
			if s.rec != nil {
				s.beforeDispatch()
			}
			s.fireTimers()
			s.curC, s.firing = nil, false
		}
	}
	t := s.pickOn(c)
	if t == nil {
		return nil
	}
	s.setState(t, vm.Runnable, vm.Running)
	s.idleTold = false
	ti := info(t)
	ti.on, ti.last = c, c
	c.cur = t
	c.r0 = t.Reductions()
	c.quota, c.once = s.quota, false
	if s.stratBudget > 0 { // the strategy's pick
		c.quota, s.stratBudget = s.stratBudget, 0
	}
	if ti.x != nil && ti.x.rest > 0 {
		c.quota, ti.x.rest = ti.x.rest, 0 // the rest of the quantum a trap cut
	}
	c.full = c.quota
	if ti.budgetOnce > 0 {
		c.quota, ti.budgetOnce, c.once = min(int(ti.budgetOnce), c.quota), 0, true
	}
	return t
}

// endQuantum acts on the Stop of the quantum of t on carrier c (requeue,
// park, finish) and ends the dispatch. Must hold s.mu.
func (s *Scheduler) endQuantum(c *carrier, t *vm.Thread, stop vm.Stop, ev *Event) {
	ti := info(t)
	if stop == vm.StopTrap && ti.preempt { // a scheduling point, not a debugger's stop
		stop, ti.preempt = vm.StopYield, false
	}
	if stop == vm.StopBudget && !c.once && s.rec != nil && s.pausing > 0 && int(t.Reductions()-c.r0) < c.quota {
		// A Pause cut the quantum short. In a recorded run it does not
		// change the schedule either: the thread goes on with the rest of
		// its quantum, as after a trap, so that the recording (and the
		// re-executions that go back through it) stays in step.
		stop = vm.StopTrap
	}
	// The debugger asked for t's next safepoint (SetBudgetOnce): the
	// event says so (StopBudget); in a recorded run the stop does not
	// change the schedule either: the thread goes on with the rest of
	// its quantum, as after a trap.
	safepoint, told := c.once && stop == vm.StopBudget, stop
	if safepoint && s.rec != nil && int(t.Reductions()-c.r0) < c.full {
		stop = vm.StopTrap
	}
	s.running--
	s.updateInterrupt()
	ti.on, c.cur = nil, nil
	s.cur, s.curC = t, c
	if safepoint && stop == vm.StopTrap {
		s.actSafepoint(t)
	} else {
		s.act(t, stop)
	}
	used := int(t.Reductions() - c.r0)
	if stop == vm.StopTrap && (!c.once || safepoint) {
		// A stop at a trap does not change the schedule: the thread goes
		// on with the rest of its quantum (and replays stay in step).
		ti.extra().rest = c.full - used
		s.cut = t
	}
	if safepoint {
		// Stop the world there, as at a trap.
		s.trapStop()
	}
	if ev != nil {
		*ev = Event{Kind: EventDispatch, Thread: t, Stop: told, Reductions: used,
			Woken: c.woken, Spawned: c.spawned}
	}
	s.cur, s.curC = nil, nil
	if s.rec != nil {
		s.afterDispatch(t, stop, used)
	}
	if s.ckpt != nil && stop != vm.StopTrap {
		s.checkpoint() // snapshot.go
	}
	if vc := s.vclock; vc != nil {
		vc.Advance(vc.Step)
	}
	s.broadcast() // Pause, and idle carriers deciding about a deadlock
}

// SwitchOnPark implements vm.Scheduler: t, which the carriers' loop runs,
// has just parked (its native returned vm.ErrPark keeping s.mu, see
// serial). If nothing watches the dispatches one by one (no OnEvent, no
// recorder, checkpoints, strategy or race hook, one carrier, not paused)
// and a thread is queued, it ends t's quantum and begins the next one as
// the carrier's loop would, and returns the thread to run in the same
// interpreter loop with its budget: a thread switch is then a few stores,
// without returning to the carrier (Go's runnext and gogo). Otherwise it
// changes nothing and returns nil: Run returns StopPark.
//
// The lock discipline is unchanged: s.mu is held from the park to the
// start of the next quantum and released before the next thread runs,
// exactly as between two dispatches, so a debugger's view (which takes
// s.mu) sees t Waiting and the next thread Running, or the state before.
func (s *Scheduler) SwitchOnPark(t *vm.Thread) (*vm.Thread, int) {
	ti := info(t)
	if ti == nil {
		return nil, 0
	}
	c := ti.on
	if c == nil || !c.loop || !c.held || c.runq.len() == 0 || len(s.carriers) > 1 ||
		s.OnEvent != nil || s.yieldAny || s.rec != nil || s.ckpt != nil || s.strat != nil || s.race != nil ||
		s.paused || s.busy || s.ended || s.cut != nil || c.once {
		return nil, 0
	}
	s.endQuantum(c, t, vm.StopPark, nil)
	next := s.beginQuantum(c, nil) // not nil: the run queue holds a thread
	s.running++
	s.switches++
	c.held = false
	s.mu.Unlock()
	return next, c.quota
}

// runCarriers is Run: the calling goroutine is carrier 1 and starts the
// others; it returns once every carrier has stopped.
func (s *Scheduler) runCarriers() int {
	var wg sync.WaitGroup
	for _, c := range s.carriers[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.carrierLoop(c)
		}()
	}
	s.carrierLoop(s.carriers[0])
	wg.Wait()
	s.mu.Lock()
	code := s.code
	s.updateInterrupt()
	s.mu.Unlock()
	return code
}

// carrierLoop dispatches on c until the program is over.
func (s *Scheduler) carrierLoop(c *carrier) {
	s.mu.Lock()
	for !s.ended {
		if s.paused || s.busy || s.between > 0 {
			s.waitWork()
			continue
		}
		c.loop = true
		ran := s.dispatchOn(c, nil)
		c.loop = false
		if ran {
			if len(s.events) > 0 && s.OnEvent != nil {
				s.mu.Unlock()
				s.deliverShared()
				s.mu.Lock()
			}
			continue
		}
		if s.ended { // a strategy ended the program
			continue
		}
		if len(s.events) > 0 && s.OnEvent != nil {
			// (a hold or release done with nothing to run; then decide
			// again: the lock was let go)
			s.mu.Unlock()
			s.deliverShared()
			s.mu.Lock()
			continue
		}
		_, virtual := s.clock.(*VirtualClock)
		switch {
		case s.stalled():
			// A replay waits for input or time its log does not hold: over.
		case len(s.timers) > 0 && !s.sleeping && (s.running == 0 || !virtual):
			// Sleep for the next timer; an enqueue, a new timer or the
			// end kicks us.
			wait, _ := s.untilNextTimer()
			s.sleeping = true
			s.mu.Unlock()
			s.deliverShared()
			s.clock.Sleep(wait, s.kick)
			s.mu.Lock()
			s.sleeping = false
		case s.running == 0 && len(s.timers) == 0 && s.ioWaiting == 0 && s.holdsFrozen() && !s.idleTold && s.OnEvent != nil:
			// Only frozen threads could run: tell the debugger once (it
			// may stop a single-thread resume that cannot go on).
			s.idleTold = true
			s.events = append(s.events, Event{Kind: EventIdle})
			s.mu.Unlock()
			s.deliverShared()
			s.mu.Lock()
		case s.running > 0 || len(s.timers) > 0 || s.ioWaiting > 0 || s.holdsFrozen():
			// Another carrier may wake someone; or a sleeper waits for a
			// timer, or a reader for input; or the debugger holds the
			// runnable threads.
			s.waitWork()
		case s.live == 0:
			s.end(0)
		default:
			s.deadlock()
		}
	}
	s.mu.Unlock()
	s.deliverShared()
}

// waitWork waits on s.cond as an idle carrier. Must hold s.mu.
func (s *Scheduler) waitWork() {
	s.idle++
	s.wait()
	s.idle--
}

// wait waits on s.cond, counted so that broadcast can skip a Broadcast
// nobody hears. Must hold s.mu.
func (s *Scheduler) wait() {
	s.waiters++
	s.cond.Wait()
	s.waiters--
}

// broadcast wakes every goroutine waiting on s.cond, if any. Must hold
// s.mu.
func (s *Scheduler) broadcast() {
	if s.waiters > 0 {
		s.cond.Broadcast()
	}
}

// deliverShared passes the recorded events to OnEvent, in order, from
// one carrier at a time: a carrier that finds another delivering leaves
// its events to it. Must not hold s.mu.
func (s *Scheduler) deliverShared() {
	if s.OnEvent == nil {
		return
	}
	s.mu.Lock()
	if s.delivering {
		s.mu.Unlock()
		return
	}
	s.delivering = true
	for len(s.events) > 0 {
		evs := s.takeEvents()
		s.mu.Unlock()
		s.deliver(evs)
		s.mu.Lock()
	}
	s.delivering = false
	s.broadcast() // a Dispatch or Drive waiting for the events to be delivered
	s.mu.Unlock()
}

// dispatchStep is Dispatch: one quantum, on carrier 1's behalf (stealing
// from the others), while no carrier runs.
func (s *Scheduler) dispatchStep() Event {
	s.mu.Lock()
	// (after the events of the last dispatch are delivered: their
	// listeners look at the threads, which this dispatch changes)
	for s.busy || s.running-s.pinnedN > 0 || s.delivering {
		s.wait()
	}
	var ev Event
	if s.ended {
		ev = Event{Kind: EventEnd, Code: s.code}
	} else {
		s.busy = true
		ran := s.dispatchOn(s.carriers[0], &ev)
		// the lists live in the carrier's buffers: the caller keeps ev
		ev.Woken = append([]*vm.Thread(nil), ev.Woken...)
		ev.Spawned = append([]*vm.Thread(nil), ev.Spawned...)
		s.busy = false
		s.broadcast()
		switch {
		case !ran && s.ended: // a strategy ended the program
			ev = Event{Kind: EventEnd, Code: s.code}
		case !ran:
			ev = s.nothingRunnable(ev)
		}
	}
	s.mu.Unlock()
	s.deliverShared()
	return ev
}

// serial wraps a native that touches scheduler state: the native takes
// s.mu and, if its thread is being dispatched, borrows the dispatch's
// context (s.cur, s.curC, woken, spawned) so that park, wake, register
// and emit see the dispatch they belong to.
//
// A native that parks its thread keeps s.mu locked: the carrier takes it
// over when Run returns StopPark (the vm does nothing in between) and
// makes the thread Waiting before anyone else can look. Otherwise a waker
// on another carrier could find the thread in the object's wait queue
// but still Running, take the entry for stale and drop it: a lost
// wake-up. This is Go's park_m with its unlockf.
func serial(fn vm.NativeFunc) vm.NativeFunc {
	return func(t *vm.Thread, args []vm.Value) (v vm.Value, err error) {
		s := schedOf(t)
		if s == nil {
			return fn(t, args)
		}
		s.mu.Lock()
		var c *carrier
		if ti := info(t); ti != nil {
			c = ti.on
		}
		if c != nil {
			s.cur, s.curC = t, c
		}
		keep := false
		defer func() { // one deferred call, also when fn panics
			s.cur, s.curC = nil, nil
			if !keep {
				s.mu.Unlock()
			}
		}()
		v, err = fn(t, args)
		if s.race != nil {
			raceSync(s, t, args)
		}
		if vm.IsPark(err) && c != nil {
			c.held, keep = true, true
		} else if s.strat != nil && c != nil && err == nil {
			t.YieldAfterNative = true // a scheduling point (strategy.go)
		}
		return v, err
	}
}

// pauseCarriers is Pause's wait: it raises the machine's
// interrupt, so that every running thread stops at its next safepoint,
// and waits until no carrier is inside Run (threads blocked in a pinned
// native excepted). Must hold s.mu.
func (s *Scheduler) pauseCarriers() {
	s.pausing++
	s.updateInterrupt()
	for s.running-s.pinnedN > 0 {
		s.wait()
	}
	s.pausing--
	s.updateInterrupt()
}

// EnterPinned is called before a native that blocks its carrier
// (vm.Native.Pinned), on the carrier inside a dispatch of t: it records
// the pin, so that Pause does not wait for the native and the debugger
// shows the thread pinned. ExitPinned must follow when the native
// returns. The vm calls them through the interface it declares.
func (s *Scheduler) EnterPinned(t *vm.Thread, n *vm.Native) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ti := info(t)
	if ti == nil || ti.on == nil || ti.pinned() != nil {
		return
	}
	ti.extra().pinned = n
	s.pinnedN++
	s.broadcast()
}

// ExitPinned ends EnterPinned: if the world was stopped meanwhile, the
// thread waits for Resume before it goes on.
func (s *Scheduler) ExitPinned(t *vm.Thread) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ti := info(t)
	if ti == nil || ti.pinned() == nil {
		return
	}
	for (s.paused || s.between > 0) && !s.ended {
		s.wait()
	}
	ti.x.pinned = nil
	s.pinnedN--
}

// viewLock locks s.mu for a host object's String, whose state a carrier
// may change meanwhile, and returns the unlock.
func (s *Scheduler) viewLock() func() {
	if s == nil {
		return func() {}
	}
	s.mu.Lock()
	return s.mu.Unlock
}

// ParkIO implements vm.Scheduler: the running thread t parks on an
// outside event (input), as a native that parks does (see serial: with t
// in a dispatch, s.mu stays locked for its carrier). Until WakeIO the
// program is waiting, not deadlocked.
func (s *Scheduler) ParkIO(t *vm.Thread, reason string, obj any) {
	s.mu.Lock()
	s.park(t, reason, obj)
	s.ioWaiting++
	if ti := info(t); ti != nil && ti.on != nil {
		ti.on.held = true // the carrier takes s.mu over when Run returns
		return
	}
	s.mu.Unlock()
}

// WakeIO implements vm.Scheduler: it ends the park of t begun by ParkIO,
// from any goroutine (the input's reader).
func (s *Scheduler) WakeIO(t *vm.Thread, v vm.Value, err error) {
	s.mu.Lock()
	s.ioWaiting--
	if !s.ended && t.State == vm.Waiting {
		s.wake(t, v, err)
	}
	s.broadcast() // idle carriers, and Dispatch
	s.mu.Unlock()
	s.notify()
	s.deliverShared()
}

// Drive runs the scheduler on the calling goroutine for a while, as
// carrier 1's loop would, so that a debugger's request that resumes a
// stopped program (a step) is followed by its quanta without a hand-off
// to the carrier goroutine and back: the latency of a step is then the
// CPU time it takes. resume is what resumes (it calls Resume); it is
// called with the carriers held off, as during Dispatch. Drive then
// dispatches (once at least) until the scheduler is paused again (a
// trap, a step's end), the program ends, no thread is runnable, or limit
// has passed, delivering the events as the carrier does; the carriers go
// on from there. The schedule is the one the carrier would have run: the same
// dispatches of the same queue, in the same order.
//
// With more than one carrier Drive only calls resume; so it does if the
// program may call a pinned native (file I/O, which may block for any
// time: on the caller's goroutine it would block the debugger's request
// loop, and run beside the thread the carrier has inside such a native).
//
// Nor does it drive a scheduler that is not paused (the program runs: a
// request resuming it fails, or the carrier runs what it starts), whose
// carrier goes from one quantum to the next: waiting for it to be
// between two could take forever.
func (s *Scheduler) Drive(limit time.Duration, resume func()) {
	s.mu.Lock()
	if len(s.carriers) > 1 || s.mayPin() || !s.paused {
		s.mu.Unlock()
		resume()
		return
	}
	for s.busy || s.running-s.pinnedN > 0 || s.delivering {
		s.wait()
	}
	s.busy = true
	s.mu.Unlock()
	locked := false
	defer func() { // also when resume or an event's delivery panics
		if !locked {
			s.mu.Lock()
		}
		s.busy = false
		s.broadcast()
		s.mu.Unlock()
		s.notify() // a carrier sleeping on the clock
	}()
	resume()
	deadline := time.Now().Add(limit)
	s.mu.Lock()
	locked = true
	for first := true; !s.ended && !s.paused && (first || time.Now().Before(deadline)); first = false {
		if !s.dispatchOn(s.carriers[0], nil) {
			return // idle, deadlock, end: the carrier decides
		}
		if len(s.events) > 0 && s.OnEvent != nil {
			s.mu.Unlock()
			locked = false
			s.deliverShared()
			s.mu.Lock()
			locked = true
		}
	}
}

// mayPin reports whether the program can call a pinned native (a call
// site, or a function value of one among a function's constants); it is
// computed once. Must hold s.mu.
func (s *Scheduler) mayPin() bool {
	if s.pinScan == 0 {
		s.pinScan = 1
		if progMayPin(s.m.Prog) {
			s.pinScan = 2
		}
	}
	return s.pinScan == 2
}

func progMayPin(p *vm.Program) bool {
	if p == nil {
		return false
	}
	for _, f := range p.Funcs {
		for _, nc := range f.NCalls {
			if nc.Native != nil && nc.Native.Pinned {
				return true
			}
		}
		for _, k := range f.Consts {
			if fv, ok := k.R.(*vm.FuncVal); ok && fv.Native != nil && fv.Native.Pinned {
				return true
			}
		}
	}
	return false
}
