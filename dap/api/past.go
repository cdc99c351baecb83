package api

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/google/go-dap"
)

// Questions about the past (a session that records: one carrier). Each
// answer names the moments it speaks of with an opaque Moment, which
// CmdTravel goes to.
const (
	// CmdLastWrites: the latest writes to a location. LastWritesArgs →
	// LastWritesBody.
	CmdLastWrites = "nlang/lastWrites"
	// CmdTravel puts the session at a moment of an answer (a stopped
	// event follows, reason goto, about the moment's thread).
	// TravelArgs → -.
	CmdTravel = "nlang/travel"
	// CmdOrigin: where a value came from. OriginArgs → OriginBody.
	CmdOrigin = "nlang/origin"
	// CmdQuery: every execution of a line so far, with an expression's
	// value (a logpoint added after the fact). Progress events while it
	// runs; cancel is honoured. QueryArgs → QueryBody.
	CmdQuery = "nlang/query"
	// CmdTimeline: what happened to a thread. TimelineArgs →
	// TimelineBody.
	CmdTimeline = "nlang/timeline"
)

// PastCommands are the questions about the past (in Commands).
var PastCommands = []string{CmdLastWrites, CmdTravel, CmdOrigin, CmdQuery, CmdTimeline}

// Location names a value in a frame: Expression (a local, EXPR.FIELD or
// EXPR[INDEX]) in frame FrameID, or, without a frame id, in frame Depth
// of thread ThreadID (0: the stopped thread's top frame).
type Location struct {
	Expression string `json:"expression,omitempty"`
	FrameID    int    `json:"frameId,omitempty"`
	ThreadID   int64  `json:"threadId,omitempty"`
	Depth      int    `json:"depth,omitempty"`
}

// LastWritesArgs name a location — DataID (from dataBreakpointInfo) or
// an expression — and how many writes to return (0: 1).
type LastWritesArgs struct {
	DataID string `json:"dataId,omitempty"`
	Location
	Count int `json:"count,omitempty"`
}

// LastWritesBody lists the writes to Name, newest first; Complete says
// there are no others.
type LastWritesBody struct {
	Name     string  `json:"name"`
	Writes   []Write `json:"writes"`
	Complete bool    `json:"complete,omitempty"`
}

// Write is one write: at Moment, thread ThreadID in function Name at
// Source:Line, the location went from OldValue to NewValue. Argument
// marks a parameter's value as its caller passed it.
type Write struct {
	Moment     string      `json:"moment"`
	ThreadID   int64       `json:"threadId"`
	ThreadName string      `json:"threadName"`
	Name       string      `json:"name"`
	Source     *dap.Source `json:"source,omitempty"`
	Line       int         `json:"line"`
	OldValue   string      `json:"oldValue"`
	NewValue   string      `json:"newValue"`
	Argument   bool        `json:"argument,omitempty"`
}

// TravelArgs name a moment.
type TravelArgs struct {
	Moment string `json:"moment"`
}

// OriginArgs name a value and how many hops to follow it back (0: 8).
type OriginArgs struct {
	Location
	MaxDepth int `json:"depth,omitempty"`
}

// OriginBody is the steps that produced the value, as a tree in
// depth-first order: the steps after a step with a higher Level are its
// inputs.
type OriginBody struct {
	Steps []OriginStep `json:"steps"`
}

// OriginStep is one step of an origin (Kind: assigned, written, read,
// computed, literal, returned, received, sent, argument, initial, native,
// made, limit, unknown; Text says it in words).
type OriginStep struct {
	Level      int         `json:"level"`
	Kind       string      `json:"kind"`
	Text       string      `json:"text"`
	Moment     string      `json:"moment,omitempty"`
	ThreadID   int64       `json:"threadId,omitempty"`
	ThreadName string      `json:"threadName,omitempty"`
	Name       string      `json:"name,omitempty"`
	Source     *dap.Source `json:"source,omitempty"`
	Line       int         `json:"line,omitempty"`
	Value      string      `json:"value,omitempty"`
	Code       string      `json:"code,omitempty"` // the source of the line
}

