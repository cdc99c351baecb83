package main

// This file holds the commands users bring from gdb and Delve (until,
// enable/disable, ignore, display, info, kill, print/FMT, bt full) and
// what they share.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"

	"github.com/nlangdbg/nlangdbg/inspect"
)

// display is an expression shown at every stop (gdb's display).
type display struct {
	id     int
	expr   string
	format string // "" or a print format letter
	fn     string // the function it was made in (where its names are)
}

// hitCounts asks the server for the breakpoints' hit and ignore counts,
// by server id.
func (r *repl) hitCounts() map[int][2]int {
	out := map[int][2]int{}
	body, err := r.c.callCustom(api.CmdBreakpoints, api.None{})
	if err != nil {
		return out
	}
	for _, b := range body.(api.BreakpointsBody).Breakpoints {
		out[b.ID] = [2]int{b.Hits, b.Ignore}
	}
	return out
}

// syncAll sends every breakpoint to the server again (after a restart).
func (r *repl) syncAll() {
	files := map[string]bool{}
	for _, b := range r.bps {
		if b.fn == "" {
			files[b.file] = true
		}
	}
	for f := range files {
		r.syncBreakpoints(f)
	}
	r.syncBreakpoints("")
}

// bpArgs reads breakpoint numbers ("" = all of them).
func (r *repl) bpArgs(args string) ([]*replBP, error) {
	if args == "" {
		return append([]*replBP(nil), r.bps...), nil
	}
	var out []*replBP
	for _, a := range strings.Fields(args) {
		n, err := strconv.Atoi(a)
		if err != nil {
			return nil, fmt.Errorf("%q is not a breakpoint number", a)
		}
		b := r.findBP(n)
		if b == nil {
			return nil, fmt.Errorf("no breakpoint %d", n)
		}
		out = append(out, b)
	}
	return out, nil
}

func enableCmd(on bool) func(r *repl, args string) error {
	return func(r *repl, args string) error {
		bs, err := r.bpArgs(args)
		if err != nil {
			return err
		}
		for _, b := range bs {
			b.disabled = !on
			if err := r.sync(b); err != nil {
				return err
			}
			word := "enabled"
			if !on {
				word = "disabled"
			}
			r.printf("Breakpoint %d %s.\n", b.id, word)
		}
		return nil
	}
}

func cmdIgnore(r *repl, args string) error {
	f := strings.Fields(args)
	if len(f) != 2 {
		return errors.New("usage: ignore N COUNT")
	}
	bs, err := r.bpArgs(f[0])
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 0 {
		return fmt.Errorf("ignore: %q is not a count (0 or more)", f[1])
	}
	b := bs[0]
	if b.disabled || b.serverID == 0 {
		return fmt.Errorf("breakpoint %d is disabled", b.id)
	}
	if _, err := r.c.callCustom(api.CmdIgnore, api.IgnoreArgs{ID: b.serverID, Count: n}); err != nil {
		return err
	}
	switch n {
	case 0:
		r.printf("Will stop next time breakpoint %d is reached.\n", b.id)
	case 1:
		r.printf("Will ignore next crossing of breakpoint %d.\n", b.id)
	default:
		r.printf("Will ignore next %d crossings of breakpoint %d.\n", n, b.id)
	}
	return nil
}

func cmdDisplay(r *repl, args string) error {
	format, expr, err := cutFormat(args)
	if err != nil {
		return err
	}
	if expr == "" {
		if len(r.displays) == 0 {
			r.printf("No display expressions.\n")
		}
		for _, d := range r.displays {
			r.printf("%d: %s\n", d.id, d.label())
		}
		return nil
	}
	r.nextDisplay++
	d := &display{id: r.nextDisplay, expr: expr, format: format}
	if f, err := r.currentFrame(); err == nil && r.stopped {
		d.fn = f.Name
	}
	r.displays = append(r.displays, d)
	if r.stopped && !r.exited {
		r.showDisplay(d)
	}
	return nil
}

func (d *display) label() string {
	if d.format != "" {
		return "/" + d.format + " " + d.expr
	}
	return d.expr
}

