package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
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
		{name: "watch", usage: "[-r] LOCAL | EXPR.FIELD | EXPR[INDEX]", help: "Stop when a local of the selected frame, a field of an object or an element of an array or\nList changes value (with -r, also when it is read), on any thread. `rev continue` goes back\nto the last change of a field or local. Listed and deleted with the breakpoints; restart\ndrops it.", fn: cmdWatch},
		{name: "clear", aliases: []string{"delete"}, usage: "N | all | sched KIND", help: "Delete breakpoint N, all breakpoints, or a scheduler-event stop.", fn: cmdClear},
		{name: "condition", aliases: []string{"cond"}, usage: "N [COND]", help: "Set (or remove) the condition of breakpoint N (checked when set).", fn: cmdCondition},
		{name: "enable", usage: "[N...]", help: "Enable breakpoints (all of them without N).", fn: enableCmd(true)},
		{name: "disable", usage: "[N...]", help: "Disable breakpoints (all of them without N): kept, but they do not stop.", fn: enableCmd(false)},
		{name: "ignore", usage: "N COUNT", help: "Let breakpoint N go on through its next COUNT hits.", fn: cmdIgnore},
		{name: "continue", aliases: []string{"c"}, usage: "[-single]", help: "Resume the program until the next stop (-single: only the selected thread runs).", repeat: true, fn: cmdContinue},
		{name: "next", aliases: []string{"n"}, usage: "[-single]", help: "Step over: run the selected thread to its next line.", repeat: true, fn: stepCmd("next")},
		{name: "step", aliases: []string{"s"}, usage: "[-single]", help: "Step into a call on the current line.", repeat: true, fn: stepCmd("stepIn")},
		{name: "stepout", aliases: []string{"so", "finish"}, usage: "[-single]", help: "Run until the selected frame returns: stop in the caller right after the call, and show\nthe returned value.", repeat: true, fn: stepCmd("stepOut")},
		{name: "until", aliases: []string{"u"}, usage: "[LOCATION]", help: "Run to a line past the current one in this frame (out of a loop), or to LOCATION.", complete: "location", repeat: true, fn: cmdUntil},
		{name: "pause", help: "Stop the running program (Ctrl-C does the same).", fn: cmdPause},
		{name: "threads", usage: "[-state S] [-func F] [-group func|wait]", aliases: []string{"goroutines"}, help: "List the virtual threads: id, name, state or wait reason, location.\nFilter by state (runnable, waiting, frozen, or a wait reason such as \"chan recv\") and\nfunction; -group counts threads by function or wait reason.", fn: cmdThreads},
		{name: "thread", aliases: []string{"t"}, usage: "N", help: "Select thread N.", complete: "thread", fn: cmdThread},
		{name: "bt", aliases: []string{"stack", "backtrace"}, usage: "[full] [DEPTH]", help: "Print the selected thread's stack (DEPTH frames; default 50); full adds each frame's variables.", fn: cmdBt},
		{name: "frame", aliases: []string{"f"}, usage: "[N]", help: "Select frame N of the selected thread (without N: show the selected frame).", fn: cmdFrame},
		{name: "up", usage: "[N]", help: "Select the caller's frame.", repeat: true, fn: cmdUp},
		{name: "down", usage: "[N]", help: "Select the callee's frame.", repeat: true, fn: cmdDown},
		{name: "locals", help: "Print the selected frame's local variables.", fn: scopeCmd("Locals")},
		{name: "args", help: "Print the selected frame's arguments.", fn: scopeCmd("Arguments")},
		{name: "print", aliases: []string{"p"}, usage: "[/FMT] EXPR", help: "Evaluate an NLang expression in the selected frame. print/FMT (p/x) shows integers as\nx (hex), o (octal), t or b (binary), d (decimal) or c (character).", fn: cmdPrint},
		{name: "display", usage: "[/FMT] [EXPR]", help: "Show EXPR at every stop (without EXPR: list the display expressions).", fn: cmdDisplay},
		{name: "undisplay", usage: "[N...]", help: "Stop showing display expressions N (all of them without N).", fn: cmdUndisplay},
		{name: "info", usage: "breakpoints|threads|frame|locals|args|display", help: "Show breakpoints, threads, the selected frame, its locals or arguments, or the displays.", complete: "info", fn: cmdInfo},
		{name: "set", usage: "LHS = EXPR", help: "Assign to a local, a field (obj.f) or an element (a[i]).", fn: cmdSet},
		{name: "list", aliases: []string{"l"}, usage: "[LOCATION | N,M]", help: "Show source around the current line (or LOCATION: file:line, line or function), or lines\nN to M, with => at the current line and ● at breakpoints.", complete: "location", repeat: true, fn: cmdList},
		{name: "disasm", usage: "[FUNC]", help: "Show the bytecode of the selected frame's function (or FUNC), => at the pc.", complete: "location", fn: consoleCmd("disasm")},
		{name: "sched", usage: "[step | next THREAD | quota N | graph]", help: "Show the scheduler: carriers, run queue, parked threads and what they wait on, timers.\n`sched step` dispatches exactly one quantum and reports which thread ran, how many\nreductions and why it stopped; `sched next THREAD` picks the next dispatch;\n`sched quota N` sets the reductions per dispatch; `sched graph` shows who waits for\nwhom (thread --wait--> object --held by--> thread), edges on a deadlock cycle marked *.", complete: "sched", repeat: true, fn: consoleCmd("sched")},
		{name: "freeze", usage: "THREAD", help: "Keep THREAD off the run queue while the others run.", complete: "thread", fn: consoleCmd("freeze")},
		{name: "thaw", usage: "THREAD", help: "Let a frozen thread run again.", complete: "thread", fn: consoleCmd("thaw")},
		{name: "kill", help: "End the program and stay in the debugger (restart runs it again).", fn: cmdKill},
		// Going back (repl_reverse.go): one carrier, the session records.
		{name: "rewind", aliases: []string{"rw"}, help: "Go back to the previous breakpoint hit or data change (or the start of the recording).", fn: cmdRewind},
		{name: "rev", usage: "next | step | stepout | continue", help: "Go back: to the previous line (next), the previous statement wherever it was (step), the\ncall of the current function (stepout), or the previous breakpoint hit or data change\n(continue). Output already shown is not shown again; going forward re-executes the recording.", fn: cmdRev},
		{name: "checkpoint", aliases: []string{"check"}, usage: "[NOTE]", help: "Name the present moment, to come back to it with restart N.", fn: printConsoleCmd("checkpoint")},
		{name: "checkpoints", help: "List the checkpoints, the size of the recording and the copies of the execution that going\nback starts from.", fn: printConsoleCmd("checkpoints")},
		{name: "when", help: "Where the session is in its recording: thread, reductions, position, past or frontier.", fn: printConsoleCmd("when")},
		{name: "dump", usage: "FILE", help: "Write the present to FILE (the recording so far and this moment): nlangdbg debug --core FILE opens it here.", fn: printConsoleCmd("dump")},
		// Edit and continue (repl_reload.go).
		{name: "reload", usage: "[-move]", help: "Install the code of the edited files in the paused program (nothing changes if they do not\ncompile, or if the change cannot apply to the running program: the message says where).\nLater calls run the new code; a frame already in a changed function finishes on its old\ncode (bt marks it [old code]; restartframe restarts it on the new code). -move moves each\nthread's innermost frame to the same statement of the new code where it is unchanged.", fn: cmdReload},
		{name: "restartframe", aliases: []string{"rf"}, usage: "[FRAME]", help: "Restart the selected frame (or FRAME) of the selected thread with the arguments it was called\nwith: the frames above it are dropped; what they did stays done.", fn: cmdRestartFrame},
		{name: "whatif", usage: "[FILE:LINE EXPR]", help: "Re-execute the recording from the latest checkpoint before the present (or the reload) with\nthe code of the files as they are now, and say where it first differs from what the program\ndid: its output, an exception, how it ended, or (with FILE:LINE EXPR) the value of EXPR each\ntime a thread reached the line. Nothing changes.", fn: cmdWhatIf},
		{name: "restart", aliases: []string{"r", "run"}, usage: "[CHECKPOINT]", help: "Restart the program (breakpoints and displays are kept), or go to checkpoint CHECKPOINT.", fn: cmdRestart},
		{name: "detach", help: "Detach from an attached program and leave it running.", fn: cmdDetach},
		{name: "quit", aliases: []string{"q", "exit"}, help: "Quit: a launched program ends; an attached one is detached and runs on (you are asked\nfirst; no stays).", fn: cmdQuit},
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
// breakpoint (file or fn set). A line must be a line number of a file
// that exists; a function name must look like one.
func (r *repl) parseLocation(loc string) (*replBP, error) {
	if loc == "" {
		return nil, errors.New("missing location (file:line, line, func or Class.method)")
	}
	if i := strings.LastIndexByte(loc, ':'); i >= 0 {
		file, num := loc[:i], loc[i+1:]
		if file == "" {
			return nil, fmt.Errorf("%q: write file:line (the file is missing before the colon)", loc)
		}
		n, err := parseLine(num)
		if err != nil {
			return nil, err
		}
		path, ok := r.findFile(file)
		if !ok {
			return nil, fmt.Errorf("no source file %s", file)
		}
		return &replBP{file: path, line: n}, nil
	}
	if c := loc[0]; c >= '0' && c <= '9' || c == '-' || c == '+' {
		n, err := parseLine(loc)
		if err != nil {
			return nil, err
		}
		if r.file == "" {
			return nil, errors.New("no current file: write file:line")
		}
		return &replBP{file: r.file, line: n}, nil
	}
	if !funcNameRE.MatchString(loc) {
		return nil, fmt.Errorf("%q is not a location (write file:line, line, func or Class.method)", loc)
	}
	return &replBP{fn: loc}, nil
}

