package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
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
// launchBack is launchSrc for the tests of going back: unless cfg says
// otherwise, the session takes a checkpoint at the end of every quantum,
// so that going back starts from checkpoints (SnapshotInterval -1: from
// the start).
func launchBack(t testing.TB, src string, cfg Config) (*Session, *coreListener, string) {
	t.Helper()
	if cfg.SnapshotInterval == 0 {
		cfg.SnapshotInterval = time.Nanosecond
	}
	return launchSrc(t, src, cfg)
}

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
	s, l, _ := launchBack(t, backSrc, Config{StopOnEntry: true})
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
	s, l, path := launchBack(t, backSrc, Config{})
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
	s, l, path := launchBack(t, backSrc, Config{})
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

const replaySrc = `import io;
import thread;
int main() {
    string l = io.readLine();
    thread.sleep(3);
    io.print("got " + l); // @got
    return 5;
}
`

// TestDebugRecording opens a recording (Config.Replay): the program reads
// the recorded input, not the session's, prints what the recorded run
// printed, and can go back.
func TestDebugRecording(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rec.n")
	os.WriteFile(path, []byte(replaySrc), 0o644)
	prog, err := compile.CompileFile(path, []byte(replaySrc), compile.Options{Lib: Library()})
	if err != nil {
		t.Fatal(err)
	}
	var out, buf bytes.Buffer
	rec := record.NewRecorder(record.Header{Path: path, Source: []byte(replaySrc), Hash: record.ProgramHash(prog)})
	m := vm.NewMachine(prog, strings.NewReader("recorded line\n"), rec.Stdout(&out), rec.Stderr(&out))
	sch := sched.New(m, sched.Options{Clock: rec.Clock()})
	if err := rec.Start(&buf, m, sch); err != nil {
		t.Fatal(err)
	}
	sch.Start(m.NewCallThread(prog.Main, nil))
	code := sch.Run()
	if err := rec.Finish(code); err != nil || code != 5 || out.String() != "got recorded line\n" {
		t.Fatalf("recorded run: %d %q %v", code, out.String(), err)
	}
	recPath := filepath.Join(dir, "run.rec")
	os.WriteFile(recPath, buf.Bytes(), 0o644)
	os.Remove(path) // the recording holds the source

	l := newCoreListener()
	s, err := Launch(Config{Replay: recPath, Stdin: strings.NewReader("another line\n")}, l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Terminate)
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, replaySrc, "got")}})
	s.ConfigurationDone()
	l.waitStop(t)
	if got := eval(t, s, "l"); got != `"recorded line"` {
		t.Fatalf("l = %s, want the recorded input", got)
	}
	if err := s.StepBack(1, StepOver); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	if got := line(t, s); got != markerLine(t, replaySrc, "got")-1 {
		t.Fatalf("step back: line %d", got)
	}
	s.SetBreakpoints(path, nil)
	s.Continue(1, false)
	if code := l.waitExit(t); code != 5 {
		t.Fatalf("exit %d", code)
	}
	if got := l.stdout(); got != "got recorded line\n" {
		t.Fatalf("stdout %q", got)
	}
}

// TestDebugRecordingRefused: a file that is not a recording is refused
// with a clear error.
func TestDebugRecordingRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.rec")
	os.WriteFile(p, []byte("hello"), 0o644)
	_, err := Launch(Config{Replay: p}, newCoreListener())
	if err == nil || !strings.Contains(err.Error(), "not an nlangdbg recording") {
		t.Fatalf("err %v", err)
	}
}

// TestSetVariableForks: a set in the past drops the recorded future.
func TestSetVariableForks(t *testing.T) {
	// quota 1: every reduction ends a quantum, so the recording holds the
	// future of the moment the set is made in
	s, l, path := launchBack(t, backSrc, Config{Quota: 1})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, backSrc, "loop")}})
	s.ConfigurationDone()
	l.waitStop(t)
	cp, err := s.AddCheckpoint("first hit")
	if err != nil {
		t.Fatal(err)
	}
	s.Continue(1, false)
	l.waitStop(t)
	if err := s.ReverseContinue(1); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	if got := eval(t, s, "i"); got != "0" {
		t.Fatalf("i = %s", got)
	}
	sc, err := s.Scopes(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetVariable(sc[0].Ref, "a", "1000"); err != nil {
		t.Fatal(err)
	}
	if w, _ := s.When(); w.Forked == "" {
		t.Fatalf("the journal did not fork: %+v", w)
	}
	if err := s.StepBack(1, StepOver); !errors.Is(err, ErrAfterSet) {
		t.Fatalf("step back after a set: %v", err)
	}
	if err := s.RestartAt(cp.ID); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	if got := eval(t, s, "a"); got != "22" {
		t.Fatalf("at the checkpoint made before the set: a = %s, want 22", got)
	}
	s.SetBreakpoints(path, nil)
	s.Continue(1, false)
	if code := l.waitExit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := l.stdout(); got != "a 22\ndone 32\n" {
		t.Fatalf("stdout %q", got)
	}
}

