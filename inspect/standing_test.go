package inspect

import "testing"

// TestBreakpointWhereTheThreadStands: a breakpoint set on the statement
// the stopped thread stands at does not stop it there again at once (it
// has reached it already, as in gdb and Delve); it stops it the next time
// the thread gets there. One that was there before the thread got there
// stops it as usual.
func TestBreakpointWhereTheThreadStands(t *testing.T) {
	src := `int main() {
    int i = 0; // @entry
    while (i < 4) {
        i = i + 1; // @body
    }
    return i;
}
`
	s, l, path := launchSrc(t, src, Config{StopOnEntry: true})
	s.ConfigurationDone()
	entry, body := markerLine(t, src, "entry"), markerLine(t, src, "body")
	at := func(what string, reason StopReason, line int, i string) {
		t.Helper()
		st := l.waitStop(t)
		fr, _, _ := s.Stack(1, 0, 1)
		if st.Reason != reason || fr[0].Line != line {
			t.Fatalf("%s: stop %+v at line %d; want %s at line %d", what, st, fr[0].Line, reason, line)
		}
		if i == "" {
			return
		}
		if v, err := s.Evaluate(1, 0, "i", "watch"); err != nil || v.Value != i {
			t.Fatalf("%s: i = %v (%v), want %s", what, v.Value, err, i)
		}
	}
	at("entry", ReasonEntry, entry, "")
	// Set at the entry, where main stands: the continue goes on to the
	// body's breakpoint.
	s.SetBreakpoints(path, []BreakpointSpec{{Line: entry}, {Line: body}})
	s.Continue(1, false)
	at("continue from the entry", ReasonBreakpoint, body, "0")
	// Stepped to the body (no breakpoint there then), then one set there.
	s.SetBreakpoints(path, nil)
	s.Step(1, StepOver, false)
	l.waitStop(t) // the loop's condition
	s.Step(1, StepOver, false)
	at("next to the body", ReasonStep, body, "1")
	s.SetBreakpoints(path, []BreakpointSpec{{Line: body}})
	s.Continue(1, false)
	at("continue after setting it where main stands", ReasonBreakpoint, body, "2")
	// Sent again unchanged (as a client does when another line changes):
	// not a new breakpoint, so it stops the next time as before.
	s.SetBreakpoints(path, []BreakpointSpec{{Line: body}})
	s.Continue(1, false)
	at("continue after the same breakpoints again", ReasonBreakpoint, body, "3")
	s.SetBreakpoints(path, nil)
	s.Continue(1, false)
	if code := l.waitExit(t); code != 4 {
		t.Fatalf("exit %d", code)
	}
}
