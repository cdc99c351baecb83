package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// ConsolePrefix starts a debugger command typed where an expression is
// expected (a DAP client's debug console: `:sched step`).
const ConsolePrefix = ":"

// ConsoleHelp lists the commands ParseConsole understands.
const ConsoleHelp = `debugger commands (type them with a leading ':' in a debug console):
  sched                 carriers, run queue, parked threads, timers
  sched step            dispatch exactly one quantum, then stop
  sched next THREAD     the next dispatch takes THREAD
  sched quota N         reductions per dispatch
  sched graph           who waits for whom (a deadlock cycle marked *)
  freeze THREAD         keep THREAD off the run queue
  thaw THREAD           undo freeze
  break safepoint [THREAD]          stop THREAD at its next safepoint
  break sched spawn|park|wake|exit|deadlock   stop at scheduler events
  clear sched KIND      remove a scheduler-event stop
  threads [-state S] [-func F] [-with|-without KEY [VALUE]]... [-group-by KEY | -tree]
                        list threads, filtered; count them by KEY (function,
                        location, state, waitReason, spawnSite, stack); or show
                        who spawned whom
  leaks [-stack]        threads parked on what no thread that can run reaches
  disasm [FUNC]         bytecode of the selected frame's function (or FUNC)
  funcs                 the program's functions
  locate FUNC           where FUNC is declared (file:line)
  breakpoints           hit counts of the breakpoints
  ignore ID COUNT       let breakpoint ID go on through its next COUNT hits
  rev next|step|stepout|continue    go back (one carrier: the session records)
  checkpoint [NOTE]     name the present; checkpoints lists them
  restart CHECKPOINT    go to a checkpoint
  when                  where the session is in its recording
  dump FILE             write the present to FILE (nlangdbg debug --core FILE)
  nonstop [on|off]      non-stop mode: breakpoints that name no mode stop their
                        thread only, pause pauses one thread
  last EXPR [N]         the latest N writes to a local, EXPR.FIELD or EXPR[INDEX]
  origin EXPR           where the value of EXPR came from
  query FILE:LINE EXPR [if COND]   EXPR at every execution of the line so far
  timeline [THREAD]     what happened to THREAD: spawn, runs, parks, wakes, stops, end
  travel MOMENT         go to a moment of an answer (the [..] before it)
  reload [-move]        install the edited files' code in the paused program
  whatif [FILE:LINE EXPR]   re-execute the recorded run with the edited code: where does it differ?`

// CmdReverseContinue is the standard reverseContinue request, which the
// console's `rev continue` sends (its arguments: ThreadArgs).
const CmdReverseContinue = "reverseContinue"

// Call is a request a console command stands for.
type Call struct {
	Command string // a custom request (Cmd…) or CmdReverseContinue
	Args    any    // its arguments (a value of the type the command takes)
	// Help is set instead for `help`: ConsoleHelp is the answer.
	Help bool
	// Locate asks for one function's location (`locate FUNC`), which is
	// CmdFunctions answered in another form.
	Locate bool
	// Tree asks for the threads as the spawn tree (`threads -tree`),
	// CmdThreads answered in another form.
	Tree bool
}

// ErrNoThread is returned by ParseConsole for a command that needs a
// thread when none is selected or given.
var ErrNoThread = errors.New("no thread selected: give a thread id")