const deadlockSrc = `import io;
int main() {
    Channel<int> c = {};
    io.print("waiting"); // @print
    int v = c.recv(); // @recv
    io.print("" + v);
    return 0;
}
`

// TestStepBackFromDeadlock: from the deadlock stop the session goes back
// to the statement that parked, and forward again to the same deadlock.
func TestStepBackFromDeadlock(t *testing.T) {
	s, l, _ := launchBack(t, deadlockSrc, Config{})
	s.ConfigurationDone()
	if st := l.waitStop(t); st.Reason != ReasonDeadlock {
		t.Fatalf("stop %+v", st)
	}
	if err := s.StepBack(1, StepOver); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	if got := line(t, s); got != markerLine(t, deadlockSrc, "recv") {
		t.Fatalf("back at line %d, want the recv", got)
	}
	if err := s.StepBack(1, StepOver); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	if got := line(t, s); got != markerLine(t, deadlockSrc, "print") {
		t.Fatalf("back at line %d, want the print", got)
	}
	s.Continue(1, false)
	if st := l.waitStop(t); st.Reason != ReasonDeadlock {
		t.Fatalf("forward: %+v, want the deadlock again", st)
	}
	s.Continue(1, false)
	if code := l.waitExit(t); code != 2 {
		t.Fatalf("exit %d", code)
	}
	if got := l.stdout(); got != "waiting\n" {
		t.Fatalf("stdout %q: printed once", got)
	}
}

const throwSrc = `import io;
int check(int k) {
    if (k % 2 == 1) {
        throw new Exception("odd " + k); // @throw
    }
    return k;
}
int main() {
    int ok = 0;
    for (int k = 0; k < 4; k += 1) {
        try {
            ok = ok + check(k);
        } catch (Exception e) {
            io.print("caught " + e.message);
        }
    }
    int[] a = new int[1];
    ok = ok + 1; // @before
    return a[ok]; // @crash
}
`

// TestGoingBackFromAnException: from the stop at an uncaught exception
// the session steps back to the statement before, and reverse-continues
// (all exceptions) to the last caught throw, k = 3; a dump of the
// exception stop reopens there.
func TestGoingBackFromAnException(t *testing.T) {
	s, l, _ := launchBack(t, throwSrc, Config{})
	s.SetExceptionBreakpoints(true, false)
	s.ConfigurationDone()
	if st := l.waitStop(t); st.Reason != ReasonException {
		t.Fatalf("stop %+v", st)
	}
	dump := filepath.Join(t.TempDir(), "crash.dump")
	if err := s.Dump(dump); err != nil {
		t.Fatal(err)
	}
	if err := s.StepBack(1, StepOver); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	if got := line(t, s); got != markerLine(t, throwSrc, "crash") {
		t.Fatalf("step back from the throw: line %d, want the statement that throws", got)
	}
	if err := s.StepBack(1, StepOver); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	if got := line(t, s); got != markerLine(t, throwSrc, "before") {
		t.Fatalf("second step back: line %d", got)
	}
	s.SetExceptionBreakpoints(true, true)
	if err := s.ReverseContinue(1); err != nil {
		t.Fatal(err)
	}
	st := l.waitStop(t)
	if st.Reason != ReasonException || !strings.Contains(st.Text, "odd 3") {
		t.Fatalf("reverse continue: %+v, want the throw of odd 3", st)
	}
	if fr, _, _ := s.Stack(1, 0, 1); fr[0].Func != "check" || fr[0].Line != markerLine(t, throwSrc, "throw") {
		t.Fatalf("at %+v", fr[0])
	}
	if d, err := s.ExceptionInfo(1); err != nil || !strings.Contains(d.Description, "odd 3") {
		t.Fatalf("exceptionInfo %+v %v", d, err)
	}

	l2 := newCoreListener()
	s2, err := Launch(Config{Replay: dump}, l2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s2.Terminate)
	s2.ConfigurationDone()
	if st := l2.waitStop(t); st.Reason != ReasonException {
		t.Fatalf("the dump opens with %+v", st)
	}
	if got := line(t, s2); got != markerLine(t, throwSrc, "crash") {
		t.Fatalf("the dump opens at line %d", got)
	}
	if got := eval(t, s2, "ok"); got != "3" {
		t.Fatalf("ok = %s in the dump", got)
	}
}

