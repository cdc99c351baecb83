package sched

import (
	"testing"

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

// legalMask, which setState tests, says what legal says.
func TestLegalMask(t *testing.T) {
	for from := range 4 {
		for to := range 4 {
			if got := legalMask&(1<<(from*4+to)) != 0; got != legal[from][to] {
				t.Errorf("%s->%s: mask %v, legal %v", stateName(vm.ThreadState(from)), stateName(vm.ThreadState(to)), got, legal[from][to])
			}
		}
	}
}
