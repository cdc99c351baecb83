package sched

import (
	"fmt"
	"strconv"
	"unsafe"

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
		readOnly(method("ReentrantMutex", "int holdCount()", func(t *vm.Thread, m M, args []vm.Value) (vm.Value, error) {
			if m.l.owner != t {
				return vm.IntV(0), nil
			}
			return vm.IntV(int64(m.l.holds)), nil
		})),
	}
	return ctors, methods
}

// holder is the lock's owner, for Primitive.Holder.
func (l *lockState) holder() (*vm.Thread, Holding) {
	if o := l.snapshot().Owner; o != nil {
		return o, HeldBy
	}
	return nil, NoHolder
}

// view is the lock's Primitive.View: owner, holds and waiters.
func (l *lockState) view() []Field {
	li := l.snapshot()
	return []Field{
		{Name: "owner", Kind: FieldThread, Thread: li.Owner},
		{Name: "holds", Value: vm.IntV(int64(li.Holds)), Type: vm.Int},
		waitersField(li.Waiters),
	}
}

// hash writes the lock's state: owner, holds, waiters.
func (l *lockState) hash(w *stateWriter) bool {
	if l.owner != nil {
		w.u64(uint64(l.owner.ID))
	} else {
		w.u64(0)
	}
	w.u64(uint64(l.holds))
	w.waiters(&l.waiters)
	return true
}

// Kind implements Primitive.
func (m *Mutex) Kind() string { return "Mutex" }

// TypeName implements Primitive.
func (m *Mutex) TypeName() string { return "Mutex" }

// Holder implements Primitive: the owner.
func (m *Mutex) Holder() (*vm.Thread, Holding) { return m.l.holder() }

// View implements Primitive: owner, holds and waiters.
func (m *Mutex) View() []Field { return m.l.view() }

func (m *Mutex) hash(w *stateWriter) bool { return m.l.hash(w) }

func (m *Mutex) unwait(t *vm.Thread) bool { return removeWaiter(&m.l.waiters, t) }

// TraceRefs implements vm.Tracer: a lock refers to threads, not values.
func (m *Mutex) TraceRefs(r *vm.Reach) {}

// wakers: only the owner unlocks, and it must reach the lock to.
func (m *Mutex) wakers() (bool, *vm.Thread) { return true, m.l.owner }

func (m *Mutex) madeAt() Site { return m.l.at }

// Kind implements Primitive.
func (m *ReentrantMutex) Kind() string { return "ReentrantMutex" }

// TypeName implements Primitive.
func (m *ReentrantMutex) TypeName() string { return "ReentrantMutex" }

// Holder implements Primitive: the owner.
func (m *ReentrantMutex) Holder() (*vm.Thread, Holding) { return m.l.holder() }

// View implements Primitive: owner, hold count and waiters.
func (m *ReentrantMutex) View() []Field { return m.l.view() }

func (m *ReentrantMutex) hash(w *stateWriter) bool { return m.l.hash(w) }

func (m *ReentrantMutex) unwait(t *vm.Thread) bool { return removeWaiter(&m.l.waiters, t) }

// TraceRefs implements vm.Tracer: a lock refers to threads, not values.
func (m *ReentrantMutex) TraceRefs(r *vm.Reach) {}

// wakers: only the owner unlocks, and it must reach the lock to.
func (m *ReentrantMutex) wakers() (bool, *vm.Thread) { return true, m.l.owner }

func (m *ReentrantMutex) madeAt() Site { return m.l.at }

func (l *lockState) copyFor(c *vm.Copier) lockState {
	return lockState{s: ctxOf(c).to, owner: c.Thread(l.owner), holds: l.holds, waiters: copyThreads(c, l.waiters), at: l.at}
}

// copyLock copies the lock at p whose state is l into cp, whose state is
// dst (Mutex and ReentrantMutex).
func copyLock(c *vm.Copier, p unsafe.Pointer, l *lockState, cp any, dst *lockState) any {
	if seen, ok := c.Seen(p); ok {
		return seen
	}
	c.Remember(p, cp)
	*dst = l.copyFor(c)
	return cp
}

// CopyFor implements vm.Copyable.
func (m *Mutex) CopyFor(c *vm.Copier) any {
	cp := new(Mutex)
	return copyLock(c, unsafe.Pointer(m), &m.l, cp, &cp.l)
}

// CopyFor implements vm.Copyable.
func (m *ReentrantMutex) CopyFor(c *vm.Copier) any {
	cp := new(ReentrantMutex)
	return copyLock(c, unsafe.Pointer(m), &m.l, cp, &cp.l)
}
