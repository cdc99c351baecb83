package sched

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// switchSrc has three threads trading values over unbuffered channels,
// and a fourth that counts without blocking (so that quanta also end by
// preemption); what it prints depends on the order of every dispatch.
const switchSrc = `import io; import thread;
void relay(Channel<int> src, Channel<int> dst, int n, string name) {
    for (int i = 0; i < n; i += 1) {
        int v = src.recv();
        if (v % 7 == 0) { io.print(name + " " + v); }
        dst.send(v + 1);
    }
}
void counter(Channel<string> log) {
    long s = 0;
    for (int i = 0; i < 3000; i += 1) {
        s += i;
        if (i % 500 == 0) { log.trySend("count " + i); }
    }
    io.print("counted " + s);
}
int main() {
    Channel<int> a = {};
    Channel<int> b = {};
    Channel<int> c = {};
    Channel<string> log = new Channel<string>(100);
    thread.spawn(counter, log);
    thread.spawn(relay, a, b, 40, "b");
    thread.spawn(relay, b, c, 40, "c");
    int v = 0;
    for (int i = 0; i < 40; i += 1) {
        a.send(v);
        v = c.recv();
        string s;
        if (log.tryRecv(out s)) { io.print(s + " at " + i); }
    }
    io.print("main " + v);
    return 0;
}
`

// switchRun runs switchSrc with quota; watch sets an OnEvent (which keeps
// every quantum in the carrier's loop). It returns the output, the
// reductions of main (the threads' are part of the output's order), and
// the number of switches inside the interpreter.
func switchRun(t *testing.T, quota int, watch bool) (string, int64) {
	t.Helper()
	lib := vm.StdLib()
	lib.Merge(Lib())
	prog, err := compile.CompileFile("t.n", []byte(switchSrc), compile.Options{Lib: lib})
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	m := vm.NewMachine(prog, nil, &out, &errb)
	s := New(m, Options{Quota: quota})
	main := m.NewCallThread(prog.Main, nil)
	s.Start(main)
	if watch {
		s.OnEvent = func(Event) {}
	}
	if code := s.Run(); code != 0 {
		t.Fatalf("exit code %d: %s", code, errb.String())
	}
	return fmt.Sprintf("%smain reductions %d", out.String(), main.Reductions()), s.switches
}

// TestSwitchOnParkKeepsTheSchedule: a thread that parks hands the carrier
// to the next thread inside the interpreter loop, and the run is the same
// dispatch for dispatch as one where every quantum returns to the
// carrier's loop (a listener of the events, as a debugger, keeps them
// there): same output, same reductions, under several quotas.
func TestSwitchOnParkKeepsTheSchedule(t *testing.T) {
	for _, quota := range []int{1, 7, 50, 10_000} {
		fast, n := switchRun(t, quota, false)
		slow, m := switchRun(t, quota, true)
		if fast != slow {
			t.Errorf("quota %d: switching inside the loop changed the run:\n%s\n\nwithout:\n%s", quota, fast, slow)
		}
		if n == 0 {
			t.Errorf("quota %d: no switch inside the interpreter loop", quota)
		}
		if m != 0 {
			t.Errorf("quota %d: %d switches inside the loop with a listener of the events", quota, m)
		}
		if !strings.Contains(fast, "main 80\n") {
			t.Errorf("quota %d: output %q", quota, fast)
		}
	}
}

// TestPauseWhileSwitching: a program whose two threads only ever hand the
// carrier to each other inside the interpreter loop still stops promptly
// for Pause (at a safepoint, or at the next park), shows no thread
// running, and goes on after Resume.
func TestPauseWhileSwitching(t *testing.T) {
	src := `import thread;
void pong(Channel<int> src, Channel<int> dst) { while (true) { dst.send(src.recv() + 1); } }
int main() {
    Channel<int> a = {};
    Channel<int> b = {};
    thread.spawn(pong, a, b);
    int v = 0;
    while (true) { a.send(v); v = b.recv(); }
    return 0;
}`
	s, _, _ := parallelStart(t, src, 1)
	done := make(chan int)
	go func() { done <- s.Run() }()
	for i := 0; i < 3; i++ {
		time.Sleep(20 * time.Millisecond)
		s.Pause()
		s.mu.Lock()
		n := s.switches
		s.mu.Unlock()
		states := map[vm.ThreadState]int{}
		for _, th := range s.Threads() {
			states[th.State]++
		}
		if states[vm.Running] != 0 || states[vm.Waiting]+states[vm.Runnable] != 2 || states[vm.Waiting] > 1 {
			t.Errorf("paused with states %v, want none running, at most one waiting", states)
		}
		if n == 0 {
			t.Errorf("no switch inside the loop before pause %d", i)
		}
		s.Resume()
	}
	s.Kill(0)
	<-done
}
