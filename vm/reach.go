package vm

import (
	"fmt"
	"unsafe"
)

// Reachability: what a set of roots reaches through the program's
// values. Every object of a running program is the VM's own data, so the
// debugger can ask, as a garbage collector's mark phase does, which
// objects a set of threads can still get at — the leak finder of package
// sched marks from the threads that can run and reports the threads
// parked on something none of them reaches.
//
// The walk is iterative (a work list), so a linked list of millions of
// nodes takes no Go stack. Strings and the program's own data (types,
// functions, classes, natives) are immutable leaves and are not
// recorded.

// A Tracer is a host object (a channel, a stream, …) that refers to
// values: TraceRefs passes each of them to r.Value or r.Ref. An object
// that refers to nothing need not implement it (see Reach.Unknown).
type Tracer interface {
	TraceRefs(r *Reach)
}

// A Reach marks what its roots reach.
type Reach struct {
	seen map[unsafe.Pointer]struct{}
	work []any
	last unsafe.Pointer // the last pointer found seen (a thread's registers often repeat one)
	// OnHost, if set, is called once for every host object reached (a
	// value of a type the vm does not know: a channel, a lock, …),
	// before what it refers to.
	OnHost func(x any)
	// Unknown names the first host type reached that neither implements
	// Tracer nor is known to refer to nothing: what it refers to was not
	// marked, so the marks may be short of the truth.
	Unknown string
}

// NewReach returns a Reach with room for hint objects.
func NewReach(hint int) *Reach {
	return &Reach{seen: make(map[unsafe.Pointer]struct{}, max(hint, 0))}
}

// Leaf is implemented by host objects that refer to no value (a lock's
// state is threads, not values): Reach records them without looking in.
type Leaf interface {
	ReachLeaf()
}

// Reached reports whether x (a reference: the R of a Value, a host
// object) was reached. Leaves are not recorded: a string, the program's
// data and thread handles always report false.
func (r *Reach) Reached(x any) bool {
	p := refPointer(x)
	if p == nil {
		return false
	}
	_, ok := r.seen[p]
	return ok
}

// Value marks what v refers to.
func (r *Reach) Value(v Value) {
	if v.R != nil {
		r.Ref(v.R)
	}
}

// Values marks what vs refer to.
func (r *Reach) Values(vs []Value) {
	for i := range vs {
		if vs[i].R != nil {
			r.Ref(vs[i].R)
		}
	}
}

// Ref marks x (the R of a Value, a host object's field) and, once Drain
// runs, what it refers to. A reference to a thread marks the thread
// object only: its registers are a root only if Thread is called for it
// (whether a thread can run is the caller's question, not the heap's).
func (r *Reach) Ref(x any) {
	switch x.(type) {
	case nil, string, *Type, *Funcode, *Class, *Native, *input, *Thread:
		return // (a thread handle refers to no value: see above)
	case *FuncVal:
		if f := x.(*FuncVal); f == nil || !f.Bound {
			return // an unbound function value refers to code only
		}
	}
	p := refPointer(x)
	if p == nil {
		return
	}
	if p == r.last {
		return
	}
	if _, ok := r.seen[p]; ok {
		r.last = p
		return
	}
	r.seen[p] = struct{}{}
	r.work = append(r.work, x)
}

// Thread marks what thread t holds: the registers of its frames, the
// call a native asked for, the exception in flight, its result. Not what
// it waits on, nor its scheduling data, nor the registers of the frames
// that returned. (A register of a live frame counts even if the variable
// it held is out of scope: the pass does not know which temporaries a
// frame still needs.)
func (r *Reach) Thread(t *Thread) {
	if t == nil {
		return
	}
	hi := 0
	for i := range t.frames {
		if f := &t.frames[i]; f.Fn != nil {
			hi = max(hi, int(f.Base)+f.Fn.NumRegs)
		}
	}
	r.Values(t.stack[:min(hi, len(t.stack))])
	if cc := t.cold; cc != nil {
		if c := cc.call; c != nil {
			r.Values(c.args)
			if c.k != nil {
				r.Ref(c.k)
			}
		}
		if th, ok := cc.pendingThrow.(*Throw); ok && th != nil {
			r.Ref(th.Obj)
		}
		if cc.reported != nil {
			r.Ref(cc.reported)
		}
	}
	r.Value(t.Result)
	if t.Uncaught != nil {
		r.Ref(t.Uncaught)
	}
}

// Drain marks everything the references marked so far reach.
func (r *Reach) Drain() {
	for len(r.work) > 0 {
		x := r.work[len(r.work)-1]
		r.work = r.work[:len(r.work)-1]
		switch o := x.(type) {
		case *Object:
			r.Values(o.Fields)
			if o.Native != nil {
				r.Ref(o.Native)
			}
		case *Array:
			r.Values(o.Data)
		case *List:
			r.Values(o.Data)
		case *Dict:
			r.Values(o.Keys)
			r.Values(o.Vals)
		case *FuncVal:
			r.Value(o.Recv)
		case *Trace:
			// a backtrace's positions
		case *Throw:
			if o.Obj != nil {
				r.Ref(o.Obj)
			}
		default:
			if r.OnHost != nil {
				r.OnHost(x)
			}
			switch h := x.(type) {
			case Tracer:
				h.TraceRefs(r)
			case Leaf:
			default:
				if r.Unknown == "" {
					r.Unknown = fmt.Sprintf("%T", x)
				}
			}
		}
	}
}

// refPointer returns the pointer a reference holds (nil for nil and for
// values that are not pointers).
func refPointer(x any) unsafe.Pointer {
	type iface struct {
		typ, data unsafe.Pointer
	}
	if x == nil {
		return nil
	}
	return (*iface)(unsafe.Pointer(&x)).data
}

// TraceRefs implements Tracer: the values a formatter is rendering.
func (f *formatter) TraceRefs(r *Reach) {
	for _, p := range f.stack {
		r.Values(p.vals)
		r.Values(p.keys)
	}
	if f.pending != nil {
		r.Ref(f.pending)
	}
}

// TraceRefs implements Tracer: the objects a stream serialised or read.
func (b *ByteStream) TraceRefs(r *Reach) { b.ser.traceRefs(r) }

// TraceRefs implements Tracer: the objects a stream serialised or read.
func (fs *FileStream) TraceRefs(r *Reach) { fs.ser.traceRefs(r) }

func (s *serState) traceRefs(r *Reach) {
	for o := range s.written {
		r.Ref(o)
	}
	for _, o := range s.read {
		r.Ref(o)
	}
}
