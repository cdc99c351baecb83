package dap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/inspect"
)

// Custom requests: commands in the "nlang/" namespace, which go-dap does
// not know. Their responses are ordinary DAP responses.

// errScheduler is the error id of nlang/scheduler.
const errScheduler = 1050

// customRequest handles content if it is a custom request and reports
// whether it was one.
func (c *session) customRequest(content []byte) bool {
	var head struct {
		Seq       int             `json:"seq"`
		Type      string          `json:"type"`
		Command   string          `json:"command"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if !bytes.Contains(content, []byte(`"nlang/`)) || json.Unmarshal(content, &head) != nil || head.Type != "request" || !strings.HasPrefix(head.Command, "nlang/") {
		return false
	}
	c.hold()
	defer c.release()
	defer func() {
		if r := recover(); r != nil {
			c.srv.logf("panic in %s: %v\n%s", head.Command, r, debug.Stack())
			c.sendErrorResponse(head.Seq, head.Command, errInternal, fmt.Sprintf("internal error in %s: %v", head.Command, r))
		}
	}()
	resp := dap.Response{RequestSeq: head.Seq, Command: head.Command, Success: true}
	switch head.Command {
	case "nlang/scheduler":
		body, err := c.schedulerBody()
		if err != nil {
			c.sendErrorResponse(head.Seq, head.Command, errID(err, errScheduler), "nlang/scheduler: "+err.Error())
			return true
		}
		c.respond(&schedulerResponse{Response: resp, Body: body})
	default:
		c.sendErrorResponse(head.Seq, head.Command, errUnsupported, fmt.Sprintf("unsupported command %q", head.Command))
	}
	return true
}

// schedulerResponse answers nlang/scheduler.
type schedulerResponse struct {
	dap.Response
	Body schedulerBody `json:"body"`
}

// schedulerBody is the scheduler's state as docs/dap.md describes it.
type schedulerBody struct {
	Quota    int            `json:"quota"`
	Carriers []schedCarrier `json:"carriers"`
	RunQueue []schedThread  `json:"runQueue"`
	Parked   []schedThread  `json:"parked"`
	Frozen   []schedThread  `json:"frozen"`
	Timers   []schedTimer   `json:"timers"`
	Graph    schedGraph     `json:"waitGraph"`
	Deadlock bool           `json:"deadlock"`
}

type schedCarrier struct {
	ID       int     `json:"id"`
	Running  int64   `json:"running,omitempty"` // thread id; absent: idle
	RunQueue []int64 `json:"runQueue"`
}

type schedThread struct {
	ID         int64       `json:"id"`
	Name       string      `json:"name"`
	State      string      `json:"state"`
	WaitReason string      `json:"waitReason,omitempty"`
	WaitsOn    string      `json:"waitsOn,omitempty"` // node id of the object in waitGraph
	Function   string      `json:"function,omitempty"`
	Source     *dap.Source `json:"source,omitempty"`
	Line       int         `json:"line,omitempty"`
}

type schedTimer struct {
	ThreadID int64   `json:"threadId"`
	Name     string  `json:"name"`
	InMs     float64 `json:"inMs"` // time left when the program stopped (≤ 0: due)
}

type schedGraph struct {
	Nodes  []schedNode `json:"nodes"`
	Edges  []schedEdge `json:"edges"`
	Cycles [][]int64   `json:"cycles"`
}

type schedNode struct {
	ID       string `json:"id"`   // "t3" (thread 3) or "o1" (an object)
	Kind     string `json:"kind"` // "thread", "Mutex", "Channel", "Future", "Thread", "Semaphore", "timer", …
	Label    string `json:"label"`
	ThreadID int64  `json:"threadId,omitempty"`
}

type schedEdge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label"`
	Cycle bool   `json:"cycle,omitempty"`
}

// schedulerBody takes the scheduler's snapshot. The program must be
// stopped.
func (c *session) schedulerBody() (schedulerBody, error) {
	if c.prog == nil {
		return schedulerBody{}, inspect.ErrNotRunning
	}
	v, err := c.prog.SchedView()
	if err != nil {
		return schedulerBody{}, err
	}
	g, err := c.prog.WaitGraph()
	if err != nil {
		return schedulerBody{}, err
	}
	waitsOn := map[int64]string{}
	for _, e := range g.Edges {
		var id int64
		if _, err := fmt.Sscanf(e.From, "t%d", &id); err == nil {
			waitsOn[id] = e.To
		}
	}
	thread := func(t inspect.ThreadInfo) schedThread {
		st := schedThread{ID: t.ID, Name: t.Name, State: t.State, WaitReason: t.WaitReason, WaitsOn: waitsOn[t.ID],
			Function: t.Func, Line: t.Line}
		if t.File != "" {
			st.Source = c.source(t.File)
		}
		return st
	}
	b := schedulerBody{Quota: v.Quota, Carriers: []schedCarrier{}, RunQueue: []schedThread{}, Parked: []schedThread{},
		Frozen: []schedThread{}, Timers: []schedTimer{}, Deadlock: g.Deadlock,
		Graph: schedGraph{Nodes: []schedNode{}, Edges: []schedEdge{}, Cycles: g.Cycles}}
	if b.Graph.Cycles == nil {
		b.Graph.Cycles = [][]int64{}
	}
	for _, ci := range v.Carriers {
		sc := schedCarrier{ID: ci.ID, Running: ci.Running, RunQueue: []int64{}}
		for _, t := range ci.RunQueue {
			sc.RunQueue = append(sc.RunQueue, t.ID)
		}
		b.Carriers = append(b.Carriers, sc)
	}
	for _, t := range v.RunQueue {
		b.RunQueue = append(b.RunQueue, thread(t))
	}
	for _, t := range v.Parked {
		b.Parked = append(b.Parked, thread(t))
	}
	for _, t := range v.Frozen {
		b.Frozen = append(b.Frozen, thread(t))
	}
	for _, tm := range v.Timers {
		b.Timers = append(b.Timers, schedTimer{ThreadID: tm.ThreadID, Name: tm.Name, InMs: float64(tm.In.Microseconds()) / 1000})
	}
	var ids []int64
	for id := range g.Names {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		b.Graph.Nodes = append(b.Graph.Nodes, schedNode{ID: fmt.Sprintf("t%d", id), Kind: "thread",
			Label: fmt.Sprintf("[%d] %s", id, g.Names[id]), ThreadID: id})
	}
	for _, o := range g.Objects {
		b.Graph.Nodes = append(b.Graph.Nodes, schedNode{ID: o.ID, Kind: o.Kind, Label: o.Description})
	}
	for _, e := range g.Edges {
		b.Graph.Edges = append(b.Graph.Edges, schedEdge{From: e.From, To: e.To, Label: e.Label, Cycle: e.Cycle})
	}
	return b, nil
}
