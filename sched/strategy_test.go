package sched_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// scripted is a Strategy that logs its picks and lets a function choose.
type scripted struct {
	picks  int
	log    []string
	choose func(n int, runnable []*vm.Thread) sched.Pick
}

func (s *scripted) Pick(runnable []*vm.Thread) sched.Pick {
	s.picks++
	var ids []string
	for _, t := range runnable {
		ids = append(ids, t.Name())
	}
	s.log = append(s.log, strings.Join(ids, ","))
	return s.choose(s.picks, runnable)
}

func compileSrc(t *testing.T, src string) *vm.Program {
	t.Helper()
	lib := vm.StdLib()
	lib.Merge(sched.Lib())
	prog, err := compile.CompileFile("t.n", []byte(src), compile.Options{Lib: lib})
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

func runWith(t *testing.T, prog *vm.Program, st sched.Strategy, carriers int) (int, string, error) {
	t.Helper()
	var out bytes.Buffer
	m := vm.NewMachine(prog, strings.NewReader(""), &out, &out)
	s := sched.New(m, sched.Options{Carriers: carriers, Clock: &sched.VirtualClock{}})
	if err := s.SetStrategy(st); err != nil {
		return 0, "", err
	}
	s.Start(m.NewCallThread(prog.Main, nil))
	return s.Run(), out.String(), nil
}

const twoPrinters = `
import io;
import thread;
void say(string s) {
    for (int i = 0; i < 3; i += 1) {
        io.print(s);
    }
}
int main() {
    Thread a = thread.spawn(say, "a");
    Thread b = thread.spawn(say, "b");
    a.join();
    b.join();
    return 0;
}
`

// TestStrategyChoosesThreadAndBudget: the strategy's thread runs, for the
// budget it gives (a loop back-edge is a safepoint: budget 1 is one
// iteration).
func TestStrategyChoosesThreadAndBudget(t *testing.T) {
	prog := compileSrc(t, twoPrinters)
	// Never the thread of the previous pick if another can run, one
	// reduction at a time: a and b alternate.
	var last *vm.Thread
	st := &scripted{choose: func(n int, r []*vm.Thread) sched.Pick {
		t := r[0]
		for _, c := range r {
			if c != last && c.Name() != "main" {
				t = c
				break
			}
		}
		last = t
		return sched.Pick{Thread: t, Budget: 1}
	}}
	code, out, err := runWith(t, prog, st, 1)
	if err != nil || code != 0 {
		t.Fatalf("exit %d, %v", code, err)
	}
	got := strings.ReplaceAll(out, "\n", "")
	if strings.Count(got, "a") != 3 || strings.Count(got, "b") != 3 || strings.Contains(got, "aaa") || strings.Contains(got, "bbb") {
		t.Errorf("alternating picks: output %q, want a and b interleaved", got)
	}
	// FIFO with the quota: each thread runs whole.
	fifo := &scripted{choose: func(n int, r []*vm.Thread) sched.Pick { return sched.Pick{Thread: r[0]} }}
	if _, out, _ := runWith(t, prog, fifo, 1); strings.ReplaceAll(out, "\n", "") != "aaabbb" {
		t.Errorf("first runnable, whole quanta: %q, want aaabbb", out)
	}
}

// TestStrategySyncPoints: every synchronisation native is a scheduling
// point: main's quantum ends after each lock and unlock.
func TestStrategySyncPoints(t *testing.T) {
	prog := compileSrc(t, `
int main() {
    Mutex m = new Mutex();
    m.lock();
    m.unlock();
    m.lock();
    m.unlock();
    return 0;
}
`)
	st := &scripted{choose: func(n int, r []*vm.Thread) sched.Pick { return sched.Pick{Thread: r[0]} }}
	if code, _, err := runWith(t, prog, st, 1); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	// The first dispatch, then one after each of the constructor, two
	// locks and two unlocks.
	if st.picks != 6 {
		t.Errorf("%d picks, want 6: %v", st.picks, st.log)
	}
}

// TestStrategyEnds: a strategy can end the program; nil leaves the
// choice to the scheduler.
func TestStrategyEnds(t *testing.T) {
	prog := compileSrc(t, twoPrinters)
	st := &scripted{choose: func(n int, r []*vm.Thread) sched.Pick {
		if n == 4 {
			return sched.Pick{End: true, Code: 9}
		}
		return sched.Pick{}
	}}
	code, _, err := runWith(t, prog, st, 1)
	if err != nil || code != 9 || st.picks != 4 {
		t.Errorf("exit %d after %d picks (%v); want 9 after 4", code, st.picks, err)
	}
	if _, _, err := runWith(t, prog, st, 2); err != sched.ErrStrategyCarriers {
		t.Errorf("two carriers: %v, want ErrStrategyCarriers", err)
	}
}
