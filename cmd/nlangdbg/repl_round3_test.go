package main

import (
	"bytes"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	dapserver "github.com/nlangdbg/nlangdbg/dap"
	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// Regression tests of the third round of defects found by using the
// debugger as a newcomer would (issue "The debugger as users meet it,
// round 3"): one test per defect.

const foreachREPLProg = `import io;
int main() {
    List<int> xs = [1, 2, 3];
    int s = 0;
    foreach (int x in xs) { // @head
        s += x; // @body
    }
    io.print("s ${s}"); // @after
    return 0;
}
`

// TestREPLNextInForeach: next from a foreach body stops at the loop's
// head once per iteration (as in a for loop), and rev next after a
// watchpoint stop goes back through the same stops, never to the middle
// of a statement.
func TestREPLNextInForeach(t *testing.T) {
	ft := newFakeTerminal(t, foreachREPLProg)
	head, body, after := strconv.Itoa(ft.line("head")), strconv.Itoa(ft.line("body")), strconv.Itoa(ft.line("after"))
	ft.Exec("tbreak " + body)
	ft.expect(ft.Exec("continue"), `^Breakpoint 1 at main \(prog\.n:`+body+`\)`)
	for i := 1; i <= 3; i++ {
		ft.expect(ft.Exec("next"), `^Step at main \(prog\.n:`+head+`\)`)
		want := body
		if i == 3 {
			want = after
		}
		ft.expect(ft.Exec("next"), `^Step at main \(prog\.n:`+want+`\)`)
	}
	ft.Exec("restart")
	ft.Exec("tbreak " + body)
	ft.Exec("continue")
	ft.Exec("watch s")
	for i := 0; i < 3; i++ {
		ft.expect(ft.Exec("continue"), `^Watchpoint \d+: s changed`)
	}
	// back: the start of the statement that wrote, then head and body of
	// each earlier iteration, as forward stepping shows them
	var got []string
	for i := 0; i < 6; i++ {
		out := ft.Exec("rev next")
		line, _, _ := strings.Cut(out, "\n")
		got = append(got, line)
		if !strings.HasPrefix(line, "Step back at main (prog.n:") {
			t.Fatalf("rev next %d: %s", i+1, out)
		}
	}
	want := []string{body, head, body, head, body, head}
	for i, w := range want {
		if !strings.HasPrefix(got[i], "Step back at main (prog.n:"+w+")") {
			t.Errorf("rev next %d: got %q, want line %s\n(all: %q)", i+1, got[i], w, got)
		}
	}
}

// TestREPLRace: debug takes --race (and refuses it with several
// carriers, as run does); a race stops the program with the report run
// --race prints (both accesses, their threads and stacks); a deadlock
// stop does not repeat the report the program's stderr just showed.
func TestREPLRace(t *testing.T) {
	var out, errb bytes.Buffer
	prog := filepath.Join("..", "..", "testdata", "dap", "race.n")
	if code := doMain([]string{"debug", "--race", "--carriers", "2", prog}, strings.NewReader(""), &out, &errb); code != 2 ||
		errb.String() != "nlangdbg debug: --race runs on one carrier\n" {
		t.Errorf("debug --race --carriers 2: exit %d, stderr %q", code, errb.String())
	}
	var o runOptions
	fs := flag.NewFlagSet("debug", flag.ContinueOnError)
	o.flags(fs)
	o.Race = true
	abs, _ := filepath.Abs(prog)
	ft := newFakeTerminalArgs(t, o.launchArgs(abs, nil))
	ft.expect(ft.Exec("continue"), `^Data race at add \(race\.n:15\) \[thread 3 "thread-3"\]$`, `^WARNING: DATA RACE$`,
		`^Read of Counter\.n by thread 3 "thread-3":\n  at add \(race\.n:15\)\n\nPrevious write of Counter\.n by thread 2 "thread-2":\n  at add \(race\.n:15\)$`,
		`^=>\s+15:`)

	ft = newFakeTerminal(t, "import io;\nint main() {\n    Channel<int> c = {};\n    int v = c.recv(); // @recv\n    return v;\n}\n")
	got := ft.Exec("continue")
	ft.expect(got, `^fatal: all threads are asleep - deadlock!$`, `^Deadlock at main \(prog\.n:4\) \[thread 1 "main"\]$`)
	if n := strings.Count(got, "deadlock!"); n != 1 {
		t.Errorf("the deadlock report shows %d times:\n%s", n, got)
	}
}

const countsREPLProg = `import io;
int twice(int x) {
    return 2 * x; // @twice
}
int main() {
    int s = 0;
    for (int i = 0; i < 10; i += 1) { // @for
        s += twice(i); // @body
    }
    io.print("s ${s}"); // @print
    return 0;
}
`

// TestREPLCounts: next N and step N step N times and show where they
// end; continue N ignores the breakpoint it stopped at N-1 more times
// (gdb's); an argument that is not a count, or an unexpected one, is
// refused, not ignored.
func TestREPLCounts(t *testing.T) {
	ft := newFakeTerminal(t, countsREPLProg)
	line := func(m string) string { return strconv.Itoa(ft.line(m)) }
	ft.expect(ft.Exec("break "+line("body")), `^Breakpoint 1 at prog\.n:`+line("body"))
	ft.expect(ft.Exec("continue"), `^Breakpoint 1 at main`)
	ft.expect(ft.Exec("continue 3"), `^Will ignore next 2 crossings of breakpoint 1\.  Continuing\.$`, `^Breakpoint 1 at main`)
	ft.expect(ft.Exec("print i"), `^3$`)
	ft.expect(ft.Exec("c 2"), `^Will ignore next crossing of breakpoint 1\.  Continuing\.$`)
	ft.expect(ft.Exec("print i"), `^5$`)
	ft.Exec("clear 1")
	// body -> for -> body: one stop shown, at the body of the next
	// iteration
	out := ft.Exec("next 2")
	ft.expect(out, `^Step at main \(prog\.n:`+line("body")+`\)`)
	if n := strings.Count(out, "Step at"); n != 1 {
		t.Errorf("next 2 shows %d stops:\n%s", n, out)
	}
	ft.expect(ft.Exec("print i"), `^6$`)
	// into twice and back out to the loop's step
	ft.expect(ft.Exec("step 2"), `^Step at main \(prog\.n:`+line("for")+`\)`)
	ft.expect(ft.Exec("step 2"), `^Step at twice \(prog\.n:`+line("twice")+`\)`)
	ft.expect(ft.Exec("print x"), `^7$`)
	ft.expect(ft.Exec("bt"), `^\* +0  twice`, `^  +1  main`)
	// a breakpoint met on the way ends the count there
	ft.Exec("finish")
	ft.Exec("break " + line("twice"))
	ft.expect(ft.Exec("next 5"), `^Breakpoint 2 at twice \(prog\.n:`+line("twice")+`\)`)
	ft.expect(ft.Exec("up"), `^Frame 1: main`)
	for cmd, want := range map[string]string{
		"next foo":       `^error: next: unexpected "foo" \(usage: next \[-single\] \[N\]\)$`,
		"step 0":         `^error: step: "0" is not a count \(1 or more\)$`,
		"next 2 3":       `^error: next: unexpected "3"`,
		"stepout 2":      `^error: stepout: unexpected "2" \(usage: stepout \[-single\]\)$`,
		"continue x":     `^error: continue: unexpected "x"`,
		"up foo":         `^error: up: "foo" is not a count \(usage: up \[N\]\)$`,
		"down -1":        `^error: down: "-1" is not a count`,
		"locals please":  `^error: locals takes no arguments \(got "please"\)$`,
		"breakpoints 12": `^error: breakpoints takes no arguments`,
	} {
		ft.expect(ft.Exec(cmd), want)
	}
	ft.Exec("clear all")
	ft.Exec("next")
	ft.expect(ft.Exec("continue 2"), `^Not stopped at a breakpoint; the count is ignored\.$`, `^s 90$`)
}

// TestRunListenRecordForDebug: stepBack on a program attached to says
// why it cannot go back — run --listen does not record — and run
// --listen --record-for-debug records, so that it can.
func TestRunListenRecordForDebug(t *testing.T) {
	path, _ := filepath.Abs("../../testdata/dap/busy.n")
	for _, record := range []bool{false, true} {
		stdout, stderr := newWatchWriter(), newWatchWriter()
		code := make(chan int, 1)
		args := []string{"run", "--listen", "127.0.0.1:0", path}
		if record {
			args = []string{"run", "--listen", "127.0.0.1:0", "--record-for-debug", path}
		}
		go func() { code <- doMain(args, strings.NewReader(""), stdout, stderr) }()
		conn, err := net.Dial("tcp", stderr.waitFor(t, listeningRE))
		if err != nil {
			t.Fatal(err)
		}
		stdout.waitFor(t, loopingRE)
		c := daptest.NewClient(conn)
		c.Initialize(t)
		c.AttachRequest(nil)
		daptest.ExpectResponse[*dap.AttachResponse](t, c)
		c.ExpectStoppedEvent(t)
		c.StepBackRequest(1)
		if !record {
			e := c.ExpectErrorResponse(t, "stepBack")
			if want := "stepBack: going back needs a recording: this program runs without one (start it with run --listen --record-for-debug to record it for the debugger)"; e.Message != want {
				t.Errorf("stepBack without a recording: %q, want %q", e.Message, want)
			}
		} else {
			daptest.ExpectResponse[*dap.StepBackResponse](t, c)
			if stop := c.ExpectStoppedEvent(t); stop.Body.Description != "Step back" {
				t.Errorf("stepBack with --record-for-debug: %+v", stop.Body)
			}
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
		c.Close()
		<-code
	}
	var out, errb bytes.Buffer
	if code := doMain([]string{"run", "--record-for-debug", path}, strings.NewReader(""), &out, &errb); code != 2 ||
		errb.String() != "nlangdbg run: --record-for-debug needs --listen and one carrier\n" {
		t.Errorf("--record-for-debug without --listen: exit %d, %q", code, errb.String())
	}
}

// writeProject writes files (path -> text) under a new directory and
// returns the directory.
func writeProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestREPLLocations: a file is named by the shortest end of its path no
// other file of the program shares (util.n twice: a/util.n, b/util.n),
// and found from any unique end of its path (round.n for shapes/round.n;
// util.n is ambiguous and says so); a function breakpoint on a name two
// files define says it stops in both, file:func picks one; a frame of
// the library is shown as <concurrent>:LINE and can be listed.
func TestREPLLocations(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"a/util.n":       "int helper(int x) {\n    return x + 1;\n}\n",
		"b/util.n":       "int helper(int x) {\n    return x * 2;\n}\n",
		"shapes/round.n": "int area(int r) {\n    int a = 3 * r * r;\n    return a;\n}\n",
		"main.n": `import io;
import a.util;
import b.util;
import shapes.round;
import concurrent;
import thread;
void work(WaitGroup wg) {
    wg.done(); // @work
}
int main() {
    int x = a.util.helper(1);
    int y = b.util.helper(x);
    io.print(shapes.round.area(y));
    WaitGroup wg = new WaitGroup();
    wg.add(1);
    thread.spawn(work, wg);
    wg.wait();
    return 0;
}
`})
	ft, _ := startTerminal(t, filepath.Join(dir, "main.n"))
	ft.expect(ft.Exec("break helper"), `^Breakpoint 1 at helper \(a/util\.n:2\) \(2 functions: a/util\.n:1, b/util\.n:1\)$`)
	ft.expect(ft.Exec("break round.n:2"), `^Breakpoint 2 at round\.n:2$`)
	ft.expect(ft.Exec("break util.n:2"), `^error: util\.n is ambiguous: it could be a/util\.n or b/util\.n$`)
	ft.expect(ft.Exec("break b/util.n:helper"), `^Breakpoint 3 at helper \(b/util\.n:2\)$`)
	ft.expect(ft.Exec("break a/util.n:nothing"), `^error: no function nothing`)
	ft.expect(ft.Exec("continue"), `^Breakpoint 1 at helper \(a/util\.n:2\) \[thread 1 "main"\]$`, `^=>\s+2:     return x \+ 1;$`)
	ft.expect(ft.Exec("bt"), `^\*\s+0  helper \(a/util\.n:2\)$`, `^\s+1  main \(main\.n:11\)$`)
	ft.expect(ft.Exec("continue"), `^Breakpoint 1, 3 at helper \(b/util\.n:2\)`, `^=>●\s+2:     return x \* 2;$`)
	ft.expect(ft.Exec("continue"), `^Breakpoint 2 at area \(round\.n:2\)`)
	ft.expect(ft.Exec("list shapes/round.n:1,2"), `^\s+1: int area\(int r\) \{$`)
	ft.Exec("clear all")
	ft.Exec("break work")
	ft.expect(ft.Exec("continue"), `^Breakpoint 4 at work`)
	ft.expect(ft.Exec("thread 1"), `^Thread 1 "main" at WaitGroup\.wait \(<concurrent>:\d+\)$`)
	ft.expect(ft.Exec("bt"), `^\*\s+0  WaitGroup\.wait \(<concurrent>:\d+\)$`)
	ft.expect(ft.Exec("list"), `^=>\s+\d+:\s+z\.recv\(\);$`)
	ft.expect(ft.Exec("list <concurrent>:1,3"), `^\s+1: \S`)
	ft.expect(ft.Exec("threads"), `\[1\] "main"\s+chan recv\s+WaitGroup\.wait \(<concurrent>:\d+\)`)
}