// TestRecordBudget: past its budget the session stops recording, runs on,
// and says why it cannot go back.
func TestRecordBudget(t *testing.T) {
	// the header (with the source) takes about 440 bytes, each quantum a few
	s, l, path := launchBack(t, backSrc, Config{Quota: 1, RecordBudget: 450})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, backSrc, "loop")}})
	s.ConfigurationDone()
	for i := 0; i < 4; i++ {
		if i > 0 {
			s.Continue(1, false)
		}
		l.waitStop(t)
	}
	err := s.StepBack(1, StepOver)
	if err == nil || !strings.Contains(err.Error(), "going back is no longer possible: the recording reached its budget") {
		t.Fatalf("step back past the budget: %v", err)
	}
	if got := eval(t, s, "i"); got != "3" {
		t.Fatalf("i = %s: the run went on", got)
	}
	s.SetBreakpoints(path, nil)
	s.Continue(1, false)
	if code := l.waitExit(t); code != 0 || l.stdout() != "a 22\ndone 32\n" {
		t.Fatalf("exit %d, stdout %q", code, l.stdout())
	}
}

// TestGoingBackIsDeterministic steps into every concurrency script (quota
// 1, so that threads switch at every safepoint; and quota 3 with a seeded
// pick), notes where main is and the stack of
// every thread at each stop, goes back to the start (reverse continue
// with no breakpoint) and steps again: each stop must be the same, and
// stepping back from the last stop must land on the one before it.
func TestGoingBackIsDeterministic(t *testing.T) {
	files, _ := filepath.Glob("../testdata/run/concurrency/*.n")
	if len(files) < 20 {
		t.Fatalf("%d scripts", len(files))
	}
	for _, f := range files {
		for _, cfg := range []Config{{StopOnEntry: true, Quota: 1, SnapshotInterval: -1}, {StopOnEntry: true, Quota: 1},
			{StopOnEntry: true, Quota: 3, Seed: 7}} {
			t.Run(fmt.Sprintf("%s/quota%d/seed%d/snapshots%v", filepath.Base(f), cfg.Quota, cfg.Seed, cfg.SnapshotInterval >= 0), func(t *testing.T) {
				t.Parallel()
				src, _ := os.ReadFile(f)
				s, l, _ := launchBack(t, string(src), cfg)
				s.ConfigurationDone()
				l.waitStop(t)
				snap := func() (string, bool) {
					ths, err := s.Threads()
					if err != nil {
						return "", false
					}
					var b strings.Builder
					for _, th := range ths {
						fr, _, _ := s.Stack(th.ID, 0, 20)
						fmt.Fprintf(&b, "[%d %s %s]", th.ID, th.State, th.WaitReason)
						for _, x := range fr {
							fmt.Fprintf(&b, " %s:%d", x.Func, x.Line)
						}
					}
					return b.String(), true
				}
				var first []string
				const steps = 25
				stepAll := func(record bool) []string {
					var out []string
					for i := 0; i < steps; i++ {
						st, ok := snap()
						if !ok {
							break
						}
						out = append(out, st)
						if err := s.Step(1, StepIn, false); err != nil {
							break
						}
						select {
						case <-l.stops:
						case <-l.exited:
							return out
						}
					}
					return out
				}
				first = stepAll(true)
				if len(first) < 2 {
					t.Skipf("ended after %d steps", len(first))
				}
				if err := s.checkStopped(); err != nil {
					return // the program ended inside the steps: nothing to go back in
				}
				if err := s.StepBack(1, StepIn); err != nil {
					t.Fatalf("step back: %v", err)
				}
				l.waitStop(t)
				if got, _ := snap(); got != first[len(first)-1] {
					t.Fatalf("step back from the last stop:\n got %s\nwant %s", got, first[len(first)-1])
				}
				if err := s.ReverseContinue(1); err != nil {
					t.Fatal(err)
				}
				if st := l.waitStop(t); st.Reason != ReasonEntry {
					t.Fatalf("reverse continue without breakpoints: %+v", st)
				}
				again := stepAll(false)
				for i := range again {
					if i < len(first) && again[i] != first[i] {
						t.Fatalf("stop %d differs after going back:\n got %s\nwant %s", i, again[i], first[i])
					}
				}
			})
		}
	}
}