// QueryArgs: the line Line of Source, the Expression shown at each of
// its executions where Condition (if any) holds, at most Limit hits (0:
// 1000).
type QueryArgs struct {
	Source     dap.Source `json:"source"`
	Line       int        `json:"line"`
	Expression string     `json:"expression"`
	Condition  string     `json:"condition,omitempty"`
	Limit      int        `json:"limit,omitempty"`
}

// QueryBody lists the hits in the order they happened (the first Limit
// of Total).
type QueryBody struct {
	Source *dap.Source `json:"source,omitempty"`
	Line   int         `json:"line"`
	Hits   []QueryHit  `json:"hits"`
	Total  int         `json:"total"`
}

// QueryHit is one execution of the line: the expression's Value there
// (Error: why it could not be evaluated).
type QueryHit struct {
	Moment     string `json:"moment"`
	ThreadID   int64  `json:"threadId"`
	ThreadName string `json:"threadName"`
	Name       string `json:"name"`
	Value      string `json:"value"`
	Error      string `json:"error,omitempty"`
}

// TimelineArgs name a thread (0: the stopped one) and the most entries
// to return, the latest (0: 1000).
type TimelineArgs struct {
	ThreadID int64 `json:"threadId,omitempty"`
	Limit    int   `json:"limit,omitempty"`
}

// TimelineBody is what happened to a thread, in order (the last of
// Total entries).
type TimelineBody struct {
	ThreadID int64           `json:"threadId"`
	Name     string          `json:"name"`
	Entries  []TimelineEntry `json:"entries"`
	Total    int             `json:"total"`
}

// TimelineEntry is one thing that happened to a thread: Kind started,
// spawned, ran, parked, woken, stopped or ended, at Moment. A ran entry
// runs From a moment in Quanta quanta (Preempted: it was preempted
// after the last).
type TimelineEntry struct {
	Kind       string      `json:"kind"`
	Moment     string      `json:"moment,omitempty"`
	From       string      `json:"from,omitempty"`
	Quanta     int         `json:"quanta,omitempty"`
	Reductions int64       `json:"reductions,omitempty"`
	Preempted  bool        `json:"preempted,omitempty"`
	ByThread   int64       `json:"byThread,omitempty"`
	ByName     string      `json:"byName,omitempty"`
	Reason     string      `json:"reason,omitempty"`
	On         string      `json:"on,omitempty"`
	Name       string      `json:"name,omitempty"`
	Source     *dap.Source `json:"source,omitempty"`
	Line       int         `json:"line,omitempty"`
}

// The progress events of a long question (CmdQuery, CmdTimeline,
// CmdLastWrites, CmdOrigin) have this title.
const ProgressTitle = "Re-executing the recording"

// MomentLabel renders a moment in an answer; the terminal debugger
// numbers them (m1, m2, …) and the console shows them whole.
type MomentLabel func(moment string) string

// wholeMoment shows a moment as it is.
func wholeMoment(m string) string { return m }

