package dap

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// TestPastQuestions asks the questions about the past of the lost
// update (testdata/dap/past.n) through DAP: the last writes to the
// counter name the worker that lost the others' updates, a query of the
// update line gives its three executions, the worker's timeline shows
// its park and wake, the origin of main's last value crosses the
// channel, and travel lands at the write.
func TestPastQuestions(t *testing.T) {
	runSession(t, "testdata/dap/past.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("done"))
		c.CustomRequest(api.CmdLastWrites, api.LastWritesArgs{Location: api.Location{Expression: "c.count", FrameID: top.Id}, Count: 3})
		var w api.LastWritesBody
		c.ExpectCustomResponse(t, api.CmdLastWrites, &w)
		if len(w.Writes) != 3 {
			t.Fatalf("writes %+v", w)
		}
		first := w.Writes[0]
		if first.ThreadID != 2 || first.Line != f.Line("update") || first.OldValue != "3" || first.NewValue != "1" ||
			first.Name != "Worker.run" || first.Source == nil || first.Source.Path != f.Path || first.Moment == "" {
			t.Errorf("the last write: %+v", first)
		}
		c.CustomRequest(api.CmdQuery, api.QueryArgs{Source: dap.Source{Path: f.Path}, Line: f.Line("update"), Expression: "v"})
		var q api.QueryBody
		c.ExpectCustomResponse(t, api.CmdQuery, &q)
		var vals []string
		for _, h := range q.Hits {
			vals = append(vals, h.Value)
		}
		if strings.Join(vals, " ") != "2 1 1" || q.Total != 3 || q.Line != f.Line("update") {
			t.Errorf("query: %+v", q)
		}
		c.CustomRequest(api.CmdTimeline, api.TimelineArgs{ThreadID: 2})
		var tl api.TimelineBody
		c.ExpectCustomResponse(t, api.CmdTimeline, &tl)
		var kinds []string
		for _, e := range tl.Entries {
			kinds = append(kinds, e.Kind)
		}
		if strings.Join(kinds, " ") != "spawned ran parked woken ran ended" || tl.Entries[2].Line != f.Line("recv") {
			t.Errorf("timeline: %+v", tl)
		}
		c.CustomRequest(api.CmdOrigin, api.OriginArgs{Location: api.Location{Expression: "last", FrameID: top.Id}})
		var o api.OriginBody
		c.ExpectCustomResponse(t, api.CmdOrigin, &o)
		if len(o.Steps) < 3 || o.Steps[1].Kind != "received" || o.Steps[2].Kind != "sent" || o.Steps[2].ThreadID != 2 || o.Steps[2].Line != f.Line("send") {
			t.Errorf("origin: %+v", o)
		}
		// travel to the write: the writer stops there, about to write
		c.CustomRequest(api.CmdTravel, api.TravelArgs{Moment: first.Moment})
		c.ExpectCustomResponse(t, api.CmdTravel, nil)
		stop := c.ExpectStoppedEvent(t)
		if stop.Body.Reason != "goto" || stop.Body.ThreadId != 2 {
			t.Errorf("travel: stop %+v", stop.Body)
		}
		if fr := topFrame(t, c, 2); fr.Line != f.Line("update") {
			t.Errorf("travel: at line %d", fr.Line)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("done"))
}

// TestPastErrors: a moment of another session, a made-up moment, an
// expression that does not compile and a line with no code get clear
// error responses, and the session goes on.
func TestPastErrors(t *testing.T) {
	var other string
	runSession(t, "testdata/dap/past.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("done"))
		c.CustomRequest(api.CmdLastWrites, api.LastWritesArgs{Location: api.Location{Expression: "c.count", FrameID: top.Id}})
		var w api.LastWritesBody
		c.ExpectCustomResponse(t, api.CmdLastWrites, &w)
		other = w.Writes[0].Moment
	}, withBreakpoints("done"))
	runSession(t, "testdata/dap/past.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("done"))
		for _, tc := range []struct {
			cmd  string
			args any
			want string
		}{
			{api.CmdTravel, api.TravelArgs{Moment: other}, "another recording"},
			{api.CmdTravel, api.TravelArgs{Moment: "m1"}, "not a moment"},
			{api.CmdLastWrites, api.LastWritesArgs{Location: api.Location{Expression: "c.count +", FrameID: top.Id}}, "column"},
			{api.CmdOrigin, api.OriginArgs{Location: api.Location{Expression: "last +", FrameID: top.Id}}, "column"},
			{api.CmdQuery, api.QueryArgs{Source: dap.Source{Path: f.Path}, Line: f.Line("update"), Expression: "v +"}, "column"},
			{api.CmdQuery, api.QueryArgs{Source: dap.Source{Path: f.Path}, Line: 3, Expression: "v"}, "has no code"},
		} {
			c.CustomRequest(tc.cmd, tc.args)
			if e := c.ExpectErrorResponse(t, tc.cmd); !strings.Contains(e.Message, tc.want) {
				t.Errorf("%s %+v: %q, want %q", tc.cmd, tc.args, e.Message, tc.want)
			}
		}
		if fr := topFrame(t, c, 1); fr.Line != f.Line("done") {
			t.Errorf("after the errors: line %d", fr.Line)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("done"))
}

// TestQueryProgressAndCancel: a query reports its progress to a client
// that wants it (start, one update per stretch, end, then the answer),
// and a cancel that comes while a query runs ends it with "cancelled".
func TestQueryProgressAndCancel(t *testing.T) {
	f := loadFixture(t, "testdata/dap/pastlong.n")
	c := startServer(t, nil)
	c.InitializeWithProgress(t)
	c.LaunchRequest(map[string]any{"program": f.Path})
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
	c.SetBreakpointsRequest(f.Path, f.Line("done"))
	daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
	checkStop(t, c, 1, "main", f.Line("done"))
	c.CustomRequest(api.CmdQuery, api.QueryArgs{Source: dap.Source{Path: f.Path}, Line: f.Line("hot"), Expression: "sum", Limit: 5})
	start := daptest.Expect[*dap.ProgressStartEvent](t, c)
	if start.Body.Title != api.ProgressTitle || !start.Body.Cancellable {
		t.Errorf("progressStart %+v", start.Body)
	}
	updates := 0
	for {
		m := c.Next(t)
		if u, ok := m.(*dap.ProgressUpdateEvent); ok {
			if u.Body.ProgressId != start.Body.ProgressId {
				t.Errorf("update of another progress: %+v", u.Body)
			}
			updates++
			continue
		}
		if _, ok := m.(*dap.ProgressEndEvent); ok {
			break
		}
		if !strings.Contains(daptest.Describe(m), "output") {
			t.Fatalf("during the query: %s", daptest.Describe(m))
		}
	}
	var q api.QueryBody
	c.ExpectCustomResponse(t, api.CmdQuery, &q)
	if q.Total != 1000000 || len(q.Hits) != 5 || q.Hits[4].Value != "6" || updates == 0 {
		t.Errorf("query: total %d, hits %+v, %d updates", q.Total, q.Hits, updates)
	}
	// cancelled while it runs
	seq := c.CustomRequest(api.CmdQuery, api.QueryArgs{Source: dap.Source{Path: f.Path}, Line: f.Line("hot"), Expression: "sum", Limit: 5})
	c.CancelRequest(seq)
	daptest.Expect[*dap.ProgressStartEvent](t, c)
	for {
		m := c.Next(t)
		if end, ok := m.(*dap.ProgressEndEvent); ok {
			if end.Body.Message != "cancelled" {
				t.Errorf("progressEnd %+v", end.Body)
			}
			break
		}
	}
	if e := c.ExpectErrorResponse(t, api.CmdQuery); e.Message != "cancelled" || e.RequestSeq != seq {
		t.Errorf("the cancelled query: %+v", e.Response)
	}
	daptest.ExpectResponse[*dap.CancelResponse](t, c)
	c.TerminateRequest()
	daptest.ExpectResponse[*dap.TerminateResponse](t, c)
}

// TestPastConsole: the questions typed in a debug console (':last',
// ':query', ':timeline', ':origin', ':travel') are the same requests,
// answered in text with their moments.
func TestPastConsole(t *testing.T) {
	runSession(t, "testdata/dap/past.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("done"))
		eval := func(expr string) string {
			t.Helper()
			c.EvaluateRequest(expr, top.Id, "repl")
			return daptest.ExpectResponse[*dap.EvaluateResponse](t, c).Body.Result
		}
		last := eval(":last c.count 2")
		if !strings.Contains(last, `c.count: 3 -> 1 by thread 2 "thread-2" at past.n:`) || strings.Count(last, "\n") != 1 {
			t.Errorf(":last:\n%s", last)
		}
		q := eval(fmt.Sprintf(":query past.n:%d seen if v == 1", f.Line("update")))
		if !strings.Contains(q, "2 executions of past.n:") {
			t.Errorf(":query:\n%s", q)
		}
		if tl := eval(":timeline 3"); !strings.Contains(tl, "parked: chan recv on Channel<int>") || !strings.Contains(tl, `woken by thread 1 "main"`) {
			t.Errorf(":timeline:\n%s", tl)
		}
		if o := eval(":origin last"); !strings.Contains(o, "received") || !strings.Contains(o, "literal = 1") {
			t.Errorf(":origin:\n%s", o)
		}
		m := last[1:strings.Index(last, "]")]
		c.EvaluateRequest(":travel "+m, top.Id, "repl")
		daptest.ExpectResponse[*dap.EvaluateResponse](t, c)
		if stop := c.ExpectStoppedEvent(t); stop.Body.Reason != "goto" || stop.Body.ThreadId != 2 {
			t.Errorf(":travel: %+v", stop.Body)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("done"))
}

// TestPastOnExploreFailure: the questions about the past work the same
// in a session opened from a failure explore saved (launch "replay"):
// the way from "explore found a lost update" to "here are the writes".
// The failing schedule is explore's, so the test checks what holds in
// any schedule that loses an update.
func TestPastOnExploreFailure(t *testing.T) {
	f := loadFixture(t, "testdata/dap/past.n")
	rec := exploreFixture(t, f)
	runSession(t, "testdata/dap/past.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("done"))
		count := evaluate(t, c, "c.count", top.Id)
		if count == "4" {
			t.Fatalf("the explored failure did not lose an update (count %s)", count)
		}
		c.CustomRequest(api.CmdLastWrites, api.LastWritesArgs{Location: api.Location{Expression: "c.count", FrameID: top.Id}, Count: 5})
		var w api.LastWritesBody
		c.ExpectCustomResponse(t, api.CmdLastWrites, &w)
		if len(w.Writes) != 3 || !w.Complete || w.Writes[0].NewValue != count {
			t.Fatalf("writes %+v (count %s)", w, count)
		}
		lost := false
		for i, x := range w.Writes {
			if x.Line != f.Line("update") || x.ThreadID < 2 || x.ThreadID > 4 {
				t.Errorf("write %+v", x)
			}
			if i+1 < len(w.Writes) && x.OldValue != w.Writes[i+1].NewValue {
				t.Errorf("write %d old %s, the one before wrote %s", i, x.OldValue, w.Writes[i+1].NewValue)
			}
			// a worker adds at most 2: a write that adds less than what
			// it read plus its value overwrote another's
			o, _ := strconv.Atoi(x.OldValue)
			n, _ := strconv.Atoi(x.NewValue)
			lost = lost || n <= o
		}
		if !lost {
			t.Errorf("no write lost an update: %+v", w.Writes)
		}
		c.CustomRequest(api.CmdQuery, api.QueryArgs{Source: dap.Source{Path: f.Path}, Line: f.Line("update"), Expression: "v"})
		var q api.QueryBody
		c.ExpectCustomResponse(t, api.CmdQuery, &q)
		var vals []string
		for _, h := range q.Hits {
			vals = append(vals, h.Value)
		}
		sort.Strings(vals)
		if strings.Join(vals, " ") != "1 1 2" {
			t.Errorf("query: %+v", q)
		}
		c.CustomRequest(api.CmdTimeline, api.TimelineArgs{ThreadID: 2})
		var tl api.TimelineBody
		c.ExpectCustomResponse(t, api.CmdTimeline, &tl)
		if n := len(tl.Entries); n < 3 || tl.Entries[0].Kind != "spawned" || tl.Entries[0].Line != f.Line("spawnA") || tl.Entries[n-1].Kind != "ended" {
			t.Errorf("timeline: %+v", tl)
		}
		c.CustomRequest(api.CmdOrigin, api.OriginArgs{Location: api.Location{Expression: "last", FrameID: top.Id}})
		var o api.OriginBody
		c.ExpectCustomResponse(t, api.CmdOrigin, &o)
		if len(o.Steps) < 3 || o.Steps[1].Kind != "received" || o.Steps[2].Kind != "sent" || o.Steps[2].Line != f.Line("send") {
			t.Errorf("origin: %+v", o)
		}
		c.CustomRequest(api.CmdTravel, api.TravelArgs{Moment: w.Writes[0].Moment})
		c.ExpectCustomResponse(t, api.CmdTravel, nil)
		if stop := c.ExpectStoppedEvent(t); stop.Body.Reason != "goto" || int64(stop.Body.ThreadId) != w.Writes[0].ThreadID {
			t.Errorf("travel: %+v", stop.Body)
		}
		if fr := topFrame(t, c, int(w.Writes[0].ThreadID)); fr.Line != f.Line("update") {
			t.Errorf("travel: at line %d", fr.Line)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withLaunch(map[string]any{"replay": rec}), withBreakpoints("done"))
}

// TestLastWritesSharedChain: in a lost update explored at --granularity
// shared (every access a scheduling point: a thread may be preempted at
// its store, and another thread store before it runs), the writes are
// given in the order they ran, each with the value the field held just
// before it ran: every write's old value is the new value of the write
// before it.
func TestLastWritesSharedChain(t *testing.T) {
	f := loadFixture(t, "testdata/dap/lost.n")
	rec := exploreShared(t, f)
	runSession(t, "testdata/dap/lost.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("fail"))
		c.CustomRequest(api.CmdLastWrites, api.LastWritesArgs{Location: api.Location{Expression: "c.n", FrameID: top.Id}, Count: 1000})
		var w api.LastWritesBody
		c.ExpectCustomResponse(t, api.CmdLastWrites, &w)
		// the constructor's n = 0, then 200 increments
		if len(w.Writes) != 201 || !w.Complete || w.Writes[0].NewValue != evaluate(t, c, "c.n", top.Id) {
			t.Fatalf("%d writes, complete %v; newest %+v", len(w.Writes), w.Complete, w.Writes[0])
		}
		lost := 0
		for i, x := range w.Writes[:200] {
			if x.Line != f.Line("racy") {
				t.Errorf("write %d at line %d", i, x.Line)
			}
			if x.OldValue != w.Writes[i+1].NewValue {
				t.Errorf("write %d by thread %d: old %s, but the write that ran before it left %s", i, x.ThreadID, x.OldValue, w.Writes[i+1].NewValue)
			}
			o, _ := strconv.Atoi(x.OldValue)
			n, _ := strconv.Atoi(x.NewValue)
			if n != o+1 {
				lost++
			}
		}
		if lost == 0 {
			t.Errorf("no write lost an update")
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withLaunch(map[string]any{"replay": rec}), withBreakpoints("fail"))
}
