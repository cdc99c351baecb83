package dap

import (
	"bytes"
	"encoding/json"
	"sync"

	dap "github.com/google/go-dap"
)

// Cancellation. A reader goroutine reads messages ahead of the read
// loop, so that a cancel request is seen while an earlier request is
// still being handled: it records the cancelled request's seq at once.
// The long requests (evaluate, variables, stackTrace) look at the record
// while they work (through inspect.Session.SetCancelCheck) and answer
// "cancelled"; a request cancelled before its turn is answered so
// without running. The cancel request itself is answered in order, like
// any other. A disconnect (or the connection's end) cancels everything
// still running.

// readResult is one message read, or the error that ended reading.
type readResult struct {
	content []byte
	err     error
	last    bool // the reader goroutine stops after this one
}

// cancels is the set of cancelled request seqs.
type cancels struct {
	mu       sync.Mutex
	set      map[int]bool
	all      bool           // the client disconnected or went away: everything is
	progress map[string]int // progress id -> the request it reports on (progress.go)
}

// progressOf records that progress id reports on request seq (0: the
// report is over).
func (x *cancels) progressOf(id string, seq int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if seq == 0 {
		delete(x.progress, id)
		return
	}
	if x.progress == nil {
		x.progress = map[string]int{}
	}
	x.progress[id] = seq
}

// addProgress cancels the request progress id reports on.
func (x *cancels) addProgress(id string) {
	x.mu.Lock()
	seq, ok := x.progress[id]
	x.mu.Unlock()
	if ok {
		x.add(seq)
	}
}

func (x *cancels) add(seq int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.set == nil {
		x.set = map[int]bool{}
	}
	x.set[seq] = true
}

func (x *cancels) has(seq int) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.all || x.set[seq]
}

// cancelAll cancels every request still running or waiting.
func (x *cancels) cancelAll() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.all = true
}

func (x *cancels) remove(seq int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.set, seq)
}

// nextMessage returns the next message for the read loop. While no long
// request runs it reads the connection itself: a hand-off to another
// goroutine for every message costs a wake-up of tens of µs. A long
// request (cancellable) starts a reader goroutine that reads ahead, so
// that a cancel is seen while the request works; the read loop then
// takes the messages from it until the reader hands over one read after
// the long requests have ended, and reads directly again.
func (c *session) nextMessage(done <-chan struct{}) ([]byte, error) {
	if c.ahead != nil {
		m := <-c.ahead
		if m.last {
			c.ahead = nil
		}
		return m.content, m.err
	}
	return dap.ReadBaseMessage(c.r)
}

// startAhead starts the reader goroutine, if it is not running, for a
// long request that begins. Called by the read loop.
func (c *session) startAhead(done <-chan struct{}) {
	c.long.Store(true)
	if c.ahead != nil {
		return
	}
	out := make(chan readResult, 16)
	c.ahead = out
	go func() {
		for {
			content, err := dap.ReadBaseMessage(c.r)
			switch {
			case err != nil:
				c.cancelled.cancelAll() // nobody waits for the answers
			case bytes.Contains(content, []byte(`"cancel"`)), bytes.Contains(content, []byte(`"disconnect"`)):
				c.noteCancel(content)
			}
			last := err != nil || !c.long.Load()
			select {
			case out <- readResult{content: content, err: err, last: last}:
			case <-done:
				return
			}
			if last {
				return
			}
		}
	}()
}

// noteCancel records the request a cancel request cancels.
func (c *session) noteCancel(content []byte) {
	var m struct {
		Type      string `json:"type"`
		Command   string `json:"command"`
		Arguments struct {
			RequestID  *int   `json:"requestId"`
			ProgressID string `json:"progressId"`
		} `json:"arguments"`
	}
	if json.Unmarshal(content, &m) != nil || m.Type != "request" {
		return
	}
	switch {
	case m.Command == "cancel" && m.Arguments.RequestID != nil:
		c.cancelled.add(*m.Arguments.RequestID)
	case m.Command == "cancel" && m.Arguments.ProgressID != "":
		c.cancelled.addProgress(m.Arguments.ProgressID)
	case m.Command == "disconnect":
		// what runs before the disconnect is cut short
		c.cancelled.cancelAll()
	}
}

// onCancelRequest answers cancel (the cancellation itself was recorded
// when the request was read).
func (c *session) onCancelRequest(req *dap.CancelRequest) {
	c.respond(&dap.CancelResponse{Response: newResponse(req)})
}

// cancellable runs a long request: it answers "cancelled" (returning
// false) if the request was cancelled before its turn, and otherwise
// lets the program's work look at the cancellation while run runs.
func (c *session) cancellable(req dap.RequestMessage, run func()) {
	seq := req.GetRequest().Seq
	defer c.cancelled.remove(seq)
	if c.cancelled.has(seq) {
		c.sendCancelled(req)
		return
	}
	if c.prog != nil {
		c.prog.SetCancelCheck(func() bool { return c.cancelled.has(seq) })
		defer c.prog.SetCancelCheck(nil)
	}
	c.startAhead(c.readDone)
	defer c.long.Store(false)
	title := map[string]string{"evaluate": "Evaluating", "variables": "Loading variables", "stackTrace": "Loading the stack"}[req.GetRequest().Command]
	if title == "" {
		title = req.GetRequest().Command
	}
	defer c.progress(seq, title)()
	run()
}

// sendCancelled answers a cancelled request (success false, message
// "cancelled", as the protocol asks).
func (c *session) sendCancelled(req dap.RequestMessage) {
	r := req.GetRequest()
	c.respond(&dap.ErrorResponse{Response: dap.Response{RequestSeq: r.Seq, Command: r.Command, Success: false, Message: "cancelled"}})
}
