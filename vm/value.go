package vm

import (
	"math"
	"sync"
	"sync/atomic"
)

// Value is one slot: a register, a field, an element. Scalars (integers,
// floating point, bool, char, enums) live unboxed in N: signed integers
// sign-extended to 64 bits, unsigned ones zero-extended, float and double
// as float64 bits, bool as 0/1, char as the code point. References live in
// R: nil (null), a Go string (NLang string; nil reads as ""), *Object,
// *Array, *List, *Dict, *FuncVal, or a host object (Channel, Thread, …).
// A primitive stored in an Object-typed slot is boxed without allocation:
// R holds its *Type and N its bits.
type Value struct {
	N uint64
	R any
}

// Constructors for scalar values.

// IntV returns a signed integer value.
func IntV(i int64) Value { return Value{N: uint64(i)} }

// UintV returns an unsigned integer value.
func UintV(u uint64) Value { return Value{N: u} }

// FloatV returns a floating value (float and double share the encoding).
func FloatV(f float64) Value { return Value{N: math.Float64bits(f)} }

// BoolV returns a bool value.
func BoolV(b bool) Value {
	if b {
		return Value{N: 1}
	}
	return Value{}
}

// StrV returns a string value.
func StrV(s string) Value { return Value{R: s} }

// RefV returns a reference value.
func RefV(r any) Value { return Value{R: r} }

// I returns the value as a signed integer.
func (v Value) I() int64 { return int64(v.N) }

// F returns the value as a float64.
func (v Value) F() float64 { return math.Float64frombits(v.N) }

// B returns the value as a bool.
func (v Value) B() bool { return v.N != 0 }

// S returns the value as a string (null reads as "").
func (v Value) S() string {
	s, _ := v.R.(string)
	return s
}

// IsNull reports whether a reference value is null.
func (v Value) IsNull() bool { return v.R == nil }

// Object is an instance of a class, or a struct value.
type Object struct {
	Class  *Class
	Fields []Value
	// Native holds host data attached to built-in classes (for exceptions:
	// the *Trace of where it was thrown).
	Native any
	id     int64 // read and set atomically: threads on several carriers may ask
}

// viewIDs numbers the objects a debugger shows before the program asked
// for their identity (see Object.ID), from viewIDBase up.
var viewIDs atomic.Int64

// viewIDBase starts the debugger's numbers far from the program's.
const viewIDBase = 1 << 32

// ObjectID returns o's identity number as the program sees it
// (Object.toString's Class@hex, getHashCode). Objects made by NewObject
// are numbered in the order they were allocated; struct copies, when the
// program first asks, after the last number given. Either way the same
// run numbers alike, so a re-execution of a recording prints what the
// recorded run printed. Race-free: two carriers asking at once get the
// same number.
func (m *Machine) ObjectID(o *Object) int64 {
	for {
		id := atomic.LoadInt64(&o.id)
		if id > 0 {
			return id
		}
		if atomic.CompareAndSwapInt64(&o.id, id, m.objIDs.Add(1)) {
			return atomic.LoadInt64(&o.id)
		}
	}
}

// PeekID returns o's identity number in the program (ObjectID) without
// giving it one: 0 if it has none yet.
func (o *Object) PeekID() int64 {
	if id := atomic.LoadInt64(&o.id); id > 0 {
		return id
	}
	return 0
}

// ID returns the identity number to show for the object: the program's
// (ObjectID) if it has one, else a number of the debugger's own (from
// 2^32 up), so that looking at an object does not change the numbers the
// program prints.
func (o *Object) ID() int64 {
	if atomic.LoadInt64(&o.id) == 0 {
		atomic.CompareAndSwapInt64(&o.id, 0, -(viewIDBase + viewIDs.Add(1)))
	}
	id := atomic.LoadInt64(&o.id)
	if id < 0 {
		return -id
	}
	return id
}

// Array is an NLang array.
type Array struct {
	Type *Type // the array type (Elem is the element type)
	Data []Value
	id   int64 // allocation number (Machine.NumberSeq); 0: none
}

// PeekID returns the array's allocation number: arrays and Lists are
// numbered in the order a machine makes them (apart from the objects'
// numbers, which the program sees), so that a debugger can tell the
// same array in two executions of one recording. 0: not numbered.
func (a *Array) PeekID() int64 { return a.id }

