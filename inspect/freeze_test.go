package inspect

import (
	"strings"
	"testing"
)

const lockProg = `import io;
import thread;
void worker(Mutex m, Channel<int> done) {
    m.lock();
    m.unlock();
    done.send(1);
}
int main() {
    Mutex m = new Mutex();
    Channel<int> done = new Channel<int>(4);
    m.lock();
    Thread t2 = thread.spawn(worker, m, done);
    t2.setName("w2");
    thread.yield();
    m.unlock(); // @unlock
    done.recv();
    io.print("done");
    return 0;
}
`

func TestFrozenHolderReportsWhoWaits(t *testing.T) {
	s, l, path := launchSrc(t, lockProg, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, lockProg, "unlock")}})
	s.ConfigurationDone()
	st := l.waitStop(t)
	s.SetBreakpoints(path, nil)
	// main holds the mutex that w2 waits for: freezing main leaves
	// nothing that can run
	if err := s.Freeze(1); err != nil {
		t.Fatal(err)
	}
	if err := s.Continue(st.ThreadID, false); err != nil {
		t.Fatal(err)
	}
	st = l.waitStop(t)
	if st.Reason != ReasonPause || !strings.Contains(st.Description, "frozen") {
		t.Fatalf("stop %+v, want a pause about frozen threads", st)
	}
	for _, want := range []string{`thread 2 "w2" waits for mutex lock, held by thread 1 "main" (frozen)`, `frozen: thread 1 "main"`} {
		if !strings.Contains(st.Text, want) {
			t.Errorf("report %q lacks %q", st.Text, want)
		}
	}
	if err := s.Thaw(1); err != nil {
		t.Fatal(err)
	}
	s.Continue(st.ThreadID, false)
	if code := l.waitExit(t); code != 0 || l.stdout() != "done\n" {
		t.Fatalf("exit %d, output %q", code, l.stdout())
	}
}

func TestSchedStepOntoABreakpoint(t *testing.T) {
	s, l, path := launchSrc(t, twoThreads, Config{StopOnEntry: true})
	s.ConfigurationDone()
	l.waitStop(t)
	bps := s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, twoThreads, "work")}})
	var d DispatchInfo
	for i := 0; i < 10 && d.Why != "breakpoint"; i++ {
		var err error
		if d, err = s.SchedStep(); err != nil {
			t.Fatal(err)
		}
	}
	if d.Why != "breakpoint" || d.ThreadID != 2 {
		t.Fatalf("dispatch %+v, want thread 2 stopped at the breakpoint", d)
	}
	st := l.waitStop(t)
	if st.ThreadID != 2 || len(st.HitBreakpointIDs) != 1 || st.HitBreakpointIDs[0] != bps[0].ID {
		t.Fatalf("stop %+v, want breakpoint %d on thread 2", st, bps[0].ID)
	}
	if s.StoppedThread() != 2 {
		t.Fatalf("stopped thread %d", s.StoppedThread())
	}
	// continue goes on from there: the next stop is the next hit (i = 1)
	s.Continue(2, false)
	l.waitStop(t)
	if v, err := s.Evaluate(2, 0, "i", "watch"); err != nil || v.Value != "1" {
		t.Fatalf("i = %+v %v, want 1", v, err)
	}
	// a stop queued for a breakpoint that is then deleted is not reported
	s.SetBreakpoints(path, nil)
	s.Continue(2, false)
	if code := l.waitExit(t); code != 3 {
		t.Fatalf("exit %d", code)
	}
}
