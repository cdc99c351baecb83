package dap

import (
	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/inspect"
)

// errDataBreakpoint is the error id of the data breakpoint requests.
const errDataBreakpoint = 1070

// onDataBreakpointInfoRequest says whether a variable can be watched: a
// child (name) of a variables reference, or, with no reference, a local
// or parameter (name) of frameId.
func (c *session) onDataBreakpointInfoRequest(req *dap.DataBreakpointInfoRequest) {
	if !c.haveProgram(req) {
		return
	}
	a := req.Arguments
	ref := a.VariablesReference
	if ref == 0 {
		f, err := c.frame(a.FrameId)
		if err != nil {
			c.sendError(req, errDataBreakpoint, "dataBreakpointInfo: "+err.Error())
			return
		}
		scopes, err := c.prog.Scopes(f.thread, f.depth)
		if err != nil {
			c.sendError(req, errID(err, errDataBreakpoint), "dataBreakpointInfo: "+err.Error())
			return
		}
		for _, sc := range scopes {
			vars, err := c.prog.Variables(sc.Ref, 0, 0)
			if err != nil {
				continue
			}
			for _, v := range vars {
				if v.Name == a.Name && ref == 0 && sc.Name != "this" {
					ref = sc.Ref
				}
			}
		}
		if ref == 0 {
			c.respond(&dap.DataBreakpointInfoResponse{Response: newResponse(req),
				Body: dap.DataBreakpointInfoResponseBody{Description: a.Name + " is not a local of the frame"}})
			return
		}
	}
	info, err := c.prog.DataBreakpointInfo(ref, a.Name)
	if err != nil {
		c.sendError(req, errID(err, errDataBreakpoint), "dataBreakpointInfo: "+err.Error())
		return
	}
	body := dap.DataBreakpointInfoResponseBody{Description: info.Description}
	if info.DataID != "" {
		body.DataId = info.DataID
		for _, t := range info.AccessTypes {
			body.AccessTypes = append(body.AccessTypes, dap.DataBreakpointAccessType(t))
		}
	}
	c.respond(&dap.DataBreakpointInfoResponse{Response: newResponse(req), Body: body})
}

// onSetDataBreakpointsRequest replaces the data breakpoints.
func (c *session) onSetDataBreakpointsRequest(req *dap.SetDataBreakpointsRequest) {
	bps := req.Arguments.Breakpoints
	out := make([]dap.Breakpoint, 0, len(bps))
	if c.prog == nil {
		for range bps {
			out = append(out, dap.Breakpoint{Verified: false, Message: "no program: data breakpoints are set on a running program's variables"})
		}
		c.respondBreakpoints(req, out, true)
		return
	}
	var specs []inspect.DataBreakpointSpec
	modes := c.rawModes("breakpoints")
	for i, b := range bps {
		specs = append(specs, inspect.DataBreakpointSpec{DataID: b.DataId, AccessType: string(b.AccessType),
			Condition: b.Condition, HitCondition: b.HitCondition, Mode: modeAt(modes, i)})
	}
	for _, b := range c.prog.SetDataBreakpoints(specs) {
		d := c.breakpoint(b, nil)
		out = append(out, d)
	}
	c.respondBreakpoints(req, out, false)
}
