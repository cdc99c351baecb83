package main

import (
	"errors"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	dapserver "github.com/nlangdbg/nlangdbg/dap"
)

// Regression tests of the REPL defects found by trying it as a
// newcomer would (one test per defect).

func TestREPLSchedStepOntoABreakpointThenContinue(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	ft.Exec("break " + strconv.Itoa(ft.line("send")))
	out := ""
	for i := 0; i < 6 && !strings.Contains(out, "breakpoint"); i++ {
		out = ft.Exec("sched step")
	}
	// which breakpoint, not "trap"; the stop is shown
	ft.expect(out, `^dispatched thread 2 "\w+": \d+ reductions, stopped: breakpoint 1$`,
		`^Breakpoint 1 at Producer\.run \(prog\.n:\d+\) \[thread 2 "producer"\]`)
	ft.expect(ft.Exec("print i"), `^1$`)
	// continue goes on from there: the next hit, not the same stop again
	ft.expect(ft.Exec("continue"), `^Breakpoint 1 at Producer\.run`)
	ft.expect(ft.Exec("print i"), `^2$`)
	ft.Exec("clear all")
	// a temporary breakpoint reached by a quantum is named, then gone
	ft.Exec("tbreak " + strconv.Itoa(ft.line("recv")))
	out = ""
	for i := 0; i < 6 && !strings.Contains(out, "breakpoint"); i++ {
		out = ft.Exec("sched step")
	}
	ft.expect(out, `stopped: breakpoint 2(;|$)`, `^Breakpoint 2 at main`)
	ft.expect(ft.Exec("breakpoints"), `^No breakpoints\.$`)
	out = ft.Exec("continue")
	ft.expect(out, `^sum 12$`, `Program exited with code 0`)
	if strings.Contains(out, "Breakpoint") {
		t.Errorf("a cleared breakpoint stopped the program:\n%s", out)
	}
}

const factREPLProg = `import io;
int fact(int n) {
    if (n <= 1) {
        return 1; // @base
    }
    return n * fact(n - 1); // @rec
}
int main() {
    int f = fact(4); // @call
    io.print("f ${f}");
    return 0;
}
`

func TestREPLStepOutOfRecursion(t *testing.T) {
	ft := newFakeTerminal(t, factREPLProg)
	ft.Exec("break " + strconv.Itoa(ft.line("base")))
	ft.Exec("continue")
	ft.Exec("clear 1")
	rec := strconv.Itoa(ft.line("rec"))
	// each caller that returns on the same line, one at a time
	for i, ret := range []string{"1", "2", "6"} {
		out := ft.Exec("finish")
		ft.expect(out, `^Step out at fact \(prog\.n:`+rec+`\)`, `^fact returned `+ret+`$`)
		ft.expect(ft.Exec("print n"), `^`+strconv.Itoa(i+2)+`$`)
	}
	out := ft.Exec("finish")
	ft.expect(out, `^Step out at main \(prog\.n:`+strconv.Itoa(ft.line("call"))+`\)`, `^fact returned 24$`)
	ft.expect(ft.Exec("locals"), `^int Return value = 24$`)
}

const lockREPLProg = `import io;
import thread;
void worker(Mutex m, Channel<int> done) {
    m.lock();
    m.unlock();
    done.send(1);
}
int main() {
    Mutex m = new Mutex();
    Channel<int> done = new Channel<int>(4);
    m.lock();
    Thread w = thread.spawn(worker, m, done);
    w.setName("w2");
    thread.yield();
    m.unlock(); // @unlock
    done.recv();
    io.print("done");
    return 0;
}
`

func TestREPLFrozenHolderIsReported(t *testing.T) {
	ft := newFakeTerminal(t, lockREPLProg)
	ft.Exec("break " + strconv.Itoa(ft.line("unlock")))
	ft.Exec("continue")
	ft.Exec("clear 1")
	ft.expect(ft.Exec("freeze 1"), `thread 1 frozen`)
	// nothing can run: back at the prompt with who waits for what
	out := ft.Exec("continue")
	ft.expect(out, `thread 2 "w2" waits for mutex lock, held by thread 1 "main" \(frozen\)`,
		`frozen: thread 1 "main"`, `^Paused: nothing can run while threads are frozen at worker`)
	ft.Exec("thaw 1")
	ft.expect(ft.Exec("continue"), `^done$`, `Program exited with code 0`)
}

const linesREPLProg = `import io;
int worker(int n) {
    int s = 0;

    for (int i = 0; i < n; i += 1) {
        s += i; // @loop
    }
    return s; // @ret
}
int main() {
    int r = worker(100); // @call
    io.print("r ${r}");
    return 0;
}
`

