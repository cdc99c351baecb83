package compile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// smallStack lowers the Go stack limit to 8 MiB for the rest of the test,
// so that a recursion proportional to the input (fifty thousand levels of
// a few hundred bytes each) fails at once instead of taking the default
// gigabyte first.
func smallStack(t *testing.T) {
	old := debug.SetMaxStack(8 << 20)
	t.Cleanup(func() { debug.SetMaxStack(old) })
}

// runMain compiles src (which must compile) and runs its main on one
// thread without a scheduler; it returns what the program printed.
func runMain(t *testing.T, src string) string {
	t.Helper()
	prog, err := CompileFile("t.n", []byte(src), Options{Lib: vm.StdLib(), ReadFile: noFiles})
	if err != nil {
		msg := err.Error()
		t.Fatalf("compile: %.300s", msg)
	}
	var out strings.Builder
	m := vm.NewMachine(prog, strings.NewReader(""), &out, &out)
	th := m.NewCallThread(prog.Main, nil)
	for i := 0; !th.Done(); i++ {
		if i > 1000 {
			t.Fatalf("main did not end")
		}
		th.Run(1 << 20)
	}
	if th.Uncaught != nil {
		t.Fatalf("uncaught %s", vm.ExceptionString(th.Uncaught))
	}
	return out.String()
}

// chain returns first followed by n times sep+item.
func chain(first, sep, item string, n int) string {
	var b strings.Builder
	b.Grow(len(first) + n*(len(sep)+len(item)))
	b.WriteString(first)
	for i := 0; i < n; i++ {
		b.WriteString(sep)
		b.WriteString(item)
	}
	return b.String()
}

// TestLongChains: chains of left-associative operators as long as the
// source compile and run with a small, bounded Go stack (the compiler
// walks them with loops), and each gives the value it should.
func TestLongChains(t *testing.T) {
	smallStack(t)
	const n = 1_000_000
	for _, tc := range []struct {
		name, src, want string
	}{
		{"a million additions (2 MB)", "import io;\nint main() { int x = " + chain("1", "+", "1", n) + "; io.print(x); return 0; }", "1000001\n"},
		{"subtractions of a local", "import io;\nint main() { int y = 3; long x = " + chain("y", "-", "y", 50_000) + "; io.print(x); return 0; }", "-149997\n"},
		{"string concatenation", "import io;\nint main() { int k = 7; string s = " + chain(`""`, "+", "k", 50_000) + "; io.print(s.length()); return 0; }", "50000\n"},
		{"interpolation", "import io;\nint main() { int k = 7; string s = \"" + strings.Repeat("${k}", 50_000) + "\"; io.print(s.length()); return 0; }", "50000\n"},
		{"&& and ||", "import io;\nint main() { bool t = true; bool x = " + chain("t", " && ", "t", 50_000) + chain("", " || ", "false", 50_000) + "; io.print(x); return 0; }", "true\n"},
		{"float arithmetic", "import io;\nint main() { float f = " + chain("0.5", "+", "0.5", 50_000) + "; io.print(f); return 0; }", "25000.5\n"},
		{"member accesses", "import io;\nclass N { public N next; public int v; }\nint main() { N a = new N(); a.next = a; a.v = 4; io.print(a" + strings.Repeat(".next", 50_000) + ".v); return 0; }", "4\n"},
		{"method calls", "import io;\nclass N { public int v; public N self() { return this; } }\nint main() { N a = new N(); a.v = 5; io.print(a" + strings.Repeat(".self()", 50_000) + ".v); return 0; }", "5\n"},
		{"subscripts and calls", "import io;\nclass N { public List<N> l; public int v; }\nint main() { N a = new N(); a.l = [a]; a.v = 6; io.print(a" + strings.Repeat(".l[0]", 50_000) + ".v); return 0; }", "6\n"},
		{"casts", "import io;\nint main() { int c = 66; io.print(c" + strings.Repeat(" as char as int", 50_000) + " as char); return 0; }", "B\n"},
		{"else-if chain", "import io;\nint main() { int x = 19999; " + elseIfs(20_000) + " return 0; }", "19999\n"},
		{"enum value", "import io;\nenum E { A = " + chain("0", "+", "1", 200_000) + " }\nint main() { io.print(E.A as int); return 0; }", "200000\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := runMain(t, tc.src); got != tc.want {
				t.Errorf("printed %q, want %q", got, tc.want)
			}
		})
	}
}

// elseIfs returns an if statement with n branches printing x when it is
// the branch's number.
func elseIfs(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(" else ")
		}
		fmt.Fprintf(&b, "if (x == %d) { io.print(%d); }", i, i)
	}
	return b.String()
}

