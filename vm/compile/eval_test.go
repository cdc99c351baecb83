package compile

import (
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
)

const evalProg = `import io;
enum Color { Red, Green, Blue }
struct Vec {
    int x;
    int y;
}
class Point {
    public int x;
    public int y;
    public Point(int x, int y) { this.x = x; this.y = y; }
    public int sum() { return x + y; }
    public void bump() { x = x + 1; }
}
int twice(int n) { return 2 * n; }
int spin() {
    int i = 0;
    while (true) { i = i + 1; }
    return i;
}
`

// evalFixture is a program and a frame-like scope: this is a Point(1, 2)
// and the locals are n = 5, s = "hi", l = [10, 20], c = Green, v = Vec{3, 4}.
type evalFixture struct {
	prog  *vm.Program
	m     *vm.Machine
	scope EvalScope
	args  []vm.Value
	pt    *vm.Object
}

func newEvalFixture(t *testing.T) *evalFixture {
	t.Helper()
	prog := compileTest(t, evalProg)
	m := vm.NewMachine(prog, nil, &strings.Builder{}, &strings.Builder{})
	point, vec, color := prog.ClassByName("Point"), prog.ClassByName("Vec"), prog.ClassByName("Color")
	pt := m.NewObject(point)
	pt.Fields[0], pt.Fields[1] = vm.IntV(1), vm.IntV(2)
	v := m.NewObject(vec)
	v.Fields[0], v.Fields[1] = vm.IntV(3), vm.IntV(4)
	l := &vm.List{Type: vm.ListOf(vm.Int), Data: []vm.Value{vm.IntV(10), vm.IntV(20)}}
	return &evalFixture{prog: prog, m: m, pt: pt,
		scope: EvalScope{File: "t.n", This: point, Locals: []EvalLocal{
			{"n", vm.Int}, {"s", vm.String}, {"l", vm.ListOf(vm.Int)},
			{"c", vm.ClassType(color)}, {"v", vm.ClassType(vec)},
		}},
		args: []vm.Value{vm.RefV(pt), vm.IntV(5), vm.StrV("hi"), vm.RefV(l), vm.IntV(1), vm.RefV(v)},
	}
}

// run runs fn with the fixture's arguments and formats the result.
func (f *evalFixture) run(t *testing.T, fn *vm.Funcode, typ *vm.Type) (string, vm.Stop) {
	t.Helper()
	th := f.m.NewCallThread(fn, f.args)
	stop := th.Run(10000)
	if stop != vm.StopDone {
		return "", stop
	}
	if th.Uncaught != nil {
		return vm.ExceptionString(th.Uncaught), stop
	}
	if typ == vm.Void {
		return "<void>", stop
	}
	s, err := th.Format(th.Result, typ)
	if err != nil {
		t.Fatal(err)
	}
	return s, stop
}

func TestCompileEval(t *testing.T) {
	f := newEvalFixture(t)
	for _, tc := range []struct{ expr, typ, want string }{
		{"n", "int", "5"},
		{"x + y", "int", "3"},
		{"this.y * n", "int", "10"},
		{"sum()", "int", "3"},
		{"twice(n) + 1", "int", "11"},
		{`s + "!" + n`, "string", "hi!5"},
		{"l[1]", "int", "20"},
		{"l.length()", "int", "2"},
		{"c == Color.Green", "bool", "true"},
		{"c", "Color", "Green"},
		{"math.sqrt(16.0)", "double", "4"}, // math is not imported by the program
		{"v.x + v.y", "int", "7"},
		{"n / 2.0", "double", "2.5"},
		{"'a'", "char", "a"},
		{"null", "null", "null"},
		{"bump()", "void", "<void>"},
		{"new Point(3, 4).sum()", "int", "7"},
		{"l[5]", "int", "IndexOutOfBoundsException: index 5 out of range [0, 2)"},
	} {
		fn, typ, err := CompileEval(f.prog, f.scope, tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if typ.String() != tc.typ {
			t.Errorf("%s: type %s, want %s", tc.expr, typ, tc.typ)
		}
		got, stop := f.run(t, fn, typ)
		if stop != vm.StopDone || got != tc.want {
			t.Errorf("%s = %q (%v), want %q", tc.expr, got, stop, tc.want)
		}
	}
	if f.pt.Fields[0].I() != 2 {
		t.Errorf("bump() did not run: x = %d", f.pt.Fields[0].I())
	}
}

func TestCompileEvalErrors(t *testing.T) {
	f := newEvalFixture(t)
	noThis := EvalScope{File: "t.n", Locals: []EvalLocal{{"n", vm.Int}}}
	for _, tc := range []struct {
		scope      EvalScope
		expr, want string
	}{
		{f.scope, "nnn + 1", "1:1: undefined: nnn (did you mean n?)"},
		{f.scope, "n +", "1:4: "},
		{f.scope, "n = 3", "1:3: unexpected"},
		{f.scope, `n + "a" * 2`, "invalid operation"},
		{f.scope, "s.nope()", "string has no method nope"},
		{noThis, "x", "undefined: x"},
		{noThis, "this", "this outside a method"},
		{f.scope, "", "1:1:"},
	} {
		_, _, err := CompileEval(f.prog, tc.scope, tc.expr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.expr, err, tc.want)
		}
	}
	// A compile error leaves no trace in the program's compiler.
	if _, _, err := CompileEval(f.prog, f.scope, "n"); err != nil {
		t.Errorf("after errors: %v", err)
	}
	if _, _, err := CompileEval(vm.NewProgram(), f.scope, "n"); err == nil {
		t.Error("a program not made by CompileFile: no error")
	}
}

