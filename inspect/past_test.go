package inspect

import (
	"errors"
	"os"
	"strings"
	"testing"
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