const smallerREPLProg = `import io;
class Account {
    public int balance;
    public void deposit(int n) {
        int before = balance; // @before
        balance = before + n;
    }
}
int twice(int q) {
    return 2 * q; // @twice
}
int main() {
    Account a = new Account();
    a.deposit(5);
    a.deposit(7);
    int z = twice(3); // @z
    io.print(a.balance);
    return 0;
}
`

// TestREPLSmallerDefects: the smaller defects of round 3, each as the
// user met it.
func TestREPLSmallerDefects(t *testing.T) {
	ft := newFakeTerminal(t, smallerREPLProg)
	line := func(m string) string { return strconv.Itoa(ft.line(m)) }
	ft.Exec("break Account.deposit")
	ft.Exec("continue")
	// a field named bare in a method is watched, as print takes it
	ft.expect(ft.Exec("print balance"), `^0$`)
	ft.expect(ft.Exec("watch balance"), `^Watchpoint 2: balance \(written\)$`)
	// a display of a local of deposit is not an error in twice
	ft.Exec("next")
	ft.expect(ft.Exec("display before"), `^1: before = 0$`)
	ft.expect(ft.Exec("continue"), `^Watchpoint 2: this\.balance changed from 0 to 5`, `^1: before = 0$`)
	ft.Exec("clear all")
	ft.Exec("break twice")
	out := ft.Exec("continue")
	ft.expect(out, `^Breakpoint 3 at twice`)
	if strings.Contains(out, "before") {
		t.Errorf("a display out of its function shows at the stop:\n%s", out)
	}
	ft.expect(ft.Exec("display"), `^1: before$`)
	// where, ni, si, goroutine N
	ft.expect(ft.Exec("where"), `^\*\s+0  twice \(prog\.n:`+line("twice")+`\)$`, `^\s+1  main`)
	ft.expect(ft.Exec("ni"), `^Step at twice \(prog\.n:`+line("twice")+`\)`)
	ft.expect(ft.Exec("goroutine 1"), `^Thread 1 "main" at twice`)
	// list past the end names the line asked for
	ft.expect(ft.Exec("list 100"), `^error: line 100 is past the end of prog\.n \(19 lines\)$`)
	// a mistyped command, and a state that is none
	ft.expect(ft.Exec("contineu"), `^error: unknown command "contineu" \(did you mean continue\?\)$`)
	ft.expect(ft.Exec("threads -state bogus"), `^error: no thread is bogus or waits for "bogus" \(states: runnable, running, waiting, stopped, frozen, pinned, dead;`)
	// the note of a set comes with the set, not with the next command
	ft.expect(ft.Exec("set q = 4"), `^q = 4$`, `^note: the program no longer follows its recording`)
	ft.expect(ft.Exec("print q"), `^4$`)
	// Tab completes the names of the frame after print
	if head, words := ft.r.completions("p 1 + q"); head != "p 1 + " || strings.Join(words, " ") != "q" {
		t.Errorf("completions of \"p 1 + q\": %q %q", head, words)
	}
	// the summaries of help are whole sentences
	for _, l := range strings.Split(strings.TrimSpace(ft.Exec("help")), "\n")[1:] {
		if !strings.HasSuffix(l, ".") {
			t.Errorf("help line cut short: %q", l)
		}
	}
}

