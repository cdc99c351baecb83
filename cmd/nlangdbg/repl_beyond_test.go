package main

import (
	"strings"
	"testing"
)

const lockOrderREPLProg = `import io;
import thread;
void left(Mutex a, Mutex b) {
    a.lock();
    thread.yield();
    b.lock();
    b.unlock();
    a.unlock();
}
void right(Mutex a, Mutex b) {
    b.lock();
    thread.yield();
    a.lock();
    a.unlock();
    b.unlock();
}
int main() {
    Mutex a = new Mutex();
    Mutex b = new Mutex();
    Thread l = thread.spawn(left, a, b);
    Thread r = thread.spawn(right, a, b);
    l.join();
    io.print("never");
    return 0;
}
`

func TestREPLSchedGraphMarksTheDeadlockCycle(t *testing.T) {
	ft := newFakeTerminal(t, lockOrderREPLProg)
	ft.expect(ft.Exec("sched graph"), `^no thread waits on anything$`)
	out := ft.Exec("continue")
	ft.expect(out, `deadlock`)
	out = ft.Exec("sched graph")
	ft.expect(out,
		`^thread 1 "main" --join thread-2--> o\d Thread 2 "thread-2" --is--> thread 2 "thread-2"$`,
		`^thread 2 "thread-2" --mutex lock\*--> o\d Mutex\(.*\) --held by\*--> thread 3 "thread-3"$`,
		`^thread 3 "thread-3" --mutex lock\*--> o\d Mutex\(.*\) --held by\*--> thread 2 "thread-2"$`,
		`^deadlock cycle \(\*\): thread 2 "thread-2" -> thread 3 "thread-3" -> thread 2 "thread-2"$`)
	if strings.Contains(out, "main\" --join thread-2*") {
		t.Errorf("main's join is marked as on the cycle:\n%s", out)
	}
}