// funcNameRE matches func and Class.method.
var funcNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// parseLine reads a line number (1 or more).
func parseLine(s string) (int, error) {
	n, err := strconv.Atoi(s)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("line %s is too large", s)
	case err != nil:
		return 0, fmt.Errorf("%q is not a line number", s)
	case n < 1:
		return 0, fmt.Errorf("line %d: lines start at 1", n)
	}
	return n, nil
}

// findFile is resolveFile for a file that must exist (on disk or as a
// source the server knows).
func (r *repl) findFile(name string) (string, bool) {
	p := r.resolveFile(name)
	if _, err := os.Stat(p); err == nil {
		return p, true
	}
	return p, false
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
		return r.printConsole("break " + args)
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
	if err := r.sync(b); err != nil {
		return err
	}
	if !b.verified {
		// a breakpoint that can never stop is refused, not kept
		r.bps = r.bps[:len(r.bps)-1]
		r.nextBP--
		r.sync(b)
		return fmt.Errorf("cannot set a breakpoint at %s: %s", b.where(), b.msg)
	}
	kind := "Breakpoint"
	if temp {
		kind = "Temporary breakpoint"
	}
	r.printf("%s %d at %s", kind, b.id, b.where())
	if b.fn == "" && b.actual != b.line {
		r.printf(" (line %d has no code: moved to the next line that has)", b.line)
	}
	r.printf("\n")
	return nil
}

