package inspect

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/vm"
)

// The tests of this file check that user code the runtime calls (a
// toString while a List is converted to a string) is an ordinary
// activation for the debugger, that stdin reads park, and that a Go
// panic in a native is contained.

const listToString = `import io;
class P {
    public int n;
    public P(int n) { this.n = n; }
    public string toString() {
        return "P" + n; // @ts
    }
}
int main() {
    List<P> l = [new P(1), new P(2)];
    io.print("l = " + l); // @fmt
    return 0;
}
`

func TestBreakpointInRuntimeToString(t *testing.T) {
	s, l, path := launchSrc(t, listToString, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, listToString, "ts")}})
	s.ConfigurationDone()
	st := l.waitStop(t)
	if st.Reason != ReasonBreakpoint || st.ThreadID != 1 {
		t.Fatalf("stop = %+v", st)
	}
	frames, _, err := s.Stack(1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 3 || frames[0].Func != "P.toString" || frames[0].Line != markerLine(t, listToString, "ts") ||
		!frames[1].Native || frames[1].Func != "string conversion" ||
		frames[2].Func != "main" || frames[2].Line != markerLine(t, listToString, "fmt") {
		t.Fatalf("stack %+v", frames)
	}
	if v, err := s.Evaluate(1, 0, "this.n", EvalContext("watch")); err != nil || v.Value != "1" {
		t.Fatalf("this.n = %+v, %v", v, err)
	}
	scopes, err := s.Scopes(1, 0)
	if err != nil || len(scopes) == 0 {
		t.Fatalf("scopes %v, %v", scopes, err)
	}
	var fields []string
	for _, sc := range scopes {
		vars, err := s.Variables(sc.Ref, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vars {
			fields = append(fields, v.Name+"="+v.Value)
		}
	}
	if !strings.Contains(strings.Join(fields, " "), "n=1") {
		t.Errorf("variables of the toString frame: %v", fields)
	}
	s.Continue(1, false) // the second element's toString stops too
	if st := l.waitStop(t); st.Reason != ReasonBreakpoint {
		t.Fatalf("second stop = %+v", st)
	}
	if v, _ := s.Evaluate(1, 0, "n", EvalContext("watch")); v.Value != "2" {
		t.Errorf("n = %q at the second stop", v.Value)
	}
	s.SetBreakpoints(path, nil)
	s.Continue(1, false)
	if code := l.waitExit(t); code != 0 || l.stdout() != "l = [P1, P2]\n" {
		t.Fatalf("exit %d, output %q", code, l.stdout())
	}
}

func TestStepInToRuntimeToString(t *testing.T) {
	s, l, path := launchSrc(t, listToString, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, listToString, "fmt")}})
	s.ConfigurationDone()
	l.waitStop(t)
	if err := s.Step(1, StepIn, false); err != nil {
		t.Fatal(err)
	}
	st := l.waitStop(t)
	frames, _, _ := s.Stack(1, 0, 1)
	if st.Reason != ReasonStep || frames[0].Func != "P.toString" || frames[0].Line != markerLine(t, listToString, "ts") {
		t.Fatalf("step in stopped at %+v (%+v)", frames, st)
	}
	// step over from the formatting line's toString: still inside the
	// conversion, the second element's toString is a call like any other
	s.SetBreakpoints(path, nil)
	s.Continue(1, false)
	if code := l.waitExit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

const endlessToString = `import io;
class Spin {
    public string toString() {
        int i = 0;
        while (true) {
            i = i + 1; // @spin
        }
        return "never";
    }
}
int main() {
    List<Spin> l = [new Spin()];
    io.print("" + l);
    return 0;
}
`

// TestPauseInEndlessToString: a toString that never returns is preempted
// like any code: pause stops it in the toString (called by the runtime,
// with no nested run), and terminate ends the program. (Nothing here
// waits on the clock: a breakpoint puts the thread in the loop first.)
func TestPauseInEndlessToString(t *testing.T) {
	s, l, path := launchSrc(t, endlessToString, Config{})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, endlessToString, "spin"), HitCondition: "==1000"}})
	s.ConfigurationDone()
	if st := l.waitStop(t); st.Reason != ReasonBreakpoint {
		t.Fatalf("stop %+v, want the breakpoint in the loop", st)
	}
	s.SetBreakpoints(path, nil)
	s.Continue(1, false)
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	st := l.waitStop(t)
	frames, _, _ := s.Stack(st.ThreadID, 0, 0)
	if len(frames) != 3 || frames[0].Func != "Spin.toString" || !frames[1].Native {
		t.Errorf("paused in %+v", frames)
	}
	if v := eval(t, s, "i"); v == "" || v[0] == '<' {
		t.Errorf("i = %s", v)
	}
	s.Continue(1, false)
	s.Terminate()
	<-s.Done() // (the test's own timeout catches a terminate that does not end it)
}

