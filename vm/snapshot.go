package vm

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
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
// gets the same copy. The copy is iterative (a work list of objects
// whose contents are still to copy), so a long chain of objects — a
// linked list of millions — takes no Go stack.
type Copier struct {
	// M is the machine the copies belong to.
	M *Machine
	// Ctx is for the Copyables of other packages (the scheduler keeps
	// its own copying state there).
	Ctx any
	// ptrs maps the objects of this package (objects, lists, arrays,
	// dicts, bound function values, threads, traces) to their copies;
	// memo, everything else (Seen, Remember).
	ptrs ptrMap
	memo map[unsafe.Pointer]any
	err  error
	// Bytes estimates the memory of the copies made; Objects counts them.
	Bytes   int64
	Objects int
	// Limit, if positive, bounds Bytes: past it the copy stops with
	// ErrTooLarge (the state is too large to be worth copying).
	Limit int64
	// Frozen makes copies that will never run, only be copied again (a
	// checkpoint): their objects and values are carved out of large
	// blocks, a few allocations for the whole copy (a block lives as long
	// as any object in it, which is fine for a copy dropped as a whole;
	// a copy that runs would keep blocks alive for a few live objects).
	Frozen  bool
	objSlab []Object
	valSlab []Value
	// slabs are the blocks a Frozen copy carved its objects out of; src,
	// those of the copy being copied (FromSlabs), where fwd holds the
	// copy of each object by its position — no hashing of addresses,
	// which costs a cache miss per object on a large heap.
	slabs []unsafe.Pointer
	src   *SlabIndex
	fwd   []*Object
	last  int // the block of src the last object was found in
	// work lists the copies whose contents are still the original's.
	work     []pending
	draining bool
	// Relink, if set, makes the copy one of another program (a reload,
	// reload.go): classes, types and functions are relinked to it.
	Relink *Relink
}

// Type returns what t stands for in the copy (t itself but in a reload).
func (c *Copier) Type(t *Type) *Type {
	if c.Relink == nil {
		return t
	}
	return c.Relink.Type(t)
}

// Sizes of the blocks of a Frozen copy, and the largest slice carved
// out of one.
const (
	objSlabLen  = 256
	valSlabLen  = 4096
	valSlabTake = 256
)

// newObject returns a zeroed object with n fields for a copy.
func (c *Copier) newObject(n int) *Object {
	if !c.Frozen {
		return allocObject(n)
	}
	if len(c.objSlab) == 0 {
		c.objSlab = make([]Object, objSlabLen)
		c.slabs = append(c.slabs, unsafe.Pointer(&c.objSlab[0]))
	}
	o := &c.objSlab[0]
	c.objSlab = c.objSlab[1:]
	o.Fields = c.newValues(n, n)
	return o
}

// newValues returns a zeroed slice of n values of capacity cp for a
// copy.
func (c *Copier) newValues(n, cp int) []Value {
	if !c.Frozen || cp > valSlabTake {
		return make([]Value, n, cp)
	}
	if cp > len(c.valSlab) {
		c.valSlab = make([]Value, valSlabLen)
	}
	vs := c.valSlab[:n:cp]
	c.valSlab = c.valSlab[cp:]
	return vs
}

// pending is a copy whose references still point into the original.
type pending struct {
	kind uint8
	p    unsafe.Pointer
	n    int // pendValues: the number of values at p
}

const (
	pendValues uint8 = iota // *[]Value: a slice of values
	pendFunc                // *FuncVal: its receiver
	pendThread              // *Thread: its registers and references
)

// NewCopier returns a copier into m; hint, if positive, is the number of
// objects expected.
func NewCopier(m *Machine, hint int) *Copier {
	c := &Copier{M: m, memo: map[unsafe.Pointer]any{}}
	c.ptrs.init(max(hint, 0))
	return c
}

// ErrTooLarge is the error of a copy that went past its Limit.
var ErrTooLarge = errors.New("the state is larger than the copy's limit")

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
		v.R = c.ref(v.R)
		c.drain()
	}
	return v
}

// Values returns a copy of vs (nil stays nil), with the same capacity.
func (c *Copier) Values(vs []Value) []Value {
	out := c.values(vs)
	c.drain()
	return out
}

// Ref returns the copy of a reference (the R of a Value, a host field).
func (c *Copier) Ref(r any) any {
	r = c.ref(r)
	c.drain()
	return r
}

// Object returns the copy of o.
func (c *Copier) Object(o *Object) *Object {
	o = c.object(o)
	c.drain()
	return o
}

// List returns the copy of l.
func (c *Copier) List(l *List) *List {
	l = c.list(l)
	c.drain()
	return l
}

