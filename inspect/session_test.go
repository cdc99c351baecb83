package inspect

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
)

// coreListener records a session's events.
type coreListener struct {
	stops  chan StopInfo
	exited chan int
	mu     sync.Mutex
	out    strings.Builder
	cons   strings.Builder // console output
}

func newCoreListener() *coreListener {
	return &coreListener{stops: make(chan StopInfo, 100), exited: make(chan int, 1)}
}

func (l *coreListener) Stopped(i StopInfo)    { l.stops <- i }
func (l *coreListener) Continued(int64, bool) {}
func (l *coreListener) ThreadStarted(int64)   {}
func (l *coreListener) ThreadExited(int64)    {}
func (l *coreListener) Exited(code int)       { l.exited <- code }
func (l *coreListener) Output(cat, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch cat {
	case "stdout":
		l.out.WriteString(text)
	case "console":
		l.cons.WriteString(text)
	}
}

func (l *coreListener) console() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cons.String()
}

func (l *coreListener) stdout() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.out.String()
}

func (l *coreListener) waitStop(t *testing.T) StopInfo {
	t.Helper()
	select {
	case s := <-l.stops:
		return s
	case code := <-l.exited:
		t.Fatalf("program exited (%d) instead of stopping; output:\n%s", code, l.stdout())
	case <-time.After(10 * time.Second):
		t.Fatal("timeout waiting for a stop")
	}
	return StopInfo{}
}

func (l *coreListener) waitExit(t *testing.T) int {
	t.Helper()
	select {
	case code := <-l.exited:
		return code
	case s := <-l.stops:
		t.Fatalf("unexpected stop %+v", s)
	case <-time.After(10 * time.Second):
		t.Fatal("timeout waiting for the exit")
	}
	return 0
}

// markerLine returns the line of the `// @NAME` marker in src.
func markerLine(t testing.TB, src, name string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, "// @"+name) {
			return i + 1
		}
	}
	t.Fatalf("no marker @%s", name)
	return 0
}

func launchSrc(t testing.TB, src string, cfg Config) (*Session, *coreListener, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prog.n")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Program = path
	l := newCoreListener()
	s, err := Launch(cfg, l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Terminate)
	return s, l, path
}

const twoThreads = `import io;
import thread;
void worker(int n) {
    int sum = 0;
    for (int i = 0; i < n; i += 1) {
        sum += i; // @work
    }
    io.print("worker " + sum);
}
int main() {
    Thread t = thread.spawn(worker, 5);
    int x = 1; // @main
    x = x + 1;
    t.join();
    io.print("main " + x);
    return 3;
}
`

func TestBreakpointInSpawnedThread(t *testing.T) {
	s, l, path := launchSrc(t, twoThreads, Config{})
	bps := s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, twoThreads, "work")}})
	if !bps[0].Verified {
		t.Fatalf("breakpoint not verified: %+v", bps[0])
	}
	s.ConfigurationDone()
	st := l.waitStop(t)
	if st.Reason != ReasonBreakpoint || st.ThreadID != 2 || len(st.HitBreakpointIDs) != 1 || !st.AllThreadsStopped {
		t.Fatalf("stop = %+v, want breakpoint on thread 2", st)
	}
	frames, total, err := s.Stack(2, 0, 10)
	if err != nil || total != 1 || frames[0].Func != "worker" || frames[0].Line != markerLine(t, twoThreads, "work") {
		t.Fatalf("stack = %+v %d %v", frames, total, err)
	}
	// clear it and run to the end
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

func TestBreakpointMovesToCode(t *testing.T) {
	src := "import io;\n\nint main() {\n\n    io.print(1);\n    return 0;\n}\n"
	s, _, path := launchSrc(t, src, Config{})
	bps := s.SetBreakpoints(path, []BreakpointSpec{{Line: 4}, {Line: 40}})
	if !bps[0].Verified || bps[0].Line != 5 || bps[0].Message != "line 4 has no code: moved to line 5" {
		t.Errorf("bp 0 = %+v, want verified at line 5, saying it moved", bps[0])
	}
	if bps[1].Verified || bps[1].Message == "" {
		t.Errorf("bp 1 = %+v, want unverified with a message", bps[1])
	}
}

