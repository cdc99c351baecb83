package sched

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"reflect"

	"github.com/nlangdbg/nlangdbg/vm"
)

// This file hashes the state of a program at a scheduling point, for
// the state cache of schedule exploration (sched/explore, dfs): two
// points with the same hash are taken to have the same future, whatever
// the schedule that led to each.

// A StateHasher hashes the state of a run (Hash); it keeps its buffers
// from one call to the next. The zero value is ready to use.
type StateHasher struct{ w stateWriter }

// Hash writes the state of the run of s to h: the run queue in order,
// every live thread (its state, what it waits for, its frames with their
// registers) and everything reachable from the threads' registers —
// objects, arrays, Lists, Dicts, strings, boxed values, function values,
// threads, and the state of channels, locks, semaphores, atomics and
// futures (their values, owners and wait queues in order). References are
// written by the order in which the walk first meets them, so that two
// runs whose heaps differ only by where objects were allocated hash
// alike. It reports false when the state holds what it cannot write
// (pending timers, a continuation frame, host data of another kind):
// such a state is to be taken as unlike any other.
//
// Call it only from Strategy.Pick (the scheduler's lock held, one
// carrier).
func (sh *StateHasher) Hash(s *Scheduler, h *maphash.Hash) bool {
	if len(s.timers) > 0 || len(s.carriers) != 1 {
		return false
	}
	w := &sh.w
	if w.ids == nil {
		w.ids = map[any]uint64{}
	}
	clear(w.ids)
	w.h, w.todo = h, w.todo[:0]
	defer func() { w.h = nil; clear(w.ids); clear(w.todo) }()
	q := &s.carriers[0].runq
	w.u64(uint64(q.len()))
	for i := 0; i < q.len(); i++ {
		w.u64(uint64(q.at(i).ID))
	}
	for _, t := range s.threads {
		if t.State == vm.Dead {
			continue
		}
		if !w.thread(t) {
			return false
		}
	}
	for i := 0; i < len(w.todo); i++ {
		if !w.object(w.todo[i]) {
			return false
		}
	}
	return true
}

// stateWriter writes a state to a hash.
type stateWriter struct {
	h    *maphash.Hash
	buf  [8]byte
	ids  map[any]uint64 // references met so far, numbered from 1
	todo []any          // references met but not written yet
}

func (w *stateWriter) u64(x uint64) {
	binary.LittleEndian.PutUint64(w.buf[:], x)
	w.h.Write(w.buf[:])
}

func (w *stateWriter) str(s string) {
	w.u64(uint64(len(s)))
	w.h.WriteString(s)
}

// thread writes a live thread: id, state, wait, frames and registers.
func (w *stateWriter) thread(t *vm.Thread) bool {
	w.u64(uint64(t.ID))
	w.u64(uint64(t.State))
	w.str(t.WaitReason)
	w.bool(t.InNative())
	w.bool(t.PendingThrow())
	if t.WaitOn != nil && !w.ref(t.WaitOn) {
		return false
	}
	if ti := info(t); ti != nil {
		w.bool(ti.frozen)
		if f := ti.future(); f != nil && !w.ref(f) {
			return false
		}
	}
	n := t.Depth()
	w.u64(uint64(n))
	for i := n - 1; i >= 0; i-- { // outermost first
		f := t.Frame(i)
		if f.Fn.Cont {
			return false // a native's continuation: host data
		}
		w.ref(f.Fn)
		w.u64(uint64(f.PC))
		w.u64(uint64(f.Ret) - uint64(f.Base))
		for r := int32(0); r < int32(f.Fn.NumRegs); r++ {
			if !w.value(*t.Reg(f, r)) {
				return false
			}
		}
	}
	return true
}

func (w *stateWriter) bool(b bool) {
	if b {
		w.u64(1)
	} else {
		w.u64(0)
	}
}

// value writes a register, a field or an element.
func (w *stateWriter) value(v vm.Value) bool {
	w.u64(v.N)
	if v.R == nil {
		w.u64(0)
		return true
	}
	return w.ref(v.R)
}

// ref writes a reference: its number, and queues what it refers to the
// first time. Program-static things (types, functions, natives) are
// written by identity.
func (w *stateWriter) ref(r any) bool {
	switch x := r.(type) {
	case string:
		w.u64(1)
		w.str(x)
		return true
	case *vm.Type, *vm.Funcode, *vm.Native, *vm.Class:
		// the same object in every run of the program: by address
		w.u64(2)
		w.u64(uint64(reflect.ValueOf(r).Pointer()))
		return true
	case *vm.Thread:
		w.u64(3)
		w.u64(uint64(x.ID))
		if x.State != vm.Dead {
			return true // written with the live threads
		}
		// an ended thread: what a join of it may see
		if x.Uncaught != nil {
			w.str(x.Uncaught.Class.Name)
		} else {
			w.str("")
		}
		return w.value(x.Result)
	}
	id, ok := w.ids[r]
	if !ok {
		id = uint64(len(w.ids) + 1)
		w.ids[r] = id
		w.todo = append(w.todo, r)
	}
	w.u64(4)
	w.u64(id)
	return true
}

// object writes the contents of a reference met by ref.
func (w *stateWriter) object(r any) bool {
	switch x := r.(type) {
	case *vm.Object:
		w.ref(x.Class)
		w.u64(uint64(len(x.Fields)))
		for _, f := range x.Fields {
			if !w.value(f) {
				return false
			}
		}
		if x.Native != nil {
			return w.host(x.Native)
		}
		return true
	case *vm.Array:
		return w.values(x.Type, x.Data)
	case *vm.List:
		return w.values(x.Type, x.Data)
	case *vm.Dict:
		if !w.values(x.Type, x.Keys) {
			return false
		}
		return w.values(nil, x.Vals)
	case *vm.FuncVal:
		w.ref(x.Type)
		if x.Fn != nil {
			w.ref(x.Fn)
		}
		if x.Native != nil {
			w.ref(x.Native)
		}
		w.str(x.Name)
		w.bool(x.Bound)
		return w.value(x.Recv)
	default:
		return w.host(r)
	}
}

func (w *stateWriter) values(t *vm.Type, vs []vm.Value) bool {
	if t != nil {
		w.ref(t)
	}
	w.u64(uint64(len(vs)))
	for _, v := range vs {
		if !w.value(v) {
			return false
		}
	}
	return true
}

// host writes the state of the scheduler's host objects: a Primitive,
// its kind then its own state (Primitive.hash).
func (w *stateWriter) host(r any) bool {
	p, ok := r.(Primitive)
	if !ok {
		return false
	}
	w.str(p.Kind())
	return p.hash(w)
}

// waiters writes the live threads of a wait queue, in order.
func (w *stateWriter) waiters(q *waitq) {
	n := 0
	for i := 0; i < q.len(); i++ {
		if t := q.at(i); live(t) {
			w.u64(uint64(t.ID))
			n++
		}
	}
	w.u64(uint64(n) | math.MaxUint32<<32)
}
