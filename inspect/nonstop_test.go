package inspect

import (
	"bytes"
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

// nsListener records every event of a session, in order, and wakes
// waitFor at each.
type nsListener struct {
	mu     sync.Mutex
	events []string
	stops  []StopInfo
	out    strings.Builder
	cons   strings.Builder
	exited int
	done   bool
	ping   chan struct{}
}

func newNSListener() *nsListener { return &nsListener{ping: make(chan struct{}, 1)} }

func (l *nsListener) note(f func()) {
	l.mu.Lock()
	f()
	l.mu.Unlock()
	select {
	case l.ping <- struct{}{}:
	default:
	}
}

func (l *nsListener) Stopped(i StopInfo) {
	l.note(func() {
		l.stops = append(l.stops, i)
		l.events = append(l.events, fmt.Sprintf("stopped %d all=%v %s", i.ThreadID, i.AllThreadsStopped, i.Reason))
	})
}
func (l *nsListener) Continued(id int64, all bool) {
	l.note(func() { l.events = append(l.events, fmt.Sprintf("continued %d all=%v", id, all)) })
}
func (l *nsListener) ThreadStarted(int64) {}
func (l *nsListener) ThreadExited(int64)  {}
func (l *nsListener) Exited(code int) {
	l.note(func() { l.exited, l.done = code, true })
}
func (l *nsListener) Output(cat, text string) {
	l.note(func() {
		switch cat {
		case "stdout":
			l.out.WriteString(text)
		case "console":
			l.cons.WriteString(text)
		}
	})
}

// waitFor waits until cond (called with l.mu held) holds.
func (l *nsListener) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		l.mu.Lock()
		ok := cond()
		l.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-l.ping:
		case <-deadline:
			l.mu.Lock()
			defer l.mu.Unlock()
			t.Fatalf("timeout waiting for %s; events %q\nstdout:\n%s\nconsole:\n%s", what, l.events, l.out.String(), l.cons.String())
		}
	}
}

// waitStop waits for the next stop after n stops and returns it.
func (l *nsListener) waitStop(t *testing.T, n int) StopInfo {
	t.Helper()
	l.waitFor(t, fmt.Sprintf("stop %d", n+1), func() bool { return len(l.stops) > n })
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stops[n]
}

func (l *nsListener) nstops() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.stops)
}

func (l *nsListener) stdout() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.out.String()
}

// ticks counts the ticker's lines so far.
func (l *nsListener) ticks() int { return strings.Count(l.stdout(), "tick ") }

func launchNS(t *testing.T, src string, cfg Config) (*Session, *nsListener) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prog.n")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Program = path
	l := newNSListener()
	s, err := Launch(cfg, l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Terminate)
	return s, l
}

// nonStopSrc: a ticker that prints until main tells it to stop, and two
// workers whose @bp line a test holds them at.
const nonStopSrc = `import io;
import thread;
void ticker(AtomicInt stop) {
    int n = 0;
    while (stop.get() == 0) {
        n += 1;
        io.print("tick " + n);
        thread.yield();
    }
    io.print("ticker done");
}
int work(int id) {
    int acc = id * 10;
    acc += 1; // @bp
    acc += 1; // @next
    return acc;
}
int main() {
    AtomicInt stop = new AtomicInt(0);
    Thread t = thread.spawn(ticker, stop);
    Future<int> a = thread.spawn(work, 1);
    Future<int> b = thread.spawn(work, 2);
    int ra = a.get();
    int rb = b.get();
    io.print("results " + ra + " " + rb); // @main
    stop.set(1);
    t.join();
    return 0;
}`

