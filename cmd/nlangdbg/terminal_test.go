package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// buildBinary builds nlangdbg once per test run.
var (
	binOnce sync.Once
	binPath string
	binErr  error
)

func nlangdbgBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "nlangdbg-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "nlangdbg")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = err
			binPath = string(out)
		}
	})
	if binErr != nil {
		t.Fatalf("building nlangdbg: %v\n%s", binErr, binPath)
	}
	return binPath
}

// screen collects a process's terminal output.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
	pos int // what expect has consumed
}

func (s *screen) copyFrom(r io.Reader) {
	b := make([]byte, 4096)
	for {
		n, err := r.Read(b)
		s.mu.Lock()
		s.buf.Write(b[:n])
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// expect waits until the unread output matches re and consumes it.
func (s *screen) expect(t *testing.T, re string) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		text := s.buf.String()[s.pos:]
		if loc := rx.FindStringIndex(text); loc != nil {
			s.pos += loc[1]
			s.mu.Unlock()
			return text[:loc[1]]
		}
		s.mu.Unlock()
		time.Sleep(20 * time.Millisecond) // polling a terminal: there is no event to wait on
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t.Fatalf("timeout waiting for %q; terminal shows:\n%s", re, s.buf.String()[s.pos:])
	return ""
}

// term is `nlangdbg debug` of a program in a pseudo-terminal of 40×120.
type term struct {
	f   *os.File
	cmd *exec.Cmd
	scr *screen
	dir string // its HOME and XDG_CONFIG_HOME (the history file)
}

// debugInTerminal writes src to a file name in a new folder, runs
// `nlangdbg debug` on it in a pseudo-terminal (killed at the test's end)
// and waits for its first prompt.
func debugInTerminal(t *testing.T, name, src string) *term {
	t.Helper()
	bin := nlangdbgBinary(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, name)
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "debug", prog)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "HOME="+dir, "TERM=xterm")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		f.Close()
	})
	scr := &screen{}
	go scr.copyFrom(f)
	scr.expect(t, `Stopped at entry at main`)
	scr.expect(t, `\(nlangdbg\) `)
	return &term{f: f, cmd: cmd, scr: scr, dir: dir}
}

// TestTerminalLiner drives the real binary in a pseudo-terminal: tab
// completion, history (arrow up, and the history file), Ctrl-C pausing a
// busy program, Ctrl-D quitting.
func TestTerminalLiner(t *testing.T) {
	d := debugInTerminal(t, "busy.n", `int main() {
    long n = 0;
    while (true) {
        n += 1;
    }
    return 0;
}
`)
	f, cmd, scr := d.f, d.cmd, d.scr
	dir := d.dir

	// Tab completes a unique command name.
	f.Write([]byte("disas\t"))
	scr.expect(t, `disasm `)
	f.Write([]byte("\r"))
	scr.expect(t, `func main`)
	scr.expect(t, `\(nlangdbg\) `)

	// Arrow up recalls it.
	f.Write([]byte("\x1b[A"))
	scr.expect(t, `disasm`)
	f.Write([]byte("\r"))
	scr.expect(t, `func main`)
	scr.expect(t, `\(nlangdbg\) `)

	// Tab twice lists the words that fit, not whole lines.
	f.Write([]byte("sched \t\t"))
	scr.expect(t, `\r?\ngraph\s+next\s+quota\s+step\s*\r?\n`)
	f.Write([]byte("\x03"))
	// (a new prompt, not the line drawn again after the list: the keys
	// below must come after the Ctrl-C is handled)
	scr.expect(t, `\^C\r?\n\(nlangdbg\) `)

	// Ctrl-C at the prompt clears the line.
	f.Write([]byte("garbage\x03"))
	scr.expect(t, `garbage\^C\r?\n\(nlangdbg\) `)

	// Ctrl-C while the program runs pauses it.
	f.Write([]byte("continue\r"))
	scr.expect(t, `continue`)
	waitCooked(t, cmd, scr) // (Ctrl-C is a signal once the program has the terminal)
	f.Write([]byte("\x03"))
	scr.expect(t, `Paused at main \(busy\.n:\d+\) \[thread 1 "main"\]`)
	scr.expect(t, `\(nlangdbg\) `)

	// Ctrl-D quits (and kills the debugged program).
	f.Write([]byte("\x04"))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("nlangdbg did not exit on Ctrl-D")
	}
	hist, err := os.ReadFile(filepath.Join(dir, "nlangdbg", "history"))
	if err != nil || !strings.Contains(string(hist), "disasm") || strings.Contains(string(hist), "garbage") {
		t.Fatalf("history file: %q, %v", hist, err)
	}
}

