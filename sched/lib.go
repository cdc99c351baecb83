package sched

import (
	_ "embed"
	"fmt"
	"time"

	"github.com/nlangdbg/nlangdbg/vm"
)

// The host types: the library table. They are made once so that every
// Library shares them (vm.HostOf interns instantiated types by name). A
// synchronisation object's comes from primitiveHost, which takes only a
// Primitive (primitive.go).
var (
	threadHost    = &vm.HostType{Name: "Thread", Format: formatThread, Methods: threadMethods()}
	futureHost    = withNatives(primitiveHost[Future]("T"), func() (c, m []*vm.Native) { return nil, futureMethods() })
	channelHost   = withNatives(primitiveHost[Channel]("T"), func() (c, m []*vm.Native) { return channelCtors(), channelMethods() })
	mutexHost     = withNatives(primitiveHost[Mutex](), mutexNatives)
	reentrantHost = withNatives(primitiveHost[ReentrantMutex](), reentrantNatives)
	semaphoreHost = withNatives(primitiveHost[Semaphore](), semaphoreNatives)
	atomicHost    = withNatives(primitiveHost[AtomicInt](), atomicNatives)
)

func withNatives(h *vm.HostType, natives func() (ctors, methods []*vm.Native)) *vm.HostType {
	h.Ctors, h.Methods = natives()
	return h
}

// The natives of the thread package.
var (
	spawnNative   = &vm.Native{Name: "thread.spawn", Sig: "spawn(f, args...)", Fn: serial(spawn)}
	joinNative    = &vm.Native{Name: "thread.join", Sig: "void join(Thread t)", Fn: serial(threadJoin)}
	sleepNative   = &vm.Native{Name: "thread.sleep", Sig: "void sleep(int ms)", Fn: serial(threadSleep)}
	yieldNative   = &vm.Native{Name: "thread.yield", Sig: "void yield()", Fn: threadYield}
	currentNative = &vm.Native{Name: "thread.current", Sig: "Thread current()", Fn: threadCurrent}
)

//go:embed concurrent.n
var concurrentSource string

func threadMethods() []*vm.Native {
	return []*vm.Native{
		readOnly(method("Thread", "int id()", func(t *vm.Thread, th *vm.Thread, args []vm.Value) (vm.Value, error) {
			return vm.IntV(th.ID), nil
		})),
		readOnly(method("Thread", "string name()", func(t *vm.Thread, th *vm.Thread, args []vm.Value) (vm.Value, error) {
			return vm.StrV(th.Name), nil
		})),
		method("Thread", "void setName(string n)", func(t *vm.Thread, th *vm.Thread, args []vm.Value) (vm.Value, error) {
			th.Name = args[1].S()
			return vm.Value{}, nil
		}),
		readOnly(method("Thread", "bool isAlive()", func(t *vm.Thread, th *vm.Thread, args []vm.Value) (vm.Value, error) {
			return vm.BoolV(th.State != vm.Dead), nil
		})),
		method("Thread", "void join()", func(t *vm.Thread, th *vm.Thread, args []vm.Value) (vm.Value, error) {
			return join(t, th)
		}),
	}
}

// Lib returns the scheduler's part of the standard library:
// thread.spawn (a Special the compiler types itself), the thread package,
// the host types Thread, Future<T>, Channel<T>, Mutex, ReentrantMutex,
// Semaphore and AtomicInt, and the NLang source of package concurrent
// (WaitGroup).
func Lib() *vm.Library {
	l := vm.NewLibrary()
	l.Special["thread.spawn"] = spawnNative
	l.Packages["thread"] = &vm.Package{Name: "thread",
		Funcs: []*vm.Native{joinNative, sleepNative, yieldNative, currentNative}}
	for _, h := range []*vm.HostType{threadHost, futureHost, channelHost, mutexHost,
		reentrantHost, semaphoreHost, atomicHost} {
		l.HostTypes[h.Name] = h
	}
	l.Sources["concurrent"] = concurrentSource
	return l
}

// method returns the native method typ.sig whose receiver (args[0]) is a
// non-null R; fn gets it typed. With several carriers it runs holding the
// scheduler's lock (serial).
//
// The common case — a thread being dispatched on a carrier, with no
// strategy and no race hook installed — takes a fast path that does what
// serial(lockFree(fn)) does with one closure and no deferred call: if fn
// panics, s.mu stays locked with carrier.held set, and the carrier takes
// it over when Run returns (as after a park).
func method[R comparable](typ, sig string, fn func(t *vm.Thread, r R, args []vm.Value) (vm.Value, error)) *vm.Native {
	n := lockFree(typ, sig, fn)
	slow := serial(n.Fn)
	name := n.Name
	n.Fn = func(t *vm.Thread, args []vm.Value) (vm.Value, error) {
		s := schedOf(t)
		if s == nil || s.strat != nil || s.race != nil {
			return slow(t, args)
		}
		r, ok := args[0].R.(R)
		var zero R
		if !ok || r == zero {
			return vm.Value{}, vm.Throwf("NullPointerException", "%s on null", name)
		}
		s.mu.Lock()
		ti, _ := t.Sched.(*threadInfo)
		if ti == nil || ti.on == nil { // not dispatched (an evaluation)
			s.mu.Unlock()
			return slow(t, args)
		}
		c := ti.on
		s.cur, s.curC, c.held = t, c, true
		v, err := fn(t, r, args)
		s.cur, s.curC = nil, nil
		if vm.IsPark(err) {
			return v, err // c.held: the carrier takes s.mu over (see serial)
		}
		c.held = false
		s.mu.Unlock()
		return v, err
	}
	return n
}