// Thread returns the copy of t: its frames, registers and state. The
// scheduler's data (Sched) is copied if it is Copyable.
func (c *Copier) Thread(t *Thread) *Thread {
	t = c.thread(t)
	c.drain()
	return t
}

// drain copies the contents of the pending copies (unless a drain is
// already under way further up).
func (c *Copier) drain() {
	if c.draining {
		return
	}
	c.draining = true
	for len(c.work) > 0 {
		if c.Limit > 0 && c.Bytes > c.Limit {
			c.Fail(ErrTooLarge)
			c.work = c.work[:0]
			break
		}
		w := c.work[len(c.work)-1]
		c.work = c.work[:len(c.work)-1]
		switch w.kind {
		case pendValues:
			vs := unsafe.Slice((*Value)(w.p), w.n)
			for i := range vs {
				switch r := vs[i].R.(type) {
				case nil, string:
				case *Object: // (the common case, without ref's switch)
					vs[i].R = c.object(r)
				default:
					vs[i].R = c.ref(r)
				}
			}
		case pendFunc:
			f := (*FuncVal)(w.p)
			f.Recv.R = c.ref(f.Recv.R)
		case pendThread:
			c.fillThread((*Thread)(w.p))
		}
	}
	c.draining = false
}

// values makes a shallow copy of vs and leaves its references for later.
func (c *Copier) values(vs []Value) []Value {
	if vs == nil {
		return nil
	}
	out := c.newValues(len(vs), cap(vs))
	copy(out, vs)
	c.Bytes += int64(cap(vs)) * int64(unsafe.Sizeof(Value{}))
	c.later(out)
	return out
}

// later queues the references of vs, a copy's own values, to be copied.
func (c *Copier) later(vs []Value) {
	if len(vs) > 0 {
		c.work = append(c.work, pending{pendValues, unsafe.Pointer(unsafe.SliceData(vs)), len(vs)})
	}
}

// ref returns the copy of r: for an object not seen before, a new copy
// whose contents are queued.
func (c *Copier) ref(r any) any {
	switch x := r.(type) {
	case nil, string, *Native:
		return r
	case *Type:
		return c.Type(x)
	case *Funcode:
		if c.Relink != nil {
			return c.Relink.Func(x)
		}
		return r
	case *Class:
		if c.Relink != nil {
			return c.Relink.Class(x)
		}
		return r
	case *Object:
		return c.object(x)
	case *List:
		return c.list(x)
	case *Array:
		if x == nil {
			return x
		}
		if cp := c.ptrs.get(unsafe.Pointer(x)); cp != nil {
			return (*Array)(cp)
		}
		cp := &Array{Type: c.Type(x.Type), Data: x.Data, id: x.id}
		c.ptrs.put(unsafe.Pointer(x), unsafe.Pointer(cp))
		cp.Data = c.values(x.Data)
		c.Bytes += int64(unsafe.Sizeof(*x))
		c.Objects++
		return cp
	case *Dict:
		return c.dict(x)
	case *FuncVal:
		if x == nil || !x.Bound {
			if c.Relink != nil {
				return c.Relink.funcVal(x)
			}
			return x // unbound function values are immutable
		}
		if cp := c.ptrs.get(unsafe.Pointer(x)); cp != nil {
			return (*FuncVal)(cp)
		}
		cp := new(FuncVal)
		*cp = *x
		if c.Relink != nil {
			cp.Fn, cp.Type = c.Relink.Func(x.Fn), c.Relink.Type(x.Type)
		}
		c.ptrs.put(unsafe.Pointer(x), unsafe.Pointer(cp))
		c.work = append(c.work, pending{kind: pendFunc, p: unsafe.Pointer(cp)})
		c.Bytes += int64(unsafe.Sizeof(*x))
		c.Objects++
		return cp
	case *Thread:
		return c.thread(x)
	case *input: // what a thread reading standard input waits on
		return c.M.in
	case *Trace:
		return c.trace(x)
	case *Throw:
		if x == nil {
			return x
		}
		cp := *x
		cp.Obj = c.object(x.Obj)
		return &cp
	case Copyable:
		return x.CopyFor(c)
	}
	c.Fail(fmt.Errorf("a %T cannot be copied", r))
	return r
}

