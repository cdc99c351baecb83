package sched

import (
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/nlangdbg/nlangdbg/vm"
)

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
		readOnly(lockFree("AtomicInt", "int get()", func(t *vm.Thread, a A, args []vm.Value) (vm.Value, error) {
			return ret(a.v.Load())
		})),
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
		readOnly(lockFree("AtomicInt", "string toString()", func(t *vm.Thread, a A, args []vm.Value) (vm.Value, error) {
			return vm.StrV(a.String()), nil
		})),
	}
	return ctors, methods
}

// Kind implements Primitive.
func (a *AtomicInt) Kind() string { return "AtomicInt" }

// TypeName implements Primitive.
func (a *AtomicInt) TypeName() string { return "AtomicInt" }

// Holder implements Primitive: nothing waits on an AtomicInt.
func (a *AtomicInt) Holder() (*vm.Thread, Holding) { return nil, NoHolder }

// View implements Primitive: the value.
func (a *AtomicInt) View() []Field {
	return []Field{{Name: "value", Value: vm.IntV(int64(a.Get())), Type: vm.Int, Call: ".get()"}}
}

func (a *AtomicInt) hash(w *stateWriter) bool {
	w.u64(uint64(uint32(a.v.Load())))
	return true
}

func (a *AtomicInt) unwait(t *vm.Thread) bool { return false }

// TraceRefs implements vm.Tracer: an int.
func (a *AtomicInt) TraceRefs(r *vm.Reach) {}

// wakers: nobody parks on an AtomicInt.
func (a *AtomicInt) wakers() (bool, *vm.Thread) { return true, nil }

// madeAt: not recorded (nobody waits on one).
func (a *AtomicInt) madeAt() Site { return Site{} }

// CopyFor implements vm.Copyable.
func (a *AtomicInt) CopyFor(c *vm.Copier) any {
	if cp, ok := c.Seen(unsafe.Pointer(a)); ok {
		return cp
	}
	cp := new(AtomicInt)
	cp.v.Store(a.v.Load())
	c.Remember(unsafe.Pointer(a), cp)
	return cp
}