// List is an NLang List<T>.
type List struct {
	Type *Type
	Data []Value
	id   int64 // allocation number (Machine.NumberSeq); 0: none
}

// PeekID returns the List's allocation number (see Array.PeekID).
func (l *List) PeekID() int64 { return l.id }

// NumberSeq gives x, an *Array or *List without a number, the machine's
// next allocation number of arrays and Lists, and returns x.
func (m *Machine) NumberSeq(x any) any {
	switch y := x.(type) {
	case *Array:
		if y != nil && y.id == 0 {
			y.id = m.seqIDs.Add(1)
		}
	case *List:
		if y != nil && y.id == 0 {
			y.id = m.seqIDs.Add(1)
		}
	}
	return x
}

// Allocated returns the last allocation numbers given: of objects
// (ObjectID) and of arrays and Lists (NumberSeq). Call it when no thread
// runs.
func (m *Machine) Allocated() (objects, seqs int64) { return m.objIDs.Load(), m.seqIDs.Load() }

// Dict is an NLang Dict<K,V>: a map that remembers insertion order.
//
// Its methods do not lock. On a parallel machine (Machine.Parallel) the
// Dict natives hold Mu around each operation, so that NLang threads on
// several carriers that share a dictionary without a lock get a data race
// in NLang terms, not a fatal "concurrent map writes" of the Go runtime.
type Dict struct {
	Type  *Type
	Keys  []Value
	Vals  []Value
	index map[Value]int
	// Mu guards the dictionary's operations on a parallel machine.
	Mu sync.Mutex
}

// NewDict returns an empty dictionary of type t.
func NewDict(t *Type) *Dict { return &Dict{Type: t, index: map[Value]int{}} }

// dictKey normalises a key so that equal keys are equal Go values.
func dictKey(k Value, kt *Type) Value {
	switch {
	case kt.Kind == KString:
		return Value{R: k.S()}
	case kt.IsScalar():
		return Value{N: k.N}
	}
	return k
}

// Get returns the value stored under k.
func (d *Dict) Get(k Value) (Value, bool) {
	i, ok := d.index[dictKey(k, d.Type.Key)]
	if !ok {
		return Value{}, false
	}
	return d.Vals[i], true
}

// Set stores v under k, keeping the key's first insertion position.
func (d *Dict) Set(k, v Value) {
	key := dictKey(k, d.Type.Key)
	if i, ok := d.index[key]; ok {
		d.Vals[i] = v
		return
	}
	d.index[key] = len(d.Keys)
	d.Keys = append(d.Keys, key)
	d.Vals = append(d.Vals, v)
}

// Remove deletes k and reports whether it was present.
func (d *Dict) Remove(k Value) bool {
	key := dictKey(k, d.Type.Key)
	i, ok := d.index[key]
	if !ok {
		return false
	}
	delete(d.index, key)
	d.Keys = append(d.Keys[:i], d.Keys[i+1:]...)
	d.Vals = append(d.Vals[:i], d.Vals[i+1:]...)
	for j := i; j < len(d.Keys); j++ {
		d.index[d.Keys[j]] = j
	}
	return true
}

// Clear removes every entry.
func (d *Dict) Clear() {
	d.Keys, d.Vals = nil, nil
	d.index = map[Value]int{}
}

// Len returns the number of entries.
func (d *Dict) Len() int { return len(d.Keys) }

// FuncVal is a function value: a function, a native, or a method bound to
// a receiver. A method reference through an interface or to a virtual
// method is late-bound: Name is looked up on the receiver's class at each
// call.
type FuncVal struct {
	Fn     *Funcode // static target (nil when late-bound or native)
	Native *Native
	Recv   Value
	Bound  bool   // Recv is set
	Name   string // late-bound method name
	Type   *Type  // the Func type
}

// Target returns the function to call for this value.
func (f *FuncVal) Target() *Funcode {
	if f.Fn != nil || f.Name == "" {
		return f.Fn
	}
	if o, ok := f.Recv.R.(*Object); ok {
		return o.Class.FindMethod(f.Name, len(f.Type.Args))
	}
	return nil
}

// Equal reports whether two function values have the same target and
// receiver.
func (f *FuncVal) Equal(g *FuncVal) bool {
	if f == g {
		return true
	}
	if f == nil || g == nil {
		return false
	}
	return f.Fn == g.Fn && f.Native == g.Native && f.Name == g.Name && f.Bound == g.Bound && f.Recv == g.Recv
}