func TestHitConditionAndStepOver(t *testing.T) {
	s, l, path := launchSrc(t, twoThreads, Config{})
	line := markerLine(t, twoThreads, "work")
	s.SetBreakpoints(path, []BreakpointSpec{{Line: line, HitCondition: "==3"}})
	s.ConfigurationDone()
	st := l.waitStop(t)
	if st.Reason != ReasonBreakpoint || st.ThreadID != 2 {
		t.Fatalf("stop = %+v", st)
	}
	s.SetBreakpoints(path, nil)
	// step over: the for line (its step and its condition, one stop),
	// then the body again
	var lines []int
	for i := 0; i < 2; i++ {
		if err := s.Step(2, StepOver, false); err != nil {
			t.Fatal(err)
		}
		st = l.waitStop(t)
		if st.Reason != ReasonStep || st.ThreadID != 2 {
			t.Fatalf("step stop = %+v", st)
		}
		fr, _, _ := s.Stack(2, 0, 1)
		lines = append(lines, fr[0].Line)
	}
	if lines[0] != line-1 || lines[1] != line {
		t.Fatalf("step lines %v, want [%d %d]", lines, line-1, line)
	}
	s.Continue(2, false)
	if code := l.waitExit(t); code != 3 {
		t.Fatalf("exit %d", code)
	}
}

func TestStopOnEntryStepInAndOut(t *testing.T) {
	src := `import io;
int twice(int v) {
    int r = v * 2; // @twice
    return r;
}
int main() {
    int a = twice(4); // @call
    io.print(a);
    return 0;
}
`
	s, l, _ := launchSrc(t, src, Config{StopOnEntry: true})
	s.ConfigurationDone()
	if st := l.waitStop(t); st.Reason != ReasonEntry || st.ThreadID != 1 {
		t.Fatalf("entry stop = %+v", st)
	}
	fr, _, _ := s.Stack(1, 0, 1)
	if fr[0].Line != markerLine(t, src, "call") {
		t.Fatalf("at entry: line %d, want the first statement", fr[0].Line)
	}
	s.Step(1, StepIn, false)
	if st := l.waitStop(t); st.Reason != ReasonStep {
		t.Fatalf("step in stop = %+v", st)
	}
	fr, total, _ := s.Stack(1, 0, 5)
	if total != 2 || fr[0].Func != "twice" || fr[0].Line != markerLine(t, src, "twice") {
		t.Fatalf("after step in: %+v (total %d)", fr, total)
	}
	s.Step(1, StepOut, false)
	l.waitStop(t)
	fr, total, _ = s.Stack(1, 0, 5)
	if total != 1 || fr[0].Func != "main" {
		t.Fatalf("after step out: %+v", fr)
	}
	s.Continue(1, false)
	l.waitExit(t)
	if l.stdout() != "8\n" {
		t.Fatalf("stdout %q", l.stdout())
	}
}

func TestPauseBusyLoopAndSingleThread(t *testing.T) {
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
    long k = 0;
    while (k < 1000000000) {
        k += 1; // @main
    }
    return 0;
}
`
	s, l, path := launchSrc(t, src, Config{})
	line := markerLine(t, src, "main")
	s.SetBreakpoints(path, []BreakpointSpec{{Line: line, HitCondition: "==5000"}})
	s.ConfigurationDone()
	st := l.waitStop(t)
	if st.Reason != ReasonBreakpoint || st.ThreadID != 1 {
		t.Fatalf("stop = %+v", st)
	}
	ths, _ := s.Threads()
	if len(ths) != 2 || ths[1].Func != "spin" {
		t.Fatalf("threads = %+v", ths)
	}
	// pause a busy program
	s.SetBreakpoints(path, nil)
	s.Continue(1, false)
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	if st = l.waitStop(t); st.Reason != ReasonPause {
		t.Fatalf("stop = %+v", st)
	}
	// single-thread steps of main: the spinner stays frozen where it is
	fr, _, _ := s.Stack(2, 0, 1)
	before := fr[0]
	red := s.Scheduler().Thread(2).Reductions()
	for i := 0; i < 3; i++ {
		if err := s.Step(1, StepOver, true); err != nil {
			t.Fatal(err)
		}
		if st = l.waitStop(t); st.ThreadID != 1 || st.Reason != ReasonStep {
			t.Fatalf("stop = %+v", st)
		}
	}
	if got := s.Scheduler().Thread(2).Reductions(); got != red {
		t.Fatalf("frozen thread ran: %d -> %d reductions (at %+v)", red, got, before)
	}
	s.Terminate()
}

func TestExceptionAndFunctionBreakpoints(t *testing.T) {
	src := `import io;
