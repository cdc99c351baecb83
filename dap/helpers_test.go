package dap

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// fixture is a test program of testdata/dap with its line markers
// (`// @bp NAME`).
type fixture struct {
	t     testing.TB
	Path  string // absolute
	Src   string
	lines map[string]int
}

var markerRE = regexp.MustCompile(`// @bp (\w+)`)

// loadFixture reads a fixture (path relative to the module root).
func loadFixture(t testing.TB, rel string) *fixture {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", rel))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, Path: path, Src: string(src), lines: map[string]int{}}
	for i, l := range strings.Split(f.Src, "\n") {
		if m := markerRE.FindStringSubmatch(l); m != nil {
			f.lines[m[1]] = i + 1
		}
	}
	return f
}

// Line returns the line of marker name.
func (f *fixture) Line(name string) int {
	f.t.Helper()
	l, ok := f.lines[name]
	if !ok {
		f.t.Fatalf("%s has no marker // @bp %s", f.Path, name)
	}
	return l
}

// startServer serves one session over a pipe and returns its client. The
// test ends the session and waits for the server when it is over.
func startServer(t testing.TB, srv *Server) *daptest.Client {
	t.Helper()
	if srv == nil {
		srv = &Server{}
	}
	clientSide, serverSide := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeConn(serverSide) }()
	c := daptest.NewClient(clientSide)
	t.Cleanup(func() {
		c.Close()
		select {
		case <-done:
		case <-time.After(daptest.DefaultTimeout):
			t.Errorf("the server did not end after the client closed the connection")
		}
	})
	return c
}

// sessionConfig configures runSession.
type sessionConfig struct {
	srv         *Server
	launch      map[string]any                  // extra launch arguments
	breakpoints []string                        // markers to set line breakpoints at
	setup       func(*daptest.Client, *fixture) // more configuration requests
}

type sessionOption func(*sessionConfig)

// withLaunch adds launch arguments.
func withLaunch(args map[string]any) sessionOption {
	return func(s *sessionConfig) { s.launch = args }
}

// withBreakpoints sets line breakpoints at markers before the program
// starts.
func withBreakpoints(markers ...string) sessionOption {
	return func(s *sessionConfig) { s.breakpoints = markers }
}

// withSetup runs configuration requests before configurationDone.
func withSetup(f func(*daptest.Client, *fixture)) sessionOption {
	return func(s *sessionConfig) { s.setup = f }
}

// withServer uses srv.
func withServer(srv *Server) sessionOption {
	return func(s *sessionConfig) { s.srv = srv }
}

// runSession starts a server, initializes, launches the fixture, sets
// the breakpoints, sends configurationDone and hands over to fn.
func runSession(t *testing.T, rel string, fn func(c *daptest.Client, f *fixture), opts ...sessionOption) {
	t.Helper()
	var cfg sessionConfig
	for _, o := range opts {
		o(&cfg)
	}
	f := loadFixture(t, rel)
	c := startServer(t, cfg.srv)
	c.Initialize(t)
	args := map[string]any{"program": f.Path}
	for k, v := range cfg.launch {
		args[k] = v
	}
	c.LaunchRequest(args)
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
	if len(cfg.breakpoints) > 0 {
		var lines []int
		for _, m := range cfg.breakpoints {
			lines = append(lines, f.Line(m))
		}
		c.SetBreakpointsRequest(f.Path, lines...)
		r := daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		for i, b := range r.Body.Breakpoints {
			if !b.Verified {
				t.Fatalf("breakpoint at @%s not verified: %s", cfg.breakpoints[i], b.Message)
			}
		}
	}
	if cfg.setup != nil {
		cfg.setup(c, f)
	}
	c.ConfigurationDoneRequest()
	daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
	fn(c, f)
}

// checkStop expects a stop of thread tid (0: any) and checks where its
// top frame is; it returns the stop and the top frame.
func checkStop(t *testing.T, c *daptest.Client, tid int, fn string, line int) (*dap.StoppedEvent, dap.StackFrame) {
	t.Helper()
	stop := c.ExpectStoppedEvent(t)
	if tid != 0 && stop.Body.ThreadId != tid {
		t.Fatalf("stopped on thread %d, want %d (%+v)", stop.Body.ThreadId, tid, stop.Body)
	}
	top := topFrame(t, c, stop.Body.ThreadId)
	if top.Name != fn || top.Line != line {
		t.Fatalf("stopped in %s at line %d, want %s at line %d (%+v)", top.Name, top.Line, fn, line, stop.Body)
	}
	return stop, top
}

// topFrame returns the top frame of a thread.
func topFrame(t *testing.T, c *daptest.Client, tid int) dap.StackFrame {
	t.Helper()
	c.StackTraceRequest(tid, 0, 1)
	st := daptest.ExpectResponse[*dap.StackTraceResponse](t, c)
	if len(st.Body.StackFrames) != 1 {
		t.Fatalf("stackTrace of thread %d: %d frames, want 1", tid, len(st.Body.StackFrames))
	}
	return st.Body.StackFrames[0]
}

// variables returns the variables of ref by name.
func variables(t *testing.T, c *daptest.Client, ref int) map[string]dap.Variable {
	t.Helper()
	c.VariablesRequest(ref, "", 0, 0)
	r := daptest.ExpectResponse[*dap.VariablesResponse](t, c)
	out := map[string]dap.Variable{}
	for _, v := range r.Body.Variables {
		out[v.Name] = v
	}
	return out
}

// scopes returns the scopes of a frame by name.
func scopes(t *testing.T, c *daptest.Client, frameID int) map[string]dap.Scope {
	t.Helper()
	c.ScopesRequest(frameID)
	r := daptest.ExpectResponse[*dap.ScopesResponse](t, c)
	out := map[string]dap.Scope{}
	for _, s := range r.Body.Scopes {
		out[s.Name] = s
	}
	return out
}

// continueToExit continues and expects the program to exit with code.
func continueToExit(t *testing.T, c *daptest.Client, tid, code int) {
	t.Helper()
	c.ContinueRequest(tid, false)
	daptest.ExpectResponse[*dap.ContinueResponse](t, c)
	expectExit(t, c, code)
}

// finishWithout clears the breakpoints of file path, continues to the
// exit with code, and checks what the program printed on stdout.
func finishWithout(t *testing.T, c *daptest.Client, path string, code int, stdout string) {
	t.Helper()
	c.SetBreakpointsRequest(path)
	daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	continueToExit(t, c, 1, code)
	if out := c.Output("stdout"); out != stdout {
		t.Errorf("stdout %q, want %q", out, stdout)
	}
}

// expectExit expects exited with code, then terminated.
func expectExit(t *testing.T, c *daptest.Client, code int) {
	t.Helper()
	e := c.ExpectExitedEvent(t)
	if e.Body.ExitCode != code {
		t.Fatalf("exit code %d, want %d; stderr:\n%s", e.Body.ExitCode, code, c.Output("stderr"))
	}
	c.ExpectTerminatedEvent(t)
}
