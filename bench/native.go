package main

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// prepareGo returns the native Go version of w. The thread workloads use
// goroutines and channels; the "go1" implementation runs the same code
// with GOMAXPROCS=1 in its environment.
func prepareGo(w *workload) (runFunc, error) {
	if w.scale {
		return goPark(w.parked), nil
	}
	f := goWorkloads[w.name]
	if f == nil {
		return nil, fmt.Errorf("no Go version of %s", w.name)
	}
	return f, nil
}

var goWorkloads = map[string]runFunc{
	"fib": func(out io.Writer) (any, error) {
		fmt.Fprintln(out, goFib(30))
		return nil, nil
	},
	"loop": func(out io.Writer) (any, error) {
		var sum int64
		for i := int32(0); i < 30_000_000; i++ {
			sum += int64(i)
		}
		fmt.Fprintln(out, sum)
		return nil, nil
	},
	"objects": func(out io.Writer) (any, error) {
		type pair struct{ a, b int32 }
		const n = 1_000_000
		ps := make([]*pair, n)
		for i := range ps {
			ps[i] = &pair{a: int32(i), b: 1}
		}
		var sum int64
		for _, p := range ps {
			sum += int64(p.a + p.b)
		}
		fmt.Fprintln(out, sum)
		return nil, nil
	},
	"strings": func(out io.Writer) (any, error) {
		s := ""
		for c := 0; c < 500; c++ {
			chunk := ""
			for i := 0; i < 400; i++ {
				chunk = chunk + strconv.Itoa(i%10)
			}
			s = s + chunk
		}
		fmt.Fprintln(out, len(s))
		return nil, nil
	},
	"pingpong": func(out io.Writer) (any, error) {
		const n = 1_000_000
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
		fmt.Fprintln(out, v)
		return nil, nil
	},
	"park": goPark(1_000_000),
}

// goPark parks n goroutines on one channel.
func goPark(n int) runFunc {
	return func(out io.Writer) (any, error) {
		c := make(chan int)
		var started sync.WaitGroup
		started.Add(n)
		for i := 0; i < n; i++ {
			go func() {
				started.Done()
				<-c
			}()
		}
		started.Wait()
		// The last ones are between Done and the receive: let them park.
		for i := 0; i < 10; i++ {
			runtime.Gosched()
		}
		fmt.Fprintln(out, "spawned")
		return goParked{c}, nil
	}
}

// prepareGoPull is the ping-pong with Go's iter.Pull: each round trip is
// two coroutine switches (next resumes the sequence, yield comes back),
// with no channel and no scheduler in between.
func prepareGoPull(w *workload) (runFunc, error) {
	if w.name != "pingpong" {
		return nil, fmt.Errorf("iter.Pull runs only pingpong")
	}
	return func(out io.Writer) (any, error) {
		const n = 1_000_000
		v := 0
		next, stop := iter.Pull(func(yield func(int) bool) {
			for {
				if !yield(v + 1) {
					return
				}
			}
		})
		for i := 0; i < n; i++ {
			v, _ = next()
		}
		stop()
		fmt.Fprintln(out, v)
		return nil, nil
	}, nil
}

//go:noinline
func goFib(n int32) int32 {
	if n < 2 {
		return n
	}
	return goFib(n-1) + goFib(n-2)
}

type goParked struct{ c chan int }

func (goParked) Parked() int { return runtime.NumGoroutine() - 1 }

// cpuTime returns the CPU time (user+system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