int risky(int d) {
    return 10 / d; // @throw
}
int main() {
    int a = 0;
    try {
        a = risky(0);
    } catch (DivByZeroException e) {
        io.print("caught");
    }
    a = risky(0);
    return a;
}
`
	s, l, _ := launchSrc(t, src, Config{})
	s.SetExceptionBreakpoints(true, false)
	fbs := s.SetFunctionBreakpoints([]FunctionBreakpointSpec{{Name: "risky"}, {Name: "nope"}})
	if !fbs[0].Verified || fbs[1].Verified {
		t.Fatalf("function breakpoints = %+v", fbs)
	}
	s.ConfigurationDone()
	st := l.waitStop(t)
	if st.Reason != ReasonFunction {
		t.Fatalf("stop = %+v", st)
	}
	s.SetFunctionBreakpoints(nil)
	s.Continue(1, false)
	// the first division is caught: no stop; the second is uncaught
	st = l.waitStop(t)
	if st.Reason != ReasonException {
		t.Fatalf("stop = %+v", st)
	}
	info, err := s.ExceptionInfo(1)
	if err != nil || info.ID != "DivByZeroException" || info.Breakmode != "unhandled" {
		t.Fatalf("exception info = %+v, %v", info, err)
	}
	fr, _, _ := s.Stack(1, 0, 2)
	if fr[0].Func != "risky" || fr[0].Line != markerLine(t, src, "throw") {
		t.Fatalf("stopped at %+v", fr)
	}
	s.Continue(1, false)
	if code := l.waitExit(t); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if l.stdout() != "caught\n" {
		t.Fatalf("stdout %q", l.stdout())
	}
}

func TestDeadlockStops(t *testing.T) {
	src := `import thread;
int main() {
    Channel<int> c = {};
    int v = c.recv();
    return v;
}
`
	s, l, _ := launchSrc(t, src, Config{})
	s.ConfigurationDone()
	st := l.waitStop(t)
	if st.Reason != ReasonDeadlock {
		t.Fatalf("stop = %+v", st)
	}
	ths, err := s.Threads()
	if err != nil || len(ths) != 1 || ths[0].WaitReason != "chan recv" {
		t.Fatalf("threads = %+v %v", ths, err)
	}
	s.Continue(1, false)
	if code := l.waitExit(t); code != 2 {
		t.Fatalf("exit %d", code)
	}
}

func TestSchedulerStepping(t *testing.T) {
	src := `import io;
import thread;
void producer(Channel<int> c) {
    c.send(1);
    c.send(2);
}
int main() {
    Channel<int> c = {};
    Thread p = thread.spawn(producer, c);
    int a = c.recv();
    int b = c.recv();
    p.join();
    io.print(a + b);
    return 0;
}
`
	s, l, _ := launchSrc(t, src, Config{StopOnEntry: true})
	s.ConfigurationDone()
	l.waitStop(t)
	var whys []string
	for i := 0; i < 2; i++ {
		d, err := s.SchedStep()
		if err != nil {
			t.Fatal(err)
		}
		whys = append(whys, fmt.Sprintf("%d:%s", d.ThreadID, d.Why))
	}
	// main parks on recv; the producer hands 1 over to it and parks on
	// its second send, as no receiver waits.
	want := "1:parked on chan recv 2:parked on chan send"
	if got := strings.Join(whys, " "); got != want {
		t.Fatalf("dispatches = %s, want %s", got, want)
	}
	v, err := s.SchedView()
	if err != nil || len(v.RunQueue) != 1 || v.RunQueue[0].ID != 1 || len(v.Parked) != 1 || v.Parked[0].WaitReason != "chan send" {
		t.Fatalf("sched view = %+v %v", v, err)
	}
	// stop when the producer ends
	s.BreakSched("exit", true)
	s.Continue(1, false)
	st := l.waitStop(t)
	if st.Reason != ReasonSched || !strings.Contains(st.Description, "exit of thread 2") {
		t.Fatalf("stop = %+v", st)
	}
	s.BreakSched("exit", false)
	s.Continue(1, false)
	if code := l.waitExit(t); code != 0 || l.stdout() != "3\n" {
		t.Fatalf("exit %d, stdout %q", code, l.stdout())
	}
}

func TestBreakSafepoint(t *testing.T) {
	src := `int main() {
    int i = 0;
    while (i < 100000000) {
        i += 1;
    }
    return 0;
}
`
	for _, carriers := range []int{1, 2} {
		s, l, _ := launchSrc(t, src, Config{StopOnEntry: true, Carriers: carriers})
		s.ConfigurationDone()
		l.waitStop(t)
		if err := s.BreakSafepoint(1); err != nil {
			t.Fatal(err)
		}
		s.Continue(1, false)
		st := l.waitStop(t)
		if st.Reason != ReasonSafepoint || st.ThreadID != 1 {
			t.Fatalf("%d carriers: stop = %+v", carriers, st)
		}
		if r := s.Scheduler().Thread(1).Reductions(); r != 1 {
			t.Fatalf("%d carriers: reductions = %d, want 1 (stopped at the first back-edge)", carriers, r)
		}
		s.Terminate()
	}
}

func TestSingleThreadBlocked(t *testing.T) {
	src := `import thread;
