package sched

import (
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/nlangdbg/nlangdbg/vm"
)

// LockInfo is a snapshot of a Mutex or ReentrantMutex for the debugger.
type LockInfo struct {
	Owner *vm.Thread // nil: unlocked
	Holds int        // hold count (1 for a locked Mutex)
	// Waiters are the threads parked in lock, first served first.
	Waiters []*vm.Thread
}

// lockState is the state shared by Mutex and ReentrantMutex. Unlocking
// hands the lock directly to the first waiter, so waiters are served in
// FIFO order and a barging tryLock cannot starve them.
type lockState struct {
	s       *Scheduler
	owner   *vm.Thread
	holds   int
	waiters waitq
	at      Site // where it was made (SetSites)
}

// lock acquires the lock for t, or parks t (with reason) until an unlock
// hands it over. A reentrant lock held by t counts one more hold.
func (l *lockState) lock(t *vm.Thread, reentrant bool, reason string, obj any) (vm.Value, error) {
	if l.tryLock(t, reentrant) {
		return vm.Value{}, nil
	}
	s, err := blocking(t)
	if err != nil {
		return vm.Value{}, err
	}
	l.waiters.push(s.park(t, reason, obj))
	return vm.Value{}, vm.ErrPark
}

func (l *lockState) tryLock(t *vm.Thread, reentrant bool) bool {
	switch {
	case l.owner == nil:
		l.owner, l.holds = t, 1
	case reentrant && l.owner == t:
		l.holds++
	default:
		return false
	}
	return true
}

// unlock releases one hold of t; the last one passes the lock to the
// first waiter. Unlocking a lock t does not hold throws
// IllegalStateException.
func (l *lockState) unlock(t *vm.Thread, kind string) (vm.Value, error) {
	switch {
	case l.owner == nil:
		return vm.Value{}, vm.Throwf("IllegalStateException", "unlock of unlocked %s", kind)
	case l.owner != t:
		return vm.Value{}, vm.Throwf("IllegalStateException", "unlock of %s held by %q from %q", kind, l.owner.Name, t.Name)
	}
	l.holds--
	if l.holds > 0 {
		return vm.Value{}, nil
	}
	l.owner = nil
	if w, ok := schedOf(t).wakeFirst(&l.waiters, vm.Value{}, nil); ok {
		l.owner, l.holds = w, 1
	}
	return vm.Value{}, nil
}

func (l *lockState) snapshot() LockInfo {
	unlock := l.s.lockView()
	defer unlock()
	return LockInfo{Owner: l.owner, Holds: l.holds, Waiters: liveThreads(&l.waiters)}
}

func (l *lockState) format(kind string) string {
	defer l.s.viewLock()()
	if l.owner == nil {
		return kind + "(unlocked)"
	}
	s := kind + "(locked by " + l.owner.Name
	if l.holds > 1 {
		s += " x" + strconv.Itoa(l.holds)
	}
	if n := len(liveThreads(&l.waiters)); n > 0 {
		s += fmt.Sprintf(", %d waiting", n)
	}
	return s + ")"
}

// Mutex is an NLang Mutex: not reentrant (a thread that locks it twice
// parks forever, which the deadlock detector reports).
type Mutex struct{ l lockState }

// Snapshot returns the mutex's owner and waiters.
func (m *Mutex) Snapshot() LockInfo { return m.l.snapshot() }

// String renders the mutex as "Mutex(unlocked)" or
// "Mutex(locked by main, 2 waiting)".
func (m *Mutex) String() string { return m.l.format("Mutex") }

// ReentrantMutex is an NLang ReentrantMutex: its owner may lock it again,
// and must unlock it as many times.
type ReentrantMutex struct{ l lockState }

// Snapshot returns the mutex's owner, hold count and waiters.
func (m *ReentrantMutex) Snapshot() LockInfo { return m.l.snapshot() }

// String renders the mutex as "ReentrantMutex(locked by main x2)".
func (m *ReentrantMutex) String() string { return m.l.format("ReentrantMutex") }