// TestReverseContinueHitCount: a hit count is counted from the start, as
// the run counted it: with "%2" (every second hit) reverse continue from
// the fourth hit goes to the second.
func TestReverseContinueHitCount(t *testing.T) {
	s, l, path := launchBack(t, backSrc, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, backSrc, "loop"), HitCondition: "%2"}})
	s.ConfigurationDone()
	l.waitStop(t)
	if got := eval(t, s, "i"); got != "1" {
		t.Fatalf("second hit: i = %s", got)
	}
	s.Continue(1, false)
	l.waitStop(t)
	if got := eval(t, s, "i"); got != "3" {
		t.Fatalf("fourth hit: i = %s", got)
	}
	if err := s.ReverseContinue(1); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	if got := eval(t, s, "i"); got != "1" {
		t.Fatalf("reverse continue: i = %s, want 1 (the second hit)", got)
	}
}

// TestHitCountsAfterGoingBack: going forward again from the past, a hit
// count goes on from the count of that moment: with ">=3", back to the
// start and forward again stops at the third hit again, not the first.
func TestHitCountsAfterGoingBack(t *testing.T) {
	s, l, path := launchBack(t, backSrc, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, backSrc, "loop"), HitCondition: ">=3"}})
	s.ConfigurationDone()
	l.waitStop(t)
	if got := eval(t, s, "i"); got != "2" {
		t.Fatalf("third hit: i = %s", got)
	}
	if err := s.ReverseContinue(1); err != nil {
		t.Fatal(err)
	}
	if st := l.waitStop(t); st.Reason != ReasonEntry {
		t.Fatalf("no earlier stop: %+v, want the start", st)
	}
	s.Continue(1, false)
	l.waitStop(t)
	if got := eval(t, s, "i"); got != "2" {
		t.Fatalf("forward again: i = %s, want 2 (the third hit, counted from the start)", got)
	}
}

// checkpointSrc runs a loop of a few hundred quanta between two
// breakpoints, with objects and a channel in its state.
const checkpointSrc = `import io;
import thread;
class Box { int v; Box(int v) { this.v = v; } }
void feed(Channel<int> c) {
    for (int i = 0; i < 50; i += 1) {
        c.send(i);
    }
}
int main() {
    Channel<int> c = new Channel<int>(4);
    Thread f = thread.spawn(feed, c);
    List<Box> boxes = new List<Box>();
    int sum = 0;
    for (int i = 0; i < 50; i += 1) {
        int v = c.recv();
        boxes.add(new Box(v));
        for (int k = 0; k < 2000; k += 1) {
            sum += k % 3;
        }
        sum += v; // @sum
    }
    f.join();
    io.print("" + sum + " " + boxes.count()); // @end
    return 0;
}
`

