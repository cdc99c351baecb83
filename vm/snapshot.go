package vm

import (
	"fmt"
	"unsafe"
)

// Copying a machine's state. Every frame, register and object of a
// running program is the VM's own data, so the state of a program
// stopped between two quanta can be copied structurally: a Copier walks
// the graph from the threads and makes a copy of each object once
// (sharing is kept: two references to one object are two references to
// its one copy). The program (code, classes, types, natives) is shared,
// never copied: it does not change while the program runs. Strings are
// immutable and shared too.
//
// The debugger uses copies as checkpoints (inspect, sched.Snapshot):
// going back restores the copy nearest before the target and
// re-executes from there.

// A Copyable is a host object (a channel, a lock, a stream …) that knows
// how to copy itself for a Copier. CopyFor returns the copy; it must
// register it with c.Remember before copying what the object refers to,
// so that cycles through it end.
type Copyable interface {
	CopyFor(c *Copier) any
}

// A Copier copies values, objects and threads of one machine into
// another (M). Each object is copied once: a second reference to it
// gets the same copy.
type Copier struct {
	// M is the machine the copies belong to.
	M *Machine
	// Ctx is for the Copyables of other packages (the scheduler keeps
	// its own copying state there).
	Ctx  any
	memo map[unsafe.Pointer]any
	err  error
	// Bytes estimates the memory of the copies made.
	Bytes int64
}

// NewCopier returns a copier into m.
func NewCopier(m *Machine) *Copier {
	return &Copier{M: m, memo: map[unsafe.Pointer]any{}}
}

// Err returns the first error met: a host object that cannot be copied.
// A copy with an error is incomplete and must not be run.
func (c *Copier) Err() error { return c.err }

// Fail records an error (the first one counts).
func (c *Copier) Fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Remember records that the object at p has the copy cp.
func (c *Copier) Remember(p unsafe.Pointer, cp any) { c.memo[p] = cp }

// Seen returns the copy of the object at p, if it was copied.
func (c *Copier) Seen(p unsafe.Pointer) (any, bool) {
	cp, ok := c.memo[p]
	return cp, ok
}

// Value returns the copy of v.
func (c *Copier) Value(v Value) Value {
	if v.R != nil {
		v.R = c.Ref(v.R)
	}
	return v
}

// Values returns a copy of vs (nil stays nil), with the same capacity.
func (c *Copier) Values(vs []Value) []Value {
	if vs == nil {
		return nil
	}
	out := make([]Value, len(vs), cap(vs))
	for i, v := range vs {
		out[i] = c.Value(v)
	}
	c.Bytes += int64(cap(vs)) * int64(unsafe.Sizeof(Value{}))
	return out
}

// Ref returns the copy of a reference (the R of a Value, a host field).
func (c *Copier) Ref(r any) any {
	switch x := r.(type) {
	case nil, string, *Type, *Funcode, *Class, *Native:
		return r
	case *Object:
		return c.Object(x)
	case *List:
		return c.List(x)
	case *Array:
		if x == nil {
			return x
		}
		if cp, ok := c.memo[unsafe.Pointer(x)]; ok {
			return cp
		}
		cp := &Array{Type: x.Type}
		c.memo[unsafe.Pointer(x)] = cp
		cp.Data = c.Values(x.Data)
		c.Bytes += int64(unsafe.Sizeof(*x))
		return cp
	case *Dict:
		return c.dict(x)
	case *FuncVal:
		if x == nil || !x.Bound {
			return x // unbound function values are immutable
		}
		if cp, ok := c.memo[unsafe.Pointer(x)]; ok {
			return cp
		}
		cp := new(FuncVal)
		*cp = *x
		c.memo[unsafe.Pointer(x)] = cp
		cp.Recv = c.Value(x.Recv)
		c.Bytes += int64(unsafe.Sizeof(*x))
		return cp
	case *Thread:
		return c.Thread(x)
	case *input: // what a thread reading standard input waits on
		return c.M.in
	case *Trace:
		return c.trace(x)
	case *Throw:
		if x == nil {
			return x
		}
		cp := *x
		cp.Obj = c.Object(x.Obj)
		return &cp
	case Copyable:
		return x.CopyFor(c)
	}
	c.Fail(fmt.Errorf("a %T cannot be copied", r))
	return r
}

