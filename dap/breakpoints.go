package dap

import (
	"fmt"
	"path/filepath"
	"strings"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/inspect"
)

// Exception breakpoint filters.
const (
	filterUncaught = "uncaught"
	filterAll      = "all"
)

// canonFile makes a client's path comparable with the program's file
// names (absolute, clean); library names such as "<prelude>" stay.
func canonFile(p string) string {
	if p == "" || strings.HasPrefix(p, "<") {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return filepath.Clean(p)
}

func (c *session) onSetBreakpointsRequest(req *dap.SetBreakpointsRequest) {
	args := req.Arguments
	path := args.Source.Path
	if path == "" && args.Source.SourceReference > 0 {
		path, _ = c.srcRefs.get(args.Source.SourceReference)
	}
	if path == "" {
		c.sendError(req, errBadArguments, "setBreakpoints: the source has no path (and no known sourceReference)")
		return
	}
	path = canonFile(path)
	specs := args.Breakpoints
	if len(specs) == 0 {
		for _, l := range args.Lines { // the deprecated form
			specs = append(specs, dap.SourceBreakpoint{Line: l})
		}
	}
	modes := c.rawModes("breakpoints")
	if len(specs) == 0 {
		delete(c.srcBps, path)
		delete(c.srcModes, path)
	} else {
		c.srcBps[path], c.srcModes[path] = specs, modes
	}
	out := make([]dap.Breakpoint, 0, len(specs))
	if c.prog == nil || c.args.NoDebug {
		msg := "set when the program is launched"
		if c.args.NoDebug {
			msg = "breakpoints are off: launched with noDebug"
		}
		ids := make([]int, 0, len(specs))
		for _, sp := range specs {
			id := c.newBPID()
			ids = append(ids, id)
			out = append(out, dap.Breakpoint{Id: id, Verified: false, Message: msg, Source: &args.Source, Line: sp.Line})
		}
		c.pendingIDs[path] = ids
	} else {
		for _, b := range c.prog.SetBreakpoints(path, sourceSpecs(specs, modes)) {
			out = append(out, c.breakpoint(b, &args.Source))
		}
	}
	c.respondBreakpoints(req, out, c.prog == nil)
}

// sourceSpecs converts line breakpoints for inspect.
func sourceSpecs(specs []dap.SourceBreakpoint, modes []string) []inspect.BreakpointSpec {
	out := make([]inspect.BreakpointSpec, 0, len(specs))
	for i, sp := range specs {
		out = append(out, inspect.BreakpointSpec{Line: sp.Line, Condition: sp.Condition,
			HitCondition: sp.HitCondition, LogMessage: sp.LogMessage, Mode: modeAt(modes, i)})
	}
	return out
}

// funcSpecs converts function breakpoints for inspect.
func funcSpecs(specs []dap.FunctionBreakpoint, modes []string) []inspect.FunctionBreakpointSpec {
	out := make([]inspect.FunctionBreakpointSpec, 0, len(specs))
	for i, sp := range specs {
		out = append(out, inspect.FunctionBreakpointSpec{Name: sp.Name, Condition: sp.Condition,
			HitCondition: sp.HitCondition, Mode: modeAt(modes, i)})
	}
	return out
}

// breakpoint converts a breakpoint as set; src is the source it was asked
// for in, if any.
func (c *session) breakpoint(b inspect.Breakpoint, src *dap.Source) dap.Breakpoint {
	c.mu.Lock()
	id, ok := c.bpIDs[b.ID]
	if !ok {
		c.nextBPID++
		id = c.nextBPID
		c.bpIDs[b.ID] = id
	}
	c.mu.Unlock()
	out := dap.Breakpoint{Id: id, Verified: b.Verified, Message: b.Message, Line: b.Line}
	switch {
	case src != nil:
		out.Source = src
	case b.File != "":
		out.Source = c.source(b.File)
	}
	return out
}

func (c *session) onSetFunctionBreakpointsRequest(req *dap.SetFunctionBreakpointsRequest) {
	specs := req.Arguments.Breakpoints
	c.funcBps, c.funcModes = specs, c.rawModes("breakpoints")
	out := make([]dap.Breakpoint, 0, len(specs))
	if c.prog == nil || c.args.NoDebug {
		ids := make([]int, 0, len(specs))
		for range specs {
			id := c.newBPID()
			ids = append(ids, id)
			out = append(out, dap.Breakpoint{Id: id, Verified: false, Message: "set when the program is launched"})
		}
		c.pendingIDs[""] = ids
	} else {
		for _, b := range c.prog.SetFunctionBreakpoints(funcSpecs(specs, c.funcModes)) {
			out = append(out, c.breakpoint(b, nil))
		}
	}
	c.respondBreakpoints(req, out, c.prog == nil)
}

func (c *session) onSetExceptionBreakpointsRequest(req *dap.SetExceptionBreakpointsRequest) {
	a := req.Arguments
	var filters []inspect.ExceptionFilter
	for _, f := range a.Filters {
		filters = append(filters, inspect.ExceptionFilter{Mode: f})
	}
	modes := c.rawModes("filterOptions")
	for i, o := range a.FilterOptions {
		// the condition names the exception classes it is limited to
		filters = append(filters, inspect.ExceptionFilter{Mode: o.FilterId, Classes: inspect.ParseClassList(o.Condition),
			StopMode: modeAt(modes, i)})
	}
	out := make([]dap.Breakpoint, 0, len(filters))
	for _, f := range filters {
		if f.Mode != filterUncaught && f.Mode != filterAll {
			c.sendError(req, errBadArguments, fmt.Sprintf("setExceptionBreakpoints: unknown filter %q (want %q or %q)", f.Mode, filterUncaught, filterAll))
			return
		}
		out = append(out, dap.Breakpoint{Verified: true})
	}
	var options []inspect.ExceptionOption
	for _, o := range a.ExceptionOptions {
		var classes []string
		for _, p := range o.Path {
			if !p.Negate {
				classes = append(classes, p.Names...)
			}
		}
		options = append(options, inspect.ExceptionOption{Classes: classes, Mode: string(o.BreakMode)})
	}
	old, oldOpts := c.excFilters, c.excOptions
	c.excFilters, c.excOptions = filters, options
	if c.prog != nil && !c.args.NoDebug {
		if err := c.applyExceptionFilters(); err != nil {
			c.excFilters, c.excOptions = old, oldOpts
			c.applyExceptionFilters()
			for i := range out {
				out[i] = dap.Breakpoint{Verified: false, Message: err.Error()}
			}
		}
	}
	c.respondBreakpoints(req, out, false)
}

// applyExceptionFilters passes the exception filters to the program: as
// two switches when no filter names classes and no exception options
// are given, as rules otherwise.
func (c *session) applyExceptionFilters() error {
	var uncaught, all, classes bool
	for _, f := range c.excFilters {
		uncaught = uncaught || f.Mode == filterUncaught
		all = all || f.Mode == filterAll
		classes = classes || len(f.Classes) > 0 || f.StopMode != ""
	}
	if !classes && len(c.excOptions) == 0 {
		c.prog.SetExceptionBreakpoints(uncaught, all)
		return nil
	}
	return c.prog.SetExceptionFilters(c.excFilters, c.excOptions)
}

// applyBreakpoints sets every breakpoint asked for so far in a freshly
// launched program (those asked before launch, or before a restart).
func (c *session) applyBreakpoints() {
	if c.args.NoDebug {
		return
	}
	for file, specs := range c.srcBps {
		placed := c.prog.SetBreakpoints(file, sourceSpecs(specs, c.srcModes[file]))
		c.announce(file, placed, c.source(file))
	}
	if len(c.funcBps) > 0 {
		c.announce("", c.prog.SetFunctionBreakpoints(funcSpecs(c.funcBps, c.funcModes)), nil)
	}
	c.applyExceptionFilters()
}

// newBPID hands out a breakpoint id for the client.
func (c *session) newBPID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextBPID++
	return c.nextBPID
}

