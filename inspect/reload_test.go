package inspect

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// reloadProg is a loop that calls f; the tests edit f while paused.
// f(x) is 2x+1.
const reloadProg = `import io;
int f(int x) {
    int y = x * 2; // @f
    y = y + 1; // @f2
    return y; // @fret
}
int main() {
    for (int i = 0; i < 4; i += 1) {
        int r = f(i); // @call
        io.print("r " + r); // @print
    }
    return 0;
}
`

// edit writes a new text for the program at path.
func edit(t *testing.T, path, from, to string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), from) {
		t.Fatalf("edit: no %q in the program", from)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(src), from, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editAll is edit of every occurrence.
func editAll(t *testing.T, path, from, to string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(src), from, to)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustReload(t *testing.T, s *Session, opts ReloadOptions) *ReloadResult {
	t.Helper()
	res, err := s.Reload(opts)
	if err != nil {
		t.Fatalf("reload: %v", err)
	}
	return res
}

func evalStr(t *testing.T, s *Session, thread int64, depth int, expr string) string {
	t.Helper()
	v, err := s.Evaluate(thread, depth, expr, "watch")
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v.Value
}

// runTo launches prog with a breakpoint at marker and runs to its n-th
// hit (1: the first).
func runTo(t *testing.T, prog, marker string, n int, cfg Config) (*Session, *coreListener, string, StopInfo) {
	t.Helper()
	s, l, path := launchSrc(t, prog, cfg)
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, prog, marker)}})
	s.ConfigurationDone()
	st := l.waitStop(t)
	for i := 1; i < n; i++ {
		if err := s.Continue(0, false); err != nil {
			t.Fatal(err)
		}
		st = l.waitStop(t)
	}
	return s, l, path, st
}

