package main

import (
	"net"
	"path/filepath"
	"strconv"
	"testing"

	dapserver "github.com/nlangdbg/nlangdbg/dap"
	"github.com/nlangdbg/nlangdbg/sched/record"
)

// TestREPLGoingBack drives each going-back command: rewind, rev
// next/step/stepout/continue, checkpoint, checkpoints, restart N, when.
func TestREPLGoingBack(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	ft.Exec("break prog.n:" + strconv.Itoa(ft.line("recv")))
	for i := 0; i < 3; i++ {
		ft.Exec("continue")
	}
	out := ft.Exec("print sum")
	ft.expect(out, `^3$`)
	out = ft.Exec("threads")
	ft.expect(out, `\[2\] "producer"\s+runnable\s+Producer\.run \(prog\.n:`+strconv.Itoa(ft.line("send"))+`\)`)
	out = ft.Exec("when")
	ft.expect(out, `^thread 1, \d+ reductions into it; event byte \d+ of \d+ \(at the frontier: going forward records\)$`)
	out = ft.Exec("checkpoint third hit")
	ft.expect(out, `^Checkpoint 1: thread 1 "main" at main \(line `+strconv.Itoa(ft.line("recv"))+`\), \d+ reductions$`)
	out = ft.Exec("rewind")
	ft.expect(out, `^Breakpoint 1 at main \(prog\.n:`+strconv.Itoa(ft.line("recv"))+`\) \[thread 1 "main"\]`)
	out = ft.Exec("print sum")
	ft.expect(out, `^1$`)
	out = ft.Exec("when")
	ft.expect(out, `^thread 1, \d+ reductions into it; event byte \d+ of \d+`)
	out = ft.Exec("rev continue")
	ft.expect(out, `^Breakpoint 1 at main`)
	out = ft.Exec("print sum")
	ft.expect(out, `^0$`)
	// the threads and the scheduler as they were then
	// (the producer had not run yet: in the present it was at its send)
	out = ft.Exec("threads")
	ft.expect(out, `\[2\] "producer"\s+runnable\s+Producer\.run \(prog\.n:`+strconv.Itoa(ft.line("send")-1)+`\)`)
	out = ft.Exec("sched")
	ft.expect(out, `^run queue \(2\):`, `^parked \(0\):`)
	out = ft.Exec("rev next")
	ft.expect(out, `Step back`)
	out = ft.Exec("checkpoints")
	ft.expect(out, `^\s+1\s+thread 1 "main" at main \(line \d+\), \d+ reductions\s+"third hit"$`, `^the recording: \d+ bytes in memory$`,
		`^copies of the execution: \d+ kept \(\d+ taken( \(\d+ near (a moment|moments) gone back to\))?, \d+ dropped to stay within the budget\), [0-9.]+ MiB of 256.0 MiB, one every 25ms of run or more; going back re-executes from the nearest one before the target$`)
	out = ft.Exec("restart 1")
	ft.expect(out, `Checkpoint 1`)
	out = ft.Exec("print sum")
	ft.expect(out, `^3$`)
	ft.Exec("clear 1")
	ft.Exec("break twice")
	ft.Exec("continue")
	out = ft.Exec("next")
	ft.expect(out, `=>\s+\d+:\s+return r;`)
	out = ft.Exec("rev stepout")
	ft.expect(out, `at main \(prog\.n:`+strconv.Itoa(ft.line("call"))+`\)`)
	out = ft.Exec("rev step")
	ft.expect(out, `Step back`)
	out = ft.Exec("rev sideways")
	ft.expect(out, `error: usage: rev next \| step \| stepout \| continue`)
	ft.Exec("clear all")
	out = ft.Exec("continue")
	ft.expect(out, `^sum 12$`, `Program exited with code 0`)
}