void producer(Channel<int> c) {
    c.send(1); // @send
}
int main() {
    Channel<int> c = {};
    thread.spawn(producer, c);
    int v = c.recv(); // @recv
    return v;
}
`
	s, l, path := launchSrc(t, src, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, src, "recv")}})
	s.ConfigurationDone()
	if st := l.waitStop(t); st.ThreadID != 1 {
		t.Fatalf("stop = %+v", st)
	}
	// main alone cannot receive: the producer is frozen
	s.Continue(1, true)
	st := l.waitStop(t)
	if st.Reason != ReasonPause || !strings.Contains(st.Text, "chan recv") {
		t.Fatalf("stop = %+v, want a pause saying main waits for chan recv", st)
	}
	s.Continue(1, false)
	if code := l.waitExit(t); code != 1 {
		t.Fatalf("exit %d", code)
	}
}

// TestTwoCarriersNoLostBreakpoint: two threads reach the same breakpoint
// on two carriers, possibly at the same instant; both hits are reported.
func TestTwoCarriersNoLostBreakpoint(t *testing.T) {
	src := `import io;
import thread;
void worker(int n) {
    long s = 0;
    for (int i = 0; i < 300000; i += 1) {
        s += i;
    }
    long done = s + n; // @bp
    io.print(done > 0);
}
int main() {
    Thread a = thread.spawn(worker, 1);
    Thread b = thread.spawn(worker, 2);
    a.join();
    b.join();
    return 0;
}
`
	for round := 0; round < 5; round++ {
		s, l, path := launchSrc(t, src, Config{Carriers: 2})
		s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, src, "bp")}})
		s.ConfigurationDone()
		seen := map[int64]bool{}
		for i := 0; i < 2; i++ {
			st := l.waitStop(t)
			if st.Reason != ReasonBreakpoint {
				t.Fatalf("stop = %+v", st)
			}
			seen[st.ThreadID] = true
			if err := s.Continue(st.ThreadID, false); err != nil {
				t.Fatal(err)
			}
		}
		if !seen[2] || !seen[3] {
			t.Fatalf("round %d: breakpoint stops on threads %v, want 2 and 3", round, seen)
		}
		if code := l.waitExit(t); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if got := l.stdout(); got != "true\ntrue\n" {
			t.Fatalf("stdout %q", got)
		}
	}
}

// A pause of a program whose scheduler has ended — the moment between
// continuing from a deadlock's stop and the program's end — reports no
// "Paused" stop before the end (the fuzz of time travel met it as a pause
// racing with that continue). Here that moment is held: the session is
// made to run again as Continue does, without the end that follows.
func TestPauseOfAnEndedProgramReportsNothing(t *testing.T) {
	s, l, _ := launchSrc(t, `import io;
int main() {
    Channel<int> c = {};
    io.print("waiting");
    return c.recv();
}
`, Config{})
	s.ConfigurationDone()
	if st := <-l.stops; st.Reason != ReasonDeadlock {
		t.Fatalf("stop %+v, want the deadlock", st)
	}
	s.mu.Lock()
	s.r.state = stateRunning // (as Continue makes it, before the end)
	s.mu.Unlock()
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	select {
	case st := <-l.stops:
		t.Fatalf("a pause of the ended program reported %+v", st)
	default:
	}
	s.mu.Lock()
	s.r.state = stateStopped
	s.mu.Unlock()
	if err := s.Continue(0, false); err != nil {
		t.Fatal(err)
	}
	if code := <-l.exited; code == 0 {
		t.Fatalf("exit code %d after a deadlock", code)
	}
}

// An event of a run the session has left for another (going back), which
// its carrier delivers after the session took the new run's journal,
// does not move the timeline's last moment: its offset is of the old
// journal (reading the new one raced with the new run's carrier).
func TestEventOfALeftRunIsNotOfTheTimeline(t *testing.T) {
	s, l, _ := launchSrc(t, `import io;
int main() {
    int sum = 0;
    for (int i = 0; i < 1000; i += 1) {
        sum += i;
    }
    io.print(sum);
    return 0;
}
`, Config{StopOnEntry: true, Quota: 50})
	s.ConfigurationDone()
	<-l.stops
	if err := s.Step(1, StepOver, false); err != nil {
		t.Fatal(err)
	}
	<-l.stops
	before := s.tt.lastMoment()
	th := s.r.sch.Main()
	ev := sched.Event{Kind: sched.EventPreempt, Thread: th}
	left := record.NewJournal(s.tt.j.Header())
	if s.tt.noteEvent(ev, left); s.tt.lastMoment() != before {
		t.Fatalf("an event of another journal moved the last moment from %+v to %+v", before, s.tt.lastMoment())
	}
	if s.tt.noteEvent(ev, s.tt.j); s.tt.lastMoment() == before {
		t.Fatal("an event of the session's journal did not move the last moment")
	}
}
