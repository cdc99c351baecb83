package compile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// addScriptSeeds adds every testdata/run/**/*.n script to f's corpus.
func addScriptSeeds(f *testing.F) {
	n := 0
	err := filepath.WalkDir("../../testdata/run", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".n") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f.Add(data)
		n++
		return nil
	})
	if err != nil || n == 0 {
		f.Fatalf("no seed scripts (%d): %v", n, err)
	}
}

// addCrashSeeds adds inputs of the classes that once crashed or hung the
// compiler: chains as long as the source (operators, concatenations,
// member accesses, calls, casts, else-if), nesting past the limit, typing
// that was exponential in the nesting, default values and finally blocks
// that expand exponentially, default values and type aliases that need
// themselves.
func addCrashSeeds(f *testing.F) {
	rep := func(s string, n int) string { return strings.Repeat(s, n) }
	for _, src := range []string{
		"int depth(int n, int m = depth(1)) { return n; }\nint main() { return depth(1, 2); }",
		"int a(int x = b()) { return x; }\nint b(int y = a()) { return y; }\nint main() { return a(1); }",
		"class C { public int m(int k = this.m()) { return k; } }\nint main() { C c = new C(); return c.m(1); }",
		"class B { public int v = f(); }\nint f(B b = new B()) { return 1; }\nint main() { return f(new B()); }",
		"int f(int a = b, int b = 1) { return a; }\nint main() { return f(); }",
		"using P = Q;\nusing Q = P;\nusing L = List<L>;\nint main() { P p; L l; return 0; }",
		"enum E { A = " + rep("1+", 3000) + "1, B = A }\nint main() { return 0; }",
		"import io;\nint main() { int x = 1" + rep("+1", 5000) + "; io.print(x); return 0; }",
		"import io;\nint main() { string s = \"\"" + rep(" + \"a\"", 3000) + "; io.print(\"" + rep("${s}", 500) + "\"); return 0; }",
		"class N { public N next; }\nint main() { N a = new N(); a.next = a; N b = a" + rep(".next", 3000) + "; return 0; }",
		"class N { public N self() { return this; } public List<N> l; }\nint main() { N a = new N(); N b = a" + rep(".self().l[0]", 1000) + "; return 0; }",
		"int main() { int c = 66; char d = c" + rep(" as char as int", 1000) + " as char; return 0; }",
		"int main() { int x = 3; " + strings.TrimPrefix(rep(" else if (x == 1) { x = 2; }", 3000), " else") + " return x; }",
		"int main() { bool t = true; bool b = t" + rep(" && t", 2000) + rep(" || false", 2000) + "; return 0; }",
		"int main() { float f = 0.5" + rep(" + 0.5", 2000) + "; return 0; }",
		"int main() { return " + rep("(", 1100) + "1" + rep(")", 1100) + "; }",
		"int main() { " + rep("{", 1100) + rep("}", 1100) + " return 0; }",
		"int main() { " + rep("if (true) ", 1100) + "return 1; return 0; }",
		"int main() { return " + rep("1+(", 300) + "1" + rep(")", 300) + "; }",
		"int f(int x) { return x; }\nlong f(long x) { return x; }\nint main() { return " + rep("f(", 300) + "0" + rep(")", 300) + "; }",
		func() string {
			var b strings.Builder
			for i := 0; i < 12; i++ {
				fmt.Fprintf(&b, "int f%d(int x = f%d() + f%d()) { return x; }\n", i, i+1, i+1)
			}
			return b.String() + "int f12() { return 1; }\nint main() { return f0(); }"
		}(),
		"import io;\nint main() { " + rep("try { io.print(1); } catch (Exception e) { io.print(2); } finally { ", 12) + "io.print(3);" + rep("}", 12) + " return 0; }",
	} {
		f.Add([]byte(src))
	}
}

