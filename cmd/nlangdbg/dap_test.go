package main

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// watchWriter collects what is written to it and lets a test wait for a
// pattern (no sleeps).
type watchWriter struct {
	mu     sync.Mutex
	b      strings.Builder
	notify chan struct{}
}

func newWatchWriter() *watchWriter { return &watchWriter{notify: make(chan struct{}, 1)} }

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.b.Write(p)
	w.mu.Unlock()
	select {
	case w.notify <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// waitFor waits until the text matches re and returns the first group.
func (w *watchWriter) waitFor(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	deadline := time.After(daptest.DefaultTimeout)
	for {
		if m := re.FindStringSubmatch(w.String()); m != nil {
			return m[1]
		}
		select {
		case <-w.notify:
		case <-deadline:
			t.Fatalf("no %q in %q", re, w.String())
		}
	}
}

// markerLine returns the line of `// @bp NAME` in a fixture.
func markerLine(t *testing.T, src, name string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, "// @bp "+name) {
			return i + 1
		}
	}
	t.Fatalf("no marker @bp %s", name)
	return 0
}

var (
	listeningRE = regexp.MustCompile(`DAP server listening at: (\S+)\n`)
	loopingRE   = regexp.MustCompile(`(looping)\n`)
)

// TestRunListenAttach runs a busy program with `run --listen`, attaches
// twice (the first client detaches and the program runs on), ends the
// loop from the second client and checks that the program finishes.
func TestRunListenAttach(t *testing.T) {
	path, _ := filepath.Abs("../../testdata/dap/busy.n")
	stdout, stderr := newWatchWriter(), newWatchWriter()
	code := make(chan int, 1)
	go func() {
		code <- doMain([]string{"run", "--listen", "127.0.0.1:0", path}, strings.NewReader(""), stdout, stderr)
	}()
	addr := stderr.waitFor(t, listeningRE)
	stdout.waitFor(t, loopingRE) // main's locals exist from now on

	attach := func() *daptest.Client {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c := daptest.NewClient(conn)
		t.Cleanup(func() { c.Close() })
		c.Initialize(t)
		c.AttachRequest(map[string]any{})
		daptest.ExpectResponse[*dap.AttachResponse](t, c)
		stop := c.ExpectStoppedEvent(t)
		if stop.Body.Reason != "pause" || stop.Body.ThreadId != 1 {
			t.Fatalf("attach stop %+v", stop.Body)
		}
		c.ConfigurationDoneRequest()
		daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
		return c
	}

	// The first client looks, sets a breakpoint in the loop and leaves.
	c := attach()
	c.ThreadsRequest()
	th := daptest.ExpectResponse[*dap.ThreadsResponse](t, c)
	if len(th.Body.Threads) != 1 || !strings.HasPrefix(th.Body.Threads[0].Name, "[1] main · main · ") {
		t.Errorf("threads %+v", th.Body.Threads)
	}
	c.SetBreakpointsRequest(path, markerLine(t, readFile(t, path), "body"))
	if r := daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c); !r.Body.Breakpoints[0].Verified {
		t.Errorf("breakpoint %+v", r.Body.Breakpoints)
	}
	c.DisconnectRequest(false)
	daptest.ExpectResponse[*dap.DisconnectResponse](t, c)
	c.ExpectClosed(t)

	// The second finds it running (the breakpoint went with the first
	// client) and ends the loop.
	c = attach()
	c.StackTraceRequest(1, 0, 1)
	top := daptest.ExpectResponse[*dap.StackTraceResponse](t, c).Body.StackFrames[0]
	c.ScopesRequest(top.Id)
	var locals int
	for _, s := range daptest.ExpectResponse[*dap.ScopesResponse](t, c).Body.Scopes {
		if s.Name == "Locals" {
			locals = s.VariablesReference
		}
	}
	c.SetVariableRequest(locals, "done", "true")
	daptest.ExpectResponse[*dap.SetVariableResponse](t, c)
	c.DisconnectRequest(false)
	daptest.ExpectResponse[*dap.DisconnectResponse](t, c)
	c.ExpectClosed(t)

	select {
	case got := <-code:
		if got != 3 {
			t.Errorf("exit code %d, want 3; stderr:\n%s", got, stderr)
		}
	case <-time.After(daptest.DefaultTimeout):
		t.Fatal("the program did not finish after the debugger detached")
	}
	if got := stdout.String(); got != "looping\ndone\n" {
		t.Errorf("stdout %q, want the program's own output", got)
	}
}

