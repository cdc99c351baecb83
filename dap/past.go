package dap

// Questions about the past (package dap/api: CmdLastWrites, CmdTravel,
// CmdOrigin, CmdQuery, CmdTimeline): inspect re-executes the recording
// to answer them. They run on the read loop like the other requests
// that re-execute; a cancel request is seen while they run (cancel.go),
// and a client that supports progress reporting gets progressStart,
// progressUpdate and progressEnd events about the stretches re-executed.

import (
	"errors"
	"fmt"
	"strconv"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/inspect"
)

func init() {
	custom(api.CmdLastWrites, (*session).lastWrites)
	custom(api.CmdTravel, func(c *session, a api.TravelArgs) (any, error) {
		if a.Moment == "" {
			return nil, &reqError{errBadArguments, "no moment (moments come with the answers about the past)"}
		}
		if err := c.prog.CheckMoment(inspect.Moment(a.Moment)); err != nil {
			return nil, err // (before goBack: the frames the client holds stay valid)
		}
		return api.None{}, c.goBack(func() error { return c.prog.Travel(inspect.Moment(a.Moment)) })
	})
	custom(api.CmdOrigin, (*session).origin)
	custom(api.CmdQuery, (*session).query)
	custom(api.CmdTimeline, (*session).timeline)
}

// pastState is what a session keeps for the questions about the past.
type pastState struct {
	seq int // the custom request being served (0: none; a console command)
}

// pastRequest runs a question about the past: with the request's cancel check
// and the reader that sees a cancel while it runs, and with progress
// events if the client wants them (progress is nil otherwise).
func (c *session) pastRequest(title string, run func(progress func(done, total int)) error) error {
	seq := c.past.seq
	if seq == 0 {
		// a debug console's command: the evaluate request it came in
		// is cancellable already (and reports no progress)
		return run(nil)
	}
	if c.cancelled.has(seq) {
		return inspect.ErrCancelled
	}
	defer c.cancelled.remove(seq)
	c.prog.SetCancelCheck(func() bool { return c.cancelled.has(seq) })
	defer c.prog.SetCancelCheck(nil)
	c.startAhead(c.readDone)
	defer c.long.Store(false)
	if !c.client.progress {
		return run(nil)
	}
	// (reported at once, stretch by stretch; a cancel may name the
	// progress id, as for the other long requests: progress.go)
	id := "nlang-past-" + strconv.Itoa(seq)
	c.cancelled.progressOf(id, seq)
	defer c.cancelled.progressOf(id, 0)
	c.sendNow(&dap.ProgressStartEvent{Event: newEvent("progressStart"), Body: dap.ProgressStartEventBody{
		ProgressId: id, Title: api.ProgressTitle, Message: title, Cancellable: true, RequestId: seq, Percentage: 0}})
	err := run(func(done, total int) {
		c.sendNow(&dap.ProgressUpdateEvent{Event: newEvent("progressUpdate"), Body: dap.ProgressUpdateEventBody{
			ProgressId: id, Message: fmt.Sprintf("%s: %d of %d stretches", title, done, total), Percentage: 100 * done / max(total, 1)}})
	})
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	c.sendNow(&dap.ProgressEndEvent{Event: newEvent("progressEnd"), Body: dap.ProgressEndEventBody{ProgressId: id, Message: msg}})
	return err
}

// location returns the thread and frame depth of a Location.
func (c *session) location(a api.Location) (int64, int, error) {
	if a.FrameID != 0 {
		f, err := c.frame(a.FrameID)
		if err != nil {
			return 0, 0, err
		}
		return f.thread, f.depth, nil
	}
	return a.ThreadID, a.Depth, nil
}

