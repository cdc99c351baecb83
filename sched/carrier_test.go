package sched

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// Tests of several carriers. They compile NLang source (the scripts in
// testdata/run/concurrency run on 2 and 4 carriers in cmd/nlangdbg too)
// and check results that do not depend on the interleaving.

// parallelRun compiles src, starts it on n carriers and returns the
// scheduler and the program's output buffers, without running it.
func parallelStart(t *testing.T, src string, n int) (*Scheduler, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	lib := vm.StdLib()
	lib.Merge(Lib())
	prog, err := compile.CompileFile("test.n", []byte(src), compile.Options{Lib: lib})
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	m := vm.NewMachine(prog, nil, &out, &errb)
	s := New(m, Options{Carriers: n})
	s.Start(m.NewCallThread(prog.Main, nil))
	return s, &out, &errb
}

func parallelRun(t *testing.T, src string, n int) (code int, stdout, stderr string) {
	t.Helper()
	s, out, errb := parallelStart(t, src, n)
	code = s.Run()
	return code, out.String(), errb.String()
}

func TestCarriersSharedState(t *testing.T) {
	src := `import io; import thread; import concurrent;
class Box { public int n; }
void work(int id, Mutex m, Box b, Dict<int, int> d, Channel<int> c, AtomicInt a, WaitGroup wg) {
    for (int i = 0; i < 300; i += 1) {
        m.lock();
        b.n = b.n + 1;
        m.unlock();
        d.set(id * 1000 + i, i);
        a.increment();
        c.send(i);
    }
    wg.done();
}
void closer(WaitGroup wg, Channel<int> c) { wg.wait(); c.close(); }
int main() {
    Mutex m = new Mutex();
    Box b = new Box();
    Dict<int, int> d = new Dict<int, int>();
    Channel<int> c = new Channel<int>(4);
    AtomicInt a = new AtomicInt(0);
    WaitGroup wg = new WaitGroup();
    wg.add(4);
    for (int k = 0; k < 4; k += 1) { thread.spawn(work, k, m, b, d, c, a, wg); }
    thread.spawn(closer, wg, c);
    int sum = 0;
    while (true) {
        try { sum += c.recv(); } catch (ChannelClosedException e) { break; }
    }
    io.print(b.n + " " + d.count() + " " + a.get() + " " + sum);
    return 0;
}`
	for _, n := range []int{2, 4} {
		code, out, errs := parallelRun(t, src, n)
		if code != 0 || out != "1200 1200 1200 179400\n" || errs != "" {
			t.Errorf("%d carriers: exit %d, stdout %q, stderr %q", n, code, out, errs)
		}
	}
}

func TestCarriersDeadlock(t *testing.T) {
	src := `import thread;
void stuck(Channel<int> c) { c.recv(); }
int main() {
    Channel<int> c = {};
    Thread t = thread.spawn(stuck, c);
    t.join();
    return 0;
}`
	for _, n := range []int{2, 4} {
		code, _, errs := parallelRun(t, src, n)
		if code != 2 || !strings.Contains(errs, "all threads are asleep - deadlock!") ||
			!strings.Contains(errs, `thread 2 "thread-2" [chan recv]`) {
			t.Errorf("%d carriers: exit %d, stderr %q", n, code, errs)
		}
	}
}

// TestCarriersMainEnds: main's return ends the program while spinning
// threads still run on the other carriers; Run returns only once they
// have stopped.
func TestCarriersMainEnds(t *testing.T) {
	src := `import thread;
void spin() { while (true) { } }
int main() {
    thread.spawn(spin);
    thread.spawn(spin);
    thread.sleep(5);
    return 7;
}`
	code, _, errs := parallelRun(t, src, 2)
	if code != 7 || errs != "" {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestCarriersPause: Pause stops the world while two threads spin on two
// carriers (no carrier runs a thread, no reduction is spent), Resume goes
// on, Kill ends the run.
func TestCarriersPause(t *testing.T) {
	src := `import thread;
void spin() { int i = 0; while (true) { i += 1; } }
int main() {
    thread.spawn(spin);
    thread.spawn(spin);
    spin();
    return 0;
}`
	s, _, _ := parallelStart(t, src, 2)
	done := make(chan int)
	go func() { done <- s.Run() }()
	total := func() int64 {
		var n int64
		for _, th := range s.Threads() {
			n += th.Reductions()
		}
		return n
	}
	for i := 0; i < 3; i++ {
		time.Sleep(5 * time.Millisecond)
		s.Pause()
		for _, c := range s.Carriers() {
			if c.Running != nil {
				t.Fatalf("carrier %d runs thread %d after Pause", c.ID, c.Running.ID)
			}
		}
		before := total()
		time.Sleep(5 * time.Millisecond)
		if after := total(); after != before {
			t.Fatalf("reductions went from %d to %d while paused", before, after)
		}
		if q := s.RunQueue(); len(q) != 3 {
			t.Fatalf("run queue has %d threads while paused, want 3", len(q))
		}
		// A paused scheduler can still be stepped.
		if ev := s.Dispatch(); ev.Kind != EventDispatch {
			t.Fatalf("Dispatch while paused: %v", ev)
		}
		s.Resume()
	}
	s.Kill(9)
	select {
	case code := <-done:
		if code != 9 {
			t.Errorf("exit code %d, want 9", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after Kill")
	}
}
