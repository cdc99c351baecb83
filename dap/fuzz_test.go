package dap

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	dap "github.com/google/go-dap"
)

// FuzzDAPMessage feeds arbitrary bytes to a session as the client's
// stream (framing included) and checks that the server never panics or
// hangs: it answers what it can decode, reports the rest, and ends when
// the client closes. A handler that panicked (the server recovers and
// logs it) fails too.
func FuzzDAPMessage(f *testing.F) {
	frame := func(body string) []byte {
		return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
	}
	for _, body := range []string{
		`{"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"x","pathFormat":"path"}}`,
		`{"seq":2,"type":"request","command":"launch","arguments":{"program":"/nonexistent.n","quota":0,"maxHeap":"1KB"}}`,
		`{"seq":3,"type":"request","command":"attach","arguments":{"token":7}}`,
		`{"seq":4,"type":"request","command":"evaluate","arguments":{"expression":"1+","frameId":99}}`,
		`{"seq":5,"type":"request","command":"setBreakpoints","arguments":{"source":{"path":"x.n"},"breakpoints":[{"line":-1}]}}`,
		`{"seq":6,"type":"request","command":"nosuch"}`,
		`{"seq":7,"type":"request","command":"continue","arguments":{"threadId":9999}}`,
		`{"seq":8,"type":"response","command":"runInTerminal","success":true}`,
		`{"seq":"x"`,
		`[]`,
	} {
		f.Add(frame(body))
	}
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n"))
	f.Add([]byte("Content-Length: 5\r\n\n{}"))
	f.Add(append(frame(`{"seq":1,"type":"request","command":"threads"}`), frame(`{"seq":2,"type":"request","command":"disconnect"}`)...))
	f.Fuzz(func(t *testing.T, stream []byte) {
		clientSide, serverSide := net.Pipe()
		var log syncLog
		done := make(chan error, 1)
		go func() { done <- (&Server{Log: &log}).ServeConn(serverSide) }()
		var out bytes.Buffer
		read := make(chan struct{})
		go func() { io.Copy(&out, clientSide); close(read) }()
		// A net.Pipe write returns once the server has read it all.
		clientSide.SetWriteDeadline(time.Now().Add(2 * time.Second))
		clientSide.Write(stream)
		clientSide.Write(frame(`{"seq":100000,"type":"request","command":"disconnect"}`))
		// Hang up (the stream may have left the framing in the middle of
		// a message, which then swallowed the disconnect): the server
		// must end either way.
		clientSide.Close()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Fatal("the server did not end after the client hung up")
		}
		<-read
		if strings.Contains(log.String(), "panic in") {
			t.Fatalf("a handler panicked:\n%s", log.String())
		}
		// Everything the server sent is well-framed DAP.
		r := bufio.NewReader(&out)
		for {
			content, err := dap.ReadBaseMessage(r)
			if err != nil {
				break
			}
			if _, err := dap.DecodeProtocolMessage(content); err != nil {
				t.Fatalf("the server sent a message that does not decode (%v): %s", err, content)
			}
		}
	})
}

// syncLog is a Server.Log for a test.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 1<<20 {
		l.b.Write(p)
	}
	return len(p), nil
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
