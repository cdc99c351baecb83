package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/google/go-dap"
)

// dapClient is the REPL's connection to a DAP server: a request waits for
// its response; events arrive on Events in order.
type dapClient struct {
	w   io.Writer
	wmu sync.Mutex

	mu      sync.Mutex
	seq     int
	pending map[int]chan dap.Message
	err     error

	// Events delivers the server's events; it is closed when the
	// connection ends.
	Events chan dap.Message
	done   chan struct{}
}

// errClosed is returned for requests on a closed connection.
var errClosed = errors.New("the debugger connection is closed")

func newDAPClient(r io.Reader, w io.Writer) *dapClient {
	c := &dapClient{w: w, pending: map[int]chan dap.Message{}, Events: make(chan dap.Message, 4096), done: make(chan struct{})}
	go c.readLoop(bufio.NewReader(r))
	return c
}

func (c *dapClient) readLoop(r *bufio.Reader) {
	defer func() {
		c.mu.Lock()
		if c.err == nil {
			c.err = errClosed
		}
		for _, ch := range c.pending {
			close(ch)
		}
		c.pending = nil
		c.mu.Unlock()
		close(c.Events)
		close(c.done)
	}()
	for {
		msg, err := dap.ReadProtocolMessage(r)
		if err != nil {
			var fe *dap.DecodeProtocolMessageFieldError
			if errors.As(err, &fe) {
				continue // an event or response this client does not know
			}
			return
		}
		switch m := msg.(type) {
		case dap.ResponseMessage:
			c.mu.Lock()
			ch := c.pending[m.GetResponse().RequestSeq]
			delete(c.pending, m.GetResponse().RequestSeq)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case dap.EventMessage:
			c.Events <- m
		}
	}
}

// call sends req and waits for its response; a failed response becomes
// an error with the server's message.
func (c *dapClient) call(req dap.RequestMessage) (dap.ResponseMessage, error) {
	r := req.GetRequest()
	r.Type = "request"
	ch := make(chan dap.Message, 1)
	c.mu.Lock()
	if c.pending == nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.seq++
	r.Seq = c.seq
	c.pending[r.Seq] = ch
	c.mu.Unlock()
	c.wmu.Lock()
	err := dap.WriteProtocolMessage(c.w, req)
	c.wmu.Unlock()
	if err != nil {
		return nil, err
	}
	m, ok := <-ch
	if !ok {
		return nil, errClosed
	}
	resp := m.(dap.ResponseMessage)
	if !resp.GetResponse().Success {
		msg := resp.GetResponse().Message
		if er, ok := m.(*dap.ErrorResponse); ok && er.Body.Error != nil && er.Body.Error.Format != "" {
			msg = er.Body.Error.Format
		}
		// the user typed a command, not a request: drop its name
		return resp, errors.New(strings.TrimPrefix(msg, r.Command+": "))
	}
	return resp, nil
}

func request(cmd string) dap.Request {
	return dap.Request{ProtocolMessage: dap.ProtocolMessage{Type: "request"}, Command: cmd}
}

// raw sends a request whose arguments are arbitrary JSON (launch, attach).
func rawArgs(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("marshal %T: %v", v, err))
	}
	return b
}
