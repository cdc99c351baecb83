// Package sched runs NLang's virtual threads: it is the scheduler of
// nlangdbg, written like a small version of Go's runtime/proc.go, and the
// home of the natives that block — thread.spawn/join/sleep/yield,
// Future<T>, Channel<T>, Mutex, ReentrantMutex, Semaphore, AtomicInt
// (Lib) — and of the NLang-source package concurrent (WaitGroup).
//
// # Design
//
// A virtual thread (vm.Thread) is plain data: a chain of heap frames and
// a state. The scheduler owns no goroutine per thread. A carrier (today:
// the one goroutine that calls Run) loops over Dispatch, and a dispatch
// is one quantum of one thread:
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
// A wait-queue entry carries the thread's park number. The vm refuses a
// park inside a nested call (a toString run by the runtime): the native
// has already enqueued its thread, so that entry goes stale; wakers skip
// entries whose thread is no longer Waiting in that same park.
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
// (Threads, RunQueue, Timers, the objects' Snapshot methods).
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
// # Several carriers (later)
//
// The design leaves room for M:N: per-carrier run queues with stealing
// replace the single queue; each object's state changes are small
// methods (offer/take/close, lock/unlock, complete) that will take the
// object's own lock, with the Running->Waiting transition made after Run
// returns while the object is still locked (Go's unlockf); setState
// becomes a compare-and-swap. Today one mutex, held for a whole dispatch,
// serialises the carrier against the debugger's views.
package sched
