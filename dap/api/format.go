package api

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The text forms of the custom requests' answers: what the terminal
// debugger prints, and what a ':' command answers in a debug console.

// FormatThread renders a thread on one line: id, name, state or wait
// reason, location; a star marks the thread the last stop is about.
func FormatThread(t Thread) string {
	mark := " "
	if t.Stopped {
		mark = "*"
	}
	state := t.State
	if t.WaitReason != "" {
		state = t.WaitReason
	}
	loc := ""
	if t.Function != "" {
		file := ""
		if t.Source != nil {
			file = t.Source.Name
		}
		loc = fmt.Sprintf("%s (%s:%d)", t.Function, file, t.Line)
	}
	return fmt.Sprintf("%s %5s %-14q %-16s %s", mark, fmt.Sprintf("[%d]", t.ID), t.Name, state, loc)
}

// FormatThreads renders a thread list, one line each, and the count.
func FormatThreads(b ThreadsBody) string {
	var s strings.Builder
	for _, t := range b.Threads {
		s.WriteString(FormatThread(t) + "\n")
	}
	s.WriteString(Count(len(b.Threads), "thread"))
	if len(b.Threads) != b.Total {
		fmt.Fprintf(&s, " (of %d)", b.Total)
	}
	return s.String()
}

// FormatThreadGroups renders thread groups, one line each (at most 8
// ids), and the counts.
func FormatThreadGroups(b ThreadGroupsBody) string {
	var s strings.Builder
	for _, g := range b.Groups {
		var ids []string
		for i, id := range g.ThreadIDs {
			if i == 8 {
				break
			}
			ids = append(ids, strconv.FormatInt(id, 10))
		}
		if g.Count > 8 {
			ids = append(ids, "…")
		}
		if len(g.Stack) > 0 { // parallel stacks: the frames below the count
			fmt.Fprintf(&s, "%6d  threads %s\n", g.Count, strings.Join(ids, " "))
			for _, f := range g.Stack {
				fmt.Fprintf(&s, "          %s\n", f)
			}
			continue
		}
		fmt.Fprintf(&s, "%6d  %-30s threads %s\n", g.Count, g.Key, strings.Join(ids, " "))
	}
	fmt.Fprintf(&s, "%s in %s", Count(b.Selected, "thread"), Count(len(b.Groups), "group"))
	return s.String()
}

// FormatScheduler renders the scheduler's state.
func FormatScheduler(v SchedulerBody) string {
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
		if tm.InMs <= 0 {
			fmt.Fprintf(&b, "\n  thread %d %q wakes now (due)", tm.ThreadID, tm.Name)
			continue
		}
		in := time.Duration(tm.InMs * float64(time.Millisecond)).Round(time.Millisecond)
		fmt.Fprintf(&b, "\n  thread %d %q wakes in %v", tm.ThreadID, tm.Name, in)
	}
	return b.String()
}

