package dap

import (
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// schedView asks for nlang/scheduler.
func schedView(t *testing.T, c *daptest.Client) api.SchedulerBody {
	t.Helper()
	var b api.SchedulerBody
	c.CustomRequest("nlang/scheduler", nil)
	c.ExpectCustomResponse(t, "nlang/scheduler", &b)
	return b
}

// edge returns the graph's edge from a node, if any.
func edge(g api.Graph, from string) (api.Edge, bool) {
	for _, e := range g.Edges {
		if e.From == from {
			return e, true
		}
	}
	return api.Edge{}, false
}

func TestSchedulerView(t *testing.T) {
	runSession(t, "testdata/dap/locks.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("started"))
		// left and right are spawned, not run yet: in the run queue, in
		// order, behind main (stopped, runnable)
		v := schedView(t, c)
		if len(v.Carriers) != 1 || v.Carriers[0].Running != 0 || len(v.Carriers[0].RunQueue) != 3 {
			t.Errorf("carriers: %+v", v.Carriers)
		}
		var queue []int64
		for _, q := range v.RunQueue {
			queue = append(queue, q.ID)
		}
		if len(queue) != 3 || queue[0] != 1 || queue[1] != 2 || queue[2] != 3 || v.RunQueue[1].Function != "left" || v.RunQueue[0].State != "stopped" {
			t.Errorf("run queue %v (%+v), want [1 2 3]", queue, v.RunQueue)
		}
		if len(v.Parked) != 0 || len(v.Graph.Edges) != 0 || v.Deadlock {
			t.Errorf("before anyone waits: %+v", v)
		}

		// at the join: left and right hold one lock each and wait for the
		// other's; the sleeper's timer is pending
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		checkStop(t, c, 1, "main", f.Line("join"))
		v = schedView(t, c)
		parked := map[int64]api.Thread{}
		for _, p := range v.Parked {
			parked[p.ID] = p
		}
		if parked[2].WaitReason != "mutex lock" || parked[3].WaitReason != "mutex lock" || parked[2].Line != f.Line("leftb") {
			t.Errorf("parked: %+v", v.Parked)
		}
		if len(v.Timers) != 1 || v.Timers[0].ThreadID != 4 || v.Timers[0].InMs <= 0 {
			t.Errorf("timers: %+v, want the sleeper's", v.Timers)
		}
		if len(v.Graph.Cycles) != 1 || len(v.Graph.Cycles[0]) != 2 || v.Graph.Cycles[0][0] != 2 || v.Graph.Cycles[0][1] != 3 {
			t.Fatalf("cycles %v, want [[2 3]]", v.Graph.Cycles)
		}
		// t2 --mutex lock--> o (Mutex b) --held by--> t3, on the cycle
		w, _ := edge(v.Graph, "t2")
		h, _ := edge(v.Graph, w.To)
		if w.Label != "mutex lock" || !w.Cycle || h.Label != "held by" || h.To != "t3" || !h.Cycle || parked[2].WaitsOn != w.To {
			t.Errorf("thread 2's edges: %+v then %+v (waitsOn %q)", w, h, parked[2].WaitsOn)
		}
		kinds := map[string]string{}
		for _, n := range v.Graph.Nodes {
			kinds[n.ID] = n.Kind
		}
		if kinds[w.To] != "Mutex" || kinds["t2"] != "thread" {
			t.Errorf("nodes: %+v", v.Graph.Nodes)
		}
		if v.Deadlock {
			t.Errorf("deadlock before the scheduler found one (the sleeper can still run)")
		}

		// the scheduler's deadlock: main joins left, off the cycle
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		if stop := c.ExpectStoppedEvent(t); stop.Body.Description != "Deadlock" {
			t.Fatalf("stop %+v, want deadlock", stop.Body)
		}
		v = schedView(t, c)
		m, _ := edge(v.Graph, "t1")
		j, _ := edge(v.Graph, m.To)
		if !v.Deadlock || len(v.Graph.Cycles) != 1 || m.Label != "join thread-2" || m.Cycle || j.To != "t2" || j.Label != "is" || j.Cycle {
			t.Errorf("at the deadlock: deadlock %v, cycles %v, main's edges %+v %+v", v.Deadlock, v.Graph.Cycles, m, j)
		}
		// the same graph as text in the debug console
		c.EvaluateRequest(":sched graph", 0, "repl")
		text := daptest.ExpectResponse[*dap.EvaluateResponse](t, c).Body.Result
		for _, want := range []string{
			`thread 2 "thread-2" --mutex lock*--> o`,
			`--held by*--> thread 3 "thread-3"`,
			`thread 1 "main" --join thread-2--> o`,
			`deadlock cycle (*): thread 2 "thread-2" -> thread 3 "thread-3" -> thread 2 "thread-2"`,
			"all threads are asleep",
		} {
			if !strings.Contains(text, want) {
				t.Errorf(":sched graph lacks %q:\n%s", want, text)
			}
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("started", "join"))
}

func TestSchedulerViewErrors(t *testing.T) {
	c := startServer(t, nil)
	c.Initialize(t)
	c.CustomRequest("nlang/scheduler", nil)
	if e := c.ExpectErrorResponse(t, "nlang/scheduler"); !strings.Contains(e.Message, "not running") {
		t.Errorf("before launch: %q", e.Message)
	}
	c.CustomRequest("nlang/nothing", map[string]any{"x": 1})
	if e := c.ExpectErrorResponse(t, "nlang/nothing"); !strings.Contains(e.Message, "unsupported") {
		t.Errorf("unknown custom command: %q", e.Message)
	}
}