// TestDeepNesting: nesting deeper than the parser allows is one clear
// error at the place it goes too deep, whatever nests: parentheses,
// unary operators, blocks, statements, array literals, argument lists,
// type arguments.
func TestDeepNesting(t *testing.T) {
	smallStack(t)
	const n = 50_000
	for _, tc := range []struct{ name, src string }{
		{"parentheses", "int main() { int x = " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + "; return x; }"},
		{"right-nested operators", "int main() { int x = " + strings.Repeat("1+(", n) + "1" + strings.Repeat(")", n) + "; return x; }"},
		{"unary minus", "int main() { int x = " + strings.Repeat("- ", n) + "1; return x; }"},
		{"negations", "int main() { bool b = " + strings.Repeat("!", n) + "true; return 0; }"},
		{"blocks", "int main() { " + strings.Repeat("{", n) + strings.Repeat("}", n) + " return 0; }"},
		{"ifs", "int main() { " + strings.Repeat("if (true) ", n) + "return 1; return 0; }"},
		{"loops", "int main() { " + strings.Repeat("while (false) ", n) + "; return 0; }"},
		{"array literals", "int main() { List<int> l = " + strings.Repeat("[", n) + strings.Repeat("]", n) + "; return 0; }"},
		{"calls", "int f(int x) { return x; }\nint main() { return " + strings.Repeat("f(", n) + "1" + strings.Repeat(")", n) + "; }"},
		{"type arguments", "int main() { " + strings.Repeat("List<", n) + "int" + strings.Repeat(">", n) + " l; return 0; }"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := compileErrors(t, tc.src)
			found := false
			for _, e := range errs {
				found = found || strings.Contains(e, "nested too deeply")
			}
			if !found || len(errs) > 3 {
				t.Errorf("errors %.500q, want one saying the program is nested too deeply", errs)
			}
		})
	}
}

// TestNestingWithinLimit: nesting the parser accepts compiles in time
// linear in the source, even where typing an operand needs the type of
// the other one first (1 + (1 + (…)), overloaded calls of calls): the
// compiler remembers the types it has found instead of typing a subtree
// again at each level, which took time exponential in the depth.
func TestNestingWithinLimit(t *testing.T) {
	const n = 200
	for _, tc := range []struct{ name, src, want string }{
		{"literal plus parenthesis", "import io;\nint main() { io.print(" + strings.Repeat("1+(", n) + "1" + strings.Repeat(")", n) + "); return 0; }", "201\n"},
		{"overloaded calls", "import io;\nint f(int x) { return x + 1; }\nlong f(long x) { return x; }\ndouble f(double x) { return x; }\nint main() { io.print(" + strings.Repeat("f(", n) + "0" + strings.Repeat(")", n) + "); return 0; }", "200\n"},
		{"calls with float arguments", "import io;\nfloat g(float x, float y) { return x; }\nint main() { io.print(" + strings.Repeat("g(0.5, ", n) + "0.5" + strings.Repeat(")", n) + "); return 0; }", "0.5\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := runMain(t, tc.src); got != tc.want {
				t.Errorf("printed %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCompileBombs: code that a few lines expand exponentially (default
// values calling functions with default values, finally blocks in finally
// blocks) is refused with one error once the work passes the budget.
func TestCompileBombs(t *testing.T) {
	old := workBase
	workBase = 100_000 // the default, a million, is more work than a test needs
	defer func() { workBase = old }()
	var defaults strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&defaults, "int f%d(int x = f%d() + f%d()) { return x; }\n", i, i+1, i+1)
	}
	defaults.WriteString("int f40() { return 1; }\nint main() { return f0(); }\n")
	finally := "import io;\nint main() { " + strings.Repeat("try { io.print(1); } catch (Exception e) { io.print(2); } finally { ", 40) +
		"io.print(3);" + strings.Repeat("}", 40) + " return 0; }"
	for _, tc := range []struct{ name, src string }{
		{"default values", defaults.String()},
		{"finally blocks", finally},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := compileErrors(t, tc.src)
			if len(errs) != 1 || !strings.Contains(errs[0], "program too large to compile") {
				t.Errorf("errors %q, want one saying the program is too large", errs)
			}
		})
	}
}

