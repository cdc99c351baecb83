package inspect

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// pauseLoopSrc runs a long loop; it prints once it is under way, so a
// test can pause it while it runs (no sleep).
const pauseLoopSrc = `import io;
int main() {
    int a = 0;
    int b = 1;
    for (int i = 0; i < 30000000; i += 1) {
        a = i * 2; // @body
        b = a + 1; // @b
        if (i == 1000) { io.print("running"); }
    }
    io.print("done " + b);
    return 0;
}
`

// printListener is a coreListener that tells when the program has
// printed a text.
type printListener struct {
	*coreListener
	want    string
	once    sync.Once
	printed chan struct{}
}

func (l *printListener) Output(cat, text string) {
	l.coreListener.Output(cat, text)
	if strings.Contains(text, l.want) {
		l.once.Do(func() { close(l.printed) })
	}
}

// waitPrinted waits until the program has printed l.want.
func (l *printListener) waitPrinted(t *testing.T) {
	t.Helper()
	select {
	case <-l.printed:
	case <-time.After(10 * time.Second):
		t.Fatalf("the program did not print %q (output %q)", l.want, l.stdout())
	}
}

// launchPrint launches src with a printListener waiting for want.
func launchPrint(t *testing.T, src, want string, cfg Config) (*Session, *printListener) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prog.n")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Program = path
	l := &printListener{coreListener: newCoreListener(), want: want, printed: make(chan struct{})}
	s, err := Launch(cfg, l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Terminate)
	return s, l
}

// TestStepBackAfterPauseInLoop: going back right after a pause in a running
// loop (issue "Hardening, round 2", item 6) reaches the previous statement
// at once. It used to re-execute the rest of the program and fail with
// "the recording diverged": the pause cut the thread's quantum, so the
// recording held a short quantum that a re-execution (which no pause
// cuts) does not have. Now a pause, like a trap, leaves the schedule
// alone, and the present is the paused thread where it stopped (not the
// end of the quantum before): the step back lands one statement back.
func TestStepBackAfterPauseInLoop(t *testing.T) {
	s, l := launchPrint(t, pauseLoopSrc, "running", Config{})
	s.ConfigurationDone()
	l.waitPrinted(t)
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	if st := l.coreListener.waitStop(t); st.Reason != ReasonPause {
		t.Fatalf("stop %+v", st)
	}
	i, _ := strconv.Atoi(eval(t, s, "i"))
	body, bLine := markerLine(t, pauseLoopSrc, "body"), markerLine(t, pauseLoopSrc, "b")
	for k := 0; k < 3; k++ {
		if err := s.StepBack(1, StepOver); err != nil {
			t.Fatalf("step back %d after a pause: %v", k+1, err)
		}
		st := l.coreListener.waitStop(t)
		if st.Reason != ReasonStep || !st.Back {
			t.Fatalf("step back %d: stop %+v", k+1, st)
		}
		// Every statement boundary of the loop satisfies a = 2i (after
		// the body's first line) and b = a + 1 (before it).
		a, _ := strconv.Atoi(eval(t, s, "a"))
		b, _ := strconv.Atoi(eval(t, s, "b"))
		ni, _ := strconv.Atoi(eval(t, s, "i"))
		switch line(t, s) {
		case bLine:
			if a != 2*ni {
				t.Fatalf("step back %d: at the second line i=%d a=%d", k+1, ni, a)
			}
		case body:
			if b != a+1 {
				t.Fatalf("step back %d: at the first line a=%d b=%d", k+1, a, b)
			}
		}
		if ni > i || ni < i-2 {
			t.Fatalf("step back %d: i = %d, paused at %d", k+1, ni, i)
		}
	}
	if strings.Count(l.stdout(), "running") != 1 {
		t.Fatalf("output shown again: %q", l.stdout())
	}
	// Forward again: the step is driven as usual.
	if err := s.Step(1, StepOver, false); err != nil {
		t.Fatal(err)
	}
	if st := l.coreListener.waitStop(t); st.Reason != ReasonStep {
		t.Fatalf("forward after going back: stop %+v", st)
	}
}

// TestChangesForkTheRecording: setExpression, goto and restartFrame
// change the execution as setVariable does, and like it they fork the
// recording (issue "Hardening, round 2", item 7): going back and the
// questions about the past are refused with the reason instead of going
// into a past without the change, and the program goes on with it. They
// used to leave the recording as it was: a step back afterwards went
// back into a run without the change, which the program then printed.
func TestChangesForkTheRecording(t *testing.T) {
	src := `import io;
int twice(int x) {
    return x * 2; // @twice
}
int main() {
    int a = 5; // @a
    a = twice(a); // @b
    io.print("a " + a); // @print
    return 0;
}
`
	for _, change := range []string{"setExpression", "goto", "restartFrame"} {
		t.Run(change, func(t *testing.T) {
			marker := "print"
			if change == "restartFrame" {
				marker = "twice"
			}
			s, l, path := launchSrc(t, src, Config{})
			s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, src, marker)}})
			s.ConfigurationDone()
			l.waitStop(t)
			var err error
			want := "a 101"
			switch change {
			case "setExpression":
				_, err = s.SetExpression(1, 0, "a", "101")
			case "goto":
				var targets []GotoTarget
				if targets, err = s.GotoTargets(path, markerLine(t, src, "b")); err == nil {
					err = s.Goto(1, targets[0].ID)
				}
				want = "a 20"
			case "restartFrame":
				err = s.RestartFrame(1, 0)
				want = "a 10"
			}
			if err != nil {
				t.Fatal(err)
			}
			if change != "setExpression" {
				l.waitStop(t) // (the stop in place)
			}
			if err := s.StepBack(1, StepOver); !errors.Is(err, ErrAfterSet) {
				t.Fatalf("step back after %s: %v, want ErrAfterSet", change, err)
			}
			if _, err := s.LastWrites(DataLocation{Expr: "a"}, 1); !errors.Is(err, ErrAfterSet) {
				t.Fatalf("lastWrites after %s: %v", change, err)
			}
			s.SetBreakpoints(path, nil)
			if err := s.Continue(1, false); err != nil {
				t.Fatal(err)
			}
			l.waitExit(t)
			if got := strings.TrimSpace(l.stdout()); got != want {
				t.Fatalf("after %s the program printed %q, want %q", change, got, want)
			}
			if !strings.Contains(l.console(), "no longer follows its recording") {
				t.Errorf("console %q: the session should say the run left its recording", l.console())
			}
		})
	}
}