// TestRunListenAttachedClientSeesExit checks that an attached client is
// told when the program ends, and that the process's exit code is the
// program's.
func TestRunListenAttachedClientSeesExit(t *testing.T) {
	path, _ := filepath.Abs("../../testdata/dap/busy.n")
	stdout, stderr := newWatchWriter(), newWatchWriter()
	code := make(chan int, 1)
	go func() {
		code <- doMain([]string{"run", "--listen", "127.0.0.1:0", path}, strings.NewReader(""), stdout, stderr)
	}()
	conn, err := net.Dial("tcp", stderr.waitFor(t, listeningRE))
	if err != nil {
		t.Fatal(err)
	}
	stdout.waitFor(t, loopingRE)
	c := daptest.NewClient(conn)
	defer c.Close()
	c.Initialize(t)
	c.AttachRequest(nil)
	daptest.ExpectResponse[*dap.AttachResponse](t, c)
	c.ExpectStoppedEvent(t)
	c.EvaluateRequest("n > 0", 0, "watch")
	if r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c); r.Body.Result != "true" {
		t.Errorf("n > 0 = %s", r.Body.Result)
	}
	c.StackTraceRequest(1, 0, 1)
	top := daptest.ExpectResponse[*dap.StackTraceResponse](t, c).Body.StackFrames[0]
	c.EvaluateRequest("done", top.Id, "watch")
	daptest.ExpectResponse[*dap.EvaluateResponse](t, c)
	c.ScopesRequest(top.Id)
	locals := daptest.ExpectResponse[*dap.ScopesResponse](t, c).Body.Scopes[0].VariablesReference
	c.SetVariableRequest(locals, "done", "true")
	daptest.ExpectResponse[*dap.SetVariableResponse](t, c)
	c.ContinueRequest(1, false)
	daptest.ExpectResponse[*dap.ContinueResponse](t, c)
	if e := c.ExpectExitedEvent(t); e.Body.ExitCode != 3 {
		t.Errorf("exited %d", e.Body.ExitCode)
	}
	c.ExpectTerminatedEvent(t)
	c.ExpectClosed(t)
	select {
	case got := <-code:
		if got != 3 {
			t.Errorf("exit code %d, want 3", got)
		}
	case <-time.After(daptest.DefaultTimeout):
		t.Fatal("the process did not end with the program")
	}
}

// TestDapStdio runs `nlangdbg dap` on pipes as an editor would on the
// process's stdin and stdout.
func TestDapStdio(t *testing.T) {
	path, _ := filepath.Abs("../../testdata/dap/output.n")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- doMain([]string{"dap"}, inR, outW, io.Discard)
		outW.Close()
	}()
	c := daptest.NewClient(pipeConn{outR, inW})
	defer c.Close()
	c.Initialize(t)
	c.LaunchRequest(map[string]any{"program": path})
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
	if e := c.ExpectExitedEvent(t); e.Body.ExitCode != 7 {
		t.Errorf("exited %d", e.Body.ExitCode)
	}
	c.ExpectTerminatedEvent(t)
	c.DisconnectRequest(false)
	daptest.ExpectResponse[*dap.DisconnectResponse](t, c)
	select {
	case got := <-code:
		if got != 0 {
			t.Errorf("nlangdbg dap exited %d", got)
		}
	case <-time.After(daptest.DefaultTimeout):
		t.Fatal("nlangdbg dap did not end after disconnect")
	}
	if got := c.Output("stdout"); got != "one\nthree\n" {
		t.Errorf("program stdout %q", got)
	}
}

// pipeConn joins the two pipe ends a client uses.
type pipeConn struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (p pipeConn) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeConn) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeConn) Close() error {
	p.w.Close()
	return p.r.Close()
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRunListenEndsWithClientNotAttached checks that the program's end
// ends the process even while a client is connected but has not
// attached.
func TestRunListenEndsWithClientNotAttached(t *testing.T) {
	path, _ := filepath.Abs("../../testdata/dap/stdin.n")
	stdinR, stdinW := io.Pipe()
	stdout, stderr := newWatchWriter(), newWatchWriter()
	code := make(chan int, 1)
	go func() {
		code <- doMain([]string{"run", "--listen", "127.0.0.1:0", path}, stdinR, stdout, stderr)
	}()
	conn, err := net.Dial("tcp", stderr.waitFor(t, listeningRE))
	if err != nil {
		t.Fatal(err)
	}
	c := daptest.NewClient(conn)
	defer c.Close()
	c.Initialize(t)
	io.WriteString(stdinW, "hello\n")
	c.ExpectClosed(t)
	select {
	case got := <-code:
		if got != 5 || stdout.String() != "got hello\n" {
			t.Errorf("exit code %d, stdout %q", got, stdout)
		}
	case <-time.After(daptest.DefaultTimeout):
		t.Fatal("the process did not end with the program")
	}
}
