package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-dap"
)

// replCmd is one REPL command. The table drives Exec, help and
// completion.
type replCmd struct {
	name    string
	aliases []string
	usage   string
	help    string
	// complete says what the arguments complete to: "location", "thread",
	// "sched", "" (nothing).
	complete string
	repeat   bool // an empty line repeats it
	fn       func(r *repl, args string) error
}

var replCmds []*replCmd

func init() {
	replCmds = []*replCmd{
		{name: "help", aliases: []string{"h"}, usage: "[COMMAND]", help: "List the commands, or explain one.", fn: cmdHelp},
		{name: "break", aliases: []string{"b"}, usage: "LOCATION [if COND] [hits N] | safepoint [THREAD] | sched spawn|park|wake|exit|deadlock",
			help:     "Set a breakpoint. LOCATION is file:line, line (in the current file), func or Class.method.\n`if COND` stops only when the NLang expression COND is true; `hits N` from the Nth hit on\n(or ==N, %N, >N). `break safepoint` stops a thread at its next function entry or loop\nback-edge; `break sched KIND` stops at the next scheduler event of that kind.",
			complete: "location", fn: cmdBreak},
		{name: "tbreak", usage: "LOCATION [if COND]", help: "Set a temporary breakpoint, cleared when first hit.", complete: "location", fn: cmdTbreak},
		{name: "breakpoints", aliases: []string{"bp"}, help: "List the breakpoints.", fn: cmdBreakpoints},
		{name: "clear", usage: "N | all | sched KIND", help: "Delete breakpoint N, all breakpoints, or a scheduler-event stop.", fn: cmdClear},
		{name: "condition", aliases: []string{"cond"}, usage: "N [COND]", help: "Set (or remove) the condition of breakpoint N.", fn: cmdCondition},
		{name: "continue", aliases: []string{"c"}, usage: "[-single]", help: "Resume the program until the next stop (-single: only the selected thread runs).", repeat: true, fn: cmdContinue},
		{name: "next", aliases: []string{"n"}, usage: "[-single]", help: "Step over: run the selected thread to its next line.", repeat: true, fn: stepCmd("next")},
		{name: "step", aliases: []string{"s"}, usage: "[-single]", help: "Step into a call on the current line.", repeat: true, fn: stepCmd("stepIn")},
		{name: "stepout", aliases: []string{"so"}, usage: "[-single]", help: "Run until the selected frame returns.", repeat: true, fn: stepCmd("stepOut")},
		{name: "pause", help: "Stop the running program (Ctrl-C does the same).", fn: cmdPause},
		{name: "threads", usage: "[-state S] [-func F] [-group func|wait]", help: "List the virtual threads: id, name, state or wait reason, location.\nFilter by state (runnable, waiting, frozen, or a wait reason such as \"chan recv\") and\nfunction; -group counts threads by function or wait reason.", fn: cmdThreads},
		{name: "thread", aliases: []string{"t"}, usage: "N", help: "Select thread N.", complete: "thread", fn: cmdThread},
		{name: "bt", aliases: []string{"stack"}, usage: "[DEPTH]", help: "Print the selected thread's stack (DEPTH frames; default 50).", fn: cmdBt},
		{name: "frame", usage: "N", help: "Select frame N of the selected thread.", fn: cmdFrame},
		{name: "up", usage: "[N]", help: "Select the caller's frame.", repeat: true, fn: cmdUp},
		{name: "down", usage: "[N]", help: "Select the callee's frame.", repeat: true, fn: cmdDown},
		{name: "locals", help: "Print the selected frame's local variables.", fn: scopeCmd("Locals")},
		{name: "args", help: "Print the selected frame's arguments.", fn: scopeCmd("Arguments")},
		{name: "print", aliases: []string{"p"}, usage: "EXPR", help: "Evaluate an NLang expression in the selected frame.", fn: cmdPrint},
		{name: "set", usage: "LHS = EXPR", help: "Assign to a local, a field (obj.f) or an element (a[i]).", fn: cmdSet},
		{name: "list", aliases: []string{"l"}, usage: "[LOCATION]", help: "Show source around the current line (or LOCATION), with => at the current line and ● at breakpoints.", complete: "location", repeat: true, fn: cmdList},
		{name: "disasm", usage: "[FUNC]", help: "Show the bytecode of the selected frame's function (or FUNC), => at the pc.", complete: "location", fn: metaCmd("disasm")},
		{name: "sched", usage: "[step | next THREAD | quota N]", help: "Show the scheduler: carriers, run queue, parked threads and what they wait on, timers.\n`sched step` dispatches exactly one quantum and reports which thread ran, how many\nreductions and why it stopped; `sched next THREAD` picks the next dispatch;\n`sched quota N` sets the reductions per dispatch.", complete: "sched", repeat: true, fn: metaCmd("sched")},
		{name: "freeze", usage: "THREAD", help: "Keep THREAD off the run queue while the others run.", complete: "thread", fn: metaCmd("freeze")},
		{name: "thaw", usage: "THREAD", help: "Let a frozen thread run again.", complete: "thread", fn: metaCmd("thaw")},
		// Going back (repl_reverse.go): one carrier, the session records.
		{name: "rewind", aliases: []string{"rw"}, help: "Go back to the previous breakpoint hit (or the start of the recording).", fn: cmdRewind},
		{name: "rev", usage: "next | step | stepout | continue", help: "Go back: to the previous line (next), the previous statement wherever it was (step), the\ncall of the current function (stepout), or the previous breakpoint hit (continue). Output\nalready shown is not shown again; going forward re-executes the recording.", fn: cmdRev},
		{name: "checkpoint", aliases: []string{"check"}, usage: "[NOTE]", help: "Name the present moment, to come back to it with restart N.", fn: printMeta("checkpoint")},
		{name: "checkpoints", help: "List the checkpoints and the size of the recording.", fn: printMeta("checkpoints")},
		{name: "when", help: "Where the session is in its recording: thread, reductions, position, past or frontier.", fn: printMeta("when")},
		{name: "dump", usage: "FILE", help: "Write the present to FILE (the recording so far and this moment): nlangdbg debug --core FILE opens it here.", fn: printMeta("dump")},
		{name: "restart", aliases: []string{"r"}, usage: "[CHECKPOINT]", help: "Restart the program (breakpoints are kept), or go to checkpoint CHECKPOINT.", fn: cmdRestart},
		{name: "detach", help: "Detach from an attached program and leave it running.", fn: cmdDetach},
		{name: "quit", aliases: []string{"q", "exit"}, help: "Quit (an attached program is killed only if you confirm).", fn: cmdQuit},
	}
}

