package api

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/go-dap"
)

// The concurrency views: leaked threads, groups, filters and the spawn
// tree (CmdLeaks, CmdThreadGroups, ThreadsArgs.With, Thread.Parent).

// CmdLeaks: the leaked threads, parked on what nothing that can run
// reaches. LeaksArgs → LeaksBody.
const CmdLeaks = "nlang/leaks"

// LeaksArgs ask for the leaked threads, with their stacks if Stack.
type LeaksArgs struct {
	Stack bool `json:"stack,omitempty"`
}

// LeaksBody lists the leaked threads, by id, of Total live threads.
type LeaksBody struct {
	Threads []LeakedThread `json:"threads"`
	Total   int            `json:"total"`
}

// LeakedThread is a thread parked on an object that no thread that can
// still run reaches (or joining such a thread): it will never run again.
type LeakedThread struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// WaitingOn says what it waits for and on what: "chan send on
	// Channel<int>(0/0)".
	WaitingOn string `json:"waitingOn"`
	// WaitReason is the wait reason alone ("chan send").
	WaitReason string `json:"waitReason"`
	// ObjectMadeAt is where the object it waits on was made.
	ObjectMadeAt *Place `json:"objectMadeAt,omitempty"`
	// Parent spawned it at SpawnedAt (absent: unknown).
	Parent    int64  `json:"parent,omitempty"`
	SpawnedAt *Place `json:"spawnedAt,omitempty"`
	// Function, Source and Line: where it is parked.
	Function string      `json:"function,omitempty"`
	Source   *dap.Source `json:"source,omitempty"`
	Line     int         `json:"line,omitempty"`
	// Stack is its stack, innermost first (LeaksArgs.Stack).
	Stack []Frame `json:"stack,omitempty"`
}

// Place is a position in the program's source.
type Place struct {
	Source *dap.Source `json:"source,omitempty"`
	Line   int         `json:"line"`
}

// String renders the place as "file:line".
func (p *Place) String() string {
	if p == nil {
		return ""
	}
	name := ""
	if p.Source != nil {
		name = p.Source.Name
	}
	return name + ":" + strconv.Itoa(p.Line)
}

// Frame is one frame of a stack.
type Frame struct {
	Function string      `json:"function"`
	Source   *dap.Source `json:"source,omitempty"`
	Line     int         `json:"line"`
}

// String renders the frame as "function (file:line)".
func (f Frame) String() string {
	name := ""
	if f.Source != nil {
		name = f.Source.Name
	}
	return fmt.Sprintf("%s (%s:%d)", f.Function, name, f.Line)
}

// ThreadFilter selects the threads whose Key (a GroupBy… key, "parent"
// or "leaked") contains Value, or (Not) does not; "parent" compares
// thread ids and "leaked" takes no value.
type ThreadFilter struct {
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
	Not   bool   `json:"not,omitempty"`
}

// The keys of CmdThreadGroups beyond GroupByFunction and
// GroupByWaitReason.
const (
	GroupByLocation  = "location"
	GroupByState     = "state"
	GroupBySpawnSite = "spawnSite"
	GroupByStack     = "stack"
)

// GroupKeys lists the keys of CmdThreadGroups.
var GroupKeys = []string{GroupByFunction, GroupByLocation, GroupByState, GroupByWaitReason, GroupBySpawnSite, GroupByStack}

// groupAliases are the short names the console accepts for the keys.
var groupAliases = map[string]string{"func": GroupByFunction, "wait": GroupByWaitReason, "loc": GroupByLocation,
	"spawn": GroupBySpawnSite, "startloc": GroupBySpawnSite, "curloc": GroupByLocation}

// GroupKey returns the key a console name stands for ("func", "wait",
// "loc", "spawn" or a key itself), or "".
func GroupKey(name string) string {
	if slices.Contains(GroupKeys, name) {
		return name
	}
	return groupAliases[name]
}

// filterKey returns the filter key a console name stands for, or "".
func filterKey(name string) string {
	if name == "parent" || name == "leaked" {
		return name
	}
	return GroupKey(name)
}

