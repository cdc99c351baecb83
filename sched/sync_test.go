package sched

import (
	"strings"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/vm"
)

var (
	rmutexNew  = hostCtor(reentrantHost, "ReentrantMutex()")
	rmutexLock = hostMethod(reentrantHost, "lock")
	rmutexUnl  = hostMethod(reentrantHost, "unlock")
	rmutexHold = hostMethod(reentrantHost, "holdCount")
	semNew     = hostCtor(semaphoreHost, "Semaphore(int n)")
	semAcq     = hostMethod(semaphoreHost, "acquire")
	semRel     = hostMethod(semaphoreHost, "release")
	semTry     = hostMethod(semaphoreHost, "tryAcquire")
	semAvail   = hostMethod(semaphoreHost, "available")
)

// parks records "thread [reason]" for every park.
func parks(s *Scheduler) *[]string {
	var out []string
	s.OnEvent = func(ev Event) {
		if ev.Kind == EventPark {
			out = append(out, ev.Thread.Name()+" ["+ev.Reason+"]")
		}
	}
	return &out
}

func TestMutexFIFO(t *testing.T) {
	e := newEnv(t)
	w := e.fn("worker", 1)
	w.call(mutexLock, 9, nil, 0).logs("locked").call(mutexUnl, 9, nil, 0).retv()
	bad := e.fn("bad", 1)
	bad.try("IllegalStateException", func() { bad.call(mutexUnl, 9, nil, 0) }, func() { bad.logs("not owner") }).retv()
	main := e.fn("main", 0)
	main.call(mutexNew, 0, nil).call(mutexLock, 9, nil, 0).
		call(mutexTry, 1, nil, 0).log(1).
		loadk(1, w.fv()).spawn(2, threadT, 1, 0).spawn(2, threadT, 1, 0).spawn(2, threadT, 1, 0).
		sleep(5).
		call(mutexUnl, 9, nil, 0).
		try("IllegalStateException", func() { main.call(mutexUnl, 9, nil, 0) }, func() { main.logs("unlock refused") }).
		sleep(5).
		call(mutexTry, 1, nil, 0).log(1).
		loadk(1, bad.fv()).spawn(2, threadT, 1, 0).join(2).
		call(mutexUnl, 9, nil, 0).ret0()
	s := e.start(main, Options{})
	pk := parks(s)
	for range 4 {
		s.Dispatch()
	}
	ths := s.Threads()
	mu := ths[1].WaitOn.(*Mutex)
	info := mu.Snapshot()
	if info.Owner != ths[0] || info.Holds != 1 || names(info.Waiters) != "[thread-2 thread-3 thread-4]" {
		t.Fatalf("snapshot %+v", info)
	}
	if got := mu.String(); got != "Mutex(locked by main, 3 waiting)" {
		t.Errorf("String = %q", got)
	}
	dispatchAll(t, s)
	e.wantLog("main:0", "main:unlock refused", "thread-2:locked", "thread-3:locked", "thread-4:locked",
		"main:1", "thread-5:not owner")
	if got := strings.Join(*pk, ", "); !strings.Contains(got, "thread-2 [mutex lock], thread-3 [mutex lock], thread-4 [mutex lock]") {
		t.Errorf("parks: %s", got)
	}
	if got := mu.String(); got != "Mutex(unlocked)" {
		t.Errorf("String = %q", got)
	}
}

func TestReentrantMutex(t *testing.T) {
	e := newEnv(t)
	w := e.fn("worker", 1)
	w.call(rmutexLock, 9, nil, 0).logs("got").call(rmutexUnl, 9, nil, 0).retv()
	main := e.fn("main", 0)
	main.call(rmutexNew, 0, nil).call(rmutexLock, 9, nil, 0).call(rmutexLock, 9, nil, 0).
		call(rmutexHold, 1, nil, 0).log(1).
		call(rmutexUnl, 9, nil, 0).
		call(rmutexHold, 1, nil, 0).log(1).
		loadk(1, w.fv()).spawn(2, threadT, 1, 0).yield().
		call(rmutexUnl, 9, nil, 0).join(2).
		try("IllegalStateException", func() { main.call(rmutexUnl, 9, nil, 0) }, func() { main.logs("refused") }).
		ret0()
	s := e.start(main, Options{})
	pk := parks(s)
	if code := s.Run(); code != 0 {
		t.Fatal(code)
	}
	e.wantLog("main:2", "main:1", "thread-2:got", "main:refused")
	if got := strings.Join(*pk, ", "); got != "thread-2 [reentrant lock], main [join thread-2]" {
		t.Errorf("parks: %s", got)
	}
}