// place renders where: "past.n:33 in Worker.run".
func place(src *dap.Source, line int, fn string) string {
	file := ""
	if src != nil {
		file = src.Name
	}
	if file == "" {
		return fn
	}
	if fn == "" {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return fmt.Sprintf("%s:%d in %s", file, line, fn)
}

// FormatWrites renders the writes, newest first, each with its moment.
func FormatWrites(b LastWritesBody, label MomentLabel) string {
	if label == nil {
		label = wholeMoment
	}
	var s strings.Builder
	if len(b.Writes) == 0 {
		fmt.Fprintf(&s, "%s: no write before the present", b.Name)
		return s.String()
	}
	for i, w := range b.Writes {
		if i > 0 {
			s.WriteString("\n")
		}
		if w.Argument {
			fmt.Fprintf(&s, "[%s] %s = %s: the argument thread %d %q passed, at %s", label(w.Moment), b.Name, w.NewValue,
				w.ThreadID, w.ThreadName, place(w.Source, w.Line, w.Name))
			continue
		}
		fmt.Fprintf(&s, "[%s] %s: %s -> %s by thread %d %q at %s", label(w.Moment), b.Name, w.OldValue, w.NewValue,
			w.ThreadID, w.ThreadName, place(w.Source, w.Line, w.Name))
	}
	if b.Complete {
		s.WriteString("\n(no earlier write)")
	}
	return s.String()
}

// FormatOrigin renders an origin as an indented tree, each step with its
// moment.
func FormatOrigin(b OriginBody, label MomentLabel) string {
	if label == nil {
		label = wholeMoment
	}
	var s strings.Builder
	for i, st := range b.Steps {
		if i > 0 {
			s.WriteString("\n")
		}
		s.WriteString(strings.Repeat("  ", st.Level))
		if st.Moment != "" {
			s.WriteString("[" + label(st.Moment) + "] ")
		}
		s.WriteString(st.Kind)
		if st.Text != "" {
			s.WriteString(" " + st.Text)
		}
		if st.Value != "" {
			s.WriteString(" = " + st.Value)
		}
		if st.Line != 0 {
			fmt.Fprintf(&s, " at %s", place(st.Source, st.Line, ""))
		}
		if st.ThreadID != 0 {
			fmt.Fprintf(&s, " (thread %d %q)", st.ThreadID, st.ThreadName)
		}
		if st.Code != "" {
			s.WriteString(": " + st.Code)
		}
	}
	if len(b.Steps) == 0 {
		s.WriteString("no origin found")
	}
	return s.String()
}

// FormatQuery renders a query's hits, in order, each with its moment.
func FormatQuery(b QueryBody, label MomentLabel) string {
	if label == nil {
		label = wholeMoment
	}
	var s strings.Builder
	where := place(b.Source, b.Line, "")
	for _, h := range b.Hits {
		v := h.Value
		if h.Error != "" && v == "" {
			v = "<" + h.Error + ">"
		}
		fmt.Fprintf(&s, "[%s] thread %d %q: %s\n", label(h.Moment), h.ThreadID, h.ThreadName, v)
	}
	fmt.Fprintf(&s, "%d executions of %s", b.Total, where)
	if len(b.Hits) < b.Total {
		fmt.Fprintf(&s, " (the first %d shown)", len(b.Hits))
	}
	return s.String()
}

// FormatTimeline renders a thread's timeline, one entry a line.
func FormatTimeline(b TimelineBody, label MomentLabel) string {
	if label == nil {
		label = wholeMoment
	}
	var s strings.Builder
	fmt.Fprintf(&s, "thread %d %q", b.ThreadID, b.Name)
	if len(b.Entries) < b.Total {
		fmt.Fprintf(&s, " (the last %d of %d entries)", len(b.Entries), b.Total)
	}
	for _, e := range b.Entries {
		from := ""
		if e.Kind == "ran" {
			from = label(e.From) // (named before the end)
		}
		m := ""
		if e.Moment != "" {
			m = "[" + label(e.Moment) + "] "
		}
		s.WriteString("\n  " + m)
		switch e.Kind {
		case "spawned":
			fmt.Fprintf(&s, "spawned by thread %d %q at %s", e.ByThread, e.ByName, place(e.Source, e.Line, e.Name))
		case "ran":
			pre := ""
			if e.Preempted {
				pre = ", preempted"
			}
			q := "quantum"
			if e.Quanta != 1 {
				q = "quanta"
			}
			fmt.Fprintf(&s, "ran %d %s, %d reductions%s (from [%s])", e.Quanta, q, e.Reductions, pre, from)
		case "parked":
			fmt.Fprintf(&s, "parked: %s", e.Reason)
			if e.On != "" {
				fmt.Fprintf(&s, " on %s", e.On)
			}
			fmt.Fprintf(&s, " at %s", place(e.Source, e.Line, e.Name))
		case "woken":
			if e.ByThread != 0 {
				fmt.Fprintf(&s, "woken by thread %d %q", e.ByThread, e.ByName)
			} else {
				s.WriteString(e.Reason)
			}
		case "stopped":
			fmt.Fprintf(&s, "stopped by the debugger (%s) at %s", e.Reason, place(e.Source, e.Line, e.Name))
		case "ended":
			s.WriteString("ended")
			if e.Reason != "" {
				s.WriteString(": " + e.Reason)
			}
		default:
			s.WriteString(e.Kind)
			if e.Reason != "" {
				s.WriteString(": " + e.Reason)
			}
		}
	}
	return s.String()
}

// ParseQueryLocation reads FILE:LINE of a query.
func ParseQueryLocation(loc string) (string, int, error) {
	i := strings.LastIndex(loc, ":")
	if i <= 0 {
		return "", 0, fmt.Errorf("query: want FILE:LINE, not %q", loc)
	}
	n, err := strconv.Atoi(loc[i+1:])
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("query: %q is not a line number", loc[i+1:])
	}
	return loc[:i], n, nil
}

