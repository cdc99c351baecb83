package race_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/race"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

func compileSrc(t testing.TB, name string, src []byte) *vm.Program {
	t.Helper()
	lib := vm.StdLib()
	lib.Merge(sched.Lib())
	prog, err := compile.CompileFile(name, src, compile.Options{Lib: lib})
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// runRace runs prog instrumented, with the detector, and returns its
// races, exit code and stdout.
func runRace(t testing.TB, prog *vm.Program) ([]*race.Race, int, string) {
	t.Helper()
	race.Instrument(prog)
	var out, errb bytes.Buffer
	m := vm.NewMachine(prog, strings.NewReader(""), &out, &errb)
	s := sched.New(m, sched.Options{Clock: &sched.VirtualClock{Step: 1000}})
	d := race.New(nil)
	if err := d.Install(m, s); err != nil {
		t.Fatal(err)
	}
	s.Start(m.NewCallThread(prog.Main, nil))
	code := s.Run()
	return d.Races(), code, out.String()
}

func runFile(t *testing.T, path string) ([]*race.Race, int, string) {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return runRace(t, compileSrc(t, path, src))
}

// TestLostUpdate: two threads' unlocked c.n = c.n + 1 race, though every
// one-carrier run gets the right total.
func TestLostUpdate(t *testing.T) {
	races, code, out := runFile(t, "../../testdata/explore/lost_update.n")
	if code != 0 || out != "200\n" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if len(races) != 1 {
		t.Fatalf("%d races, want 1", len(races))
	}
	r := races[0]
	for _, want := range []string{
		"WARNING: DATA RACE\n",
		"Read of Counter.n by thread 3 \"thread-3\":\n  at add (lost_update.n:21)\n",
		"Previous write of Counter.n by thread 2 \"thread-2\":\n  at add (lost_update.n:21)\n",
	} {
		if !strings.Contains(r.Report, want) {
			t.Errorf("report lacks %q:\n%s", want, r.Report)
		}
	}
}

// TestDictRace: check-then-act on a Dict is a race on the Dict.
func TestDictRace(t *testing.T) {
	races, _, _ := runFile(t, "../../testdata/explore/dict_check_then_act.n")
	if len(races) == 0 || races[0].Where != "Dict" {
		t.Fatalf("races %+v, want one on the Dict", races)
	}
}

// TestNoFalsePositives: programs whose shared data is ordered by locks,
// channels, joins, futures and atomics report nothing: the planted bugs
// that are not data races and every concurrency script.
func TestNoFalsePositives(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/run/concurrency/*.n")
	for _, f := range []string{"atomicity.n", "lock_order.n", "missed_wakeup.n", "bench4.n"} {
		files = append(files, filepath.Join("../../testdata/explore", f))
	}
	for _, f := range files {
		if races, _, _ := runFile(t, f); len(races) > 0 {
			t.Errorf("%s: %s", f, races[0].Report)
		}
	}
}

// TestHappensBefore: each edge orders a write before a read in another
// thread; without it (the sleep orders them in time only) it is a race.
func TestHappensBefore(t *testing.T) {
	const head = "import io;\nimport thread;\nclass Box {\n    public int v;\n    public Box() { v = 0; }\n}\n"
	for _, c := range []struct {
		name, src string
		race      bool
	}{
		{"channel", `void w(Box b, Channel<int> c) { b.v = 1; c.send(1); }
int main() { Box b = new Box(); Channel<int> c = new Channel<int>(1); Thread t = thread.spawn(w, b, c); c.recv(); io.print(b.v); t.join(); return 0; }`, false},
		{"unbuffered channel", `void w(Box b, Channel<int> c) { b.v = 1; c.send(1); }
int main() { Box b = new Box(); Channel<int> c = new Channel<int>(); Thread t = thread.spawn(w, b, c); c.recv(); io.print(b.v); t.join(); return 0; }`, false},
		{"mutex", `void w(Box b, Mutex m) { m.lock(); b.v = 1; m.unlock(); }
int main() { Box b = new Box(); Mutex m = new Mutex(); Thread t = thread.spawn(w, b, m); thread.sleep(1); m.lock(); io.print(b.v); m.unlock(); t.join(); return 0; }`, false},
		{"future", `int w(Box b) { b.v = 1; return 2; }
int main() { Box b = new Box(); Future<int> f = thread.spawn(w, b); int x = f.get(); io.print(b.v); return 0; }`, false},
		{"join", `void w(Box b) { b.v = 1; }
int main() { Box b = new Box(); Thread t = thread.spawn(w, b); t.join(); io.print(b.v); return 0; }`, false},
		{"spawn", `void w(Box b) { io.print(b.v); }
int main() { Box b = new Box(); b.v = 5; Thread t = thread.spawn(w, b); t.join(); return 0; }`, false},
		{"atomic", `void w(Box b, AtomicInt a) { b.v = 1; a.set(1); }
int main() { Box b = new Box(); AtomicInt a = new AtomicInt(0); Thread t = thread.spawn(w, b, a); while (a.get() == 0) { thread.yield(); } io.print(b.v); t.join(); return 0; }`, false},
		{"semaphore", `void w(Box b, Semaphore s) { b.v = 1; s.release(); }
int main() { Box b = new Box(); Semaphore s = new Semaphore(0); Thread t = thread.spawn(w, b, s); s.acquire(); io.print(b.v); t.join(); return 0; }`, false},
		{"close", `void w(Box b, Channel<int> c) { b.v = 1; c.close(); }
int main() { Box b = new Box(); Channel<int> c = new Channel<int>(); Thread t = thread.spawn(w, b, c); try { c.recv(); } catch (ChannelClosedException e) { } io.print(b.v); t.join(); return 0; }`, false},
		{"sleep only", `void w(Box b) { b.v = 1; }
int main() { Box b = new Box(); Thread t = thread.spawn(w, b); thread.sleep(5); io.print(b.v); t.join(); return 0; }`, true},
		{"array", `void w(int[] a) { a[0] = 1; }
int main() { int[] a = new int[2]; Thread t = thread.spawn(w, a); thread.sleep(5); io.print(a[0]); t.join(); return 0; }`, true},
		{"distinct elements", `void w(int[] a) { a[0] = 1; }
int main() { int[] a = new int[2]; Thread t = thread.spawn(w, a); thread.sleep(5); a[1] = 2; t.join(); io.print(a[0] + a[1]); return 0; }`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			races, code, out := runRace(t, compileSrc(t, "hb.n", []byte(head+c.src)))
			if code != 0 {
				t.Fatalf("exit %d, stdout %q", code, out)
			}
			if got := len(races) > 0; got != c.race {
				report := ""
				if got {
					report = races[0].Report
				}
				t.Errorf("race %v, want %v %s", got, c.race, report)
			}
		})
	}
}

// TestInstrumentOnly: a program as compiled has no trap (a run without
// the detector runs the instructions it always ran); Instrument traps
// its accesses, and a run of it without a detector still works.
func TestInstrumentOnly(t *testing.T) {
	src, _ := os.ReadFile("../../testdata/explore/lost_update.n")
	prog := compileSrc(t, "lost_update.n", src)
	count := func() (traps, accesses int) {
		for _, fn := range prog.Funcs {
			for pc := range fn.Code {
				if fn.Code[pc].Op == vm.TRAP {
					traps++
				}
				switch fn.Instr(int32(pc)).Op {
				case vm.GETF, vm.SETF:
					accesses++
				}
			}
		}
		return
	}
	if traps, acc := count(); traps != 0 || acc == 0 {
		t.Fatalf("compiled: %d traps, %d field accesses", traps, acc)
	}
	race.Instrument(prog)
	if traps, acc := count(); traps < acc {
		t.Fatalf("instrumented: %d traps for %d field accesses", traps, acc)
	}
	var out bytes.Buffer
	m := vm.NewMachine(prog, nil, &out, &out)
	s := sched.New(m, sched.Options{})
	s.Start(m.NewCallThread(prog.Main, nil))
	if code := s.Run(); code != 0 || out.String() != "200\n" {
		t.Errorf("instrumented, no detector: exit %d, %q", code, out.String())
	}
}
