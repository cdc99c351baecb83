package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// nonStopProg: a ticker prints until main tells it to stop; two workers
// compute a value each, and main waits for both (the dap fixture
// testdata/dap/nonstop.n).
const nonStopProg = `import io;
import thread;
void ticker(AtomicInt stop) {
    int n = 0;
    while (stop.get() == 0) {
        n += 1;
        io.print("tick " + n);
        thread.yield();
    }
    io.print("ticker done");
}
int work(int id) {
    int acc = id * 10;
    acc += 1; // @work
    acc += 1; // @next
    return acc;
}
int main() {
    AtomicInt stop = new AtomicInt(0);
    Thread t = thread.spawn(ticker, stop);
    Future<int> a = thread.spawn(work, 1);
    Future<int> b = thread.spawn(work, 2);
    int ra = a.get();
    int rb = b.get();
    io.print("results " + ra + " " + rb); // @main
    stop.set(1);
    t.join();
    return 0;
}
`

// until handles the server's events (as the REPL does between commands)
// until cond, given what they printed so far, holds, and returns that.
func (ft *fakeTerminal) until(what string, cond func(out string) bool) string {
	ft.t.Helper()
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	var out strings.Builder
	for !cond(out.String()) {
		select {
		case m, ok := <-ft.r.c.Events:
			if !ok {
				ft.t.Fatalf("the connection ended waiting for %s:\n%s", what, out.String())
			}
			ft.r.event(m)
			out.WriteString(ft.out.take())
		case <-deadline.C:
			ft.t.Fatalf("timeout waiting for %s:\n%s", what, out.String())
		}
	}
	return out.String()
}

// ticksIn counts the ticker's lines in out.
func ticksIn(out string) int { return strings.Count(out, "tick ") }