// hitsRE finds `hits N` in a break command.
var hitsRE = regexp.MustCompile(`(?:^|\s)hits\s+(\S+)`)

func cmdBreak(r *repl, args string) error  { return r.addBreak(args, false) }
func cmdTbreak(r *repl, args string) error { return r.addBreak(args, true) }

func cmdBreakpoints(r *repl, args string) error {
	if len(r.bps) == 0 && len(r.watches) == 0 {
		r.printf("No breakpoints.\n")
	}
	counts := r.hitCounts()
	for _, b := range r.bps {
		if b.hidden {
			continue
		}
		state := ""
		switch {
		case b.disabled:
			state = " (disabled)"
		case !b.verified:
			state = " (not verified: " + b.msg + ")"
		}
		if c, ok := counts[b.serverID]; ok && !b.disabled {
			switch c[0] {
			case 0:
			case 1:
				state += " (hit once)"
			default:
				state += fmt.Sprintf(" (hit %d times)", c[0])
			}
			if c[1] > 0 {
				state += fmt.Sprintf(" (ignoring the next %d hits)", c[1])
			}
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
	r.listWatches()
	if body, err := r.c.callCustom(api.CmdSchedBreaks, api.SchedBreaksArgs{}); err == nil {
		if kinds := body.(api.SchedBreaksBody).Kinds; len(kinds) > 0 {
			r.printf("%s\n", strings.Join(kinds, " "))
		}
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
		if len(r.watches) > 0 {
			r.watches = nil
			r.syncWatches()
		}
		for f := range files {
			if f != "" {
				r.syncBreakpoints(f)
			}
		}
		r.syncBreakpoints("")
		r.printf("All breakpoints cleared.\n")
		return nil
	case strings.HasPrefix(args, "sched "):
		return r.printConsole("clear " + args)
	}
	n, err := strconv.Atoi(args)
	if err != nil {
		return errors.New("usage: clear N | all | sched KIND")
	}
	if r.removeWatch(n) {
		r.printf("Watchpoint %d cleared.\n", n)
		return nil
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
	b := r.findBP(n)
	if b == nil {
		return fmt.Errorf("no breakpoint %d", n)
	}
	old := b.cond
	b.cond = strings.TrimSpace(cond)
	if err := r.sync(b); err != nil {
		return err
	}
	if !b.verified && !b.disabled {
		why := b.msg
		b.cond = old
		r.sync(b)
		return fmt.Errorf("condition refused: %s", why)
	}
	if b.cond == "" {
		r.printf("Breakpoint %d is now unconditional.\n", n)
	} else {
		r.printf("Breakpoint %d: stop if %s\n", n, b.cond)
	}
	return nil
}

// findBP returns breakpoint n (nil if none).
func (r *repl) findBP(n int) *replBP {
	for _, b := range r.bps {
		if b.id == n {
			return b
		}
	}
	return nil
}

// sync sends the breakpoints of b's file (or the function breakpoints)
// to the server.
func (r *repl) sync(b *replBP) error {
	if b.fn != "" {
		return r.syncBreakpoints("")
	}
	return r.syncBreakpoints(b.file)
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
	return r.printConsole("threads " + args)
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
	if f.Source.Path == "" {
		return f.Source.Name // a text without a file (the code before a reload)
	}
	return filepath.Base(f.Source.Path)
}

func (r *repl) setLocation(f dap.StackFrame) {
	if f.Source != nil {
		r.file = f.Source.Path
		if r.file == "" {
			r.file = f.Source.Name
		}
	}
	r.line = f.Line
}

func cmdBt(r *repl, args string) error {
	depth, full := 50, false
	for _, a := range strings.Fields(args) {
		if a == "full" || a == "-full" {
			full = true
			continue
		}
		n, err := strconv.Atoi(a)
		if err != nil || n < 1 {
			return errors.New("usage: bt [full] [DEPTH]")
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
		if full {
			r.frameVars(f.Id, "        ")
		}
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
	if args == "" {
		return r.selectFrame(r.frame) // where the selected frame is
	}
	n, err := strconv.Atoi(args)
	if err != nil {
		return errors.New("usage: frame [N]")
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
	format, args, err := cutFormat(args)
	if err != nil {
		return err
	}
	if args == "" {
		return errors.New("usage: print[/FMT] EXPR")
	}
	if format != "" {
		return r.printFormatted(format, args)
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
	if a, b, ok := strings.Cut(args, ","); ok {
		// list N,M (in the current file)
		lo, err1 := parseLine(strings.TrimSpace(a))
		hi, err2 := parseLine(strings.TrimSpace(b))
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("list N,M: %v", err)
		}
		if hi < lo {
			return fmt.Errorf("list %d,%d: the last line comes before the first", lo, hi)
		}
		if file == "" {
			return errors.New("no current source file")
		}
		return r.listRange(file, lo, hi)
	}
	if args != "" {
		b, err := r.parseLocation(args)
		if err != nil {
			return err
		}
		if b.fn != "" {
			body, err := r.c.callCustom(api.CmdFunctions, api.FunctionsArgs{Name: b.fn})
			if err != nil {
				return err
			}
			fn := body.(api.FunctionsBody).Functions[0]
			if fn.Source != nil {
				b.file = fn.Source.Path
			}
			b.line = fn.Line
		}
		file, line = b.file, b.line
	}
	if file == "" {
		return errors.New("no current source file")
	}
	return r.listRange(file, line-5, line+5)
}

// listRange lists lines [lo, hi] of file, refusing lines past its end.
func (r *repl) listRange(file string, lo, hi int) error {
	n := len(r.sourceLines(file))
	if n > 0 && r.sourceLines(file)[n-1] == "" {
		n-- // the newline that ends the last line
	}
	if n == 0 {
		return fmt.Errorf("no source for %s", filepath.Base(file))
	}
	if max(lo, 1) > n {
		return fmt.Errorf("line %d is past the end of %s (%d lines)", max(lo, 1), filepath.Base(file), n)
	}
	r.listLines(file, lo, min(hi, n))
	return nil
}

// consoleCmd is a command of the console language (api.ParseConsole):
// its answer is printed; `sched step` waits for the stop it ends with.
func consoleCmd(name string) func(r *repl, args string) error {
	return func(r *repl, args string) error {
		call, body, err := r.console(name + " " + args)
		if err != nil {
			return err
		}
		if d, ok := body.(api.DispatchBody); ok {
			// the quantum stopped at a breakpoint (shown now, with its
			// number), or moved the threads: the server says stopped again
			// either way, and the current line follows the selected thread
			r.quiet, r.lastStop = true, nil
			err := r.waitStop()
			r.quiet = false
			if e := r.lastStop; e != nil && d.Why == "breakpoint" {
				if ids := r.localBPIDs(e.Body.HitBreakpointIds); len(ids) > 0 {
					d.Why = "breakpoint " + strings.Join(ids, ", ")
				}
			}
			r.printf("%s\n", api.FormatDispatch(d))
			if r.lastStop != nil {
				r.showStop(r.lastStop)
			}
			return err
		}
		r.printf("%s\n", call.Format(body))
		return nil
	}
}

func cmdRestart(r *repl, args string) error {
	if args = strings.TrimSpace(args); args != "" {
		id, err := strconv.Atoi(args)
		if err != nil {
			return fmt.Errorf("restart: %q is not a checkpoint id", args)
		}
		return r.moveCustom(api.CmdGoToCheckpoint, api.GoToCheckpointArgs{ID: id}) // (repl_reverse.go)
	}
	if r.attached {
		return errors.New("restart is not available when attached")
	}
	r.drainEvents() // the end of the last run, if it ended
	if _, err := r.c.call(&dap.RestartRequest{Request: request("restart")}); err != nil {
		return err
	}
	r.exited = false
	r.watches = nil // (the server dropped them: their locations were of the old run)
	r.printf("Restarted.\n")
	// the new program's breakpoints have new server ids: set them again
	r.syncAll()
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

// ask puts a question to the user and returns the answer; the terminal
// sets it. Without a terminal there is no one to ask (an error).
var ask = func(r *repl, question string) (string, error) { return "", io.EOF }

func cmdQuit(r *repl, args string) error {
	if r.attached && !r.exited {
		// as gdb: the question is whether to quit at all; no cancels
		ans, err := ask(r, "The program keeps running after you leave (kill ends it). Quit? [y/N] ")
		if err == nil && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ans)), "y") {
			r.printf("Not quitting.\n")
			return nil
		}
	}
	r.leave()
	return errQuit
}

// leave ends the session: a launched program is terminated, an attached
// one is detached and keeps running.
func (r *repl) leave() {
	r.c.call(&dap.DisconnectRequest{Request: request("disconnect"),
		Arguments: &dap.DisconnectArguments{TerminateDebuggee: !r.attached}})
}