// TestREPLDump: dump FILE writes the present; the dump opens there (the
// session's locals of that moment).
func TestREPLDump(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	ft.Exec("break prog.n:" + strconv.Itoa(ft.line("recv")))
	ft.Exec("continue")
	ft.Exec("continue")
	dump := filepath.Join(t.TempDir(), "s.dump")
	out := ft.Exec("dump " + dump)
	ft.expect(out, `^Dumped the present to .*s\.dump \(nlangdbg debug --core .*\)$`)
	rec, err := record.ReadFile(dump)
	if err != nil || rec.Core == nil || !rec.Core.Trap {
		t.Fatalf("dump: %v %+v", err, rec)
	}
	ft2 := newFakeTerminalArgs(t, map[string]any{"replay": dump, "stopOnEntry": true})
	out = ft2.Exec("print sum")
	ft2.expect(out, `^1$`)
}

// newFakeTerminalArgs starts the REPL with launch arguments of its own (a
// recording or a dump) and returns it after the first stop.
func newFakeTerminalArgs(t *testing.T, launch map[string]any) *fakeTerminal {
	t.Helper()
	c1, c2 := net.Pipe()
	srv := &dapserver.Server{}
	go srv.ServeConn(c2)
	out := &syncBuffer{}
	r := newREPL(newDAPClient(c1, c1), out)
	ft := &fakeTerminal{t: t, r: r, out: out}
	t.Cleanup(func() {
		r.Exec("quit")
		c1.Close()
	})
	if err := r.start(launch, false); err != nil {
		t.Fatal(err)
	}
	out.take()
	return ft
}

const watchProg = `import io;
class P { int x; P() {} }
int main() {
    P p = new P();
    int s = 0;
    for (int i = 0; i < 3000; i += 1) {
        s += i % 7;
        if (i % 1000 == 0) {
            p.x = i; // @set
        }
    }
    io.print("" + s + " " + p.x); // @end
    return 0;
}
`

// TestREPLWatch: watch sets a data breakpoint on a field (and a local),
// breakpoints lists it, rev continue goes back to its last changes, and
// clear deletes it; errors for what cannot be watched.
func TestREPLWatch(t *testing.T) {
	ft := newFakeTerminal(t, watchProg)
	ft.Exec("break prog.n:" + strconv.Itoa(ft.line("end")))
	ft.Exec("continue")
	ft.expect(ft.Exec("watch p.x"), `^Watchpoint 2: p\.x \(written\)$`)
	ft.expect(ft.Exec("watch nosuch"), `^error: watch nosuch: nosuch cannot be watched`)
	ft.expect(ft.Exec("watch s.x"), `^error: watch s\.x: s is \d+, which has no fields or elements$`)
	ft.expect(ft.Exec("breakpoints"), `^\s+1\s+prog\.n:\d+ \(hit once\)$`, `^\s+2\s+watch p\.x \(written\)$`)
	ft.expect(ft.Exec("rev continue"), `^Watchpoint 2: p\.x changed from 1000 to 2000 \(going back\) at main \(prog\.n:\d+\)`)
	ft.expect(ft.Exec("print i"), `^2000$`)
	ft.expect(ft.Exec("rev continue"), `^Watchpoint 2: p\.x changed from 0 to 1000 \(going back\) at main`)
	ft.expect(ft.Exec("print i"), `^1000$`)
	ft.expect(ft.Exec("continue"), `^Watchpoint 2: p\.x changed from 1000 to 2000 at main`)
	ft.expect(ft.Exec("clear 2"), `^Watchpoint 2 cleared\.$`)
	ft.expect(ft.Exec("watch s"), `^Watchpoint 3: s \(written\)$`)
	ft.expect(ft.Exec("continue"), `^Watchpoint 3: s changed from \d+ to \d+ at main`)
	ft.expect(ft.Exec("clear all"), `^All breakpoints cleared\.$`)
	ft.expect(ft.Exec("breakpoints"), `^No breakpoints\.$`)
	ft.expect(ft.Exec("continue"), `^8994 2000$`)
}
