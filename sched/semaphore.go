package sched

import (
	"fmt"
	"unsafe"

	"github.com/nlangdbg/nlangdbg/vm"
)

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
		readOnly(method("Semaphore", "int available()", func(t *vm.Thread, sm S, args []vm.Value) (vm.Value, error) {
			return vm.IntV(int64(sm.permits)), nil
		})),
	}
	return ctors, methods
}

// Kind implements Primitive.
func (sm *Semaphore) Kind() string { return "Semaphore" }

// TypeName implements Primitive.
func (sm *Semaphore) TypeName() string { return "Semaphore" }

// Holder implements Primitive: no one thread holds a semaphore.
func (sm *Semaphore) Holder() (*vm.Thread, Holding) { return nil, NoHolder }

// View implements Primitive: the permits available and the waiters.
func (sm *Semaphore) View() []Field {
	si := sm.Snapshot()
	return []Field{
		{Name: "available", Value: vm.IntV(int64(si.Available)), Type: vm.Int, Call: ".available()"},
		waitersField(si.Waiters),
	}
}

func (sm *Semaphore) hash(w *stateWriter) bool {
	w.u64(uint64(sm.permits))
	w.waiters(&sm.waiters)
	return true
}

func (sm *Semaphore) unwait(t *vm.Thread) bool { return removeWaiter(&sm.waiters, t) }

// TraceRefs implements vm.Tracer: a semaphore holds a count.
func (sm *Semaphore) TraceRefs(r *vm.Reach) {}

// wakers: any thread that reaches the semaphore releases.
func (sm *Semaphore) wakers() (bool, *vm.Thread) { return true, nil }

func (sm *Semaphore) madeAt() Site { return sm.at }

// CopyFor implements vm.Copyable.
func (sm *Semaphore) CopyFor(c *vm.Copier) any {
	if cp, ok := c.Seen(unsafe.Pointer(sm)); ok {
		return cp
	}
	cp := &Semaphore{s: ctxOf(c).to, permits: sm.permits, at: sm.at}
	c.Remember(unsafe.Pointer(sm), cp)
	cp.waiters = copyThreads(c, sm.waiters)
	return cp
}
