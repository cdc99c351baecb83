// Package daptest is a DAP client for tests: it sends requests, reads
// every message the server sends into a queue, and offers Expect helpers
// that wait (with a timeout, never a sleep) for the next message of a
// kind, so that a test reads like a transcript:
//
//	c.LaunchRequest(map[string]any{"program": path})
//	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
//	c.ConfigurationDoneRequest()
//	daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
//	stop := c.ExpectStoppedEvent(t)
//
// Expect helpers skip the events that come at times a test cannot pin
// (output, thread, continued, breakpoint, loadedSource) unless that kind
// is the one expected; every message stays in the transcript, and output
// is collected per category.
package daptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
)

// DefaultTimeout is how long an Expect helper waits for a message.
var DefaultTimeout = 20 * time.Second

// Client is a DAP client over a connection.
type Client struct {
	// Timeout bounds each wait for a message (DefaultTimeout if 0).
	Timeout time.Duration

	rw  io.ReadWriteCloser
	wmu sync.Mutex
	seq int

	mu         sync.Mutex
	queue      []dap.Message
	notify     chan struct{} // a message arrived or the reader ended
	readErr    error         // set when the reader ends
	transcript []dap.Message
	output     map[string]*strings.Builder
	stops      map[*dap.StoppedEvent]*api.Stop // (StopOf)
	raws       map[dap.Message][]byte          // (Raw)
}

// Raw returns a message as it was read (for fields go-dap does not
// decode).
func (c *Client) Raw(m dap.Message) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.raws[m]
}

// NewClient returns a client on rw and starts reading from it.
func NewClient(rw io.ReadWriteCloser) *Client {
	c := &Client{rw: rw, notify: make(chan struct{}, 1), output: map[string]*strings.Builder{}}
	go c.readLoop()
	return c
}

func (c *Client) readLoop() {
	r := bufio.NewReader(c.rw)
	for {
		m, content, err := readMessage(r)
		c.mu.Lock()
		if err != nil {
			c.readErr = err
			c.mu.Unlock()
			c.wake()
			return
		}
		if e, ok := m.(*dap.StoppedEvent); ok {
			var ext api.StoppedEvent
			if json.Unmarshal(content, &ext) == nil && ext.Body.Nlang != nil {
				if c.stops == nil {
					c.stops = map[*dap.StoppedEvent]*api.Stop{}
				}
				c.stops[e] = ext.Body.Nlang
			}
		}
		if c.raws == nil {
			c.raws = map[dap.Message][]byte{}
		}
		c.raws[m] = content
		c.queue = append(c.queue, m)
		c.transcript = append(c.transcript, m)
		if o, ok := m.(*dap.OutputEvent); ok {
			b := c.output[o.Body.Category]
			if b == nil {
				b = &strings.Builder{}
				c.output[o.Body.Category] = b
			}
			b.WriteString(o.Body.Output)
		}
		c.mu.Unlock()
		c.wake()
	}
}

func (c *Client) wake() {
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

// Close closes the connection.
func (c *Client) Close() error { return c.rw.Close() }

// Send sends a request, numbering it, and returns its seq.
func (c *Client) Send(req dap.RequestMessage) int {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.seq++
	r := req.GetRequest()
	r.Seq, r.Type = c.seq, "request"
	dap.WriteProtocolMessage(c.rw, req)
	return c.seq
}

// SendRaw sends content as one message body (for malformed messages).
func (c *Client) SendRaw(content string) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	dap.WriteBaseMessage(c.rw, []byte(content))
}

// Output returns the text of the output events of a category so far.
func (c *Client) Output(category string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.output[category]; b != nil {
		return b.String()
	}
	return ""
}

// Transcript returns every message received so far.
func (c *Client) Transcript() []dap.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]dap.Message(nil), c.transcript...)
}

// Next returns the next message, failing t after the timeout or when the
// connection ends.
func (c *Client) Next(t testing.TB) dap.Message {
	t.Helper()
	m, err := c.next()
	if err != nil {
		t.Fatalf("%v\ntranscript:\n%s", err, c.dump())
	}
	return m
}

func (c *Client) next() (dap.Message, error) {
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			m := c.queue[0]
			c.queue = c.queue[1:]
			c.mu.Unlock()
			return m, nil
		}
		err := c.readErr
		c.mu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("connection ended: %v", err)
		}
		select {
		case <-c.notify:
		case <-deadline.C:
			return nil, fmt.Errorf("no message within %v", timeout)
		}
	}
}

