package sched

import (
	"fmt"
	"io"
	"math/rand/v2"
	"sync"

	"github.com/nlangdbg/nlangdbg/vm"
)

// DefaultQuota is the number of reductions a thread may spend in one
// dispatch unless Options.Quota says otherwise.
const DefaultQuota = 4000

// Options configure a Scheduler.
type Options struct {
	// Quota is the reduction budget of one dispatch (one reduction per
	// function entry and loop back-edge); 0 means DefaultQuota.
	Quota int
	// Seed chooses the dispatch order. 0 is pure FIFO. Any other value
	// makes each dispatch take a pseudo-random runnable thread (PCG seeded
	// with Seed): the same seed gives the same interleaving.
	Seed int64
	// Clock is the time source for thread.sleep; nil is WallClock().
	Clock Clock
	// Carriers is the number of carriers: goroutines that run virtual
	// threads in parallel, each with its own run queue, stealing from the
	// others when it runs dry. 0 and 1 mean one carrier, the
	// deterministic default. See the package documentation.
	Carriers int
}

// Scheduler runs the virtual threads of one machine on one carrier (the
// goroutine that calls Run or Dispatch), or on Options.Carriers carriers
// in parallel. See the package documentation.
//
// The methods of a Scheduler may be called from any goroutine, except from
// code that runs inside a dispatch: natives and vm.DebugHook.OnTrap run
// while the dispatch holds the scheduler's lock, so a debug hook should
// note what it wants and act when Dispatch returns or in OnEvent.
type Scheduler struct {
	// OnEvent, if not nil, receives every scheduler event (spawn, park,
	// wake, preempt, trap, exit, deadlock, end) in the order they happened.
	// The events of a dispatch are delivered on the carrier when the
	// dispatch is over, without the scheduler's lock held, so OnEvent may
	// call the Scheduler's methods (Freeze, SetNext, Pause, …). Set it
	// before Run or the first Dispatch.
	OnEvent func(Event)

	m      *vm.Machine
	clock  Clock
	vclock *VirtualClock // clock, if it is a VirtualClock
	kick   chan struct{} // wakes an idle or paused Run

	mu     sync.Mutex // guards everything below (see "What is locked where")
	quota  int
	rng    *rand.Rand // nil: FIFO
	nextID int64
	main   *vm.Thread
	// threads lists the threads by id: the live ones and, until the
	// next compaction, some that ended (State Dead), so that an exit is
	// O(1) and a lookup a binary search. live counts the live ones.
	threads  []*vm.Thread
	live     int
	nfrozen  int        // frozen threads (Freeze)
	next     *vm.Thread // SetNext
	timers   timerHeap
	timerSeq uint64
	paused   bool
	yieldOn  [numEventKinds]bool // SetYieldOn
	ended    bool
	code     int
	// busy is set while the debugger's Dispatch runs a quantum; cond (on
	// mu) signals its end, Resume, and the end of every dispatch.
	busy bool
	cond sync.Cond

	// The current dispatch: the thread and carrier of the dispatch that
	// holds mu (acting on a Stop, or running a native through serial).
	// The threads it wakes and spawns are listed in the carrier.
	cur    *vm.Thread
	events []Event

	// The carriers (one by default); see carrier.go.
	carriers   []*carrier
	curC       *carrier // the carrier holding mu for a dispatch; nil otherwise
	running    int      // carriers inside t.Run
	pinnedN    int      // threads inside a pinned native (counted in running)
	pausing    int      // Pause calls waiting for the running carriers
	trapping   bool     // a trap paused the scheduler; carriers still stop
	idle       int      // carriers waiting on cond for work
	sleeping   bool     // a carrier sleeps on the clock for the next timer
	firing     bool     // dispatchOn is firing timers
	delivering bool     // a carrier is passing events to OnEvent
	idleTold   bool     // OnEvent heard of this idle period (only frozen threads runnable)
	ioWaiting  int      // threads parked on outside events (ParkIO) not yet woken
	waiters    int      // goroutines waiting on cond
	irq        bool     // the machine's interrupt as updateInterrupt last set it
	yieldAny   bool     // some SetYieldOn kind is on
	hookMu     sync.Mutex
	rec        Recorder     // recording or replaying (SetRecorder); nil otherwise
	holdRec    HoldRecorder // rec, if it records holds (hold.go)
	holdReqs   []holdReq    // holds and releases asked for, done at the next dispatch
	between    int          // Between calls under way: no quantum starts
	cut        *vm.Thread   // the thread whose quantum a trap cut (see trapCont)
	// The strategy choosing the schedule (SetStrategy; strategy.go), the
	// budget of its last pick and a buffer for the runnable threads.
	strat       Strategy
	stratBudget int
	stratBuf    []*vm.Thread
	race        RaceHook // SetRaceHook (racehook.go)
	pinScan     int8     // mayPin: 0 not known yet, 1 no pinned native, 2 some
	// pcg is rng's source (copied by snapshots); ckpt is told of the end
	// of every full quantum (SetCheckpointer, snapshot.go).
	pcg     *rand.PCG
	ckpt    Checkpointer
	objects int  // in the last snapshot
	sites   bool // record spawn and creation sites (SetSites; sites.go)
	// switches counts the quanta begun inside the interpreter loop, by
	// a parking thread handing its carrier over (SwitchOnPark).
	switches int64
}