// TestREPLTwoWatchpointsOneWrite: a write two watchpoints watch stops
// once and names both.
func TestREPLTwoWatchpointsOneWrite(t *testing.T) {
	ft := newFakeTerminal(t, smallerREPLProg)
	ft.Exec("break " + strconv.Itoa(ft.line("z")) + "")
	ft.Exec("break Account.deposit")
	ft.Exec("continue")
	ft.Exec("up")
	ft.expect(ft.Exec("watch a.balance"), `^Watchpoint 3: a\.balance \(written\)$`)
	ft.expect(ft.Exec("watch -r a.balance"), `^Watchpoint 4: a\.balance \(read or written\)$`)
	ft.Exec("clear 2")
	ft.expect(ft.Exec("continue"), `^Watchpoint 4: a\.balance read`)
	ft.expect(ft.Exec("continue"), `^Watchpoint 3, 4: a\.balance changed from 0 to 5`)
}

// TestREPLCtrlCThenEnter: after Ctrl-C paused the program, an empty line
// does not resume it (it used to repeat the continue).
func TestREPLCtrlCThenEnter(t *testing.T) {
	ft := newFakeTerminal(t, "int main() {\n    long n = 0;\n    while (n < 200000000) {\n        n += 1;\n    }\n    return 7;\n}\n")
	ft.r.interrupt <- struct{}{} // Ctrl-C, as soon as the program runs
	ft.expect(ft.Exec("continue"), `^Paused at main`)
	if out := ft.Exec(""); out != "" {
		t.Errorf("an empty line after Ctrl-C did: %q", out)
	}
	// Still stopped in main: the Ctrl-C may come before the loop (even
	// before n is declared, on a loaded machine), so ask the stack, not n.
	ft.expect(ft.Exec("bt"), `^\*\s+0  main \(prog\.n:[2-6]\)$`)
}

