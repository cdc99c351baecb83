package vm_test

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// compileSrc compiles src as the file t.n with the standard library.
func compileSrc(tb testing.TB, src string) *vm.Program {
	tb.Helper()
	prog, err := compile.CompileFile("t.n", []byte(src), compile.Options{Lib: vm.StdLib()})
	if err != nil {
		tb.Fatalf("compile: %v\n%s", err, src)
	}
	return prog
}

// markerLine returns the line of src that holds the comment "// @name".
func markerLine(tb testing.TB, src, name string) int32 {
	tb.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, "// @"+name) {
			return int32(i + 1)
		}
	}
	tb.Fatalf("no marker @%s", name)
	return 0
}

// newMain returns a machine writing to out and a thread about to run main.
func newMain(prog *vm.Program, out *bytes.Buffer) (*vm.Machine, *vm.Thread) {
	m := vm.NewMachine(prog, nil, out, out)
	return m, m.NewCallThread(prog.Main, nil)
}

// finish runs th with the budget until it is done and returns the number
// of StopBudget returns. Any other stop fails the test.
func finish(tb testing.TB, th *vm.Thread, budget int) int {
	tb.Helper()
	budgets := 0
	for {
		switch stop := th.Run(budget); stop {
		case vm.StopDone:
			return budgets
		case vm.StopBudget:
			budgets++
			if budgets > 10_000_000 {
				tb.Fatalf("thread does not end")
			}
		default:
			tb.Fatalf("Run returned %v", stop)
		}
	}
}

// runMain compiles and runs src to completion with a large budget and
// returns the finished thread and the program's output.
func runMain(tb testing.TB, src string) (*vm.Thread, string) {
	tb.Helper()
	var out bytes.Buffer
	_, th := newMain(compileSrc(tb, src), &out)
	finish(tb, th, math.MaxInt)
	return th, out.String()
}

// loopSrc loops n times in main; callF adds a call of f in the body.
func loopSrc(n int, callF bool) string {
	body := ""
	if callF {
		body = "s += f(i);"
	}
	return fmt.Sprintf(`int f(int x) { return x; }
int main() {
    int s = 0;
    int i = 0;
    while (i < %d) {
        %s
        i += 1;
    }
    return 0;
}`, n, body)
}

// TestExecutionSteps checks the reduction count: one per loop back-edge
// and one per function entry, so the number of budget stops grows
// linearly with the work, and Run stops exactly when the budget is spent.
func TestExecutionSteps(t *testing.T) {
	for _, tc := range []struct {
		callF        bool
		perIteration int
	}{
		{false, 1}, // the back-edge
		{true, 2},  // the back-edge and the entry of f
	} {
		for _, n := range []int{0, 1, 10, 1000, 2000} {
			prog := compileSrc(t, loopSrc(n, tc.callF))
			reductions := n * tc.perIteration
			for _, budget := range []int{1, 7, 1000} {
				var out bytes.Buffer
				_, th := newMain(prog, &out)
				// Run returns StopBudget after exactly budget reductions,
				// so a run of R reductions stops R/budget times.
				if got, want := finish(t, th, budget), reductions/budget; got != want {
					t.Errorf("callF=%v n=%d budget=%d: %d budget stops, want %d", tc.callF, n, budget, got, want)
				}
			}
		}
	}
}