// TestNonStopHold: in non-stop mode a breakpoint holds the worker that
// reached it while the ticker goes on printing; its stack, variables and
// evaluations are read between two dispatches and a variable set, while
// the ticker runs; continued, it finishes with the value set. Two
// workers held at once resume one by one. On one carrier and on four.
func TestNonStopHold(t *testing.T) {
	for _, carriers := range []int{1, 4} {
		t.Run(fmt.Sprint(carriers, " carriers"), func(t *testing.T) {
			s, l := launchNS(t, nonStopSrc, Config{NonStop: true, Carriers: carriers})
			file := s.Program().Main.File
			bps := s.SetBreakpoints(file, []BreakpointSpec{{Line: markerLine(t, nonStopSrc, "bp")}})
			if !bps[0].Verified {
				t.Fatal(bps[0].Message)
			}
			s.ConfigurationDone()
			first := l.waitStop(t, 0)
			second := l.waitStop(t, 1)
			for _, st := range []StopInfo{first, second} {
				if st.AllThreadsStopped || st.Reason != ReasonBreakpoint {
					t.Fatalf("stop %+v: want a breakpoint holding its thread alone", st)
				}
			}
			if got := s.HeldThreads(); len(got) != 2 {
				t.Fatalf("held %v, want the two workers", got)
			}
			// the ticker goes on while both are held
			n := l.ticks()
			l.waitFor(t, "the ticker to go on", func() bool { return strings.Count(l.out.String(), "tick ") > n+20 })
			// the first held worker: its stack, locals and an evaluation,
			// read while the ticker runs, then a variable set
			var err error
			s.Still(func() {
				var frames []FrameInfo
				frames, _, err = s.Stack(first.ThreadID, 0, 0)
				if err != nil {
					return
				}
				if frames[0].Func != "work" || frames[0].Line != markerLine(t, nonStopSrc, "bp") {
					err = fmt.Errorf("top frame %+v", frames[0])
					return
				}
				var sc []Scope
				if sc, err = s.Scopes(first.ThreadID, 0); err != nil {
					return
				}
				var vars []Var
				if vars, err = s.Variables(sc[0].Ref, 0, 0); err != nil {
					return
				}
				var v Var
				if v, err = s.Evaluate(first.ThreadID, 0, "acc + 100", "repl"); err != nil {
					return
				}
				if len(vars) != 1 || vars[0].Name != "acc" || (v.Value != "110" && v.Value != "120") {
					err = fmt.Errorf("locals %+v, acc + 100 = %s", vars, v.Value)
					return
				}
				_, err = s.SetVariable(sc[0].Ref, "acc", "41")
			})
			if err != nil {
				t.Fatal(err)
			}
			// outside Still, reading a held thread while the others run is
			// refused; a running thread's stack too, inside Still
			if _, _, err := s.Stack(first.ThreadID, 0, 0); err != ErrRunning {
				t.Errorf("Stack outside Still: %v, want ErrRunning", err)
			}
			s.Still(func() { _, _, err = s.Stack(2, 0, 0) })
			if err == nil || !strings.Contains(err.Error(), "thread 2 is running") {
				t.Errorf("Stack of the ticker: %v", err)
			}
			n = l.ticks()
			l.waitFor(t, "the ticker to go on after the set", func() bool { return strings.Count(l.out.String(), "tick ") > n+20 })
			// one by one: the first, then the second
			if err := s.Continue(first.ThreadID, false); err != nil {
				t.Fatal(err)
			}
			if err := s.Continue(first.ThreadID, false); err == nil {
				t.Error("continuing a running thread: no error")
			}
			if got := s.HeldThreads(); len(got) != 1 || got[0] != second.ThreadID {
				t.Fatalf("held %v after the first continue, want [%d]", got, second.ThreadID)
			}
			if err := s.Continue(second.ThreadID, false); err != nil {
				t.Fatal(err)
			}
			l.waitFor(t, "the end", func() bool { return l.done })
			out := l.stdout()
			want := "results 43 22"
			if first.ThreadID == 4 {
				want = "results 12 43"
			}
			if !strings.Contains(out, want) || !strings.Contains(out, "ticker done") || l.exited != 0 {
				t.Errorf("exit %d, output ends %q, want %q", l.exited, out[max(0, len(out)-80):], want)
			}
		})
	}
}