// ParseConsole reads a console command (with or without its leading ':')
// into the request it stands for. thread and depth are the selected
// thread (0: none) and frame, the default THREAD and frame.
func ParseConsole(line string, thread int64, depth int) (Call, error) {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), ConsolePrefix))
	f := strings.Fields(line)
	if len(f) == 0 || f[0] == "help" {
		return Call{Help: true}, nil
	}
	threadArg := func(i int) (int64, error) {
		if len(f) <= i {
			if thread == 0 {
				return 0, ErrNoThread
			}
			return thread, nil
		}
		return ParseThreadID(f[i])
	}
	if c, ok, err := parsePast(f, line, thread, depth); ok { // (past.go)
		return c, err
	}
	switch f[0] {
	case "sched":
		if len(f) == 1 {
			return Call{Command: CmdScheduler, Args: None{}}, nil
		}
		switch f[1] {
		case "step":
			return Call{Command: CmdSchedStep, Args: None{}}, nil
		case "next":
			id, err := threadArg(2)
			return Call{Command: CmdSchedNext, Args: ThreadArgs{ThreadID: id}}, err
		case "breaks":
			return Call{Command: CmdSchedBreaks, Args: SchedBreaksArgs{}}, nil
		case "graph":
			return Call{Command: CmdWaitGraph, Args: None{}}, nil
		case "quota":
			if len(f) < 3 {
				return Call{Command: CmdQuota, Args: QuotaArgs{}}, nil
			}
			n, err := strconv.Atoi(f[2])
			if err != nil {
				return Call{}, fmt.Errorf("sched quota: %s", NumberError(f[2], err))
			}
			return Call{Command: CmdQuota, Args: QuotaArgs{Quota: &n}}, nil
		}
		return Call{}, fmt.Errorf("unknown sched command %q (want step, next, quota, graph)", f[1])
	case "freeze", "thaw":
		id, err := threadArg(1)
		return Call{Command: CmdFreeze, Args: FreezeArgs{ThreadID: id, Frozen: f[0] == "freeze"}}, err
	case "break":
		if len(f) >= 2 && f[1] == "safepoint" {
			id, err := threadArg(2)
			return Call{Command: CmdBreakSafepoint, Args: ThreadArgs{ThreadID: id}}, err
		}
		if len(f) >= 3 && f[1] == "sched" {
			return Call{Command: CmdSchedBreaks, Args: SchedBreaksArgs{Kind: f[2], Set: true}}, nil
		}
		return Call{}, fmt.Errorf("break: want `break safepoint [THREAD]` or `break sched KIND`")
	case "clear":
		if len(f) >= 3 && f[1] == "sched" {
			return Call{Command: CmdSchedBreaks, Args: SchedBreaksArgs{Kind: f[2]}}, nil
		}
		return Call{}, fmt.Errorf("clear: want `clear sched KIND`")
	case "threads":
		return parseThreads(f[1:])
	case "leaks":
		var a LeaksArgs
		for _, x := range f[1:] {
			if x != "-stack" {
				return Call{}, fmt.Errorf("leaks: unknown %q (usage: leaks [-stack])", x)
			}
			a.Stack = true
		}
		return Call{Command: CmdLeaks, Args: a}, nil
	case "funcs":
		return Call{Command: CmdFunctions, Args: FunctionsArgs{}}, nil
	case "locate":
		if len(f) != 2 {
			return Call{}, fmt.Errorf("usage: locate FUNC")
		}
		return Call{Command: CmdFunctions, Args: FunctionsArgs{Name: f[1]}, Locate: true}, nil
	case "disasm":
		if len(f) > 1 {
			return Call{Command: CmdDisassemble, Args: DisassembleArgs{Function: f[1]}}, nil
		}
		return Call{Command: CmdDisassemble, Args: DisassembleArgs{ThreadID: thread, Depth: depth}}, nil
	case "breakpoints":
		return Call{Command: CmdBreakpoints, Args: None{}}, nil
	case "ignore":
		if len(f) != 3 {
			return Call{}, fmt.Errorf("usage: ignore BREAKPOINT COUNT")
		}
		id, err1 := strconv.Atoi(f[1])
		n, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil {
			return Call{}, fmt.Errorf("ignore: %q and %q must be whole numbers (usage: ignore BREAKPOINT COUNT)", f[1], f[2])
		}
		return Call{Command: CmdIgnore, Args: IgnoreArgs{ID: id, Count: n}}, nil
	case "rev":
		if len(f) < 2 {
			return Call{}, fmt.Errorf("rev: want next, step, stepout or continue")
		}
		if thread == 0 {
			thread = 1
		}
		kind, ok := map[string]string{"next": "over", "step": "in", "stepout": "out"}[f[1]]
		switch {
		case f[1] == "continue":
			return Call{Command: CmdReverseContinue, Args: ThreadArgs{ThreadID: thread}}, nil
		case ok:
			return Call{Command: CmdStepBack, Args: StepBackArgs{ThreadID: thread, Kind: kind}}, nil
		}
		return Call{}, fmt.Errorf("rev: unknown %q (want next, step, stepout or continue)", f[1])
	case "checkpoint":
		return Call{Command: CmdCheckpoint, Args: CheckpointArgs{Note: strings.Join(f[1:], " ")}}, nil
	case "checkpoints":
		return Call{Command: CmdCheckpoints, Args: None{}}, nil
	case "restart":
		if len(f) != 2 {
			return Call{}, fmt.Errorf("restart: want a checkpoint id")
		}
		id, err := strconv.Atoi(f[1])
		if err != nil {
			return Call{}, fmt.Errorf("restart: %q is not a checkpoint id", f[1])
		}
		return Call{Command: CmdGoToCheckpoint, Args: GoToCheckpointArgs{ID: id}}, nil
	case "dump":
		if len(f) != 2 {
			return Call{}, fmt.Errorf("dump: want a file name")
		}
		return Call{Command: CmdDump, Args: DumpArgs{Path: f[1]}}, nil
	case "when":
		return Call{Command: CmdWhen, Args: None{}}, nil
	case "nonstop":
		var a NonStopArgs
		switch {
		case len(f) == 1:
		case len(f) == 2 && (f[1] == "on" || f[1] == "off"):
			on := f[1] == "on"
			a.On = &on
		default:
			return Call{}, fmt.Errorf("nonstop: want on or off (got %q)", strings.Join(f[1:], " "))
		}
		return Call{Command: CmdNonStop, Args: a}, nil
	case "reload", "whatif":
		return parseReload(f)
	}
	return Call{}, fmt.Errorf("unknown debugger command %q (see :help)", f[0])
}