// TestBudgetStopsAtSafepoints checks where a thread stops when its budget
// runs out: at a loop header after a back-edge, or at pc 0 of a function
// just entered, and that its frames are then consistent.
func TestBudgetStopsAtSafepoints(t *testing.T) {
	prog := compileSrc(t, loopSrc(50, true))
	main, f := prog.Main, prog.FuncByName("f")
	loopHeads := map[int32]bool{}
	for pc, in := range main.Code {
		switch in.Op {
		case vm.LOOP:
			loopHeads[in.A] = true
		case vm.LOOPLTIK, vm.LOOPLEIK, vm.LOOPGTIK, vm.LOOPGEIK, vm.LOOPLTI, vm.LOOPLEI, vm.LOOPT:
			// a rotated loop's test: back to the body, or out after the
			// last iteration
			loopHeads[in.C] = true
			loopHeads[int32(pc)+1] = true
		}
	}
	var out bytes.Buffer
	_, th := newMain(prog, &out)
	atLoop, atEntry := 0, 0
	for th.Run(1) == vm.StopBudget {
		top := th.Frame(0)
		switch {
		case top.Fn == f && top.PC == 0 && th.Depth() == 2:
			atEntry++
		case top.Fn == main && loopHeads[top.PC] && th.Depth() == 1:
			atLoop++
		default:
			t.Fatalf("stopped in %s at pc %d (depth %d), not at a safepoint", top.Fn.Name, top.PC, th.Depth())
		}
	}
	if atLoop != 50 || atEntry != 50 {
		t.Errorf("stopped %d times at the loop head and %d at f's entry, want 50 and 50", atLoop, atEntry)
	}
}

// TestFunctionEntryReduction checks that a call is a safepoint even
// without a loop: with a budget of one, main stops as soon as f is
// entered, then finishes.
func TestFunctionEntryReduction(t *testing.T) {
	src := `int f() { return 5; }
int main() {
    int x = f();
    return x + 1;
}`
	var out bytes.Buffer
	_, th := newMain(compileSrc(t, src), &out)
	if stop := th.Run(1); stop != vm.StopBudget {
		t.Fatalf("first Run = %v, want budget", stop)
	}
	if th.Depth() != 2 || th.Frame(0).Fn.Name != "f" || th.Frame(0).PC != 0 {
		t.Fatalf("stopped in %s at pc %d (depth %d), want f at pc 0", th.Frame(0).Fn.Name, th.Frame(0).PC, th.Depth())
	}
	if cs := th.CallStack(); len(cs) != 2 || cs[0].Func != "f" || cs[1].Func != "main" || cs[1].Line != 3 {
		t.Errorf("call stack %v, want f then main at line 3", cs)
	}
	if stop := th.Run(1); stop != vm.StopDone {
		t.Fatalf("second Run = %v, want done", stop)
	}
	if got := int64(th.Result.N); got != 6 || !th.Done() || th.Uncaught != nil {
		t.Errorf("result %d (done %v, uncaught %v), want 6", got, th.Done(), th.Uncaught)
	}
	if stop := th.Run(1); stop != vm.StopDone {
		t.Errorf("Run on a finished thread = %v, want done", stop)
	}
}

// TestResult checks StopDone with the value main returns.
func TestResult(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want int64
	}{
		{"0", 0}, {"42", 42}, {"-3", -3}, {"2147483647 + 1", math.MinInt32}, {"7 / 2 * 2", 6},
	} {
		th, _ := runMain(t, "int main() { return "+tc.expr+"; }")
		if got := int64(th.Result.N); got != tc.want || th.Uncaught != nil {
			t.Errorf("main returning %s: got %d (uncaught %v), want %d", tc.expr, got, th.Uncaught, tc.want)
		}
	}
}

const recursionSrc = `int down(int n) {
    if (n == 0) {
        return 0;
    }
    return down(n - 1) + 1; // @call
}
int main() {
    return down(100000); // @main
}`

// TestDeepRecursion checks that recursion is limited by the frame budget,
// not by the Go stack: 100 000 frames are fine.
func TestDeepRecursion(t *testing.T) {
	th, _ := runMain(t, recursionSrc)
	if got := int64(th.Result.N); got != 100000 || th.Uncaught != nil {
		t.Errorf("got %d (uncaught %v), want 100000", got, th.Uncaught)
	}
}