// threadInfo is the scheduler's per-thread data (vm.Thread.Sched).
//
// It is 48 bytes (a million parked threads: 48 MB): what few threads
// need lives in threadExtra, made on first use.
type threadInfo struct {
	seq uint64 // park number: incremented at every park
	// The carrier running the thread (nil when not running), the one
	// that ran it last, and the one whose run queue holds it.
	on, last, qc *carrier
	x            *threadExtra
	// budgetOnce, if > 0, is the budget of the thread's next dispatch
	// (SetBudgetOnce).
	budgetOnce int32
	queued     bool // in the run queue
	frozen     bool // kept off the run queue by the debugger
	preempt    bool // its trap asks for a preemption (PreemptAtTrap)
}

// threadExtra is the scheduler data of the threads that need it.
type threadExtra struct {
	joiners waitq      // the threads parked in a join of this one
	future  *Future    // the future this thread completes, if spawned for one
	pinned  *vm.Native // the pinned native the thread is blocked in, if any
	// rest, if > 0, is the budget of the thread's next dispatch: what a
	// stop at a trap left of its quantum.
	rest int
	// The debugger's hold (hold.go): held, and whether the thread was
	// frozen before (it stays frozen when released); a hold asked for at
	// the trap being decided (HoldAtTrap), with a pause of the others
	// too; a hold of a running thread not reported yet.
	held, wasFrozen     bool
	holdTrap, holdPause bool
	holdLate            bool
	// spawn says who spawned the thread and where (SetSites; sites.go).
	spawn spawnRec
}

// extra returns ti's threadExtra, made on first use.
func (ti *threadInfo) extra() *threadExtra {
	if ti.x == nil {
		ti.x = &threadExtra{}
	}
	return ti.x
}

// future returns the future the thread completes, or nil.
func (ti *threadInfo) future() *Future {
	if ti.x == nil {
		return nil
	}
	return ti.x.future
}

// pinned returns the pinned native the thread is blocked in, or nil.
func (ti *threadInfo) pinned() *vm.Native {
	if ti.x == nil {
		return nil
	}
	return ti.x.pinned
}

func info(t *vm.Thread) *threadInfo {
	ti, _ := t.Sched.(*threadInfo)
	return ti
}

// New returns a scheduler for m and installs it as m.Sched, where the
// natives of Lib find it.
func New(m *vm.Machine, opts Options) *Scheduler {
	s := &Scheduler{m: m, kick: make(chan struct{}, 1), quota: opts.Quota}
	s.setClock(opts.Clock)
	if s.quota <= 0 {
		s.quota = DefaultQuota
	}
	if opts.Seed != 0 {
		seed := uint64(opts.Seed)
		s.pcg = rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
		s.rng = rand.New(s.pcg)
	}
	s.cond.L = &s.mu
	s.initCarriers(max(1, opts.Carriers))
	m.Sched = s
	return s
}

// setClock makes c the scheduler's clock (nil: the wall clock). Before
// it runs.
func (s *Scheduler) setClock(c Clock) {
	if c == nil {
		c = WallClock()
	}
	s.clock = c
	s.vclock, _ = c.(*VirtualClock)
}

// Machine returns the machine the scheduler runs.
func (s *Scheduler) Machine() *vm.Machine { return s.m }

// Start registers main, the program's first thread (id 1, name "main"),
// as runnable. It must be called once, before any other thread exists.
func (s *Scheduler) Start(main *vm.Thread) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nextID != 0 {
		panic("sched: Start after threads were registered")
	}
	s.main = main
	s.register(main, "main", nil)
}