func TestSemaphore(t *testing.T) {
	e := newEnv(t)
	w := e.fn("worker", 1)
	w.call(semAcq, 9, nil, 0).logs("got").call(semRel, 9, nil, 0).retv()
	main := e.fn("main", 0)
	main.loadi(1, 1).call(semNew, 0, nil, 1).call(semAcq, 9, nil, 0).
		call(semAvail, 1, nil, 0).log(1).
		call(semTry, 1, nil, 0).log(1).
		loadk(1, w.fv()).spawn(2, threadT, 1, 0).spawn(2, threadT, 1, 0).
		sleep(5).call(semRel, 9, nil, 0).sleep(5).
		call(semAvail, 1, nil, 0).log(1).ret0()
	s := e.start(main, Options{})
	pk := parks(s)
	for range 3 {
		s.Dispatch()
	}
	sem := s.Threads()[1].WaitOn.(*Semaphore)
	if info := sem.Snapshot(); info.Available != 0 || names(info.Waiters) != "[thread-2 thread-3]" {
		t.Fatalf("snapshot %+v", info)
	}
	if got := sem.String(); got != "Semaphore(available 0, 2 waiting)" {
		t.Errorf("String = %q", got)
	}
	dispatchAll(t, s)
	e.wantLog("main:0", "main:0", "thread-2:got", "thread-3:got", "main:1")
	if got := strings.Join(*pk, ", "); !strings.Contains(got, "thread-2 [semaphore acquire], thread-3 [semaphore acquire]") {
		t.Errorf("parks: %s", got)
	}
}

func TestAtomicInt(t *testing.T) {
	e := newEnv(t)
	m := func(name string) *vm.Native { return hostMethod(atomicHost, name) }
	main := e.fn("main", 0)
	main.loadi(1, 5).call(hostCtor(atomicHost, "AtomicInt(int v)"), 0, nil, 1).
		call(m("increment"), 1, nil, 0).log(1).
		loadi(2, 10).call(m("add"), 1, nil, 0, 2).log(1).
		call(m("decrement"), 1, nil, 0).log(1).
		loadi(2, 15).loadi(3, 1).call(m("compareAndSet"), 1, nil, 0, 2, 3).log(1).
		call(m("get"), 1, nil, 0).log(1).
		call(m("compareAndSet"), 1, nil, 0, 2, 3).log(1).
		loadi(2, -3).call(m("set"), 9, nil, 0, 2).
		call(m("toString"), 1, nil, 0).call(e.logS, 9, nil, 1).
		call(hostCtor(atomicHost, "AtomicInt()"), 0, nil).call(m("get"), 1, nil, 0).log(1).
		ret0()
	if code := e.run(main, Options{}); code != 0 {
		t.Fatal(code, e.stderr.String())
	}
	e.wantLog("main:6", "main:16", "main:15", "main:1", "main:1", "main:0", "main:-3", "main:0")
}

func TestFutureWaiters(t *testing.T) {
	e := newEnv(t)
	compute := e.fn("compute", 1)
	compute.call(chanRecv, 1, nil, 0).loadi(2, 10)
	compute.op(vm.MULI, 1, 1, 2)
	compute.ret(1)
	waiter := e.fn("waiter", 1)
	waiter.call(futGet, 1, nil, 0).log(1).retv()
	main := e.fn("main", 0)
	main.newChan(0, -1).loadk(1, compute.fv()).spawn(2, futT, 1, 0).
		loadk(1, waiter.fv()).spawn(3, threadT, 1, 2).spawn(3, threadT, 1, 2).
		sleep(5).
		call(futDone, 1, nil, 2).log(1).
		send(0, 5).
		call(futGet, 1, nil, 2).log(1).
		call(futDone, 1, nil, 2).log(1).
		call(futGet, 1, nil, 2).log(1).ret0()
	s := e.start(main, Options{})
	pk := parks(s)
	for range 5 {
		s.Dispatch()
	}
	ths := s.Threads()
	f := ths[2].WaitOn.(*Future)
	info := f.Snapshot()
	if info.Done || info.Thread != ths[1] || names(info.Waiters) != "[thread-3 thread-4]" || info.Type != futT {
		t.Fatalf("snapshot %+v", info)
	}
	if s.FutureOf(ths[1]) != f || f.String() != "Future<int>(pending)" {
		t.Errorf("FutureOf/String: %v %s", s.FutureOf(ths[1]), f)
	}
	dispatchAll(t, s)
	e.wantLog("main:0", "thread-3:50", "thread-4:50", "main:50", "main:1", "main:50")
	if got := strings.Join(*pk, ", "); !strings.Contains(got, "thread-3 [future get], thread-4 [future get]") {
		t.Errorf("parks: %s", got)
	}
	if info := f.Snapshot(); !info.Done || info.Value.I() != 50 || f.String() != "Future<int>(done)" {
		t.Errorf("done: %+v", info)
	}
}