// finish clears the breakpoints of path, runs the program to its end and
// checks its output.
func finish(t *testing.T, s *Session, l *coreListener, path, want string) {
	t.Helper()
	s.SetBreakpoints(path, nil)
	if err := s.Continue(0, false); err != nil {
		t.Fatal(err)
	}
	l.waitExit(t)
	if got := l.stdout(); got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

func TestReloadBody(t *testing.T) {
	s, l, path, _ := runTo(t, reloadProg, "print", 1, Config{}) // r 1 not printed yet
	edit(t, path, "y = y + 1;", "y = y + 100;")
	res := mustReload(t, s, ReloadOptions{})
	if strings.Join(res.Changed, ",") != "f" || len(res.Added) != 0 || len(res.Frames) != 0 || res.Reload != 1 ||
		len(res.Files) != 1 || res.Files[0] != path {
		t.Fatalf("reload: %+v", res)
	}
	if st := l.waitStop(t); st.Reason != ReasonBreakpoint { // the session says where it is, in the new run
		t.Errorf("stop after the reload: %+v", st)
	}
	finish(t, s, l, path, "r 1\nr 102\nr 104\nr 106\n")
}

func TestReloadUnchanged(t *testing.T) {
	s, l, path, _ := runTo(t, reloadProg, "print", 1, Config{})
	if res := mustReload(t, s, ReloadOptions{}); !res.Unchanged {
		t.Errorf("a reload with no edit: %+v", res)
	}
	finish(t, s, l, path, "r 1\nr 3\nr 5\nr 7\n")
}

func TestReloadOldFrameFinishesOnOldCode(t *testing.T) {
	s, l, path, st := runTo(t, reloadProg, "f2", 2, Config{}) // f(1), y = 2
	edit(t, path, "y = y + 1;", "y = y + 100;")
	res := mustReload(t, s, ReloadOptions{})
	l.waitStop(t)
	if len(res.Frames) != 1 || res.Frames[0] != (ReloadFrame{Thread: st.ThreadID, Depth: 0, Func: "f", Line: markerLine(t, reloadProg, "f2"), How: "old"}) {
		t.Fatalf("frames: %+v", res.Frames)
	}
	frames, _, err := s.Stack(st.ThreadID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !frames[0].OldCode || frames[0].OldSource == "" || frames[1].OldCode || frames[1].Func != "main" {
		t.Errorf("stack after the reload: %+v", frames)
	}
	if text, ok := s.Source(frames[0].OldSource); !ok || !strings.Contains(string(text), "y = y + 1;") {
		t.Errorf("the old text %q: %q", frames[0].OldSource, text)
	}
	if y := evalStr(t, s, st.ThreadID, 0, "y"); y != "2" {
		t.Errorf("y in the old frame: %s", y)
	}
	finish(t, s, l, path, "r 1\nr 3\nr 104\nr 106\n") // f(1) finished on the old code
}

func TestReloadFrameAtEntryTakesNewCode(t *testing.T) {
	s, l, path, _ := runTo(t, reloadProg, "f", 2, Config{}) // f(1) before its first statement
	edit(t, path, "y = y + 1;", "y = y + 100;")
	res := mustReload(t, s, ReloadOptions{})
	l.waitStop(t)
	if len(res.Frames) != 1 || res.Frames[0].How != "new" {
		t.Fatalf("frames: %+v", res.Frames)
	}
	finish(t, s, l, path, "r 1\nr 102\nr 104\nr 106\n")
}

func TestReloadRestartFrameOnNewCode(t *testing.T) {
	s, l, path, st := runTo(t, reloadProg, "f2", 2, Config{})
	edit(t, path, "y = y + 1;", "y = y + 100;")
	mustReload(t, s, ReloadOptions{})
	l.waitStop(t)
	if err := s.RestartFrame(st.ThreadID, 0); err != nil {
		t.Fatal(err)
	}
	if info := l.waitStop(t); info.Reason != ReasonRestart || !strings.Contains(info.Description, "new code") {
		t.Errorf("restart: %+v", info)
	}
	frames, _, _ := s.Stack(st.ThreadID, 0, 1)
	if frames[0].OldCode || frames[0].Func != "f" || frames[0].Line != markerLine(t, reloadProg, "f") {
		t.Errorf("after the restart: %+v", frames[0])
	}
	if x := evalStr(t, s, st.ThreadID, 0, "x"); x != "1" {
		t.Errorf("x after the restart: %s", x)
	}
	finish(t, s, l, path, "r 1\nr 102\nr 104\nr 106\n")
}

func TestReloadMoveFrame(t *testing.T) {
	s, l, path, st := runTo(t, reloadProg, "f2", 2, Config{})
	// an edit above and in the line after: the frame's statement stays
	edit(t, path, "    return y; // @fret", "    y = y * 1000;\n    return y; // @fret")
	edit(t, path, "import io;\n", "import io;\n// a comment that moves every line down\n")
	res := mustReload(t, s, ReloadOptions{Move: true})
	l.waitStop(t)
	if len(res.Frames) != 1 || res.Frames[0].How != "moved" || res.Frames[0].Line != markerLine(t, reloadProg, "f2")+1 {
		t.Fatalf("frames: %+v", res.Frames)
	}
	frames, _, _ := s.Stack(st.ThreadID, 0, 1)
	if frames[0].OldCode || frames[0].Line != markerLine(t, reloadProg, "f2")+1 {
		t.Errorf("the moved frame: %+v", frames[0])
	}
	if y := evalStr(t, s, st.ThreadID, 0, "y"); y != "2" {
		t.Errorf("y in the moved frame: %s", y)
	}
	finish(t, s, l, path, "r 1\nr 3000\nr 5000\nr 7000\n")
}

func TestReloadMoveRefusedWhereTheStatementChanged(t *testing.T) {
	s, l, path, _ := runTo(t, reloadProg, "f2", 2, Config{})
	edit(t, path, "y = y + 1;", "y = y + 100;")
	res := mustReload(t, s, ReloadOptions{Move: true})
	l.waitStop(t)
	if len(res.Frames) != 1 || res.Frames[0].How != "old" || !strings.Contains(res.Frames[0].Why, "line 4 was changed") {
		t.Fatalf("frames: %+v", res.Frames)
	}
	finish(t, s, l, path, "r 1\nr 3\nr 104\nr 106\n")
}

func TestReloadNewFunction(t *testing.T) {
	s, l, path, _ := runTo(t, reloadProg, "print", 1, Config{})
	edit(t, path, "y = y + 1;", "y = g(y);")
	edit(t, path, "int main() {", "int g(int v) {\n    return v + 50;\n}\nint main() {")
	res := mustReload(t, s, ReloadOptions{})
	l.waitStop(t)
	if strings.Join(res.Added, ",") != "g" || strings.Join(res.Changed, ",") != "f" {
		t.Fatalf("reload: %+v", res)
	}
	finish(t, s, l, path, "r 1\nr 52\nr 54\nr 56\n")
}

const fieldProg = `import io;
class Counter {
    public int n;
    public int unused;
    public void add() {
        n = n + 1; // @add
    }
}
void report(Counter a, Counter b) {
    io.print("a " + a.n + " b " + b.n);
}
int main() {
    Counter a = new Counter();
    Counter b = new Counter();
    for (int i = 0; i < 3; i += 1) {
        a.add(); // @loop
        b.add();
    }
    report(a, b);
    return 0;
}
`

func TestReloadNewFieldWithInitialiser(t *testing.T) {
	s, l, path, st := runTo(t, fieldProg, "loop", 2, Config{})
	edit(t, path, "    public int n;\n", "    public int n;\n    public List<int> seen = new List<int>();\n    public int step = 10;\n")
	edit(t, path, "n = n + 1; // @add", "n = n + step; seen.add(n); // @add")
	edit(t, path, `io.print("a " + a.n + " b " + b.n);`, `io.print("a " + a.n + " b " + b.n + " seen " + a.seen.length());`)
	res := mustReload(t, s, ReloadOptions{})
	l.waitStop(t)
	if strings.Join(res.Fields, ",") != "Counter.seen,Counter.step" || res.Objects != 2 {
		t.Fatalf("reload: %+v", res)
	}
	if v := evalStr(t, s, st.ThreadID, 0, "b.step"); v != "10" {
		t.Errorf("b.step of an existing object: %s", v)
	}
	finish(t, s, l, path, "a 21 b 21 seen 2\n")
}

func TestReloadRefused(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to string
		want     string
	}{
		{"removed field", "    public int unused;\n", "", "prog.n:2:1: cannot reload: field unused of Counter was removed"},
		{"retyped field", "public int n;", "public long n;", "prog.n:3:17: cannot reload: field n of Counter changed its type from int to long"},
		{"new base class", "class Counter {", "class Base { }\nclass Counter : Base {", "prog.n:3:17: cannot reload: the base class of Counter changed"},
		{"live function's parameters", "add()", "add(1)", "prog.n:5:17: cannot reload: Counter.add has a frame on a thread's stack, and its signature changed"},
		{"removed class", "Counter", "Kounter", "prog.n:2:1: cannot reload: class Counter (declared at line 2 before the edit) was removed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, l, path, st := runTo(t, fieldProg, "add", 2, Config{})
			editAll(t, path, tc.from, tc.to)
			if tc.name == "live function's parameters" {
				edit(t, path, "public void add(1) {", "public void add(int k) {")
			}
			_, err := s.Reload(ReloadOptions{})
			var ce *CompileError
			if !errors.As(err, &ce) || !strings.Contains(ce.Report, tc.want) {
				t.Fatalf("reload: %v, want %q", err, tc.want)
			}
			if frames, _, _ := s.Stack(st.ThreadID, 0, 0); frames[0].OldCode || frames[0].Func != "Counter.add" {
				t.Errorf("the stack after a refused reload: %+v", frames)
			}
			finish(t, s, l, path, "a 3 b 3\n")
		})
	}
}