// register gives t the next id and a name ("thread-ID" if name is ""), and
// makes it runnable at the back of the run queue. Must hold s.mu.
func (s *Scheduler) register(t *vm.Thread, name string, fut *Future) {
	s.nextID++
	t.ID = s.nextID
	if name != "" { // else the default, made when asked for (vm.Thread.Name)
		t.SetName(name)
	}
	t.State = vm.Runnable
	ti := &threadInfo{}
	if fut != nil {
		ti.extra().future = fut
	}
	t.Sched = ti
	s.threads = append(s.threads, t)
	s.live++
	if s.race != nil {
		s.race.Spawn(s.cur, t)
	}
	s.enqueue(t)
	if s.cur != nil {
		if c := s.curC; c != nil && c.list {
			c.spawned = append(c.spawned, t)
		}
	}
	if s.watched() {
		s.emit(Event{Kind: EventSpawn, Thread: t, By: s.cur})
	}
}

// stateNames spell states as in the transition panic.
var stateNames = [...]string{vm.Runnable: "Runnable", vm.Running: "Running", vm.Waiting: "Waiting", vm.Dead: "Dead"}

func stateName(st vm.ThreadState) string {
	if int(st) < len(stateNames) {
		return stateNames[st]
	}
	return fmt.Sprintf("ThreadState(%d)", st)
}

// setState moves t from state from to state to. It is the only place a
// thread's state changes, and it panics on a transition the scheduler
// never makes ("sched: bad transition Waiting->Running") or if t is not in
// state from. The legal transitions are:
//
//	Runnable -> Running   dispatch
//	Running  -> Runnable  quantum spent, yield, trap
//	Running  -> Waiting   park
//	Waiting  -> Runnable  wake
//	Running  -> Dead      exit
func (s *Scheduler) setState(t *vm.Thread, from, to vm.ThreadState) {
	if t.State != from || !legal[from&3][to&3] {
		badTransition(t, from, to)
	}
	t.State = to
}

// legal[from][to] says whether setState may move a thread from to to.
var legal = [4][4]bool{
	vm.Runnable: {vm.Running: true},
	vm.Running:  {vm.Runnable: true, vm.Waiting: true, vm.Dead: true},
	vm.Waiting:  {vm.Runnable: true},
}

// badTransition panics with the transition setState refused. Never
// returns.
func badTransition(t *vm.Thread, from, to vm.ThreadState) {
	if int(from) < len(legal) && int(to) < len(legal) && legal[from][to] {
		panic(fmt.Sprintf("sched: bad transition %s->%s (thread %d is %s)",
			stateName(from), stateName(to), t.ID, stateName(t.State)))
	}
	panic(fmt.Sprintf("sched: bad transition %s->%s", stateName(from), stateName(to)))
}

// enqueue puts the runnable thread t at the back of the run queue, unless
// it is frozen or already there. Must hold s.mu.
func (s *Scheduler) enqueue(t *vm.Thread) {
	ti := info(t)
	if ti.frozen || ti.queued {
		return
	}
	ti.queued = true
	if c := s.curC; c != nil && len(s.carriers) == 1 && !s.firing && s.idle == 0 && !s.sleeping {
		// enqueueOn's common case with one carrier, inside a dispatch:
		// the back of the queue, nobody to wake.
		ti.qc = c
		c.runq.push(t)
		return
	}
	s.enqueueOn(t, ti, false)
}

// dequeue removes t from the run queue if it is there. Must hold s.mu.
func (s *Scheduler) dequeue(t *vm.Thread) {
	ti := info(t)
	if !ti.queued {
		return
	}
	q := &ti.qc.runq
	ti.qc = nil
	for i := 0; i < q.len(); i++ {
		if q.at(i) == t {
			q.removeAt(i)
			break
		}
	}
	ti.queued = false
}

// park records that the running thread t is about to wait for reason on
// obj, and returns the wait-queue entry the native must put where its
// waker will look (then return vm.ErrPark). The Running->Waiting
// transition happens in dispatch once Run has returned, off the thread's
// stack (as Go's park_m): until then nobody can see the thread waiting.
// Must hold s.mu.
func (s *Scheduler) park(t *vm.Thread, reason string, obj any) waiter {
	ti := info(t)
	ti.seq++
	t.WaitReason, t.WaitOn = reason, obj
	return t
}

// live reports whether the wait-queue entry w stands for a parked thread.
// Every park the natives record happens (the runtime never runs NLang
// code on the Go stack, where a park would have to be refused), and
// every wake removes its entry, so an entry is always live; wakers still
// skip one that is not, rather than wake a running thread.
func live(w waiter) bool { return w.State == vm.Waiting }

