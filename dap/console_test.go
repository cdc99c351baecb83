package dap

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// initializeWith initializes with the client capabilities given (JSON
// fields of InitializeRequestArguments).
func initializeWith(t *testing.T, c *daptest.Client, caps string) dap.Capabilities {
	t.Helper()
	c.SendRaw(`{"seq":1000,"type":"request","command":"initialize","arguments":{"adapterID":"nlangdbg","pathFormat":"path","linesStartAt1":true,"columnsStartAt1":true` + caps + `}}`)
	r := daptest.ExpectResponse[*dap.InitializeResponse](t, c)
	c.ExpectInitializedEvent(t)
	return r.Body
}

// TestLaunchStdinFile: launch "stdin" gives the program a file as its
// input.
func TestLaunchStdinFile(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.txt")
	os.WriteFile(in, []byte("apple\npear\n"), 0o644)
	runSession(t, "testdata/dap/stdin.n", func(c *daptest.Client, f *fixture) {
		expectExit(t, c, 5)
		if out := c.Output("stdout"); out != "got apple\n" {
			t.Errorf("stdout %q", out)
		}
	}, withLaunch(map[string]any{"stdin": in}))
	c := startServer(t, nil)
	c.Initialize(t)
	c.LaunchRequest(map[string]any{"program": loadFixture(t, "testdata/dap/stdin.n").Path, "stdin": "no-such-file.txt"})
	if e := c.ExpectErrorResponse(t, "launch"); !strings.Contains(e.Message, `launch: "stdin": open no-such-file.txt: no such file or directory`) {
		t.Errorf("a missing stdin file: %q", e.Message)
	}
}

// TestLaunchInTerminal: with "console": "integratedTerminal" the server
// asks the client to run nlangdbg's console in a terminal (runInTerminal,
// the token in its environment); the console connects back, and the
// program reads the terminal's input and writes its output there (not as
// output events). A client that runs no terminals is told to use stdin.
func TestLaunchInTerminal(t *testing.T) {
	f := loadFixture(t, "testdata/dap/stdin.n")
	c := startServer(t, nil)
	initializeWith(t, c, `,"supportsRunInTerminalRequest":true`)
	c.LaunchRequest(map[string]any{"program": f.Path, "console": "integratedTerminal"})
	rit := daptest.Expect[*dap.RunInTerminalRequest](t, c)
	a := rit.Arguments
	if a.Kind != "integrated" || len(a.Args) != 3 || a.Args[1] != "console" || a.Cwd != filepath.Dir(f.Path) {
		t.Fatalf("runInTerminal %+v", a)
	}
	tok, _ := a.Env[consoleTokenEnv].(string)
	if tok == "" {
		t.Fatalf("no token in %v", a.Env)
	}
	// the terminal runs `nlangdbg console ADDR` with the token
	t.Setenv(consoleTokenEnv, tok)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go RunConsole(a.Args[2], inR, outW)
	c.SendRaw(fmt.Sprintf(`{"seq":2000,"type":"response","request_seq":%d,"success":true,"command":"runInTerminal","body":{"processId":4242}}`, rit.Seq))
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
	io.WriteString(inW, "banana\n")
	buf := make([]byte, 64)
	n, _ := io.ReadAtLeast(outR, buf, len("got banana\n"))
	if got := string(buf[:n]); got != "got banana\n" {
		t.Errorf("the terminal shows %q", got)
	}
	expectExit(t, c, 5)
	if out := c.Output("stdout"); out != "" {
		t.Errorf("output events %q: the program's output goes to its terminal", out)
	}

	c2 := startServer(t, nil)
	c2.Initialize(t) // (no runInTerminal)
	c2.LaunchRequest(map[string]any{"program": f.Path, "console": "integratedTerminal"})
	if e := c2.ExpectErrorResponse(t, "launch"); !strings.Contains(e.Message, `needs a client that runs terminals (runInTerminal); use "internalConsole", and "stdin": FILE`) {
		t.Errorf("console without runInTerminal: %q", e.Message)
	}
}