// TestStackOverflow checks that a call past MaxFrames throws
// StackOverflowException with a backtrace of every frame, innermost
// first (its text elides the middle), and that NLang code can catch it.
func TestStackOverflow(t *testing.T) {
	prog := compileSrc(t, recursionSrc)
	var out bytes.Buffer
	m, th := newMain(prog, &out)
	m.MaxFrames = 1000
	finish(t, th, math.MaxInt)
	e := th.UncaughtError()
	if e == nil {
		t.Fatalf("no uncaught exception; result %d", int64(th.Result.N))
	}
	if e.Exc.Class.Name != "StackOverflowException" || e.Error() != "Runtime error: StackOverflowException: stack overflow" {
		t.Errorf("got %s (%q)", e.Exc.Class.Name, e.Error())
	}
	if len(e.Stack) != 1000 {
		t.Errorf("backtrace has %d frames, want 1000", len(e.Stack))
	}
	bt := strings.Split(strings.TrimSuffix(e.Backtrace(), "\n"), "\n")
	call, main := markerLine(t, recursionSrc, "call"), markerLine(t, recursionSrc, "main")
	// The text shows both ends, 50 frames each, and elides the middle.
	if len(bt) != 101 || bt[50] != "  ... 900 frames elided ..." {
		t.Fatalf("backtrace of %d lines, line 51 %q; want 101 and the elision", len(bt), bt[50])
	}
	if want := fmt.Sprintf("  at down (t.n:%d)", call); bt[0] != want || bt[49] != want || bt[99] != want {
		t.Errorf("innermost lines %q, %q, %q; want %q", bt[0], bt[49], bt[99], want)
	}
	if want := fmt.Sprintf("  at main (t.n:%d)", main); bt[len(bt)-1] != want {
		t.Errorf("outermost line %q, want %q", bt[len(bt)-1], want)
	}
	if !th.Done() {
		t.Errorf("thread has %d frames left", th.Depth())
	}

	// caught: the program goes on
	prog = compileSrc(t, `import io;
int down(int n) {
    return down(n + 1) + 1;
}
int main() {
    try {
        down(0);
    } catch (StackOverflowException e) {
        io.print("caught " + e.message + " " + (e.backtrace.length() > 100));
    }
    return 3;
}`)
	out.Reset()
	m, th = newMain(prog, &out)
	m.MaxFrames = 1000
	finish(t, th, math.MaxInt)
	if out.String() != "caught stack overflow true\n" || int64(th.Result.N) != 3 {
		t.Errorf("got %q, result %d", out.String(), int64(th.Result.N))
	}
}