func mutexNatives() (ctors, methods []*vm.Native) {
	type M = *Mutex
	ctors = []*vm.Native{ctor("Mutex", "Mutex()", func(t *vm.Thread, args []vm.Value) (vm.Value, error) {
		m := &Mutex{l: lockState{s: schedOf(t)}}
		noteSite(t, &m.l.at)
		return vm.RefV(m), nil
	})}
	methods = []*vm.Native{
		method("Mutex", "void lock()", func(t *vm.Thread, m M, args []vm.Value) (vm.Value, error) {
			return m.l.lock(t, false, "mutex lock", m)
		}),
		method("Mutex", "void unlock()", func(t *vm.Thread, m M, args []vm.Value) (vm.Value, error) {
			return m.l.unlock(t, "Mutex")
		}),
		method("Mutex", "bool tryLock()", func(t *vm.Thread, m M, args []vm.Value) (vm.Value, error) {
			return vm.BoolV(m.l.tryLock(t, false)), nil
		}),
	}
	return ctors, methods
}

func reentrantNatives() (ctors, methods []*vm.Native) {
	type M = *ReentrantMutex
	ctors = []*vm.Native{ctor("ReentrantMutex", "ReentrantMutex()", func(t *vm.Thread, args []vm.Value) (vm.Value, error) {
		m := &ReentrantMutex{l: lockState{s: schedOf(t)}}
		noteSite(t, &m.l.at)
		return vm.RefV(m), nil
	})}
	methods = []*vm.Native{
		method("ReentrantMutex", "void lock()", func(t *vm.Thread, m M, args []vm.Value) (vm.Value, error) {
			return m.l.lock(t, true, "reentrant lock", m)
		}),
		method("ReentrantMutex", "void unlock()", func(t *vm.Thread, m M, args []vm.Value) (vm.Value, error) {
			return m.l.unlock(t, "ReentrantMutex")
		}),
		method("ReentrantMutex", "bool tryLock()", func(t *vm.Thread, m M, args []vm.Value) (vm.Value, error) {
			return vm.BoolV(m.l.tryLock(t, true)), nil
		}),
		method("ReentrantMutex", "int holdCount()", func(t *vm.Thread, m M, args []vm.Value) (vm.Value, error) {
			if m.l.owner != t {
				return vm.IntV(0), nil
			}
			return vm.IntV(int64(m.l.holds)), nil
		}),
	}
	return ctors, methods
}

// Semaphore is an NLang Semaphore: a count of permits; acquire parks
// while there is none. A release hands its permit directly to the first
// waiter.
type Semaphore struct {
	s       *Scheduler
	permits int
	waiters waitq
	at      Site // where it was made (SetSites)
}

// SemaphoreInfo is a snapshot of a semaphore for the debugger.
type SemaphoreInfo struct {
	Available int
	Waiters   []*vm.Thread // parked in acquire, first served first
}

// Snapshot returns the semaphore's permits and waiters.
func (sm *Semaphore) Snapshot() SemaphoreInfo {
	unlock := sm.s.lockView()
	defer unlock()
	return SemaphoreInfo{Available: sm.permits, Waiters: liveThreads(&sm.waiters)}
}

// String renders the semaphore as "Semaphore(available 3)".
func (sm *Semaphore) String() string {
	defer sm.s.viewLock()()
	s := fmt.Sprintf("Semaphore(available %d", sm.permits)
	if n := len(liveThreads(&sm.waiters)); n > 0 {
		s += fmt.Sprintf(", %d waiting", n)
	}
	return s + ")"
}

