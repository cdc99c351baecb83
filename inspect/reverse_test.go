package inspect

import (
	"testing"
)

const backSrc = `import io;
import thread;
int twice(int v) {
    int r = v * 2; // @twice
    return r;
}
int main() {
    int a = 1; // @a
    a = a + 10; // @b
    a = twice(a); // @c
    io.print("a " + a); // @d
    for (int i = 0; i < 5; i += 1) {
        a = a + i; // @loop
    }
    io.print("done " + a);
    return 0;
}
`

// eval evaluates expr in thread 1's top frame.
func eval(t *testing.T, s *Session, expr string) string {
	t.Helper()
	v, err := s.Evaluate(1, 0, expr, EvalContext("watch"))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return v.Value
}

// line returns thread 1's current line.
func line(t *testing.T, s *Session) int {
	t.Helper()
	fr, _, err := s.Stack(1, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	return fr[0].Line
}

// TestStepBack steps over three lines, back three times (the locals are
// the old values), then forward again to the same values; output shown
// before is not shown again.
func TestStepBack(t *testing.T) {
	s, l, _ := launchSrc(t, backSrc, Config{StopOnEntry: true})
	s.ConfigurationDone()
	l.waitStop(t)
	if !s.CanGoBack() {
		t.Fatal("a one-carrier session cannot go back")
	}
	var lines []int
	var vals []string
	for i := 0; i < 4; i++ {
		if i > 0 {
			if err := s.Step(1, StepOver, false); err != nil {
				t.Fatal(err)
			}
			l.waitStop(t)
		}
		lines = append(lines, line(t, s))
		vals = append(vals, eval(t, s, "a"))
	}
	want := []int{markerLine(t, backSrc, "a"), markerLine(t, backSrc, "b"), markerLine(t, backSrc, "c"), markerLine(t, backSrc, "d")}
	for i := range want {
		if lines[i] != want[i] {
			t.Fatalf("forward: lines %v, want %v", lines, want)
		}
	}
	if vals[3] != "22" || vals[2] != "11" {
		t.Fatalf("forward values %v", vals)
	}
	for i := 2; i >= 0; i-- {
		if err := s.StepBack(1, StepOver); err != nil {
			t.Fatal(err)
		}
		st := l.waitStop(t)
		if st.Reason != ReasonStep && !(i == 0 && st.Reason == ReasonEntry) {
			t.Fatalf("step back: stop %+v", st)
		}
		if got := line(t, s); got != lines[i] {
			t.Fatalf("step back %d: line %d, want %d", 3-i, got, lines[i])
		}
		if i > 0 {
			if got := eval(t, s, "a"); got != vals[i] {
				t.Fatalf("step back %d: a = %s, want %s", 3-i, got, vals[i])
			}
		}
	}
	for i := 1; i < 4; i++ {
		if err := s.Step(1, StepOver, false); err != nil {
			t.Fatal(err)
		}
		l.waitStop(t)
		if got, gotv := line(t, s), eval(t, s, "a"); got != lines[i] || gotv != vals[i] {
			t.Fatalf("forward again %d: line %d a = %s, want %d and %s", i, got, gotv, lines[i], vals[i])
		}
	}
	if err := s.Continue(1, false); err != nil {
		t.Fatal(err)
	}
	if code := l.waitExit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := l.stdout(); got != "a 22\ndone 32\n" {
		t.Fatalf("stdout %q", got)
	}
}

// TestStepBackInto steps back into the callee (rev step) and out of it
// (rev stepout).
func TestStepBackInto(t *testing.T) {
	s, l, path := launchSrc(t, backSrc, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, backSrc, "d")}})
	s.ConfigurationDone()
	l.waitStop(t)
	if err := s.StepBack(1, StepIn); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	fr, _, _ := s.Stack(1, 0, 2)
	if fr[0].Func != "twice" || fr[0].Line != markerLine(t, backSrc, "twice")+1 {
		t.Fatalf("rev step: at %s:%d, want twice's return", fr[0].Func, fr[0].Line)
	}
	if got := eval(t, s, "r"); got != "22" {
		t.Fatalf("r = %s", got)
	}
	if err := s.StepBack(1, StepOut); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	if got := line(t, s); got != markerLine(t, backSrc, "c") {
		t.Fatalf("rev stepout: line %d, want the call's", got)
	}
	if got := eval(t, s, "a"); got != "11" {
		t.Fatalf("a = %s before the call", got)
	}
}

// TestReverseContinue goes back to the previous hit of a breakpoint in a
// loop: i is one less.
func TestReverseContinue(t *testing.T) {
	s, l, path := launchSrc(t, backSrc, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, backSrc, "loop")}})
	s.ConfigurationDone()
	for i := 0; i < 3; i++ {
		if i > 0 {
			s.Continue(1, false)
		}
		l.waitStop(t)
	}
	if got := eval(t, s, "i"); got != "2" {
		t.Fatalf("third hit: i = %s", got)
	}
	for _, want := range []string{"1", "0"} {
		if err := s.ReverseContinue(1); err != nil {
			t.Fatal(err)
		}
		st := l.waitStop(t)
		if st.Reason != ReasonBreakpoint {
			t.Fatalf("reverse continue: %+v", st)
		}
		if got := eval(t, s, "i"); got != want {
			t.Fatalf("reverse continue: i = %s, want %s", got, want)
		}
	}
	if err := s.ReverseContinue(1); err != nil {
		t.Fatal(err)
	}
	if st := l.waitStop(t); st.Reason != ReasonEntry {
		t.Fatalf("before the first hit: %+v, want the start", st)
	}
	s.Continue(1, false)
	l.waitStop(t)
	if got := eval(t, s, "i"); got != "0" {
		t.Fatalf("forward from the start: i = %s", got)
	}
	s.SetBreakpoints(path, nil)
	s.Continue(1, false)
	if code := l.waitExit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// "a 22" was printed before going back: it is not printed again.
	if got := l.stdout(); got != "a 22\ndone 32\n" {
		t.Fatalf("stdout %q", got)
	}
}