func lookupCmd(name string) *replCmd {
	for _, c := range replCmds {
		if c.name == name {
			return c
		}
		for _, a := range c.aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

func cmdHelp(r *repl, args string) error {
	if args != "" {
		c := lookupCmd(args)
		if c == nil {
			return fmt.Errorf("no command %q", args)
		}
		names := c.name
		if len(c.aliases) > 0 {
			names += " (" + strings.Join(c.aliases, ", ") + ")"
		}
		r.printf("%s %s\n%s\n", names, c.usage, c.help)
		return nil
	}
	r.printf("Commands:\n")
	for _, c := range replCmds {
		names := c.name
		if len(c.aliases) > 0 {
			names += ", " + strings.Join(c.aliases, ", ")
		}
		r.printf("  %-18s %s\n", names, firstLine(c.help))
	}
	r.printf("An empty line repeats the last command; Ctrl-C pauses a running program; Ctrl-D quits.\n")
	return nil
}

// parseLocation turns file:line, line, func or Class.method into a
// breakpoint (file or fn set).
func (r *repl) parseLocation(loc string) (*replBP, error) {
	if loc == "" {
		return nil, errors.New("missing location (file:line, line, func or Class.method)")
	}
	if n, err := strconv.Atoi(loc); err == nil {
		if r.file == "" {
			return nil, errors.New("no current file: write file:line")
		}
		return &replBP{file: r.file, line: n}, nil
	}
	if i := strings.LastIndexByte(loc, ':'); i > 0 {
		n, err := strconv.Atoi(loc[i+1:])
		if err != nil {
			return nil, fmt.Errorf("bad line number in %q", loc)
		}
		return &replBP{file: r.resolveFile(loc[:i]), line: n}, nil
	}
	return &replBP{fn: loc}, nil
}

// resolveFile finds a source file by path or base name.
func (r *repl) resolveFile(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	if _, err := os.Stat(name); err == nil {
		abs, _ := filepath.Abs(name)
		return abs
	}
	for _, dir := range []string{filepath.Dir(r.file), filepath.Dir(r.program)} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return name
}

func (r *repl) addBreak(args string, temp bool) error {
	fields := strings.Fields(args)
	if len(fields) >= 1 && (fields[0] == "safepoint" || fields[0] == "sched") && !temp {
		out, err := r.meta("break " + args)
		if err != nil {
			return err
		}
		r.printf("%s\n", out)
		return nil
	}
	loc, rest, _ := strings.Cut(args, " ")
	b, err := r.parseLocation(loc)
	if err != nil {
		return err
	}
	rest = strings.TrimSpace(rest)
	if m := hitsRE.FindStringSubmatchIndex(rest); m != nil {
		b.hits = rest[m[2]:m[3]]
		rest = strings.TrimSpace(rest[:m[0]] + rest[m[1]:])
		if _, err := strconv.Atoi(b.hits); err == nil {
			b.hits = ">=" + b.hits
		}
	}
	if c, ok := strings.CutPrefix(rest, "if "); ok {
		b.cond = strings.TrimSpace(c)
	} else if rest != "" {
		return fmt.Errorf("unexpected %q (want `if COND` or `hits N`)", rest)
	}
	b.temp = temp
	r.nextBP++
	b.id = r.nextBP
	r.bps = append(r.bps, b)
	if b.fn != "" {
		err = r.syncBreakpoints("")
	} else {
		err = r.syncBreakpoints(b.file)
	}
	if err != nil {
		return err
	}
	if !b.verified {
		r.printf("Breakpoint %d at %s (not verified: %s)\n", b.id, b.where(), b.msg)
		return nil
	}
	kind := "Breakpoint"
	if temp {
		kind = "Temporary breakpoint"
	}
	r.printf("%s %d at %s", kind, b.id, b.where())
	if b.fn == "" && b.actual != b.line {
		r.printf(" (moved from line %d)", b.line)
	}
	r.printf("\n")
	return nil
}

// hitsRE finds `hits N` in a break command.
var hitsRE = regexp.MustCompile(`(?:^|\s)hits\s+(\S+)`)

func cmdBreak(r *repl, args string) error  { return r.addBreak(args, false) }
func cmdTbreak(r *repl, args string) error { return r.addBreak(args, true) }

func cmdBreakpoints(r *repl, args string) error {
	if len(r.bps) == 0 {
		r.printf("No breakpoints.\n")
	}
	for _, b := range r.bps {
		state := ""
		if !b.verified {
			state = " (not verified: " + b.msg + ")"
		}
		extra := ""
		if b.cond != "" {
			extra += " if " + b.cond
		}
		if b.hits != "" {
			extra += " hits " + b.hits
		}
		if b.temp {
			extra += " (temporary)"
		}
		r.printf("%3d  %s%s%s\n", b.id, b.where(), extra, state)
	}
	out, err := r.meta("sched breaks")
	if err == nil && out != "" {
		r.printf("%s\n", out)
	}
	return nil
}

func cmdClear(r *repl, args string) error {
	switch {
	case args == "all":
		files := map[string]bool{}
		for _, b := range r.bps {
			files[b.file] = true
		}
		r.bps = nil
		for f := range files {
			if f != "" {
				r.syncBreakpoints(f)
			}
		}
		r.syncBreakpoints("")
		r.printf("All breakpoints cleared.\n")
		return nil
	case strings.HasPrefix(args, "sched "):
		out, err := r.meta("clear " + args)
		if err == nil {
			r.printf("%s\n", out)
		}
		return err
	}
	n, err := strconv.Atoi(args)
	if err != nil {
		return errors.New("usage: clear N | all | sched KIND")
	}
	if !r.removeBP(n) {
		return fmt.Errorf("no breakpoint %d", n)
	}
	r.printf("Breakpoint %d cleared.\n", n)
	return nil
}

func cmdCondition(r *repl, args string) error {
	idText, cond, _ := strings.Cut(args, " ")
	n, err := strconv.Atoi(idText)
	if err != nil {
		return errors.New("usage: condition N [COND]")
	}
	for _, b := range r.bps {
		if b.id == n {
			b.cond = strings.TrimSpace(cond)
			if b.fn != "" {
				err = r.syncBreakpoints("")
			} else {
				err = r.syncBreakpoints(b.file)
			}
			if err == nil {
				if b.cond == "" {
					r.printf("Breakpoint %d is now unconditional.\n", n)
				} else {
					r.printf("Breakpoint %d: stop if %s\n", n, b.cond)
				}
			}
			return err
		}
	}
	return fmt.Errorf("no breakpoint %d", n)
}

func single(args string) bool { return strings.TrimSpace(args) == "-single" }

func cmdContinue(r *repl, args string) error {
	return r.resume(&dap.ContinueRequest{Request: request("continue"),
		Arguments: dap.ContinueArguments{ThreadId: max(r.thread, 1), SingleThread: single(args)}})
}

func stepCmd(kind string) func(r *repl, args string) error {
	return func(r *repl, args string) error {
		if r.frame != 0 && kind == "stepOut" {
			// step out of the selected frame: out of every frame above it
			for i := 0; i < r.frame; i++ {
				if err := r.resume(&dap.StepOutRequest{Request: request("stepOut"),
					Arguments: dap.StepOutArguments{ThreadId: r.thread, SingleThread: single(args)}}); err != nil {
					return err
				}
			}
		}
		t := max(r.thread, 1)
		switch kind {
		case "next":
			return r.resume(&dap.NextRequest{Request: request("next"), Arguments: dap.NextArguments{ThreadId: t, SingleThread: single(args)}})
		case "stepIn":
			return r.resume(&dap.StepInRequest{Request: request("stepIn"), Arguments: dap.StepInArguments{ThreadId: t, SingleThread: single(args)}})
		}
		return r.resume(&dap.StepOutRequest{Request: request("stepOut"), Arguments: dap.StepOutArguments{ThreadId: t, SingleThread: single(args)}})
	}
}

func cmdPause(r *repl, args string) error {
	if r.stopped {
		return errors.New("the program is already stopped")
	}
	_, err := r.c.call(&dap.PauseRequest{Request: request("pause"), Arguments: dap.PauseArguments{ThreadId: max(r.thread, 1)}})
	if err != nil {
		return err
	}
	return r.waitStop()
}

func cmdThreads(r *repl, args string) error {
	out, err := r.meta(strings.TrimSpace("threads " + args))
	if err != nil {
		return err
	}
	r.printf("%s\n", out)
	return nil
}

func cmdThread(r *repl, args string) error {
	n, err := strconv.Atoi(strings.TrimPrefix(args, "#"))
	if err != nil {
		return errors.New("usage: thread N")
	}
	ths, err := r.threads()
	if err != nil {
		return err
	}
	for _, t := range ths {
		if t.Id == n {
			r.thread, r.frame = n, 0
			f, err := r.currentFrame()
			if err != nil {
				return err
			}
			r.printf("Thread %d %q at %s (%s:%d)\n", n, threadShortName(t.Name), f.Name, sourceBase(f), f.Line)
			r.setLocation(f)
			return nil
		}
	}
	return fmt.Errorf("no thread %d", n)
}

func sourceBase(f dap.StackFrame) string {
	if f.Source == nil {
		return "?"
	}
	return filepath.Base(f.Source.Path)
}

func (r *repl) setLocation(f dap.StackFrame) {
	if f.Source != nil {
		r.file = f.Source.Path
	}
	r.line = f.Line
}

func cmdBt(r *repl, args string) error {
	depth := 50
	if args != "" {
		n, err := strconv.Atoi(args)
		if err != nil || n < 1 {
			return errors.New("usage: bt [DEPTH]")
		}
		depth = n
	}
	resp, err := r.c.call(&dap.StackTraceRequest{Request: request("stackTrace"),
		Arguments: dap.StackTraceArguments{ThreadId: max(r.thread, 1), Levels: depth}})
	if err != nil {
		return err
	}
	body := resp.(*dap.StackTraceResponse).Body
	for i, f := range body.StackFrames {
		mark := " "
		if i == r.frame {
			mark = "*"
		}
		r.printf("%s %3d  %s (%s:%d)\n", mark, i, f.Name, sourceBase(f), f.Line)
	}
	if body.TotalFrames > len(body.StackFrames) {
		r.printf("      … %d more frames (bt %d)\n", body.TotalFrames-len(body.StackFrames), body.TotalFrames)
	}
	return nil
}

func (r *repl) selectFrame(n int) error {
	fs, err := r.stack(max(r.thread, 1), n, 1)
	if err != nil {
		return err
	}
	if len(fs) == 0 || n < 0 {
		return fmt.Errorf("no frame %d", n)
	}
	r.frame = n
	r.printf("Frame %d: %s (%s:%d)\n", n, fs[0].Name, sourceBase(fs[0]), fs[0].Line)
	r.setLocation(fs[0])
	if fs[0].Source != nil {
		r.listAround(fs[0].Source.Path, fs[0].Line, 1)
	}
	return nil
}

func cmdFrame(r *repl, args string) error {
	n, err := strconv.Atoi(args)
	if err != nil {
		return errors.New("usage: frame N")
	}
	return r.selectFrame(n)
}

func count(args string) int {
	if n, err := strconv.Atoi(args); err == nil && n > 0 {
		return n
	}
	return 1
}

func cmdUp(r *repl, args string) error { return r.selectFrame(r.frame + count(args)) }
func cmdDown(r *repl, args string) error {
	if r.frame-count(args) < 0 {
		return errors.New("already at the innermost frame")
	}
	return r.selectFrame(r.frame - count(args))
}

func scopeCmd(scope string) func(r *repl, args string) error {
	return func(r *repl, args string) error {
		id := r.frameID()
		if id == 0 {
			return errors.New("the program is not stopped")
		}
		resp, err := r.c.call(&dap.ScopesRequest{Request: request("scopes"), Arguments: dap.ScopesArguments{FrameId: id}})
		if err != nil {
			return err
		}
		for _, sc := range resp.(*dap.ScopesResponse).Body.Scopes {
			if sc.Name != scope && !(scope == "Locals" && sc.Name == "this") {
				continue
			}
			vars, err := r.variables(sc.VariablesReference)
			if err != nil {
				return err
			}
			if sc.Name == "this" {
				r.printf("this:\n")
				for _, v := range vars {
					r.printf("  %s %s = %s\n", v.Type, v.Name, v.Value)
				}
				continue
			}
			if len(vars) == 0 {
				r.printf("(no %s)\n", strings.ToLower(scope))
			}
			for _, v := range vars {
				r.printf("%s %s = %s\n", v.Type, v.Name, v.Value)
			}
		}
		return nil
	}
}

func (r *repl) variables(ref int) ([]dap.Variable, error) {
	resp, err := r.c.call(&dap.VariablesRequest{Request: request("variables"), Arguments: dap.VariablesArguments{VariablesReference: ref}})
	if err != nil {
		return nil, err
	}
	return resp.(*dap.VariablesResponse).Body.Variables, nil
}

func cmdPrint(r *repl, args string) error {
	if args == "" {
		return errors.New("usage: print EXPR")
	}
	resp, err := r.c.call(&dap.EvaluateRequest{Request: request("evaluate"),
		Arguments: dap.EvaluateArguments{Expression: args, Context: "repl", FrameId: r.frameID()}})
	if err != nil {
		return err
	}
	b := resp.(*dap.EvaluateResponse).Body
	r.printf("%s\n", b.Result)
	if b.VariablesReference != 0 {
		vars, err := r.variables(b.VariablesReference)
		if err == nil {
			for i, v := range vars {
				if i == 20 {
					r.printf("  …\n")
					break
				}
				r.printf("  %s = %s\n", v.Name, v.Value)
			}
		}
	}
	return nil
}

// cmdSet assigns: a local (x = e), a field (obj.f = e) or an element
// (a[i] = e), through DAP setVariable on the container.
func cmdSet(r *repl, args string) error {
	lhs, rhs, ok := strings.Cut(args, "=")
	lhs, rhs = strings.TrimSpace(lhs), strings.TrimSpace(rhs)
	if !ok || lhs == "" || rhs == "" {
		return errors.New("usage: set LHS = EXPR")
	}
	ref, name, err := r.container(lhs)
	if err != nil {
		return err
	}
	resp, err := r.c.call(&dap.SetVariableRequest{Request: request("setVariable"),
		Arguments: dap.SetVariableArguments{VariablesReference: ref, Name: name, Value: rhs}})
	if err != nil {
		return err
	}
	r.printf("%s = %s\n", lhs, resp.(*dap.SetVariableResponse).Body.Value)
	return nil
}

// container finds the variables reference holding lhs and its name
// there.
func (r *repl) container(lhs string) (int, string, error) {
	if strings.HasSuffix(lhs, "]") {
		if i := strings.LastIndexByte(lhs, '['); i > 0 {
			ref, err := r.evalRef(lhs[:i])
			return ref, lhs[i:], err
		}
	}
	if i := strings.LastIndexByte(lhs, '.'); i > 0 {
		ref, err := r.evalRef(lhs[:i])
		return ref, lhs[i+1:], err
	}
	id := r.frameID()
	if id == 0 {
		return 0, "", errors.New("the program is not stopped")
	}
	resp, err := r.c.call(&dap.ScopesRequest{Request: request("scopes"), Arguments: dap.ScopesArguments{FrameId: id}})
	if err != nil {
		return 0, "", err
	}
	for _, sc := range resp.(*dap.ScopesResponse).Body.Scopes {
		vars, err := r.variables(sc.VariablesReference)
		if err != nil {
			continue
		}
		for _, v := range vars {
			if v.Name == lhs {
				return sc.VariablesReference, lhs, nil
			}
		}
	}
	return 0, "", fmt.Errorf("no variable %s in the selected frame", lhs)
}

func (r *repl) evalRef(expr string) (int, error) {
	resp, err := r.c.call(&dap.EvaluateRequest{Request: request("evaluate"),
		Arguments: dap.EvaluateArguments{Expression: expr, Context: "watch", FrameId: r.frameID()}})
	if err != nil {
		return 0, err
	}
	ref := resp.(*dap.EvaluateResponse).Body.VariablesReference
	if ref == 0 {
		return 0, fmt.Errorf("%s has no fields or elements", expr)
	}
	return ref, nil
}

func cmdList(r *repl, args string) error {
	file, line := r.file, r.line
	if args != "" {
		b, err := r.parseLocation(args)
		if err != nil {
			return err
		}
		if b.fn != "" {
			return errors.New("list takes file:line or line")
		}
		file, line = b.file, b.line
	}
	if file == "" {
		return errors.New("no current source file")
	}
	r.listAround(file, line, 5)
	return nil
}

func metaCmd(name string) func(r *repl, args string) error {
	return func(r *repl, args string) error {
		out, err := r.meta(strings.TrimSpace(name + " " + args))
		if err != nil {
			return err
		}
		r.printf("%s\n", out)
		return nil
	}
}

func cmdRestart(r *repl, args string) error {
	if args = strings.TrimSpace(args); args != "" {
		return r.metaMove("restart " + args) // a checkpoint (repl_reverse.go)
	}
	if r.attached {
		return errors.New("restart is not available when attached")
	}
	if _, err := r.c.call(&dap.RestartRequest{Request: request("restart")}); err != nil {
		return err
	}
	r.exited = false
	r.printf("Restarted.\n")
	return r.waitStop()
}

func cmdDetach(r *repl, args string) error {
	if !r.attached {
		return errors.New("not attached (use quit)")
	}
	_, err := r.c.call(&dap.DisconnectRequest{Request: request("disconnect"),
		Arguments: &dap.DisconnectArguments{TerminateDebuggee: false}})
	if err != nil {
		return err
	}
	r.printf("Detached; the program goes on.\n")
	return errQuit
}

// confirmKill asks whether quit should kill an attached program; the
// terminal sets it.
var confirmKill = func(r *repl) bool { return false }

func cmdQuit(r *repl, args string) error {
	terminate := !r.attached || confirmKill(r)
	r.c.call(&dap.DisconnectRequest{Request: request("disconnect"),
		Arguments: &dap.DisconnectArguments{TerminateDebuggee: terminate}})
	return errQuit
}
