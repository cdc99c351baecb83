package inspect

import (
	"os"
	"testing"
)

const factProg = `import io;
int fact(int n) {
    if (n <= 1) {
        return 1; // @base
    }
    return n * fact(n - 1); // @rec
}
int twice(int v) {
    return v * 2; // @twice
}
int main() {
    int sum = 3;
    sum = twice(sum); // @call
    io.print("sum ${sum}"); // @after
    int f = fact(3); // @fact
    io.print("f ${f}");
    return 0;
}
`

// stepOut steps out of thread 1's top frame and returns the stop, the
// top frame's function and line, and the Return value entry ("" if none).
func stepOut(t *testing.T, s *Session, l *coreListener) (StopInfo, string, int, string) {
	t.Helper()
	if err := s.Step(1, StepOut, false); err != nil {
		t.Fatal(err)
	}
	st := l.waitStop(t)
	fr, _, err := s.Stack(1, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, locals := scopeVars(t, s, 1, 0, ReturnValueName)
	ret := ""
	for _, v := range locals {
		if v.Name == ReturnValueName {
			ret = v.Type + " " + v.Value
		}
	}
	return st, fr[0].Func, fr[0].Line, ret
}

func TestStepOutStopsInEachCallerWithTheReturnValue(t *testing.T) {
	s, l, path := launchSrc(t, factProg, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, factProg, "base")}})
	s.ConfigurationDone()
	l.waitStop(t)
	s.SetBreakpoints(path, nil)
	rec := markerLine(t, factProg, "rec")
	// fact(1) returns to fact(2), fact(2) to fact(3): each caller, on the
	// call's line, with what the callee returned
	for _, want := range []string{"int 1", "int 2"} {
		st, fn, line, ret := stepOut(t, s, l)
		if st.Reason != ReasonStep || st.Description != "Step out" || fn != "fact" || line != rec || ret != want {
			t.Fatalf("step out: %+v in %s line %d returned %q; want fact line %d returning %q", st, fn, line, ret, rec, want)
		}
		if st.Text != "fact returned "+want[4:] {
			t.Errorf("stop text %q", st.Text)
		}
	}
	if v, err := s.Evaluate(1, 0, "n", "watch"); err != nil || v.Value != "3" {
		t.Fatalf("n = %+v %v, want 3", v, err)
	}
	_, fn, line, ret := stepOut(t, s, l)
	if fn != "main" || line != markerLine(t, factProg, "fact") || ret != "int 6" {
		t.Fatalf("out of fact(3): %s line %d %q", fn, line, ret)
	}
	// the value is the stop's only: a step on drops it
	if err := s.Step(1, StepOver, false); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	if _, locals := scopeVars(t, s, 1, 0, "Locals"); len(locals) > 0 && locals[0].Name == ReturnValueName {
		t.Errorf("Return value still shown after a step: %+v", locals)
	}
}

func TestStepOutShowsTheCallLine(t *testing.T) {
	s, l, path := launchSrc(t, factProg, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, factProg, "twice")}})
	s.ConfigurationDone()
	l.waitStop(t)
	// `sum = twice(sum)`: the result goes straight into sum, and the
	// caller's next instruction is the next line's; the stop shows the
	// call's line all the same
	_, fn, line, ret := stepOut(t, s, l)
	if fn != "main" || line != markerLine(t, factProg, "call") || ret != "int 6" {
		t.Fatalf("step out of twice: %s line %d %q", fn, line, ret)
	}
	// next: the next line, nothing skipped
	if err := s.Step(1, StepOver, false); err != nil {
		t.Fatal(err)
	}
	st := l.waitStop(t)
	fr, _, _ := s.Stack(1, 0, 1)
	if st.Reason != ReasonStep || fr[0].Line != markerLine(t, factProg, "after") {
		t.Fatalf("next after the step out: %+v line %d, want line %d", st, fr[0].Line, markerLine(t, factProg, "after"))
	}
	if l.stdout() != "" {
		t.Fatalf("the next ran the print: %q", l.stdout())
	}
	s.Step(1, StepOver, false)
	l.waitStop(t)
	if l.stdout() != "sum 6\n" {
		t.Fatalf("stdout %q", l.stdout())
	}
}

func TestScalarHasNoChildrenInAReusedRegister(t *testing.T) {
	src, err := os.ReadFile("../testdata/run/concurrency/producer.n")
	if err != nil {
		t.Fatal(err)
	}
	s, l, path := launchSrc(t, string(src), Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: 20}}) // thread.join(producer)
	s.ConfigurationDone()
	l.waitStop(t)
	// sum's register held the Thread before: an int has no children
	v, err := s.Evaluate(1, 0, "sum", "repl")
	if err != nil || v.Value != "55" || v.Ref != 0 || v.Named+v.Indexed != 0 {
		t.Fatalf("sum = %+v %v, want 55 without children", v, err)
	}
}