// Object returns the copy of o.
func (c *Copier) Object(o *Object) *Object {
	if o == nil {
		return nil
	}
	if cp, ok := c.memo[unsafe.Pointer(o)]; ok {
		return cp.(*Object)
	}
	cp := &Object{Class: o.Class, id: o.id}
	c.memo[unsafe.Pointer(o)] = cp
	cp.Fields = c.Values(o.Fields)
	if o.Native != nil {
		cp.Native = c.Ref(o.Native)
	}
	c.Bytes += int64(unsafe.Sizeof(*o))
	return cp
}

// List returns the copy of l.
func (c *Copier) List(l *List) *List {
	if l == nil {
		return nil
	}
	if cp, ok := c.memo[unsafe.Pointer(l)]; ok {
		return cp.(*List)
	}
	cp := &List{Type: l.Type}
	c.memo[unsafe.Pointer(l)] = cp
	cp.Data = c.Values(l.Data)
	c.Bytes += int64(unsafe.Sizeof(*l))
	return cp
}

func (c *Copier) dict(d *Dict) *Dict {
	if d == nil {
		return nil
	}
	if cp, ok := c.memo[unsafe.Pointer(d)]; ok {
		return cp.(*Dict)
	}
	cp := &Dict{Type: d.Type}
	c.memo[unsafe.Pointer(d)] = cp
	cp.Keys = c.Values(d.Keys)
	cp.Vals = c.Values(d.Vals)
	cp.index = make(map[Value]int, len(cp.Keys))
	for i, k := range cp.Keys {
		cp.index[k] = i // the keys are stored normalised (dictKey)
	}
	c.Bytes += int64(unsafe.Sizeof(*d)) + int64(len(cp.Keys))*48
	return cp
}

func (c *Copier) trace(tr *Trace) *Trace {
	if tr == nil {
		return nil
	}
	if cp, ok := c.memo[unsafe.Pointer(tr)]; ok {
		return cp.(*Trace)
	}
	cp := &Trace{Frames: tr.Frames, Thread: tr.Thread} // frames do not change once recorded
	if tr.Rethrown != nil {
		cp.Rethrown = append(make([]Rethrow, 0, cap(tr.Rethrown)), tr.Rethrown...)
	}
	c.memo[unsafe.Pointer(tr)] = cp
	return cp
}

// Thread returns the copy of t: its frames, registers and state. The
// scheduler's data (Sched) is copied if it is Copyable.
func (c *Copier) Thread(t *Thread) *Thread {
	if t == nil {
		return nil
	}
	if cp, ok := c.memo[unsafe.Pointer(t)]; ok {
		return cp.(*Thread)
	}
	cp := new(Thread)
	*cp = *t
	c.memo[unsafe.Pointer(t)] = cp
	cp.M = c.M
	// The first frames and registers may live inside the Thread: the
	// copy's then live inside the copy.
	if len(t.frames) > 0 && &t.frames[:1][0] == &t.frames0[0] {
		cp.frames = cp.frames0[:len(t.frames):cap(t.frames)]
	} else if t.frames != nil {
		cp.frames = append(make([]Frame, 0, cap(t.frames)), t.frames...)
		c.Bytes += int64(cap(t.frames)) * int64(unsafe.Sizeof(Frame{}))
	}
	if cap(t.stack) > 0 && &t.stack[:1][0] == &t.stack0[0] {
		cp.stack = cp.stack0[:len(t.stack):cap(t.stack)]
		for i := range cp.stack0 {
			cp.stack0[i] = c.Value(t.stack0[i])
		}
	} else {
		for i := range cp.stack0 {
			cp.stack0[i] = Value{}
		}
		cp.stack = c.Values(t.stack)
	}
	cp.WaitOn = c.Ref(t.WaitOn)
	cp.Sched = c.Ref(t.Sched)
	cp.Result = c.Value(t.Result)
	cp.Uncaught = c.Object(t.Uncaught)
	cp.Obj = c.Ref(t.Obj)
	cp.concatBuf = nil // the buffer may be shared by strings of t: the copy starts its own
	if t.pendingThrow != nil {
		if th, ok := t.pendingThrow.(*Throw); ok {
			cp.pendingThrow = c.Ref(th).(*Throw)
		}
	}
	cp.reported = c.Object(t.reported)
	if t.call != nil {
		pc := *t.call
		pc.args = c.Values(t.call.args)
		pc.k = c.Ref(t.call.k).(Continuation)
		cp.call = &pc
	}
	c.Bytes += int64(unsafe.Sizeof(*t))
	return cp
}