// noTicks drops the ticker's lines from out (it prints between the lines
// of a transcript).
func noTicks(out string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(out, "\n") {
		if !strings.HasPrefix(l, "tick ") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// TestREPLNonStop: set non-stop on; a breakpoint with no mode holds each
// worker that reaches it while the ticker keeps printing; the prompt
// names the stopped threads; print and set work on the selected one;
// continue resumes it alone and the prompt comes back at once; the other
// is selected and stepped alone; a breakpoint set all-threads stops
// every thread.
func TestREPLNonStop(t *testing.T) {
	for _, carriers := range []int{1, 4} {
		t.Run(fmt.Sprint(carriers, " carriers"), func(t *testing.T) { testREPLNonStop(t, carriers) })
	}
}

// termWith starts the REPL on src with more launch arguments.
func termWith(t *testing.T, src string, launch map[string]any) *fakeTerminal {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prog.n")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ft, _ := startTerminalWith(t, path, launch)
	return ft
}

func testREPLNonStop(t *testing.T, carriers int) {
	ft := termWith(t, nonStopProg, map[string]any{"carriers": carriers})
	ft.expect(ft.Exec("set non-stop on"), `^Non-stop mode is on: a breakpoint stops only the thread that reaches it`)
	ft.expect(ft.Exec("break prog.n:"+strconv.Itoa(ft.line("work"))), `^Breakpoint 1 at prog\.n:\d+$`)
	ft.expect(ft.Exec("break prog.n:"+strconv.Itoa(ft.line("main"))+" all-threads"), `^Breakpoint 2 at prog\.n:\d+$`)
	ft.expect(ft.Exec("breakpoints"), `^\s+2\s+prog\.n:\d+ \(all threads\)$`)
	out := noTicks(ft.Exec("continue"))
	ft.expect(out, `^Breakpoint 1 at work \(prog\.n:`+strconv.Itoa(ft.line("work"))+`\) \[thread [34] "thread-[34]"\] \(the other threads keep running\)$`)
	first := ft.r.thread
	second := 7 - first
	// the other worker is held too, told of in a line; the first stays
	// selected
	out += noTicks(ft.until("the second worker", func(string) bool { return len(ft.r.held) == 2 }))
	ft.expect(out, fmt.Sprintf(`^Thread %d "thread-%d" stopped: Breakpoint 1 at work \(prog\.n:%d\) \(thread %d selects it\)$`, second, second, ft.line("work"), second))
	if p := ft.r.prompt(); p != fmt.Sprintf("(nlangdbg) [stopped: %d %d] ", min(first, second), max(first, second)) &&
		p != fmt.Sprintf("(nlangdbg) [stopped: %d* %d] ", first, second) && p != fmt.Sprintf("(nlangdbg) [stopped: %d %d*] ", second, first) {
		t.Errorf("prompt %q", p)
	}
	// the ticker keeps printing while both are held
	ft.until("ticks", func(out string) bool { return ticksIn(out) > 20 })
	acc := noTicks(ft.Exec("print acc"))
	if acc != "10\n" && acc != "20\n" {
		t.Fatalf("print acc: %q", acc)
	}
	ft.expect(noTicks(ft.Exec("set acc = 41")), `^acc = 41$`)
	ft.expect(noTicks(ft.Exec("threads")), fmt.Sprintf(`\[%d\] "thread-%d" +stopped +work`, first, first))
	ft.expect(noTicks(ft.Exec("continue")), fmt.Sprintf(`^Thread %d runs; stopped: %d$`, first, second))
	ft.expect(noTicks(ft.Exec("thread "+strconv.Itoa(second))), fmt.Sprintf(`^Thread %d "thread-%d" at work`, second, second))
	if p := ft.r.prompt(); p != fmt.Sprintf("(nlangdbg) [stopped: %d*] ", second) {
		t.Errorf("prompt %q", p)
	}
	ft.expect(noTicks(ft.Exec("next")), fmt.Sprintf(`^Step at work \(prog\.n:%d\) \[thread %d "thread-%d"\] \(the other threads keep running\)$`, ft.line("next"), second, second))
	// the last held thread goes on: the whole program runs, and the
	// REPL waits for the next stop, the all-threads breakpoint's
	out = noTicks(ft.Exec("continue"))
	ft.expect(out, `^Breakpoint 2 at main \(prog\.n:`+strconv.Itoa(ft.line("main"))+`\) \[thread 1 "main"\]$`)
	if p := ft.r.prompt(); p != "(nlangdbg) " {
		t.Errorf("prompt after an all-threads stop %q", p)
	}
	want := "results 43 22"
	if first == 4 {
		want = "results 12 43"
	}
	ft.expect(noTicks(ft.Exec("continue")), `^`+want+`$`, `Program exited with code 0`)
}

// TestREPLNonStopInterrupt: in non-stop mode Ctrl-C stops the selected
// thread alone; interrupt THREAD stops one more while the ticker runs;
// the background printer shows the ticker's output above the prompt
// (the line cleared, the prompt drawn again); continue -a resumes both;
// interrupt -a stops every thread.
func TestREPLNonStopInterrupt(t *testing.T) {
	src := `import io;
import thread;
void ticker(int limit) {
    int n = 0;
    while (n < limit) {
        n += 1;
        io.print("tick " + n);
        thread.yield();
    }
}
void spinner(AtomicInt x) {
    while (true) {
        x.add(1); // @spin
        thread.yield();
    }
}
int main() {
    AtomicInt x = new AtomicInt(0);
    Thread s = thread.spawn(spinner, x);
    Thread t = thread.spawn(ticker, 100000000);
    t.join(); // @join
    io.print("joined");
    return 0;
}
`
	ft := newFakeTerminal(t, src)
	ft.expect(ft.Exec("nonstop on"), `^Non-stop mode is on`)
	ft.expect(ft.Exec("nonstop"), `^Non-stop mode is on`)
	ft.expect(ft.Exec("interrupt -a"), `^error: the program is already stopped$`)
	ft.Exec("break prog.n:" + strconv.Itoa(ft.line("join")))
	out := noTicks(ft.Exec("continue"))
	ft.expect(out, `^Breakpoint 1 at main \(prog\.n:\d+\) \[thread 1 "main"\] \(the other threads keep running\)$`)
	ft.Exec("clear 1")
	ft.expect(noTicks(ft.Exec("interrupt 1")), `^error: thread 1 is already stopped$`)
	ft.expect(noTicks(ft.Exec("interrupt")), `^error: thread 1 is stopped; the others run`)
	ft.expect(noTicks(ft.Exec("interrupt 2")), `^Paused at spinner \(prog\.n:\d+\) \[thread 2 "thread-2"\] \(the other threads keep running\)$`)
	if p := ft.r.prompt(); p != "(nlangdbg) [stopped: 1 2*] " {
		t.Errorf("prompt %q", p)
	}
	ft.expect(noTicks(ft.Exec("thread 3")), `^Thread 3 "thread-3" is running$`)
	ft.expect(noTicks(ft.Exec("bt")), `^error: thread 3 is running`)
	ft.Exec("thread 2")
	// the ticker's output while the prompt waits: above the prompt
	ft.out.mu.Lock()
	ft.out.ping = make(chan struct{}, 1)
	ft.out.mu.Unlock()
	var redraws atomic.Int32
	stop := ft.r.whilePrompting(func() { redraws.Add(1) })
	deadline := time.After(20 * time.Second)
	var shown strings.Builder
	for ticksIn(shown.String()) < 20 {
		select {
		case <-ft.out.ping:
			shown.WriteString(ft.out.take())
		case <-deadline:
			t.Fatalf("no output above the prompt:\n%s", shown.String())
		}
	}
	stop()
	shown.WriteString(ft.out.take())
	if !strings.HasPrefix(shown.String(), "\r\x1b[Ktick ") || redraws.Load() == 0 {
		t.Errorf("above the prompt (%d redraws): %q", redraws.Load(), shown.String()[:min(60, shown.Len())])
	}
	// continue -a: both go on; Ctrl-C stops the selected one again
	ft.r.interrupt <- struct{}{}
	out = noTicks(ft.Exec("continue -a"))
	ft.expect(out, `^Paused at spinner \(prog\.n:\d+\) \[thread 2 "thread-2"\] \(the other threads keep running\)$`)
	if len(ft.r.held) != 1 {
		t.Errorf("held %v after continue -a and Ctrl-C", ft.r.heldIDs())
	}
	out = noTicks(ft.Exec("interrupt -a"))
	ft.expect(out, `^Paused at \w+ \(prog\.n:\d+\) \[thread \d "[\w-]+"\]$`)
	if p := ft.r.prompt(); p != "(nlangdbg) " {
		t.Errorf("prompt after interrupt -a %q", p)
	}
	ft.expect(noTicks(ft.Exec("nonstop off")), `^Non-stop mode is off`)
}

// TestREPLThreadOnlyBreakpoint: in all-stop mode, break LOC thread-only
// holds the worker alone; rev next from there stops every thread first
// and says so; the session then goes on all-stop.
func TestREPLThreadOnlyBreakpoint(t *testing.T) {
	ft := newFakeTerminal(t, nonStopProg)
	ft.expect(ft.Exec("break prog.n:"+strconv.Itoa(ft.line("work"))+" thread-only"), `^Breakpoint 1 at prog\.n:\d+$`)
	ft.expect(ft.Exec("breakpoints"), `^\s+1\s+prog\.n:\d+ \(thread only\)$`)
	ft.expect(ft.Exec("continue"), `^Breakpoint 1 at work .* \(the other threads keep running\)$`)
	ft.until("the second worker", func(string) bool { return len(ft.r.held) == 2 })
	out := ft.Exec("rev next")
	ft.expect(out, `going back stops every thread first`, `at work \(prog\.n:`+strconv.Itoa(ft.line("work")-1)+`\)`)
	if p := ft.r.prompt(); p != "(nlangdbg) " {
		t.Errorf("prompt after going back %q", p)
	}
	ft.Exec("clear 1")
	// forward again: the re-execution holds the workers where the
	// recording held them; continue -a lets them go
	out = noTicks(ft.Exec("continue"))
	ft.expect(out, `^Held \(as recorded\) at work \(prog\.n:`+strconv.Itoa(ft.line("work"))+`\)`)
	out += noTicks(ft.until("both workers", func(string) bool { return len(ft.r.held) == 2 }))
	raw := ft.Exec("continue -a")
	t.Logf("continue -a: %q", raw[max(0, len(raw)-300):])
	out += noTicks(raw)
	ft.expect(out, `^results 12 22$`, `Program exited with code 0`)
}

// TestREPLNonStopJoinAndDeadlock: main stopped alone at its breakpoint
// while the worker waits on a channel: the REPL shows the note that
// nothing else can run; the worker, interrupted too, is held while
// parked; main, continued, joins it: a deadlock, whose report names the
// worker as held by the debugger.
func TestREPLNonStopJoinAndDeadlock(t *testing.T) {
	src := `import io;
import thread;
void worker(Channel<int> c) {
    io.print("worker waits");
    c.recv();
}
int main() {
    Channel<int> c = {};
    Thread w = thread.spawn(worker, c);
    thread.yield();
    io.print("main joins"); // @main
    w.join();
    return 0;
}
`
	ft := termWith(t, src, map[string]any{"nonStop": true})
	ft.Exec("break prog.n:" + strconv.Itoa(ft.line("main")))
	out := ft.Exec("continue")
	ft.expect(out, `^Breakpoint 1 at main \(prog\.n:\d+\) \[thread 1 "main"\] \(the other threads keep running\)$`)
	out += ft.until("the note", func(s string) bool { return strings.Contains(out+s, "nothing else can run") })
	ft.expect(out, `^note: nothing else can run while the debugger holds thread 1 "main" \(continue it to go on\)$`,
		`^  thread 2 "thread-2" waits for chan recv$`)
	ft.expect(ft.Exec("interrupt 2"), `^Paused at worker \(prog\.n:\d+\) \[thread 2 "thread-2"\] \(the other threads keep running\)$`)
	ft.Exec("thread 1")
	// the worker stays stopped: the prompt comes back at once, and the
	// deadlock comes while it waits
	out = ft.Exec("continue")
	ft.expect(out, `^Thread 1 runs; stopped: 2$`)
	out += ft.until("the deadlock", func(string) bool { return len(ft.r.held) == 0 && ft.r.stopped })
	ft.expect(out, `thread 2 "thread-2" \[chan recv, held by the debugger\]:`, `^Deadlock at main \(prog\.n:\d+\) \[thread 1 "main"\]$`)
	if p := ft.r.prompt(); p != "(nlangdbg) " {
		t.Errorf("prompt after the deadlock %q", p)
	}
}

// TestREPLThreadOnlyInterrupt: in all-stop mode, while thread-only
// breakpoints hold the workers, pause of the selected (held) thread says
// what stops the others, interrupt THREAD holds the ticker alone too,
// and continue -a lets all three go to the end.
func TestREPLThreadOnlyInterrupt(t *testing.T) {
	ft := newFakeTerminal(t, nonStopProg)
	ft.Exec("break prog.n:" + strconv.Itoa(ft.line("work")) + " -thread")
	ft.expect(noTicks(ft.Exec("continue")), `^Breakpoint 1 at work .* \(the other threads keep running\)$`)
	ft.until("the second worker", func(string) bool { return len(ft.r.held) == 2 })
	ft.expect(noTicks(ft.Exec("pause")), `^error: thread [34] is stopped; the others run`)
	ft.expect(noTicks(ft.Exec("interrupt 2")), `^Paused at ticker \(prog\.n:\d+\) \[thread 2 "thread-2"\] \(the other threads keep running\)$`)
	if p := ft.r.prompt(); p != "(nlangdbg) [stopped: 2* 3 4] " {
		t.Errorf("prompt %q", p)
	}
	ft.Exec("clear 1")
	ft.expect(noTicks(ft.Exec("continue -a")), `^results 12 22$`, `Program exited with code 0`)
}

// onlyTicks keeps the ticker's lines of out.
func onlyTicks(out string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(l, "tick ") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// TestREPLNonStopDumpReplays: a non-stop session — both workers held
// while the ticker prints, one continued alone, the other stepped alone,
// then main's all-threads breakpoint — is dumped, and nlangdbg replay of
// the dump re-executes it exactly: the holds and releases are inputs of
// the recording, so the replay prints the very lines the session printed
// (thousands of ticks) and differs only where the dump ends (the replay
// goes on past the moment the session stopped at).
func TestREPLNonStopDumpReplays(t *testing.T) {
	ft := newFakeTerminal(t, nonStopProg)
	ft.Exec("nonstop on")
	ft.Exec("break prog.n:" + strconv.Itoa(ft.line("work")))
	ft.Exec("break prog.n:" + strconv.Itoa(ft.line("main")) + " all-threads")
	all := ft.Exec("continue")
	all += ft.until("both workers", func(string) bool { return len(ft.r.held) == 2 })
	all += ft.until("ticks", func(out string) bool { return ticksIn(out) > 200 })
	all += ft.Exec("continue")
	all += ft.Exec("thread " + strconv.Itoa(7-ft.r.thread))
	all += ft.Exec("next")
	all += ft.Exec("continue")
	ft.expect(noTicks(all), `(?m)^Breakpoint 2 at main`)
	dump := filepath.Join(t.TempDir(), "nonstop.dump")
	ft.expect(ft.Exec("dump "+dump), `^Dumped the present`)
	var out, errb bytes.Buffer
	replayCmd([]string{dump}, nil, &out, &errb)
	session := onlyTicks(all)
	if ticksIn(session) < 200 || out.String() != session {
		t.Errorf("the replay printed %d ticks, the session %d; replay ends %q", ticksIn(out.String()), ticksIn(session), out.String()[max(0, out.Len()-40):])
	}
	if !strings.Contains(errb.String(), "recorded the end of the run") {
		t.Errorf("the replay diverged before the dump's end: %s", errb.String())
	}
}