// TestAttach runs a program with `run --listen` and attaches to it from
// a second process: inspect, detach, and the program finishes normally.
func TestAttach(t *testing.T) {
	bin := nlangdbgBinary(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "slow.n")
	os.WriteFile(prog, []byte(`import io;
import thread;
void ticker(int n) {
    for (int i = 0; i < n; i += 1) {
        thread.sleep(20);
    }
}
int main() {
    Thread t = thread.spawn(ticker, 50);
    t.setName("ticker");
    t.join();
    io.print("done");
    return 7;
}
`), 0o644)
	run := exec.Command(bin, "run", "--listen", "127.0.0.1:0", prog)
	var runOut bytes.Buffer
	run.Stdout = &runOut
	stderr, _ := run.StderrPipe()
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer run.Process.Kill()
	sc := bufio.NewScanner(stderr)
	addr := ""
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "DAP server listening at: "); ok {
			addr = a
			break
		}
	}
	if addr == "" {
		t.Fatal("no listen address on stderr")
	}
	go io.Copy(io.Discard, stderr)

	att := exec.Command(bin, "attach", addr)
	// quit asks first (the program would run on); "n" stays, as in gdb
	att.Stdin = strings.NewReader("threads\nbt\nthread 2\nbt\nquit\nn\ndetach\n")
	out, err := att.CombinedOutput()
	if err != nil {
		t.Fatalf("attach: %v\n%s", err, out)
	}
	for _, want := range []string{`Paused`, `\[1\] "main"\s+join ticker`, `\[2\] "ticker"\s+sleep`, `ticker \(slow\.n:\d+\)`, `Not quitting\.`, `Detached`} {
		if !regexp.MustCompile(want).Match(out) {
			t.Errorf("attach transcript does not match %q:\n%s", want, out)
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- run.Wait() }()
	select {
	case err := <-errc:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 {
			t.Fatalf("program ended with %v, want exit code 7", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("program did not finish after detach")
	}
	if runOut.String() != "done\n" {
		t.Fatalf("program output %q", runOut.String())
	}
}

// TestTerminalProgramInput: the program shares the terminal, as under
// gdb: a line typed while it runs is its input (echoed by the terminal),
// Ctrl-D ends its input, and a line it does not read is the next command
// once it stops (here by Ctrl-C, which does not make an empty line resume
// it).
func TestTerminalProgramInput(t *testing.T) {
	d := debugInTerminal(t, "echo.n", `import io;
int main() {
    string a = io.readLine();
    io.print("got " + a);
    string b = io.readLine();
    io.print("then [" + b + "]");
    long n = 0;
    while (true) {
        n += 1;
    }
    return 0;
}
`)
	f, cmd, scr := d.f, d.cmd, d.scr
	f.Write([]byte("continue\r"))
	scr.expect(t, `continue\r?\n`)
	waitCooked(t, cmd, scr)
	f.Write([]byte("apple\r"))
	scr.expect(t, `apple\r?\n`) // the terminal's echo
	scr.expect(t, `got apple\r?\n`)
	f.Write([]byte("\x04")) // Ctrl-D: the second line is the end
	scr.expect(t, `then \[\]\r?\n`)
	f.Write([]byte("print 6 * 7\r"))
	scr.expect(t, `print 6 \* 7\r?\n`)
	f.Write([]byte("\x03"))
	scr.expect(t, `Paused at main \(echo\.n:\d+\)`)
	scr.expect(t, `\(nlangdbg\) print 6 \* 7\r?\n42\r?\n`)
	scr.expect(t, `\(nlangdbg\) `)
	f.Write([]byte("\r")) // does not resume
	f.Write([]byte("print n > 0\r"))
	scr.expect(t, `\(nlangdbg\) print n > 0\r?\ntrue\r?\n`)
}

// TestTerminalNonStop drives the real binary in a pseudo-terminal in
// non-stop mode: a worker stops alone at a breakpoint, the prompt names
// it, and while a half-typed command waits at the prompt the ticker's
// output is printed above it and the prompt and the typed text are drawn
// again below, so that the command, finished, runs as typed.
func TestTerminalNonStop(t *testing.T) {
	d := debugInTerminal(t, "ns.n", `import io;
import thread;
void ticker(AtomicInt stop) {
    int n = 0;
    while (stop.get() == 0) {
        n += 1;
        io.print("tick " + n);
        thread.sleep(10);
    }
}
int work(int id) {
    int acc = id * 10;
    acc += 1;
    return acc;
}
int main() {
    AtomicInt stop = new AtomicInt(0);
    Thread t = thread.spawn(ticker, stop);
    Future<int> w = thread.spawn(work, 4);
    int r = w.get();
    io.print("result " + r);
    stop.set(1);
    t.join();
    return 0;
}
`)
	f, cmd, scr := d.f, d.cmd, d.scr
	f.Write([]byte("nonstop on\r"))
	scr.expect(t, `Non-stop mode is on`)
	f.Write([]byte("break ns.n:13\r"))
	scr.expect(t, `Breakpoint 1 at ns\.n:13`)
	f.Write([]byte("continue\r"))
	scr.expect(t, `Breakpoint 1 at work \(ns\.n:13\) \[thread 3 "thread-3"\] \(the other threads keep running\)`)
	scr.expect(t, `\(nlangdbg\) \[stopped: 3\*\] `)
	// half a command; the ticker prints above it, and the prompt and
	// the typed text come again below the output
	f.Write([]byte("print ac"))
	scr.expect(t, `tick \d+\r?\n(?:[^\n]*\n)*?[^\n]*\(nlangdbg\) \[stopped: 3\*\] print ac`)
	f.Write([]byte("c\r"))
	scr.expect(t, `\r?\n40\r?\n`)
	f.Write([]byte("continue\r"))
	scr.expect(t, `result 41`)
	scr.expect(t, `Program exited with code 0`)
	// (Ctrl-D at the prompt: once the REPL has the terminal again; while
	// it is still the program's, Ctrl-D ends the program's input)
	scr.expect(t, `\(nlangdbg\) `)
	f.Write([]byte("\x04"))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("nlangdbg did not exit on Ctrl-D")
	}
}

// TestTerminalInputTypedAhead: a line typed right after continue, maybe
// before the REPL gave the terminal to the program (still raw: no echo,
// no line), is the program's input all the same, echoed.
func TestTerminalInputTypedAhead(t *testing.T) {
	d := debugInTerminal(t, "ahead.n", `import io;
int main() {
    string a = io.readLine();
    io.print("got " + a);
    return 0;
}
`)
	f, scr := d.f, d.scr
	f.Write([]byte("continue\r"))
	scr.expect(t, `continue\r?\n`)
	f.Write([]byte("pear\r"))      // (at once: the terminal may still be raw)
	scr.expect(t, `(?m)^pear\r\n`) // (echoed once, as the terminal does)
	scr.expect(t, `(?m)^got pear\r\n`)
	scr.expect(t, `Program exited with code 0`)
}