func TestReloadBreakpointsFollowTheirLines(t *testing.T) {
	s, l, path, _ := runTo(t, reloadProg, "print", 1, Config{})
	f, f2, fret := markerLine(t, reloadProg, "f"), markerLine(t, reloadProg, "f2"), markerLine(t, reloadProg, "fret")
	s.SetBreakpoints(path, []BreakpointSpec{{Line: f}, {Line: f2}, {Line: fret}})
	edit(t, path, "import io;\n", "import io;\n// one line more\n// and another\n")
	edit(t, path, "    y = y + 1; // @f2\n", "")
	edit(t, path, "    return y; // @fret\n", "    return y + 0; // @fret, edited\n")
	res := mustReload(t, s, ReloadOptions{})
	l.waitStop(t)
	bps := s.Breakpoints()
	if len(bps) != 3 || bps[0].Line != f+2 || !bps[0].Verified || bps[1].Verified || bps[1].Message != fmt.Sprintf("line %d was removed by the reload", f2) ||
		bps[2].Line != fret+1 || !bps[2].Verified {
		t.Fatalf("breakpoints after the reload: %+v", bps)
	}
	if len(res.Breakpoints) != 3 {
		t.Errorf("the breakpoints the reload moved: %+v", res.Breakpoints)
	}
	s.Continue(0, false)
	st := l.waitStop(t)
	frames, _, _ := s.Stack(st.ThreadID, 0, 1)
	if st.Reason != ReasonBreakpoint || frames[0].Func != "f" || frames[0].Line != f+2 {
		t.Fatalf("stop after the reload: %+v at %+v", st, frames[0])
	}
	s.Continue(0, false)
	st = l.waitStop(t)
	if frames, _, _ = s.Stack(st.ThreadID, 0, 1); frames[0].Line != fret+1 {
		t.Fatalf("stop at the edited line: %+v at %+v", st, frames[0])
	}
	finish(t, s, l, path, "r 1\nr 2\nr 4\nr 6\n")
}

