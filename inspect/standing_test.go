package inspect

import (
	"strconv"
	"testing"
	"time"
)

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

// TestNonStopBreakpointWhereTheHeldThreadStands: in non-stop mode, a
// thread paused alone where a breakpoint is then set on its line goes on
// to the next pass when continued, while main runs throughout.
func TestNonStopBreakpointWhereTheHeldThreadStands(t *testing.T) {
	const src = `import io;
import thread;
void spin(AtomicInt stop) {
    int n = 0;
    while (true) {
        n += 1; // @spin
        if (stop.get() != 0) {
            break;
        }
    }
    io.print("spun");
}
int main() {
    AtomicInt stop = new AtomicInt(0);
    Thread t = thread.spawn(spin, stop);
    long k = 0;
    while (k < 4000000000) {
        k += 1;
    }
    stop.set(1);
    t.join();
    return 0;
}
`
	s, l := launchNS(t, src, Config{NonStop: true})
	file := s.Program().Main.File
	spin := markerLine(t, src, "spin")
	s.ConfigurationDone()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		var ths []ThreadInfo
		var err error
		s.Still(func() { ths, err = s.Threads() })
		if len(ths) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the spinner did not start:", ths, err)
		}
	}
	stops := 0
	// Pause the spinner until it stands at its loop's body (the back-edge
	// is a safepoint; so is the call of stop.get).
	var n0 int
	for deadline := time.Now().Add(20 * time.Second); ; {
		if time.Now().After(deadline) {
			t.Fatal("the spinner never paused at its loop's body")
		}
		if err := s.PauseThread(2); err != nil {
			t.Fatal(err)
		}
		st := l.waitStop(t, stops)
		stops++
		if st.ThreadID != 2 || st.Reason != ReasonPause || st.AllThreadsStopped {
			t.Fatalf("pause: %+v", st)
		}
		line, n := 0, ""
		s.Still(func() {
			if fs, _, err := s.Stack(2, 0, 1); err == nil {
				line = fs[0].Line
			}
			if v, err := s.Evaluate(2, 0, "n", "watch"); err == nil {
				n = v.Value
			}
		})
		if line == spin {
			var err error
			if n0, err = strconv.Atoi(n); err != nil {
				t.Fatalf("n = %q", n)
			}
			break
		}
		if err := s.Continue(2, false); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // (let it run: main shares the carrier)
	}
	if bps := s.SetBreakpoints(file, []BreakpointSpec{{Line: spin}}); !bps[0].Verified {
		t.Fatal(bps[0].Message)
	}
	if err := s.Continue(2, false); err != nil {
		t.Fatal(err)
	}
	st := l.waitStop(t, stops)
	if st.ThreadID != 2 || st.Reason != ReasonBreakpoint {
		t.Fatalf("stop %+v", st)
	}
	var n string
	s.Still(func() {
		if v, err := s.Evaluate(2, 0, "n", "watch"); err == nil {
			n = v.Value
		}
	})
	if n != strconv.Itoa(n0+1) {
		t.Fatalf("stopped at n = %s; want the next pass, n = %d", n, n0+1)
	}
}