// parseThreads reads `threads [-state S] [-func F] [-with|-without KEY
// [VALUE]]... [-group-by KEY | -group KEY | -tree]`.
func parseThreads(args []string) (Call, error) {
	var a ThreadsArgs
	group, tree := "", false
	for i := 0; i < len(args); i++ {
		flag := args[i]
		if flag == "-tree" {
			tree = true
			continue
		}
		if i+1 >= len(args) {
			return Call{}, fmt.Errorf("threads: %s needs a value", flag)
		}
		switch flag {
		case "-state":
			a.State = args[i+1]
		case "-func":
			a.Function = args[i+1]
		case "-group", "-group-by":
			group = GroupKey(args[i+1])
			if group == "" {
				return Call{}, fmt.Errorf("threads: %s takes %s (or func, wait, loc, spawn)", flag, strings.Join(GroupKeys, ", "))
			}
		case "-with", "-without":
			key := filterKey(args[i+1])
			if key == "" {
				return Call{}, fmt.Errorf("threads: %s takes %s, parent or leaked, then a value (but leaked)", flag, strings.Join(GroupKeys, ", "))
			}
			w := ThreadFilter{Key: key, Not: flag == "-without"}
			if key != "leaked" {
				if i+2 >= len(args) {
					return Call{}, fmt.Errorf("threads: %s %s needs a value", flag, args[i+1])
				}
				w.Value = args[i+2]
				i++
			}
			a.With = append(a.With, w)
		default:
			return Call{}, fmt.Errorf("threads: unknown flag %s", flag)
		}
		i++
	}
	switch {
	case group != "" && tree:
		return Call{}, fmt.Errorf("threads: -tree or -group-by, not both")
	case group != "":
		return Call{Command: CmdThreadGroups, Args: ThreadGroupsArgs{By: group, ThreadsArgs: a}}, nil
	}
	return Call{Command: CmdThreads, Args: a, Tree: tree}, nil
}

// The keys of CmdThreadGroups.
const (
	GroupByFunction   = "function"
	GroupByWaitReason = "waitReason"
)

// Moves reports whether the call runs program code or moves the program
// to another moment: its answer comes with a stopped event.
func (c Call) Moves() bool {
	switch c.Command {
	case CmdSchedStep, CmdStepBack, CmdReverseContinue, CmdGoToCheckpoint, CmdTravel:
		return true
	}
	return false
}