// TestRuntimeErrors checks the exceptions the VM raises: class, message,
// and the backtrace of the uncaught exception ("  at f (file:line)",
// innermost first, the line being the statement that failed).
func TestRuntimeErrors(t *testing.T) {
	for _, tc := range []struct {
		decls string // declarations before f
		body  string // f's body; the failing line is marked // @err
		want  string // "Class: message"
		trace bool   // check the backtrace too
	}{
		{"", "int z = 0;\n    int r = 10 / z; // @err", "DivByZeroException: division by zero", true},
		{"", "int z = 0;\n    int r = 10 % z; // @err", "DivByZeroException: division by zero", true},
		{"", "long z = 0;\n    long r = 10 / z; // @err", "DivByZeroException: division by zero", true},
		{"", "double z = 0.0;\n    double r = 1.5 / z; // @err", "DivByZeroException: division by zero", true},
		{"", "uint z = 0;\n    uint r = 10 / z; // @err", "DivByZeroException: division by zero", true},
		{"class P { public int v; }", "P p = null;\n    int r = p.v + 1; // @err", "NullPointerException: field access on null", true},
		{"class P { public int v; }", "P p = null;\n    p.v = 1; // @err", "NullPointerException: field access on null", false},
		{"class P { public virtual int m() { return 1; } }", "P p = null;\n    int r = p.m(); // @err", "NullPointerException: method call on null", true},
		{"interface I { public int m(); }", "I i = null;\n    int r = i.m(); // @err", "NullPointerException: method call on null", true},
		{"", "int[] a = null;\n    int r = a[0]; // @err", "NullPointerException: index of null array", true},
		{"", "int[] a = null;\n    int r = a.length + 1; // @err", "NullPointerException: length of null", true},
		{"", "List<int> l = null;\n    int r = l[0]; // @err", "NullPointerException: index of null List", true},
		{"", "Func<int> g = null;\n    int r = g(); // @err", "NullPointerException: call of a null function value", true},
		{"", "Exception e = null;\n    throw e; // @err", "NullPointerException: throw of null", false},
		{"", "int[] a = new int[3];\n    int r = a[5]; // @err", "IndexOutOfBoundsException: index 5 out of range [0, 3)", true},
		{"", "int[] a = new int[3];\n    int i = -1;\n    a[i] = 1; // @err", "IndexOutOfBoundsException: index -1 out of range [0, 3)", false},
		{"", "List<int> l = [1, 2];\n    int r = l[2]; // @err", "IndexOutOfBoundsException: index 2 out of range [0, 2)", true},
		{"", "string s = \"abc\";\n    int r = s[3]; // @err", "IndexOutOfBoundsException: index 3 out of range [0, 3)", true},
		{"", "int n = -1;\n    int[] a = new int[n]; // @err", "IndexOutOfBoundsException: negative array length -1", false},
		{"", "int[] a = new int[2000000000]; // @err", "OutOfMemoryException: cannot allocate an array of 2000000000 elements", true},
		{"", "Object o = \"s\";\n    int r = (o as int) + 1; // @err", "Exception: cannot unbox string as int", true},
		{"class A {}\nclass B : A {}\nclass C : A {}", "A a = new B();\n    C c = a as C; // @err", "Exception: cannot cast B to C", false},
		{"", "int x = 1;\n    assert(x == 2); // @err", "AssertionException: assertion failed", false},
		{"class MyError : Exception { public MyError(string m) { super(m); } }", "throw new MyError(\"boom\"); // @err", "MyError: boom", false},
	} {
		src := fmt.Sprintf("%s\nint f() {\n    %s\n    return 0;\n}\nint main() {\n    int r = f(); // @main\n    return r;\n}\n", tc.decls, tc.body)
		var out bytes.Buffer
		m, th := newMain(compileSrc(t, src), &out)
		m.MaxHeap = 1 << 30
		finish(t, th, math.MaxInt)
		e := th.UncaughtError()
		if e == nil {
			t.Errorf("%s: no exception\n%s", tc.want, src)
			continue
		}
		if e.Msg != tc.want {
			t.Errorf("got %q, want %q", e.Msg, tc.want)
		}
		if len(e.Stack) != 2 || e.Stack[0].Func != "f" || e.Stack[1].Func != "main" {
			t.Errorf("%s: stack %v, want f, main", tc.want, e.Stack)
		}
		if !tc.trace {
			continue
		}
		want := fmt.Sprintf("  at f (t.n:%d)\n  at main (t.n:%d)\n", markerLine(t, src, "err"), markerLine(t, src, "main"))
		if got := e.Backtrace(); got != want {
			t.Errorf("%s: backtrace\n%swant\n%s", tc.want, got, want)
		}
		if got, want := vm.FormatUncaught(e.Exc), tc.want+"\n"+want; got != want {
			t.Errorf("FormatUncaught:\n%s\nwant\n%s", got, want)
		}
	}
}

// TestBacktraceList checks the backtrace list an exception carries for
// NLang code: "file:line" strings, innermost first.
func TestBacktraceList(t *testing.T) {
	src := `import io;
int inner(int z) {
    int r = 1 / z; // @inner
    return r;
}
int outer() {
    int r = inner(0); // @outer
    return r;
}
int main() {
    try {
        outer(); // @main
    } catch (Exception e) {
        foreach (string s in e.backtrace) {
            io.print(s);
        }
    }
    return 0;
}`
	_, out := runMain(t, src)
	want := fmt.Sprintf("t.n:%d\nt.n:%d\nt.n:%d\n", markerLine(t, src, "inner"), markerLine(t, src, "outer"), markerLine(t, src, "main"))
	if out != want {
		t.Errorf("got\n%swant\n%s", out, want)
	}
}

// TestBacktraceFormat checks FormatBacktrace on plain data.
func TestBacktraceFormat(t *testing.T) {
	frames := []vm.CallFrame{
		{Func: "Producer.run", File: "/tmp/x/prod.n", Line: 12, Col: 5},
		{Func: "main", File: "prod.n", Line: 3},
	}
	want := "  at Producer.run (prod.n:12)\n  at main (prod.n:3)\n"
	if got := vm.FormatBacktrace(frames); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := vm.FormatBacktrace(nil); got != "" {
		t.Errorf("empty backtrace %q", got)
	}
}