// FormatDispatch renders one dispatch of CmdSchedStep.
func FormatDispatch(d DispatchBody) string {
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

// FormatGraph renders the wait graph: one line per waiting thread (what
// it waits on, and who holds that), then the deadlock cycles.
func FormatGraph(g Graph) string {
	names := map[string]string{}
	objs := map[string]Node{}
	for _, n := range g.Nodes {
		if n.Kind == "thread" {
			names[n.ID] = n.Name
		} else {
			objs[n.ID] = n
		}
	}
	thread := func(node string) string {
		id := strings.TrimPrefix(node, "t")
		if n := names[node]; n != "" {
			return fmt.Sprintf("thread %s %q", id, n)
		}
		return "thread " + id
	}
	out := map[string]Edge{}
	for _, e := range g.Edges {
		if strings.HasPrefix(e.From, "o") {
			out[e.From] = e
		}
	}
	mark := func(e Edge) string {
		if e.Cycle {
			return "*"
		}
		return ""
	}
	var b strings.Builder
	n := 0
	for _, e := range g.Edges {
		if !strings.HasPrefix(e.From, "t") {
			continue
		}
		n++
		o := objs[e.To]
		fmt.Fprintf(&b, "%s --%s%s--> %s %s", thread(e.From), e.Label, mark(e), o.ID, o.Label)
		if oe, ok := out[e.To]; ok {
			fmt.Fprintf(&b, " --%s%s--> %s", oe.Label, mark(oe), thread(oe.To))
		}
		b.WriteString("\n")
	}
	if n == 0 {
		b.WriteString("no thread waits on anything\n")
	}
	for _, c := range g.Cycles {
		var parts []string
		for _, id := range c {
			parts = append(parts, thread(fmt.Sprintf("t%d", id)))
		}
		parts = append(parts, thread(fmt.Sprintf("t%d", c[0])))
		fmt.Fprintf(&b, "deadlock cycle (*): %s\n", strings.Join(parts, " -> "))
	}
	if g.Deadlock {
		b.WriteString("the scheduler found a deadlock: all threads are asleep\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// FormatQuota renders the quota.
func FormatQuota(b QuotaBody) string { return fmt.Sprintf("quota %d", b.Quota) }

// FormatSchedBreaks renders the kinds of scheduler events that stop
// after a change (set: added, else removed).
func FormatSchedBreaks(a SchedBreaksArgs, b SchedBreaksBody) string {
	switch {
	case a.Kind == "":
		return strings.Join(b.Kinds, " ")
	case a.Set:
		return "will stop at scheduler events: " + strings.Join(b.Kinds, ", ")
	}
	return "cleared"
}

// FormatFreeze renders a freeze or thaw.
func FormatFreeze(a FreezeArgs) string {
	if a.Frozen {
		return fmt.Sprintf("thread %d frozen", a.ThreadID)
	}
	return fmt.Sprintf("thread %d thawed", a.ThreadID)
}

// FormatSchedNext renders the choice of the next dispatch.
func FormatSchedNext(a ThreadArgs) string { return fmt.Sprintf("next dispatch: thread %d", a.ThreadID) }

// FormatBreakSafepoint renders a safepoint stop asked for.
func FormatBreakSafepoint(a ThreadArgs) string {
	return fmt.Sprintf("thread %d will stop at its next safepoint", a.ThreadID)
}

// FormatFunctions renders function names, one a line.
func FormatFunctions(b FunctionsBody) string {
	names := make([]string, len(b.Functions))
	for i, f := range b.Functions {
		names[i] = f.Name
	}
	sort.Strings(names)
	return strings.Join(names, "\n")
}

// FormatLocation renders where a function is declared: FILE:LINE.
func FormatLocation(f Function) string {
	path := ""
	if f.Source != nil {
		path = f.Source.Path
		if path == "" {
			path = f.Source.Name
		}
	}
	return fmt.Sprintf("%s:%d", path, f.Line)
}

// FormatDisassemble renders a function's bytecode, "=>" at the frame's pc.
func FormatDisassemble(d DisassembleBody) string {
	var b strings.Builder
	file := ""
	if d.Source != nil {
		file = d.Source.Name
	}
	fmt.Fprintf(&b, "func %s (%s:%d)\n", d.Function, file, d.Line)
	for _, in := range d.Instructions {
		mark := "  "
		if in.Current {
			mark = "=>"
		}
		fmt.Fprintf(&b, "%s %4d %5d  %s\n", mark, in.Line, in.PC, in.Text)
	}
	return strings.TrimRight(b.String(), "\n")
}

// FormatBreakpoints renders the breakpoints' counts, one a line.
func FormatBreakpoints(b BreakpointsBody) string {
	var s strings.Builder
	for _, bp := range b.Breakpoints {
		fmt.Fprintf(&s, "%d hits %d ignore %d\n", bp.ID, bp.Hits, bp.Ignore)
	}
	return strings.TrimRight(s.String(), "\n")
}

// FormatIgnore renders an ignore count set.
func FormatIgnore(a IgnoreArgs) string {
	if a.Count == 0 {
		return fmt.Sprintf("breakpoint %d will stop at its next hit", a.ID)
	}
	return fmt.Sprintf("breakpoint %d will ignore its next %d hits", a.ID, a.Count)
}

// FormatCheckpoint renders a checkpoint made.
func FormatCheckpoint(c Checkpoint) string { return fmt.Sprintf("Checkpoint %d: %s", c.ID, c.Where) }

// FormatCheckpoints renders the checkpoints and the copies of the
// execution.
func FormatCheckpoints(c CheckpointsBody) string {
	var b strings.Builder
	if len(c.Checkpoints) == 0 {
		b.WriteString("No checkpoints.\n")
	}
	for _, cp := range c.Checkpoints {
		fmt.Fprintf(&b, "%3d  %s", cp.ID, cp.Where)
		if cp.Note != "" {
			fmt.Fprintf(&b, "  %q", cp.Note)
		}
		b.WriteString("\n")
	}
	if c.RecordingBytes > 0 {
		fmt.Fprintf(&b, "the recording: %d bytes in memory\n", c.RecordingBytes)
	}
	st := c.Copies
	near := ""
	switch {
	case st.Near == 1:
		near = " (1 near a moment gone back to)"
	case st.Near > 1:
		near = fmt.Sprintf(" (%d near moments gone back to)", st.Near)
	}
	fmt.Fprintf(&b, "copies of the execution: %d kept (%d taken%s, %d dropped to stay within the budget), %s of %s",
		st.Kept, st.Taken, near, st.Dropped, mib(st.Bytes), mib(st.Budget))
	if st.Stopped == "" {
		interval := time.Duration(st.IntervalMs * float64(time.Millisecond))
		fmt.Fprintf(&b, ", one every %v of run or more; going back re-executes from the nearest one before the target", interval)
	} else {
		fmt.Fprintf(&b, "; no more are taken (%s): going back re-executes from the last one kept or from the start", st.Stopped)
	}
	if st.Restores > 0 {
		fmt.Fprintf(&b, "\ngoing back started %s from a copy (%d from one restored ahead, while the session waited)",
			Count(st.Restores, "re-execution"), st.Spares)
	}
	if st.CatchUps > 0 {
		fmt.Fprintf(&b, "\ncaught up at stops: %s in the background, %d of them took a copy near their stop",
			Count(st.CatchUps, "re-execution"), st.CaughtUp)
	}
	return b.String()
}

// FormatDump renders a dump written.
func FormatDump(a DumpArgs) string {
	return fmt.Sprintf("Dumped the present to %s (nlangdbg debug --core %s opens it)", a.Path, a.Path)
}

// FormatWhen renders where the session is in its recording.
func FormatWhen(w WhenBody) string {
	if !w.Recording {
		return "not recording (going back needs one carrier)"
	}
	var b strings.Builder
	if w.Thread == 0 {
		b.WriteString("at the start of the recording")
	} else {
		fmt.Fprintf(&b, "thread %d, %d reductions into it", w.Thread, w.Reductions)
	}
	fmt.Fprintf(&b, "; event byte %d of %d", w.Offset, w.Size)
	if w.Replaying {
		b.WriteString(" (in the recorded past: going forward re-executes the recording, without showing its output again)")
	} else {
		b.WriteString(" (at the frontier: going forward records)")
	}
	if w.Forked != "" {
		b.WriteString("\nthe recording forked: " + w.Forked)
	}
	return b.String()
}

// mib renders a size in MiB with one decimal.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// Count is n and the noun, in the plural unless n is 1 ("1 thread",
// "3 threads").
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
