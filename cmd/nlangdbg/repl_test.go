package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	dapserver "github.com/nlangdbg/nlangdbg/dap"
)

// fakeTerminal drives a REPL the way a person at a terminal would:
// commands in, transcript out.
type fakeTerminal struct {
	t    *testing.T
	r    *repl
	out  *syncBuffer
	path string
	src  string
}

type syncBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	ping chan struct{} // told of each write, if set (watch)
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ping != nil {
		select {
		case s.ping <- struct{}{}:
		default:
		}
	}
	return s.b.Write(p)
}

func (s *syncBuffer) take() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.b.String()
	s.b.Reset()
	return out
}

// newFakeTerminal starts `debug` on src (stopped at entry) and returns
// the terminal; the entry stop's output is discarded.
func newFakeTerminal(t *testing.T, src string) *fakeTerminal {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "prog.n")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ft, _ := startTerminal(t, path)
	return ft
}

// startTerminal starts `debug` on the program at path (stopped at
// entry) and returns the terminal and what the entry stop printed.
func startTerminal(t *testing.T, path string) (*fakeTerminal, string) {
	t.Helper()
	return startTerminalWith(t, path, nil)
}

// startTerminalWith is startTerminal with more launch arguments.
func startTerminalWith(t *testing.T, path string, launch map[string]any) (*fakeTerminal, string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := net.Pipe()
	srv := &dapserver.Server{}
	go srv.ServeConn(c2)
	out := &syncBuffer{}
	r := newREPL(newDAPClient(c1, c1), out)
	r.program = path
	ft := &fakeTerminal{t: t, r: r, out: out, path: path, src: string(src)}
	t.Cleanup(func() {
		r.Exec("quit")
		c1.Close()
	})
	args := map[string]any{"program": path, "stopOnEntry": true}
	for k, v := range launch {
		args[k] = v
	}
	if err := r.start(args, false); err != nil {
		t.Fatal(err)
	}
	return ft, out.take()
}

// Exec runs a command and returns its transcript (with "error: …" for a
// failed command).
func (ft *fakeTerminal) Exec(cmd string) string {
	err := ft.r.Exec(cmd)
	s := ft.out.take()
	if err != nil && !errors.Is(err, errQuit) {
		s += "error: " + err.Error() + "\n"
	}
	return s
}

// line returns the line of marker `// @name` in the source.
func (ft *fakeTerminal) line(name string) int {
	for i, l := range strings.Split(ft.src, "\n") {
		if strings.Contains(l, "// @"+name) {
			return i + 1
		}
	}
	ft.t.Fatalf("no marker @%s", name)
	return 0
}

// expect checks that out matches every pattern (regexps, multi-line).
func (ft *fakeTerminal) expect(out string, patterns ...string) {
	ft.t.Helper()
	for _, p := range patterns {
		if !regexp.MustCompile("(?m)" + p).MatchString(out) {
			ft.t.Errorf("transcript does not match %q:\n%s", p, out)
		}
	}
}

const replProg = `import io;
import thread;
class Producer {
    public Channel<int> feed;
    public void run() {
        for (int i = 1; i <= 3; i = i + 1) {
            feed.send(i); // @send
        }
        feed.close();
    }
}
int twice(int v) {
    int r = v * 2; // @twice
    return r;
}
int main() {
    Producer p = Producer();
    Channel<int> c = {};
    p.feed = c;
    Thread producer = thread.spawn(p.run);
    producer.setName("producer");
    int sum = 0; // @sum
    while (true) {
        try {
            sum = sum + c.recv(); // @recv
        } catch (ChannelClosedException e) {
            break;
        }
    }
    thread.join(producer);
    sum = twice(sum); // @call
    io.print("sum ${sum}");
    return 0;
}
`

func TestREPLBreakContinueAndStopLine(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	out := ft.Exec("break prog.n:" + strconv.Itoa(ft.line("send")))
	ft.expect(out, `^Breakpoint 1 at prog\.n:\d+`)
	out = ft.Exec("continue")
	ft.expect(out, `^Breakpoint 1 at Producer\.run \(prog\.n:\d+\) \[thread 2 "producer"\]`, `=>●?\s+\d+:\s+feed\.send\(i\);`)
	out = ft.Exec("breakpoints")
	ft.expect(out, `^\s+1\s+prog\.n:\d+`)
	out = ft.Exec("clear 1")
	ft.expect(out, `Breakpoint 1 cleared`)
	out = ft.Exec("continue")
	ft.expect(out, `^sum 12$`, `Program exited with code 0`)
}

func TestREPLStepping(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	ft.Exec("break twice")
	out := ft.Exec("continue")
	ft.expect(out, `^Breakpoint 1 at twice \(prog\.n:\d+\) \[thread 1 "main"\]`)
	out = ft.Exec("next")
	ft.expect(out, `^Step at twice \(prog\.n:\d+\)`, `=>\s+\d+:\s+return r;`)
	out = ft.Exec("stepout")
	// in the caller right after the call, on the call's line, with the
	// returned value
	ft.expect(out, `^Step out at main \(prog\.n:`+strconv.Itoa(ft.line("call"))+`\)`, `^twice returned 12$`, `=>\s+\d+:\s+sum = twice\(sum\);`)
	out = ft.Exec("print sum")
	ft.expect(out, `^12$`)
	out = ft.Exec("bt")
	ft.expect(out, `^\*\s+0\s+main \(prog\.n:\d+\)`)
}