func TestFutureThrows(t *testing.T) {
	e := newEnv(t)
	explode := e.fn("explode", 0)
	explode.newChan(0, -1).call(chanClose, 9, nil, 0).call(chanRecv, 1, nil, 0).ret(1)
	probe := e.fn("probe", 1)
	probe.try("ChannelClosedException", func() { probe.call(futGet, 1, nil, 0) }, func() {
		probe.move(1, 5)
	}).ret(1)
	main := e.fn("main", 0)
	main.loadk(0, explode.fv()).spawn(1, futT, 0).
		try("ChannelClosedException", func() { main.call(futGet, 2, nil, 1) }, func() { main.move(2, 5).logs("caught") }).
		try("ChannelClosedException", func() { main.call(futGet, 3, nil, 1) }, func() { main.move(3, 5).logs("caught again") })
	main.op(vm.EQR, 4, 2, 3)
	main.log(4).
		call(futDone, 4, nil, 1).log(4).
		loadk(0, probe.fv()).spawn(0, futT, 0, 1).call(futGet, 3, nil, 0)
	main.op(vm.EQR, 4, 2, 3)
	main.log(4).ret0()
	if code := e.run(main, Options{}); code != 0 {
		t.Fatal(code, e.stderr.String())
	}
	e.wantLog("main:caught", "main:caught again", "main:1", "main:1", "main:1")
	if e.stderr.Len() != 0 {
		t.Errorf("a future's exception was reported: %s", e.stderr.String())
	}
}

func TestTimersInDeadlineOrder(t *testing.T) {
	e := newEnv(t)
	sl := e.fn("sleeper", 1)
	sl.call(sleepNative, 9, nil, 0).log(0).retv()
	main := e.fn("main", 0)
	main.loadk(0, sl.fv())
	for i, ms := range []int32{30, 10, 20, 10} {
		main.loadi(1, ms).spawn(2+int32(i), threadT, 0, 1)
	}
	main.sleep(1)
	for _, r := range []int32{2, 3, 4, 5} {
		main.join(r)
	}
	main.ret0()
	s := e.start(main, Options{})
	for range 5 {
		s.Dispatch()
	}
	var got []string
	for _, tm := range s.Timers() {
		got = append(got, tm.Thread.Name()+"@"+tm.Deadline.String())
	}
	if want := "main@1ms thread-3@10ms thread-5@10ms thread-4@20ms thread-2@30ms"; strings.Join(got, " ") != want {
		t.Errorf("timers: %s\nwant:   %s", strings.Join(got, " "), want)
	}
	if tm, ok := s.Threads()[1].WaitOn.(*Timer); !ok || tm.Deadline != 30*time.Millisecond {
		t.Errorf("WaitOn %v", s.Threads()[1].WaitOn)
	}
	if code := s.Run(); code != 0 {
		t.Fatal(code)
	}
	e.wantLog("thread-3:10", "thread-5:10", "thread-4:20", "thread-2:30")
	if now := s.Now(); now != 30*time.Millisecond {
		t.Errorf("virtual time %v, want 30ms", now)
	}
}

