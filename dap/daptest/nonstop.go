package daptest

import (
	"encoding/json"
	"testing"
	"time"

	dap "github.com/google/go-dap"
)

// ModeBreakpoint is a line breakpoint with a mode (DAP 1.65's
// SourceBreakpoint.mode, which go-dap does not know).
type ModeBreakpoint struct {
	dap.SourceBreakpoint
	Mode string `json:"mode,omitempty"`
}

// SetModeBreakpointsRequest sends setBreakpoints for path with modes.
func (c *Client) SetModeBreakpointsRequest(path string, bps ...ModeBreakpoint) int {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.seq++
	msg := map[string]any{"seq": c.seq, "type": "request", "command": "setBreakpoints",
		"arguments": map[string]any{"source": dap.Source{Path: path}, "breakpoints": bps}}
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	dap.WriteBaseMessage(c.rw, b)
	return c.seq
}

// WaitOutput waits until the output of category so far satisfies ok,
// failing t after the timeout. It consumes no message.
func (c *Client) WaitOutput(t testing.TB, category string, ok func(string) bool) string {
	t.Helper()
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		out := c.Output(category)
		if ok(out) {
			return out
		}
		c.mu.Lock()
		err := c.readErr
		c.mu.Unlock()
		if err != nil {
			t.Fatalf("connection ended waiting for %s output; it is:\n%s", category, out)
		}
		select {
		case <-c.notify:
		case <-deadline.C:
			t.Fatalf("the %s output does not come; it is:\n%s", category, out)
		}
	}
}

// RequestWith sends a request of command with arguments as they are
// given (a map or a struct), for what go-dap's types cannot say: the
// mode of a function, data or instruction breakpoint or of an exception
// filter option (DAP 1.65). It returns the request's seq.
func (c *Client) RequestWith(command string, args any) int {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.seq++
	b, err := json.Marshal(map[string]any{"seq": c.seq, "type": "request", "command": command, "arguments": args})
	if err != nil {
		panic(err)
	}
	dap.WriteBaseMessage(c.rw, b)
	return c.seq
}
