package main

import (
	"errors"
	"fmt"
	"strings"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
)

// Watchpoints: the REPL's data breakpoints (DAP dataBreakpointInfo and
// setDataBreakpoints). They share the breakpoints' numbering, are listed
// and cleared with them, and belong to one run of the program (restart
// drops them, as the server does).

// replWatch is one watchpoint.
type replWatch struct {
	id       int
	expr     string // as the user wrote it: "p.x", "a[2]", "i"
	dataID   string
	read     bool // stops at reads too
	serverID int
	verified bool
	msg      string
}

func cmdWatch(r *repl, args string) error {
	args = strings.TrimSpace(args)
	read := false
	if rest, ok := strings.CutPrefix(args, "-r "); ok {
		read, args = true, strings.TrimSpace(rest)
	}
	if args == "" {
		return errors.New("usage: watch [-r] LOCAL | EXPR.FIELD | EXPR[INDEX]")
	}
	if !r.stopped {
		return errors.New("watch: the program must be stopped (the location is found from the selected frame)")
	}
	ref, name, err := r.watchParent(args)
	if err != nil {
		return err
	}
	resp, err := r.c.call(&dap.DataBreakpointInfoRequest{Request: request("dataBreakpointInfo"),
		Arguments: dap.DataBreakpointInfoArguments{VariablesReference: ref, Name: name, FrameId: r.frameID()}})
	if err != nil {
		return err
	}
	info := resp.(*dap.DataBreakpointInfoResponse).Body
	id, _ := info.DataId.(string)
	if id == "" {
		return fmt.Errorf("watch %s: %s", args, info.Description)
	}
	r.nextBP++
	w := &replWatch{id: r.nextBP, expr: args, dataID: id, read: read}
	r.watches = append(r.watches, w)
	if err := r.syncWatches(); err != nil {
		return err
	}
	if !w.verified {
		r.watches = r.watches[:len(r.watches)-1]
		return fmt.Errorf("watch %s: %s", args, w.msg)
	}
	r.printf("Watchpoint %d: %s%s\n", w.id, w.expr, w.kind())
	return nil
}

// kind says what the watchpoint stops at.
func (w *replWatch) kind() string {
	if w.read {
		return " (read or written)"
	}
	return " (written)"
}

// watchParent splits a watched location into the variables reference of
// its parent and its name there: a local of the selected frame, a field
// (EXPR.NAME) or an element (EXPR[INDEX]) of the value of EXPR.
func (r *repl) watchParent(expr string) (int, string, error) {
	var parent, name string
	switch {
	case strings.HasSuffix(expr, "]"):
		i := strings.LastIndex(expr, "[")
		if i <= 0 {
			return 0, "", fmt.Errorf("watch %s: want LOCAL, EXPR.FIELD or EXPR[INDEX]", expr)
		}
		parent, name = expr[:i], strings.ReplaceAll(expr[i:], " ", "")
	case strings.Contains(expr, "."):
		i := strings.LastIndex(expr, ".")
		parent, name = expr[:i], strings.TrimSpace(expr[i+1:])
	default:
		// a local (or argument) of the selected frame, or a field of this
		// named bare as print takes it
		frame := r.frameID()
		resp, err := r.c.call(&dap.ScopesRequest{Request: request("scopes"), Arguments: dap.ScopesArguments{FrameId: frame}})
		if err != nil {
			return 0, "", err
		}
		locals, this := 0, 0
		for _, sc := range resp.(*dap.ScopesResponse).Body.Scopes {
			switch sc.Name {
			case "Locals":
				locals = sc.VariablesReference
			case "this":
				this = sc.VariablesReference
			}
		}
		for _, ref := range []int{locals, this} {
			if ref == 0 {
				continue
			}
			vars, err := r.variables(ref)
			if err != nil {
				return 0, "", err
			}
			for _, v := range vars {
				if v.Name == expr {
					return ref, expr, nil
				}
			}
		}
		if locals == 0 {
			return 0, "", errors.New("watch: the selected frame has no locals")
		}
		return locals, expr, nil // (the server says why it cannot be watched)
	}
	resp, err := r.c.call(&dap.EvaluateRequest{Request: request("evaluate"),
		Arguments: dap.EvaluateArguments{Expression: strings.TrimSpace(parent), Context: "watch", FrameId: r.frameID()}})
	if err != nil {
		return 0, "", err
	}
	ev := resp.(*api.EvaluateResponse).Body
	if ev.VariablesReference == 0 {
		return 0, "", fmt.Errorf("watch %s: %s is %s, which has no fields or elements", expr, parent, ev.Result)
	}
	return ev.VariablesReference, name, nil
}

// syncWatches sets the server's data breakpoints to the watchpoints.
func (r *repl) syncWatches() error {
	bps := make([]dap.DataBreakpoint, len(r.watches))
	for i, w := range r.watches {
		bps[i] = dap.DataBreakpoint{DataId: w.dataID, AccessType: "write"}
		if w.read {
			bps[i].AccessType = "readWrite"
		}
	}
	resp, err := r.c.call(&dap.SetDataBreakpointsRequest{Request: request("setDataBreakpoints"),
		Arguments: dap.SetDataBreakpointsArguments{Breakpoints: bps}})
	if err != nil {
		return err
	}
	got := resp.(*dap.SetDataBreakpointsResponse).Body.Breakpoints
	for i, w := range r.watches {
		if i < len(got) {
			w.serverID, w.verified, w.msg = got[i].Id, got[i].Verified, got[i].Message
		}
	}
	return nil
}

// removeWatch deletes watchpoint id, and reports whether there was one.
func (r *repl) removeWatch(id int) bool {
	for i, w := range r.watches {
		if w.id == id {
			r.watches = append(r.watches[:i], r.watches[i+1:]...)
			r.syncWatches()
			return true
		}
	}
	return false
}

// listWatches prints the watchpoints as breakpoints lists them.
func (r *repl) listWatches() {
	for _, w := range r.watches {
		r.printf("%3d  watch %s%s\n", w.id, w.expr, w.kind())
	}
}

// localWatchIDs maps server ids of data breakpoints to watchpoint ids.
func (r *repl) localWatchIDs(ids []int) []string {
	var out []string
	for _, id := range ids {
		for _, w := range r.watches {
			if w.serverID == id {
				out = append(out, fmt.Sprint(w.id))
			}
		}
	}
	return out
}