func TestREPLBadLocationsAndConditionsAreRefused(t *testing.T) {
	ft := newFakeTerminal(t, linesREPLProg)
	for cmd, want := range map[string]string{
		"break 0":                          `error: line 0: lines start at 1`,
		"break -5":                         `error: line -5: lines start at 1`,
		"break 9999":                       `error: cannot set a breakpoint at prog\.n:9999: no code at or after line 9999`,
		"break nosuch.n:3":                 `error: no source file nosuch\.n`,
		"break 99999999999999999999":       `error: line 99999999999999999999 is too large`,
		"b :7":                             `error: ":7": write file:line`,
		"break nosuch":                     `error: cannot set a breakpoint at nosuch: no function nosuch`,
		"break 6 if i +":                   `error: cannot set a breakpoint at prog\.n:6: condition "i \+": `,
		"break 6 if nosuch == 1":           `error: cannot set a breakpoint at prog\.n:6: condition "nosuch == 1": .*nosuch`,
		"break 6 if i":                     `error: .*condition "i" is int, not bool`,
		"break prog.n:x":                   `error: no function x`,
		"break 6 hits abc":                 `error: .*invalid hit condition`,
		"break w-o-r-k":                    `error: "w-o-r-k" is not a location`,
		"break worker if zz == 1":          `error: cannot set a breakpoint at worker: condition "zz == 1": column 1: undefined: zz`,
		"tbreak prog.n:0":                  `error: line 0`,
		"condition 1 i == 2":               `error: no breakpoint 1`,
		"list nosuch.n:3":                  `error: no source file nosuch\.n`,
		"list 9999":                        `error: line 9999 is past the end of prog\.n \(14 lines\)`,
		"set nosuch = 1":                   `^error: no variable nosuch in the selected frame`,
		"freeze abc":                       `^error: thread "abc" is not a whole number$`,
		"sched quota 99999999999999999999": `^error: sched quota: 99999999999999999999 is too large$`,
	} {
		out := ft.Exec(cmd)
		ft.expect(out, want)
		if strings.Contains(out, "strconv") || strings.Contains(out, "setVariable") {
			t.Errorf("%s: internal words in %q", cmd, out)
		}
	}
	ft.expect(ft.Exec("breakpoints"), `^No breakpoints\.$`)
	// a line without code moves to the next line that has code, and says so
	ft.expect(ft.Exec("break 4"), `^Breakpoint 1 at prog\.n:5 \(line 4 has no code: moved to the next line that has\)$`)
	// a condition is checked when it is set
	ft.expect(ft.Exec("break 6 if i == 3"), `^Breakpoint 2 at prog\.n:6$`)
	ft.expect(ft.Exec("condition 2 i +"), `^error: condition refused: condition "i \+"`)
	ft.expect(ft.Exec("breakpoints"), `^\s+2\s+prog\.n:6 if i == 3$`)
}

func TestREPLHitCountsKeptAndShown(t *testing.T) {
	ft := newFakeTerminal(t, linesREPLProg)
	loop := strconv.Itoa(ft.line("loop"))
	ft.Exec("break " + loop + " hits 50")
	ft.Exec("tbreak " + loop)
	ft.expect(ft.Exec("continue"), `^Breakpoint 2 at worker`)
	ft.expect(ft.Exec("print i"), `^0$`)
	// the temporary breakpoint is gone; the other one keeps its count
	ft.expect(ft.Exec("continue"), `^Breakpoint 1 at worker`)
	ft.expect(ft.Exec("print i"), `^49$`)
	ft.expect(ft.Exec("breakpoints"), `^\s+1\s+prog\.n:`+loop+` hits >=50 \(hit 50 times\)$`)
	for i := 0; i < 2; i++ {
		ft.expect(ft.Exec("restart"), `Restarted`, `Stopped at entry`)
		ft.expect(ft.Exec("continue"), `^Breakpoint 1 at worker \(prog\.n:`+loop+`\)`)
		ft.expect(ft.Exec("print i"), `^49$`)
	}
}

func TestREPLListFollowsAndChecks(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	// after sched step, => is where the selected thread is now
	ft.Exec("sched step")
	out := ft.Exec("list")
	m := regexp.MustCompile(`(?m)^=>.\s+(\d+):`).FindStringSubmatch(out)
	if m == nil || m[1] == "17" {
		t.Errorf("=> did not follow the sched step:\n%s", out)
	}
	ft.expect(ft.Exec("list twice"), `^\s+\d+: int twice\(int v\) \{`)
	ft.expect(ft.Exec("list 12,14"), `^\s+12: int twice`, `^\s+14:\s+return r;`)
	if out := ft.Exec("list 12,14"); strings.Count(out, "\n") != 3 {
		t.Errorf("list 12,14 printed:\n%s", out)
	}
	ft.expect(ft.Exec("list 14,12"), `error: list 14,12: the last line comes before the first`)
}