// TestToStringParks: a toString may block: it receives from a channel
// that another thread fills.
func TestToStringParks(t *testing.T) {
	src := `import io;
import thread;
class Box {
    public Channel<int> c;
    public Box(Channel<int> c) { this.c = c; }
    public string toString() {
        return "Box(" + c.recv() + ")";
    }
}
void feed(Channel<int> c) {
    thread.sleep(5);
    c.send(42);
}
int main() {
    Channel<int> c = {};
    thread.spawn(feed, c);
    List<Box> l = [new Box(c)];
    io.print("l = " + l);
    return 0;
}
`
	s, l, _ := launchSrc(t, src, Config{})
	s.ConfigurationDone()
	if code := l.waitExit(t); code != 0 || l.stdout() != "l = [Box(42)]\n" {
		t.Fatalf("exit %d, output %q", code, l.stdout())
	}
}

// TestStdinParks: while main waits for a line of input, a ticker thread
// keeps running on the one carrier; the line arrives later, from a pipe.
func TestStdinParks(t *testing.T) {
	src := `import io;
import thread;
void tick(AtomicInt done) {
    while (done.get() == 0) {
        io.print("tick");
        thread.sleep(2);
    }
}
int main() {
    AtomicInt done = new AtomicInt();
    thread.spawn(tick, done);
    string line = io.readLine(); // @read
    done.set(1);
    io.print("got " + line);
    return 0;
}
`
	r, w := io.Pipe()
	s, l, path := launchSrc(t, src, Config{Stdin: r})
	s.SetBreakpoints(path, nil)
	s.ConfigurationDone()
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(l.stdout(), "tick") < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("no ticks while main waits for input: %q", l.stdout())
		}
		time.Sleep(time.Millisecond)
	}
	// main is parked on the input, not pinning the carrier
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	ths, _ := s.Threads()
	for _, th := range ths {
		if th.ID == 1 && (th.State != "waiting" || th.WaitReason != "io read" || th.Line != markerLine(t, src, "read")) {
			t.Errorf("main is %+v while it waits for input", th)
		}
	}
	s.Continue(1, false)
	io.WriteString(w, "hello\n")
	if code := l.waitExit(t); code != 0 || !strings.HasSuffix(l.stdout(), "got hello\n") {
		t.Fatalf("exit %d, output %q", code, l.stdout())
	}
}

// TestNativePanicInSession: a panicking native becomes an InternalError
// in the program; the session reports it and goes on.
func TestNativePanicInSession(t *testing.T) {
	lib := vm.NewLibrary()
	lib.Packages["probe"] = &vm.Package{Name: "probe", Funcs: []*vm.Native{
		{Name: "probe.boom", Sig: "void boom()", Fn: func(t *vm.Thread, a []vm.Value) (vm.Value, error) {
			panic("injected")
		}},
	}}
	src := `import io;
import probe;
int main() {
    try {
        probe.boom();
    } catch (InternalError e) {
        io.print("caught: " + e.message);
    }
    probe.boom(); // @boom
    return 0;
}
`
	var log bytes.Buffer
	s, l, _ := launchSrc(t, src, Config{Lib: lib, DebugLog: &log})
	s.SetExceptionBreakpoints(true, false)
	s.ConfigurationDone()
	st := l.waitStop(t)
	if st.Reason != ReasonException || !strings.Contains(st.Text, "InternalError: internal error: injected") {
		t.Fatalf("stop = %+v", st)
	}
	frames, _, _ := s.Stack(1, 0, 0)
	if len(frames) != 1 || frames[0].Line != markerLine(t, src, "boom") {
		t.Errorf("stack %+v", frames)
	}
	s.Continue(1, false)
	if code := l.waitExit(t); code != 1 || l.stdout() != "caught: internal error: injected\n" {
		t.Fatalf("exit %d, output %q", code, l.stdout())
	}
	if !strings.Contains(log.String(), "runtimecall_test.go") {
		t.Errorf("the Go stack is not in the debug log: %q", log.String())
	}
}
