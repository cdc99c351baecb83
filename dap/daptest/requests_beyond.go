package daptest

import (
	"bufio"
	"encoding/json"
	"github.com/nlangdbg/nlangdbg/dap/api"
	"strings"
	"testing"

	dap "github.com/google/go-dap"
)

// Requests of the capabilities beyond the common set (instructions,
// threads, editing).

// DisassembleRequest sends disassemble.
func (c *Client) DisassembleRequest(ref string, offset, instrOffset, count int) int {
	return c.Send(&dap.DisassembleRequest{Request: req("disassemble"), Arguments: dap.DisassembleArguments{
		MemoryReference: ref, Offset: offset, InstructionOffset: instrOffset, InstructionCount: count, ResolveSymbols: true}})
}

// StepRequest sends next, stepIn or stepOut (command) with a granularity.
func (c *Client) StepRequest(command string, threadID int, granularity dap.SteppingGranularity) int {
	switch command {
	case "stepIn":
		return c.Send(&dap.StepInRequest{Request: req(command), Arguments: dap.StepInArguments{ThreadId: threadID, Granularity: granularity}})
	case "stepOut":
		return c.Send(&dap.StepOutRequest{Request: req(command), Arguments: dap.StepOutArguments{ThreadId: threadID, Granularity: granularity}})
	}
	return c.Send(&dap.NextRequest{Request: req("next"), Arguments: dap.NextArguments{ThreadId: threadID, Granularity: granularity}})
}

// SetInstructionBreakpointsRequest sends setInstructionBreakpoints.
func (c *Client) SetInstructionBreakpointsRequest(bps ...dap.InstructionBreakpoint) int {
	if bps == nil {
		bps = []dap.InstructionBreakpoint{}
	}
	return c.Send(&dap.SetInstructionBreakpointsRequest{Request: req("setInstructionBreakpoints"),
		Arguments: dap.SetInstructionBreakpointsArguments{Breakpoints: bps}})
}

// CustomResponse is the response to a custom request ("nlang/…"), which
// go-dap does not know: the header, and the body as JSON.
type CustomResponse struct {
	dap.Response
	Body json.RawMessage `json:"body"`
}

// readMessage reads one message as dap.ReadProtocolMessage does, and
// also the responses to custom requests.
func readMessage(r *bufio.Reader) (dap.Message, []byte, error) {
	content, err := dap.ReadBaseMessage(r)
	if err != nil {
		return nil, nil, err
	}
	m, err := dap.DecodeProtocolMessage(content)
	if err == nil {
		return m, content, nil
	}
	var head struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	if json.Unmarshal(content, &head) == nil && head.Type == "response" && (strings.HasPrefix(head.Command, "nlang/") || head.Command == api.CmdLocations) {
		var cr CustomResponse
		if err := json.Unmarshal(content, &cr); err != nil {
			return nil, nil, err
		}
		return &cr, content, nil
	}
	return nil, nil, err
}

// StopOf returns what nlangdbg adds to a stopped event: the stop's
// typed reason (nil if the event has none).
func (c *Client) StopOf(e *dap.StoppedEvent) *api.Stop {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stops[e]
}

// CustomRequest sends a custom request (command "nlang/…") with
// arguments and returns its seq.
func (c *Client) CustomRequest(command string, args any) int {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.seq++
	msg := map[string]any{"seq": c.seq, "type": "request", "command": command}
	if args != nil {
		msg["arguments"] = args
	}
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	dap.WriteBaseMessage(c.rw, b)
	return c.seq
}

// ExpectCustomResponse waits for the response to a custom request and
// decodes its body into body (which may be nil).
func (c *Client) ExpectCustomResponse(t testing.TB, command string, body any) *CustomResponse {
	t.Helper()
	r := ExpectResponse[*CustomResponse](t, c)
	if r.Command != command {
		t.Fatalf("response to %s, want %s", r.Command, command)
	}
	if body != nil {
		if err := json.Unmarshal(r.Body, body); err != nil {
			t.Fatalf("%s body: %v", command, err)
		}
	}
	return r
}

