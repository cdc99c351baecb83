package dap

import (
	"strings"

	dap "github.com/google/go-dap"
)

// What DAP 1.63–1.71 added that go-dap v0.12 does not know yet, as
// types of this package that marshal the protocol's field names.

// Reasons of an unverified breakpoint (Breakpoint.reason, DAP 1.64).
const (
	// bpPending: it may be verified later (set before the launch).
	bpPending = "pending"
	// bpFailed: it cannot be verified without a change (no code at the
	// line, a condition that does not compile, breakpoints off).
	bpFailed = "failed"
)

// breakpoint is dap.Breakpoint with its reason.
type breakpoint struct {
	dap.Breakpoint
	Reason string `json:"reason,omitempty"`
}

// withReasons gives each unverified breakpoint its reason: pending (before
// the launch) or failed.
func withReasons(bs []dap.Breakpoint, pending bool) []breakpoint {
	out := make([]breakpoint, len(bs))
	for i, b := range bs {
		out[i].Breakpoint = b
		switch {
		case b.Verified:
		case pending:
			out[i].Reason = bpPending
		default:
			out[i].Reason = bpFailed
		}
	}
	return out
}

// breakpointsResponse is the response of the requests that set
// breakpoints (setBreakpoints, setFunctionBreakpoints, …), with reasons.
type breakpointsResponse struct {
	dap.Response
	Body struct {
		Breakpoints []breakpoint `json:"breakpoints"`
	} `json:"body"`
}

// respondBreakpoints answers a request that sets breakpoints.
func (c *session) respondBreakpoints(req dap.RequestMessage, bs []dap.Breakpoint, pending bool) {
	r := &breakpointsResponse{Response: newResponse(req)}
	r.Body.Breakpoints = withReasons(bs, pending)
	c.respond(r)
}

// breakpointEvent is dap.BreakpointEvent with the breakpoint's reason.
type breakpointEvent struct {
	dap.Event
	Body struct {
		Reason     string     `json:"reason"`
		Breakpoint breakpoint `json:"breakpoint"`
	} `json:"body"`
}

// evalPosition is where an evaluate request asks to evaluate (DAP 1.67:
// EvaluateArguments.line, column and source; a hover on a frame other
// than the top one).
type evalPosition struct {
	Line   int         `json:"line"`
	Column int         `json:"column"`
	Source *dap.Source `json:"source"`
}

// capabilities171 is dap.Capabilities with supportsANSIStyling (DAP
// 1.69): output and variable values may carry ANSI styles, which the
// server uses only if the client says it supports them too.
type capabilities171 struct {
	dap.Capabilities
	SupportsANSIStyling bool `json:"supportsANSIStyling,omitempty"`
	// BreakpointModes (DAP 1.65): the modes of non-stop debugging
	// (nonstop.go).
	BreakpointModes []breakpointMode `json:"breakpointModes,omitempty"`
}

// initializeResponse is the response to initialize.
type initializeResponse struct {
	dap.Response
	Body capabilities171 `json:"body"`
}

// ANSI styles (supportsANSIStyling, when the client supports it too).
const (
	ansiReset  = "\x1b[0m"
	ansiNote   = "\x1b[33m" // the debugger's notes: yellow
	ansiString = "\x1b[32m" // string values: green
	ansiNull   = "\x1b[2m"  // null: faint
	ansiError  = "\x1b[31m" // unreadable values: red
)

// styleValue styles a variable's value for a client that reads ANSI
// styles: strings, null and values that could not be read.
func (c *session) styleValue(value, typ string) string {
	if !c.client.ansi || value == "" {
		return value
	}
	switch {
	case strings.HasPrefix(value, "<unreadable"):
		return ansiError + value + ansiReset
	case value == "null":
		return ansiNull + value + ansiReset
	case typ == "string" && strings.HasPrefix(value, `"`):
		return ansiString + value + ansiReset
	}
	return value
}

// styleNote styles the debugger's own console text, line by line.
func (c *session) styleNote(text string) string {
	if !c.client.ansi || text == "" {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if body := strings.TrimSuffix(l, "\n"); body != "" {
			lines[i] = ansiNote + body + ansiReset + l[len(body):]
		}
	}
	return strings.Join(lines, "")
}

// invalidate tells a client that supports it (supportsInvalidatedEvent)
// that what it fetched of these areas is stale: after a change it did not
// ask for directly (setVariable and setExpression can change other
// variables that alias the same object; goto and restartFrame move a
// thread; going back changes everything). threadID 0: every thread.
func (c *session) invalidate(threadID int, areas ...dap.InvalidatedAreas) {
	if !c.client.invalidated {
		return
	}
	c.send(&dap.InvalidatedEvent{Event: newEvent("invalidated"), Body: dap.InvalidatedEventBody{Areas: areas, ThreadId: threadID}})
}
