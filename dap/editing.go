package dap

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/inspect"
)

// Error ids of the console and editing requests.
const (
	errCompletions   = 1080
	errSetExpression = 1081
	errStepInTargets = 1082
)

// onCompletionsRequest completes the debug console's text at column
// (1-based): locals, parameters, fields of this, functions and classes;
// fields and methods after "expr."; debugger commands after ":". The
// items replace the word before the cursor (no start is given).
func (c *session) onCompletionsRequest(req *dap.CompletionsRequest) {
	a := req.Arguments
	out := make([]dap.CompletionItem, 0)
	if c.prog == nil {
		c.respond(&dap.CompletionsResponse{Response: newResponse(req), Body: dap.CompletionsResponseBody{Targets: out}})
		return
	}
	if a.Column < 1 || a.Column > len(a.Text)+1 {
		c.sendError(req, errBadArguments, fmt.Sprintf("completions: column %d is outside the text (1 to %d)", a.Column, len(a.Text)+1))
		return
	}
	if line := strings.TrimLeft(a.Text[:a.Column-1], " "); strings.HasPrefix(line, api.ConsolePrefix) {
		// a debugger command: complete the word before the cursor
		word := line[strings.LastIndexAny(line, " "+api.ConsolePrefix)+1:]
		for _, w := range api.ConsoleCompletions(strings.TrimPrefix(line, api.ConsolePrefix)) {
			if strings.HasPrefix(w, word) {
				out = append(out, dap.CompletionItem{Label: w, Type: "keyword", Detail: "debugger command"})
			}
		}
		c.respond(&dap.CompletionsResponse{Response: newResponse(req), Body: dap.CompletionsResponseBody{Targets: out}})
		return
	}
	tid, depth, err := c.evalFrame(a.FrameId)
	if err != nil {
		c.sendError(req, errCompletions, "completions: "+err.Error())
		return
	}
	list, err := c.prog.Completions(tid, depth, a.Text, a.Column-1)
	if err != nil {
		c.sendError(req, errID(err, errCompletions), "completions: "+err.Error())
		return
	}
	for _, it := range list {
		out = append(out, dap.CompletionItem{Label: it.Label, Type: dap.CompletionItemType(it.Type), Detail: it.Detail})
	}
	c.respond(&dap.CompletionsResponse{Response: newResponse(req), Body: dap.CompletionsResponseBody{Targets: out}})
}

// onSetExpressionRequest assigns to a local, a field, an element or a
// Dict entry written as an expression.
func (c *session) onSetExpressionRequest(req *dap.SetExpressionRequest) {
	if !c.haveProgram(req) {
		return
	}
	a := req.Arguments
	tid, depth, err := c.evalFrame(a.FrameId)
	if err != nil {
		c.sendError(req, errSetExpression, "setExpression: "+err.Error())
		return
	}
	v, err := c.prog.SetExpression(tid, depth, a.Expression, a.Value)
	if err != nil {
		c.sendError(req, errID(err, errSetExpression), "setExpression: "+err.Error())
		return
	}
	c.noteShape(v.Ref, v.Named, v.Indexed)
	c.respond(&dap.SetExpressionResponse{Response: newResponse(req), Body: dap.SetExpressionResponseBody{
		Value: formatValue(v.Value, v.Type, a.Format), Type: v.Type, VariablesReference: v.Ref,
		NamedVariables: v.Named, IndexedVariables: v.Indexed}})
	c.invalidate(0, "variables")
}

// onBreakpointLocationsRequest lists the statement starts of a range of
// lines (where breakpoints go).
func (c *session) onBreakpointLocationsRequest(req *dap.BreakpointLocationsRequest) {
	a := req.Arguments
	out := make([]dap.BreakpointLocation, 0)
	if c.prog != nil && a != nil && a.Source.Path != "" {
		for _, l := range c.prog.BreakpointLocations(a.Source.Path, a.Line, a.EndLine) {
			out = append(out, dap.BreakpointLocation{Line: l.Line, Column: l.Col})
		}
	}
	c.respond(&dap.BreakpointLocationsResponse{Response: newResponse(req),
		Body: dap.BreakpointLocationsResponseBody{Breakpoints: out}})
}

// onStepInTargetsRequest lists the calls the top frame has yet to make on
// its line.
func (c *session) onStepInTargetsRequest(req *dap.StepInTargetsRequest) {
	if !c.haveProgram(req) {
		return
	}
	f, err := c.frame(req.Arguments.FrameId)
	if err != nil {
		c.sendError(req, errStepInTargets, "stepInTargets: "+err.Error())
		return
	}
	out := make([]dap.StepInTarget, 0)
	if f.depth == 0 { // only the top frame steps
		list, err := c.prog.StepInTargets(f.thread)
		if err != nil {
			if errors.Is(err, inspect.ErrNoThread) {
				err = fmt.Errorf("no thread %d", f.thread)
			}
			c.sendError(req, errID(err, errStepInTargets), "stepInTargets: "+err.Error())
			return
		}
		for _, t := range list {
			out = append(out, dap.StepInTarget{Id: t.ID, Label: t.Label, Line: t.Line, Column: t.Col})
		}
	}
	c.respond(&dap.StepInTargetsResponse{Response: newResponse(req), Body: dap.StepInTargetsResponseBody{Targets: out}})
}

// intTypes are the integer types a hex format applies to.
var intTypes = map[string]bool{"int": true, "long": true, "short": true, "byte": true, "ubyte": true,
	"uint": true, "ulong": true, "ushort": true, "char": true}

// formatValue applies a value format: hex shows integers (the whole
// value of an integer type) in hexadecimal.
func formatValue(value, typ string, f *dap.ValueFormat) string {
	if f == nil || !f.Hex || !intTypes[typ] {
		return value
	}
	if typ == "char" {
		return value // shown as a character
	}
	if n, err := strconv.ParseInt(value, 10, 64); err == nil {
		if n < 0 {
			return "-0x" + strconv.FormatInt(-n, 16)
		}
		return "0x" + strconv.FormatInt(n, 16)
	}
	if n, err := strconv.ParseUint(value, 10, 64); err == nil {
		return "0x" + strconv.FormatUint(n, 16)
	}
	return value
}

// stepInto steps into the callee of one call of the line (a target of
// stepInTargets).
func (c *session) stepInto(req *dap.StepInRequest) {
	if !c.haveProgram(req) {
		return
	}
	a := req.Arguments
	if err := c.prog.StepInto(int64(a.ThreadId), a.TargetId, a.SingleThread); err != nil {
		if errors.Is(err, inspect.ErrNoThread) {
			err = fmt.Errorf("no thread %d", a.ThreadId)
		}
		c.sendError(req, errID(err, errExecution), "stepIn: "+err.Error())
		return
	}
	c.resumed()
	c.respond(&dap.StepInResponse{Response: newResponse(req)})
}
