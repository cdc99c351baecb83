package sched

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/nlangdbg/nlangdbg/vm"
)

// counter builds `void counter() { for (i = 0; i < n; i += 1) log(i); }`.
func (e *env) counter(name string, n int32) *fb {
	w := e.fn(name, 0)
	w.forN(0, n, func() { w.log(0) })
	return w.retv()
}

// twoCounters builds a main that spawns two counters and joins them.
func (e *env) twoCounters(n int32) *fb {
	w := e.counter("worker", n)
	main := e.fn("main", 0)
	main.loadk(0, w.fv()).
		spawn(1, threadT, 0).
		spawn(2, threadT, 0).
		join(1).join(2).ret0()
	return main
}

func TestQuotaPreemptionFIFO(t *testing.T) {
	for _, tc := range []struct {
		quota int
		want  string
	}{
		{1, "thread-2:0 thread-3:0 thread-2:1 thread-3:1 thread-2:2 thread-3:2"},
		{2, "thread-2:0 thread-2:1 thread-3:0 thread-3:1 thread-2:2 thread-3:2"},
		{0, "thread-2:0 thread-2:1 thread-2:2 thread-3:0 thread-3:1 thread-3:2"},
	} {
		t.Run(fmt.Sprint(tc.quota), func(t *testing.T) {
			e := newEnv(t)
			if code := e.run(e.twoCounters(3), Options{Quota: tc.quota}); code != 0 {
				t.Fatalf("exit code %d", code)
			}
			e.wantLog(strings.Fields(tc.want)...)
			if e.stderr.Len() > 0 {
				t.Errorf("stderr: %s", e.stderr.String())
			}
		})
	}
}

func TestDispatchEvents(t *testing.T) {
	e := newEnv(t)
	s := e.start(e.twoCounters(2), Options{Quota: 1})
	var events []string
	s.OnEvent = func(ev Event) {
		if ev.Kind != EventPreempt { // keep the list short
			events = append(events, ev.String())
		}
	}
	var got []string
	for _, ev := range dispatchAll(t, s) {
		if ev.Kind != EventDispatch {
			t.Fatalf("unexpected %v", ev)
		}
		if ev.Stop == vm.StopBudget && ev.Reductions != 1 {
			t.Errorf("%v: reductions %d, want 1", ev, ev.Reductions)
		}
		ev.Reductions = -1 // the vm may or may not count the others
		got = append(got, ev.String())
	}
	want := []string{
		"dispatch main park spawned [thread-2 thread-3]",
		"dispatch thread-2 budget",
		"dispatch thread-3 budget",
		"dispatch thread-2 budget",
		"dispatch thread-3 budget",
		"dispatch thread-2 done woke [main]",
		"dispatch thread-3 done",
		"dispatch main done",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("dispatches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantEv := []string{
		"spawn thread-2 by main", "spawn thread-3 by main", "park main [join thread-2]",
		"wake main by thread-2", "exit thread-2", "exit thread-3", "exit main", "end code 0",
	}
	if strings.Join(events, "\n") != strings.Join(wantEv, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(wantEv, "\n"))
	}
	if code, over := s.ExitCode(); !over || code != 0 {
		t.Errorf("ExitCode = %d, %v", code, over)
	}
	if ev := s.Dispatch(); ev.Kind != EventEnd {
		t.Errorf("Dispatch after the end: %v", ev)
	}
}

