package sched

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/vm"
)

// A method native that panics (a bug in a native) becomes an InternalError
// in its thread; the scheduler's lock, which the method's fast path holds
// without a deferred unlock, is taken over by the carrier, so the program
// goes on: here main catches the error and then trades a value with a
// second thread.
func TestMethodPanicKeepsScheduler(t *testing.T) {
	boom := method("Channel", "void boom()", func(t *vm.Thread, c *Channel, args []vm.Value) (vm.Value, error) {
		panic("boom")
	})
	for _, carriers := range []int{1, 2} {
		e := newEnv(t)
		addClass(e.prog, "InternalError", e.prog.ClassByName("Exception"))
		echo := e.fn("echo", 1)
		echo.call(chanRecv, 1, nil, 0).log(1).retv()
		main := e.fn("main", 0)
		main.newChan(0, -1).loadk(1, echo.fv()).spawn(2, threadT, 1, 0).
			try("InternalError", func() { main.call(boom, 9, nil, 0) }, func() { main.logs("caught") }).
			send(0, 42).join(2).logs("done").ret0()
		if code := e.run(main, Options{Carriers: carriers}); code != 0 {
			t.Fatalf("carriers %d: exit code %d, stderr %s", carriers, code, e.stderr.String())
		}
		e.wantLog("main:caught", "thread-2:42", "main:done")
	}
}

// goid returns the calling goroutine's id (from its stack header).
func goid() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := strings.Fields(string(buf))
	return f[1]
}

// Drive runs the quanta that follow a resume on the caller's goroutine,
// up to the next stop of the world, and delivers their events there;
// the carrier goes on afterwards.
func TestDrive(t *testing.T) {
	e := newEnv(t)
	main := e.fn("main", 0)
	main.forN(0, 100, func() { main.log(0) }).ret0()
	s := e.start(main, Options{})
	me := goid()
	var kinds []EventKind
	var where []string
	s.OnEvent = func(ev Event) {
		kinds = append(kinds, ev.Kind)
		where = append(where, goid())
	}
	s.Pause()
	done := make(chan int)
	go func() { done <- s.Run() }()
	s.SetBudgetOnce(s.Main(), 5) // stops the world at its 5th safepoint
	resumed := false
	s.Drive(time.Minute, func() { resumed = true; s.Resume() })
	if !resumed || !s.Paused() {
		t.Fatalf("resumed %v, paused %v after Drive", resumed, s.Paused())
	}
	if len(e.log) != 5 {
		t.Errorf("%d iterations ran in Drive, want 5: %v", len(e.log), e.log)
	}
	if len(kinds) != 1 || kinds[0] != EventPreempt || where[0] != me {
		t.Errorf("events %v on goroutines %v, want one preempt on %s", kinds, where, me)
	}
	s.Resume()
	if code := <-done; code != 0 || len(e.log) != 100 {
		t.Fatalf("exit code %d, %d iterations", code, len(e.log))
	}
}

// With several carriers Drive only resumes.
func TestDriveCarriers(t *testing.T) {
	e := newEnv(t)
	main := e.fn("main", 0)
	main.forN(0, 10, func() { main.log(0) }).ret0()
	s := e.start(main, Options{Carriers: 2})
	s.Pause()
	done := make(chan int)
	go func() { done <- s.Run() }()
	s.Drive(time.Minute, s.Resume)
	if code := <-done; code != 0 || len(e.log) != 10 {
		t.Fatalf("exit code %d, %d iterations", code, len(e.log))
	}
}

// A program that may call a pinned native is not driven (such a native
// could block the caller, or run beside the thread the carrier has inside
// one): Drive only resumes, and the carrier runs the quanta.
func TestDrivePinned(t *testing.T) {
	e := newEnv(t)
	pinned := &vm.Native{Name: "fs.wait", Sig: "void wait()", Pinned: true,
		Fn: func(t *vm.Thread, args []vm.Value) (vm.Value, error) { return vm.Value{}, nil }}
	unused := e.fn("unused", 0)
	unused.call(pinned, 9, nil).retv()
	main := e.fn("main", 0)
	main.forN(0, 100, func() { main.log(0) }).ret0()
	s := e.start(main, Options{})
	me := goid()
	where := make(chan string, 16)
	s.OnEvent = func(ev Event) {
		if ev.Kind == EventExit {
			where <- goid()
		}
	}
	s.Pause()
	done := make(chan int)
	go func() { done <- s.Run() }()
	s.Drive(time.Minute, s.Resume)
	if code := <-done; code != 0 || len(e.log) != 100 {
		t.Fatalf("exit code %d, %d iterations", code, len(e.log))
	}
	if g := <-where; g == me {
		t.Errorf("main's exit was delivered on the goroutine that called Drive")
	}
}

// Drive on a scheduler that is not paused (the program runs, its
// carrier going from one quantum to the next) only calls resume, at
// once: it does not wait for the carrier to be between two quanta, which
// a carrier busy with an endless loop might never be when Drive looks
// (a DAP `next` sent while the program ran hung so). Here the carrier
// is made to stay inside a quantum for good.
func TestDriveRunning(t *testing.T) {
	e := newEnv(t)
	main := e.fn("main", 0)
	main.ret0()
	s := e.start(main, Options{})
	s.mu.Lock()
	s.running++ // (a quantum under way that does not end)
	s.mu.Unlock()
	called := make(chan bool)
	go s.Drive(time.Minute, func() { called <- true })
	select {
	case <-called:
	case <-time.After(10 * time.Second): // (it is called at once)
		t.Fatal("Drive waited for the running carrier instead of resuming")
	}
	s.mu.Lock()
	s.running--
	s.mu.Unlock()
}