// TestConvert checks the scalar conversions behind `as` and implicit
// widening: integer narrowing wraps, floating to integer truncates
// toward zero, unsigned sources convert by value.
func TestConvert(t *testing.T) {
	i := func(v int64) uint64 { return uint64(v) }
	f := math.Float64bits
	for _, tc := range []struct {
		v        uint64
		from, to vm.Kind
		want     uint64
	}{
		{i(300), vm.KInt, vm.KByte, i(44)},
		{i(200), vm.KInt, vm.KByte, i(-56)},
		{i(-1), vm.KInt, vm.KUbyte, 255},
		{i(-1), vm.KInt, vm.KUshort, 65535},
		{i(-1), vm.KInt, vm.KUint, 4294967295},
		{i(-1), vm.KInt, vm.KUlong, math.MaxUint64},
		{i(70000), vm.KInt, vm.KShort, i(4464)},
		{i(4294967297), vm.KLong, vm.KInt, 1},
		{i(4294967295), vm.KLong, vm.KInt, i(-1)},
		{i(-1), vm.KLong, vm.KUlong, math.MaxUint64},
		{math.MaxUint64, vm.KUlong, vm.KLong, i(-1)},
		{200, vm.KUbyte, vm.KByte, i(-56)},
		{4294967295, vm.KUint, vm.KInt, i(-1)},
		{i(-56), vm.KByte, vm.KUbyte, 200},
		{i(-56), vm.KByte, vm.KLong, i(-56)},
		{f(3.99), vm.KDouble, vm.KInt, 3},
		{f(-3.99), vm.KDouble, vm.KInt, i(-3)},
		{f(2.5), vm.KDouble, vm.KLong, 2},
		{f(-0.5), vm.KDouble, vm.KInt, 0},
		{f(300.7), vm.KDouble, vm.KUbyte, 44},
		{f(3e9), vm.KDouble, vm.KUint, 3000000000},
		{f(1e19), vm.KDouble, vm.KUlong, 10000000000000000000},
		{f(65.9), vm.KDouble, vm.KChar, 65},
		{i(7), vm.KInt, vm.KDouble, f(7)},
		{i(-7), vm.KLong, vm.KDouble, f(-7)},
		{math.MaxUint64, vm.KUlong, vm.KDouble, f(18446744073709551615.0)},
		{4294967295, vm.KUint, vm.KDouble, f(4294967295)},
		{i(16777217), vm.KInt, vm.KFloat, f(16777216)}, // rounded to float32
		{f(0.1), vm.KDouble, vm.KFloat, f(float64(float32(0.1)))},
		{f(float64(float32(0.1))), vm.KFloat, vm.KDouble, f(float64(float32(0.1)))},
		{'A', vm.KChar, vm.KInt, 65},
		{97, vm.KInt, vm.KChar, 'a'},
		{i(5), vm.KInt, vm.KBool, 1},
	} {
		if got := vm.Convert(tc.v, tc.from, tc.to); got != tc.want {
			t.Errorf("Convert(%#x, %v→%v) = %#x, want %#x", tc.v, tc.from, tc.to, got, tc.want)
		}
	}
}

// TestFormatFloat checks the shortest round-trip rendering of floating
// values, plain or with an exponent, whichever is shorter.
func TestFormatFloat(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		bits int
		want string
	}{
		{0.1, 64, "0.1"},
		{1.5, 64, "1.5"},
		{2, 64, "2"},
		{-2, 64, "-2"},
		{0, 64, "0"},
		{0.30000000000000004, 64, "0.30000000000000004"},
		{1e21, 64, "1e+21"},
		{1e-7, 64, "1e-07"},
		{123456789, 64, "123456789"},
		{100, 64, "100"},
		{1e6, 64, "1e+06"},
		{0.001, 64, "0.001"},
		{float64(float32(0.1)), 32, "0.1"},
		{float64(float32(16777216)), 32, "16777216"},
		{math.Inf(1), 64, "inf"},
		{math.Inf(-1), 64, "-inf"},
		{math.NaN(), 64, "nan"},
	} {
		if got := vm.FormatFloat(tc.f, tc.bits); got != tc.want {
			t.Errorf("FormatFloat(%v, %d) = %q, want %q", tc.f, tc.bits, got, tc.want)
		}
	}
}