// TerminateThreadsRequest sends terminateThreads.
func (c *Client) TerminateThreadsRequest(ids ...int) int {
	return c.Send(&dap.TerminateThreadsRequest{Request: req("terminateThreads"), Arguments: dap.TerminateThreadsArguments{ThreadIds: ids}})
}

// RestartFrameRequest sends restartFrame.
func (c *Client) RestartFrameRequest(frameID int) int {
	return c.Send(&dap.RestartFrameRequest{Request: req("restartFrame"), Arguments: dap.RestartFrameArguments{FrameId: frameID}})
}

// GotoTargetsRequest sends gotoTargets.
func (c *Client) GotoTargetsRequest(path string, line int) int {
	return c.Send(&dap.GotoTargetsRequest{Request: req("gotoTargets"), Arguments: dap.GotoTargetsArguments{Source: dap.Source{Path: path}, Line: line}})
}

// GotoRequest sends goto.
func (c *Client) GotoRequest(threadID, targetID int) int {
	return c.Send(&dap.GotoRequest{Request: req("goto"), Arguments: dap.GotoArguments{ThreadId: threadID, TargetId: targetID}})
}

// DataBreakpointInfoRequest sends dataBreakpointInfo for a child of a
// variables reference (or, with ref 0, a local of frameID).
func (c *Client) DataBreakpointInfoRequest(ref int, name string, frameID int) int {
	return c.Send(&dap.DataBreakpointInfoRequest{Request: req("dataBreakpointInfo"),
		Arguments: dap.DataBreakpointInfoArguments{VariablesReference: ref, Name: name, FrameId: frameID}})
}

// SetDataBreakpointsRequest sends setDataBreakpoints.
func (c *Client) SetDataBreakpointsRequest(bps ...dap.DataBreakpoint) int {
	if bps == nil {
		bps = []dap.DataBreakpoint{}
	}
	return c.Send(&dap.SetDataBreakpointsRequest{Request: req("setDataBreakpoints"),
		Arguments: dap.SetDataBreakpointsArguments{Breakpoints: bps}})
}

// CompletionsRequest sends completions (column 1-based).
func (c *Client) CompletionsRequest(text string, column, frameID int) int {
	return c.Send(&dap.CompletionsRequest{Request: req("completions"), Arguments: dap.CompletionsArguments{Text: text, Column: column, FrameId: frameID}})
}

// SetExpressionRequest sends setExpression.
func (c *Client) SetExpressionRequest(expr, value string, frameID int) int {
	return c.Send(&dap.SetExpressionRequest{Request: req("setExpression"), Arguments: dap.SetExpressionArguments{Expression: expr, Value: value, FrameId: frameID}})
}

// BreakpointLocationsRequest sends breakpointLocations for lines line to
// endLine.
func (c *Client) BreakpointLocationsRequest(path string, line, endLine int) int {
	return c.Send(&dap.BreakpointLocationsRequest{Request: req("breakpointLocations"), Arguments: &dap.BreakpointLocationsArguments{Source: dap.Source{Path: path}, Line: line, EndLine: endLine}})
}

// StepInTargetsRequest sends stepInTargets.
func (c *Client) StepInTargetsRequest(frameID int) int {
	return c.Send(&dap.StepInTargetsRequest{Request: req("stepInTargets"), Arguments: dap.StepInTargetsArguments{FrameId: frameID}})
}

// StepInTargetRequest sends stepIn into one target.
func (c *Client) StepInTargetRequest(threadID, targetID int) int {
	return c.Send(&dap.StepInRequest{Request: req("stepIn"), Arguments: dap.StepInArguments{ThreadId: threadID, TargetId: targetID}})
}

// SetExceptionBreakpointsArgsRequest sends setExceptionBreakpoints with
// any arguments.
func (c *Client) SetExceptionBreakpointsArgsRequest(args dap.SetExceptionBreakpointsArguments) int {
	if args.Filters == nil {
		args.Filters = []string{}
	}
	return c.Send(&dap.SetExceptionBreakpointsRequest{Request: req("setExceptionBreakpoints"), Arguments: args})
}

// CancelRequest sends cancel for the request with seq requestID.
func (c *Client) CancelRequest(requestID int) int {
	return c.Send(&dap.CancelRequest{Request: req("cancel"), Arguments: &dap.CancelArguments{RequestId: requestID}})
}