const threadsProg = `import io;
import thread;
int f(int x, Channel<int> ready, Channel<int> gate) {
    int y = x * 2;
    ready.send(1);
    gate.recv();
    y = y + 1; // @f2
    return y;
}
void work(int k, Channel<int> ready, Channel<int> gate, Channel<int> ch) {
    ch.send(f(k, ready, gate));
}
int main() {
    Channel<int> ready = new Channel<int>(0);
    Channel<int> gate = new Channel<int>(4);
    Channel<int> c = new Channel<int>(3);
    for (int k = 1; k <= 3; k += 1) {
        thread.spawn(work, k, ready, gate, c);
    }
    for (int k = 1; k <= 3; k += 1) {
        ready.recv();
    }
    for (int k = 1; k <= 4; k += 1) { // @inside
        gate.send(k);
    }
    int sum = 0;
    for (int k = 1; k <= 3; k += 1) {
        sum += c.recv();
    }
    io.print("sum " + sum + " " + f(10, ready, gate));
    return 0;
}
`

func TestReloadThreeThreadsInside(t *testing.T) {
	for _, carriers := range []int{1, 2} {
		t.Run(fmt.Sprintf("carriers=%d", carriers), func(t *testing.T) {
			s, l, path, _ := runTo(t, threadsProg, "inside", 1, Config{Carriers: carriers})
			edit(t, path, "y = y + 1;", "y = y + 100;")
			edit(t, path, "    ready.send(1);\n", "")
			edit(t, path, "ready.recv();", "")
			edit(t, path, "int sum = 0;", "int sum = 0;\n    ready.send(1);")
			res := mustReload(t, s, ReloadOptions{})
			l.waitStop(t)
			old := map[int64]bool{}
			for _, f := range res.Frames {
				if f.Func == "f" && f.How == "old" {
					old[f.Thread] = true
				}
			}
			if len(old) != 3 {
				t.Fatalf("frames: %+v", res.Frames)
			}
			// the three finish on the old code (2k+1), the call after on the new
			finish(t, s, l, path, "sum 15 120\n")
		})
	}
}

const lostUpdate = `import io;
import thread;
class Counter {
    public int n;
}
void work(Counter c, int times) {
    for (int i = 0; i < times; i += 1) {
        int v = c.n;
        thread.yield();
        c.n = v + 1;
    }
}
int main() {
    Counter c = new Counter();
    Thread a = thread.spawn(work, c, 50);
    Thread b = thread.spawn(work, c, 50);
    a.join();
    b.join();
    io.print("n " + c.n); // @print
    return 0;
}
`

