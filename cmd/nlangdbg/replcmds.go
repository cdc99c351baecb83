package main

import (
	"encoding/json"
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
		{name: "break", aliases: []string{"b"}, usage: "LOCATION [if COND] [hits N] [thread-only|all-threads] | safepoint [THREAD] | sched spawn|park|wake|exit|deadlock",
			help:     "Set a breakpoint. LOCATION is file:line, line (in the current file), func, Class.method or\nfile:func; a file is named by any part of its path that ends it and no other file\n(round.n, shapes/round.n).\n`if COND` stops only when the NLang expression COND is true; `hits N` from the Nth hit on\n(or ==N, %N, >N). `break safepoint` stops a thread at its next function entry or loop\nback-edge; `break sched KIND` stops at the next scheduler event of that kind.\n`thread-only` (or -thread) stops only the thread that reaches it while the others keep\nrunning (non-stop); `all-threads` (or -all) stops every thread even in non-stop mode.",
			complete: "location", fn: cmdBreak},
		{name: "tbreak", usage: "LOCATION [if COND]", help: "Set a temporary breakpoint, cleared when first hit.", complete: "location", fn: cmdTbreak},
		{name: "breakpoints", aliases: []string{"bp"}, help: "List the breakpoints.", fn: cmdBreakpoints},
		{name: "watch", usage: "[-r] LOCAL | EXPR.FIELD | EXPR[INDEX]", complete: "expr", help: "Stop when a local of the selected frame, a field of an object or an element of an array or\nList changes value (with -r, also when it is read), on any thread. `rev continue` goes back\nto the last change of a field or local. Listed and deleted with the breakpoints; restart\ndrops it.", fn: cmdWatch},
		{name: "catch", usage: "[throw|uncaught [CLASSES|off]] | off", help: "Show or choose which exceptions stop the program. `catch throw` stops wherever an exception\nis thrown, caught or not; `catch throw Bad, IOException` only for those classes (and their\nsubclasses); `catch throw off` no longer. `catch uncaught [CLASSES|off]` does the same for\nexceptions no catch handles (on, of any class, by default); `catch off` turns both off.", fn: cmdCatch},
		{name: "clear", aliases: []string{"delete"}, usage: "N | all | sched KIND", help: "Delete breakpoint N, all breakpoints, or a scheduler-event stop.", fn: cmdClear},
		{name: "condition", aliases: []string{"cond"}, usage: "N [COND]", help: "Set (or remove) the condition of breakpoint N (checked when set).", fn: cmdCondition},
		{name: "enable", usage: "[N...]", help: "Enable breakpoints (all of them without N).", fn: enableCmd(true)},
		{name: "disable", usage: "[N...]", help: "Disable breakpoints (all of them without N): kept, but they do not stop.", fn: enableCmd(false)},
		{name: "ignore", usage: "N COUNT", help: "Let breakpoint N go on through its next COUNT hits.", fn: cmdIgnore},
		{name: "continue", aliases: []string{"c"}, usage: "[-single] [-a] [N]", help: "Resume the program until the next stop (-single: only the selected thread runs). With N,\nthe breakpoint it stopped at is ignored N-1 more times. While threads are stopped alone\n(non-stop), it resumes the selected thread alone (the prompt comes back at once if others\nstay stopped), and -a resumes every stopped thread.", repeat: true, fn: cmdContinue},
		{name: "next", aliases: []string{"n"}, usage: "[-single] [N]", help: "Step over: run the selected thread to its next line (N times, unless a breakpoint stops it).", repeat: true, fn: stepCmd("next")},
		{name: "step", aliases: []string{"s"}, usage: "[-single] [N]", help: "Step into a call on the current line (N times, unless a breakpoint stops it).", repeat: true, fn: stepCmd("stepIn")},
		{name: "stepi", aliases: []string{"si"}, usage: "[-single] [N]", help: "Step one bytecode instruction (into calls); disasm shows where.", repeat: true, fn: stepCmd("stepInstr")},
		{name: "nexti", aliases: []string{"ni"}, usage: "[-single] [N]", help: "Step one bytecode instruction, over calls.", repeat: true, fn: stepCmd("nextInstr")},
		{name: "stepout", aliases: []string{"so", "finish"}, usage: "[-single]", help: "Run until the selected frame returns: stop in the caller right after the call, and show\nthe returned value. Refused in a thread's first frame (main's, a spawned function's), which\nhas no caller to stop in.", repeat: true, fn: stepCmd("stepOut")},
		{name: "until", aliases: []string{"u"}, usage: "[LOCATION]", help: "Run to a line past the current one in this frame (out of a loop), or to LOCATION.", complete: "location", repeat: true, fn: cmdUntil},
		{name: "pause", help: "Stop the running program (Ctrl-C does the same).", fn: cmdPause},
		{name: "interrupt", usage: "[-a | THREAD]", complete: "thread", help: "Stop the running program; while threads run in non-stop mode, stop THREAD alone (the\nothers keep running) or, with -a, every thread.", fn: cmdInterrupt},
		{name: "nonstop", usage: "[on|off]", help: "Non-stop mode (also `set non-stop on|off`): on, a breakpoint that names no mode stops only\nthe thread that reaches it while the others keep running, and interrupt THREAD stops one\nthread; off (the default), every stop stops every thread. Without an argument: show it.", fn: cmdNonStop},
		{name: "threads", usage: "[-state S] [-func F] [-with|-without KEY [VALUE]]... [-group-by KEY | -tree]", aliases: []string{"goroutines"}, help: "List the virtual threads: id, name, state or wait reason, location.\nFilter by state (runnable, waiting, frozen, or a wait reason such as \"chan recv\") and\nfunction, and with -with/-without KEY VALUE by any key below (the value is a substring;\n`-with parent N`, `-with leaked`). -group-by KEY counts the threads by function,\nlocation (file:line), state, waitReason, spawnSite (where spawned) or stack (the same\nfunctions at the same lines: parallel stacks); -group func|wait is the old spelling.\n-tree shows who spawned whom, many siblings spawned at one place counted.", fn: cmdThreads},
		{name: "leaks", usage: "[-stack]", help: "List the leaked threads: parked on a channel, lock, semaphore, future or join that no\nthread that can still run reaches, so they never run again (Go's goroutine leaks, found\nlive by a pass over the program's heap). Each with what it waits on, where that was made\nand where the thread was spawned; -stack adds its stack.", fn: printConsoleCmd("leaks")},
		{name: "thread", aliases: []string{"t", "goroutine"}, usage: "N", help: "Select thread N.", complete: "thread", fn: cmdThread},
		{name: "bt", aliases: []string{"stack", "backtrace", "where"}, usage: "[full] [DEPTH]", help: "Print the selected thread's stack (DEPTH frames; default 50); full adds each frame's variables.", fn: cmdBt},
		{name: "frame", aliases: []string{"f"}, usage: "[N]", help: "Select frame N of the selected thread (without N: show the selected frame).", fn: cmdFrame},
		{name: "up", usage: "[N]", help: "Select the caller's frame.", repeat: true, fn: cmdUp},
		{name: "down", usage: "[N]", help: "Select the callee's frame.", repeat: true, fn: cmdDown},
		{name: "locals", help: "Print the selected frame's local variables.", fn: scopeCmd("Locals")},
		{name: "args", help: "Print the selected frame's arguments.", fn: scopeCmd("Arguments")},
		{name: "print", aliases: []string{"p"}, usage: "[/FMT] EXPR", complete: "expr", help: "Evaluate an NLang expression in the selected frame. print/FMT (p/x) shows integers as\nx (hex), o (octal), t or b (binary), d (decimal) or c (character).", fn: cmdPrint},
		{name: "display", usage: "[/FMT] [EXPR]", complete: "expr", help: "Show EXPR at every stop (without EXPR: list the display expressions).", fn: cmdDisplay},
		{name: "undisplay", usage: "[N...]", help: "Stop showing display expressions N (all of them without N).", fn: cmdUndisplay},
		{name: "info", usage: "breakpoints|threads|frame|locals|args|display", help: "Show breakpoints, threads, the selected frame, its locals or arguments, or the displays.", complete: "info", fn: cmdInfo},
		{name: "set", usage: "LHS = EXPR | non-stop on|off", complete: "expr", help: "Assign to a local, a field (obj.f) or an element (a[i]); `set non-stop on|off` is nonstop.", fn: cmdSet},
		{name: "list", aliases: []string{"l"}, usage: "[LOCATION | [FILE:]N,M]", help: "Show source around the current line (or LOCATION: file:line, line or function), or lines\nN to M (of FILE), with => at the current line and ● at breakpoints. The library's files\nare listed by their names: list <concurrent>:40.", complete: "location", repeat: true, fn: cmdList},
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
		// Questions about the past (repl_past.go): answered from the recording.
		{name: "last", usage: "EXPR [N]", help: "Who wrote this: the latest N (default 1) writes to a local, EXPR.FIELD or EXPR[INDEX] of the\nselected frame, newest first: thread, line and old -> new (what the location held just\nbefore the write). Each answer names its moment (m1, m2, …): travel goes there.", fn: cmdLast},
		{name: "origin", usage: "EXPR", help: "Where did this value come from: the steps that produced the value of a local, EXPR.FIELD\nor EXPR[INDEX] — assigned, computed, read from a field (written where), returned by a\ncall, received from a channel (sent by whom), passed as an argument — back to a literal\nor an input, as an indented tree, each step with its moment.", fn: cmdOrigin},
		{name: "query", usage: "FILE:LINE EXPR [if COND]", help: "A logpoint added after the fact: EXPR at every execution of the line so far (where COND\nholds), in order, with thread and moment, found by re-executing the recording.", complete: "location", fn: cmdQuery},
		{name: "timeline", usage: "[THREAD]", help: "What happened to THREAD (default: the selected one): spawned by whom and where, ran\n(quanta, reductions), parked on what, woken by whom, stopped by the debugger, ended.", complete: "thread", fn: cmdTimeline},
		{name: "travel", usage: "MOMENT", help: "Go to a moment an answer of last, origin, query or timeline named (m3): the thread of\nthe moment is selected, about to run its line; going forward and back work from there.", fn: cmdTravel},
		// Edit and continue (repl_reload.go).
		{name: "reload", usage: "[-move]", help: "Install the code of the edited files in the paused program (nothing changes if they do not\ncompile, or if the change cannot apply to the running program: the message says where).\nLater calls run the new code; a frame already in a changed function finishes on its old\ncode (bt marks it [old code]; restartframe restarts it on the new code). -move moves each\nthread's innermost frame to the same statement of the new code where it is unchanged.", fn: cmdReload},
		{name: "restartframe", aliases: []string{"rf"}, usage: "[FRAME]", help: "Restart the selected frame (or FRAME) of the selected thread with the arguments it was called\nwith: the frames above it are dropped; what they did stays done.", fn: cmdRestartFrame},
		{name: "whatif", usage: "[FILE:LINE EXPR]", help: "Re-execute the recording from the latest checkpoint before the present (or the reload) with\nthe code of the files as they are now, and say where it first differs from what the program\ndid: its output, an exception, how it ended, or (with FILE:LINE EXPR) the value of EXPR each\ntime a thread reached the line. Nothing changes.", fn: cmdWhatIf},
		{name: "restart", aliases: []string{"r", "run"}, usage: "[CHECKPOINT | < FILE]", help: "Restart the program (breakpoints and displays are kept), or go to checkpoint CHECKPOINT.\nrun < FILE restarts it reading FILE as its input (and so do later restarts).", fn: cmdRestart},
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
	width := 0
	for _, c := range replCmds {
		width = max(width, len(strings.Join(append([]string{c.name}, c.aliases...), ", ")))
	}
	for _, c := range replCmds {
		names := strings.Join(append([]string{c.name}, c.aliases...), ", ")
		r.printf("  %-*s  %s\n", width, names, summary(c.help))
	}
	r.printf("An empty line repeats the last command; Ctrl-C pauses a running program; Ctrl-D quits.\n")
	return nil
}

