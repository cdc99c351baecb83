package inspect

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// WaitGraph is who waits for whom: each parked thread points at the
// object it waits on (a channel, lock, future, thread, semaphore), and
// each object at the thread that can release it, where there is one (a
// lock's owner, the thread computing a future, the thread joined). A
// cycle of such edges is a deadlock among its threads, whatever the
// other threads do.
type WaitGraph struct {
	Objects []WaitObject
	Edges   []WaitEdge
	// Cycles are the deadlock cycles, each a list of thread ids in the
	// order they wait for each other (the first, the smallest id, waits
	// for the second through an object, …, the last for the first).
	Cycles [][]int64
	// Names are the names of the threads in the graph.
	Names map[int64]string
	// Deadlock: the scheduler found that nothing can run (every live
	// thread is parked and no timer is pending).
	Deadlock bool
}

// WaitObject is an object threads wait on.
type WaitObject struct {
	ID          string // "o1", "o2", … (in the order first waited on)
	Kind        string // "Channel", "Mutex", "ReentrantMutex", "Future", "Thread", "Semaphore", "timer", …
	Description string // "Mutex(locked by thread-3)", "Channel<int>(0/0)"…
}

// WaitEdge is an edge of the graph: From waits for To. Node names are
// "t3" (thread 3) and object ids ("o1").
type WaitEdge struct {
	From, To string
	// Label is the wait reason (thread → object: "mutex lock", "chan
	// recv") or what the owner does (object → thread: "held by",
	// "computed by", "is").
	Label string
	Cycle bool // the edge is on a deadlock cycle
}

// threadNode names a thread's node.
func threadNode(id int64) string { return fmt.Sprintf("t%d", id) }

// WaitGraph returns the wait-for graph of the live threads. The program
// must be stopped.
func (s *Session) WaitGraph() (WaitGraph, error) {
	if err := s.checkInspect(); err != nil {
		return WaitGraph{}, err
	}
	g := WaitGraph{Names: map[int64]string{}}
	s.mu.Lock()
	g.Deadlock = s.r.deadlock
	s.mu.Unlock()
	ids := map[any]string{}
	owner := map[int64]int64{} // thread → the thread it waits for (through one object)
	edgeOf := map[int64][2]int{}
	for _, t := range s.r.sch.Threads() {
		if t.State != vm.Waiting || t.WaitOn == nil {
			continue
		}
		obj := t.WaitOn
		id, seen := ids[obj]
		if !seen {
			id = fmt.Sprintf("o%d", len(ids)+1)
			ids[obj] = id
			kind, desc := describeWaitObject(obj, t.WaitReason)
			g.Objects = append(g.Objects, WaitObject{ID: id, Kind: kind, Description: desc})
		}
		g.Names[t.ID] = t.Name
		g.Edges = append(g.Edges, WaitEdge{From: threadNode(t.ID), To: id, Label: t.WaitReason})
		in := len(g.Edges) - 1
		o, label := waitOwner(obj)
		if o == nil || o.State == vm.Dead {
			continue
		}
		g.Names[o.ID] = o.Name
		if !seen {
			g.Edges = append(g.Edges, WaitEdge{From: id, To: threadNode(o.ID), Label: label})
		}
		owner[t.ID] = o.ID
		out := -1
		for i, e := range g.Edges {
			if e.From == id {
				out = i
			}
		}
		edgeOf[t.ID] = [2]int{in, out}
	}
	// cycles: follow each thread's single "waits for" link; every node
	// has at most one, so a walk either ends or enters a cycle
	state := map[int64]int{} // 0 unvisited, 1 on the current walk, 2 done
	var starts []int64
	for id := range owner {
		starts = append(starts, id)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	for _, start := range starts {
		var walk []int64
		id := start
		for state[id] == 0 {
			state[id] = 1
			walk = append(walk, id)
			next, ok := owner[id]
			if !ok {
				break
			}
			id = next
		}
		if state[id] == 1 { // back on this walk: a cycle from id
			i := 0
			for walk[i] != id {
				i++
			}
			cyc := append([]int64(nil), walk[i:]...)
			// start it at its smallest id, so that it reads the same
			// whichever thread the walk came from
			low := 0
			for j, id := range cyc {
				if id < cyc[low] {
					low = j
				}
			}
			cyc = append(cyc[low:], cyc[:low]...)
			g.Cycles = append(g.Cycles, cyc)
			for _, c := range cyc {
				e := edgeOf[c]
				g.Edges[e[0]].Cycle = true
				g.Edges[e[1]].Cycle = true
			}
		}
		for _, w := range walk {
			state[w] = 2
		}
	}
	return g, nil
}

// describeWaitObject names what a thread waits on.
func describeWaitObject(obj any, reason string) (kind, desc string) {
	if reason == "sleep" {
		return "timer", "sleep"
	}
	switch o := obj.(type) {
	case sched.Primitive:
		return o.Kind(), o.String()
	case *vm.Thread:
		return "Thread", fmt.Sprintf("Thread %d %q", o.ID, o.Name)
	}
	name := strings.TrimPrefix(fmt.Sprintf("%T", obj), "*")
	if st, ok := obj.(fmt.Stringer); ok {
		return name, st.String()
	}
	return name, name
}

// waitOwner returns the thread that can release obj, if one is known,
// and how it relates to it.
func waitOwner(obj any) (*vm.Thread, string) {
	switch o := obj.(type) {
	case sched.Primitive:
		t, h := o.Holder()
		return t, h.String()
	case *vm.Thread:
		return o, "is"
	}
	return nil, ""
}

// FormatWaitGraph renders the graph as text: one line per parked thread
// ("thread 2 "left" --mutex lock--> o1 Mutex(…) --held by--> thread 3"),
// edges on a deadlock cycle marked with "*", then the cycles.
func FormatWaitGraph(g WaitGraph) string {
	names := g.Names
	var b strings.Builder
	objs := map[string]WaitObject{}
	for _, o := range g.Objects {
		objs[o.ID] = o
	}
	out := map[string]WaitEdge{}
	for _, e := range g.Edges {
		if strings.HasPrefix(e.From, "o") {
			out[e.From] = e
		}
	}
	thread := func(node string) string {
		var id int64
		fmt.Sscanf(node, "t%d", &id)
		if n := names[id]; n != "" {
			return fmt.Sprintf("thread %d %q", id, n)
		}
		return fmt.Sprintf("thread %d", id)
	}
	mark := func(e WaitEdge) string {
		if e.Cycle {
			return "*"
		}
		return ""
	}
	n := 0
	for _, e := range g.Edges {
		if !strings.HasPrefix(e.From, "t") {
			continue
		}
		n++
		o := objs[e.To]
		fmt.Fprintf(&b, "%s --%s%s--> %s %s", thread(e.From), e.Label, mark(e), o.ID, o.Description)
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
			parts = append(parts, thread(threadNode(id)))
		}
		parts = append(parts, thread(threadNode(c[0])))
		fmt.Fprintf(&b, "deadlock cycle (*): %s\n", strings.Join(parts, " -> "))
	}
	if g.Deadlock {
		b.WriteString("the scheduler found a deadlock: all threads are asleep\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