// ExpectClosed waits until the server closes the connection, failing t if
// a message other than a skippable event comes first.
func (c *Client) ExpectClosed(t testing.TB) {
	t.Helper()
	for {
		m, err := c.next()
		if err != nil {
			if strings.HasPrefix(err.Error(), "connection ended") {
				return
			}
			t.Fatalf("%v\ntranscript:\n%s", err, c.dump())
		}
		if !skippable(m) {
			t.Fatalf("got %s, want the connection to close\ntranscript:\n%s", Describe(m), c.dump())
		}
	}
}

// skippable reports whether m is an event that comes at times a test
// cannot pin.
func skippable(m dap.Message) bool {
	switch m.(type) {
	case *dap.OutputEvent, *dap.ThreadEvent, *dap.ContinuedEvent, *dap.BreakpointEvent, *dap.LoadedSourceEvent,
		*dap.InvalidatedEvent, *dap.ProgressStartEvent, *dap.ProgressUpdateEvent, *dap.ProgressEndEvent:
		return true
	}
	return false
}

// Expect returns the next message of type T, skipping skippable events
// of other types; any other message fails t.
func Expect[T dap.Message](t testing.TB, c *Client) T {
	t.Helper()
	for {
		m := c.Next(t)
		if v, ok := m.(T); ok {
			return v
		}
		if skippable(m) {
			continue
		}
		var want T
		t.Fatalf("got %s, want %T\ntranscript:\n%s", Describe(m), want, c.dump())
	}
}

// ExpectResponse returns the next response, which must be a successful
// T.
func ExpectResponse[T dap.ResponseMessage](t testing.TB, c *Client) T {
	t.Helper()
	for {
		m := c.Next(t)
		if v, ok := m.(T); ok {
			if !v.GetResponse().Success {
				t.Fatalf("%s failed: %s", v.GetResponse().Command, v.GetResponse().Message)
			}
			return v
		}
		if skippable(m) {
			continue
		}
		var want T
		t.Fatalf("got %s, want %T\ntranscript:\n%s", Describe(m), want, c.dump())
	}
}

// ExpectErrorResponse returns the next response, which must be an error
// response to command.
func (c *Client) ExpectErrorResponse(t testing.TB, command string) *dap.ErrorResponse {
	t.Helper()
	r := Expect[*dap.ErrorResponse](t, c)
	if r.Command != command {
		t.Fatalf("got an error response to %q (%s), want one to %q", r.Command, r.Message, command)
	}
	return r
}

// ExpectStoppedEvent returns the next stopped event.
func (c *Client) ExpectStoppedEvent(t testing.TB) *dap.StoppedEvent {
	t.Helper()
	return Expect[*dap.StoppedEvent](t, c)
}

// ExpectOutputEvent returns the next output event of category (any if
// "").
func (c *Client) ExpectOutputEvent(t testing.TB, category string) *dap.OutputEvent {
	t.Helper()
	for {
		e := Expect[*dap.OutputEvent](t, c)
		if category == "" || e.Body.Category == category {
			return e
		}
	}
}

// ExpectThreadEvent returns the next thread event.
func (c *Client) ExpectThreadEvent(t testing.TB) *dap.ThreadEvent {
	t.Helper()
	return Expect[*dap.ThreadEvent](t, c)
}

// ExpectInitializedEvent returns the next initialized event.
func (c *Client) ExpectInitializedEvent(t testing.TB) *dap.InitializedEvent {
	t.Helper()
	return Expect[*dap.InitializedEvent](t, c)
}

// ExpectExitedEvent returns the next exited event.
func (c *Client) ExpectExitedEvent(t testing.TB) *dap.ExitedEvent {
	t.Helper()
	return Expect[*dap.ExitedEvent](t, c)
}

// ExpectTerminatedEvent returns the next terminated event.
func (c *Client) ExpectTerminatedEvent(t testing.TB) *dap.TerminatedEvent {
	t.Helper()
	return Expect[*dap.TerminatedEvent](t, c)
}

// Describe renders a message in one line for failure reports.
func Describe(m dap.Message) string {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Sprintf("%T", m)
	}
	s := string(b)
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

// dump renders the transcript for failure reports.
func (c *Client) dump() string {
	var b strings.Builder
	for _, m := range c.Transcript() {
		b.WriteString("  " + Describe(m) + "\n")
	}
	return b.String()
}

// Initialize sends initialize, expects its response and the initialized
// event, and returns the server's capabilities.
func (c *Client) Initialize(t testing.TB) dap.Capabilities {
	t.Helper()
	c.InitializeRequest()
	r := ExpectResponse[*dap.InitializeResponse](t, c)
	c.ExpectInitializedEvent(t)
	return r.Body
}
