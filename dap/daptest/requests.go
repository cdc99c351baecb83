package daptest

import (
	"encoding/json"

	dap "github.com/google/go-dap"
)

// Each method below sends one request and returns its seq.

func req(command string) dap.Request {
	return dap.Request{Command: command}
}

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// InitializeRequest sends initialize as an editor would.
func (c *Client) InitializeRequest() int {
	return c.Send(&dap.InitializeRequest{Request: req("initialize"), Arguments: dap.InitializeRequestArguments{
		ClientID: "daptest", AdapterID: "nlangdbg", PathFormat: "path",
		LinesStartAt1: true, ColumnsStartAt1: true,
		SupportsVariableType: true, SupportsVariablePaging: true,
	}})
}

// LaunchRequest sends launch with these arguments (program, args, cwd,
// stopOnEntry, quota, seed, noDebug).
func (c *Client) LaunchRequest(args map[string]any) int {
	return c.Send(&dap.LaunchRequest{Request: req("launch"), Arguments: raw(args)})
}

// AttachRequest sends attach.
func (c *Client) AttachRequest(args map[string]any) int {
	return c.Send(&dap.AttachRequest{Request: req("attach"), Arguments: raw(args)})
}

// ConfigurationDoneRequest sends configurationDone.
func (c *Client) ConfigurationDoneRequest() int {
	return c.Send(&dap.ConfigurationDoneRequest{Request: req("configurationDone")})
}

// DisconnectRequest sends disconnect.
func (c *Client) DisconnectRequest(terminateDebuggee bool) int {
	return c.Send(&dap.DisconnectRequest{Request: req("disconnect"),
		Arguments: &dap.DisconnectArguments{TerminateDebuggee: terminateDebuggee}})
}

// TerminateRequest sends terminate.
func (c *Client) TerminateRequest() int {
	return c.Send(&dap.TerminateRequest{Request: req("terminate")})
}

// RestartRequest sends restart (args nil: relaunch with the same
// arguments).
func (c *Client) RestartRequest(args map[string]any) int {
	r := &dap.RestartRequest{Request: req("restart")}
	if args != nil {
		r.Arguments = raw(map[string]any{"arguments": args})
	}
	return c.Send(r)
}

// SetBreakpointsRequest sends setBreakpoints for lines of path.
func (c *Client) SetBreakpointsRequest(path string, lines ...int) int {
	var bps []dap.SourceBreakpoint
	for _, l := range lines {
		bps = append(bps, dap.SourceBreakpoint{Line: l})
	}
	return c.SetSourceBreakpointsRequest(path, bps...)
}

// SetSourceBreakpointsRequest sends setBreakpoints with full
// breakpoints (conditions, hit conditions, log messages).
func (c *Client) SetSourceBreakpointsRequest(path string, bps ...dap.SourceBreakpoint) int {
	if bps == nil {
		bps = []dap.SourceBreakpoint{}
	}
	return c.Send(&dap.SetBreakpointsRequest{Request: req("setBreakpoints"), Arguments: dap.SetBreakpointsArguments{
		Source: dap.Source{Path: path}, Breakpoints: bps}})
}

// SetFunctionBreakpointsRequest sends setFunctionBreakpoints.
func (c *Client) SetFunctionBreakpointsRequest(names ...string) int {
	bps := []dap.FunctionBreakpoint{}
	for _, n := range names {
		bps = append(bps, dap.FunctionBreakpoint{Name: n})
	}
	return c.Send(&dap.SetFunctionBreakpointsRequest{Request: req("setFunctionBreakpoints"),
		Arguments: dap.SetFunctionBreakpointsArguments{Breakpoints: bps}})
}

// SetExceptionBreakpointsRequest sends setExceptionBreakpoints.
func (c *Client) SetExceptionBreakpointsRequest(filters ...string) int {
	if filters == nil {
		filters = []string{}
	}
	return c.Send(&dap.SetExceptionBreakpointsRequest{Request: req("setExceptionBreakpoints"),
		Arguments: dap.SetExceptionBreakpointsArguments{Filters: filters}})
}

