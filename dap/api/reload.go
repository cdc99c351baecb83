package api

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	dap "github.com/google/go-dap"
)

// Edit and continue (see docs/reload.md).
const (
	// CmdReload recompiles the program's edited files and installs the
	// new code in the paused session. ReloadArgs → ReloadBody. A file
	// that does not compile, or a change the running program could not
	// survive, is an error response whose message is the compiler's
	// report (file:line:col), and nothing changes.
	CmdReload = "nlang/reload"
	// CmdWhatIf re-executes the recorded run from the latest checkpoint
	// before the present (or the reload) with the code of the files as
	// they are now, and reports the first place where the new execution
	// differs from the recorded one. WhatIfArgs → WhatIfBody. Nothing of
	// the session changes.
	CmdWhatIf = "nlang/whatIf"
)

// ReloadArgs configure a reload.
type ReloadArgs struct {
	// Move moves each thread's innermost frame in a changed function to
	// the same statement of the new code, where that statement's line is
	// unchanged and every variable the new code has there existed.
	Move bool `json:"move,omitempty"`
	// Sources are texts to compile instead of the files on disk (an
	// editor's unsaved buffers).
	Sources []SourceText `json:"sources,omitempty"`
}

// SourceText is the text of a file.
type SourceText struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// ReloadBody says what a reload changed.
type ReloadBody struct {
	// Unchanged: no file changed; nothing was done.
	Unchanged bool `json:"unchanged,omitempty"`
	// Reload numbers the reloads of the session (1 for the first).
	Reload int `json:"reload,omitempty"`
	// Files are the files whose text changed.
	Files []string `json:"files,omitempty"`
	// Changed, Added and Removed are functions and methods ("f",
	// "Point.move") whose code changed, that are new, that are gone.
	Changed []string `json:"changed,omitempty"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	// Types are the new classes, structs, interfaces and enums.
	Types []string `json:"types,omitempty"`
	// Fields are the fields existing objects gained ("Point.z"), and
	// Objects how many objects gained them.
	Fields  []string `json:"fields,omitempty"`
	Objects int      `json:"objects,omitempty"`
	// Frames are the frames of the functions whose code changed.
	Frames []ReloadFrame `json:"frames,omitempty"`
	// Breakpoints are those whose place changed: moved with their line,
	// or no longer placed (verified false, reason "failed", a message).
	Breakpoints []Breakpoint `json:"breakpoints,omitempty"`
	// Notes say what else changed (the race detector's history, the
	// recorded future).
	Notes []string `json:"notes,omitempty"`
}

// Breakpoint is DAP's Breakpoint with the protocol's reason (1.65:
// "pending" or "failed" for one that is not verified), which go-dap's
// type does not have yet.
type Breakpoint struct {
	dap.Breakpoint
	Reason string `json:"reason,omitempty"`
}

// ReloadFrame is a frame of a function whose code changed, and where it
// goes on.
type ReloadFrame struct {
	ThreadID int64  `json:"threadId"`
	Depth    int    `json:"depth"` // 0: the innermost
	Function string `json:"function"`
	Line     int    `json:"line"`
	// How is FrameOld, FrameNew or FrameMoved.
	How string `json:"how"`
	// Why the frame was not moved (ReloadArgs.Move).
	Why string `json:"why,omitempty"`
}

// What a reload does with a frame of a function whose code changed.
const (
	FrameOld   = "old"   // it finishes on the old code
	FrameNew   = "new"   // it had not started: it runs the new code from its entry
	FrameMoved = "moved" // it goes on at the same statement of the new code
)

// FormatReload renders what a reload did.
func FormatReload(b ReloadBody) string {
	if b.Unchanged {
		return "Nothing to reload: no file of the program changed"
	}
	var s strings.Builder
	var files []string
	for _, f := range b.Files {
		files = append(files, filepath.Base(f))
	}
	fmt.Fprintf(&s, "Reload %d: %s", b.Reload, strings.Join(files, ", "))
	list := func(what string, names []string) {
		if len(names) > 0 {
			fmt.Fprintf(&s, "\n  %s: %s", what, strings.Join(names, ", "))
		}
	}
	list("changed", b.Changed)
	list("added", b.Added)
	list("removed", b.Removed)
	list("new types", b.Types)
	if len(b.Fields) > 0 {
		fmt.Fprintf(&s, "\n  new fields: %s (%d existing objects got them)", strings.Join(b.Fields, ", "), b.Objects)
	}
	if len(b.Changed)+len(b.Added)+len(b.Removed)+len(b.Types)+len(b.Fields) == 0 {
		s.WriteString("\n  no code changed (only positions or comments)")
	}
	for _, f := range b.Frames {
		fmt.Fprintf(&s, "\n  thread %d frame %d %s (line %d): ", f.ThreadID, f.Depth, f.Function, f.Line)
		switch f.How {
		case FrameNew:
			s.WriteString("runs the new code from its entry")
		case FrameMoved:
			s.WriteString("moved to the same statement of the new code")
		default:
			s.WriteString("finishes on the old code (restart the frame to run the new code)")
			if f.Why != "" {
				s.WriteString("; not moved: " + f.Why)
			}
		}
	}
	for _, bp := range b.Breakpoints {
		if bp.Verified {
			fmt.Fprintf(&s, "\n  breakpoint %d: now at line %d", bp.Id, bp.Line)
		} else {
			fmt.Fprintf(&s, "\n  breakpoint %d: not placed: %s", bp.Id, bp.Message)
		}
	}
	for _, n := range b.Notes {
		s.WriteString("\n  note: " + n)
	}
	return s.String()
}

// WhatIfArgs configure a what-if re-execution. With Line and Expression
// it also compares the values of Expression each time a thread reaches
// Line of File (a line of the files as they are now).
type WhatIfArgs struct {
	File       string `json:"file,omitempty"`
	Line       int    `json:"line,omitempty"`
	Expression string `json:"expression,omitempty"`
	// Sources are texts to compile instead of the files on disk.
	Sources []SourceText `json:"sources,omitempty"`
}

// WhatIfBody reports a what-if re-execution.
type WhatIfBody struct {
	// From is where the re-execution started: "the start" or a
	// checkpoint's moment.
	From string `json:"from"`
	// Diverged says the new execution differs from the recorded one;
	// What says how: WhatOutput, WhatException, WhatValue, WhatSchedule
	// or WhatEnd.
	Diverged bool   `json:"diverged"`
	What     string `json:"what,omitempty"`
	// Recorded and New are what the recorded run and the new code did
	// there.
	Recorded string `json:"recorded,omitempty"`
	New      string `json:"new,omitempty"`
	// ThreadID, Function and Line: where the new execution was when it
	// differed.
	ThreadID int64  `json:"threadId,omitempty"`
	Function string `json:"function,omitempty"`
	Line     int    `json:"line,omitempty"`
	// Hit is, for WhatValue, the number of the hit of the line (1: the
	// first) whose value differs; Hits counts the hits compared.
	Hit  int `json:"hit,omitempty"`
	Hits int `json:"hits,omitempty"`
	// Text is the report in words.
	Text string `json:"text"`
}

// How a what-if re-execution differs from the recorded run.
const (
	WhatOutput    = "output"    // it printed something else
	WhatException = "exception" // it threw where the run did not, or not where it did
	WhatValue     = "value"     // the expression had another value at the line
	WhatSchedule  = "schedule"  // its threads did something else (parked, ended elsewhere)
	WhatEnd       = "end"       // it ended where the run went on, or went on where it ended
)

// FormatWhatIf renders a what-if report.
func FormatWhatIf(b WhatIfBody) string { return b.Text }

// parseReload reads `reload [-move]` and `whatif [FILE:LINE EXPR]`.
func parseReload(f []string) (Call, error) {
	if f[0] == "reload" {
		switch {
		case len(f) == 1:
			return Call{Command: CmdReload, Args: ReloadArgs{}}, nil
		case len(f) == 2 && f[1] == "-move":
			return Call{Command: CmdReload, Args: ReloadArgs{Move: true}}, nil
		}
		return Call{}, fmt.Errorf("usage: reload [-move]")
	}
	if len(f) == 1 {
		return Call{Command: CmdWhatIf, Args: WhatIfArgs{}}, nil
	}
	file, line, ok := strings.Cut(f[1], ":")
	n, err := strconv.Atoi(line)
	if !ok || err != nil || n < 1 || len(f) < 3 {
		return Call{}, fmt.Errorf("usage: whatif [FILE:LINE EXPR] (EXPR: compared at each hit of the line)")
	}
	return Call{Command: CmdWhatIf, Args: WhatIfArgs{File: file, Line: n, Expression: strings.Join(f[2:], " ")}}, nil
}
