package inspect

import (
	"errors"
	"fmt"

	"github.com/nlangdbg/nlangdbg/vm"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// MetaPrefix starts a debugger command typed where an expression is
// expected (a DAP client's debug console: `:sched step`).
const MetaPrefix = ":"

// MetaHelp lists the debugger commands MetaCommand understands.
const MetaHelp = `debugger commands (type them with a leading ':' in a debug console):
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
  threads [-state S] [-func F] [-group func|wait]   list threads
  disasm [FUNC]         bytecode of the selected frame's function (or FUNC)
  funcs                 the program's functions
  locate FUNC           where FUNC is declared (file:line)
  breakpoints           hit counts of the breakpoints
  ignore ID COUNT       let breakpoint ID go on through its next COUNT hits
  rev next|step|stepout|continue    go back (one carrier: the session records)
  checkpoint [NOTE]     name the present; checkpoints lists them
  restart CHECKPOINT    go to a checkpoint
  when                  where the session is in its recording
  dump FILE             write the present to FILE (nlangdbg debug --core FILE)`

// MetaCommand runs a debugger command that DAP has no request for and
// returns its output. threadID and depth are the thread and frame the
// client has selected (the default THREAD). The leading MetaPrefix, if
// any, is ignored.
func (s *Session) MetaCommand(threadID int64, depth int, line string) (string, error) {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), MetaPrefix))
	f := strings.Fields(line)
	if len(f) == 0 || f[0] == "help" {
		return MetaHelp, nil
	}
	thread := func(i int) (int64, error) {
		if len(f) <= i {
			if threadID == 0 {
				return 0, fmt.Errorf("no thread selected: give a thread id")
			}
			return threadID, nil
		}
		return parseThreadID(f[i])
	}
	if out, ok, err := s.reverseCommand(threadID, f); ok {
		return out, err
	}
	switch f[0] {
	case "sched":
		if len(f) == 1 {
			v, err := s.SchedView()
			if err != nil {
				return "", err
			}
			return FormatSched(v), nil
		}
		switch f[1] {
		case "step":
			d, err := s.SchedStep()
			if err != nil {
				return "", err
			}
			return FormatDispatch(d), nil
		case "next":
			id, err := thread(2)
			if err != nil {
				return "", err
			}
			if err := s.SchedNext(id); err != nil {
				return "", err
			}
			return fmt.Sprintf("next dispatch: thread %d", id), nil
		case "breaks":
			return strings.Join(s.SchedBreaks(), " "), nil
		case "graph":
			g, err := s.WaitGraph()
			if err != nil {
				return "", err
			}
			return FormatWaitGraph(g), nil
		case "quota":
			if len(f) < 3 {
				return fmt.Sprintf("quota %d", s.sch.Quota()), nil
			}
			n, err := strconv.Atoi(f[2])
			if err != nil {
				return "", fmt.Errorf("sched quota: %s", numberError(f[2], err))
			}
			if err := s.SetQuota(n); err != nil {
				return "", err
			}
			return fmt.Sprintf("quota %d", n), nil
		}
		return "", fmt.Errorf("unknown sched command %q (want step, next, quota, graph)", f[1])
	case "freeze", "thaw":
		id, err := thread(1)
		if err != nil {
			return "", err
		}
		if f[0] == "freeze" {
			err = s.Freeze(id)
		} else {
			err = s.Thaw(id)
		}
		if err != nil {
			return "", err
		}
		done := map[string]string{"freeze": "frozen", "thaw": "thawed"}[f[0]]
		return fmt.Sprintf("thread %d %s", id, done), nil
	case "break":
		if len(f) >= 2 && f[1] == "safepoint" {
			id, err := thread(2)
			if err != nil {
				return "", err
			}
			if err := s.BreakSafepoint(id); err != nil {
				return "", err
			}
			return fmt.Sprintf("thread %d will stop at its next safepoint", id), nil
		}
		if len(f) >= 3 && f[1] == "sched" {
			if err := s.BreakSched(f[2], true); err != nil {
				return "", err
			}
			return fmt.Sprintf("will stop at scheduler events: %s", strings.Join(s.SchedBreaks(), ", ")), nil
		}
		return "", fmt.Errorf("break: want `break safepoint [THREAD]` or `break sched KIND`")
	case "clear":
		if len(f) >= 3 && f[1] == "sched" {
			if err := s.BreakSched(f[2], false); err != nil {
				return "", err
			}
			return "cleared", nil
		}
		return "", fmt.Errorf("clear: want `clear sched KIND`")
	case "threads":
		return s.threadsCommand(f[1:])
	case "funcs":
		var names []string
		seen := map[string]bool{}
		for _, fn := range s.prog.Funcs {
			if !strings.HasPrefix(fn.File, "<") && !seen[fn.Name] && !strings.Contains(fn.Name, "<") {
				seen[fn.Name] = true
				names = append(names, fn.Name)
			}
		}
		sort.Strings(names)
		return strings.Join(names, "\n"), nil
	case "disasm":
		return s.disasmCommand(threadID, depth, f[1:])
	case "locate":
		if len(f) != 2 {
			return "", fmt.Errorf("usage: locate FUNC")
		}
		return s.locateFunc(f[1])
	}
	return "", fmt.Errorf("unknown debugger command %q (see :help)", f[0])
}