// readOnly marks a native that changes nothing a program can see
// (vm.ReadOnly): a debugger may call it in a watch or a condition.
func readOnly(n *vm.Native) *vm.Native {
	n.Flags |= vm.ReadOnly
	return n
}

// lockFree is method for natives that need no scheduler lock (AtomicInt).
func lockFree[R comparable](typ, sig string, fn func(t *vm.Thread, r R, args []vm.Value) (vm.Value, error)) *vm.Native {
	name := typ + "." + sigName(sig)
	return &vm.Native{Name: name, Sig: sig, Fn: func(t *vm.Thread, args []vm.Value) (vm.Value, error) {
		r, ok := args[0].R.(R)
		var zero R
		if !ok || r == zero {
			return vm.Value{}, vm.Throwf("NullPointerException", "%s on null", name)
		}
		syncPoint(t, args)
		return fn(t, r, args)
	}}
}

// ctor returns a native constructor of host type typ (sig "Channel(int n)").
func ctor(typ, sig string, fn vm.NativeFunc) *vm.Native {
	return &vm.Native{Name: typ, Sig: sig, Fn: serial(fn)}
}

// sigName extracts the function name of a signature ("int id()" -> "id").
func sigName(sig string) string {
	end := len(sig)
	for i := 0; i < len(sig); i++ {
		if sig[i] == '(' {
			end = i
			break
		}
	}
	start := 0
	for i := end - 1; i >= 0; i-- {
		if sig[i] == ' ' {
			start = i + 1
			break
		}
	}
	return sig[start:end]
}

func formatThread(v any) string {
	if t, ok := v.(*vm.Thread); ok && t != nil {
		return fmt.Sprintf("Thread[%d %s]", t.ID, t.Name)
	}
	return "null"
}

// schedOf returns the scheduler running t's machine, or nil.
func schedOf(t *vm.Thread) *Scheduler {
	s, _ := t.M.Sched.(*Scheduler)
	return s
}

// blocking returns the scheduler of t if t may park: it must be the
// thread the scheduler is running now (not an evaluation or a thread of
// another machine).
func blocking(t *vm.Thread) (*Scheduler, error) {
	if s := schedOf(t); s != nil && s.cur == t {
		return s, nil
	}
	return nil, cannotBlock(t)
}

func cannotBlock(t *vm.Thread) error {
	return vm.Throwf("IllegalStateException", "thread %q cannot block: it is not run by the scheduler", t.Name)
}

// spawn implements thread.spawn(f, args…): args[0] is the function value,
// the rest its arguments. The call site's type (t.NativeType) is Thread or
// Future<T>, which is what spawn returns.
func spawn(t *vm.Thread, args []vm.Value) (vm.Value, error) {
	s := schedOf(t)
	if s == nil {
		return vm.Value{}, vm.Throwf("IllegalStateException", "thread.spawn: no scheduler")
	}
	fv, _ := args[0].R.(*vm.FuncVal)
	if fv == nil {
		return vm.Value{}, vm.Throwf("NullPointerException", "thread.spawn of a null function")
	}
	if err := t.ChargeHeap(vm.ThreadCharge, "thread.spawn"); err != nil {
		return vm.Value{}, err
	}
	nt, err := t.M.NewThread(fv, args[1:])
	if err != nil {
		return vm.Value{}, vm.Throwf("Exception", "thread.spawn: %v", err)
	}
	var fut *Future
	if rt := t.NativeType(); rt != nil && rt.Kind == vm.KHost && rt.Host.Name == "Future" {
		fut = &Future{s: s, typ: rt, thread: nt}
	}
	s.register(nt, "", fut)
	if s.sites {
		s.noteSpawn(t, nt)
	}
	if fut != nil {
		return vm.RefV(fut), nil
	}
	return vm.RefV(nt), nil
}

func threadJoin(t *vm.Thread, args []vm.Value) (vm.Value, error) {
	th, _ := args[0].R.(*vm.Thread)
	if th == nil {
		return vm.Value{}, vm.Throwf("NullPointerException", "thread.join of null")
	}
	return join(t, th)
}

// join parks t until th ends. Joining oneself throws DeadlockException
// (it could never return).
func join(t, th *vm.Thread) (vm.Value, error) {
	ti := info(th)
	if th.State == vm.Dead || ti == nil {
		return vm.Value{}, nil
	}
	if th == t {
		return vm.Value{}, vm.Throwf("DeadlockException", "thread %q cannot join itself", t.Name)
	}
	s, err := blocking(t)
	if err != nil {
		return vm.Value{}, err
	}
	ti.extra().joiners.push(s.park(t, "join "+th.Name, th))
	return vm.Value{}, vm.ErrPark
}

// threadSleep parks the thread for at least ms milliseconds; ms <= 0
// only yields.
func threadSleep(t *vm.Thread, args []vm.Value) (vm.Value, error) {
	ms := args[0].I()
	if ms <= 0 {
		return vm.Value{}, vm.ErrYield
	}
	s, err := blocking(t)
	if err != nil {
		return vm.Value{}, err
	}
	w := s.park(t, "sleep", nil)
	t.WaitOn = s.addTimer(w, s.clock.Now()+time.Duration(ms)*time.Millisecond)
	return vm.Value{}, vm.ErrPark
}

func threadYield(t *vm.Thread, args []vm.Value) (vm.Value, error) {
	return vm.Value{}, vm.ErrYield
}

func threadCurrent(t *vm.Thread, args []vm.Value) (vm.Value, error) {
	return vm.RefV(t), nil
}