// wake ends the park of t: its native returns v, or raises err if err is
// not nil (a *vm.Throw), and t goes to the back of the run queue. t must
// be Waiting. Must hold s.mu.
func (s *Scheduler) wake(t *vm.Thread, v vm.Value, err error) {
	if err != nil {
		t.CompleteThrow(err)
	} else {
		t.Complete(v)
	}
	s.setState(t, vm.Waiting, vm.Runnable)
	t.WaitReason, t.WaitOn = "", nil // (a thread records a wait only to park)
	if s.race != nil && s.cur != nil {
		s.race.Wake(t, s.cur)
	}
	s.enqueue(t)
	if c := s.curC; c != nil && c.list {
		c.woken = append(c.woken, t)
	}
	if s.watched() {
		s.emit(Event{Kind: EventWake, Thread: t, By: s.cur})
	}
}

// wakeFirst wakes the first live waiter of q with v or err and returns
// it, dropping stale entries on the way. Must hold s.mu.
func (s *Scheduler) wakeFirst(q *waitq, v vm.Value, err error) (waiter, bool) {
	for {
		w, ok := q.pop()
		if !ok {
			return nil, false
		}
		if live(w) {
			s.wake(w, v, err)
			return w, true
		}
	}
}

// Dispatch runs one quantum of one thread and returns what happened: it
// fires the timers that are due, takes the next runnable thread (the run
// queue's head, or see SetNext and Options.Seed), runs it for the quota,
// and requeues it (quantum spent or yield: at the back; trap: at the
// front), parks it, or finishes it (waking its joiners and completing its
// future). A debugger steps the scheduler by calling Dispatch.
//
// With nothing runnable Dispatch returns an EventIdle (timers are pending,
// or runnable threads are frozen), an EventDeadlock (after writing the
// deadlock report to the machine's Stderr; the program is over with exit
// code 2), or an EventEnd once the program is over.
func (s *Scheduler) Dispatch() Event { return s.dispatchStep() }

// actSafepoint is act for a stop at the safepoint the debugger asked for
// (SetBudgetOnce) in a recorded run: t goes on first, as after a trap,
// and the event is the preemption the debugger waits for. Must hold
// s.mu, with s.cur = t.
func (s *Scheduler) actSafepoint(t *vm.Thread) {
	s.setState(t, vm.Running, vm.Runnable)
	if ti := info(t); !ti.frozen {
		ti.queued = true
		s.enqueueOn(t, ti, true)
	}
	s.emit(Event{Kind: EventPreempt, Thread: t, Stop: vm.StopBudget})
}

// act acts on the Stop of the dispatch of t: requeue, park or finish.
// Must hold s.mu, with s.cur = t.
func (s *Scheduler) act(t *vm.Thread, stop vm.Stop) {
	switch stop {
	case vm.StopBudget, vm.StopYield:
		s.setState(t, vm.Running, vm.Runnable)
		s.enqueue(t)
		if s.watched() {
			s.emit(Event{Kind: EventPreempt, Thread: t, Stop: stop})
		}
	case vm.StopTrap:
		// A breakpoint is not a preemption: the thread goes on first.
		s.setState(t, vm.Running, vm.Runnable)
		ti := info(t)
		held, pause := s.holdAtTrap(t, ti) // non-stop (hold.go)
		if !ti.frozen {
			ti.queued = true
			s.enqueueOn(t, ti, true)
		}
		if pause {
			s.trapStop()
		}
		s.emit(Event{Kind: EventTrap, Thread: t, Stop: stop, Held: held})
	case vm.StopPark:
		s.setState(t, vm.Running, vm.Waiting)
		if s.watched() {
			s.emit(Event{Kind: EventPark, Thread: t, Reason: t.WaitReason})
		}
	default: // vm.StopDone
		s.exit(t)
	}
}

// reductions reads the thread's reduction counter if the vm keeps one.
func reductions(t *vm.Thread) (int64, bool) {
	if rc, ok := any(t).(interface{ Reductions() int64 }); ok {
		return rc.Reductions(), true
	}
	return 0, false
}

// holdsFrozen reports whether a frozen thread is runnable: the debugger,
// not a deadlock, is what keeps the program from going on. Must hold s.mu.
func (s *Scheduler) holdsFrozen() bool {
	if s.nfrozen == 0 {
		return false
	}
	for _, t := range s.threads {
		if ti := info(t); ti.frozen && t.State == vm.Runnable {
			return true
		}
	}
	return false
}

