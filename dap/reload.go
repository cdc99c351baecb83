package dap

// Edit and continue: the nlang/reload and nlang/whatIf requests
// (inspect.Session.Reload, WhatIf). There is no standard DAP request for
// either (debug-adapter-protocol issue 398 asks for one; the Java and
// Dart adapters ship custom ones too). After a reload the server tells
// the client what moved: a `breakpoint` event (reason changed) for each
// breakpoint whose place changed, an `invalidated` event for the
// threads, stacks and variables (a client that did not say it supports
// it gets the `stopped` event the session sends anyway), and a console
// line saying what changed. A frame still running a function's old code
// is named "f [old code]", and its source is the text the code was
// compiled from (a sourceReference), since the file now holds another.

import (
	"errors"
	"strings"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/inspect"
)

// errReload is the error id of a reload refused or that does not compile.
const errReload = 1060

// oldCodeSuffix marks the name of a frame running a function's old code.
const oldCodeSuffix = " [old code]"

func init() {
	custom(api.CmdReload, (*session).reload)
	custom(api.CmdWhatIf, (*session).whatIf)
}

// sources turns a request's texts into inspect's.
func sources(list []api.SourceText) map[string][]byte {
	if len(list) == 0 {
		return nil
	}
	out := map[string][]byte{}
	for _, s := range list {
		out[s.Path] = []byte(s.Content)
	}
	return out
}

func (c *session) reload(a api.ReloadArgs) (any, error) {
	res, err := c.prog.Reload(inspect.ReloadOptions{Move: a.Move, Sources: sources(a.Sources)})
	if err != nil {
		var ce *inspect.CompileError
		if errors.As(err, &ce) {
			return nil, &reqError{errReload, strings.TrimRight(ce.Report, "\n")}
		}
		return nil, err
	}
	return c.reloadBody(res), nil
}

// reloadBody is the request's answer to res.
func (c *session) reloadBody(res *inspect.ReloadResult) api.ReloadBody {
	b := api.ReloadBody{Unchanged: res.Unchanged, Reload: res.Reload, Files: res.Files, Changed: res.Changed,
		Added: res.Added, Removed: res.Removed, Types: res.Types, Fields: res.Fields, Objects: res.Objects, Notes: res.Notes}
	for _, f := range res.Frames {
		b.Frames = append(b.Frames, api.ReloadFrame{ThreadID: f.Thread, Depth: f.Depth, Function: f.Func, Line: f.Line, How: f.How, Why: f.Why})
	}
	for _, bp := range res.Breakpoints {
		b.Breakpoints = append(b.Breakpoints, c.reloadBreakpoint(bp))
	}
	return b
}

// reloadBreakpoint is a breakpoint a reload moved, or left unplaced
// (reason "failed").
func (c *session) reloadBreakpoint(bp inspect.Breakpoint) api.Breakpoint {
	out := api.Breakpoint{Breakpoint: c.breakpoint(bp, nil)}
	if !bp.Verified {
		out.Reason = bpFailed
	}
	return out
}

// Reloaded implements inspect.ReloadListener: the client refetches
// what the reload changed.
func (l *listener) Reloaded(res inspect.ReloadResult) {
	c := l.c
	for _, bp := range res.Breakpoints {
		e := &breakpointEvent{Event: newEvent("breakpoint")}
		e.Body.Reason = "changed"
		e.Body.Breakpoint = breakpoint(c.reloadBreakpoint(bp))
		c.send(e)
	}
	if c.client.invalidated {
		c.send(&dap.InvalidatedEvent{Event: newEvent("invalidated"),
			Body: dap.InvalidatedEventBody{Areas: []dap.InvalidatedAreas{"threads", "stacks", "variables"}}})
	}
}

func (c *session) whatIf(a api.WhatIfArgs) (any, error) {
	r, err := c.prog.WhatIf(inspect.WhatIfOptions{File: a.File, Line: a.Line, Expr: a.Expression, Sources: sources(a.Sources)})
	if err != nil {
		var ce *inspect.CompileError
		if errors.As(err, &ce) {
			return nil, &reqError{errReload, strings.TrimRight(ce.Report, "\n")}
		}
		return nil, err
	}
	return api.WhatIfBody{From: r.From, Diverged: r.Diverged, What: r.What, Recorded: r.Recorded, New: r.New,
		ThreadID: r.Thread, Function: r.Func, Line: r.Line, Hit: r.Hit, Hits: r.Hits, Text: r.Text}, nil
}

// frameName is the name a stack frame is shown under.
func frameName(f inspect.FrameInfo) string {
	if f.OldCode {
		return f.Func + oldCodeSuffix
	}
	return f.Func
}

// frameSource is the source a stack frame is shown in: the text its
// code was compiled from when that is not its file's present text.
func (c *session) frameSource(f inspect.FrameInfo) *dap.Source {
	if f.OldSource == "" {
		return c.source(f.File)
	}
	return &dap.Source{Name: f.OldSource, SourceReference: c.srcRefs.add(f.OldSource),
		PresentationHint: "deemphasize", Origin: "the code before a reload"}
}