func (c *Copier) object(o *Object) *Object {
	if o == nil {
		return nil
	}
	pos := -1
	if c.src != nil {
		pos = c.srcPos(o)
	}
	if pos >= 0 {
		if cp := c.fwd[pos]; cp != nil {
			return cp
		}
	} else if cp := c.ptrs.get(unsafe.Pointer(o)); cp != nil {
		return (*Object)(cp)
	}
	class, n := o.Class, len(o.Fields)
	if c.Relink != nil {
		class = c.Relink.Class(o.Class)
	}
	var cp *Object
	switch {
	case len(class.Fields) > n && !class.IsEnum: // a reload gave the class fields
		cp = c.newObject(0)
		cp.Fields = make([]Value, len(class.Fields))
		copy(cp.Fields, o.Fields)
		c.later(cp.Fields[:n])
		c.Bytes += int64(len(cp.Fields)) * int64(unsafe.Sizeof(Value{}))
	case n == cap(o.Fields): // (always, but for hand-made objects)
		cp = c.newObject(n)
		copy(cp.Fields, o.Fields)
		c.later(cp.Fields)
		c.Bytes += int64(n) * int64(unsafe.Sizeof(Value{}))
	default:
		cp = c.newObject(0)
		cp.Fields = c.values(o.Fields)
	}
	cp.Class, cp.id = class, o.id
	if pos >= 0 {
		c.fwd[pos] = cp
	} else {
		c.ptrs.put(unsafe.Pointer(o), unsafe.Pointer(cp))
	}
	if len(cp.Fields) > n {
		c.Relink.grow(c.M, cp, n)
	}
	if o.Native != nil {
		cp.Native = c.ref(o.Native)
	}
	c.Bytes += int64(unsafe.Sizeof(*o))
	c.Objects++
	return cp
}

// A SlabIndex locates the objects of a Frozen copy in the blocks they
// were carved out of (Copier.Slabs), so that copying that copy again
// (restoring a checkpoint) finds the copy of each of its objects by
// position (Copier.FromSlabs).
type SlabIndex struct {
	bases []unsafe.Pointer // the blocks, by address
	// Objects is how many objects the blocks can hold.
	Objects int
}

// Slabs returns the index of the blocks a Frozen copier carved its
// objects out of (nil if none), once the copy is done.
func (c *Copier) Slabs() *SlabIndex {
	if len(c.slabs) == 0 {
		return nil
	}
	bases := append([]unsafe.Pointer(nil), c.slabs...)
	slices.SortFunc(bases, func(a, b unsafe.Pointer) int { return cmp.Compare(uintptr(a), uintptr(b)) })
	return &SlabIndex{bases: bases, Objects: len(bases) * objSlabLen}
}

// FromSlabs tells the copier that it copies a Frozen copy whose blocks
// ix indexes (nil: none). Before the copy.
func (c *Copier) FromSlabs(ix *SlabIndex) {
	c.src = ix
	if ix != nil {
		c.fwd = make([]*Object, ix.Objects)
	}
}

// objSize is the size of an Object in a block.
const objSize = unsafe.Sizeof(Object{})

