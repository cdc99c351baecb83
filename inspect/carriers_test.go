package inspect

import "testing"

// The debugger with several carriers: a breakpoint stops the world,
// stepping one thread and single-thread resumes hold, and the scheduler
// view shows each carrier.

func TestCarriersBreakpointStepAndSingleThread(t *testing.T) {
	src := `import io;
import thread;
void spin() {
    long n = 0;
    while (true) {
        n += 1;
    }
}
int main() {
    thread.spawn(spin);
    thread.spawn(spin);
    long k = 0;
    while (k < 1000000000) {
        k += 1; // @main
    }
    return 0;
}
`
	s, l, path := launchSrc(t, src, Config{Carriers: 2})
	line := markerLine(t, src, "main")
	s.SetBreakpoints(path, []BreakpointSpec{{Line: line, HitCondition: "==3000"}})
	s.ConfigurationDone()
	st := l.waitStop(t)
	if st.Reason != ReasonBreakpoint || st.ThreadID != 1 || !st.AllThreadsStopped {
		t.Fatalf("stop = %+v", st)
	}
	view, err := s.SchedView()
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Carriers) != 2 {
		t.Fatalf("sched view shows %d carriers, want 2", len(view.Carriers))
	}
	for _, c := range view.Carriers {
		if c.Running != 0 {
			t.Fatalf("carrier %d runs thread %d while stopped", c.ID, c.Running)
		}
	}
	// The world is stopped: the spinners spend nothing.
	sch := s.Scheduler()
	red2, red3 := sch.Thread(2).Reductions(), sch.Thread(3).Reductions()
	fr, _, _ := s.Stack(1, 0, 1)
	if fr[0].Line != line {
		t.Fatalf("main stopped at line %d, want %d", fr[0].Line, line)
	}
	s.SetBreakpoints(path, nil)
	// Single-thread steps of main: the spinners stay frozen.
	for i := 0; i < 3; i++ {
		if err := s.Step(1, StepOver, true); err != nil {
			t.Fatal(err)
		}
		if st = l.waitStop(t); st.ThreadID != 1 || st.Reason != ReasonStep {
			t.Fatalf("stop = %+v", st)
		}
	}
	if a, b := sch.Thread(2).Reductions(), sch.Thread(3).Reductions(); a != red2 || b != red3 {
		t.Fatalf("frozen threads ran: %d -> %d, %d -> %d reductions", red2, a, red3, b)
	}
	// A step of main with every thread running still ends on main.
	if err := s.Step(1, StepOver, false); err != nil {
		t.Fatal(err)
	}
	if st = l.waitStop(t); st.ThreadID != 1 || st.Reason != ReasonStep {
		t.Fatalf("stop = %+v", st)
	}
	// Pause a busy program.
	s.Continue(1, false)
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	if st = l.waitStop(t); st.Reason != ReasonPause {
		t.Fatalf("stop = %+v", st)
	}
	if _, _, err := s.Stack(2, 0, 1); err != nil {
		t.Fatal(err)
	}
	s.Terminate()
}

func TestCarriersRunToEnd(t *testing.T) {
	s, l, path := launchSrc(t, twoThreads, Config{Carriers: 2})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, twoThreads, "work")}})
	s.ConfigurationDone()
	st := l.waitStop(t)
	if st.Reason != ReasonBreakpoint || st.ThreadID != 2 || !st.AllThreadsStopped {
		t.Fatalf("stop = %+v, want breakpoint on thread 2", st)
	}
	s.SetBreakpoints(path, nil)
	if err := s.Continue(2, false); err != nil {
		t.Fatal(err)
	}
	if code := l.waitExit(t); code != 3 {
		t.Fatalf("exit code %d", code)
	}
	if got := l.stdout(); got != "worker 10\nmain 2\n" {
		t.Fatalf("stdout %q", got)
	}
}
