package sched

import "github.com/nlangdbg/nlangdbg/vm"

// A Primitive is one of the scheduler's synchronisation objects: Channel,
// Future, Mutex, ReentrantMutex, Semaphore, AtomicInt. Everything that
// treats them alike asks this interface instead of switching on their
// types: the state hash of schedule exploration (StateHasher), Terminate
// (taking a thread out of a wait queue), the snapshot copier
// (vm.Copyable), the leak pass (vm.Tracer, wakers, madeAt: leaks.go),
// and the debugger's variables, wait graph and "held by" reports. So a new primitive is one file — its type, its natives and
// these methods — and one entry in the library table (lib.go), whose
// constructor, primitiveHost, takes only a Primitive: a missing method
// fails to compile. (The unexported methods keep the implementations in
// this package.)
type Primitive interface {
	// Kind is the name of the primitive's NLang type, without type
	// arguments ("Channel"). It must not read the receiver's fields: the
	// library table asks it of a zero value.
	Kind() string
	// TypeName is the NLang type of this one ("Channel<int>").
	TypeName() string
	// String describes the state in one line, as NLang prints it
	// ("Mutex(locked by main, 2 waiting)").
	String() string
	// Holder returns the thread that can release the threads waiting on
	// the primitive, if one is known, and how it relates to it: a lock's
	// owner, the thread computing a future. (nil, NoHolder) otherwise.
	Holder() (*vm.Thread, Holding)
	// View returns what a debugger shows inside the primitive, in order.
	View() []Field
	// CopyFor copies the primitive for a snapshot.
	vm.Copyable

	// hash writes the state to a state hash (the kind is written
	// already) and reports false if it cannot. Must hold s.mu.
	hash(w *stateWriter) bool
	// unwait takes the parked t out of the primitive's wait queues and
	// reports whether it was there. Must hold s.mu.
	unwait(t *vm.Thread) bool
	// TraceRefs passes the values the primitive holds (a buffer, a
	// result) to the leak pass's mark.
	vm.Tracer
	// wakers says who can end the wait of a thread parked on the
	// primitive (leaks.go): any thread that reaches it (reach), and/or
	// holder, which must be able to run. Must hold s.mu.
	wakers() (reach bool, holder *vm.Thread)
	// madeAt returns where the primitive was made, if sites were
	// recorded (SetSites). Must hold s.mu.
	madeAt() Site
}

// Holding is how the thread a primitive names (Holder) relates to it.
type Holding uint8

// Holdings.
const (
	NoHolder   Holding = iota
	HeldBy             // a lock's owner: its unlock lets a waiter in
	ComputedBy         // a future's thread: its end completes the future
)

func (h Holding) String() string {
	switch h {
	case HeldBy:
		return "held by"
	case ComputedBy:
		return "computed by"
	}
	return ""
}

// A Field is one part of a primitive that a debugger shows (View).
type Field struct {
	Name string
	Kind FieldKind
	// Value is a FieldValue's value, of type Type.
	Value vm.Value
	// Type is the type of Value, or of each of Values.
	Type *vm.Type
	// Values are a FieldValues' elements (a channel's buffer), or, for a
	// FieldThreads, what each thread offers (Values[i] is Threads[i]'s,
	// described by Offer, e.g. "sending"), if not nil.
	Values []vm.Value
	Offer  string
	// Thread is a FieldThread's thread (nil: none).
	Thread *vm.Thread
	// Threads are a FieldThreads' threads, first served first.
	Threads []*vm.Thread
	// Call is the NLang method call on the primitive that reads the
	// field (".capacity()"), for a debugger's evaluate name; "" if none.
	Call string
}

// FieldKind says what a Field holds.
type FieldKind uint8

// Field kinds.
const (
	FieldValue   FieldKind = iota // a value: Value of Type
	FieldValues                   // a list of values: Values, each of Type
	FieldThread                   // a thread or none: Thread
	FieldThreads                  // a list of threads: Threads (and Values they offer)
)

// primitiveHost returns the host type of the primitive *E, named by its
// Kind, printed by its String: the library table's constructor, which
// takes only Primitives.
func primitiveHost[E any, P interface {
	*E
	Primitive
}](typeParams ...string) *vm.HostType {
	return &vm.HostType{Name: P(new(E)).Kind(), TypeParams: typeParams, Format: func(v any) string {
		if x, ok := v.(P); ok && x != nil {
			return x.String()
		}
		return "null"
	}}
}

// threadType is the NLang type Thread.
func threadType() *vm.Type { return vm.HostOf(threadHost, nil) }

// waitersField is the field of a primitive's parked threads.
func waitersField(ts []*vm.Thread) Field {
	return Field{Name: "waiters", Kind: FieldThreads, Threads: ts}
}