// threadsCommand lists threads with filters and grouping.
func (s *Session) threadsCommand(args []string) (string, error) {
	ths, err := s.Threads()
	if err != nil {
		return "", err
	}
	var state, fn, group string
	for i := 0; i < len(args); i++ {
		if i+1 >= len(args) {
			return "", fmt.Errorf("threads: %s needs a value", args[i])
		}
		switch args[i] {
		case "-state":
			state = args[i+1]
		case "-func":
			fn = args[i+1]
		case "-group":
			group = args[i+1]
			if group != "func" && group != "wait" {
				return "", fmt.Errorf("threads: -group takes func or wait")
			}
		default:
			return "", fmt.Errorf("threads: unknown flag %s", args[i])
		}
		i++
	}
	var sel []ThreadInfo
	for _, t := range ths {
		if state != "" && t.State != state && t.WaitReason != state {
			continue
		}
		if fn != "" && !strings.Contains(t.Func, fn) {
			continue
		}
		sel = append(sel, t)
	}
	var b strings.Builder
	if group == "" {
		for _, t := range sel {
			b.WriteString(FormatThread(t) + "\n")
		}
		fmt.Fprintf(&b, "%d threads", len(sel))
		if len(sel) != len(ths) {
			fmt.Fprintf(&b, " (of %d)", len(ths))
		}
		return b.String(), nil
	}
	groups := map[string][]ThreadInfo{}
	for _, t := range sel {
		k := t.Func
		if group == "wait" {
			k = t.WaitReason
			if k == "" {
				k = t.State
			}
		}
		groups[k] = append(groups[k], t)
	}
	var keys []string
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(groups[keys[i]]) != len(groups[keys[j]]) {
			return len(groups[keys[i]]) > len(groups[keys[j]])
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		g := groups[k]
		var ids []string
		for i, t := range g {
			if i == 8 {
				ids = append(ids, "…")
				break
			}
			ids = append(ids, strconv.FormatInt(t.ID, 10))
		}
		fmt.Fprintf(&b, "%6d  %-30s threads %s\n", len(g), k, strings.Join(ids, " "))
	}
	fmt.Fprintf(&b, "%d threads in %d groups", len(sel), len(keys))
	return b.String(), nil
}

// FormatThread renders a thread on one line: id, name, state or wait
// reason, location; a star marks the stopped thread.
func FormatThread(t ThreadInfo) string {
	mark := " "
	if t.Stopped {
		mark = "*"
	}
	state := t.State
	if t.WaitReason != "" {
		state = t.WaitReason
	}
	loc := ""
	if t.Func != "" {
		loc = fmt.Sprintf("%s (%s:%d)", t.Func, filepath.Base(t.File), t.Line)
	}
	return fmt.Sprintf("%s %5s %-14q %-16s %s", mark, fmt.Sprintf("[%d]", t.ID), t.Name, state, loc)
}