func cmdUndisplay(r *repl, args string) error {
	if args == "" {
		r.displays = nil
		r.printf("All display expressions deleted.\n")
		return nil
	}
	for _, a := range strings.Fields(args) {
		n, err := strconv.Atoi(a)
		if err != nil {
			return fmt.Errorf("%q is not a display number", a)
		}
		found := false
		for i, d := range r.displays {
			if d.id == n {
				r.displays = append(r.displays[:i], r.displays[i+1:]...)
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("no display %d", n)
		}
	}
	return nil
}

// showDisplays prints the display expressions at a stop. As in gdb, one
// that cannot be evaluated in another function than the one it was made
// in (its names are not there) is left out, rather than an error at
// every stop.
func (r *repl) showDisplays() {
	fn := ""
	if f, err := r.currentFrame(); err == nil {
		fn = f.Name
	}
	for _, d := range r.displays {
		r.showDisplayIn(d, fn)
	}
}

func (r *repl) showDisplay(d *display) { r.showDisplayIn(d, d.fn) }

func (r *repl) showDisplayIn(d *display, fn string) {
	v, err := r.evaluate(d.expr, "watch")
	switch {
	case err != nil && d.fn != "" && fn != d.fn:
		// out of its scope: not shown here
	case err != nil:
		r.printf("%d: %s = <%v>\n", d.id, d.label(), err)
	case d.format != "":
		s, err := formatValue(d.format, v)
		if err != nil {
			s = "<" + err.Error() + ">"
		}
		r.printf("%d: %s = %s\n", d.id, d.label(), s)
	default:
		r.printf("%d: %s = %s\n", d.id, d.label(), v)
	}
}

// evaluate evaluates expr in the selected frame and returns its value.
func (r *repl) evaluate(expr, context string) (string, error) {
	resp, err := r.c.call(&dap.EvaluateRequest{Request: request("evaluate"),
		Arguments: dap.EvaluateArguments{Expression: expr, Context: context, FrameId: r.frameID()}})
	if err != nil {
		return "", err
	}
	return resp.(*api.EvaluateResponse).Body.Result, nil
}

// printFormats are the print/FMT letters.
const printFormats = "x (hex), o (octal), t or b (binary), d (decimal), c (character)"

// cutFormat splits "/x EXPR" into the format letter and the expression.
func cutFormat(args string) (string, string, error) {
	if !strings.HasPrefix(args, "/") {
		return "", args, nil
	}
	f, rest, _ := strings.Cut(args[1:], " ")
	if len(f) != 1 || !strings.Contains("xotbdc", f) {
		return "", "", fmt.Errorf("unknown format /%s (want %s)", f, printFormats)
	}
	return f, strings.TrimSpace(rest), nil
}

// printFormatted prints an integer value (or the integer elements of an
// array or list) in format f.
func (r *repl) printFormatted(f, expr string) error {
	resp, err := r.c.call(&dap.EvaluateRequest{Request: request("evaluate"),
		Arguments: dap.EvaluateArguments{Expression: expr, Context: "repl", FrameId: r.frameID()}})
	if err != nil {
		return err
	}
	body := resp.(*api.EvaluateResponse).Body
	if body.VariablesReference == 0 {
		s, err := formatValue(f, body.Result)
		if err != nil {
			return err
		}
		r.printf("%s\n", s)
		return nil
	}
	vars, err := r.variables(body.VariablesReference)
	if err != nil {
		return err
	}
	var parts []string
	for _, v := range vars {
		s, err := formatValue(f, v.Value)
		if err != nil {
			s = v.Value
		}
		parts = append(parts, v.Name+" = "+s)
	}
	r.printf("%s {%s}\n", body.Result, strings.Join(parts, ", "))
	return nil
}

// formatValue renders an integer value (as the server shows it) in
// format f.
func formatValue(f, value string) (string, error) {
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		if len(value) >= 3 && value[0] == '\'' { // a char: 'a'
			if rs := []rune(value[1 : len(value)-1]); len(rs) == 1 {
				n, err = int64(rs[0]), nil
			}
		}
		if err != nil {
			return "", fmt.Errorf("/%s formats integers, not %s", f, value)
		}
	}
	switch f {
	case "x":
		if n < 0 {
			return "-0x" + strconv.FormatInt(-n, 16), nil
		}
		return "0x" + strconv.FormatInt(n, 16), nil
	case "o":
		if n < 0 {
			return "-0" + strconv.FormatInt(-n, 8), nil
		}
		return "0" + strconv.FormatInt(n, 8), nil
	case "t", "b":
		return strconv.FormatInt(n, 2), nil
	case "c":
		return strconv.Itoa(int(n)) + " " + strconv.QuoteRune(rune(n)), nil
	}
	return strconv.FormatInt(n, 10), nil
}

// frameVars prints the arguments and locals of a frame (bt full).
func (r *repl) frameVars(frameID int, indent string) {
	resp, err := r.c.call(&dap.ScopesRequest{Request: request("scopes"), Arguments: dap.ScopesArguments{FrameId: frameID}})
	if err != nil {
		r.printf("%s<%v>\n", indent, err)
		return
	}
	n := 0
	for _, sc := range resp.(*dap.ScopesResponse).Body.Scopes {
		if sc.Name == "this" {
			continue
		}
		vars, err := r.variables(sc.VariablesReference)
		if err != nil {
			continue
		}
		for _, v := range vars {
			r.printf("%s%s %s = %s\n", indent, v.Type, v.Name, v.Value)
			n++
		}
	}
	if n == 0 {
		r.printf("%s(no variables)\n", indent)
	}
}

// infoCmds are the subjects of `info`.
var infoCmds = []string{"breakpoints", "threads", "frame", "locals", "args", "display"}

