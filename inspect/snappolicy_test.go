package inspect

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// The checkpoints' policy on a long session that stops often (issue 22,
// item 8): the tests run on a clock of their own, so that they assert
// the policy — the copies taken, the quanta re-executed — and not the
// machine's speed.

// fakeClock advances by step at every reading and by jumps the test
// makes (a user reading a stop).
type fakeClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

func (c *fakeClock) jump(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// policySrc loops for ever over a heap that stays live; the breakpoint
// at @hit, with a condition, stops every 500 rounds.
const policySrc = `import io;
class Cell {
    public int v;
    public Cell(int v) {
        this.v = v;
    }
}
int main() {
    List<Cell> keep = new List<Cell>();
    for (int i = 0; i < 1000; i += 1) {
        keep.add(new Cell(i));
    }
    int sum = 0;
    for (int round = 0; round < 1000000000; round += 1) {
        Cell c = keep[round % 1000];
        c.v = c.v + 1;
        sum += c.v; // @hit
    }
    io.print("" + sum);
    return 0;
}
`

// launchPolicy starts policySrc with the breakpoint at @hit stopping
// every 500 rounds, on clock c, and waits for the first stop.
func launchPolicy(t *testing.T, c *fakeClock) (*Session, *coreListener) {
	t.Helper()
	s, l, path := launchSrc(t, policySrc, Config{Quota: 20})
	s.tt.snaps.clock.now = c.now
	bps := s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, policySrc, "hit"), Condition: "round % 500 == 499"}})
	if !bps[0].Verified {
		t.Fatal(bps[0].Message)
	}
	s.ConfigurationDone()
	l.waitStop(t)
	return s, l
}

// TestCheckpointsWhileTheUserReads: a session that stops every 25
// quanta and stays stopped ten seconds each time (a user reading, a
// script sending its next request) takes its copies by the run time of
// the program, not dropping the run time around the stops. (The policy
// looked at the clock every 64 quanta and dropped every gap over a
// second as a stop: with a stop in every gap, it counted no run time at
// all and took one copy in 200 s.)
func TestCheckpointsWhileTheUserReads(t *testing.T) {
	c := &fakeClock{t: time.Unix(1e9, 0), step: 5 * time.Millisecond}
	t0 := c.t
	s, l := launchPolicy(t, c)
	const stops = 300
	for i := 0; i < stops; i++ {
		c.jump(10 * time.Second)
		if err := s.Continue(0, false); err != nil {
			t.Fatal(err)
		}
		if st := l.waitStop(t); st.Reason != ReasonBreakpoint {
			t.Fatalf("stop %+v", st)
		}
	}
	st := s.SnapshotStats()
	clk := &s.tt.snaps.clock
	clk.mu.Lock()
	ran := clk.since.Sub(t0) - clk.stopped // (stopped now, since clk.since)
	clk.mu.Unlock()
	// The clock runs 5 ms at each reading: the policy's look every 64
	// quanta (7,500 quanta in all), a copy's two readings (a copy costs
	// 5 ms, so the policy takes one every 100 ms of run) and the stops'.
	if ran < 500*time.Millisecond || ran > 5*time.Second {
		t.Fatalf("the program ran %v by the test's clock", ran)
	}
	want := int(ran / (20 * 5 * time.Millisecond))
	// (each copy starts counting at the next look: a few are lost)
	if st.Taken < want*8/10 || st.Taken > want+1 || st.LastCost != 5*time.Millisecond {
		t.Fatalf("%d copies taken in %v of run (and %d stops of 10 s), want %d (one every 20 times their cost): %+v", st.Taken, ran, stops, want, st)
	}
}

// TestGoingBackNearTheStop: a re-execution that goes back near a stop
// takes a copy there, so that going back again near it (the usual
// session: stop, look back, go on, stop again) re-executes a few quanta,
// not the whole stretch since the last copy the run took going forward
// (seconds of run with a large heap, whose copies the policy spaces by
// their cost).
func TestGoingBackNearTheStop(t *testing.T) {
	c := &fakeClock{t: time.Unix(1e9, 0), step: 5 * time.Millisecond}
	s, l := launchPolicy(t, c)
	s.tt.snaps.mu.Lock()
	s.tt.snaps.interval = time.Hour // no copy going forward but the first
	s.tt.snaps.mu.Unlock()
	for i := 0; i < 20; i++ { // 500 quanta of run
		if err := s.Continue(0, false); err != nil {
			t.Fatal(err)
		}
		l.waitStop(t)
	}
	back := func() int64 {
		t.Helper()
		before := s.SnapshotStats().Reexecuted
		if err := s.StepBack(1, StepIn); err != nil {
			t.Fatal(err)
		}
		if st := l.waitStop(t); st.Reason != ReasonStep {
			t.Fatalf("stop %+v", st)
		}
		if got := eval(t, s, "round % 500"); got != "499" {
			t.Fatalf("stepped back to round %%500 = %s", got)
		}
		return s.SnapshotStats().Reexecuted - before
	}
	if n := back(); n < 400 {
		t.Fatalf("the first step back re-executed %d quanta, want the whole run (from the first copy)", n)
	}
	if st := s.SnapshotStats(); st.Near != 1 || st.Taken != 1 {
		t.Fatalf("the first step back took %d copies near the stop, want 1 (and none going forward): %+v", st.Near, st)
	}
	for i := 0; i < 5; i++ {
		// back to the stop stepped back from, then to the next
		for k := 0; k < 2; k++ {
			if err := s.Continue(0, false); err != nil {
				t.Fatal(err)
			}
			l.waitStop(t)
		}
		// 25 quanta since the last stop
		n := back()
		if n > 25+2 {
			t.Fatalf("step back %d re-executed %d quanta, want at most those since the copy near the last stop", i+2, n)
		}
	}
}