// TestDefaultCycles: a default value that needs itself again (through
// calls that leave the parameter to its default) is a compile error
// naming the cycle, even if every call passes the argument; a default
// that calls its own function with every argument is fine.
func TestDefaultCycles(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"itself", `int depth(int n, int m = depth(1)) { return n; }
int main() { return depth(1, 2); }`,
			[]string{"1:26: default value of parameter m of depth is cyclic: it needs itself again (depth.m → depth.m)"}},
		{"two functions", `int a(int x = b()) { return x; }
int b(int y = a()) { return y; }
int main() { return a(1) + b(2); }`,
			[]string{
				"1:15: default value of parameter y of b is cyclic: it needs itself again (b.y → a.x → b.y)",
				"2:15: default value of parameter x of a is cyclic: it needs itself again (a.x → b.y → a.x)",
			}},
		{"a method", `class C {
    public int m(int k = this.m()) { return k; }
}
int main() { C c = new C(); return c.m(3); }`,
			[]string{"2:31: default value of parameter k of C.m is cyclic: it needs itself again (C.m.k → C.m.k)"}},
		{"a constructor", `class C {
    public C(int k = new C().v) { }
    public int v;
}
int main() { C c = new C(1); return 0; }`,
			[]string{"2:22: default value of parameter k of C.C is cyclic: it needs itself again (C.C.k → C.C.k)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := compileErrors(t, tc.src)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	// Not a cycle the compiler expands: the default makes an object whose
	// field initialiser calls the function (they are compiled once, in a
	// function of their own; running it recurses until the frame limit).
	if errs := compileErrors(t, `class B { public int v = f(); }
int f(B b = new B()) { return 1; }
int main() { return f(new B()); }`); errs != nil {
		t.Errorf("a default constructing an object: %q", errs)
	}
	// Not a cycle: the default passes every argument.
	if got := runMain(t, `import io;
int f(int n, int m = f(0, 5)) { if (n == 0) { return m; } return n + m; }
int main() { io.print(f(1)); return 0; }`); got != "6\n" {
		t.Errorf("f(1) printed %q, want 6", got)
	}
}

// BenchmarkCompileLongChain compiles a chain of n additions (2n bytes)
// for n of 250 000 and 1 000 000; B/srcbyte, the bytes allocated per
// byte of source, stays the same: the memory is linear in the input.
func BenchmarkCompileLongChain(b *testing.B) {
	for _, n := range []int{250_000, 1_000_000} {
		src := []byte("int main() { int x = " + chain("1", "+", "1", n) + "; return x; }")
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			for i := 0; i < b.N; i++ {
				if _, err := CompileFile("t.n", src, Options{Lib: vm.StdLib(), ReadFile: noFiles}); err != nil {
					b.Fatal(err)
				}
			}
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/float64(len(src)), "B/srcbyte")
		})
	}
}

// BenchmarkCompileScripts compiles every script of testdata/run once per
// iteration: the compiler's speed on ordinary programs.
func BenchmarkCompileScripts(b *testing.B) {
	var srcs [][]byte
	err := filepath.WalkDir("../../testdata/run", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".n") {
			data, err := os.ReadFile(p)
			srcs = append(srcs, data)
			return err
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	lib := vm.StdLib()
	lib.Merge(sched.Lib())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, src := range srcs {
			CompileFile("t.n", src, Options{Lib: lib, ReadFile: noFiles})
		}
	}
}

// TestLongTypeAndImportChains: chains of declarations as long as the
// source are walked with loops too: a class deriving from a class
// deriving from… (laid out base first), imports of imports of… (each
// file loaded once), and a diamond of interfaces forty deep, whose
// subtype test followed every path (2^40) when it compiled and when it
// ran.
func TestLongTypeAndImportChains(t *testing.T) {
	smallStack(t)
	t.Run("inheritance", func(t *testing.T) {
		const n = 100_000
		var b strings.Builder
		b.WriteString("import io;\nclass C0 { public virtual int depth() { return 0; } }\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "class C%d : C%d { }\n", i, i-1)
		}
		fmt.Fprintf(&b, "int main() { C0 c = new C%d(); io.print(c.depth()); return 0; }\n", n-1)
		if got := runMain(t, b.String()); got != "0\n" {
			t.Errorf("printed %q, want 0", got)
		}
	})
	t.Run("imports", func(t *testing.T) {
		const n = 20_000
		files := func(path string) ([]byte, error) {
			var k int
			if _, err := fmt.Sscanf(filepath.Base(path), "m%d.n", &k); err != nil || k >= n {
				return nil, os.ErrNotExist
			}
			src := fmt.Sprintf("int f%d() { return %d; }\n", k, k)
			if k+1 < n {
				src = fmt.Sprintf("import m%d;\nimport m0;\n", k+1) + src
			}
			return []byte(src), nil
		}
		src := "import io;\nimport m0;\nint main() { io.print(m0.f0() + f1() + f19999()); return 0; }\n"
		prog, err := CompileFile("t.n", []byte(src), Options{Lib: vm.StdLib(), ReadFile: files})
		if err != nil {
			t.Fatalf("%.300v", err)
		}
		if len(prog.Files) != n+1 {
			t.Errorf("%d files loaded, want %d", len(prog.Files), n+1)
		}
	})
	t.Run("interface diamond", func(t *testing.T) {
		const n = 40
		var b strings.Builder
		b.WriteString("import io;\ninterface I0 { }\ninterface J0 { }\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "interface I%d : I%d implements J%d { }\ninterface J%d : I%d implements J%d { }\n", i, i-1, i-1, i, i-1, i-1)
		}
		fmt.Fprintf(&b, "class C implements I%d { }\nclass D { }\n", n-1)
		b.WriteString("int main() {\n    Object o = new C();\n    I0 first = new C();\n")
		b.WriteString("    try { D d = o as D; } catch (Exception e) { io.print(e.message); }\n")
		fmt.Fprintf(&b, "    J0 j = o as J0;\n    io.print(j != null && first != null);\n    return 0;\n}\n")
		if got := runMain(t, b.String()); got != "cannot cast C to D\ntrue\n" {
			t.Errorf("printed %q", got)
		}
	})
}