// ExceptionInfoRequest sends exceptionInfo.
func (c *Client) ExceptionInfoRequest(threadID int) int {
	return c.Send(&dap.ExceptionInfoRequest{Request: req("exceptionInfo"),
		Arguments: dap.ExceptionInfoArguments{ThreadId: threadID}})
}

// ContinueRequest sends continue.
func (c *Client) ContinueRequest(threadID int, singleThread bool) int {
	return c.Send(&dap.ContinueRequest{Request: req("continue"),
		Arguments: dap.ContinueArguments{ThreadId: threadID, SingleThread: singleThread}})
}

// NextRequest sends next.
func (c *Client) NextRequest(threadID int, singleThread bool) int {
	return c.Send(&dap.NextRequest{Request: req("next"),
		Arguments: dap.NextArguments{ThreadId: threadID, SingleThread: singleThread}})
}

// StepInRequest sends stepIn.
func (c *Client) StepInRequest(threadID int) int {
	return c.Send(&dap.StepInRequest{Request: req("stepIn"), Arguments: dap.StepInArguments{ThreadId: threadID}})
}

// StepOutRequest sends stepOut.
func (c *Client) StepOutRequest(threadID int) int {
	return c.Send(&dap.StepOutRequest{Request: req("stepOut"), Arguments: dap.StepOutArguments{ThreadId: threadID}})
}

// PauseRequest sends pause.
func (c *Client) PauseRequest(threadID int) int {
	return c.Send(&dap.PauseRequest{Request: req("pause"), Arguments: dap.PauseArguments{ThreadId: threadID}})
}

// ThreadsRequest sends threads.
func (c *Client) ThreadsRequest() int {
	return c.Send(&dap.ThreadsRequest{Request: req("threads")})
}

// StackTraceRequest sends stackTrace.
func (c *Client) StackTraceRequest(threadID, startFrame, levels int) int {
	return c.Send(&dap.StackTraceRequest{Request: req("stackTrace"),
		Arguments: dap.StackTraceArguments{ThreadId: threadID, StartFrame: startFrame, Levels: levels}})
}

// ScopesRequest sends scopes.
func (c *Client) ScopesRequest(frameID int) int {
	return c.Send(&dap.ScopesRequest{Request: req("scopes"), Arguments: dap.ScopesArguments{FrameId: frameID}})
}

// VariablesRequest sends variables (filter "", "indexed" or "named";
// count 0: all).
func (c *Client) VariablesRequest(ref int, filter string, start, count int) int {
	return c.Send(&dap.VariablesRequest{Request: req("variables"), Arguments: dap.VariablesArguments{
		VariablesReference: ref, Filter: filter, Start: start, Count: count}})
}

// EvaluateRequest sends evaluate.
func (c *Client) EvaluateRequest(expr string, frameID int, context string) int {
	return c.Send(&dap.EvaluateRequest{Request: req("evaluate"), Arguments: dap.EvaluateArguments{
		Expression: expr, FrameId: frameID, Context: context}})
}

// SetVariableRequest sends setVariable.
func (c *Client) SetVariableRequest(ref int, name, value string) int {
	return c.Send(&dap.SetVariableRequest{Request: req("setVariable"), Arguments: dap.SetVariableArguments{
		VariablesReference: ref, Name: name, Value: value}})
}

// SourceRequest sends source by reference (ref > 0) or by path.
func (c *Client) SourceRequest(ref int, path string) int {
	a := dap.SourceArguments{SourceReference: ref}
	if path != "" {
		a.Source = &dap.Source{Path: path}
	}
	return c.Send(&dap.SourceRequest{Request: req("source"), Arguments: a})
}

// LoadedSourcesRequest sends loadedSources.
func (c *Client) LoadedSourcesRequest() int {
	return c.Send(&dap.LoadedSourcesRequest{Request: req("loadedSources")})
}

// UnknownRequest sends a request with a command the protocol does not
// have.
func (c *Client) UnknownRequest(command string) int {
	return c.Send(&dap.Request{Command: command})
}
