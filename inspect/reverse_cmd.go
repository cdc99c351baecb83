package inspect

import (
	"fmt"
	"strconv"
	"strings"
)

// reverseCommand runs the debugger commands of going back (see MetaHelp)
// and reports whether f is one. The commands that move the program stop
// it again with a Stopped event.
func (s *Session) reverseCommand(threadID int64, f []string) (string, bool, error) {
	switch f[0] {
	case "rev":
		if len(f) < 2 {
			return "", true, fmt.Errorf("rev: want next, step, stepout or continue")
		}
		if threadID == 0 {
			threadID = 1
		}
		var err error
		switch f[1] {
		case "next":
			err = s.StepBack(threadID, StepOver)
		case "step":
			err = s.StepBack(threadID, StepIn)
		case "stepout":
			err = s.StepBack(threadID, StepOut)
		case "continue":
			err = s.ReverseContinue(threadID)
		default:
			return "", true, fmt.Errorf("rev: unknown %q (want next, step, stepout or continue)", f[1])
		}
		return "", true, err
	case "checkpoint":
		cp, err := s.AddCheckpoint(strings.Join(f[1:], " "))
		if err != nil {
			return "", true, err
		}
		return fmt.Sprintf("Checkpoint %d: %s", cp.ID, cp.Where), true, nil
	case "checkpoints":
		if !s.CanGoBack() {
			return "", true, ErrNoRecording
		}
		var b strings.Builder
		cps := s.Checkpoints()
		if len(cps) == 0 {
			b.WriteString("No checkpoints.\n")
		}
		for _, cp := range cps {
			fmt.Fprintf(&b, "%3d  %s", cp.ID, cp.Where)
			if cp.Note != "" {
				fmt.Fprintf(&b, "  %q", cp.Note)
			}
			b.WriteString("\n")
		}
		w, err := s.When()
		if err == nil {
			fmt.Fprintf(&b, "the recording: %d bytes in memory\n", w.Size)
		}
		st := s.SnapshotStats()
		fmt.Fprintf(&b, "copies of the execution: %d kept (%d taken, %d dropped to stay within the budget), %s of %s",
			st.Kept, st.Taken, st.Dropped, mib(st.Bytes), mib(st.Budget))
		if st.Stopped == "" {
			fmt.Fprintf(&b, ", one every %v of run or more; going back re-executes from the nearest one before the target", st.Interval)
		} else {
			fmt.Fprintf(&b, "; no more are taken (%s): going back re-executes from the last one kept or from the start", st.Stopped)
		}
		return strings.TrimRight(b.String(), "\n"), true, nil
	case "restart":
		if len(f) != 2 {
			return "", true, fmt.Errorf("restart: want a checkpoint id")
		}
		id, err := strconv.Atoi(f[1])
		if err != nil {
			return "", true, fmt.Errorf("restart: %q is not a checkpoint id", f[1])
		}
		return "", true, s.RestartAt(id)
	case "dump":
		if len(f) != 2 {
			return "", true, fmt.Errorf("dump: want a file name")
		}
		if err := s.Dump(f[1]); err != nil {
			return "", true, err
		}
		return fmt.Sprintf("Dumped the present to %s (nlangdbg debug --core %s opens it)", f[1], f[1]), true, nil
	case "when":
		w, err := s.When()
		if err != nil {
			return "", true, err
		}
		return FormatWhere(w), true, nil
	}
	return "", false, nil
}

// FormatWhere renders When's answer.
func FormatWhere(w Where) string {
	if !w.Recording {
		return "not recording (going back needs one carrier)"
	}
	var b strings.Builder
	if w.Thread == 0 {
		b.WriteString("at the start of the recording")
	} else {
		fmt.Fprintf(&b, "thread %d, %d reductions into it", w.Thread, w.Reductions)
	}
	fmt.Fprintf(&b, "; event byte %d of %d", w.Offset, w.Size-w.HeaderSize)
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
