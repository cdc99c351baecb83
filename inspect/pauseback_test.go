package inspect

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// pausingListener pauses the session (from another goroutine, as a
// listener must) when the program writes, while armed: a pause that
// lands inside a running quantum.
type pausingListener struct {
	*coreListener
	s     atomic.Pointer[Session]
	armed atomic.Bool
}

func (l *pausingListener) Output(cat, text string) {
	l.coreListener.Output(cat, text)
	if s := l.s.Load(); s != nil && cat == "stdout" && l.armed.CompareAndSwap(true, false) {
		go s.Pause()
	}
}

// TestStepBackAfterPause: a pause cuts the running quantum short; in a
// recorded session the thread goes on with the rest of that quantum when
// the program resumes, so the recording stays in step with its
// re-executions and going back from the pause (and later) works, where
// it used to re-execute without end (no re-execution's quantum matched
// the cut one).
func TestStepBackAfterPause(t *testing.T) {
	src := "import io;\nint main() {\n    long n = 0;\n    while (true) {\n        n += 1; // @loop\n        if (n % 30011 == 0) {\n            io.print(\"tick\");\n        }\n    }\n    return 0;\n}\n"
	path := filepath.Join(t.TempDir(), "prog.n")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &pausingListener{coreListener: newCoreListener()}
	s, err := Launch(Config{Program: path, SnapshotInterval: -1}, l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Terminate)
	l.s.Store(s)
	pause := func() {
		t.Helper()
		l.armed.Store(true)
		if st := l.waitStop(t); st.Reason != ReasonPause {
			t.Fatalf("stop %+v, want the pause", st)
		}
	}
	l.armed.Store(true)
	s.ConfigurationDone()
	// (the print is inside a quantum: a pause nearly always cuts it)
	for i := 0; ; i++ {
		if st := l.waitStop(t); st.Reason != ReasonPause {
			t.Fatalf("stop %+v, want the pause", st)
		}
		if s.Scheduler().Thread(1).Reductions()%int64(s.Scheduler().Quota()) != 0 {
			break
		}
		if i == 100 {
			t.Fatal("no pause inside a quantum in 100 pauses")
		}
		l.armed.Store(true)
		s.Continue(1, false)
	}
	paused := eval(t, s, "n")
	loop := markerLine(t, src, "loop")
	// back to the increment (the pause may land right after the print:
	// then the print and the if come first)
	for i := 0; i < 2 || (i < 4 && line(t, s) != loop); i++ {
		if err := s.StepBack(1, StepOver); err != nil {
			t.Fatal(err)
		}
		if st := l.waitStop(t); st.Reason != ReasonStep || !st.Back {
			t.Fatalf("step back: %+v", st)
		}
		// (the loop's lines: the pause may come right after the print)
		if got := line(t, s); got < loop-1 || got > loop+2 {
			t.Fatalf("step back: line %d, want the loop's", got)
		}
	}
	if eval(t, s, "n < "+paused) != "true" {
		t.Errorf("after going back n = %s, paused at %s", eval(t, s, "n"), paused)
	}
	// forward again, past the moment of the pause, and back once more
	s.Continue(1, false)
	pause()
	if eval(t, s, "n > "+paused) != "true" {
		t.Errorf("going on: n = %s, paused before at %s", eval(t, s, "n"), paused)
	}
	if err := s.StepBack(1, StepOver); err != nil {
		t.Fatal(err)
	}
	if st := l.waitStop(t); st.Reason != ReasonStep {
		t.Fatalf("step back after going on: %+v", st)
	}
}

// TestPauseOvertakenByABreakpoint: a pause asked for while the program
// runs (PauseThread saw it running) that reaches the world after a
// breakpoint stopped it reports nothing: the client is told of one stop,
// the breakpoint's. (Two stopped events came, the breakpoint's and then
// the pause's, which a client read as the stop of its next request; the
// differential test met it.)
func TestPauseOvertakenByABreakpoint(t *testing.T) {
	s, l, path := launchSrc(t, twoThreads, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, twoThreads, "main")}})
	s.ConfigurationDone()
	if st := l.waitStop(t); st.Reason != ReasonBreakpoint {
		t.Fatalf("stop %+v", st)
	}
	// the pause's half that runs after PauseThread's look at the state
	s.pauseWorld(StopInfo{Reason: ReasonPause, Description: "Paused"}, s.r.sch.Main())
	select {
	case st := <-l.stops:
		t.Fatalf("a second stop was reported: %+v", st)
	default:
	}
	if st := s.LastStop(); st.Reason != ReasonBreakpoint {
		t.Fatalf("the stop became %+v", st)
	}
	if err := s.Continue(0, false); err != nil {
		t.Fatal(err)
	}
	if code := l.waitExit(t); code != 3 {
		t.Fatalf("exit %d", code)
	}
}
