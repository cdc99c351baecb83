package sched

import (
	"fmt"
	"unsafe"

	"github.com/nlangdbg/nlangdbg/vm"
)

// Future is an NLang Future<T>: the result of a thread spawned on a
// function that returns T. get parks until the thread ends; any number of
// threads may wait, and all are woken. If the function threw, every get
// throws that same exception object.
type Future struct {
	s       *Scheduler
	typ     *vm.Type   // Future<T>
	thread  *vm.Thread // the thread computing the value
	done    bool
	val     vm.Value
	exc     *vm.Object
	waiters waitq
}

// FutureInfo is a snapshot of a future for the debugger.
type FutureInfo struct {
	Type      *vm.Type   // Future<T>
	Thread    *vm.Thread // the thread computing the value
	Done      bool
	Value     vm.Value   // the result, once Done without Exception
	Exception *vm.Object // what the function threw, if it did
	// Waiters are the threads parked in get, first come first.
	Waiters []*vm.Thread
}

// Snapshot returns the future's state.
func (f *Future) Snapshot() FutureInfo {
	unlock := f.s.lockView()
	defer unlock()
	return FutureInfo{Type: f.typ, Thread: f.thread, Done: f.done, Value: f.val, Exception: f.exc,
		Waiters: liveThreads(&f.waiters)}
}

// String renders the future as "Future<int>(pending)", "Future<int>(done)"
// or "Future<int>(failed: Exception: boom)".
func (f *Future) String() string {
	defer f.s.viewLock()()
	state := "pending"
	switch {
	case f.exc != nil:
		state = "failed: " + vm.ExceptionString(f.exc)
	case f.done:
		state = "done"
	}
	return fmt.Sprintf("%s(%s)", typeName(f.typ, "Future"), state)
}

// get returns the value, throws the exception, or parks t until the
// future's thread ends.
func (f *Future) get(t *vm.Thread) (vm.Value, error) {
	if f.done {
		if f.exc != nil {
			return vm.Value{}, &vm.Throw{Obj: f.exc}
		}
		return f.val, nil
	}
	if f.thread == t {
		return vm.Value{}, vm.Throwf("DeadlockException", "thread %q cannot wait for its own result", t.Name)
	}
	s, err := blocking(t)
	if err != nil {
		return vm.Value{}, err
	}
	f.waiters.push(s.park(t, "future get", f))
	return vm.Value{}, vm.ErrPark
}

// complete records how the future's thread th ended and wakes every
// waiter. Must hold s.mu.
func (f *Future) complete(s *Scheduler, th *vm.Thread) {
	f.done, f.val, f.exc = true, th.Result, th.Uncaught
	if vm.IsTermination(f.exc) {
		f.exc = terminatedException(s, th) // catchable, unlike the termination
	}
	for {
		var err error
		if f.exc != nil {
			err = &vm.Throw{Obj: f.exc}
		}
		if _, ok := s.wakeFirst(&f.waiters, f.val, err); !ok {
			return
		}
	}
}

func futureMethods() []*vm.Native {
	type F = *Future
	return []*vm.Native{
		method("Future", "T get()", func(t *vm.Thread, f F, args []vm.Value) (vm.Value, error) {
			return f.get(t)
		}),
		readOnly(method("Future", "bool isDone()", func(t *vm.Thread, f F, args []vm.Value) (vm.Value, error) {
			return vm.BoolV(f.done), nil
		})),
	}
}

// lockView takes the scheduler's lock for a debugger view of an object
// and returns the unlock. A nil scheduler (an object made outside one)
// needs no lock.
func (s *Scheduler) lockView() func() {
	if s == nil {
		return func() {}
	}
	s.mu.Lock()
	return s.mu.Unlock
}

// Kind implements Primitive.
func (f *Future) Kind() string { return "Future" }

// TypeName implements Primitive.
func (f *Future) TypeName() string { return typeName(f.typ, "Future") }

// Holder implements Primitive: a pending future's thread.
func (f *Future) Holder() (*vm.Thread, Holding) {
	if fi := f.Snapshot(); !fi.Done && fi.Thread != nil {
		return fi.Thread, ComputedBy
	}
	return nil, NoHolder
}

// View implements Primitive: the state, the value or exception, the
// waiters and the thread computing it.
func (f *Future) View() []Field {
	fi := f.Snapshot()
	state := "pending"
	switch {
	case fi.Exception != nil:
		state = "failed"
	case fi.Done:
		state = "done"
	}
	out := []Field{{Name: "state", Value: vm.StrV(state), Type: vm.String}}
	switch {
	case fi.Exception != nil:
		out = append(out, Field{Name: "exception", Value: vm.RefV(fi.Exception), Type: vm.ClassType(fi.Exception.Class)})
	case fi.Done && fi.Type != nil && len(fi.Type.Args) == 1:
		out = append(out, Field{Name: "value", Value: fi.Value, Type: fi.Type.Args[0]})
	}
	out = append(out, waitersField(fi.Waiters))
	if fi.Thread != nil {
		out = append(out, Field{Name: "thread", Value: vm.RefV(fi.Thread), Type: threadType()})
	}
	return out
}

func (f *Future) hash(w *stateWriter) bool {
	w.ref(f.typ)
	if f.thread != nil {
		w.u64(uint64(f.thread.ID))
	}
	w.bool(f.done)
	w.waiters(&f.waiters)
	if f.exc != nil && !w.ref(f.exc) {
		return false
	}
	return w.value(f.val)
}

func (f *Future) unwait(t *vm.Thread) bool { return removeWaiter(&f.waiters, t) }

// TraceRefs implements vm.Tracer: the result or the exception.
func (f *Future) TraceRefs(r *vm.Reach) {
	r.Value(f.val)
	if f.exc != nil {
		r.Ref(f.exc)
	}
}

// wakers: only the end of the future's thread completes it.
func (f *Future) wakers() (bool, *vm.Thread) {
	if f.done {
		return true, nil // (nobody waits on a done future)
	}
	return false, f.thread
}

// madeAt: where its thread was spawned.
func (f *Future) madeAt() Site {
	_, at := spawnOf(f.thread)
	return at
}

// CopyFor implements vm.Copyable.
func (f *Future) CopyFor(c *vm.Copier) any {
	if cp, ok := c.Seen(unsafe.Pointer(f)); ok {
		return cp
	}
	cp := &Future{s: ctxOf(c).to, typ: c.Type(f.typ), done: f.done}
	c.Remember(unsafe.Pointer(f), cp)
	cp.thread = c.Thread(f.thread)
	cp.val = c.Value(f.val)
	cp.exc = c.Object(f.exc)
	cp.waiters = copyThreads(c, f.waiters)
	c.Bytes += int64(unsafe.Sizeof(*f))
	return cp
}