func TestThreadIdentity(t *testing.T) {
	e := newEnv(t)
	w := e.fn("w", 0)
	w.call(currentNative, 0, threadT).
		call(thrID, 1, nil, 0).log(1).
		call(thrName, 1, nil, 0).call(e.logS, 9, nil, 1).
		loadk(2, vm.StrV("renamed")).call(thrSetName, 9, nil, 0, 2).
		call(thrName, 1, nil, 0).call(e.logS, 9, nil, 1).
		retv()
	main := e.fn("main", 0)
	main.loadk(0, w.fv()).spawn(1, threadT, 0).
		call(thrAlive, 2, nil, 1).log(2).
		call(thrJoin, 9, nil, 1).
		call(thrAlive, 2, nil, 1).log(2).
		spawn(1, threadT, 0).join(1).
		call(currentNative, 3, threadT).call(thrID, 4, nil, 3).log(4).
		ret0()
	if code := e.run(main, Options{}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	e.wantLog("main:1", "thread-2:2", "thread-2:thread-2", "renamed:renamed", "main:0",
		"thread-3:3", "thread-3:thread-3", "renamed:renamed", "main:1")
}

func TestMainExitEndsProgram(t *testing.T) {
	e := newEnv(t)
	spin := e.counter("spin", 1_000_000)
	main := e.fn("main", 0)
	main.loadk(0, spin.fv()).spawn(1, threadT, 0).yield().loadi(2, 7).ret(2)
	if code := e.run(main, Options{Quota: 5}); code != 7 {
		t.Fatalf("exit code %d, want 7", code)
	}
	if len(e.log) != 5 {
		t.Errorf("spinner ran %d iterations, want 5 (one quantum)", len(e.log))
	}
}

func TestUncaught(t *testing.T) {
	e := newEnv(t)
	fail := e.fn("fail", 1)
	fail.line(3).call(chanRecv, 1, nil, 0).retv()
	main := e.fn("main", 0)
	main.line(7).newChan(0, -1).call(chanClose, 9, nil, 0).
		loadk(1, fail.fv()).spawn(2, threadT, 1, 0).
		line(9).loadk(3, vm.StrV("worker-a")).call(thrSetName, 9, nil, 2, 3).
		join(2).logs("joined").
		line(12).call(chanRecv, 1, nil, 0).ret0()
	if code := e.run(main, Options{}); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	e.wantLog("main:joined")
	want := `Exception in thread "worker-a": ChannelClosedException: receive from closed channel
  at fail (test.n:3)
Runtime error: ChannelClosedException: receive from closed channel
  at main (test.n:12)
`
	if got := e.stderr.String(); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
}

func TestJoinSelf(t *testing.T) {
	e := newEnv(t)
	main := e.fn("main", 0)
	main.try("DeadlockException", func() {
		main.call(currentNative, 0, threadT).join(0)
	}, func() { main.logs("caught") }).ret0()
	if code := e.run(main, Options{}); code != 0 {
		t.Fatal(code)
	}
	e.wantLog("main:caught")
}

// interleave runs three counters under quota 1 and the seed and returns
// the log.
func interleave(t *testing.T, seed int64) string {
	e := newEnv(t)
	w := e.counter("w", 4)
	main := e.fn("main", 0)
	main.loadk(0, w.fv()).spawn(1, threadT, 0).spawn(2, threadT, 0).spawn(3, threadT, 0).
		join(1).join(2).join(3).ret0()
	if code := e.run(main, Options{Quota: 1, Seed: seed}); code != 0 {
		t.Fatal(code)
	}
	return strings.Join(e.log, " ")
}

func TestSeedDeterminism(t *testing.T) {
	fifo := interleave(t, 0)
	if want := "thread-2:0 thread-3:0 thread-4:0 thread-2:1"; !strings.HasPrefix(fifo, want) {
		t.Errorf("FIFO: %s", fifo)
	}
	seen := map[string]bool{}
	for seed := int64(1); seed <= 6; seed++ {
		a, b := interleave(t, seed), interleave(t, seed)
		if a != b {
			t.Errorf("seed %d: two runs differ:\n%s\n%s", seed, a, b)
		}
		seen[a] = true
	}
	if len(seen) < 2 {
		t.Errorf("six seeds gave %d interleaving(s)", len(seen))
	}
}

func TestSetStatePanics(t *testing.T) {
	e := newEnv(t)
	s := e.start(e.twoCounters(1), Options{})
	th := e.m.NewCallThread(e.prog.Main, nil)
	th.State = vm.Waiting
	for _, tc := range []struct {
		from, to vm.ThreadState
		want     string
	}{
		{vm.Waiting, vm.Running, "sched: bad transition Waiting->Running"},
		{vm.Dead, vm.Runnable, "sched: bad transition Dead->Runnable"},
		{vm.Running, vm.Waiting, "sched: bad transition Running->Waiting (thread 0 is Waiting)"},
	} {
		func() {
			defer func() {
				if r := recover(); r != tc.want {
					t.Errorf("panic %v, want %q", r, tc.want)
				}
			}()
			s.setState(th, tc.from, tc.to)
		}()
	}
}

func TestFreezeThawSetNext(t *testing.T) {
	e := newEnv(t)
	w := e.counter("w", 3)
	main := e.fn("main", 0)
	main.loadk(0, w.fv()).spawn(1, threadT, 0).spawn(2, threadT, 0).spawn(3, threadT, 0).
		join(1).join(2).join(3).ret0()
	s := e.start(main, Options{Quota: 1})
	s.Dispatch() // main spawns 2, 3, 4 and parks
	ths := s.Threads()
	if len(ths) != 4 {
		t.Fatalf("threads %v", names(ths))
	}
	t2, t3, t4 := ths[1], ths[2], ths[3]
	s.Freeze(t2)
	s.Freeze(t4)
	if got := names(s.RunQueue()); got != "[thread-3]" {
		t.Fatalf("run queue %s", got)
	}
	for range 3 {
		if ev := s.Dispatch(); ev.Thread != t3 {
			t.Fatalf("dispatched %v", ev)
		}
	}
	s.Freeze(t3)
	if ev := s.Dispatch(); ev.Kind != EventIdle {
		t.Fatalf("all frozen: %v", ev)
	}
	s.Thaw(t2)
	s.Thaw(t3)
	s.Thaw(t4)
	if got := names(s.RunQueue()); got != "[thread-2 thread-3 thread-4]" {
		t.Fatalf("run queue %s", got)
	}
	s.SetNext(t4)
	if ev := s.Dispatch(); ev.Thread != t4 {
		t.Fatalf("SetNext: dispatched %v", ev)
	}
	if s.Frozen(t2) {
		t.Fatal("t2 still frozen")
	}
	for ev := s.Dispatch(); ev.Kind != EventEnd; ev = s.Dispatch() {
	}
	e.wantLog("thread-3:0", "thread-3:1", "thread-3:2", "thread-4:0",
		"thread-2:0", "thread-4:1", "thread-2:1", "thread-4:2", "thread-2:2")
}

func TestPauseResumeConcurrentViews(t *testing.T) {
	e := newEnv(t)
	w := e.fn("w", 0)
	w.forN(0, 300, func() { w.yield() }).retv()
	main := e.fn("main", 0)
	main.loadk(0, w.fv())
	for r := int32(1); r <= 4; r++ {
		main.spawn(r, threadT, 0)
	}
	for r := int32(1); r <= 4; r++ {
		main.join(r)
	}
	main.ret0()
	s := e.start(main, Options{Quota: 1})
	var mu sync.Mutex
	n := 0
	s.OnEvent = func(ev Event) {
		mu.Lock()
		n++
		mu.Unlock()
		_ = s.RunQueue() // callbacks may use the scheduler
	}
	done := make(chan int)
	go func() { done <- s.Run() }()
	for i := 0; i < 50; i++ {
		s.Pause()
		for _, th := range s.Threads() {
			_ = th.State
			_ = th.WaitReason
			if th.State == vm.Running {
				t.Errorf("thread %s running while paused", th.Name())
			}
		}
		_ = s.RunQueue()
		_ = s.Timers()
		if i%10 == 0 {
			s.Dispatch() // step while paused
		}
		s.Resume()
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	mu.Lock()
	defer mu.Unlock()
	if n < 1200 {
		t.Errorf("only %d events", n)
	}
}

func TestRunWaitsForThaw(t *testing.T) {
	e := newEnv(t)
	s := e.start(e.twoCounters(2), Options{})
	main := s.Main()
	s.Freeze(main)
	done := make(chan int)
	go func() { done <- s.Run() }()
	select {
	case code := <-done:
		t.Fatalf("Run returned %d with main frozen", code)
	default:
	}
	s.Thaw(main)
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestLib(t *testing.T) {
	l := Lib()
	if l.Special["thread.spawn"] == nil {
		t.Error("no thread.spawn")
	}
	var fns []string
	for _, n := range l.Packages["thread"].Funcs {
		fns = append(fns, n.Sig)
	}
	if got := strings.Join(fns, "; "); got != "void join(Thread t); void sleep(int ms); void yield(); Thread current()" {
		t.Errorf("thread package: %s", got)
	}
	for _, name := range []string{"Thread", "Future", "Channel", "Mutex", "ReentrantMutex", "Semaphore", "AtomicInt"} {
		h := l.HostTypes[name]
		if h == nil || h.Format == nil {
			t.Errorf("host type %s missing or without Format", name)
			continue
		}
		for _, n := range append(h.Ctors, h.Methods...) {
			if n.Fn == nil || n.Sig == "" || !strings.HasPrefix(n.Name, name) {
				t.Errorf("bad native %+v", n)
			}
		}
	}
	if !strings.Contains(l.Sources["concurrent"], "class WaitGroup") {
		t.Error("no WaitGroup source")
	}
	if Lib().HostTypes["Channel"] != l.HostTypes["Channel"] {
		t.Error("host types are not shared")
	}
}

// trapHook stops at every trap and counts them. It runs inside a dispatch,
// so it must not call the scheduler.
type trapHook struct{ n int }

func (h *trapHook) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	h.n++
	return true
}

func TestTrapRequeuesFirst(t *testing.T) {
	e := newEnv(t)
	w := e.counter("w", 2)
	main := e.fn("main", 0)
	main.loadk(0, w.fv()).spawn(1, threadT, 0).spawn(2, threadT, 0).join(1).join(2).ret0()
	s := e.start(main, Options{Quota: 100})
	hook := &trapHook{}
	e.m.Hook = hook
	// Trap the log call of the counter: MOVE scratch, CALLN at pc 3.
	if !w.f.SetTrap(3) {
		t.Fatal("SetTrap")
	}
	s.Dispatch() // main
	ev := s.Dispatch()
	if ev.Stop != vm.StopTrap || ev.Thread.Name() != "thread-2" {
		t.Fatalf("%v", ev)
	}
	if got := names(s.RunQueue()); got != "[thread-2 thread-3]" {
		t.Fatalf("after a trap the thread goes first: %s", got)
	}
	if th := s.Thread(2); th != ev.Thread || names(s.Joiners(th)) != "[main]" {
		t.Fatalf("Thread(2) = %v, joiners %s", th, names(s.Joiners(th)))
	}
	w.f.ClearTrap(3)
	s.SetQuota(0)
	if s.Quota() != DefaultQuota {
		t.Errorf("quota %d", s.Quota())
	}
	dispatchAll(t, s)
	e.wantLog("thread-2:0", "thread-2:1", "thread-3:0", "thread-3:1")
	if hook.n != 1 {
		t.Errorf("%d traps", hook.n)
	}
}

func TestQueue(t *testing.T) {
	var q queue[int]
	var model []int
	r := uint32(1)
	next := func(n int) int { r = r*1664525 + 1013904223; return int(r>>8) % n }
	for i := 0; i < 5000; i++ {
		switch op := next(10); {
		case op < 5:
			q.push(i)
			model = append(model, i)
		case op < 8:
			x, ok := q.pop()
			if ok != (len(model) > 0) || ok && x != model[0] {
				t.Fatalf("pop %d %v, model %v", x, ok, model[:min(3, len(model))])
			}
			if ok {
				model = model[1:]
			}
		case op == 8:
			q.pushFront(-i)
			model = append([]int{-i}, model...)
		case len(model) > 0:
			j := next(len(model))
			if x := q.removeAt(j); x != model[j] {
				t.Fatalf("removeAt %d = %d, want %d", j, x, model[j])
			}
			model = append(model[:j], model[j+1:]...)
		}
		if q.len() != len(model) {
			t.Fatalf("len %d, want %d", q.len(), len(model))
		}
	}
	if got := q.items(); fmt.Sprint(got) != fmt.Sprint(model) && len(model) > 0 {
		t.Fatalf("items %v, want %v", got, model)
	}
}

func TestPinnedNativeReleasesViews(t *testing.T) {
	e := newEnv(t)
	entered, gate := make(chan struct{}), make(chan struct{})
	var pinned *vm.Native
	pinned = &vm.Native{Name: "io.readGate", Sig: "int readGate()", Pinned: true,
		Fn: func(t *vm.Thread, args []vm.Value) (vm.Value, error) {
			// What the vm will do around a Pinned native.
			s := t.M.Sched.(*Scheduler)
			s.EnterPinned(t, pinned)
			entered <- struct{}{}
			<-gate
			s.ExitPinned(t)
			return vm.IntV(42), nil
		}}
	w := e.counter("w", 3)
	main := e.fn("main", 0)
	main.loadk(0, w.fv()).spawn(1, threadT, 0).call(pinned, 2, nil).log(2).join(1).ret0()
	s := e.start(main, Options{Quota: 1})
	done := make(chan int)
	go func() { done <- s.Run() }()
	<-entered
	// The carrier is blocked in the native; the views still answer.
	ths := s.Threads()
	if len(ths) != 2 || ths[0].State != vm.Running || s.Pinned(ths[0]) != "io.readGate" {
		t.Fatalf("threads %s, pinned %q", names(ths), s.Pinned(ths[0]))
	}
	if got := names(s.RunQueue()); got != "[thread-2]" {
		t.Errorf("run queue %s", got)
	}
	s.Pause()
	close(gate)
	s.Resume()
	if code := <-done; code != 0 {
		t.Fatal(code)
	}
	e.wantLog("main:42", "thread-2:0", "thread-2:1", "thread-2:2")
}

// TestThreadInfoSize guards the scheduler's per-thread data: 48 bytes,
// one allocation of Go's 48-byte size class per thread.
func TestThreadInfoSize(t *testing.T) {
	if n := unsafe.Sizeof(threadInfo{}); n > 48 {
		t.Errorf("threadInfo is %d bytes, want at most 48 (rare fields go in threadExtra)", n)
	}
}
