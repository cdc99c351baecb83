// Package sched runs NLang's virtual threads: it is the scheduler of
// nlangdbg, written like a small version of Go's runtime/proc.go, and the
// home of the natives that block — thread.spawn/join/sleep/yield,
// Future<T>, Channel<T>, Mutex, ReentrantMutex, Semaphore, AtomicInt
// (Lib) — and of the NLang-source package concurrent (WaitGroup).
//
// # Design
//
// A virtual thread (vm.Thread) is plain data: a chain of heap frames and
// a state. The scheduler owns no goroutine per thread. A carrier (by
// default the one goroutine that calls Run; see "Several carriers" for
// Options.Carriers > 1) loops over Dispatch, and a dispatch is one
// quantum of one thread:
//
//  1. fire the timers that are due (a heap ordered by deadline, then
//     creation), making their sleepers runnable;
//  2. take the head of the FIFO run queue (or, with Options.Seed, a
//     pseudo-random queued thread; or the one the debugger chose with
//     SetNext);
//  3. call t.Run(quota): the interpreter runs until the quota of
//     reductions is spent at a safepoint, or the thread yields, parks,
//     ends or hits a trap;
//  4. act on the vm.Stop: requeue at the back (StopBudget, StopYield), at
//     the front (StopTrap: a breakpoint is not a preemption), park
//     (StopPark), or finish (StopDone: wake the joiners, complete the
//     Future, report an uncaught exception; main ending ends the program,
//     even if other threads still run, as in Go).
//
// Every state change goes through one function, setState, which panics
// on a transition the scheduler never makes ("sched: bad transition
// Waiting->Running"): Runnable->Running (dispatch), Running->Runnable
// (preempt), Running->Waiting (park), Waiting->Runnable (wake),
// Running->Dead (exit).
//
// Blocking is parking. A native that must wait (Channel.recv, Mutex.lock,
// Future.get, thread.join, thread.sleep, …) records the wait on the
// thread (vm.Thread.WaitReason, e.g. "chan recv", "mutex lock",
// "join thread-3", and WaitOn, the object), puts the thread in the
// object's FIFO wait queue, and returns vm.ErrPark. Run then returns
// StopPark and the dispatch makes the thread Waiting — after it is off
// its "stack", as Go's park_m does, so that with several carriers a waker
// can never see a thread that is Waiting but still running. Whoever ends
// the wait (a sender, an unlock, the thread's exit, a timer) supplies the
// result with Thread.Complete, or an exception with Thread.CompleteThrow,
// and makes the thread runnable at the back of the run queue. Because the
// wait queues live in the objects, a debugger can show who waits on what
// (Channel.Snapshot, Future.Snapshot, Mutex.Snapshot, Scheduler.Joiners).
//
// A wait-queue entry is the thread itself (a parked sender's value is
// in its scheduler data). No park is ever refused — the runtime runs
// NLang code only as activations of the thread (vm.Thread.CallThen),
// never on the Go stack — so no entry goes stale.
//
// Deadlock: no thread runnable, no timer pending, no runnable thread held
// by the debugger (Freeze), and live threads left. The report lists every
// live thread with its wait reason and stack, on Stderr, and the exit
// code is 2:
//
//	fatal: all threads are asleep - deadlock!
//
//	thread 1 "main" [join thread-2]:
//	  at main (file.n:12)
//	thread 2 "thread-2" [mutex lock]:
//	  at worker (file.n:5)
//
// Determinism. With one carrier a run is a pure function of the program,
// its input and the seed: the run queue is FIFO, a woken thread goes to
// the back, wait queues are FIFO, timers fire in (deadline, sequence)
// order, and a seeded run draws from its own PCG. The one outside input
// is the clock: thread.sleep uses the wall clock by default; a
// VirtualClock (tests, replay) makes timing deterministic too.
//
// The debugger steps the scheduler with Dispatch (each call returns an
// Event: the thread, its Stop, the reductions used, the threads woken and
// spawned), watches OnEvent (spawn, park, wake, preempt, trap, exit,
// deadlock, end), chooses the next thread (SetNext), holds threads back
// (Freeze, Thaw), stops the world (Pause, Resume) and reads the state
// (Threads, RunQueue, Timers, the objects' Views; who spawned each
// thread and where, where each primitive was made, when SetSites asked
// for it: sites.go; the leaked threads, Leaks: leaks.go). A request
// that resumes a stopped program for a short while (a step) can run the
// quanta that follow on its own goroutine with Drive: with one carrier,
// Drive holds the carriers off as Dispatch does, calls the resume, and
// dispatches carrier 1's queue, delivering the events, until the world
// stops again, nothing is runnable, the program ends or a time limit
// passes; the carrier goes on from there. The schedule is the carrier's
// (the same dispatchOn of the same queue); what changes is which
// goroutine runs it, so a step costs no hand-off to the carrier and
// back. A program that may call a pinned native (file I/O) is not driven:
// such a native could block the debugger's request loop for any time.
//
// # Synchronisation primitives
//
// Channel, Future, Mutex, ReentrantMutex, Semaphore and AtomicInt are
// Primitives (primitive.go): one interface that everything treating them
// alike asks instead of a type switch over them — its Kind and
// TypeName, a one-line String, its Holder (a lock's owner "held by", a
// pending future's thread "computed by"), the View a debugger shows (its
// values, the thread holding it, the threads parked on it, with the
// method call that reads each value), its state for the state hash of
// schedule exploration (StateHasher), taking a parked thread out of its
// wait queues (Terminate), and its copy for a snapshot (vm.Copyable).
// Package inspect renders Views, wait-graph edges and "held by" reports
// from the interface alone. Each primitive lives in its own file with its
// natives (channel.go, future.go, lock.go for both mutexes, semaphore.go,
// atomic.go); the library table (lib.go) makes its host type with
// primitiveHost, which takes only a Primitive and names the type by its
// Kind. Adding a primitive is therefore one new file and one line of the
// table, and a method left out fails to compile. The per-type Snapshot
// methods (ChannelInfo, FutureInfo, LockInfo, SemaphoreInfo) stay for
// callers that know the type. Thread joins and sleeps, which park on a
// vm.Thread and a Timer, are the scheduler's own and not Primitives.
//
// Decisions where LANGUAGE.md is silent: trySend on a closed channel
// throws ChannelClosedException like send (a trySend loop cannot spin
// forever on a closed channel), while tryRecv on a closed, drained
// channel returns false; a thread that joins itself, or calls get on its
// own Future, throws DeadlockException instead of hanging; a locked
// Mutex and a Semaphore hand the lock or permit directly to the first
// waiter, so waiters are served in FIFO order; thread.sleep(ms) with
// ms <= 0 only yields.
//
// # Building a run
//
// Boot is the one way to build a run: a machine and its scheduler from a
// program and a RunConfig. It checks the limits (Limits.Check: the same
// bounds and words for every front end), resolves the file permissions,
// makes the machine with its limits, permissions, debug hook and output
// (through the Tap of a recording or a replay, which also gives the
// clock), makes the scheduler (or restores a Snapshot), installs the race
// hook, the Tap, the strategy and the checkpointer in that order, and
// starts main. Every front end (run and its --record, --race and
// --dump-on-crash forms, debug, replay, trace, explore, run --listen, the
// DAP launch request) and every re-execution of the debugger's time
// travel goes through it, so a permission or a limit cannot be applied by
// one and forgotten by another (run --dump-on-crash once ran without
// --deny-fs's policy for that reason). New is the scheduler alone, for
// tests and benchmarks that build a machine by hand.
//
// # Rejected alternatives
//
// A goroutine per virtual thread would make blocking trivial (a Go
// channel receive) and give multi-core for free, but hides the stack in
// Go's runtime: the debugger could not stop, walk, change and resume one
// thread while the others stay put, a run would not be reproducible, and
// every NLang call would need Go recursion or a goroutine handoff. Delve
// spends thousands of lines working around exactly this.
//
// Go channels (or sync.Mutex) for NLang channels and locks would block
// the carrier, not the virtual thread; a virtual thread must park so the
// carrier runs someone else, and the waiters must be data the debugger
// can list ("the threads parked on this channel") — gopher-lua's channels
// block the host goroutine and cannot show either.
//
// Preemption by signals or a timer goroutine setting a flag would make
// the interleaving depend on wall-clock time. Counting reductions at
// safepoints (function entry, loop back-edge) preempts only at
// instruction boundaries of consistent heap state, and deterministically.
//
// # Carriers
//
// Options.Carriers = N (nlangdbg run --carriers N, the DAP launch
// argument "carriers"; 1 by default) runs virtual threads on N carriers,
// in parallel when N > 1. One carrier is not a special case: it is this
// path with N = 1 — the same locking, the same pause through the
// safepoint interrupt, the same parking protocol — whose order is fully
// determined (one FIFO queue, nobody to steal from).
// A carrier is one Go goroutine (Run's own and N-1 it starts), never one
// per virtual thread, with its own FIFO run queue. It takes the head of
// its queue, or, when the queue is empty, steals the head of the next
// non-empty one (from carrier id+1 on); a woken or spawned thread goes to
// the back of its waker's carrier's queue, a thread that used its quantum
// to the back of its own carrier's queue, and a thread made runnable from
// outside (Thaw) to the queue of the carrier it last ran on; unless that
// queue is longer than the shortest by more than one thread, in which case
// it goes to the back of the shortest (stealing alone, only from a dry
// queue, would leave three busy threads on one carrier and one on
// another for good).
//
// What is locked where:
//
//   - s.mu still guards all scheduler state (threads, queues, timers, wait
//     queues inside Channel/Future/Mutex/Semaphore, thread states), but a
//     carrier holds it only to pick a thread (firing due timers first) and
//     to act on its Stop; t.Run runs without it. At most one carrier runs
//     a given thread: only the carrier that moved it Runnable->Running
//     calls Run, and nobody else touches a Running thread's frames.
//   - The natives that touch scheduler state (every thread, Channel,
//     Future, Mutex, ReentrantMutex and Semaphore native; see serial) take
//     s.mu themselves, and borrow the dispatch context (s.cur, s.curC,
//     the woken and spawned lists) of the carrier running their thread,
//     so park, wake, register and emit are the same code whatever N is.
//     AtomicInt natives take no lock (they are Go atomics). A carrier
//     with no events to deliver keeps s.mu from acting on one Stop to
//     picking the next thread. The methods of the host types (method in
//     lib.go) do this without a deferred call when their thread is being
//     dispatched: if the native panics, s.mu stays locked with
//     carrier.held set, and the carrier takes it over when Run returns,
//     as after a park (below).
//   - Parking keeps the lock (Go's park_m and its unlockf): a native that
//     parks its thread returns with s.mu still locked, and the carrier
//     takes it over when Run returns StopPark (the vm does nothing in
//     between) to make the thread Waiting (carrier.held says so). A
//     waker on another carrier therefore never sees a thread that is in
//     a wait queue but still Running (it would take the entry for stale
//     and lose the wake-up).
//   - With N > 1, vm.Machine.Parallel makes the Dict natives lock the Dict's own
//     mutex (a Go map must not be written concurrently, even by an NLang
//     program with a data race), and Object.ID is assigned atomically.
//     Everything else an NLang program shares (fields, arrays, lists) is
//     the program's business, as in Java or Go: an unsynchronised program
//     may see stale values, but the scheduler and the Go runtime stay
//     consistent. Host objects' String methods take s.mu (viewLock).
//   - Events are recorded under s.mu in the order they happen and passed
//     to OnEvent by one carrier at a time, in order (deliverShared: a
//     carrier that finds another delivering leaves its events to it).
//     The debugger's hooks (OnTrap, OnThrow), which carriers call without
//     s.mu, are serialised by a mutex of their own (serialHook).
//
// Idle carriers wait on s.cond; an enqueue wakes them, except a wake by a
// timer: the carrier that fires the due timers puts their threads in its
// own queue and picks the first at once, and the others hear of the rest
// only when that dispatch ends. So sleepers run in deadline order, as
// with one carrier, even when a late carrier fires several timers at
// once (the scripts order threads with sleeps 10 or 20 ms apart). One
// idle carrier at a time sleeps on the clock for the next timer (an
// enqueue or a new timer kicks it); the running carriers fire due timers
// at every dispatch.
// With a VirtualClock a carrier sleeps (advancing virtual time) only when
// no carrier runs, as with one carrier. Deadlock is decided under s.mu by
// a carrier that finds nothing runnable: no run queue holds a thread, no
// carrier is inside Run (s.running = 0, which counts pinned natives), no
// timer is pending, no frozen thread is runnable, and live threads remain.
//
// Stop the world. Pause sets vm.Machine's interrupt, an atomic flag that
// every safepoint reads (a running thread then returns StopBudget with
// budget left), and waits on s.cond until no carrier is inside Run,
// except carriers whose thread is blocked in a pinned native; those stop
// in ExitPinned until Resume. Then it clears the flag, so a paused
// scheduler can still be stepped with Dispatch (one quantum on the
// caller's goroutine, on carrier 1's behalf) and expressions evaluated.
// A running thread thus stops within one safepoint of the Pause, at an
// instruction boundary, and is requeued as after a preemption — in a
// recorded run, as at a trap instead: at the front, to go on with the
// rest of its quantum (Cut names it), so that the recording replays
// without the pause. When the
// program ends (main returns, Kill, deadlock) the flag is raised too, and
// Run returns only once every carrier has left its quantum. A thread that
// stops at a debugger trap (breakpoint, step, exception) pauses the
// scheduler itself (trapStop) and raises the flag: the other carriers,
// and the trapped thread requeued at the front of its queue, would
// otherwise run on until the event is delivered. A quantum
// cut short by SetBudgetOnce (the debugger's "stop at the next
// safepoint") does the same; in a recorded run the thread then goes on
// with the rest of its quantum, as after a trap, so the stop changes
// nothing in the schedule that going back re-executes. The debugger's Resume ends that pause like
// any other. Single-thread resumes freeze the other threads as before.
// Stops at scheduler events (SetYieldOn) are not made prompt this way:
// with several carriers the others may run a little further before the
// debugger's Pause takes effect.
//
// Input. A read of blocking input parks its thread (vm.Scheduler.ParkIO,
// wait reason "io read"); the machine's reader goroutine completes it
// (WakeIO) from outside any dispatch. While such a park is pending the
// program is waiting, not deadlocked (ioWaiting counts them).
//
// What N > 1 gives up: determinism (the interleaving depends on timing;
// Options.Seed only picks within a carrier's own queue), and two
// breakpoints hit on two carriers in the same instant are reported as one
// stop (the debugger keeps one pending stop).
//
// Rejected alternatives for N > 1:
//
// A lock per object (channel, mutex, future) with lock-free run queues,
// as in Go's runtime, would let carriers park and wake without meeting on
// one mutex. But a wake touches the object, the woken thread's state, a
// run queue and the event log at once, and the debugger's views need a
// consistent picture of all of them; one lock keeps every invariant in
// one place, and it is held only for short
// scheduler operations, never while NLang code runs, so CPU-bound threads
// scale. Revisit when channel-heavy programs on many carriers show the
// lock as the bottleneck.
//
// Holding s.mu for a whole dispatch would serialise the carriers, and,
// as the first version did for one carrier, make Pause wait out a whole
// quantum (or for ever, behind a thread given a large budget) and need a
// second locking discipline beside this one. With one carrier it would
// spare the lock operations of the channel natives, but those are not
// what a round trip costs: a build that drops every lock operation of a
// one-carrier round trip (two channel hand-offs, two thread switches)
// ran 12–15% faster (140 against 158 ns); the rest is the ~1,500
// instructions of the two dispatches, the four native calls and the
// NLang code. Code the carrier
// runs inside a quantum also takes s.mu (a host object's String,
// pinned natives, the debugger's hooks evaluating conditions), and
// would deadlock on a lock the carrier already holds.
//
// A global run queue is simpler and fair, but every dispatch would
// contend on it and a thread would hop between carriers; per-carrier
// queues with stealing keep a busy thread where it is.
//
// Stopping the world by waiting for the quanta to end (as with one
// carrier) would make a Pause wait up to a quantum on every carrier, and
// for a long time behind a thread given a large budget; an atomic flag
// read at safepoints costs one load per safepoint and keeps every stop at
// an instruction boundary. Signals or goroutine preemption could stop a
// thread between instructions, in inconsistent heap state. Reading the
// flag at every instruction would stop a little sooner but costs a load
// per instruction; between two safepoints there is no loop and no call.
package sched