func TestWhatIfFixedLostUpdate(t *testing.T) {
	s, l, path, st := runTo(t, lostUpdate, "print", 1, Config{SnapshotInterval: -1})
	n := evalStr(t, s, st.ThreadID, 0, "c.n")
	if n == "100" {
		t.Fatalf("the program has no lost update to fix: n = %s", n)
	}
	line := markerLine(t, lostUpdate, "print")
	// an edit that changes nothing the program does
	edit(t, path, "int v = c.n;", "int v = c.n; // read")
	r, err := s.WhatIf(WhatIfOptions{File: path, Line: line, Expr: "c.n"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Diverged || r.Hits != 1 || r.From != "the start of the run" {
		t.Fatalf("an edit that changes nothing: %+v", r)
	}
	// the fix: the read and the write in one step
	edit(t, path, "int v = c.n; // read\n        thread.yield();\n        c.n = v + 1;", "thread.yield();\n        c.n = c.n + 1;")
	r, err = s.WhatIf(WhatIfOptions{File: path, Line: line, Expr: "c.n"})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r.Text)
	if !r.Diverged || r.What != "value" || r.Hit != 1 || !strings.Contains(r.New, "c.n = 100") || r.Func != "main" || r.Line != line {
		t.Fatalf("the fix: %+v", r)
	}
	// the session did not change: the run goes on with the old code
	finish(t, s, l, path, "n "+n+"\n")
}

func TestWhatIfOutputAfterReload(t *testing.T) {
	s, l, path, _ := runTo(t, reloadProg, "print", 2, Config{SnapshotInterval: -1})
	edit(t, path, "y = y + 1;", "y = y + 100;")
	for _, reload := range []bool{false, true} {
		if reload {
			mustReload(t, s, ReloadOptions{})
			l.waitStop(t)
		}
		r, err := s.WhatIf(WhatIfOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Diverged || r.What != "output" || r.Recorded != "r 1" || r.New != "r 100" {
			t.Errorf("what if (after a reload: %v): %+v", reload, r)
		}
	}
	finish(t, s, l, path, "r 1\nr 3\nr 104\nr 106\n")
}

func TestReloadWithRaceDetectorAndDump(t *testing.T) {
	s, l, path, _ := runTo(t, reloadProg, "print", 1, Config{Race: true})
	edit(t, path, "y = y + 1;", "y = y + 100;")
	res := mustReload(t, s, ReloadOptions{})
	l.waitStop(t)
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "race detector starts afresh") {
		t.Errorf("notes: %+v", res.Notes)
	}
	if err := s.Dump(path + ".dump"); err == nil || !strings.Contains(err.Error(), "reloaded") {
		t.Errorf("a dump after a reload: %v", err)
	}
	finish(t, s, l, path, "r 1\nr 102\nr 104\nr 106\n")
}

func TestReloadTimeTravel(t *testing.T) {
	s, l, path, st := runTo(t, reloadProg, "print", 2, Config{SnapshotInterval: -1})
	cp, err := s.AddCheckpoint("before the edit")
	if err != nil {
		t.Fatal(err)
	}
	edit(t, path, "y = y + 1;", "y = y + 100;")
	mustReload(t, s, ReloadOptions{})
	l.waitStop(t)
	s.Continue(0, false)
	l.waitStop(t) // the next print: r = f(2) = 104, new code
	if r := evalStr(t, s, st.ThreadID, 0, "r"); r != "104" {
		t.Fatalf("r after the reload: %s", r)
	}
	// going back stays after the reload: one print back is i = 1 (old f)
	if err := s.ReverseContinue(st.ThreadID); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	if r := evalStr(t, s, st.ThreadID, 0, "r"); r != "3" {
		t.Errorf("r going back: %s", r)
	}
	if err := s.ReverseContinue(st.ThreadID); err != nil {
		t.Fatal(err)
	}
	if info := l.waitStop(t); info.Reason != ReasonEntry {
		t.Errorf("going back past the reload: %+v", info)
	}
	if r := evalStr(t, s, st.ThreadID, 0, "r"); r != "3" {
		t.Errorf("at the reload, r: %s", r)
	}
	// the checkpoint before the reload: the old code runs again
	if err := s.RestartAt(cp.ID); err != nil {
		t.Fatal(err)
	}
	if info := l.waitStop(t); !strings.Contains(info.Description, "before reload 1") {
		t.Errorf("restart before the reload: %+v", info)
	}
	if !strings.Contains(l.console(), "checkpoint 1 was made before reload 1: the program runs the code it had then") {
		t.Errorf("console: %q", l.console())
	}
	frames, _, _ := s.Stack(st.ThreadID, 0, 0)
	if frames[0].OldSource == "" {
		t.Errorf("the old program's frames are shown in its text: %+v", frames[0])
	}
	s.SetBreakpoints(path, nil)
	s.Continue(0, false)
	l.waitExit(t)
	if got := l.stdout(); !strings.HasSuffix(got, "r 5\nr 7\n") {
		t.Errorf("output %q: the old code runs after the restart", got)
	}
}