// announce tells the client where the breakpoints it set before launch
// went (a `breakpoint` event, reason changed, per breakpoint), keeping the
// ids it was given.
func (c *session) announce(key string, placed []inspect.Breakpoint, src *dap.Source) {
	ids := c.pendingIDs[key]
	delete(c.pendingIDs, key)
	for i, b := range placed {
		if i < len(ids) {
			c.mu.Lock()
			c.bpIDs[b.ID] = ids[i]
			c.mu.Unlock()
		}
		if i >= len(ids) {
			continue // set after launch: the response said it all
		}
		e := &breakpointEvent{Event: newEvent("breakpoint")}
		e.Body.Reason = "changed"
		e.Body.Breakpoint = withReasons([]dap.Breakpoint{c.breakpoint(b, src)}, false)[0]
		c.send(e)
	}
}

// clientBPIDs translates inspect's breakpoint ids to the client's.
func (c *session) clientBPIDs(ids []int) []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]int, 0, len(ids))
	for _, id := range ids {
		if x, ok := c.bpIDs[id]; ok {
			out = append(out, x)
		} else {
			out = append(out, id)
		}
	}
	return out
}

func (c *session) onExceptionInfoRequest(req *dap.ExceptionInfoRequest) {
	if c.prog == nil {
		c.sendError(req, errNotLaunched, "exceptionInfo: no program")
		return
	}
	tid := int64(req.Arguments.ThreadId)
	body := dap.ExceptionInfoResponseBody{}
	if stop := c.prog.LastStop(); stop.Reason == inspect.ReasonDeadlock && stop.ThreadID == tid {
		c.mu.Lock()
		report := c.report
		c.mu.Unlock()
		if report == "" {
			report = stop.Text
		}
		body = dap.ExceptionInfoResponseBody{ExceptionId: "Deadlock", Description: strings.TrimRight(report, "\n"),
			BreakMode: "always", Details: &dap.ExceptionDetails{Message: stop.Text, TypeName: "Deadlock"}}
	} else {
		d, err := c.prog.ExceptionInfo(tid)
		if err != nil {
			c.sendError(req, errID(err, errExceptionInfo), fmt.Sprintf("exceptionInfo: %v", err))
			return
		}
		body = dap.ExceptionInfoResponseBody{ExceptionId: d.ID, Description: d.Description,
			BreakMode: dap.ExceptionBreakMode(d.Breakmode),
			Details:   &dap.ExceptionDetails{Message: d.Description, TypeName: d.ID, StackTrace: d.StackTrace}}
	}
	c.respond(&dap.ExceptionInfoResponse{Response: newResponse(req), Body: body})
}