// lastWrites answers api.CmdLastWrites.
func (c *session) lastWrites(a api.LastWritesArgs) (any, error) {
	loc := inspect.DataLocation{DataID: a.DataID, Expr: a.Expression}
	if a.DataID == "" {
		tid, depth, err := c.location(a.Location)
		if err != nil {
			return nil, err
		}
		loc.ThreadID, loc.Depth = tid, depth
	}
	var w inspect.Writes
	err := c.pastRequest("lastWrites", func(func(int, int)) error {
		var err error
		w, err = c.prog.LastWrites(loc, a.Count)
		return err
	})
	if err != nil {
		return nil, err
	}
	b := api.LastWritesBody{Name: w.Name, Writes: []api.Write{}, Complete: w.Complete}
	for _, x := range w.Writes {
		b.Writes = append(b.Writes, api.Write{Moment: string(x.Moment), ThreadID: x.ThreadID, ThreadName: x.ThreadName,
			Name: x.Func, Source: c.source(x.File), Line: x.Line, OldValue: x.Old, NewValue: x.New, Argument: x.Argument})
	}
	return b, nil
}

// origin answers api.CmdOrigin.
func (c *session) origin(a api.OriginArgs) (any, error) {
	tid, depth, err := c.location(a.Location)
	if err != nil {
		return nil, err
	}
	if a.Expression == "" {
		return nil, &reqError{errBadArguments, "no expression (a local, EXPR.FIELD or EXPR[INDEX])"}
	}
	var steps []inspect.OriginStep
	err = c.pastRequest("origin", func(func(int, int)) error {
		var err error
		steps, err = c.prog.Origin(tid, depth, a.Expression, a.MaxDepth)
		return err
	})
	if err != nil {
		return nil, err
	}
	b := api.OriginBody{Steps: []api.OriginStep{}}
	for _, st := range steps {
		b.Steps = append(b.Steps, api.OriginStep{Level: st.Level, Kind: st.Kind, Text: st.Text, Moment: string(st.Moment),
			ThreadID: st.ThreadID, ThreadName: st.ThreadName, Name: st.Func, Source: c.source(st.File), Line: st.Line, Value: st.Value, Code: st.Code})
	}
	return b, nil
}

// query answers api.CmdQuery.
func (c *session) query(a api.QueryArgs) (any, error) {
	path := a.Source.Path
	if path == "" && a.Source.SourceReference > 0 {
		path, _ = c.srcRefs.get(a.Source.SourceReference)
	}
	if path == "" {
		path = a.Source.Name
	}
	if path == "" {
		return nil, &reqError{errBadArguments, "no source: give the file of the line"}
	}
	var q inspect.QueryResult
	err := c.pastRequest("query", func(progress func(int, int)) error {
		var err error
		q, err = c.prog.Query(inspect.QuerySpec{File: path, Line: a.Line, Expr: a.Expression, Condition: a.Condition, Limit: a.Limit}, progress)
		return err
	})
	if err != nil {
		return nil, err
	}
	b := api.QueryBody{Source: c.source(q.File), Line: q.Line, Hits: []api.QueryHit{}, Total: q.Total}
	for _, h := range q.Hits {
		b.Hits = append(b.Hits, api.QueryHit{Moment: string(h.Moment), ThreadID: h.ThreadID, ThreadName: h.ThreadName,
			Name: h.Func, Value: h.Value, Error: h.Error})
	}
	return b, nil
}

// timeline answers api.CmdTimeline.
func (c *session) timeline(a api.TimelineArgs) (any, error) {
	var tl inspect.Timeline
	err := c.pastRequest("timeline", func(progress func(int, int)) error {
		var err error
		tl, err = c.prog.Timeline(a.ThreadID, a.Limit, progress)
		return err
	})
	if err != nil {
		if errors.Is(err, inspect.ErrNoThread) {
			return nil, fmt.Errorf("no thread %d", a.ThreadID)
		}
		return nil, err
	}
	b := api.TimelineBody{ThreadID: tl.ThreadID, Name: tl.Name, Entries: []api.TimelineEntry{}, Total: tl.Total}
	for _, e := range tl.Entries {
		b.Entries = append(b.Entries, api.TimelineEntry{Kind: e.Kind, Moment: string(e.Moment), From: string(e.From),
			Quanta: e.Quanta, Reductions: e.Reductions, Preempted: e.Preempted, ByThread: e.ByThread, ByName: e.ByName,
			Reason: e.Reason, On: e.On, Name: e.Func, Source: c.source(e.File), Line: e.Line})
	}
	return b, nil
}
