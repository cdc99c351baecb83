package dap

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// writeLog is a server's end of a connection that keeps what each write
// wrote.
type writeLog struct {
	net.Conn
	mu     sync.Mutex
	writes []string
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.writes = append(w.writes, string(p))
	w.mu.Unlock()
	return w.Conn.Write(p)
}

func (w *writeLog) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.writes...)
}

// A step of a single-thread program runs while its request is handled:
// the response to next and the stopped event at the next line go out in
// one write (one wake-up of the client), and every write holds whole
// messages.
func TestNextOneWrite(t *testing.T) {
	f := loadFixture(t, "testdata/dap/basic.n")
	clientSide, serverSide := net.Pipe()
	wl := &writeLog{Conn: serverSide}
	done := make(chan error, 1)
	go func() { done <- (&Server{}).ServeConn(wl) }()
	c := daptest.NewClient(clientSide)
	t.Cleanup(func() {
		c.Close()
		select {
		case <-done:
		case <-time.After(daptest.DefaultTimeout):
			t.Errorf("the server did not end after the client closed the connection")
		}
	})
	c.Initialize(t)
	c.LaunchRequest(map[string]any{"program": f.Path})
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
	c.SetBreakpointsRequest(f.Path, f.Line("square"))
	daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
	stop := c.ExpectStoppedEvent(t)
	tid := stop.Body.ThreadId

	before := len(wl.all())
	c.NextRequest(tid, false)
	daptest.ExpectResponse[*dap.NextResponse](t, c)
	next := c.ExpectStoppedEvent(t)
	if next.Body.Reason != "step" {
		t.Fatalf("stopped for %q, want step", next.Body.Reason)
	}
	top := topFrame(t, c, tid)
	if top.Name != "square" || top.Line != f.Line("square")+1 {
		t.Fatalf("stopped in %s at line %d, want square at %d", top.Name, top.Line, f.Line("square")+1)
	}
	writes := wl.all()
	for _, w := range writes {
		if !strings.HasPrefix(w, "Content-Length: ") {
			t.Errorf("a write starts in the middle of a message: %.60q", w)
		}
	}
	var found bool
	for _, w := range writes[before:] {
		if strings.Contains(w, `"command":"next"`) {
			found = true
			if !strings.Contains(w, `"event":"stopped"`) {
				t.Errorf("the next response went out without the stopped event: %q", w)
			}
		}
	}
	if !found {
		t.Fatalf("no write with the next response in %q", writes[before:])
	}
}
