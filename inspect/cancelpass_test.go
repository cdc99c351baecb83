package inspect

import (
	"errors"
	"testing"
)

// TestGoingBackIsCancelled: a step back whose request is cancelled stops
// its re-execution and answers ErrCancelled; the session stays where it
// was and goes on.
func TestGoingBackIsCancelled(t *testing.T) {
	src := "import io;\nint main() {\n    long n = 0;\n    while (n < 3000) {\n        n += 1;\n    }\n    io.print(\"done\"); // @end\n    return 0;\n}\n"
	s, l, path := launchBack(t, src, Config{SnapshotInterval: -1})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, src, "end")}})
	s.ConfigurationDone()
	if st := l.waitStop(t); st.Reason != ReasonBreakpoint {
		t.Fatalf("stop %+v", st)
	}
	s.SetCancelCheck(func() bool { return true })
	err := s.StepBack(1, StepOver)
	s.SetCancelCheck(nil)
	if !errors.Is(err, ErrCancelled) {
		t.Fatalf("step back: %v, want ErrCancelled", err)
	}
	if got := eval(t, s, "n"); got != "3000" {
		t.Errorf("after the cancelled step back n = %s", got)
	}
	s.Continue(1, false)
	if code := l.waitExit(t); code != 0 {
		t.Errorf("exit %d", code)
	}
}
