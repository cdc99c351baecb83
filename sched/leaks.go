package sched

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/nlangdbg/nlangdbg/vm"
)

// Leaked threads. A thread parked on a channel, a lock, a semaphore, a
// future or a join is leaked when nothing that can still run will ever
// wake it: no thread that can run reaches the object it waits on (to
// send, receive, close, unlock, release), or the thread whose end it
// waits for is leaked itself. Such a thread holds its frames and
// everything they reach for as long as the program runs, and is never
// seen again: the goroutine leak of Go programs.
//
// Go 1.26's goroutine leak profile (golang/go#74609) finds them with the
// garbage collector: the runnable goroutines are the roots; a blocked
// goroutine whose channel or lock the mark reaches may yet be woken, so
// its stack becomes a root too; at the fixed point the blocked
// goroutines whose objects were never reached are leaked. The scheduler
// owns every thread, wait queue and object of the program, so Leaks does
// the same pass on demand, live: a mark from the threads that can run
// (runnable, running, frozen, asleep on a timer, waiting for input),
// where a parked thread joins the roots as soon as what it waits on is
// reached (a channel or semaphore), reached and held by a thread that
// can run (a lock: only its owner unlocks it), or ends (the thread it
// joins, the thread its future waits for). The pass is linear in the
// threads and the objects they reach.
//
// It errs one way only: a thread it reports can never run again (the
// mark reaches everything the threads that can run reach, so nothing
// they do can wake it), but a thread that waits on an object a running
// thread reaches and will never use is not reported, as in Go. The
// debugger changing the program (setting a variable, ending a thread)
// is outside the program and outside the claim.

// Leak is a leaked thread and what it waits on.
type Leak struct {
	Thread *vm.Thread
	// On is the object it waits on (a *Channel, *Mutex, *ReentrantMutex,
	// *Semaphore, *Future, or the *vm.Thread it joins).
	On any
}

// ErrLeaksUnknown is returned by Leaks when the program holds a value
// the pass cannot look into (it would not know what that value reaches).
type ErrLeaksUnknown struct{ Type string }

func (e *ErrLeaksUnknown) Error() string {
	return fmt.Sprintf("cannot tell which threads leaked: the program holds a %s, which the leak pass cannot look into", e.Type)
}

// Leaks returns the leaked threads, by id. Call it while the world is
// stopped (paused, between dispatches, or after Run returned).
func (s *Scheduler) Leaks() ([]Leak, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leaks()
}

// leakWait is a parked thread that may yet be woken: need counts the
// events still missing (its object reached, a thread made live); the
// waits on one object, and on one thread, are chained by index (-1 ends
// a chain).
type leakWait struct {
	t                 *vm.Thread
	nextObj, nextThrd int32
	need              int8
}

// leakScratch is the memory of a leak pass, kept for the next one: with
// a hundred thousand threads, a pass that allocated its lists anew would
// make the collector scan the program's heap more often than the pass
// looks at it.
type leakScratch struct {
	waits []leakWait
	roots []*vm.Thread
}

var leakScratches = sync.Pool{New: func() any { return new(leakScratch) }}

