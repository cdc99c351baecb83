package sched_test

import (
	"hash/maphash"
	"slices"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// parkedOnEach parks one thread on each kind of primitive that has
// waiters; main holds both locks and ends up waiting too.
const parkedOnEach = `
import thread;
int forever(Channel<int> c) { return c.recv(); }
void onChan(Channel<int> c) { c.recv(); }
int onFuture(Future<int> f) { return f.get(); }
void onMutex(Mutex m) { m.lock(); }
void onReentrant(ReentrantMutex r) { r.lock(); }
void onSem(Semaphore s) { s.acquire(); }
int main() {
    Channel<int> c = new Channel<int>(1);
    Channel<int> never = new Channel<int>();
    Future<int> f = thread.spawn(forever, never);
    Mutex m = new Mutex();
    m.lock();
    ReentrantMutex r = new ReentrantMutex();
    r.lock();
    r.lock();
    Semaphore s = new Semaphore(0);
    AtomicInt a = new AtomicInt(7);
    thread.spawn(onChan, c);
    thread.spawn(onFuture, f);
    thread.spawn(onMutex, m);
    thread.spawn(onReentrant, r);
    thread.spawn(onSem, s);
    never.recv();
    return a.get();
}
`

// hashing is a Strategy that hashes the state at every pick.
type hashing struct {
	s      *sched.Scheduler
	sh     sched.StateHasher
	picks  int
	failed int
}

func (h *hashing) Pick(runnable []*vm.Thread) sched.Pick {
	var mh maphash.Hash
	h.picks++
	if !h.sh.Hash(h.s, &mh) {
		h.failed++
	}
	return sched.Pick{}
}

// TestPrimitives parks a thread on each primitive and asks every one
// through the Primitive interface alone: its kind and type, who holds
// it, what the debugger shows (the parked thread among its waiters), its
// printed form from the library table, its state hash at every
// scheduling point, and Terminate taking the parked thread out of its
// queue.
func TestPrimitives(t *testing.T) {
	prog := compileSrc(t, parkedOnEach)
	m := vm.NewMachine(prog, strings.NewReader(""), nil, nil)
	s := sched.New(m, sched.Options{Clock: &sched.VirtualClock{}})
	h := &hashing{s: s}
	if err := s.SetStrategy(h); err != nil {
		t.Fatal(err)
	}
	s.Start(m.NewCallThread(prog.Main, nil))
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("the threads never all parked")
		}
		s.Dispatch()
		all := true
		for _, th := range s.Threads() {
			all = all && th.State == vm.Waiting
		}
		if len(s.Threads()) == 7 && all {
			break
		}
	}
	if h.picks == 0 || h.failed > 0 {
		t.Errorf("state hash: %d of %d picks could not hash the state", h.failed, h.picks)
	}
	main := s.Main()
	computer := s.Thread(2) // the future's thread, parked on never
	lib := sched.Lib()
	type want struct {
		typ     string
		holder  *vm.Thread
		holding sched.Holding
		queue   string // the View field listing the parked thread
	}
	wants := map[string]want{
		"Channel":        {"Channel<int>", nil, sched.NoHolder, "receivers"},
		"Future":         {"Future<int>", computer, sched.ComputedBy, "waiters"},
		"Mutex":          {"Mutex", main, sched.HeldBy, "waiters"},
		"ReentrantMutex": {"ReentrantMutex", main, sched.HeldBy, "waiters"},
		"Semaphore":      {"Semaphore", nil, sched.NoHolder, "waiters"},
	}
	seen := map[string]bool{}
	for _, th := range s.Threads() {
		if th == main || th == computer {
			continue
		}
		p, ok := th.WaitOn.(sched.Primitive)
		if !ok {
			t.Fatalf("thread %d waits on %T, not a Primitive", th.ID, th.WaitOn)
		}
		k := p.Kind()
		w, known := wants[k]
		if !known || seen[k] {
			t.Fatalf("thread %d waits on a %s", th.ID, k)
		}
		seen[k] = true
		if p.TypeName() != w.typ {
			t.Errorf("%s: TypeName %q, want %q", k, p.TypeName(), w.typ)
		}
		if who, how := p.Holder(); who != w.holder || how != w.holding {
			t.Errorf("%s: Holder %v %v, want %v %v", k, who, how, w.holder, w.holding)
		}
		if got := queued(p, w.queue); !slices.Contains(got, th) {
			t.Errorf("%s: %s %v, want thread %d among them", k, w.queue, got, th.ID)
		}
		if host := lib.HostTypes[k]; host == nil || host.Format(p) != p.String() {
			t.Errorf("%s: the library table does not print it as %q", k, p.String())
		}
		if err := s.Terminate(th, m.NewTermination("test")); err != nil {
			t.Errorf("%s: Terminate: %v", k, err)
		}
		if got := queued(p, w.queue); slices.Contains(got, th) {
			t.Errorf("%s: thread %d still in %s after Terminate", k, th.ID, w.queue)
		}
	}
	if len(seen) != len(wants) {
		t.Errorf("primitives waited on: %v, want one of each of %v", seen, wants)
	}
	// AtomicInt: nothing waits on it; it shows its value
	a := &sched.AtomicInt{}
	if v := a.View(); len(v) != 1 || v[0].Name != "value" || v[0].Call != ".get()" {
		t.Errorf("AtomicInt view %+v", v)
	}
	if who, how := a.Holder(); who != nil || how != sched.NoHolder || lib.HostTypes[a.Kind()] == nil {
		t.Errorf("AtomicInt: Holder %v %v, host %v", who, how, lib.HostTypes[a.Kind()])
	}
}

// queued returns the threads of p's View field name.
func queued(p sched.Primitive, name string) []*vm.Thread {
	for _, f := range p.View() {
		if f.Name == name && f.Kind == sched.FieldThreads {
			return f.Threads
		}
	}
	return nil
}