// TestScalarFormatting checks, through a program, how scalars become
// strings in concatenation and printing.
func TestScalarFormatting(t *testing.T) {
	_, out := runMain(t, `import io;
enum Color { Red, Green = 5, Blue }
int main() {
    double a = 0.1;
    double b = 0.2;
    io.print(a + b);
    io.print(1.5 + " " + 2.0 + " " + 1.0e21 + " " + 0.0000001);
    float f = 0.1f;
    io.print(f);
    io.print('x' + "|" + true + "|" + Color.Blue + "|" + (Color.Blue as int));
    ulong u = 18446744073709551615;
    io.print(u);
    byte sb = -128;
    io.print(sb);
    return 0;
}`)
	want := "0.30000000000000004\n1.5 2 1e+21 1e-07\n0.1\nx|true|Blue|6\n18446744073709551615\n-128\n"
	if out != want {
		t.Errorf("got\n%swant\n%s", out, want)
	}
}

// TestNestedCall checks user toString methods that the runtime calls
// while formatting (a nested Run on the same thread): inside a List,
// in concatenation, one that calls further functions, and one that
// throws, whose exception reaches the NLang caller. The output must not
// depend on the budget of the outer Run.
func TestNestedCall(t *testing.T) {
	src := `import io;
int twice(int x) {
    return x * 2;
}
class Node {
    public int v;
    public Node(int v) { this.v = v; }
    public string toString() { return "N" + twice(v); }
}
class Bad {
    public string toString() {
        int z = 0;
        return "bad" + (1 / z);
    }
}
int main() {
    List<Node> l = new List<Node>();
    int i = 1;
    while (i <= 3) {
        l.add(new Node(i));
        i += 1;
    }
    io.print(l);
    io.print("list " + l + " and " + new Node(7));
    List<Bad> bad = [new Bad()];
    try {
        io.print(bad);
    } catch (DivByZeroException e) {
        io.print("caught " + e.message);
    }
    io.print("done");
    return 5;
}`
	prog := compileSrc(t, src)
	want := "[N2, N4, N6]\nlist [N2, N4, N6] and N14\ncaught division by zero\ndone\n"
	for _, budget := range []int{1, 3, math.MaxInt} {
		var out bytes.Buffer
		_, th := newMain(prog, &out)
		finish(t, th, budget)
		if out.String() != want || int64(th.Result.N) != 5 || th.Uncaught != nil {
			t.Errorf("budget %d: got %q, result %d, uncaught %v; want %q, 5", budget, out.String(), int64(th.Result.N), th.Uncaught, want)
		}
	}
}

var backtraceLine = regexp.MustCompile(`^  at [\w.<>]+ \([\w.]+:\d+\)$`)

// TestUncaughtInMethod checks the backtrace names methods as Class.method.
func TestUncaughtInMethod(t *testing.T) {
	src := `class Acc {
    public int total;
    public virtual void add(int[] xs, int i) {
        total += xs[i]; // @err
    }
}
int main() {
    Acc a = new Acc();
    int[] xs = [1, 2];
    a.add(xs, 0);
    a.add(xs, 2); // @main
    return a.total;
}`
	th, _ := runMain(t, src)
	e := th.UncaughtError()
	if e == nil {
		t.Fatal("no exception")
	}
	want := fmt.Sprintf("  at Acc.add (t.n:%d)\n  at main (t.n:%d)\n", markerLine(t, src, "err"), markerLine(t, src, "main"))
	if got := e.Backtrace(); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	for _, l := range strings.Split(strings.TrimSuffix(e.Backtrace(), "\n"), "\n") {
		if !backtraceLine.MatchString(l) {
			t.Errorf("backtrace line %q does not match %v", l, backtraceLine)
		}
	}
}
