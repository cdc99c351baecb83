package inspect

import (
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

// TestStepBackAfterPause: going back right after a pause in a running
// loop (issue "Hardening, round 2", item 6) reaches the previous statement
// at once. It used to re-execute the rest of the program and fail with
// "the recording diverged": the pause cut the thread's quantum, so the
// recording held a short quantum that a re-execution (which no pause
// cuts) does not have. Now a pause, like a trap, leaves the schedule
// alone.
func TestStepBackAfterPause(t *testing.T) {
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