// exit finishes the thread t that Run reported done: it wakes the
// joiners, completes the future or reports an uncaught exception, and
// ends the program if t is main. Must hold s.mu.
func (s *Scheduler) exit(t *vm.Thread) {
	s.setState(t, vm.Running, vm.Dead)
	s.live--
	if dead := len(s.threads) - s.live; dead > 64 && dead > s.live {
		s.compactThreads()
	}
	ti := info(t)
	if ti.frozen {
		ti.frozen = false
		s.nfrozen--
	}
	if ti.x != nil {
		ti.x.held = false
	}
	if s.race != nil {
		s.race.Exit(t, ti.future())
	}
	for ti.x != nil {
		if _, ok := s.wakeFirst(&ti.x.joiners, vm.Value{}, nil); !ok {
			break
		}
	}
	term := vm.IsTermination(t.Uncaught) // the debugger ended it (terminate.go)
	switch fut := ti.future(); {
	case fut != nil:
		fut.complete(s, t)
	case t.Uncaught != nil && t != s.main && !term:
		s.report(vm.ThreadExceptionText(t))
	}
	if s.watched() {
		s.emit(Event{Kind: EventExit, Thread: t})
	}
	if t == s.main {
		code := int(t.Result.I())
		if term {
			code = TerminatedExitCode
		} else if t.Uncaught != nil {
			s.report("Runtime error: " + vm.FormatUncaught(t.Uncaught))
			code = 1
		}
		s.end(code)
	}
}

// compactThreads drops the ended threads from s.threads, keeping the
// order; an exit leaves its thread in place (Dead) until then, so that
// releasing n threads costs O(n), not O(n²). Must hold s.mu.
func (s *Scheduler) compactThreads() {
	live := s.threads[:0]
	for _, t := range s.threads {
		if t.State != vm.Dead {
			live = append(live, t)
		}
	}
	clear(s.threads[len(live):])
	s.threads = live
}

// end marks the program over with exit code code. Must hold s.mu.
func (s *Scheduler) end(code int) {
	s.ended, s.code = true, code
	s.emit(Event{Kind: EventEnd, Code: code})
	s.updateInterrupt() // the running carriers stop at their next safepoint
	s.broadcast()
	s.notify()
}

// report writes text to the machine's stderr.
func (s *Scheduler) report(text string) {
	if s.m.Stderr == nil {
		return
	}
	s.m.OutMu.Lock()
	io.WriteString(s.m.Stderr, text)
	s.m.OutMu.Unlock()
}

// watched reports whether an event would be seen: by OnEvent, or by a
// SetYieldOn. The hot paths build their Event only then. Must hold s.mu.
func (s *Scheduler) watched() bool { return s.OnEvent != nil || s.yieldAny }

// emit records an event for OnEvent. Must hold s.mu.
func (s *Scheduler) emit(ev Event) {
	if s.cur != nil && int(ev.Kind) < len(s.yieldOn) && s.yieldOn[ev.Kind] {
		s.cur.YieldAfterNative = true
	}
	if s.OnEvent != nil {
		s.events = append(s.events, ev)
	}
}

// takeEvents returns and forgets the recorded events. Must hold s.mu.
func (s *Scheduler) takeEvents() []Event {
	evs := s.events
	s.events = nil
	return evs
}

// deliver passes events to OnEvent. Must not hold s.mu.
func (s *Scheduler) deliver(evs []Event) {
	if f := s.OnEvent; f != nil {
		for _, ev := range evs {
			f(ev)
		}
	}
}

// notify wakes Run if it is idle or paused.
func (s *Scheduler) notify() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Run dispatches until the program is over and returns its exit code:
// main's return value when main returns (other threads may still be
// alive: the program ends anyway, as in Go); 1 after writing
// "Runtime error: " and the exception to Stderr when an exception escapes
// main; 2 after the deadlock report. When nothing can run until a timer
// is due, the carrier sleeps on the clock. While the scheduler is paused,
// or only frozen threads could run, Run waits for Resume or Thaw.
func (s *Scheduler) Run() int { return s.runCarriers() }

// ExitCode returns the program's exit code and whether the program is
// over (main ended or the run deadlocked).
func (s *Scheduler) ExitCode() (code int, over bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.code, s.ended
}

// nothingRunnable decides what a dispatch that found no runnable thread
// means: idle (timers pending, or only frozen threads could run), the end
// (no thread left) or a deadlock (reported). Must hold s.mu.
func (s *Scheduler) nothingRunnable(idle Event) Event {
	switch {
	case len(s.timers) > 0 || s.ioWaiting > 0 || s.holdsFrozen():
		return idle
	case s.live == 0:
		s.end(0)
		return Event{Kind: EventEnd, Code: 0}
	}
	s.deadlock()
	return Event{Kind: EventDeadlock, Code: 2}
}
