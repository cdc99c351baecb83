package inspect

import (
	"strconv"
	"testing"
)

// TestBreakpointSetAgainStopsAtTheNextPass: a thread stopped at a
// breakpoint in a loop, then stopped elsewhere without a trap on the way
// (at a safepoint; a pause), stops at the breakpoint set again at its
// next pass of the line (the one after the pass it stands at). (The thread was to execute the stopped-at
// instruction once without trapping when it resumed, and kept that
// until it reached a trap: the next pass, iterations later, went by;
// the differential test met it after a restartFrame.)
func TestBreakpointSetAgainStopsAtTheNextPass(t *testing.T) {
	const src = `import io;
int main() {
    int x = 0;
    for (int i = 0; i < 1000; i += 1) {
        x += i; // @body
    }
    io.print("" + x);
    return 0;
}
`
	s, l, path := launchSrc(t, src, Config{})
	body := []BreakpointSpec{{Line: markerLine(t, src, "body")}}
	s.SetBreakpoints(path, body)
	s.ConfigurationDone()
	if st := l.waitStop(t); st.Reason != ReasonBreakpoint || eval(t, s, "i") != "0" {
		t.Fatalf("stop %+v at i = %s", st, eval(t, s, "i"))
	}
	s.SetBreakpoints(path, nil)
	if err := s.BreakSafepoint(1); err != nil {
		t.Fatal(err)
	}
	if err := s.Continue(0, false); err != nil {
		t.Fatal(err)
	}
	if st := l.waitStop(t); st.Reason != ReasonSafepoint {
		t.Fatalf("stop %+v, want the safepoint", st)
	}
	at, err := strconv.Atoi(eval(t, s, "i"))
	if err != nil {
		t.Fatal(err)
	}
	fr, _, _ := s.Stack(1, 0, 1)
	if fr[0].Line == body[0].Line {
		// main stands at the body (the loop's back-edge is a safepoint):
		// a breakpoint set where it stands takes effect the next time it
		// gets there (standing_test.go)
		at++
	}
	s.SetBreakpoints(path, body)
	if err := s.Continue(0, false); err != nil {
		t.Fatal(err)
	}
	if st := l.waitStop(t); st.Reason != ReasonBreakpoint {
		t.Fatalf("stop %+v", st)
	}
	if got := eval(t, s, "i"); got != strconv.Itoa(at) {
		t.Fatalf("the breakpoint set again stopped at i = %s, want the next pass, i = %d", got, at)
	}
}