func TestREPLSchedViewStoppedAndAligned(t *testing.T) {
	ft := newFakeTerminal(t, `import thread;
void sleeper(int ms) {
    thread.sleep(ms);
}
int main() {
    for (int i = 0; i < 12; i += 1) {
        thread.spawn(sleeper, 5000);
    }
    thread.yield();
    thread.yield(); // @stop
    return 0;
}
`)
	ft.Exec("break " + strconv.Itoa(ft.line("stop")))
	ft.Exec("continue")
	a, b := ft.Exec("sched"), ft.Exec("sched")
	if a != b {
		t.Errorf("the scheduler view changes while the program is stopped:\n%s\n%s", a, b)
	}
	ft.expect(a, `thread \d+ "thread-\d+" wakes in \d`)
	if strings.Contains(a, "wakes in -") {
		t.Errorf("negative time left:\n%s", a)
	}
	ft.expect(ft.Exec("threads"), `(?m)^\s+\[2\] "thread-2"`)
	// the quoted names line up whatever the id's width
	col := -1
	for _, l := range strings.Split(ft.Exec("threads"), "\n") {
		if i := strings.Index(l, `"`); i >= 0 {
			if col >= 0 && i != col {
				t.Errorf("misaligned threads:\n%s", ft.Exec("threads"))
				break
			}
			col = i
		}
	}
}

func TestREPLCompletionOffersWords(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	for _, c := range []struct {
		line, head string
		words      []string
	}{
		{"sched ", "sched ", []string{"graph", "next", "quota", "step"}},
		{"sched st", "sched ", []string{"step"}},
		{"info b", "info ", []string{"breakpoints"}},
		{"brea", "", []string{"break ", "breakpoints "}},
		{"fini", "", []string{"finish "}},
	} {
		head, words, tail := ft.r.completeWord(c.line, len(c.line))
		if head != c.head || strings.Join(words, "|") != strings.Join(c.words, "|") || tail != "" {
			t.Errorf("complete %q = %q %q %q, want %q %q", c.line, head, words, tail, c.head, c.words)
		}
	}
	if _, words, _ := ft.r.completeWord("list tw", 7); len(words) != 1 || words[0] != "twice" {
		t.Errorf("list tw completes to %q", words)
	}
}

func TestREPLQuitWhenAttachedAsks(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	ft.r.attached = true
	answer := "n"
	saved := ask
	ask = func(*repl, string) (string, error) { return answer, nil }
	t.Cleanup(func() { ask = saved })
	// as in gdb, no cancels the quit
	if err := ft.r.Exec("quit"); err != nil {
		t.Fatalf("quit answered n: %v", err)
	}
	ft.expect(ft.out.take(), `^Not quitting\.$`)
	answer = "y"
	if err := ft.r.Exec("quit"); !errors.Is(err, errQuit) {
		t.Fatalf("quit answered y: %v", err)
	}
}

func TestREPLLaunchErrorInUserWords(t *testing.T) {
	c1, c2 := net.Pipe()
	go (&dapserver.Server{}).ServeConn(c2)
	defer c1.Close()
	r := newREPL(newDAPClient(c1, c1), &syncBuffer{})
	missing := filepath.Join(t.TempDir(), "nosuch.n")
	err := r.start(map[string]any{"program": missing}, false)
	if err == nil || err.Error() != "cannot launch "+missing+": no such file" {
		t.Fatalf("start: %v", err)
	}
}

func TestREPLConditionFailingAtAHitNamesTheLine(t *testing.T) {
	ft := newFakeTerminal(t, `int main() {
    int[] a = new int[]{1, 2};
    for (int i = 0; i < 3; i += 1) {
        int x = i; // @loop
    }
    return 0;
}
`)
	ft.expect(ft.Exec("break 4 if a[i] > 5"), `^Breakpoint 1 at prog\.n:4$`)
	out := ft.Exec("continue")
	// the breakpoint is named by its place (the server's own numbers mean
	// nothing to the user), then the stop says which it is
	ft.expect(out, `^breakpoint at prog\.n:4: condition "a\[i\] > 5" failed: .*IndexOutOfBounds.* \(stopping\)$`, `^Breakpoint 1 at main \(prog\.n:4\)`)
	ft.expect(ft.Exec("print i"), `^2$`)
}
