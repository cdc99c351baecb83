package dap

import (
	"fmt"
	"sort"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/inspect"
)

// schedulerBody takes the scheduler's snapshot. The program must be
// stopped.
func (c *session) schedulerBody() (api.SchedulerBody, error) {
	if c.prog == nil {
		return api.SchedulerBody{}, inspect.ErrNotRunning
	}
	v, err := c.prog.SchedView()
	if err != nil {
		return api.SchedulerBody{}, err
	}
	g, err := c.prog.WaitGraph()
	if err != nil {
		return api.SchedulerBody{}, err
	}
	waitsOn := map[int64]string{}
	for _, e := range g.Edges {
		var id int64
		if _, err := fmt.Sscanf(e.From, "t%d", &id); err == nil {
			waitsOn[id] = e.To
		}
	}
	thread := func(t inspect.ThreadInfo) api.Thread {
		st := c.apiThread(t)
		st.WaitsOn = waitsOn[t.ID]
		return st
	}
	b := api.SchedulerBody{Quota: v.Quota, Carriers: []api.Carrier{}, RunQueue: []api.Thread{}, Parked: []api.Thread{},
		Frozen: []api.Thread{}, Timers: []api.Timer{}, Deadlock: g.Deadlock,
		Graph: api.Graph{Nodes: []api.Node{}, Edges: []api.Edge{}, Cycles: g.Cycles, Deadlock: g.Deadlock}}
	if b.Graph.Cycles == nil {
		b.Graph.Cycles = [][]int64{}
	}
	for _, ci := range v.Carriers {
		sc := api.Carrier{ID: ci.ID, Running: ci.Running, RunQueue: []int64{}}
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
		b.Timers = append(b.Timers, api.Timer{ThreadID: tm.ThreadID, Name: tm.Name, InMs: float64(tm.In.Microseconds()) / 1000})
	}
	var ids []int64
	for id := range g.Names {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		b.Graph.Nodes = append(b.Graph.Nodes, api.Node{ID: fmt.Sprintf("t%d", id), Kind: "thread",
			Label: fmt.Sprintf("[%d] %s", id, g.Names[id]), ThreadID: id, Name: g.Names[id]})
	}
	for _, o := range g.Objects {
		b.Graph.Nodes = append(b.Graph.Nodes, api.Node{ID: o.ID, Kind: o.Kind, Label: o.Description})
	}
	for _, e := range g.Edges {
		b.Graph.Edges = append(b.Graph.Edges, api.Edge{From: e.From, To: e.To, Label: e.Label, Cycle: e.Cycle})
	}
	return b, nil
}
