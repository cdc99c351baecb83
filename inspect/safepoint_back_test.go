package inspect

import (
	"testing"
)

// TestBreakSafepointKeepsTheSchedule: a stop at a thread's next
// safepoint (break safepoint) in a recorded session does not change the
// schedule: the thread goes on with the rest of its quantum after the
// stop, as after a trap, so that going back from there re-executes the
// same run (it used to cut the quantum short, and the re-execution
// diverged), and the program prints what a plain run prints.
func TestBreakSafepointKeepsTheSchedule(t *testing.T) {
	src := `import io;
import thread;
void worker(Channel<long> done) {
    long n = 0;
    for (int i = 0; i < 30000; i += 1) {
        n += i % 7;
        if (i % 3000 == 0) {
            io.print("w " + i);
        }
    }
    done.send(n);
}
int main() {
    Channel<long> done = {};
    thread.spawn(worker, done);
    long m = 0;
    for (int i = 0; i < 30000; i += 1) {
        m += i % 3; // @main
        if (i % 3000 == 0) {
            io.print("m " + i);
        }
    }
    io.print("n " + done.recv() + " m " + m);
    return 0;
}
`
	plain, pl, _ := launchSrc(t, src, Config{})
	plain.ConfigurationDone()
	if code := pl.waitExit(t); code != 0 {
		t.Fatalf("plain run: exit %d", code)
	}
	want := pl.stdout()

	s, l, path := launchSrc(t, src, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, src, "main"), Condition: "i == 4321"}})
	s.ConfigurationDone()
	if st := l.waitStop(t); st.Reason != ReasonBreakpoint {
		t.Fatalf("stop %+v, want the breakpoint", st)
	}
	s.SetBreakpoints(path, nil)
	if err := s.BreakSafepoint(2); err != nil {
		t.Fatal(err)
	}
	s.Continue(1, false)
	if st := l.waitStop(t); st.Reason != ReasonSafepoint || st.ThreadID != 2 {
		t.Fatalf("stop %+v, want the worker's safepoint", st)
	}
	at := eval(t, s, "i")
	if err := s.StepBack(2, StepOver); err != nil {
		t.Fatal(err)
	}
	if st := l.waitStop(t); !st.Back || st.ThreadID != 2 {
		t.Fatalf("step back: %+v", st)
	}
	if eval(t, s, "i <= "+at) != "true" {
		t.Errorf("after going back i = %s, at the safepoint %s", eval(t, s, "i"), at)
	}
	s.Continue(2, false)
	if code := l.waitExit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := l.stdout(); got != want {
		t.Errorf("output:\n%s\nwant (a plain run):\n%s", got, want)
	}
}
