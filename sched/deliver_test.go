package sched

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestDispatchWaitsForDelivery: the debugger's Dispatch does not run a
// quantum while the events of the last one are being delivered (their
// listeners look at the threads: a recording notes the reductions of the
// quantum's thread).
func TestDispatchWaitsForDelivery(t *testing.T) {
	e := newEnv(t)
	main := e.fn("main", 0)
	main.forN(1, 1_000_000, func() {}).ret0()
	s := e.start(main, Options{Quota: 50})
	inHandler, handled := make(chan struct{}), make(chan struct{})
	var changed atomic.Bool
	var once sync.Once
	s.OnEvent = func(ev Event) {
		if ev.Kind != EventPreempt {
			return
		}
		once.Do(func() {
			r1 := ev.Thread.Reductions()
			close(inHandler)
			time.Sleep(30 * time.Millisecond)
			if ev.Thread.Reductions() != r1 {
				changed.Store(true)
			}
			close(handled)
		})
	}
	done := make(chan int)
	go func() { done <- s.Run() }()
	<-inHandler
	s.Pause()
	s.Dispatch()
	<-handled
	if changed.Load() {
		t.Fatal("a Dispatch ran the thread while its last event was being delivered")
	}
	s.Kill(0)
	<-done
}