func cmdInfo(r *repl, args string) error {
	what, rest, _ := strings.Cut(args, " ")
	var match []string
	for _, c := range infoCmds {
		if what != "" && strings.HasPrefix(c, what) {
			match = append(match, c)
		}
	}
	if len(match) != 1 {
		return fmt.Errorf("usage: info %s", strings.Join(infoCmds, "|"))
	}
	switch match[0] {
	case "breakpoints":
		return cmdBreakpoints(r, rest)
	case "threads":
		return cmdThreads(r, rest)
	case "locals":
		return scopeCmd("Locals")(r, rest)
	case "args":
		return scopeCmd("Arguments")(r, rest)
	case "display":
		return cmdDisplay(r, "")
	}
	// info frame: the selected frame, its caller and its variables
	f, err := r.currentFrame()
	if err != nil {
		return err
	}
	r.printf("Frame %d of thread %d %q: %s (%s:%d)\n", r.frame, r.thread, r.threadName(r.thread), f.Name, r.frameFile(f), f.Line)
	if callers, err := r.stack(r.thread, r.frame+1, 1); err == nil && len(callers) > 0 {
		c := callers[0]
		r.printf("  called by frame %d: %s (%s:%d)\n", r.frame+1, c.Name, r.frameFile(c), c.Line)
	} else {
		r.printf("  the outermost frame of the thread\n")
	}
	r.frameVars(f.Id, "  ")
	return nil
}

// cmdUntil runs to a line past the current one in the selected frame
// (leaving loops), or to LOCATION.
func cmdUntil(r *repl, args string) error {
	if r.exited {
		return errors.New("the program is not running (restart it)")
	}
	if args != "" {
		return r.runTo(args)
	}
	start, err := r.currentFrame()
	if err != nil {
		return err
	}
	depth := r.depth()
	pc := framePC(start)
	r.quiet = true
	defer func() { r.quiet = false }()
	for i := 0; i < 100000; i++ {
		if err := r.resume(&dap.NextRequest{Request: request("next"), Arguments: dap.NextArguments{ThreadId: r.thread}}); err != nil {
			return err
		}
		if r.exited {
			return nil
		}
		f, err := r.currentFrame()
		if err != nil {
			return err
		}
		// another stop (a breakpoint), a return, or code further on in
		// this function (not the start of the loop again)
		if r.lastStop == nil || r.lastStop.Body.Reason != "step" || r.depth() != depth || f.Name != start.Name ||
			framePC(f) > pc && f.Line != start.Line {
			break
		}
	}
	r.quiet = false
	if r.lastStop != nil {
		r.showStop(r.lastStop)
	}
	return nil
}

// framePC returns the bytecode pc of a frame (-1 if the server does not
// say): the low bits of its instruction address (inspect.AddrShift).
func framePC(f dap.StackFrame) int {
	n, err := strconv.ParseUint(strings.TrimPrefix(f.InstructionPointerReference, "0x"), 16, 64)
	if err != nil {
		return -1
	}
	return int(n & (1<<inspect.AddrShift - 1))
}

// depth returns the number of frames of the selected thread.
func (r *repl) depth() int {
	resp, err := r.c.call(&dap.StackTraceRequest{Request: request("stackTrace"),
		Arguments: dap.StackTraceArguments{ThreadId: r.thread, Levels: 1}})
	if err != nil {
		return 0
	}
	return resp.(*dap.StackTraceResponse).Body.TotalFrames
}

// runTo continues to LOCATION through a breakpoint of its own (any other
// stop comes first, as with continue).
func (r *repl) runTo(loc string) error {
	b, err := r.parseLocation(loc)
	if err != nil {
		return err
	}
	b.temp, b.hidden = true, true
	r.bps = append(r.bps, b)
	defer r.dropBP(b)
	if err := r.sync(b); err != nil {
		return err
	}
	if !b.verified {
		return fmt.Errorf("cannot run to %s: %s", b.where(r), b.msg)
	}
	return cmdContinue(r, "")
}

// dropBP removes b (if still there) and tells the server.
func (r *repl) dropBP(b *replBP) {
	for i, x := range r.bps {
		if x == b {
			r.bps = append(r.bps[:i], r.bps[i+1:]...)
			r.sync(b)
			return
		}
	}
}

func cmdKill(r *repl, args string) error {
	if r.exited {
		return errNotRunning
	}
	if _, err := r.c.call(&dap.TerminateRequest{Request: request("terminate")}); err != nil {
		return err
	}
	saved := r.out
	r.out = discard{}
	r.waitStop()
	// the exit comes with a terminated event: take it now
	timeout := time.After(waitTimeout)
wait:
	for {
		select {
		case m, ok := <-r.c.Events:
			if _, end := m.(*dap.TerminatedEvent); end || !ok {
				break wait
			}
			r.event(m)
		case <-timeout:
			break wait
		}
	}
	r.out = saved
	r.printf("Program killed.\n")
	return nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