// summary is the first sentence of a command's help, for the list of
// commands.
func summary(help string) string {
	help = strings.ReplaceAll(help, "\n", " ")
	if i := strings.Index(help, ". "); i >= 0 {
		return help[:i+1]
	}
	return help
}

// suggest returns the command name closest to a mistyped one (within
// two edits, or of which it is a prefix), or "".
func suggest(name string) string {
	best, bestD := "", 3
	for _, c := range replCmds {
		for _, n := range append([]string{c.name}, c.aliases...) {
			d := editDistance(name, n)
			if len(name) >= 2 && strings.HasPrefix(n, name) {
				d = min(d, 1)
			}
			if d < bestD {
				best, bestD = c.name, d
			}
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
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
		if funcNameRE.MatchString(num) && !isNumber(num) {
			return r.fileFunc(file, num) // file:func
		}
		n, err := parseLine(num)
		if err != nil {
			return nil, err
		}
		path, ok, err := r.findFile(file)
		if err != nil {
			return nil, err
		}
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

// fileFunc is the location FILE:FUNC: the first line of the function fn
// of that file (one of several functions of that name).
func (r *repl) fileFunc(file, fn string) (*replBP, error) {
	path, ok, err := r.findFile(file)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no source file %s", file)
	}
	body, err := r.c.callCustom(api.CmdFunctions, api.FunctionsArgs{Name: fn})
	if err != nil {
		return nil, err
	}
	for _, f := range body.(api.FunctionsBody).Functions {
		if f.Source != nil && samePath(srcKey(f.Source), path) {
			return &replBP{file: path, line: f.Line, inFn: fn}, nil
		}
	}
	return nil, fmt.Errorf("no function %s in %s", fn, r.shortName(path))
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

func (r *repl) addBreak(args string, temp bool) error {
	fields := strings.Fields(args)
	if len(fields) >= 1 && (fields[0] == "safepoint" || fields[0] == "sched") && !temp {
		return r.printConsole("break " + args)
	}
	args, mode := cutMode(args) // thread-only, all-threads (replnonstop.go)
	loc, rest, _ := strings.Cut(args, " ")
	b, err := r.parseLocation(loc)
	if err != nil {
		return err
	}
	b.mode = mode
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
		return fmt.Errorf("cannot set a breakpoint at %s: %s", b.where(r), b.msg)
	}
	kind := "Breakpoint"
	if temp {
		kind = "Temporary breakpoint"
	}
	r.printf("%s %d at %s", kind, b.id, b.where(r))
	if locs := r.funcLocations(b); len(locs) > 1 {
		// as gdb: one breakpoint, several places
		r.printf(" (%d functions: %s)", len(locs), strings.Join(locs, ", "))
	}
	if b.fn == "" && b.inFn == "" && b.actual != b.line {
		r.printf(" (line %d has no code: moved to the next line that has)", b.line)
	}
	r.printf("\n")
	return nil
}

// funcLocations lists where a function breakpoint stops when several
// functions (of several files, or overloads) have its name.
func (r *repl) funcLocations(b *replBP) []string {
	if b.fn == "" {
		return nil
	}
	body, err := r.c.callCustom(api.CmdFunctions, api.FunctionsArgs{Name: b.fn})
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range body.(api.FunctionsBody).Functions {
		if f.Source != nil {
			out = append(out, fmt.Sprintf("%s:%d", r.shortName(srcKey(f.Source)), f.Line))
		}
	}
	return out
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
		extra += modeName(b.mode)
		r.printf("%3d  %s%s%s\n", b.id, b.where(r), extra, state)
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

// resumeArgs reads the arguments of a command that resumes: -single and,
// if count, a repeat count (1 if absent). Anything else is refused.
func resumeArgs(name, args string, count bool) (single bool, n int, err error) {
	n = 1
	usage := "usage: " + name + " [-single]"
	if count {
		usage += " [N]"
	}
	seenN := false
	for _, a := range strings.Fields(args) {
		switch {
		case a == "-single" && !single:
			single = true
		case count && !seenN && isNumber(a):
			v, err := strconv.Atoi(a)
			if err != nil || v < 1 {
				return false, 0, fmt.Errorf("%s: %q is not a count (1 or more)", name, a)
			}
			n, seenN = v, true
		default:
			return false, 0, fmt.Errorf("%s: unexpected %q (%s)", name, a, usage)
		}
	}
	return single, n, nil
}

// isNumber reports whether s looks like an integer (digits, maybe a sign).
func isNumber(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// cmdContinue resumes the program. With N, as gdb's continue N, the
// breakpoint the program stopped at is ignored N-1 more times.
func cmdContinue(r *repl, args string) error {
	args, all := cutFlag(args, "-a")
	single, n, err := resumeArgs("continue", args, true)
	if err != nil {
		return err
	}
	if all {
		return r.continueAll()
	}
	if n > 1 {
		b := r.stoppedAtBP()
		if b == nil {
			r.printf("Not stopped at a breakpoint; the count is ignored.\n")
		} else if _, err := r.c.callCustom(api.CmdIgnore, api.IgnoreArgs{ID: b.serverID, Count: n - 1}); err != nil {
			return err
		} else if n == 2 {
			r.printf("Will ignore next crossing of breakpoint %d.  Continuing.\n", b.id)
		} else {
			r.printf("Will ignore next %d crossings of breakpoint %d.  Continuing.\n", n-1, b.id)
		}
	}
	req := &dap.ContinueRequest{Request: request("continue"),
		Arguments: dap.ContinueArguments{ThreadId: max(r.thread, 1), SingleThread: single}}
	if r.held[r.thread] && r.othersHeld() {
		return r.resumeHeld(req) // non-stop: others stay stopped (replnonstop.go)
	}
	return r.resume(req)
}

// cutFlag takes flag out of args, reporting whether it was there.
func cutFlag(args, flag string) (string, bool) {
	f := strings.Fields(args)
	for i, a := range f {
		if a == flag {
			return strings.Join(append(f[:i:i], f[i+1:]...), " "), true
		}
	}
	return args, false
}

// stoppedAtBP returns the (enabled) breakpoint the program stopped at,
// if the last stop was a breakpoint's.
func (r *repl) stoppedAtBP() *replBP {
	e := r.lastStop
	if e == nil || !r.stopped || r.exited || e.Body.Reason != "breakpoint" && e.Body.Reason != "function breakpoint" {
		return nil
	}
	for _, id := range e.Body.HitBreakpointIds {
		for _, b := range r.bps {
			if b.serverID == id && !b.hidden && !b.disabled {
				return b
			}
		}
	}
	return nil
}

// stepCmd is next, step or stepout. next N and step N step N times (as
// gdb's), showing only where they end, unless another stop (a
// breakpoint) comes first.
func stepCmd(kind string) func(r *repl, args string) error {
	name := map[string]string{"next": "next", "stepIn": "step", "stepOut": "stepout", "stepInstr": "stepi", "nextInstr": "nexti"}[kind]
	return func(r *repl, args string) error {
		single, n, err := resumeArgs(name, args, kind != "stepOut")
		if err != nil {
			return err
		}
		if kind == "stepOut" {
			// as gdb's finish in the outermost frame: nothing to return
			// to (the step would run the thread to its end)
			t := max(r.thread, 1)
			if fs, err := r.stack(t, r.frame, 2); err == nil && len(fs) == 1 {
				return fmt.Errorf("stepout: %s is where thread %d starts: it has no caller to return to (continue runs it to its end)", fs[0].Name, t)
			}
		}
		if r.frame != 0 && kind == "stepOut" {
			// step out of the selected frame: out of every frame above it
			for i := 0; i < r.frame; i++ {
				if err := r.resume(&dap.StepOutRequest{Request: request("stepOut"),
					Arguments: dap.StepOutArguments{ThreadId: r.thread, SingleThread: single}}); err != nil {
					return err
				}
			}
		}
		step := func() error {
			t := max(r.thread, 1)
			switch kind {
			case "next":
				return r.resume(&dap.NextRequest{Request: request("next"), Arguments: dap.NextArguments{ThreadId: t, SingleThread: single}})
			case "stepIn":
				return r.resume(&dap.StepInRequest{Request: request("stepIn"), Arguments: dap.StepInArguments{ThreadId: t, SingleThread: single}})
			case "nextInstr":
				return r.resume(&dap.NextRequest{Request: request("next"), Arguments: dap.NextArguments{ThreadId: t, SingleThread: single, Granularity: "instruction"}})
			case "stepInstr":
				return r.resume(&dap.StepInRequest{Request: request("stepIn"), Arguments: dap.StepInArguments{ThreadId: t, SingleThread: single, Granularity: "instruction"}})
			}
			return r.resume(&dap.StepOutRequest{Request: request("stepOut"), Arguments: dap.StepOutArguments{ThreadId: t, SingleThread: single}})
		}
		if n == 1 {
			return step()
		}
		r.quiet = true
		defer func() { r.quiet = false }()
		for i := 0; i < n; i++ {
			r.lastStop = nil
			if err := step(); err != nil || r.exited {
				return err
			}
			if e := r.lastStop; e == nil || e.Body.Reason != "step" {
				break // a breakpoint, an exception, a pause: shown now
			}
		}
		r.quiet = false
		if r.lastStop != nil {
			r.showStop(r.lastStop)
		}
		return nil
	}
}

func cmdPause(r *repl, args string) error {
	if r.stopped && len(r.held) == 0 {
		return errors.New("the program is already stopped")
	}
	if r.held[r.thread] {
		return cmdInterrupt(r, "") // (it says what stops the others)
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
			if err != nil && len(r.held) > 0 && !r.held[n] {
				// non-stop: a running thread (interrupt stops it)
				r.printf("Thread %d %q is running\n", n, threadShortName(t.Name))
				return nil
			}
			if err != nil {
				return err
			}
			r.printf("Thread %d %q at %s (%s:%d)\n", n, threadShortName(t.Name), f.Name, r.frameFile(f), f.Line)
			r.setLocation(f)
			return nil
		}
	}
	return fmt.Errorf("no thread %d", n)
}

func (r *repl) setLocation(f dap.StackFrame) {
	if f.Source != nil {
		r.file = srcKey(f.Source)
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
		r.printf("%s %3d  %s (%s:%d)\n", mark, i, f.Name, r.frameFile(f), f.Line)
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
	r.printf("Frame %d: %s (%s:%d)\n", n, fs[0].Name, r.frameFile(fs[0]), fs[0].Line)
	r.setLocation(fs[0])
	if fs[0].Source != nil {
		r.listAround(srcKey(fs[0].Source), fs[0].Line, 1)
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

// count reads the optional count N of command name (1 if absent).
func count(name, args string) (int, error) {
	if args == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(args)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s: %q is not a count (usage: %s [N])", name, args, name)
	}
	return n, nil
}

var errNotRunning = errors.New("the program is not running")

// notStopped says why there is no frame to read: the program ended, or
// it runs.
func (r *repl) notStopped() error {
	if r.exited {
		return errNotRunning
	}
	return errors.New("the program is not stopped")
}

func cmdUp(r *repl, args string) error {
	n, err := count("up", args)
	if err != nil {
		return err
	}
	return r.selectFrame(r.frame + n)
}

func cmdDown(r *repl, args string) error {
	n, err := count("down", args)
	if err != nil {
		return err
	}
	if r.exited {
		return errNotRunning
	}
	if r.frame-n < 0 {
		return errors.New("already at the innermost frame")
	}
	return r.selectFrame(r.frame - n)
}

func scopeCmd(scope string) func(r *repl, args string) error {
	return func(r *repl, args string) error {
		id := r.frameID()
		if id == 0 {
			return r.notStopped()
		}
		resp, err := r.c.call(&dap.ScopesRequest{Request: request("scopes"), Arguments: dap.ScopesArguments{FrameId: id}})
		if err != nil {
			return err
		}
		for _, sc := range resp.(*dap.ScopesResponse).Body.Scopes {
			// (locals shows this, and the return value after a step out)
			extra := scope == "Locals" && (sc.Name == "this" || sc.PresentationHint == "returnValue")
			if sc.Name != scope && !extra {
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
	vars, err := r.variablesAt(ref) // (repl_locations.go)
	out := make([]dap.Variable, len(vars))
	for i, v := range vars {
		out[i] = v.Variable
	}
	return out, err
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
	b := resp.(*api.EvaluateResponse).Body
	r.printf("%s%s\n", b.Result, r.at(b.ValueLocationReference)) // (repl_locations.go)
	if b.VariablesReference != 0 {
		vars, err := r.variablesAt(b.VariablesReference)
		if err == nil {
			for i, v := range vars {
				if i == 20 {
					r.printf("  …\n")
					break
				}
				r.printf("  %s = %s%s\n", v.Name, v.Value, r.at(v.ValueLocationReference))
			}
		}
	}
	return nil
}

// cmdSet assigns: a local (x = e), a field (obj.f = e) or an element
// (a[i] = e), through DAP setVariable on the container.
func cmdSet(r *repl, args string) error {
	if rest, ok := strings.CutPrefix(args, "non-stop"); ok && !strings.Contains(rest, "=") {
		return cmdNonStop(r, rest) // gdb's set non-stop on|off
	}
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
	// The note a set may cause (the run leaves its recording) follows
	// the response; the answer to one more request comes after it.
	r.threads()
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
		return 0, "", r.notStopped()
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
	ref := resp.(*api.EvaluateResponse).Body.VariablesReference
	if ref == 0 {
		return 0, fmt.Errorf("%s has no fields or elements", expr)
	}
	return ref, nil
}

func cmdList(r *repl, args string) error {
	file, line := r.file, r.line
	if a, b, ok := strings.Cut(args, ","); ok {
		// list N,M (in the current file), or FILE:N,M
		a = strings.TrimSpace(a)
		if i := strings.LastIndexByte(a, ':'); i >= 0 {
			path, ok, err := r.findFile(a[:i])
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("no source file %s", a[:i])
			}
			file, a = path, a[i+1:]
		}
		lo, err1 := parseLine(a)
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
				b.file = srcKey(fn.Source)
			}
			b.line = fn.Line
		}
		file, line = b.file, b.line
	}
	if file == "" {
		return errors.New("no current source file")
	}
	if n := r.lineCount(file); args != "" && n > 0 && line > n {
		return fmt.Errorf("line %d is past the end of %s (%d lines)", line, r.shortName(file), n)
	}
	return r.listRange(file, line-5, line+5)
}

// lineCount returns the number of lines of a source file (0: unknown).
func (r *repl) lineCount(file string) int {
	lines := r.sourceLines(file)
	n := len(lines)
	if n > 0 && lines[n-1] == "" {
		n-- // the newline that ends the last line
	}
	return n
}

// listRange lists lines [lo, hi] of file, refusing lines past its end.
func (r *repl) listRange(file string, lo, hi int) error {
	n := len(r.sourceLines(file))
	if n > 0 && r.sourceLines(file)[n-1] == "" {
		n-- // the newline that ends the last line
	}
	if n == 0 {
		return fmt.Errorf("no source for %s", r.shortName(file))
	}
	if max(lo, 1) > n {
		return fmt.Errorf("line %d is past the end of %s (%d lines)", max(lo, 1), r.shortName(file), n)
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
	var restartArgs json.RawMessage
	if file, ok := strings.CutPrefix(strings.TrimSpace(args), "<"); ok {
		// run < FILE: the program reads FILE (and does on later restarts)
		file = strings.TrimSpace(file)
		if file == "" {
			return errors.New("usage: run < FILE")
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("run < %s: %v", file, err)
		}
		if r.attached {
			return errors.New("restart is not available when attached")
		}
		r.launch["stdin"] = abs
		restartArgs = rawArgs(map[string]any{"arguments": r.launch})
		args = ""
	}
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
	if r.termIn != nil {
		r.termIn.reset()
	}
	if _, err := r.c.call(&dap.RestartRequest{Request: request("restart"), Arguments: restartArgs}); err != nil {
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