func semaphoreNatives() (ctors, methods []*vm.Native) {
	type S = *Semaphore
	ctors = []*vm.Native{ctor("Semaphore", "Semaphore(int n)", func(t *vm.Thread, args []vm.Value) (vm.Value, error) {
		n := args[0].I()
		if n < 0 {
			return vm.Value{}, vm.Throwf("Exception", "negative semaphore permits %d", n)
		}
		sm := &Semaphore{s: schedOf(t), permits: int(n)}
		noteSite(t, &sm.at)
		return vm.RefV(sm), nil
	})}
	methods = []*vm.Native{
		method("Semaphore", "void acquire()", func(t *vm.Thread, sm S, args []vm.Value) (vm.Value, error) {
			if sm.permits > 0 {
				sm.permits--
				return vm.Value{}, nil
			}
			s, err := blocking(t)
			if err != nil {
				return vm.Value{}, err
			}
			sm.waiters.push(s.park(t, "semaphore acquire", sm))
			return vm.Value{}, vm.ErrPark
		}),
		method("Semaphore", "void release()", func(t *vm.Thread, sm S, args []vm.Value) (vm.Value, error) {
			if _, ok := schedOf(t).wakeFirst(&sm.waiters, vm.Value{}, nil); !ok {
				sm.permits++
			}
			return vm.Value{}, nil
		}),
		method("Semaphore", "bool tryAcquire()", func(t *vm.Thread, sm S, args []vm.Value) (vm.Value, error) {
			if sm.permits > 0 {
				sm.permits--
				return vm.BoolV(true), nil
			}
			return vm.BoolV(false), nil
		}),
		method("Semaphore", "int available()", func(t *vm.Thread, sm S, args []vm.Value) (vm.Value, error) {
			return vm.IntV(int64(sm.permits)), nil
		}),
	}
	return ctors, methods
}

// AtomicInt is an NLang AtomicInt: an int (32 bits, wrapping) updated
// atomically, also across carriers.
type AtomicInt struct{ v atomic.Int32 }

// Get returns the value.
func (a *AtomicInt) Get() int32 { return a.v.Load() }

// String renders the value in decimal (NLang's toString).
func (a *AtomicInt) String() string { return strconv.Itoa(int(a.v.Load())) }

func atomicNatives() (ctors, methods []*vm.Native) {
	type A = *AtomicInt
	newAtomic := func(v int32) vm.Value {
		a := &AtomicInt{}
		a.v.Store(v)
		return vm.RefV(a)
	}
	ret := func(v int32) (vm.Value, error) { return vm.IntV(int64(v)), nil }
	ctors = []*vm.Native{
		ctor("AtomicInt", "AtomicInt()", func(t *vm.Thread, args []vm.Value) (vm.Value, error) {
			return newAtomic(0), nil
		}),
		ctor("AtomicInt", "AtomicInt(int v)", func(t *vm.Thread, args []vm.Value) (vm.Value, error) {
			return newAtomic(int32(args[0].N)), nil
		}),
	}
	methods = []*vm.Native{
		lockFree("AtomicInt", "int get()", func(t *vm.Thread, a A, args []vm.Value) (vm.Value, error) {
			return ret(a.v.Load())
		}),
		lockFree("AtomicInt", "void set(int v)", func(t *vm.Thread, a A, args []vm.Value) (vm.Value, error) {
			a.v.Store(int32(args[1].N))
			return vm.Value{}, nil
		}),
		lockFree("AtomicInt", "int add(int d)", func(t *vm.Thread, a A, args []vm.Value) (vm.Value, error) {
			return ret(a.v.Add(int32(args[1].N)))
		}),
		lockFree("AtomicInt", "int increment()", func(t *vm.Thread, a A, args []vm.Value) (vm.Value, error) {
			return ret(a.v.Add(1))
		}),
		lockFree("AtomicInt", "int decrement()", func(t *vm.Thread, a A, args []vm.Value) (vm.Value, error) {
			return ret(a.v.Add(-1))
		}),
		lockFree("AtomicInt", "bool compareAndSet(int expect, int update)", func(t *vm.Thread, a A, args []vm.Value) (vm.Value, error) {
			return vm.BoolV(a.v.CompareAndSwap(int32(args[1].N), int32(args[2].N))), nil
		}),
		lockFree("AtomicInt", "string toString()", func(t *vm.Thread, a A, args []vm.Value) (vm.Value, error) {
			return vm.StrV(a.String()), nil
		}),
	}
	return ctors, methods
}