// Format renders the answer to c: body is the response's body, of the
// type c.Command answers with (None for those that have none).
func (c Call) Format(body any) string {
	if c.Help {
		return ConsoleHelp
	}
	switch a := c.Args.(type) {
	case ThreadArgs:
		switch c.Command {
		case CmdSchedNext:
			return FormatSchedNext(a)
		case CmdBreakSafepoint:
			return FormatBreakSafepoint(a)
		}
	case SchedBreaksArgs:
		if b, ok := body.(SchedBreaksBody); ok {
			return FormatSchedBreaks(a, b)
		}
	case FreezeArgs:
		return FormatFreeze(a)
	case IgnoreArgs:
		return FormatIgnore(a)
	case DumpArgs:
		return FormatDump(a)
	}
	switch b := body.(type) {
	case SchedulerBody:
		return FormatScheduler(b)
	case DispatchBody:
		return FormatDispatch(b)
	case QuotaBody:
		return FormatQuota(b)
	case Graph:
		return FormatGraph(b)
	case ThreadsBody:
		if c.Tree {
			return FormatThreadTree(b)
		}
		return FormatThreads(b)
	case LeaksBody:
		return FormatLeaks(b)
	case ThreadGroupsBody:
		return FormatThreadGroups(b)
	case FunctionsBody:
		if c.Locate && len(b.Functions) > 0 {
			return FormatLocation(b.Functions[0])
		}
		return FormatFunctions(b)
	case DisassembleBody:
		return FormatDisassemble(b)
	case BreakpointsBody:
		return FormatBreakpoints(b)
	case Checkpoint:
		return FormatCheckpoint(b)
	case CheckpointsBody:
		return FormatCheckpoints(b)
	case WhenBody:
		return FormatWhen(b)
	case NonStopBody:
		return FormatNonStop(b)
	case ReloadBody:
		return FormatReload(b)
	case WhatIfBody:
		return FormatWhatIf(b)
	}
	if text, ok := formatPast(body); ok { // (past.go)
		return text
	}
	return ""
}

// NewBody returns a pointer to a new body of the type command answers
// with (nil for a command without a body), for a client to decode into.
func NewBody(command string) any {
	switch command {
	case CmdScheduler:
		return new(SchedulerBody)
	case CmdSchedStep:
		return new(DispatchBody)
	case CmdQuota:
		return new(QuotaBody)
	case CmdSchedBreaks:
		return new(SchedBreaksBody)
	case CmdWaitGraph:
		return new(Graph)
	case CmdThreads:
		return new(ThreadsBody)
	case CmdThreadGroups:
		return new(ThreadGroupsBody)
	case CmdLeaks:
		return new(LeaksBody)
	case CmdLocations:
		return new(LocationsBody)
	case CmdFunctions:
		return new(FunctionsBody)
	case CmdDisassemble:
		return new(DisassembleBody)
	case CmdBreakpoints:
		return new(BreakpointsBody)
	case CmdCheckpoint:
		return new(Checkpoint)
	case CmdCheckpoints:
		return new(CheckpointsBody)
	case CmdWhen:
		return new(WhenBody)
	case CmdNonStop:
		return new(NonStopBody)
	case CmdReload:
		return new(ReloadBody)
	case CmdWhatIf:
		return new(WhatIfBody)
	}
	return newPastBody(command) // (past.go)
}

// ParseThreadID reads a thread id ("3" or "#3").
func ParseThreadID(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("thread %s", NumberError(s, err))
	}
	return n, nil
}

// NumberError says in the user's words why s is not a usable number.
func NumberError(s string, err error) string {
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Sprintf("%s is too large", s)
	}
	return fmt.Sprintf("%q is not a whole number", s)
}

// ConsoleCompletions lists the commands (or a sched subcommand) that may
// follow text, what was typed after the ':'.
func ConsoleCompletions(text string) []string {
	f := strings.Fields(text)
	if len(f) >= 1 && f[0] == "sched" && (len(f) == 2 || len(f) == 1 && strings.HasSuffix(text, " ")) {
		return []string{"step", "next", "quota", "graph"}
	}
	if len(f) > 1 || len(f) == 1 && strings.HasSuffix(text, " ") {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(ConsoleHelp, "\n")[1:] {
		if w := strings.Fields(l); len(w) > 0 && !seen[w[0]] {
			seen[w[0]] = true
			out = append(out, w[0])
		}
	}
	return out
}

// DecodeBody decodes the body of a response to command into a value of
// the type the command answers with (None for a command without one).
func DecodeBody(command string, raw []byte) (any, error) {
	p := NewBody(command)
	if p == nil {
		return None{}, nil
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, fmt.Errorf("%s: bad response body: %v", command, err)
	}
	return reflect.ValueOf(p).Elem().Interface(), nil
}

// FormatNonStop is the text of the session's mode (nlang/nonStop).
func FormatNonStop(b NonStopBody) string {
	if !b.On {
		return "non-stop mode is off: a breakpoint stops every thread (mode \"thread\" stops one)"
	}
	text := "non-stop mode is on: a breakpoint that names no mode stops only the thread that reaches it"
	if len(b.Held) > 0 {
		ids := make([]string, len(b.Held))
		for i, id := range b.Held {
			ids[i] = strconv.FormatInt(id, 10)
		}
		text += "; stopped: " + strings.Join(ids, " ")
	}
	return text
}