// TestDebugCompileError: debug of a program that does not compile prints
// what run prints: the file as given, and "Compilation failed.".
func TestDebugCompileError(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bad.n"), []byte("int main() {\n  return x;\n}\n"), 0o644)
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code := doMain([]string{"debug", "bad.n"}, strings.NewReader(""), &out, &errb)
	if want := "bad.n:2:10: undefined: x\n  return x;\n         ^\nCompilation failed.\n"; code != 1 || errb.String() != want {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errb.String(), want)
	}
}

const inputREPLProg = `import io;
int main() {
    string a = io.readLine();
    io.print("got " + a);
    string b = io.readLine();
    io.print("then " + b); // @then
    return 0;
}
`

// TestREPLProgramInput: the program reads what is typed while it runs
// (the REPL's terminal input); a line it has not read when it stops is
// the next command; run < FILE restarts it reading FILE, and later
// restarts read FILE again.
func TestREPLProgramInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prog.n")
	os.WriteFile(path, []byte(inputREPLProg), 0o644)
	in := newTermInput()
	c1, c2 := net.Pipe()
	go (&dapserver.Server{Stdin: in}).ServeConn(c2)
	out := &syncBuffer{}
	r := newREPL(newDAPClient(c1, c1), out)
	r.program, r.termIn, r.typed = path, in, make(chan typedLine, 8)
	ft := &fakeTerminal{t: t, r: r, out: out, path: path, src: inputREPLProg}
	t.Cleanup(func() { r.Exec("quit"); c1.Close() })
	if err := r.start(map[string]any{"program": path, "stopOnEntry": true}, false); err != nil {
		t.Fatal(err)
	}
	out.take()
	ft.Exec("break " + strconv.Itoa(ft.line("then")))
	// typed while it runs (before it asks: the terminal keeps it)
	r.typed <- typedLine{text: []byte("apple\n")}
	r.typed <- typedLine{text: []byte("pear\n")}
	r.typed <- typedLine{text: []byte("print b\n")}
	ft.expect(ft.Exec("continue"), `^got apple$`, `^Breakpoint 1 at main`)
	if ahead := r.takeTypeahead(); len(ahead) != 1 || ahead[0] != "print b\n" {
		t.Errorf("the line the program did not read: %q", ahead)
	}
	ft.expect(ft.Exec("print b"), `^"pear"$`)
	file := filepath.Join(dir, "in.txt")
	os.WriteFile(file, []byte("fig\nkiwi\n"), 0o644)
	ft.expect(ft.Exec("run < "+file), `^Restarted\.$`)
	ft.expect(ft.Exec("continue"), `^got fig$`, `^Breakpoint 1 at main`)
	ft.expect(ft.Exec("print b"), `^"kiwi"$`)
	ft.Exec("restart")
	ft.expect(ft.Exec("continue"), `^got fig$`)
	ft.expect(ft.Exec("run < nosuch.txt"), `^error: run < nosuch\.txt: .*no such file`)
}

// TestREPLTypedWhileRunningWithoutTheTerminal: when the program does not
// read the terminal (attach, --stdin), a line typed while it runs is kept
// for the prompt, and the REPL says so once.
func TestREPLTypedWhileRunningWithoutTheTerminal(t *testing.T) {
	ft := newFakeTerminal(t, "import io;\nint main() {\n    io.print(\"hi\");\n    return 0;\n}\n")
	ft.r.typed = make(chan typedLine, 4)
	ft.r.typed <- typedLine{text: []byte("print 1\n")}
	ft.r.typed <- typedLine{text: []byte("print 2\n")}
	out := ft.Exec("continue")
	ft.expect(out, `^\(the program is running: what you type runs when it stops; Ctrl-C stops it\)$`, `^Program exited with code 0$`)
	if n := strings.Count(out, "the program is running"); n != 1 {
		t.Errorf("the note shows %d times:\n%s", n, out)
	}
	if ahead := ft.r.takeTypeahead(); strings.Join(ahead, "") != "print 1\nprint 2\n" {
		t.Errorf("kept for the prompt: %q", ahead)
	}
}
