package dap

import (
	"encoding/json"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/inspect"
)

// Non-stop debugging (DAP 1.65 breakpoint modes): a breakpoint, an
// exception filter or a watchpoint in mode "thread" stops only the thread
// that reaches it, with a stopped event whose allThreadsStopped is false;
// the other threads run on. continue, next, stepIn and stepOut of such a
// thread resume it alone (allThreadsContinued false), pause with a
// threadId pauses that thread alone in a session launched with
// "nonStop": true (where "thread" is the mode of what names none), and
// the requests that read or change a held thread (stackTrace, scopes,
// variables, evaluate, setVariable, setExpression, …) run between two
// dispatches of the others (inspect.Session.Still). go-dap v0.12 knows
// neither the capability nor the breakpoints' mode: the capability is
// a field of capabilities171, and each breakpoint's mode is read from
// the request as it came (session.raw).

// breakpointMode is DAP's BreakpointMode.
type breakpointMode struct {
	Mode        string   `json:"mode"`
	Label       string   `json:"label"`
	Description string   `json:"description,omitempty"`
	AppliesTo   []string `json:"appliesTo"`
}

// modeAppliesTo lists the kinds of breakpoints the modes apply to (DAP's
// BreakpointModeApplicability, with "function" for function breakpoints).
var modeAppliesTo = []string{"source", "function", "exception", "data", "instruction"}

// breakpointModes are the modes the initialize response offers, the
// default ("all") first.
func breakpointModes() []breakpointMode {
	var out []breakpointMode
	for _, m := range inspect.BreakpointModes {
		out = append(out, breakpointMode{Mode: m.Mode, Label: m.Label, Description: m.Description, AppliesTo: modeAppliesTo})
	}
	return out
}

// rawModes returns the mode of each entry of the list field of the
// request being handled ("breakpoints", "filterOptions"): "" where none
// is given.
func (c *session) rawModes(field string) []string {
	var req struct {
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(c.raw, &req) != nil {
		return nil
	}
	var list []struct {
		Mode string `json:"mode"`
	}
	if json.Unmarshal(req.Arguments[field], &list) != nil {
		return nil
	}
	out := make([]string, len(list))
	for i, e := range list {
		out[i] = e.Mode
	}
	return out
}

// modeAt returns modes[i], or "" past its end.
func modeAt(modes []string, i int) string {
	if i < len(modes) {
		return modes[i]
	}
	return ""
}

// stillRequest runs a request that reads or changes the program's state
// between two dispatches while threads run (non-stop): see
// inspect.Session.Still.
func (c *session) stillRequest(f func()) {
	if c.prog == nil {
		f()
		return
	}
	c.prog.Still(f)
}

// resumedThread forgets what the frame ids of thread tid meant: it was
// resumed alone (non-stop); the other threads' ids stay valid.
func (c *session) resumedThread(tid int64) {
	c.frames.drop(func(f frameRef) bool { return f.thread == tid })
}

func init() {
	custom(api.CmdNonStop, func(c *session, a api.NonStopArgs) (any, error) {
		if a.On != nil {
			c.prog.SetNonStop(*a.On)
		}
		return api.NonStopBody{On: c.prog.NonStop(), Held: c.prog.HeldThreads()}, nil
	})
}