// TestNonStopStepPauseAndAll: a step of a held thread holds it again at
// the next line while the others run; a pause of the ticker holds it
// alone; an all-mode breakpoint stops everyone, and continue resumes
// everyone, held threads too.
func TestNonStopStepPauseAndAll(t *testing.T) {
	s, l := launchNS(t, nonStopSrc, Config{NonStop: true})
	file := s.Program().Main.File
	s.SetBreakpoints(file, []BreakpointSpec{{Line: markerLine(t, nonStopSrc, "bp")},
		{Line: markerLine(t, nonStopSrc, "main"), Mode: ModeAll}})
	s.ConfigurationDone()
	a := l.waitStop(t, 0)
	b := l.waitStop(t, 1)
	if err := s.Step(a.ThreadID, StepOver, false); err != nil {
		t.Fatal(err)
	}
	st := l.waitStop(t, 2)
	if st.ThreadID != a.ThreadID || st.Reason != ReasonStep || st.AllThreadsStopped {
		t.Fatalf("step: %+v", st)
	}
	var line int
	s.Still(func() {
		fs, _, err := s.Stack(a.ThreadID, 0, 1)
		if err == nil {
			line = fs[0].Line
		}
	})
	if line != markerLine(t, nonStopSrc, "next") {
		t.Fatalf("after the step: line %d", line)
	}
	// pause the ticker alone
	if err := s.PauseThread(2); err != nil {
		t.Fatal(err)
	}
	p := l.waitStop(t, 3)
	if p.ThreadID != 2 || p.Reason != ReasonPause || p.AllThreadsStopped {
		t.Fatalf("pause: %+v", p)
	}
	n := l.ticks()
	if err := s.Continue(a.ThreadID, false); err != nil {
		t.Fatal(err)
	}
	if err := s.Continue(b.ThreadID, false); err != nil {
		t.Fatal(err)
	}
	// main reaches its all-mode breakpoint: everyone stops
	all := l.waitStop(t, 4)
	if all.ThreadID != 1 || !all.AllThreadsStopped {
		t.Fatalf("all-mode stop: %+v", all)
	}
	if l.ticks() != n {
		t.Errorf("the paused ticker printed")
	}
	ths, err := s.Threads()
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range ths {
		if th.ID == 2 && (!th.Held || th.State != "stopped") {
			t.Errorf("the paused ticker: %+v", th)
		}
	}
	if err := s.Continue(1, false); err != nil {
		t.Fatal(err)
	}
	l.waitFor(t, "the end", func() bool { return l.done })
	if out := l.stdout(); !strings.Contains(out, "results 12 22") || !strings.Contains(out, "ticker done") {
		t.Errorf("output %q", out)
	}
}

// TestNonStopJoinWaitsNote: main waits in a join of a held thread: it
// parks as usual, and the user is told that nothing else can run while
// the debugger holds it (not a deadlock); continued, the program ends.
// A held thread that waits, with everyone else waiting, is a deadlock
// whose report names it.
func TestNonStopJoinWaitsNote(t *testing.T) {
	src := `import io;
import thread;
void worker(Channel<int> c) {
    io.print("worker"); // @bp
    c.recv();
}
int main() {
    Channel<int> c = new Channel<int>(1);
    Thread w = thread.spawn(worker, c);
    c.send(1);
    w.join();
    io.print("joined");
    return 0;
}`
	s, l := launchNS(t, src, Config{NonStop: true})
	s.SetBreakpoints(s.Program().Main.File, []BreakpointSpec{{Line: markerLine(t, src, "bp")}})
	s.ConfigurationDone()
	st := l.waitStop(t, 0)
	l.waitFor(t, "the note", func() bool { return strings.Contains(l.cons.String(), "nothing else can run") })
	l.mu.Lock()
	cons := l.cons.String()
	l.mu.Unlock()
	if !strings.Contains(cons, `thread 1 "main" waits for join thread-2, held by thread 2 "thread-2" (stopped by the debugger)`) {
		t.Errorf("note:\n%s", cons)
	}
	if err := s.Continue(st.ThreadID, false); err != nil {
		t.Fatal(err)
	}
	l.waitFor(t, "the end", func() bool { return l.done })
	if l.exited != 0 || !strings.Contains(l.stdout(), "joined") {
		t.Errorf("exit %d, output %q", l.exited, l.stdout())
	}

	// a real deadlock with a held (waiting) thread
	dead := `import thread;
void worker(Channel<int> c) { c.recv(); }
int main() {
    Channel<int> c = {};
    Thread w = thread.spawn(worker, c);
    thread.yield();
    thread.yield(); // @bp
    w.join();
    return 0;
}`
	s, l = launchNS(t, dead, Config{NonStop: true, Stderr: new(bytes.Buffer)})
	s.SetBreakpoints(s.Program().Main.File, []BreakpointSpec{{Line: markerLine(t, dead, "bp")}})
	s.ConfigurationDone()
	l.waitStop(t, 0) // main held; the worker waits
	if err := s.PauseThread(2); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t, 1)
	if err := s.Continue(1, false); err != nil {
		t.Fatal(err)
	}
	d := l.waitStop(t, 2)
	if d.Reason != ReasonDeadlock || !d.AllThreadsStopped {
		t.Fatalf("%+v, want the deadlock", d)
	}
}