// srcPos returns the position of o in the blocks of c.src, or -1 if it
// is not in one. The objects are copied about in the order they were
// carved, so the block of the last one is tried first.
func (c *Copier) srcPos(o *Object) int {
	a := uintptr(unsafe.Pointer(o))
	bases := c.src.bases
	if off := a - uintptr(bases[c.last]); off < objSlabLen*objSize {
		return c.last*objSlabLen + int(off/objSize)
	}
	lo, hi := 0, len(bases) // the first block past a
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if uintptr(bases[mid]) <= a {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	i := lo - 1
	if i < 0 {
		return -1
	}
	off := a - uintptr(bases[i])
	if off >= objSlabLen*objSize {
		return -1
	}
	c.last = i
	return i*objSlabLen + int(off/objSize)
}

func (c *Copier) list(l *List) *List {
	if l == nil {
		return nil
	}
	if cp := c.ptrs.get(unsafe.Pointer(l)); cp != nil {
		return (*List)(cp)
	}
	cp := &List{Type: c.Type(l.Type), id: l.id}
	c.ptrs.put(unsafe.Pointer(l), unsafe.Pointer(cp))
	cp.Data = c.values(l.Data)
	c.Bytes += int64(unsafe.Sizeof(*l))
	c.Objects++
	return cp
}

func (c *Copier) dict(d *Dict) *Dict {
	if d == nil {
		return nil
	}
	if cp := c.ptrs.get(unsafe.Pointer(d)); cp != nil {
		return (*Dict)(cp)
	}
	cp := &Dict{Type: c.Type(d.Type)}
	c.ptrs.put(unsafe.Pointer(d), unsafe.Pointer(cp))
	// The index is keyed by the keys' copies: they are copied now (a
	// key is a string, a scalar or an object whose copy is made at once,
	// its contents later).
	cp.Keys = c.newValues(len(d.Keys), cap(d.Keys))
	cp.index = make(map[Value]int, len(d.Keys))
	for i, k := range d.Keys {
		if k.R != nil {
			k.R = c.ref(k.R)
		}
		cp.Keys[i] = k
		cp.index[k] = i // (stored normalised: dictKey)
	}
	cp.Vals = c.values(d.Vals)
	c.Bytes += int64(unsafe.Sizeof(*d)) + int64(len(cp.Keys))*(48+24)
	c.Objects++
	return cp
}

func (c *Copier) trace(tr *Trace) *Trace {
	if tr == nil {
		return nil
	}
	if cp := c.ptrs.get(unsafe.Pointer(tr)); cp != nil {
		return (*Trace)(cp)
	}
	cp := &Trace{Frames: tr.Frames, Thread: tr.Thread} // frames do not change once recorded
	if tr.Rethrown != nil {
		cp.Rethrown = append(make([]Rethrow, 0, cap(tr.Rethrown)), tr.Rethrown...)
	}
	c.ptrs.put(unsafe.Pointer(tr), unsafe.Pointer(cp))
	return cp
}

// thread returns the copy of t, its registers and references queued.
func (c *Copier) thread(t *Thread) *Thread {
	if t == nil {
		return nil
	}
	if cp := c.ptrs.get(unsafe.Pointer(t)); cp != nil {
		return (*Thread)(cp)
	}
	cp := new(Thread)
	*cp = *t
	c.ptrs.put(unsafe.Pointer(t), unsafe.Pointer(cp))
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
	} else {
		cp.stack0 = [len(t.stack0)]Value{}
		st := make([]Value, cap(t.stack)) // (all of it: registers past the top too)
		copy(st, t.stack[:cap(t.stack)])
		cp.stack = st[:len(t.stack)]
		c.Bytes += int64(cap(t.stack)) * int64(unsafe.Sizeof(Value{}))
	}
	if t.cold != nil {
		cc := *t.cold
		cc.concatBuf = nil // the buffer may be shared by strings of t: the copy starts its own
		cp.cold = &cc
		c.Bytes += int64(unsafe.Sizeof(cc))
	}
	if c.Relink != nil {
		c.Relink.relinkThread(t, cp)
	}
	c.work = append(c.work, pending{kind: pendThread, p: unsafe.Pointer(cp)})
	c.Bytes += int64(unsafe.Sizeof(*t))
	c.Objects++
	return cp
}

// fillThread copies what the copy cp of a thread refers to (still the
// original's references).
func (c *Copier) fillThread(cp *Thread) {
	for i := range cp.stack0 {
		if cp.stack0[i].R != nil {
			cp.stack0[i].R = c.ref(cp.stack0[i].R)
		}
	}
	if cap(cp.stack) > 0 && &cp.stack[:1][0] != &cp.stack0[0] {
		c.later(cp.stack[:cap(cp.stack)])
	}
	cp.WaitOn = c.ref(cp.WaitOn)
	cp.Sched = c.ref(cp.Sched)
	cp.Result.R = c.ref(cp.Result.R)
	cp.Uncaught = c.object(cp.Uncaught)
	cc := cp.cold
	if cc == nil {
		return
	}
	if th, ok := cc.pendingThrow.(*Throw); ok {
		cc.pendingThrow = c.ref(th).(*Throw)
	}
	cc.reported = c.object(cc.reported)
	if cc.call != nil {
		orig := cc.call
		pc := new(pendingCall)
		*pc = *orig
		if len(orig.args) > 0 && &orig.args[0] == &orig.buf[0] {
			pc.args = pc.buf[:len(orig.args)]
			c.later(pc.args)
		} else {
			pc.args = c.values(orig.args)
		}
		pc.k = c.ref(orig.k).(Continuation)
		if c.Relink != nil {
			pc.fn = c.Relink.Func(pc.fn)
		}
		cc.call = pc
	}
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
	if c.Relink != nil {
		cp.method = c.Relink.Func(f.method)
		for i := range cp.stack {
			cp.stack[i].elem, cp.stack[i].key = c.Type(cp.stack[i].elem), c.Type(cp.stack[i].key)
		}
	}
	if f.m != nil {
		cp.m = c.M
	}
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
	dst.objIDs.Store(m.objIDs.Load())
	dst.seqIDs.Store(m.seqIDs.Load())
	if m.termClass != nil { // (read without the Once: no thread runs)
		tc := m.termClass
		if c.Relink != nil {
			tc = c.Relink.Class(tc)
		}
		dst.termOnce.Do(func() { dst.termClass = tc })
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
