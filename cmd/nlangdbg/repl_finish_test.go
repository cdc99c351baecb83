package main

import (
	"strconv"
	"testing"
)

// TestREPLFinishOutermost: finish (stepout) in a thread's first frame —
// main's, or a spawned function's — is refused, as gdb's finish in the
// outermost frame: there is no caller to stop in, and the step would run
// the thread to its end (and main, the program). From the callee it
// works as before.
func TestREPLFinishOutermost(t *testing.T) {
	ft := newFakeTerminal(t, `import io;
import thread;
int twice(int x) {
    return x * 2; // @twice
}
int work(int x) {
    int y = twice(x); // @work
    return y + 1;
}
int main() {
    Future<int> f = thread.spawn(work, 20);
    io.print(f.get());
    return 0;
}
`)
	ft.expect(ft.Exec("finish"), `^error: stepout: main is where thread 1 starts: it has no caller to return to \(continue runs it to its end\)$`)
	ft.expect(ft.Exec("break "+strconv.Itoa(ft.line("work"))), `^Breakpoint 1 at `)
	ft.expect(ft.Exec("continue"), `^Breakpoint 1 at work \(prog\.n:\d+\) \[thread 2 "thread-2"\]`)
	ft.expect(ft.Exec("stepout"), `^error: stepout: work is where thread 2 starts`)
	ft.expect(ft.Exec("bt"), `^\*\s+0  work \(prog\.n:`+strconv.Itoa(ft.line("work"))+`\)$`)
	ft.expect(ft.Exec("step"), `^Step at twice`)
	ft.expect(ft.Exec("finish"), `^Step out at work`, `^twice returned 40$`)
	ft.expect(ft.Exec("up"), `^error: no frame 1`)
	ft.expect(ft.Exec("continue"), `^41$`, `^Program exited with code 0$`)
}
