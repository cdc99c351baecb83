package main

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dapserver "github.com/nlangdbg/nlangdbg/dap"
)

// fuzzProgram is the program each FuzzREPLCommand input debugs: a few
// threads, a mutex, a loop; it ends on its own, so no command can leave
// it running for ever.
const fuzzProgram = `import io;
import thread;
class Box { public int v; public List<int> l = new List<int>(); }
void work(Mutex m, Box b, int n) {
    for (int i = 0; i < n; i += 1) {
        m.lock();
        b.v = b.v + i;
        b.l.add(i);
        m.unlock();
    }
}
int main() {
    Mutex m = new Mutex();
    Box b = new Box();
    Thread t = thread.spawn(work, m, b, 20);
    work(m, b, 20);
    t.join();
    io.print(b.v);
    return 0;
}
`

// FuzzREPLCommand runs arbitrary command lines in a REPL debugging a
// program stopped at entry: whatever is typed, the REPL answers (an
// error is fine) without panicking or hanging.
func FuzzREPLCommand(f *testing.F) {
	for _, s := range []string{
		"break 9", "break work if i > 3", "b prog.n:7", "tbreak 999999999999999999999", "break nosuch.n:3",
		"condition 1 i +", "clear all", "continue", "next", "step", "stepout", "threads", "thread 2",
		"bt", "frame 1", "up", "down 5", "locals", "args", "print b.l", "print 1 / 0", "p/x b.v",
		"set b.v = 7", "set i = \"x\"", "list", "list work", "list 1,3", "disasm", "sched", "sched step",
		"freeze 2", "thaw all", "breakpoints", "help break", "print ${", "break -5", "frame -1",
		"", "   ", "\x00", "print \"\xff\"",
		"watch b.v", "watch -r b.l[0]", "watch [", "watch a[", "watch .x", "watch ]", "watch -r", "watch b.", "clear 1",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "prog.n")
	if err := os.WriteFile(path, []byte(fuzzProgram), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 4096 {
			return
		}
		c1, c2 := net.Pipe()
		srv := &dapserver.Server{}
		served := make(chan struct{})
		go func() { srv.ServeConn(c2); close(served) }()
		r := newREPL(newDAPClient(c1, c1), io.Discard)
		r.program = path
		if err := r.start(map[string]any{"program": path, "stopOnEntry": true}, false); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for _, cmd := range strings.Split(line, "\n") {
				if r.Exec(cmd) == errQuit {
					return
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("the REPL did not answer %q", line)
		}
		r.Exec("quit")
		c1.Close()
		<-served
	})
}
