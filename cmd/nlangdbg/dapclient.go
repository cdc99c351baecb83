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

	"github.com/nlangdbg/nlangdbg/dap/api"
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
	// connection ends. An event that came before a response is in it
	// when call returns. The reader never waits for it: when it is full,
	// events wait in queue (unbounded) until the REPL takes them, so that
	// a response always gets through, even while running threads print
	// more than the REPL has read (non-stop).
	Events chan dap.Message
	done   chan struct{}
	qmu    sync.Mutex
	qcond  *sync.Cond
	queue  []dap.Message
	qend   bool
}

// errClosed is returned for requests on a closed connection.
var errClosed = errors.New("the debugger connection is closed")

func newDAPClient(r io.Reader, w io.Writer) *dapClient {
	c := &dapClient{w: w, pending: map[int]chan dap.Message{}, Events: make(chan dap.Message, 4096), done: make(chan struct{})}
	c.qcond = sync.NewCond(&c.qmu)
	go c.readLoop(bufio.NewReader(r))
	go c.pump()
	return c
}

// pump hands the queued events to Events, in order, and closes it after
// the last one once the connection has ended. An event leaves the queue
// once it is in Events (enqueue sends directly only to an empty queue).
func (c *dapClient) pump() {
	for {
		c.qmu.Lock()
		for len(c.queue) == 0 && !c.qend {
			c.qcond.Wait()
		}
		if len(c.queue) == 0 {
			c.qmu.Unlock()
			close(c.Events)
			return
		}
		m := c.queue[0]
		c.qmu.Unlock()
		c.Events <- m
		c.qmu.Lock()
		c.queue[0] = nil
		c.queue = c.queue[1:]
		c.qmu.Unlock()
	}
}

// enqueue puts an event in Events, or in the queue if Events is full or
// events wait already (end: the connection ended).
func (c *dapClient) enqueue(m dap.Message, end bool) {
	c.qmu.Lock()
	switch {
	case end:
		c.qend = true
	case len(c.queue) == 0:
		select {
		case c.Events <- m:
			c.qmu.Unlock()
			return
		default:
		}
		fallthrough
	default:
		c.queue = append(c.queue, m)
	}
	c.qmu.Unlock()
	c.qcond.Signal()
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
		c.enqueue(nil, true)
		close(c.done)
	}()
	for {
		content, err := dap.ReadBaseMessage(r)
		if err != nil {
			return
		}
		msg, err := decodeMessage(content)
		if err != nil {
			continue // an event or response this client does not know
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
			c.enqueue(m, false)
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
		msg, id := resp.GetResponse().Message, 0
		if er, ok := m.(*dap.ErrorResponse); ok && er.Body.Error != nil && er.Body.Error.Format != "" {
			msg, id = er.Body.Error.Format, er.Body.Error.Id
		}
		// the user typed a command, not a request: drop its name
		return resp, &requestError{ID: id, Msg: strings.TrimPrefix(msg, r.Command+": ")}
	}
	return resp, nil
}

// requestError is a request's error response: its message, and its id
// (api.ErrCompile, …; 0 if none).
type requestError struct {
	ID  int
	Msg string
}

func (e *requestError) Error() string { return e.Msg }

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

// decodeMessage decodes a message of the server: what go-dap knows, and
// nlangdbg's own — the responses to custom requests (their bodies
// decoded by callCustom) and the stopped event with its typed reason.
func decodeMessage(content []byte) (dap.Message, error) {
	var head struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Event   string `json:"event"`
		Success bool   `json:"success"`
	}
	if err := json.Unmarshal(content, &head); err != nil {
		return nil, err
	}
	switch {
	case head.Type == "response" && (strings.HasPrefix(head.Command, "nlang/") || head.Command == api.CmdLocations) && head.Success:
		m := &customResponse{}
		return m, json.Unmarshal(content, m)
	case head.Type == "response" && (strings.HasPrefix(head.Command, "nlang/") || head.Command == api.CmdLocations):
		m := &dap.ErrorResponse{}
		return m, json.Unmarshal(content, m)
	case head.Type == "response" && head.Command == "evaluate" && head.Success:
		m := &api.EvaluateResponse{} // (with its location reference)
		return m, json.Unmarshal(content, m)
	case head.Type == "response" && head.Command == "variables" && head.Success:
		m := &api.VariablesResponse{}
		return m, json.Unmarshal(content, m)
	case head.Type == "event" && head.Event == "stopped":
		m := &api.StoppedEvent{}
		return m, json.Unmarshal(content, m)
	}
	return dap.DecodeProtocolMessage(content)
}

// customResponse is the response to a custom request, its body not
// decoded yet.
type customResponse struct {
	dap.Response
	Body json.RawMessage `json:"body"`
}

// customRequest is a custom request (api.Cmd…).
type customRequest struct {
	dap.Request
	Arguments any `json:"arguments,omitempty"`
}

// callCustom sends the custom request command with args and returns its
// body, decoded into the type the command answers with (api.DecodeBody).
func (c *dapClient) callCustom(command string, args any) (any, error) {
	resp, err := c.call(&customRequest{Request: request(command), Arguments: args})
	if err != nil {
		return nil, err
	}
	cr, ok := resp.(*customResponse)
	if !ok {
		return nil, fmt.Errorf("%s: unexpected response %T", command, resp)
	}
	return api.DecodeBody(command, cr.Body)
}