// FormatSched renders a scheduler snapshot.
func FormatSched(v SchedInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "quota %d reductions per dispatch\n", v.Quota)
	for _, c := range v.Carriers {
		if c.Running == 0 {
			fmt.Fprintf(&b, "carrier %d: idle (the world is stopped)\n", c.ID)
		} else {
			fmt.Fprintf(&b, "carrier %d: running thread %d\n", c.ID, c.Running)
		}
	}
	fmt.Fprintf(&b, "run queue (%d):\n", len(v.RunQueue))
	for i, t := range v.RunQueue {
		fmt.Fprintf(&b, "%4d. %s\n", i+1, FormatThread(t))
	}
	fmt.Fprintf(&b, "parked (%d):\n", len(v.Parked))
	for _, t := range v.Parked {
		fmt.Fprintf(&b, "      %s\n", FormatThread(t))
	}
	if len(v.Frozen) > 0 {
		fmt.Fprintf(&b, "frozen (%d):\n", len(v.Frozen))
		for _, t := range v.Frozen {
			fmt.Fprintf(&b, "      %s\n", FormatThread(t))
		}
	}
	fmt.Fprintf(&b, "timers (%d):", len(v.Timers))
	for _, tm := range v.Timers {
		if tm.In <= 0 {
			fmt.Fprintf(&b, "\n  thread %d %q wakes now (due)", tm.ThreadID, tm.Name)
			continue
		}
		fmt.Fprintf(&b, "\n  thread %d %q wakes in %v", tm.ThreadID, tm.Name, tm.In.Round(1e6))
	}
	return b.String()
}

// FormatDispatch renders one dispatch of SchedStep.
func FormatDispatch(d DispatchInfo) string {
	if d.ThreadID == 0 {
		return "nothing ran: " + d.Why
	}
	s := fmt.Sprintf("dispatched thread %d %q: %d reductions, stopped: %s", d.ThreadID, d.Name, d.Reductions, d.Why)
	if len(d.Woken) > 0 {
		s += fmt.Sprintf("; woke %v", d.Woken)
	}
	if len(d.Spawned) > 0 {
		s += fmt.Sprintf("; spawned %v", d.Spawned)
	}
	return s
}

// disasmCommand lists the bytecode of a function, marking the selected
// frame's pc.
func (s *Session) disasmCommand(threadID int64, depth int, args []string) (string, error) {
	var fn *vm.Funcode
	var pc int32 = -1
	if len(args) > 0 {
		for _, f := range s.prog.Funcs {
			if f.Name == args[0] {
				fn = f
				break
			}
		}
		if fn == nil {
			return "", fmt.Errorf("no function %s", args[0])
		}
	} else {
		if err := s.checkStopped(); err != nil {
			return "", err
		}
		t, err := s.thread(threadID)
		if err != nil {
			return "", err
		}
		if depth < 0 || depth >= t.Depth() {
			return "", ErrNoFrame
		}
		df := t.DebugFrame(depth)
		fn, pc = df.Func(), df.PC()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "func %s (%s:%d)\n", fn.Name, filepath.Base(fn.File), fn.Line)
	for i := range fn.Code {
		mark := "  "
		if int32(i) == pc {
			mark = "=>"
		}
		line, _ := fn.Pos(int32(i))
		fmt.Fprintf(&b, "%s %4d %5d  %s\n", mark, line, i, fn.FormatInstr(int32(i)))
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// parseThreadID reads a thread id ("3" or "#3").
func parseThreadID(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("thread %s", numberError(s, err))
	}
	return n, nil
}

// numberError says in the user's words why s is not a usable number.
func numberError(s string, err error) string {
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Sprintf("%s is too large", s)
	}
	return fmt.Sprintf("%q is not a whole number", s)
}

// locateFunc says where a function is declared: "FILE:LINE" (the first
// overload's).
func (s *Session) locateFunc(name string) (string, error) {
	for _, fn := range s.prog.Funcs {
		if fn.Name == name && !strings.HasPrefix(fn.File, "<") {
			return fmt.Sprintf("%s:%d", fn.File, fn.Line), nil
		}
	}
	return "", fmt.Errorf("no function %s", name)
}