// FuzzCompile checks that CompileFile never panics, whatever the input,
// and that it returns either a program with a main or a list of
// positioned errors. The scripts of testdata/run and the crash classes of
// addCrashSeeds are the seeds; the scheduler's library is included so
// that the concurrency scripts compile too. The work budget is lowered so
// that an input that expands exponentially costs a fuzzer a fraction of a
// second, not seconds (the budget's logic is the same).
// and that it returns either a program with a main, whose code passes
// the interpreter's verification, or a list of positioned errors. The scripts of testdata/run are the seeds; the
// scheduler's library is included so that the concurrency scripts
// compile too.
func FuzzCompile(f *testing.F) {
	addScriptSeeds(f)
	addCrashSeeds(f)
	old := workBase
	workBase = 1 << 17
	f.Cleanup(func() { workBase = old })
	f.Fuzz(func(t *testing.T, src []byte) {
		lib := vm.StdLib()
		lib.Merge(sched.Lib())
		prog, err := CompileFile("fuzz.n", src, Options{Lib: lib, ReadFile: noFiles})
		if err != nil {
			if prog != nil {
				t.Errorf("CompileFile returned both a program and %v", err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz.n:") {
				t.Errorf("error %q does not start with the file name", err)
			}
			return
		}
		if prog.Main == nil {
			t.Errorf("compiled program has no main")
		}
		// The interpreter runs only verified code: what the compiler
		// emits must pass.
		for _, fn := range prog.Funcs {
			if err := fn.Malformed(); err != nil {
				t.Errorf("%s: %v", fn.Name, err)
			}
		}
	})
}

// Limits of one FuzzRun execution.
const (
	fuzzBudget    = 1000 // reductions per Run call
	fuzzMaxRuns   = 200  // Run calls: at most 200 000 reductions
	fuzzMaxOutput = 1 << 16
)

// fuzzLib is the standard library without the natives that touch the
// file system, so that a mutated program cannot write or delete files.
func fuzzLib() *vm.Library {
	lib := vm.StdLib()
	delete(lib.Packages, "fs")
	io := lib.Packages["io"]
	var funcs []*vm.Native
	for _, n := range io.Funcs {
		switch n.Name {
		case "io.readFile", "io.writeFile", "io.appendFile":
		default:
			funcs = append(funcs, n)
		}
	}
	io.Funcs = funcs
	return lib
}

// capWriter keeps the first max bytes written to it and drops the rest.
type capWriter struct {
	buf []byte
	max int
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.max - len(w.buf); room > 0 {
		w.buf = append(w.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// FuzzRun compiles each input that compiles and runs it on one thread
// without a scheduler, Run(1000) at a time, up to a total of fuzzMaxRuns
// calls. No Go panic may escape, and every Run must end in a valid way:
// the thread is done with a result or an uncaught Exception carrying a
// backtrace, or it stopped at a safepoint (budget, yield) or parked (no
// scheduler can wake it: the run ends there). A program still running at
// the cap is fine: it spent its steps at safepoints.
//
// Known limitation: the VM bounds arrays by MaxHeap but not strings or
// Lists, so an input that doubles a string in a loop could exhaust
// memory; the step cap keeps the seeds' loops far from that.
func FuzzRun(f *testing.F) {
	addScriptSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		prog, err := CompileFile("fuzz.n", src, Options{Lib: fuzzLib(), ReadFile: noFiles})
		if err != nil {
			return
		}
		out := &capWriter{max: fuzzMaxOutput}
		m := vm.NewMachine(prog, strings.NewReader("1 2 3\nline\n"), out, out)
		m.MaxFrames = 10_000
		m.MaxHeap = 1 << 24
		th := m.NewCallThread(prog.Main, nil)
		for runs := 0; runs < fuzzMaxRuns; runs++ {
			switch stop := th.Run(fuzzBudget); stop {
			case vm.StopBudget, vm.StopYield:
				if th.Done() {
					t.Fatalf("Run returned %v on a finished thread", stop)
				}
				continue
			case vm.StopPark:
				if th.WaitReason == "" {
					t.Errorf("thread parked without a wait reason")
				}
				return
			case vm.StopDone:
				if !th.Done() {
					t.Fatalf("Run returned done with %d frames left", th.Depth())
				}
				if exc := th.Uncaught; exc != nil {
					if !exc.Class.IsSubclassOf(prog.ClassByName("Exception")) {
						t.Errorf("uncaught %s is not an Exception", exc.Class.Name)
					}
					if len(vm.ExceptionTrace(exc)) == 0 {
						t.Errorf("uncaught %s has no backtrace", vm.ExceptionString(exc))
					}
					if e := th.UncaughtError(); e == nil || !strings.HasPrefix(e.Error(), "Runtime error: "+exc.Class.Name) {
						t.Errorf("UncaughtError() = %v", e)
					}
				}
				return
			default:
				t.Fatalf("Run returned %v without a debugger", stop)
			}
		}
	})
}
