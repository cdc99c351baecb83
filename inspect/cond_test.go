package inspect

import (
	"strings"
	"testing"
)

func TestConditionCheckedWhenSet(t *testing.T) {
	s, l, path := launchSrc(t, twoThreads, Config{})
	line := markerLine(t, twoThreads, "work")
	bps := s.SetBreakpoints(path, []BreakpointSpec{
		{Line: line, Condition: "i +"},
		{Line: line, Condition: "i"},
		{Line: line, Condition: "nosuch == 1"},
		{Line: line, LogMessage: "i is {i"},
		{Line: line, LogMessage: "i is {nosuch}"},
		{Line: line, Condition: "i == 3"},
	})
	for i, want := range []string{`condition "i +"`, `condition "i" is int, not bool`, `nosuch`, `unclosed {`, `log message {nosuch}: column 1: undefined: nosuch`} {
		if bps[i].Verified || !strings.Contains(bps[i].Message, want) {
			t.Errorf("breakpoint %d = %+v, want unverified with %q", i, bps[i], want)
		}
	}
	if !bps[5].Verified {
		t.Fatalf("i == 3 refused: %+v", bps[5])
	}
	s.ConfigurationDone()
	st := l.waitStop(t)
	if len(st.HitBreakpointIDs) != 1 || st.HitBreakpointIDs[0] != bps[5].ID {
		t.Fatalf("stop %+v, want breakpoint %d", st, bps[5].ID)
	}
	if v, err := s.Evaluate(st.ThreadID, 0, "i", "watch"); err != nil || v.Value != "3" {
		t.Fatalf("i = %+v %v", v, err)
	}
}

func TestBreakpointKeepsIdentityAndIgnore(t *testing.T) {
	s, l, path := launchSrc(t, twoThreads, Config{})
	work, mainLine := markerLine(t, twoThreads, "work"), markerLine(t, twoThreads, "main")
	first := s.SetBreakpoints(path, []BreakpointSpec{{Line: work}})
	s.ConfigurationDone()
	for i := 0; i < 2; i++ {
		st := l.waitStop(t)
		s.Continue(st.ThreadID, false)
	}
	st := l.waitStop(t)
	// the client sends the whole file again, with one more breakpoint
	again := s.SetBreakpoints(path, []BreakpointSpec{{Line: mainLine}, {Line: work}})
	if again[1].ID != first[0].ID || again[1].Hits != 3 {
		t.Fatalf("after a second setBreakpoints: %+v, want id %d with 3 hits", again[1], first[0].ID)
	}
	if err := s.IgnoreBreakpoint(first[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.IgnoreBreakpoint(999, 1); err == nil {
		t.Error("ignore of an unknown breakpoint accepted")
	}
	s.SetBreakpoints(path, []BreakpointSpec{{Line: work}})
	s.Continue(st.ThreadID, false)
	// hit 4 is ignored: the next stop is hit 5 (i == 4)
	st = l.waitStop(t)
	if v, err := s.Evaluate(st.ThreadID, 0, "i", "watch"); err != nil || v.Value != "4" {
		t.Fatalf("after ignore 1: i = %+v %v, want 4", v, err)
	}
	if b := s.Breakpoints(); len(b) != 1 || b[0].Hits != 5 || b[0].Ignore != 0 {
		t.Fatalf("breakpoints %+v, want 5 hits", b)
	}
}

// BenchmarkBreakpointCondition measures one evaluation of a breakpoint
// condition (`i == -1`, false: the thread goes on), as a hit pays it:
// compiled once when the breakpoint is set, and, for comparison, compiled
// at every hit.
func BenchmarkBreakpointCondition(b *testing.B) {
	s, l, path := launchSrc(b, twoThreads, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(b, twoThreads, "work")}})
	s.ConfigurationDone()
	st := <-l.stops
	th, err := s.thread(st.ThreadID)
	if err != nil {
		b.Fatal(err)
	}
	top := th.Frame(0)
	k := trapKey{top.Fn, top.PC}
	bp := &bp{fn: top.Fn, pc: top.PC, cond: "i == -1"}
	if err := s.prepare(bp); err != nil {
		b.Fatal(err)
	}
	b.Run("compiled-once", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if ok, err := s.evalCond(th, bp, k); ok || err != nil {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("compiled-per-hit", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if v, _, err := s.evalInFrame(th, 0, bp.cond, false); v.B() || err != nil {
				b.Fatal(err)
			}
		}
	})
}