// FormatLeaks renders the leaked threads: one line each (id, name, what
// it waits on, who spawned it where), its stack indented if given.
func FormatLeaks(b LeaksBody) string {
	var s strings.Builder
	if len(b.Threads) == 0 {
		fmt.Fprintf(&s, "no leaked threads (of %d)", b.Total)
		return s.String()
	}
	fmt.Fprintf(&s, "%d of %d threads leaked (parked on what no thread that can run reaches):\n", len(b.Threads), b.Total)
	for _, t := range b.Threads {
		fmt.Fprintf(&s, "%7s %-14q %s", fmt.Sprintf("[%d]", t.ID), t.Name, t.WaitingOn)
		if t.ObjectMadeAt != nil {
			fmt.Fprintf(&s, " (made at %s)", t.ObjectMadeAt)
		}
		if t.SpawnedAt != nil {
			fmt.Fprintf(&s, ", spawned by [%d] at %s", t.Parent, t.SpawnedAt)
		}
		s.WriteString("\n")
		if len(t.Stack) > 0 {
			for _, f := range t.Stack {
				fmt.Fprintf(&s, "          at %s\n", f)
			}
		} else if t.Function != "" {
			fmt.Fprintf(&s, "          at %s\n", Frame{Function: t.Function, Source: t.Source, Line: t.Line})
		}
	}
	return strings.TrimRight(s.String(), "\n")
}

// maxSiblings is how many children of one parent, spawned at one place,
// FormatThreadTree shows before it counts the rest.
const maxSiblings = 3

// FormatThreadTree renders threads as the tree of who spawned whom:
// each thread under its parent, children by id; more than a few children
// spawned at one place are shown as the first ones and a count. A thread
// whose parent is not in the list hangs under "[P] (ended or not
// listed)".
func FormatThreadTree(b ThreadsBody) string {
	byID := map[int64]bool{}
	for _, t := range b.Threads {
		byID[t.ID] = true
	}
	children := map[int64][]Thread{}
	var roots []int64
	for _, t := range b.Threads {
		p := t.Parent
		if p != 0 && !byID[p] && len(children[p]) == 0 {
			roots = append(roots, p) // a missing parent: a root of its own
		}
		if p == 0 {
			roots = append(roots, t.ID)
			continue
		}
		children[p] = append(children[p], t)
	}
	slices.Sort(roots)
	roots = slices.Compact(roots)
	var s strings.Builder
	var walk func(id int64, indent string)
	walk = func(id int64, indent string) {
		kids := children[id]
		slices.SortFunc(kids, func(a, b Thread) int { return cmp.Compare(a.ID, b.ID) })
		shown := map[string]int{}
		hidden := map[string]int{}
		var order []string
		for _, k := range kids {
			site := k.SpawnedAt.String() + " " + k.Function
			if shown[site] >= maxSiblings {
				if hidden[site] == 0 {
					order = append(order, site)
				}
				hidden[site]++
				continue
			}
			shown[site]++
			fmt.Fprintf(&s, "%s└─ %s%s\n", indent, strings.TrimLeft(FormatThread(k), " "), spawnNote(k))
			walk(k.ID, indent+"   ")
		}
		for _, site := range order {
			fmt.Fprintf(&s, "%s└─ … %d more spawned at %s\n", indent, hidden[site], strings.TrimSpace(site))
		}
	}
	for _, id := range roots {
		if byID[id] {
			for _, t := range b.Threads {
				if t.ID == id {
					fmt.Fprintf(&s, "%s%s\n", strings.TrimLeft(FormatThread(t), " "), spawnNote(t))
				}
			}
		} else {
			fmt.Fprintf(&s, "[%d] (ended or not listed)\n", id)
		}
		walk(id, "")
	}
	s.WriteString(Count(len(b.Threads), "thread"))
	if len(b.Threads) != b.Total {
		fmt.Fprintf(&s, " (of %d)", b.Total)
	}
	return s.String()
}

// spawnNote renders where a thread was spawned: " spawned at f.n:12".
func spawnNote(t Thread) string {
	if t.SpawnedAt == nil {
		return ""
	}
	return "  spawned at " + t.SpawnedAt.String()
}