// CopyFor implements Copyable: a formatter waiting in a continuation
// frame.
func (f *formatter) CopyFor(c *Copier) any {
	if cp, ok := c.memo[unsafe.Pointer(f)]; ok {
		return cp
	}
	cp := new(formatter)
	*cp = *f
	c.memo[unsafe.Pointer(f)] = cp
	cp.b = append([]byte(nil), f.b...)
	cp.stack = make([]fmtPos, len(f.stack), cap(f.stack))
	for i, p := range f.stack {
		p.vals = c.Values(p.vals)
		p.keys = c.Values(p.keys)
		cp.stack[i] = p
	}
	cp.pending = c.Object(f.pending)
	return cp
}

// CopyFor implements Copyable.
func (b *ByteStream) CopyFor(c *Copier) any {
	if cp, ok := c.memo[unsafe.Pointer(b)]; ok {
		return cp
	}
	cp := &ByteStream{buf: append([]byte(nil), b.buf...), pos: b.pos, closed: b.closed}
	c.memo[unsafe.Pointer(b)] = cp
	cp.ser = b.ser.copyFor(c)
	c.Bytes += int64(len(b.buf))
	return cp
}

// CopyFor implements Copyable. The copy shares the open file (and its
// position) with the original: a replay does not touch files (their
// results come from the recording), and the file is used for real only
// past the end of the recording.
func (fs *FileStream) CopyFor(c *Copier) any {
	if cp, ok := c.memo[unsafe.Pointer(fs)]; ok {
		return cp
	}
	cp := new(FileStream)
	*cp = *fs
	c.memo[unsafe.Pointer(fs)] = cp
	cp.ser = fs.ser.copyFor(c)
	return cp
}

func (s serState) copyFor(c *Copier) serState {
	var cp serState
	if s.written != nil {
		cp.written = make(map[*Object]uint32, len(s.written))
		for o, n := range s.written {
			cp.written[c.Object(o)] = n
		}
	}
	if s.read != nil {
		cp.read = make([]*Object, len(s.read), cap(s.read))
		for i, o := range s.read {
			cp.read[i] = c.Object(o)
		}
	}
	return cp
}

// CopyStateTo copies the machine's own state into dst, a new machine of
// the same program: the PRNG, the termination class, standard input
// that arrived and was not consumed and the threads parked reading it
// (copied with c). dst keeps its own input source, writers and hook.
// Call it when no thread runs.
func (m *Machine) CopyStateTo(dst *Machine, c *Copier) {
	if m.termClass != nil { // (read without the Once: no thread runs)
		dst.termOnce.Do(func() { dst.termClass = m.termClass })
	}
	src := libStateOf(m)
	to := libStateOf(dst)
	src.rngMu.Lock()
	to.rngMu.Lock()
	to.rng = src.rng
	to.rngMu.Unlock()
	src.rngMu.Unlock()
	if m.in == nil {
		return
	}
	if dst.in == nil {
		dst.in = newInput(nil)
	}
	m.in.mu.Lock()
	defer m.in.mu.Unlock()
	in := dst.in
	in.direct = m.in.direct
	in.buf = append([]byte(nil), m.in.buf...)
	in.eof, in.err = m.in.eof, m.in.err
	in.waiters = make([]inputWaiter, len(m.in.waiters))
	for i, w := range m.in.waiters {
		in.waiters[i] = inputWaiter{t: c.Thread(w.t), parse: w.parse}
	}
}