func TestWallClockSleep(t *testing.T) {
	e := newEnv(t)
	main := e.fn("main", 0)
	main.sleep(2).logs("woke").ret0()
	e.clock = nil
	e.prog.Main = main.f
	e.prog.Finish()
	e.m = vm.NewMachine(e.prog, nil, &e.stdout, &e.stderr)
	s := New(e.m, Options{})
	s.Start(e.m.NewCallThread(main.f, nil))
	start := time.Now()
	if code := s.Run(); code != 0 {
		t.Fatal(code)
	}
	if d := time.Since(start); d < 2*time.Millisecond {
		t.Errorf("slept %v", d)
	}
	e.wantLog("main:woke")
}

func TestDeadlockReport(t *testing.T) {
	e := newEnv(t)
	lockIt := e.fn("lockIt", 1)
	lockIt.line(20).call(mutexLock, 9, nil, 0).line(21).retv()
	worker := e.fn("worker", 1)
	worker.line(5)
	worker.move(scratch, 0)
	worker.f.Funcs = append(worker.f.Funcs, lockIt.f)
	worker.op(vm.CALL, scratch, 0, 9)
	worker.line(6).retv()
	main := e.fn("main", 0)
	main.line(10).call(mutexNew, 0, nil).call(mutexLock, 9, nil, 0).
		line(11).loadk(1, worker.fv()).spawn(2, threadT, 1, 0).
		line(12).join(2).
		line(13).ret0()
	for _, f := range []*fb{lockIt, worker, main} {
		f.f.File = "/some/dir/deadlock.n"
	}
	s := e.start(main, Options{})
	var evs []string
	s.OnEvent = func(ev Event) { evs = append(evs, ev.Kind.String()) }
	var last Event
	for ev := s.Dispatch(); ev.Kind != EventEnd; ev = s.Dispatch() {
		last = ev
	}
	if last.Kind != EventDeadlock || last.Code != 2 {
		t.Errorf("last dispatch %v", last)
	}
	if code, over := s.ExitCode(); !over || code != 2 {
		t.Errorf("exit %d %v", code, over)
	}
	want := `fatal: all threads are asleep - deadlock!

thread 1 "main" [join thread-2]:
  at main (deadlock.n:12)
thread 2 "thread-2" [mutex lock]:
  at lockIt (deadlock.n:20)
  at worker (deadlock.n:5)
`
	if got := e.stderr.String(); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
	if got := strings.Join(evs, " "); !strings.HasSuffix(got, "park deadlock end") {
		t.Errorf("events: %s", got)
	}
}

func TestSelfLockDeadlocks(t *testing.T) {
	e := newEnv(t)
	main := e.fn("main", 0)
	main.line(3).call(mutexNew, 0, nil).call(mutexLock, 9, nil, 0).
		line(4).call(mutexLock, 9, nil, 0).line(5).ret0()
	if code := e.run(main, Options{}); code != 2 {
		t.Fatalf("exit %d", code)
	}
	want := "fatal: all threads are asleep - deadlock!\n\nthread 1 \"main\" [mutex lock]:\n  at main (test.n:4)\n"
	if got := e.stderr.String(); got != want {
		t.Errorf("report:\n%q\nwant:\n%q", got, want)
	}
}

func TestFormats(t *testing.T) {
	main := &vm.Thread{ID: 1}
	main.SetName("main")
	other := &vm.Thread{ID: 2, State: vm.Waiting, Sched: &threadInfo{seq: 1}} // the default name, thread-2
	rm := &ReentrantMutex{l: lockState{owner: main, holds: 2}}
	rm.l.waiters.push(other)
	a := &AtomicInt{}
	a.v.Store(-7)
	for _, tc := range []struct {
		h    *vm.HostType
		v    any
		want string
	}{
		{threadHost, other, "Thread[2 thread-2]"},
		{channelHost, &Channel{typ: vm.HostOf(channelHost, []*vm.Type{vm.String}), cap: 3, closed: true}, "Channel<string>(len 0/cap 3, closed)"},
		{mutexHost, &Mutex{}, "Mutex(unlocked)"},
		{reentrantHost, rm, "ReentrantMutex(locked by main x2, 1 waiting)"},
		{semaphoreHost, &Semaphore{permits: 3}, "Semaphore(available 3)"},
		{atomicHost, a, "-7"},
		{futureHost, &Future{typ: futT}, "Future<int>(pending)"},
		{mutexHost, (*Mutex)(nil), "null"},
	} {
		if got := tc.h.Format(tc.v); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.h.Name, got, tc.want)
		}
	}
}