func TestREPLThreadsAndSched(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	ft.Exec("break " + strconv.Itoa(ft.line("recv")))
	ft.Exec("continue")
	out := ft.Exec("threads")
	ft.expect(out, `\[1\] "main"`, `\[2\] "producer"`, `2 threads`)
	out = ft.Exec("threads -group wait")
	ft.expect(out, `threads in \d+ groups`)
	out = ft.Exec("sched")
	ft.expect(out, `quota 4000 reductions per dispatch`, `run queue \(\d+\):`, `parked \(\d+\):`)
	out = ft.Exec("sched step")
	ft.expect(out, `^dispatched thread \d+ "\w+": \d+ reductions, stopped: `)
	out = ft.Exec("sched quota 10")
	ft.expect(out, `^quota 10$`)
	out = ft.Exec("thread 2")
	ft.expect(out, `^Thread 2 "producer" at `)
	out = ft.Exec("freeze 2")
	ft.expect(out, `thread 2 frozen`)
	out = ft.Exec("thaw 2")
	ft.expect(out, `thread 2 thawed`)
}

func TestREPLHelp(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	out := ft.Exec("help")
	for _, c := range replCmds {
		ft.expect(out, `(?m)^\s+`+regexp.QuoteMeta(c.name)+`\b`)
	}
	out = ft.Exec("help break")
	ft.expect(out, `break \(b\)`, `safepoint`)
	out = ft.Exec("frobnicate")
	ft.expect(out, `error: unknown command "frobnicate"`)
}

func TestREPLTbreakConditionAndHits(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	out := ft.Exec("tbreak " + strconv.Itoa(ft.line("recv")))
	ft.expect(out, `^Temporary breakpoint 1 at prog\.n:\d+`)
	out = ft.Exec("continue")
	ft.expect(out, `^Breakpoint 1 at main`)
	out = ft.Exec("breakpoints")
	ft.expect(out, `No breakpoints`)
	ft.Exec("break " + strconv.Itoa(ft.line("send")) + " if i == 2")
	out = ft.Exec("continue")
	ft.expect(out, `^Breakpoint 2 at Producer\.run`)
	ft.expect(ft.Exec("print i"), `^2$`)
	out = ft.Exec("condition 2 i == 3")
	ft.expect(out, `Breakpoint 2: stop if i == 3`)
	ft.Exec("continue")
	ft.expect(ft.Exec("print i"), `^3$`)
	out = ft.Exec("condition 2")
	ft.expect(out, `unconditional`)
	out = ft.Exec("clear all")
	ft.expect(out, `All breakpoints cleared`)
	ft.Exec("break " + strconv.Itoa(ft.line("twice")) + " hits 1")
	ft.expect(ft.Exec("breakpoints"), `hits >=1`)
}

func TestREPLFramesLocalsSetAndList(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	ft.Exec("break twice")
	ft.Exec("continue")
	out := ft.Exec("args")
	ft.expect(out, `^int v = 6$`)
	out = ft.Exec("locals")
	ft.expect(out, `(no locals)|int r = `)
	out = ft.Exec("up")
	ft.expect(out, `^Frame 1: main \(prog\.n:\d+\)`)
	out = ft.Exec("locals")
	ft.expect(out, `^int sum = 6$`, `Producer p = `)
	out = ft.Exec("print p.feed")
	ft.expect(out, `Channel`)
	out = ft.Exec("down")
	ft.expect(out, `^Frame 0: twice`)
	ft.expect(ft.Exec("frame 1"), `^Frame 1: main`)
	ft.expect(ft.Exec("frame 7"), `error: no frame 7`)
	ft.Exec("frame 0")
	out = ft.Exec("set v = 50")
	ft.expect(out, `^v = 50$`)
	out = ft.Exec("list")
	ft.expect(out, `=>\s+\d+:\s+int r = v \* 2;`)
	out = ft.Exec("disasm")
	ft.expect(out, `^func twice`, `(?m)^=>`)
	out = ft.Exec("continue")
	ft.expect(out, `^sum 100$`)
}

func TestREPLSchedulerCommands(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	out := ft.Exec("break sched spawn")
	ft.expect(out, `will stop at scheduler events: spawn`)
	out = ft.Exec("continue")
	ft.expect(out, `Scheduler event: spawn of thread 2 "thread-2"`)
	out = ft.Exec("clear sched spawn")
	ft.expect(out, `cleared`)
	// step the scheduler dispatch by dispatch: main, then the producer
	out = ft.Exec("sched next 2")
	ft.expect(out, `next dispatch: thread 2`)
	out = ft.Exec("sched step")
	ft.expect(out, `^dispatched thread 2 "(thread-2|producer)": \d+ reductions, stopped: parked on chan send`)
	out = ft.Exec("sched step")
	ft.expect(out, `^dispatched thread 1 "main": \d+ reductions, stopped: `)
	out = ft.Exec("break safepoint 1")
	ft.expect(out, `thread 1 will stop at its next safepoint`)
	out = ft.Exec("continue")
	ft.expect(out, `Stopped at a safepoint .*\[thread 1 "main"\]`)
}

func TestREPLPauseRestartQuit(t *testing.T) {
	ft := newFakeTerminal(t, `int main() {
    long n = 0;
    while (true) {
        n += 1;
    }
    return 0;
}
`)
	// Ctrl-C while the program runs sends a pause.
	ft.r.interrupt <- struct{}{}
	out := ft.Exec("continue")
	ft.expect(out, `^Paused at main \(prog\.n:\d+\) \[thread 1 "main"\]`)
	ft.expect(ft.Exec("pause"), `error: the program is already stopped`)
	out = ft.Exec("restart")
	ft.expect(out, `Restarted`, `Stopped at entry at main`)
	if err := ft.r.Exec("quit"); !errors.Is(err, errQuit) {
		t.Fatalf("quit returned %v", err)
	}
}
