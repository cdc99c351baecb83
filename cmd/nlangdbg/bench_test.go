package main

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// Benchmarks of the four workloads, each beside a Go baseline
// where one makes sense, so that ratios come from one run:
//
//	go test ./cmd/nlangdbg -run '^$' -bench . -benchtime 3x

func benchProgram(b *testing.B, path string) *vm.Program {
	b.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	prog := compileProgram(path, src, os.Stderr)
	if prog == nil {
		b.Fatal("compile failed")
	}
	return prog
}

func runBench(b *testing.B, prog *vm.Program) *sched.Scheduler {
	m := vm.NewMachine(prog, nil, io.Discard, os.Stderr)
	s := sched.New(m, sched.Options{})
	s.Start(m.NewCallThread(prog.Main, nil))
	if code := s.Run(); code != 0 {
		b.Fatalf("exit code %d", code)
	}
	return s
}

func BenchmarkFib30(b *testing.B) {
	prog := benchProgram(b, "../../testdata/bench/fib.n")
	for b.Loop() {
		runBench(b, prog)
	}
}

func BenchmarkLoop30M(b *testing.B) {
	prog := benchProgram(b, "../../testdata/bench/loop.n")
	for b.Loop() {
		runBench(b, prog)
	}
}

// BenchmarkPingPong1M reports ns per round trip (two channel handoffs and
// two thread switches).
func BenchmarkPingPong1M(b *testing.B) {
	prog := benchProgram(b, "../../testdata/bench/pingpong.n")
	for b.Loop() {
		runBench(b, prog)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ns/roundtrip")
}

// BenchmarkGoPingPong1M is the same workload with goroutines and Go
// channels (GOMAXPROCS as set by -cpu).
func BenchmarkGoPingPong1M(b *testing.B) {
	const n = 1_000_000
	for b.Loop() {
		ping, pong := make(chan int), make(chan int)
		go func() {
			for i := 0; i < n; i++ {
				pong <- <-ping + 1
			}
		}()
		v := 0
		for i := 0; i < n; i++ {
			ping <- v
			v = <-pong
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/roundtrip")
}

// BenchmarkPark1M spawns a million threads that park on one channel and
// reports the live heap per parked thread and the spawn time.
func BenchmarkPark1M(b *testing.B) {
	const n = 1_000_000
	prog := benchProgram(b, "../../testdata/bench/park.n")
	var perThread float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := runBench(b, prog)
		runtime.GC()
		runtime.ReadMemStats(&after)
		perThread = float64(after.HeapAlloc-before.HeapAlloc) / n
		if got := len(s.Threads()); got < n {
			b.Fatalf("%d live threads, want %d", got, n)
		}
		runtime.KeepAlive(s)
	}
	b.ReportMetric(perThread, "B/thread")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/1Mspawn")
}

// BenchmarkGoPark1M parks a million goroutines on one channel.
func BenchmarkGoPark1M(b *testing.B) {
	const n = 1_000_000
	var perG float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c := make(chan int)
		start := time.Now()
		for i := 0; i < n; i++ {
			go func() { <-c }()
		}
		for runtime.NumGoroutine() < n {
			runtime.Gosched()
		}
		_ = start
		runtime.GC()
		runtime.ReadMemStats(&after)
		perG = (float64(after.StackInuse) + float64(after.HeapAlloc) - float64(before.StackInuse) - float64(before.HeapAlloc)) / n
		close(c)
		for runtime.NumGoroutine() > 10 {
			runtime.Gosched()
		}
	}
	b.ReportMetric(perG, "B/goroutine")
}

// BenchmarkRelease300k parks 300,000 threads on one channel and closes
// it: every thread wakes and ends (exit must be O(1) per thread).
func BenchmarkRelease300k(b *testing.B) {
	prog := benchProgram(b, "../../testdata/bench/release.n")
	for b.Loop() {
		runBench(b, prog)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/300k")
}

// BenchmarkParkedGC100k parks 100,000 threads on one channel (once,
// before the timer) and then measures one full collection of Go's heap
// with them parked: what a parked thread costs the collector at each
// cycle (reported per thread). For instructions, run it under cachegrind
// with -test.benchtime 1x and 11x: the difference over 10 collections.
func BenchmarkParkedGC100k(b *testing.B) {
	const n = 100_000
	path := "../../testdata/bench/park.n"
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	src = bytes.Replace(src, []byte("1000000"), []byte(strconv.Itoa(n)), 1)
	prog := compileProgram(path, src, os.Stderr)
	if prog == nil {
		b.Fatal("compile failed")
	}
	s := runBench(b, prog)
	if got := len(s.Threads()); got < n {
		b.Fatalf("%d live threads, want %d", got, n)
	}
	runtime.GC()
	for b.Loop() {
		runtime.GC()
	}
	runtime.KeepAlive(s)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/thread/cycle")
}