// ParseQuery reads the arguments of `query FILE:LINE EXPR [if COND]`.
func ParseQuery(args string) (QueryArgs, error) {
	args = strings.TrimSpace(args)
	loc, rest, _ := strings.Cut(args, " ")
	if loc == "" || strings.TrimSpace(rest) == "" {
		return QueryArgs{}, fmt.Errorf("usage: query FILE:LINE EXPR [if COND]")
	}
	file, line, err := ParseQueryLocation(loc)
	if err != nil {
		return QueryArgs{}, err
	}
	expr, cond := strings.TrimSpace(rest), ""
	if i := strings.Index(expr, " if "); i >= 0 {
		expr, cond = strings.TrimSpace(expr[:i]), strings.TrimSpace(expr[i+4:])
	}
	return QueryArgs{Source: dap.Source{Path: file}, Line: line, Expression: expr, Condition: cond}, nil
}

// parsePast reads the console's questions about the past (f: the
// words, line: the whole command without its ':').
func parsePast(f []string, line string, thread int64, depth int) (Call, bool, error) {
	rest := strings.TrimSpace(strings.TrimPrefix(line, f[0]))
	at := Location{ThreadID: thread, Depth: depth}
	switch f[0] {
	case "last":
		if rest == "" {
			return Call{}, true, fmt.Errorf("usage: last EXPR [N]")
		}
		n := 1
		if i := strings.LastIndex(rest, " "); i > 0 {
			if k, err := strconv.Atoi(rest[i+1:]); err == nil {
				n, rest = k, strings.TrimSpace(rest[:i])
			}
		}
		at.Expression = rest
		return Call{Command: CmdLastWrites, Args: LastWritesArgs{Location: at, Count: n}}, true, nil
	case "travel":
		if len(f) != 2 {
			return Call{}, true, fmt.Errorf("usage: travel MOMENT")
		}
		return Call{Command: CmdTravel, Args: TravelArgs{Moment: f[1]}}, true, nil
	case "origin":
		if rest == "" {
			return Call{}, true, fmt.Errorf("usage: origin EXPR")
		}
		at.Expression = rest
		return Call{Command: CmdOrigin, Args: OriginArgs{Location: at}}, true, nil
	case "query":
		a, err := ParseQuery(rest)
		return Call{Command: CmdQuery, Args: a}, true, err
	case "timeline":
		a := TimelineArgs{ThreadID: thread}
		if len(f) > 1 {
			id, err := ParseThreadID(f[1])
			if err != nil {
				return Call{}, true, err
			}
			a.ThreadID = id
		}
		return Call{Command: CmdTimeline, Args: a}, true, nil
	}
	return Call{}, false, nil
}

// formatPast renders the answers to the questions about the past.
func formatPast(body any) (string, bool) {
	switch b := body.(type) {
	case LastWritesBody:
		return FormatWrites(b, nil), true
	case OriginBody:
		return FormatOrigin(b, nil), true
	case QueryBody:
		return FormatQuery(b, nil), true
	case TimelineBody:
		return FormatTimeline(b, nil), true
	}
	return "", false
}

// newPastBody is NewBody for the questions about the past.
func newPastBody(command string) any {
	switch command {
	case CmdLastWrites:
		return new(LastWritesBody)
	case CmdOrigin:
		return new(OriginBody)
	case CmdQuery:
		return new(QueryBody)
	case CmdTimeline:
		return new(TimelineBody)
	}
	return nil
}