// catchUpStarted waits until a catch-up has started at the present stop,
// and returns it.
func catchUpStarted(t *testing.T, s *Session) *catchUp {
	t.Helper()
	now := s.present()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s.cuMu.Lock()
		cu := s.cuLast
		s.cuMu.Unlock()
		if cu != nil && cu.now == now {
			return cu
		}
		if time.Now().After(deadline) {
			t.Fatalf("no catch-up started at the stop: %+v", s.SnapshotStats())
		}
		time.Sleep(time.Millisecond)
	}
}

// caughtUp waits until a catch-up started at the present stop has ended,
// and returns it.
func caughtUp(t *testing.T, s *Session) *catchUp {
	t.Helper()
	cu := catchUpStarted(t, s)
	<-cu.done
	return cu
}

// catchUpEverywhere lets s catch up at every stop it can (catchup.go),
// whatever the size of its copies and the distance to them, on two
// cores at least.
func catchUpEverywhere(t *testing.T, s *Session) {
	if runtime.GOMAXPROCS(0) < 2 {
		prev := runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	}
	s.tt.snaps.mu.Lock()
	s.tt.snaps.spareMin = 0
	s.tt.snaps.mu.Unlock()
	s.catchUpMinTest.Store(1)
}

// TestCatchUpAtTheStop: at a stop after a long run, the session
// re-executes in the background from the last copy up to the stop and
// takes a copy there (a catch-up), so that the first step back
// re-executes a few quanta — not the whole stretch since the copy the run
// took going forward, as without it (TestGoingBackNearTheStop) — and
// lands where a step back lands without it.
func TestCatchUpAtTheStop(t *testing.T) {
	c := &fakeClock{t: time.Unix(1e9, 0), step: 5 * time.Millisecond}
	s, l, path := launchSrc(t, policySrc, Config{Quota: 20, SnapshotInterval: time.Nanosecond})
	s.tt.snaps.clock.now = c.now
	catchUpEverywhere(t, s)
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, policySrc, "hit"), Condition: "round % 500 == 499"}})
	s.ConfigurationDone()
	l.waitStop(t)
	// copies at every quantum up to the first stop, none after it
	s.tt.snaps.mu.Lock()
	s.tt.snaps.interval = time.Hour
	s.tt.snaps.mu.Unlock()
	for i := 0; i < 20; i++ { // 500 quanta of run
		if err := s.Continue(0, false); err != nil {
			t.Fatal(err)
		}
		l.waitStop(t)
	}
	// (those of the stops before may have taken theirs too, before the
	// next continue came)
	cu := caughtUp(t, s)
	st := s.SnapshotStats()
	if !cu.took || st.CaughtUp < 1 || st.Near != st.CaughtUp {
		t.Fatalf("the catch-up at the last stop took its copy: %v; %d catch-ups ended, %d took a copy near their stop, %d copies near a stop: %+v", cu.took, st.CatchUps, st.CaughtUp, st.Near, st)
	}
	before := st.Reexecuted
	if err := s.StepBack(1, StepIn); err != nil {
		t.Fatal(err)
	}
	if stop := l.waitStop(t); stop.Reason != ReasonStep {
		t.Fatalf("stop %+v", stop)
	}
	if got := eval(t, s, "round % 500"); got != "499" {
		t.Fatalf("stepped back to round %%500 = %s", got)
	}
	if n := s.SnapshotStats().Reexecuted - before; n > 25+2 {
		t.Fatalf("the first step back re-executed %d quanta, want at most those since the copy the catch-up took", n)
	}
}

// TestCatchUpGivesWay: requests that change the session while a
// catch-up runs (breakpoints set and cleared, a step, a continue, a
// variable set) stop it first and work as without it (under -race: the
// catch-up's machine shares the program's code, where traps are
// patched).
func TestCatchUpGivesWay(t *testing.T) {
	c := &fakeClock{t: time.Unix(1e9, 0), step: 5 * time.Millisecond}
	s, l, path := launchSrc(t, policySrc, Config{Quota: 20, SnapshotInterval: time.Nanosecond})
	s.tt.snaps.clock.now = c.now
	catchUpEverywhere(t, s)
	hit := markerLine(t, policySrc, "hit")
	every := func(n int) []BreakpointSpec {
		return []BreakpointSpec{{Line: hit, Condition: fmt.Sprintf("round %% %d == %d", n, n-1)}}
	}
	s.SetBreakpoints(path, every(500))
	s.ConfigurationDone()
	l.waitStop(t)
	s.tt.snaps.mu.Lock()
	s.tt.snaps.interval = time.Hour
	s.tt.snaps.mu.Unlock()
	for i := 0; i < 4; i++ {
		if err := s.Continue(0, false); err != nil {
			t.Fatal(err)
		}
		l.waitStop(t)
		if i < 3 { // (none after the variable set: going back is over)
			catchUpStarted(t, s)
		}
		switch i {
		case 0:
			s.SetBreakpoints(path, every(300))
		case 1:
			if err := s.Step(1, StepOver, false); err != nil {
				t.Fatal(err)
			}
			l.waitStop(t)
		case 2:
			if _, err := s.SetExpression(1, 0, "sum", "0"); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.hush()
	if got := eval(t, s, "round % 300"); got != "299" {
		t.Fatalf("stopped at round %%300 = %s", got)
	}
	if st := s.SnapshotStats(); st.CatchUps < 3 {
		t.Fatalf("%d catch-ups ended, want one at each of the first three stops at least: %+v", st.CatchUps, st)
	}
}
