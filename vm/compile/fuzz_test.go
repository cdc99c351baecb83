package compile

import (
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

// FuzzCompile checks that CompileFile never panics, whatever the input,
// and that it returns either a program with a main, whose code passes
// the interpreter's verification, or a list of positioned errors. The scripts of testdata/run are the seeds; the
// scheduler's library is included so that the concurrency scripts
// compile too.
func FuzzCompile(f *testing.F) {
	addScriptSeeds(f)
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