// TestNonStopRecordingReplays: a one-carrier non-stop session records
// its holds and releases: its recording replays exactly without the
// debugger, and going back from a held thread stops every thread and
// finds its way through the holds.
func TestNonStopRecordingReplays(t *testing.T) {
	s, l := launchNS(t, nonStopSrc, Config{NonStop: true, Quota: 50})
	file := s.Program().Main.File
	s.SetBreakpoints(file, []BreakpointSpec{{Line: markerLine(t, nonStopSrc, "bp")}})
	s.ConfigurationDone()
	a := l.waitStop(t, 0)
	b := l.waitStop(t, 1)
	n := l.ticks()
	l.waitFor(t, "ticks", func() bool { return strings.Count(l.out.String(), "tick ") > n+30 })
	if err := s.Continue(a.ThreadID, false); err != nil {
		t.Fatal(err)
	}
	n = l.ticks()
	l.waitFor(t, "ticks", func() bool { return strings.Count(l.out.String(), "tick ") > n+30 })
	// step back from the held worker b: every thread stops, b goes to
	// its previous statement
	if err := s.StepBack(b.ThreadID, StepOver); err != nil {
		t.Fatal(err)
	}
	var back StopInfo
	for i := 2; ; i++ {
		if back = l.waitStop(t, i); back.Back {
			break
		}
	}
	if !back.AllThreadsStopped || back.ThreadID != b.ThreadID {
		t.Fatalf("step back: %+v", back)
	}
	l.mu.Lock()
	note := strings.Contains(l.cons.String(), "going back stops every thread")
	l.mu.Unlock()
	if !note {
		t.Error("no note that going back stopped every thread")
	}
	// forward again: b is held again where it was (the recording's
	// hold and the session's breakpoint), the rest of the recording is
	// re-executed without being shown again, and past its end (new
	// output) b is let go
	shown := len(l.stdout())
	from := l.nstops()
	if err := s.Continue(b.ThreadID, false); err != nil {
		t.Fatal(err)
	}
	l.waitFor(t, "b held again", func() bool {
		for _, st := range l.stops[from:] {
			if st.ThreadID == b.ThreadID && !st.AllThreadsStopped {
				return true
			}
		}
		return false
	})
	l.waitFor(t, "new output", func() bool { return l.out.Len() > shown+200 })
	if err := s.Continue(b.ThreadID, false); err != nil {
		t.Fatal(err)
	}
	l.waitFor(t, "the end", func() bool { return l.done })
	if f := s.tt.j.Forked(); f != "" {
		t.Fatalf("the journal forked: %s", f)
	}

	// the session's recording replays exactly, without the debugger
	log := s.tt.j.Log()
	j, err := record.ResumeJournal(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	run, err := sched.Boot(s.prog, sched.RunConfig{Limits: sched.Limits{Quota: 50}, Stdout: &out, Tap: j})
	if err != nil {
		t.Fatal(err)
	}
	run.Sched.Run()
	if j.Forked() != "" {
		t.Fatalf("the replay forked: %s", j.Forked())
	}
	if out.String() != l.stdout() {
		t.Errorf("the replay printed %d bytes, the session %d", out.Len(), len(l.stdout()))
	}
}
