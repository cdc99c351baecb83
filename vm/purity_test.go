package vm_test

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// testLib is the standard library plus two test-only natives: goDepth,
// the depth of the Go stack it is called on, and boom, which panics.
func testLib() *vm.Library {
	lib := vm.StdLib()
	lib.Packages["probe"] = &vm.Package{Name: "probe", Funcs: []*vm.Native{
		{Name: "probe.goDepth", Sig: "int goDepth()", Fn: func(t *vm.Thread, a []vm.Value) (vm.Value, error) {
			pcs := make([]uintptr, 4096)
			return vm.IntV(int64(runtime.Callers(0, pcs))), nil
		}},
		{Name: "probe.boom", Sig: "int boom(int x)", Fn: func(t *vm.Thread, a []vm.Value) (vm.Value, error) {
			var m map[string]int
			m["x"] = int(a[0].I()) // a nil-map write: a Go panic
			return vm.Value{}, nil
		}},
	}}
	return lib
}

func compileProbe(tb testing.TB, src string) *vm.Program {
	tb.Helper()
	prog, err := compile.CompileFile("t.n", []byte(src), compile.Options{Lib: testLib()})
	if err != nil {
		tb.Fatalf("compile: %v\n%s", err, src)
	}
	return prog
}

// TestNoGoRecursion proves DESIGN rule 1 for every way NLang code runs:
// direct calls, virtual calls, function values, and user code that the
// runtime itself calls (toString while a List, a Dict, an array or a
// struct is converted to a string, Object.toString on a collection,
// Dict.get's message). The Go stack under a native called at NLang depth
// 1 is as deep as under the same native called 200 activations deeper,
// through all of those: no NLang activation takes a Go frame.
func TestNoGoRecursion(t *testing.T) {
	src := `import io;
import probe;
class Node {
    public int n;
    public Node(int n) { this.n = n; }
    public virtual string toString() {
        if (n == 0) { return "" + probe.goDepth(); }
        List<Node> l = [new Node(n - 1)];
        Dict<string, Node[]> d = {};
        Node[] arr = [l[0]];
        d.set("k", arr);
        switch (n % 4) {
            case 0: return "" + l;
            case 1: return d.toString();
            case 2: return "" + arr;
        }
        Func<string, Node> f = toStr;
        return f(l[0]);
    }
}
string toStr(Node x) { return x.toString(); }
int main() {
    io.print("" + probe.goDepth());
    List<Node> top = [new Node(200)];
    io.print("" + top);
    return 0;
}`
	prog := compileProbe(t, src)
	for _, budget := range []int{1, 7, math.MaxInt} {
		var out bytes.Buffer
		_, th := newMain(prog, &out)
		finish(t, th, budget)
		if th.Uncaught != nil {
			t.Fatalf("uncaught %s", vm.FormatUncaught(th.Uncaught))
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("output %q", out.String())
		}
		deep := strings.Trim(lines[1], "[]{}\"k: ")
		if testing.Verbose() {
			t.Logf("budget %d: %s", budget, out.String())
		}
		if deep != lines[0] {
			t.Errorf("budget %d: Go stack depth %s at NLang depth 1, %s some 1,000 activations deeper (output %q)", budget, lines[0], deep, out.String())
		}
	}
}

// TestNativePanicContained: a Go panic in a native becomes an NLang
// InternalError at the call, with the NLang backtrace; a handler can
// catch it, and the thread goes on.
func TestNativePanicContained(t *testing.T) {
	src := `import io;
import probe;
int f(int x) {
    return probe.boom(x); // @boom
}
int main() {
    try {
        f(1);
    } catch (InternalError e) {
        io.print("caught " + e.message);
    }
    return f(2); // @main
}`
	prog := compileProbe(t, src)
	var out, log bytes.Buffer
	m, th := newMain(prog, &out)
	m.DebugLog = &log
	finish(t, th, math.MaxInt)
	if !strings.HasPrefix(out.String(), "caught internal error: assignment to entry in nil map") {
		t.Errorf("output %q", out.String())
	}
	e := th.UncaughtError()
	if e == nil || e.Exc.Class.Name != "InternalError" {
		t.Fatalf("uncaught %v, want an InternalError", e)
	}
	want := fmt.Sprintf("  at f (t.n:%d)\n  at main (t.n:%d)\n", markerLine(t, src, "boom"), markerLine(t, src, "main"))
	if got := e.Backtrace(); got != want {
		t.Errorf("backtrace\n%swant\n%s", got, want)
	}
	if !strings.Contains(log.String(), "purity_test.go") || strings.Count(log.String(), "internal error in thread") != 2 {
		t.Errorf("debug log lacks the Go stacks:\n%s", log.String())
	}
}
