package dap

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// TestListenLoopbackOnly: an address other machines can reach needs
// allowRemote; a bare port is loopback.
func TestListenLoopbackOnly(t *testing.T) {
	if _, err := Listen("0.0.0.0:0", false); !errors.Is(err, ErrNotLoopback) {
		t.Fatalf("Listen(0.0.0.0:0) = %v, want ErrNotLoopback", err)
	}
	ln, err := Listen("0.0.0.0:0", true)
	if err != nil {
		t.Fatal(err)
	}
	if w := RemoteWarning(ln, false); !strings.Contains(w, "WARNING") || !strings.Contains(w, "no --token-file") {
		t.Errorf("warning %q", w)
	}
	ln.Close()
	for _, addr := range []string{"0", ":0", "127.0.0.1:0", "localhost:0"} {
		ln, err := Listen(addr, false)
		if err != nil {
			t.Fatalf("Listen(%q): %v", addr, err)
		}
		if !ln.Addr().(*net.TCPAddr).IP.IsLoopback() {
			t.Errorf("Listen(%q) bound %s", addr, ln.Addr())
		}
		ln.Close()
	}
}

// serveListener runs srv.Serve on a fresh loopback listener and returns
// its address; the test closes it.
func serveListener(t *testing.T, srv *Server, network, addr string) string {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

func dial(t *testing.T, network, addr string) *daptest.Client {
	t.Helper()
	conn, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	c := daptest.NewClient(conn)
	t.Cleanup(func() { c.Close() })
	return c
}

// TestUnixSocketSameUser: a Unix-socket client of the same user (checked
// with SO_PEERCRED) is served.
func TestUnixSocketSameUser(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "dap.sock")
	serveListener(t, &Server{}, "unix", sock)
	c := dial(t, "unix", sock)
	c.Initialize(t)
}

// TestSecondClientRefused: while one client is served a second is told
// why it is not, and is served once the first has gone.
func TestSecondClientRefused(t *testing.T) {
	f := loadFixture(t, "testdata/dap/basic.n")
	addr := serveListener(t, &Server{}, "tcp", "127.0.0.1:0")
	first := dial(t, "tcp", addr)
	first.Initialize(t)
	first.LaunchRequest(map[string]any{"program": f.Path, "stopOnEntry": true})
	daptest.ExpectResponse[*dap.LaunchResponse](t, first)

	second := dial(t, "tcp", addr)
	second.InitializeRequest()
	r := second.ExpectErrorResponse(t, "initialize")
	if !strings.Contains(r.Message, "the server is busy with another client") || !strings.Contains(r.Message, "--accept-multiclient") {
		t.Errorf("refusal %q", r.Message)
	}
	second.ExpectClosed(t)
	if out := second.Output("stderr"); !strings.Contains(out, "the server is busy with another client") {
		t.Errorf("refusal output %q", out)
	}

	first.DisconnectRequest(true)
	daptest.ExpectResponse[*dap.DisconnectResponse](t, first)
	expectExit(t, first, 137)
	first.ExpectClosed(t)
	third := dial(t, "tcp", addr)
	third.Initialize(t)
}

// TestMulticlientQueues: with AcceptMulticlient the second client waits
// and is served after the first.
func TestMulticlientQueues(t *testing.T) {
	f := loadFixture(t, "testdata/dap/basic.n")
	addr := serveListener(t, &Server{AcceptMulticlient: true}, "tcp", "127.0.0.1:0")
	first := dial(t, "tcp", addr)
	first.Initialize(t)
	second := dial(t, "tcp", addr)
	second.InitializeRequest() // answered once the first has gone
	first.LaunchRequest(map[string]any{"program": f.Path, "stopOnEntry": true})
	daptest.ExpectResponse[*dap.LaunchResponse](t, first)
	first.DisconnectRequest(true)
	daptest.ExpectResponse[*dap.DisconnectResponse](t, first)
	daptest.ExpectResponse[*dap.InitializeResponse](t, second)
}

// TestHandshakeTimeout: a client that connects and says nothing is
// dropped, and the server serves the next one.
func TestHandshakeTimeout(t *testing.T) {
	addr := serveListener(t, &Server{HandshakeTimeout: 200 * time.Millisecond}, "tcp", "127.0.0.1:0")
	silent := dial(t, "tcp", addr)
	silent.ExpectClosed(t)
	if out := silent.Output("stderr"); !strings.Contains(out, "no launch or attach in time") {
		t.Errorf("output %q", out)
	}
	next := dial(t, "tcp", addr)
	next.Initialize(t)
}

// TestToken: with a token, launch must carry it; a wrong one is refused
// and the connection closed.
func TestToken(t *testing.T) {
	f := loadFixture(t, "testdata/dap/basic.n")
	for _, tok := range []any{nil, "wrong", 42} {
		c := startServer(t, &Server{Token: "s3cret"})
		c.Initialize(t)
		args := map[string]any{"program": f.Path}
		if tok != nil {
			args["token"] = tok
		}
		c.LaunchRequest(args)
		r := c.ExpectErrorResponse(t, "launch")
		if r.Body.Error == nil || r.Body.Error.Id != errToken || !strings.Contains(r.Message, "wrong or missing token") {
			t.Errorf("token %v: %+v", tok, r)
		}
		c.ExpectClosed(t)
	}
	c := startServer(t, &Server{Token: "s3cret"})
	c.Initialize(t)
	c.LaunchRequest(map[string]any{"program": f.Path, "token": "s3cret", "stopOnEntry": true})
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
}

// TestHeaderWithoutCR: a header line that never ends is not buffered
// without limit: past 4 MiB the server says so and closes.
func TestHeaderWithoutCR(t *testing.T) {
	clientSide, serverSide := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- (&Server{}).ServeConn(serverSide) }()
	c := daptest.NewClient(clientSide)
	defer c.Close()
	go clientSide.Write([]byte(strings.Repeat("a", maxHeaderLine+10)))
	c.ExpectClosed(t)
	if err := <-done; !errors.Is(err, errHeaderTooLong) {
		t.Errorf("ServeConn: %v", err)
	}
	if out := c.Output("stderr"); !strings.Contains(out, "header line longer than 4 MiB") {
		t.Errorf("output %q", out)
	}
}

// TestReadTokenFile: a token file must be private and not empty.
func TestReadTokenFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), mode)
		os.Chmod(p, mode)
		return p
	}
	if tok, err := ReadTokenFile(write("ok", " s3cret\n", 0o600)); err != nil || tok != "s3cret" {
		t.Errorf("private token file: %q, %v", tok, err)
	}
	if _, err := ReadTokenFile(write("open", "s3cret", 0o644)); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Errorf("world-readable token file: %v", err)
	}
	if _, err := ReadTokenFile(write("empty", " \n", 0o600)); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty token file: %v", err)
	}
}

// TestContentLengthOutOfRange: a Content-Length too large for an int64
// (2^64) is a framing error like any other: the server says so before it
// closes the connection.
func TestContentLengthOutOfRange(t *testing.T) {
	clientSide, serverSide := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- (&Server{}).ServeConn(serverSide) }()
	c := daptest.NewClient(clientSide)
	defer c.Close()
	go clientSide.Write([]byte("Content-Length: 18446744073709551616\r\n\r\n{}"))
	c.ExpectClosed(t)
	if err := <-done; err == nil {
		t.Error("ServeConn: no error")
	}
	want := "nlangdbg dap: Content-Length 18446744073709551616 is out of range; closing the connection"
	if out := c.Output("stderr"); !strings.Contains(out, want) {
		t.Errorf("output %q, want %q", out, want)
	}
}
