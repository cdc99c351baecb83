package inspect

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// pastSrc is the program of the tests of the questions about the past:
// three workers and a lost update (testdata/dap/past.n).
func pastSrc(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("../testdata/dap/past.n")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLastWritesLostUpdate: the latest writes to the shared counter name
// the worker that lost the others' updates, its line and 3 -> 1 (the
// value the field held just before, not the 0 the worker read).
func TestLastWritesLostUpdate(t *testing.T) {
	src := pastSrc(t)
	s, _, _ := startAt(t, src, "", "bp done")
	w, err := s.LastWrites(DataLocation{Expr: "c.count"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	update := markerLine(t, src, "bp update")
	var got []string
	for _, x := range w.Writes {
		if x.Line != update || x.Func != "Worker.run" {
			t.Errorf("write %+v: want Worker.run at line %d", x, update)
		}
		got = append(got, x.ThreadName+" "+x.Old+" -> "+x.New)
	}
	want := "thread-2 3 -> 1; thread-4 2 -> 3; thread-3 0 -> 2"
	if strings.Join(got, "; ") != want {
		t.Fatalf("writes %q, want %q", strings.Join(got, "; "), want)
	}
	if w.Complete {
		t.Errorf("three writes asked and found: complete is for fewer")
	}
}

// TestTravelToWrite: travelling to the moment of a write stops the
// writing thread at the write, about to run it (the field still holds
// the old value); a step makes it, and going back works from there.
func TestTravelToWrite(t *testing.T) {
	src := pastSrc(t)
	s, l, _ := startAt(t, src, "", "bp done")
	w, err := s.LastWrites(DataLocation{Expr: "c.count"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Writes) != 1 {
		t.Fatalf("writes %+v", w)
	}
	wr := w.Writes[0]
	if err := s.Travel(wr.Moment); err != nil {
		t.Fatal(err)
	}
	st := l.stop(t)
	if st.Reason != ReasonGoto || st.ThreadID != wr.ThreadID {
		t.Fatalf("stop %+v, want goto on thread %d", st, wr.ThreadID)
	}
	fr, _, err := s.Stack(wr.ThreadID, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if fr[0].Line != markerLine(t, src, "bp update") {
		t.Fatalf("at line %d", fr[0].Line)
	}
	val := func(expr string) string {
		v, err := s.Evaluate(wr.ThreadID, 0, expr, EvalContext("watch"))
		if err != nil {
			return err.Error()
		}
		return v.Value
	}
	if got := val("c.count") + " " + val("seen") + " " + val("v"); got != "3 0 1" {
		t.Fatalf("c.count seen v = %s, want 3 0 1", got)
	}
	if err := s.Step(wr.ThreadID, StepOver, false); err != nil {
		t.Fatal(err)
	}
	l.stop(t)
	if got := val("c.count"); got != "1" {
		t.Fatalf("after the write c.count = %s", got)
	}
	if err := s.StepBack(wr.ThreadID, StepOver); err != nil {
		t.Fatal(err)
	}
	l.stop(t)
	if got := val("c.count"); got != "3" {
		t.Fatalf("back before the write c.count = %s", got)
	}
}

// TestMomentErrors: a moment of another recording, a made-up one, and a
// location that is not one are refused with a reason.
func TestMomentErrors(t *testing.T) {
	src := pastSrc(t)
	s1, _, _ := startAt(t, src, "", "bp done")
	s2, _, _ := startAt(t, src, "", "bp done")
	w, err := s1.LastWrites(DataLocation{Expr: "c.count"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	err = s2.Travel(w.Writes[0].Moment)
	var me *MomentError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "another recording") {
		t.Fatalf("a moment of another session: %v", err)
	}
	if err := s2.Travel("not-a-moment"); !errors.As(err, &me) || !strings.Contains(err.Error(), "not a moment") {
		t.Fatalf("a made-up moment: %v", err)
	}
	for expr, want := range map[string]string{
		"c.count +":   "column",
		"c.nothing":   "has no field nothing",
		"c.count + 1": "not a location",
		"nosuch":      "nosuch",
	} {
		if _, err := s1.LastWrites(DataLocation{Expr: expr}, 1); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("lastWrites %q: %v, want an error with %q", expr, err, want)
		}
	}
}

// TestQueryLikeLogpoint: a query of the update line gives, in order,
// what a logpoint there prints in a fresh run, with the condition too;
// a line with no code and an expression that does not compile are
// refused with a reason.
func TestQueryLikeLogpoint(t *testing.T) {
	src := pastSrc(t)
	update := markerLine(t, src, "bp update")
	s, _, _ := startAt(t, src, "", "bp done")
	file := mainFile(s)
	for _, cond := range []string{"", "v == 1"} {
		q, err := s.Query(QuerySpec{File: file, Line: update, Expr: `"count " + c.count + " v " + v`, Condition: cond}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range q.Hits {
			got = append(got, h.Value)
		}
		// the same logpoint in a fresh run
		fresh, fl, _ := launchSrc(t, src, Config{})
		for _, b := range fresh.SetBreakpoints(mainFile(fresh), []BreakpointSpec{{Line: update, Condition: cond, LogMessage: `count {c.count} v {v}`}}) {
			if !b.Verified {
				t.Fatalf("logpoint: %+v", b)
			}
		}
		fresh.ConfigurationDone()
		fl.waitExit(t)
		want := strings.TrimSpace(fl.console())
		if strings.Join(got, "\n") != want || q.Total != len(got) {
			t.Fatalf("query if %q: %q (total %d), a logpoint prints %q", cond, got, q.Total, want)
		}
		if cond == "" && len(got) != 3 {
			t.Fatalf("query: %d hits, want 3", len(got))
		}
	}
	if _, err := s.Query(QuerySpec{File: file, Line: markerLine(t, src, "bp update") + 3, Expr: "v"}, nil); err == nil || !strings.Contains(err.Error(), "has no code") {
		t.Errorf("a line with no code: %v", err)
	}
	if _, err := s.Query(QuerySpec{File: file, Line: update, Expr: "v +"}, nil); err == nil || !strings.Contains(err.Error(), "column") {
		t.Errorf("an expression that does not compile: %v", err)
	}
	if _, err := s.Query(QuerySpec{File: file, Line: update, Expr: "v", Condition: "v"}, nil); err == nil || !strings.Contains(err.Error(), "not bool") {
		t.Errorf("a condition that is not bool: %v", err)
	}
}

// mainFile returns the file of the program's main.
func mainFile(s *Session) string {
	for _, fn := range s.Program().Funcs {
		if fn.Name == "main" {
			return fn.File
		}
	}
	return ""
}

// TestTimelineWorker: a worker's timeline shows its spawn (by main,
// where), its park on its channel, the wake by main, its runs and its
// end; the debugger's stop shows in main's.
func TestTimelineWorker(t *testing.T) {
	src := pastSrc(t)
	s, _, _ := startAt(t, src, "", "bp done")
	tl, err := s.Timeline(2, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range tl.Entries {
		k := e.Kind
		switch e.Kind {
		case TimelineSpawned:
			k += fmt.Sprintf(" by %d at %d", e.ByThread, e.Line)
		case TimelineParked:
			k += fmt.Sprintf(" %s at %d", e.Reason, e.Line)
			if !strings.HasPrefix(e.On, "Channel<int>") {
				t.Errorf("parked on %q", e.On)
			}
		case TimelineWoken:
			k += fmt.Sprintf(" by %d", e.ByThread)
		}
		kinds = append(kinds, k)
	}
	want := fmt.Sprintf("spawned by 1 at %d; ran; parked chan recv at %d; woken by 1; ran; ended",
		markerLine(t, src, "bp spawnA"), markerLine(t, src, "bp recv"))
	if got := strings.Join(kinds, "; "); got != want {
		t.Fatalf("timeline of thread 2:\n%s\nwant\n%s", got, want)
	}
	if tl.Name != "thread-2" {
		t.Errorf("name %q", tl.Name)
	}
	ran := tl.Entries[4]
	if ran.Quanta != 4 || !ran.Preempted && ran.Quanta < 2 {
		t.Errorf("the second run: %+v (3 yields: 4 quanta)", ran)
	}
	main, err := s.Timeline(1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	last := main.Entries[len(main.Entries)-1]
	if main.Entries[0].Kind != TimelineStarted || last.Kind != TimelineStopped || last.Line != markerLine(t, src, "bp done") {
		t.Fatalf("main's timeline: %+v ... %+v", main.Entries[0], last)
	}
}

// TestOriginAcrossChannels: the origin of main's last value received
// crosses the results channel to the worker that sent it, reads the
// counter's field where that worker wrote it, and follows the sum's
// operand v across the worker's inbox to main's send of a literal.
func TestOriginAcrossChannels(t *testing.T) {
	src := pastSrc(t)
	s, _, _ := startAt(t, src, "", "bp done")
	steps, err := s.Origin(1, 0, "last", 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, st := range steps {
		lines = append(lines, fmt.Sprintf("%s%s %d:%d=%s", strings.Repeat("  ", st.Level), st.Kind, st.ThreadID, st.Line, st.Value))
	}
	line := func(m string) int { return markerLine(t, src, m) }
	want := []string{
		fmt.Sprintf("assigned 1:%d=1", line("bp collect")),
		fmt.Sprintf("received 1:%d=1", line("bp collect")),
		fmt.Sprintf("sent 2:%d=1", line("bp send")),
		fmt.Sprintf("read 2:%d=1", line("bp send")),
		fmt.Sprintf("written 2:%d=1", line("bp update")),
		fmt.Sprintf("computed 2:%d=1", line("bp update")),
		fmt.Sprintf("  assigned 2:%d=1", line("bp recv")),
		fmt.Sprintf("  received 2:%d=1", line("bp recv")),
		fmt.Sprintf("  sent 1:%d=1", line("bp sendA")),
		fmt.Sprintf("  assigned 1:%d=1", line("bp sendA")-1),
		fmt.Sprintf("  literal 1:%d=1", line("bp sendA")-1),
		fmt.Sprintf("  assigned 2:%d=0", line("bp read")),
		fmt.Sprintf("  read 2:%d=0", line("bp read")),
		"  initial 0:0=",
	}
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("origin of last:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if !strings.Contains(steps[4].Text, "3 -> 1") || !strings.Contains(steps[1].Text, `sent by thread 2 "thread-2"`) {
		t.Errorf("texts: %q, %q", steps[4].Text, steps[1].Text)
	}
	// Each step with a moment can be travelled to: the sender's.
	if err := s.Travel(steps[2].Moment); err != nil {
		t.Fatal(err)
	}
	fr, _, err := s.Stack(2, 0, 1)
	if err != nil || fr[0].Line != line("bp send") {
		t.Fatalf("travel to the send: %v %+v", err, fr)
	}
	// A depth of 1 stops after the first hop.
	steps, err = s.Origin(1, 0, "last", 1)
	if err == nil && len(steps) > 0 && steps[len(steps)-1].Kind != OriginLimit {
		t.Errorf("depth 1: %+v", steps)
	}
}

// startPast launches the past program with cfg, stops at its marker
// "bp done" and returns the session.
func startPast(t *testing.T, cfg Config) (*Session, string) {
	t.Helper()
	src := pastSrc(t)
	s, l, _ := launchSrc(t, src, cfg)
	if b := s.SetBreakpoints(mainFile(s), []BreakpointSpec{{Line: markerLine(t, src, "bp done")}}); !b[0].Verified {
		t.Fatalf("breakpoint %+v", b)
	}
	s.ConfigurationDone()
	l.waitStop(t)
	return s, src
}

// pastAnswers renders every question about the past of the program at
// its end, without the moments (which name one session's recording).
func pastAnswers(t *testing.T, s *Session, src string) string {
	t.Helper()
	var b strings.Builder
	w, err := s.LastWrites(DataLocation{Expr: "c.count"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range w.Writes {
		fmt.Fprintf(&b, "write %d %s:%d %s -> %s\n", x.ThreadID, x.Func, x.Line, x.Old, x.New)
	}
	fmt.Fprintf(&b, "complete %v\n", w.Complete)
	q, err := s.Query(QuerySpec{File: mainFile(s), Line: markerLine(t, src, "bp update"), Expr: "seen"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range q.Hits {
		fmt.Fprintf(&b, "hit %d %s\n", h.ThreadID, h.Value)
	}
	for _, id := range []int64{1, 2, 3, 4} {
		tl, err := s.Timeline(id, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tl.Entries {
			fmt.Fprintf(&b, "timeline %d %s %d %d %s %d\n", id, e.Kind, e.Quanta, e.Reductions, e.Reason, e.Line)
		}
	}
	steps, err := s.Origin(1, 0, "last", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		fmt.Fprintf(&b, "origin %d %s %d:%d %s\n", st.Level, st.Kind, st.ThreadID, st.Line, st.Value)
	}
	return b.String()
}

// TestPastFromCheckpoints: the answers are the same whether the
// recording is re-executed from the start or in stretches from a
// checkpoint at every quantum (side by side).
func TestPastFromCheckpoints(t *testing.T) {
	s1, src := startPast(t, Config{SnapshotInterval: -1})
	s2, _ := startPast(t, Config{SnapshotInterval: time.Nanosecond})
	if st := s2.SnapshotStats(); st.Kept < 5 {
		t.Fatalf("checkpoints: %+v", st)
	}
	a1, a2 := pastAnswers(t, s1, src), pastAnswers(t, s2, src)
	if a1 != a2 {
		t.Fatalf("from the start:\n%s\nfrom checkpoints:\n%s", a1, a2)
	}
	if st := s2.SnapshotStats(); st.Restores == 0 {
		t.Fatalf("no re-execution started from a checkpoint: %+v", st)
	}
}

// TestOriginStopsAtLoop: a value a loop accumulates is followed to the
// statement of the loop, and not back through each of its iterations.
func TestOriginStopsAtLoop(t *testing.T) {
	src := `import io;
int main() {
    int s = 0;
    for (int i = 0; i < 1000; i += 1) {
        s = s + i; // @acc
    }
    io.print("" + s); // @end
    return 0;
}
`
	s, _, _ := startAt(t, src, "", "end")
	steps, err := s.Origin(1, 0, "s", 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, st := range steps {
		kinds = append(kinds, fmt.Sprintf("%d %s %d", st.Level, st.Kind, st.Line))
	}
	acc := markerLine(t, src, "acc")
	// s = s + i: the sum of the earlier s (the loop: not followed) and i
	// (the loop's counter: its increment, whose i is the loop again)
	want := []string{fmt.Sprintf("0 assigned %d", acc), fmt.Sprintf("0 computed %d", acc), fmt.Sprintf("1 loop %d", acc)}
	if len(kinds) < 4 || strings.Join(kinds[:3], "; ") != strings.Join(want, "; ") || len(steps) > 12 {
		t.Fatalf("origin of s:\n%s", strings.Join(kinds, "\n"))
	}
}

// TestMomentAfterRestart: a restart makes a new recording; the moments
// of the old one are refused.
func TestMomentAfterRestart(t *testing.T) {
	src := pastSrc(t)
	s, l, _ := startAt(t, src, "", "bp done")
	w, err := s.LastWrites(DataLocation{Expr: "c.count"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := w.Writes[0].Moment
	if err := s.CheckMoment(m); err != nil {
		t.Fatalf("the session's own moment: %v", err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.exited: // (the old run's end, if it is reported)
	default:
	}
	s.ConfigurationDone()
	l.stop(t)
	if err := s.CheckMoment(m); err == nil || !strings.Contains(err.Error(), "another recording") {
		t.Fatalf("a moment of the recording before the restart: %v", err)
	}
}

// TestCheckpointBeforeIdleThread: a thread that spends no reductions
// (it waits on a channel, then writes a field) still has checkpoints
// before its later moments — those taken while it was parked — so that
// answers about it re-execute from them, not from the start.
func TestCheckpointBeforeIdleThread(t *testing.T) {
	s, _ := startPast(t, Config{SnapshotInterval: time.Nanosecond})
	w, err := s.LastWrites(DataLocation{Expr: "c.count"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	// the oldest write: thread 3's, which waited on its channel and
	// wrote without a reduction
	m, err := s.decodeMoment(w.Writes[2].Moment)
	if err != nil {
		t.Fatal(err)
	}
	if m.red != 0 || m.thread != 3 {
		t.Fatalf("the writer: thread %d, %d reductions", m.thread, m.red)
	}
	before := 0
	for _, sp := range s.tt.snaps.list {
		if sp.beforeMoment(m) {
			before++
		}
	}
	// the checkpoints taken while the writer had 3 reductions and had not
	// reached the write count too (beforeRed alone would not count them)
	strict := 0
	for _, sp := range s.tt.snaps.list {
		if sp.beforeRed(m.thread, m.red) {
			strict++
		}
	}
	if before <= strict {
		t.Fatalf("%d checkpoints before the write, %d by reductions alone: the ones at the same reductions are not used", before, strict)
	}
}