// TestGoingBackFromCheckpoints: with checkpoints, going back restores one
// (no re-execution from the start) and lands where going back from the
// start lands: the same line, locals, heap and threads.
func TestGoingBackFromCheckpoints(t *testing.T) {
	type result struct {
		line          int
		i, sum, boxes string
		threads       string
	}
	run := func(cfg Config) ([]result, SnapshotStats) {
		s, l, path := launchBack(t, checkpointSrc, cfg)
		s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, checkpointSrc, "end")}})
		s.ConfigurationDone()
		l.waitStop(t)
		var out []result
		note := func() {
			ths, err := s.Threads()
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, th := range ths {
				fmt.Fprintf(&b, "[%d %s %s]", th.ID, th.State, th.WaitReason)
			}
			out = append(out, result{line(t, s), eval(t, s, "i"), eval(t, s, "sum"), eval(t, s, "boxes.count()"), b.String()})
		}
		// Back from the end into the loop's last statement, then a
		// breakpoint in the loop and reverse continue twice.
		if err := s.StepBack(1, StepOver); err != nil {
			t.Fatal(err)
		}
		l.waitStop(t)
		if err := s.StepBack(1, StepOver); err != nil {
			t.Fatal(err)
		}
		l.waitStop(t)
		note()
		s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, checkpointSrc, "sum")}})
		for range 2 {
			if err := s.ReverseContinue(1); err != nil {
				t.Fatal(err)
			}
			if st := l.waitStop(t); st.Reason != ReasonBreakpoint {
				t.Fatalf("reverse continue: %+v", st)
			}
			note()
		}
		if err := s.StepBack(1, StepIn); err != nil {
			t.Fatal(err)
		}
		l.waitStop(t)
		note()
		return out, s.SnapshotStats()
	}
	plain, st0 := run(Config{SnapshotInterval: -1})
	if st0.Taken != 0 || st0.Restores != 0 {
		t.Fatalf("checkpoints off: %+v", st0)
	}
	ck, st := run(Config{})
	if st.Taken < 20 || st.Restores == 0 {
		t.Fatalf("checkpoints: %+v", st)
	}
	if len(plain) != len(ck) {
		t.Fatalf("%d stops vs %d", len(plain), len(ck))
	}
	for i := range plain {
		if plain[i] != ck[i] {
			t.Fatalf("stop %d: from checkpoints %+v, from the start %+v", i, ck[i], plain[i])
		}
	}
	if plain[1].i != "49" || plain[2].i != "48" || plain[1].boxes != "50" || plain[2].boxes != "49" {
		t.Fatalf("stops %+v", plain)
	}
}

const idSrc = `import io;
class P { int v; P(int v) { this.v = v; } }
int main() {
    P a = new P(1);
    P b = new P(2); // @b
    io.print("" + b); // @print
    io.print("" + a);
    return 0;
}
`

// TestIdentityNumbersReplay: an object's default toString prints its
// identity number, numbered in the order the objects were made; the
// debugger looking at objects does not change them, so going back
// re-executes the same output and the recording does not fork.
func TestIdentityNumbersReplay(t *testing.T) {
	for _, interval := range []time.Duration{-1, time.Nanosecond} {
		s, l, path := launchBack(t, idSrc, Config{SnapshotInterval: interval})
		s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, idSrc, "print")}})
		s.ConfigurationDone()
		l.waitStop(t)
		eval(t, s, "a") // the debugger looks at a (the program's numbers do not change)
		for range 2 {
			if err := s.Step(1, StepOver, false); err != nil {
				t.Fatal(err)
			}
			l.waitStop(t)
		}
		if err := s.StepBack(1, StepOver); err != nil {
			t.Fatal(err)
		}
		l.waitStop(t)
		if err := s.StepBack(1, StepOver); err != nil {
			t.Fatal(err)
		}
		l.waitStop(t)
		if w, _ := s.When(); w.Forked != "" {
			t.Fatalf("interval %v: the re-execution left the recording: %s", interval, w.Forked)
		}
		if err := s.Continue(1, false); err != nil {
			t.Fatal(err)
		}
		<-l.exited
		if out := l.stdout(); out != "P@2\nP@1\n" {
			t.Fatalf("output %q: want a numbered 1 and b 2, in the order they were made, each printed once", out)
		}
	}
}

// TestCheckpointsOfALargeState: a state larger than a quarter of the
// checkpoints' budget is not copied (the copy stops at that size) and no
// more copies are taken; going back still works, from the start.
func TestCheckpointsOfALargeState(t *testing.T) {
	const src = `import io;
class Box { int v; Box(int v) { this.v = v; } }
int main() {
    List<Box> l = new List<Box>();
    for (int i = 0; i < 5000; i += 1) {
        l.add(new Box(i));
    }
    int s = 0;
    for (int i = 0; i < 5000; i += 1) {
        s += l[i].v;
    }
    io.print("" + s); // @end
    return 0;
}
`
	s, l, path := launchBack(t, src, Config{SnapshotBudget: 256 << 10})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, src, "end")}})
	s.ConfigurationDone()
	l.waitStop(t)
	st := s.SnapshotStats()
	if !strings.Contains(st.Stopped, "state is larger than 0.1 MiB") {
		t.Fatalf("stats %+v: want copies stopped for the state's size", st)
	}
	if err := s.StepBack(1, StepOver); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	if got := eval(t, s, "s"); got != "12497500" {
		t.Fatalf("after stepping back s = %s", got)
	}
}
