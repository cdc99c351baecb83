package main

import (
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// The carriers benchmark: a CPU-bound program with two threads (no
// channel traffic, no shared data) on one carrier and on two. On a
// machine with two free cores the second should take a little over half
// the time of the first:
//
//	go test ./cmd/nlangdbg -run '^$' -bench Carriers -benchtime 5x

// twoThreadsSrc spawns two threads that each spin through a loop of
// arithmetic and calls, and waits for both.
const twoThreadsSrc = `import io;
import thread;
int step(int s, int i) {
    return (s + i * 7) % 1000003;
}
int work(int n) {
    int s = 0;
    for (int i = 0; i < n; i += 1) {
        s = step(s, i);
    }
    return s;
}
int main() {
    Future<int> a = thread.spawn(work, 3000000);
    Future<int> b = thread.spawn(work, 3000000);
    io.print(a.get() + b.get());
    return 0;
}
`

func twoThreadsProgram(b *testing.B) *vm.Program {
	b.Helper()
	prog := compileProgram("two_threads.n", []byte(twoThreadsSrc), os.Stderr)
	if prog == nil {
		b.Fatal("compile failed")
	}
	return prog
}

// runCarriers runs prog to the end on n carriers.
func runCarriers(b *testing.B, prog *vm.Program, n int) {
	m := vm.NewMachine(prog, nil, io.Discard, os.Stderr)
	s := sched.New(m, sched.Options{Carriers: n})
	s.Start(m.NewCallThread(prog.Main, nil))
	if code := s.Run(); code != 0 {
		b.Fatalf("exit code %d", code)
	}
}

// BenchmarkCarriersTwoThreads times the program on 1 and on 2 carriers.
func BenchmarkCarriersTwoThreads(b *testing.B) {
	prog := twoThreadsProgram(b)
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("carriers=%d", n), func(b *testing.B) {
			for b.Loop() {
				runCarriers(b, prog, n)
			}
		})
	}
}

// BenchmarkCarriersSpeedup runs the program on 1 and on 2 carriers in
// turn and reports time(1 carrier) / time(2 carriers) as "speedup".
func BenchmarkCarriersSpeedup(b *testing.B) {
	prog := twoThreadsProgram(b)
	var one, two time.Duration
	for b.Loop() {
		t0 := time.Now()
		runCarriers(b, prog, 1)
		t1 := time.Now()
		runCarriers(b, prog, 2)
		one += t1.Sub(t0)
		two += time.Since(t1)
	}
	b.ReportMetric(float64(one)/float64(two), "speedup")
	b.ReportMetric(float64(one.Nanoseconds())/float64(b.N), "ns/run-1carrier")
	b.ReportMetric(float64(two.Nanoseconds())/float64(b.N), "ns/run-2carriers")
}