func TestCompileEvalShadowing(t *testing.T) {
	f := newEvalFixture(t)
	scope := EvalScope{File: "t.n", This: f.scope.This, Locals: []EvalLocal{{"x", vm.Int}, {"x", vm.String}}}
	fn, typ, err := CompileEval(f.prog, scope, "x")
	if err != nil {
		t.Fatal(err)
	}
	if typ != vm.String {
		t.Errorf("x is %s, want the last declaration (string)", typ)
	}
	th := f.m.NewCallThread(fn, []vm.Value{vm.RefV(f.pt), vm.IntV(7), vm.StrV("inner")})
	if th.Run(100) != vm.StopDone || th.Result.S() != "inner" {
		t.Errorf("x = %v", th.Result)
	}
}

func TestCompileEvalAs(t *testing.T) {
	f := newEvalFixture(t)
	for _, tc := range []struct {
		expr string
		want *vm.Type
		out  string // result, or the error
	}{
		{"n", vm.Long, "5"},
		{"n", vm.Double, "5"},
		{"n + 0.5", vm.Double, "5.5"},
		{"7", vm.Byte, "7"},
		{`"x" + n`, vm.String, "x5"},
		{"n", vm.ObjectT, "5"},
		{`"a"`, vm.Int, "cannot use string as int"},
		{"300", vm.Byte, "constant 300 overflows byte"},
		{"2.5", vm.Int, "cannot use double as int"},
		{"null", vm.ListOf(vm.Int), "null"},
		{"null", vm.Int, "cannot use null as int"},
		{"1.5", vm.Float, "1.5"}, // the conversion rule of the compiler
		{"n + 0.5", vm.Float, "5.5"},
		{"0.1", vm.Float, "must be exactly a float"},
	} {
		fn, err := CompileEvalAs(f.prog, f.scope, tc.expr, tc.want)
		if err != nil {
			if !strings.Contains(err.Error(), tc.out) {
				t.Errorf("%s as %s: %v, want %q", tc.expr, tc.want, err, tc.out)
			}
			continue
		}
		got, _ := f.run(t, fn, tc.want)
		if got != tc.out {
			t.Errorf("%s as %s = %q, want %q", tc.expr, tc.want, got, tc.out)
		}
	}
	// A struct value is copied.
	vec := vm.ClassType(f.prog.ClassByName("Vec"))
	fn, err := CompileEvalAs(f.prog, f.scope, "v", vec)
	if err != nil {
		t.Fatal(err)
	}
	th := f.m.NewCallThread(fn, f.args)
	th.Run(100)
	if th.Result.R == f.args[5].R {
		t.Error("struct value not copied")
	}
}

func TestCompileEvalCode(t *testing.T) {
	f := newEvalFixture(t)
	has := func(fn *vm.Funcode, op vm.Opcode) bool {
		for _, in := range fn.Code {
			if in.Op == op {
				return true
			}
		}
		return false
	}
	fn, _, err := CompileEval(f.prog, f.scope, "x + n")
	if err != nil {
		t.Fatal(err)
	}
	if has(fn, vm.CALL) || has(fn, vm.CALLV) || fn.Name != "<eval>" || fn.NumParams != 6 {
		t.Errorf("x + n:\n%s", listing(fn))
	}
	fn, _, err = CompileEval(f.prog, f.scope, "twice(n)")
	if err != nil {
		t.Fatal(err)
	}
	if !has(fn, vm.CALL) {
		t.Errorf("twice(n) has no CALL:\n%s", listing(fn))
	}
	// A loop in called code runs out of a budget.
	fn, typ, err := CompileEval(f.prog, f.scope, "spin()")
	if err != nil {
		t.Fatal(err)
	}
	if _, stop := f.run(t, fn, typ); stop != vm.StopBudget {
		t.Errorf("spin() stopped with %v, want budget", stop)
	}
}