// leaks is Leaks. Must hold s.mu.
func (s *Scheduler) leaks() ([]Leak, error) {
	sc := leakScratches.Get().(*leakScratch)
	var (
		waits    = sc.waits[:0]
		byObj    = map[unsafe.Pointer]int32{} // object reached → first wait on it
		byThread = map[*vm.Thread]int32{}     // thread made live → first wait on it
		roots    = sc.roots[:0]               // threads made live, to mark from
	)
	defer func() {
		clear(waits[:cap(waits)]) // (no thread kept alive by the pool)
		clear(roots[:cap(roots)])
		sc.waits, sc.roots = waits[:0], roots[:0]
		leakScratches.Put(sc)
	}()
	// The head of the chain of the last object waited on is kept out of
	// byObj until another object comes: threads parked on one object
	// are often listed one after the other.
	var lastObj unsafe.Pointer
	lastHead := int32(-1)
	wait := func(t *vm.Thread, obj unsafe.Pointer, owner *vm.Thread) {
		i := int32(len(waits))
		w := leakWait{t: t, nextObj: -1, nextThrd: -1}
		if obj != nil {
			if obj != lastObj {
				if lastObj != nil {
					byObj[lastObj] = lastHead
				}
				lastObj, lastHead = obj, -1
				if j, ok := byObj[obj]; ok {
					lastHead = j
				}
			}
			w.nextObj, lastHead = lastHead, i
			w.need++
		}
		if owner != nil {
			if j, ok := byThread[owner]; ok {
				w.nextThrd = j
			}
			byThread[owner] = i
			w.need++
		}
		waits = append(waits, w)
	}
	for _, t := range s.threads {
		if t.State == vm.Dead {
			continue
		}
		if t.State != vm.Waiting {
			roots = append(roots, t)
			continue
		}
		switch o := t.WaitOn.(type) {
		case Primitive:
			reach, holder := o.wakers()
			var obj unsafe.Pointer
			if reach {
				obj = refPtr(o)
			}
			if obj == nil && holder == nil {
				roots = append(roots, t) // (nobody waits so: it wakes by itself)
				continue
			}
			wait(t, obj, holder)
		case *vm.Thread:
			wait(t, nil, o) // a join: it ends if the thread can run
		default: // a timer, input, a pinned native: it wakes by itself
			roots = append(roots, t)
		}
	}
	if lastObj != nil {
		byObj[lastObj] = lastHead
	}
	r := vm.NewReach(256)
	ready := func(w *leakWait) {
		if w.need > 0 {
			if w.need--; w.need == 0 {
				roots = append(roots, w.t)
			}
		}
	}
	if len(byObj) > 0 {
		r.OnHost = func(x any) {
			if i, ok := byObj[refPtr(x)]; ok {
				for ; i >= 0; i = waits[i].nextObj {
					ready(&waits[i])
				}
			}
		}
	}
	for len(roots) > 0 {
		t := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if len(byThread) > 0 {
			if i, ok := byThread[t]; ok {
				for ; i >= 0; i = waits[i].nextThrd {
					ready(&waits[i])
				}
			}
		}
		r.Thread(t)
		r.Drain()
	}
	if r.Unknown != "" {
		return nil, &ErrLeaksUnknown{Type: r.Unknown}
	}
	var out []Leak
	for _, w := range waits {
		if w.need > 0 {
			out = append(out, Leak{Thread: w.t, On: w.t.WaitOn})
		}
	}
	slices.SortFunc(out, func(a, b Leak) int { return cmp.Compare(a.Thread.ID, b.Thread.ID) })
	return out, nil
}

// refPtr returns the pointer held by the interface x.
func refPtr(x any) unsafe.Pointer {
	type iface struct{ typ, data unsafe.Pointer }
	return (*iface)(unsafe.Pointer(&x)).data
}

// ReachLeaf implements vm.Leaf: a timer refers to its thread only.
func (tm *Timer) ReachLeaf() {}

// LeakReport renders leaks as the deadlock report renders threads: a
// header, then each thread with what it waits on (and where that was
// made), who spawned it and where (when sites were recorded), and its
// stack:
//
//	leaked: 1 thread is parked on what no thread that can run reaches:
//
//	thread 6 "thread-6" [chan send on Channel<int>(len 0/cap 0), made at server.n:23], spawned by thread 1 at server.n:24:
//	  at handle (server.n:12)
//
// It is "" for no leak. Call it as Leaks.
func (s *Scheduler) LeakReport(leaks []Leak) string {
	if len(leaks) == 0 {
		return ""
	}
	var b strings.Builder
	if len(leaks) == 1 {
		b.WriteString("leaked: 1 thread is parked on what no thread that can run reaches:\n\n")
	} else {
		fmt.Fprintf(&b, "leaked: %d threads are parked on what no thread that can run reaches:\n\n", len(leaks))
	}
	for _, l := range leaks {
		t := l.Thread
		what := t.WaitReason
		if st, ok := l.On.(fmt.Stringer); ok && !isThread(l.On) {
			what += " on " + st.String()
		}
		if at, ok := s.MadeAt(l.On); ok && !isThread(l.On) {
			what += ", made at " + siteText(at)
		}
		fmt.Fprintf(&b, "thread %d %q [%s]", t.ID, t.Name, what)
		if parent, at := s.SpawnedBy(t); at.Known() {
			fmt.Fprintf(&b, ", spawned by thread %d at %s", parent, siteText(at))
		}
		b.WriteString(":\n")
		b.WriteString(vm.FormatBacktrace(backtrace(t)))
	}
	return b.String()
}

// isThread reports whether x is a thread (joined: where it was spawned
// is its own report's business).
func isThread(x any) bool {
	_, ok := x.(*vm.Thread)
	return ok
}

// siteText renders a site as "file:line" with the file's base name.
func siteText(at Site) string {
	file, line, _ := at.Pos()
	return fmt.Sprintf("%s:%d", filepath.Base(file), line)
}
