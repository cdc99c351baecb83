package inspect

// Concurrency views for programs with very many threads: the leaked
// threads, threads counted in groups, filters, and who spawned whom.
//
// The anchors: Go's goroutine leak profile (golang/go#74609) finds
// goroutines blocked on objects no runnable goroutine reaches, with the
// garbage collector, offline; the scheduler here does the same pass live
// on the VM's own heap (sched.Scheduler.Leaks). Delve's `goroutines
// -group (userloc|curloc|gopc|startloc|label)` counts goroutines by a
// location and `-with`/`-without` filter them; ThreadGroups and
// ThreadFilter are that, over the keys a virtual thread has (function,
// location, state, wait reason, spawn site, whole stack: the "parallel
// stacks" view of other debuggers).

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// Place is a position in the program's source.
type Place struct {
	File      string
	Line, Col int
}

// Known reports whether p is a position.
func (p Place) Known() bool { return p.File != "" }

// String renders p as "file:line" ("" if unknown).
func (p Place) String() string {
	if !p.Known() {
		return ""
	}
	return p.File + ":" + strconv.Itoa(p.Line)
}

// placeOf returns the place of a site.
func placeOf(at sched.Site) Place {
	file, line, col := at.Pos()
	return Place{File: file, Line: line, Col: col}
}

// spawnedBy returns who spawned t and where (zero if not recorded).
func (s *Session) spawnedBy(t *vm.Thread) (int64, Place) {
	parent, at := s.r.sch.SpawnedBy(t)
	return parent, placeOf(at)
}

// LeakInfo is a leaked thread: parked on an object that nothing that can
// still run reaches, or joining a leaked thread (sched.Leak).
type LeakInfo struct {
	Thread ThreadInfo // (Parent and Spawn: who spawned it, where)
	// WaitingOn describes the object: "Channel<int>(0/0)",
	// "Thread 3 \"worker\"", …; ObjectMadeAt is where it was made, if
	// known.
	WaitingOn    string
	ObjectMadeAt Place
	// Stack is the thread's stack, if asked for.
	Stack []FrameInfo
}

// Leaks returns the leaked threads, by id; withStack adds each one's
// stack. The program must be stopped. The pass marks the program's heap
// from the threads that can run (see sched.Scheduler.Leaks): it costs
// about what the threads and the objects they reach are.
func (s *Session) Leaks(withStack bool) ([]LeakInfo, error) {
	if err := s.checkStopped(); err != nil {
		return nil, err
	}
	ls, err := s.r.sch.Leaks()
	if err != nil {
		return nil, err
	}
	out := make([]LeakInfo, 0, len(ls))
	for _, l := range ls {
		li := LeakInfo{Thread: s.threadInfo(l.Thread)}
		_, li.WaitingOn = describeWaitObject(l.On, l.Thread.WaitReason)
		if at, ok := s.r.sch.MadeAt(l.On); ok {
			li.ObjectMadeAt = placeOf(at)
		}
		if withStack {
			li.Stack, _, _ = s.Stack(l.Thread.ID, 0, 0)
		}
		out = append(out, li)
	}
	return out, nil
}

// The keys ThreadGroups groups by.
const (
	GroupFunction   = "function"   // the function of the top frame
	GroupLocation   = "location"   // file:line of the top frame
	GroupState      = "state"      // runnable, waiting, frozen, …
	GroupWaitReason = "waitReason" // the wait reason, or the state of a thread that waits on nothing
	GroupSpawnSite  = "spawnSite"  // file:line of the spawn (main: "(main)")
	GroupStack      = "stack"      // the whole stack, function and line of each frame
)

// GroupKeys lists the keys of ThreadGroups.
var GroupKeys = []string{GroupFunction, GroupLocation, GroupState, GroupWaitReason, GroupSpawnSite, GroupStack}

// FilterKeys lists the keys a Filter takes: the group keys, "parent"
// (a thread id), "leaked" (no value).
var FilterKeys = append(append([]string{}, GroupKeys...), "parent", "leaked")

// ThreadFilter selects threads: by state or wait reason (State), by a
// substring of the top frame's function (Func), and by each of With.
type ThreadFilter struct {
	State, Func string
	With        []Filter
}

// Filter selects the threads whose key (one of FilterKeys) contains
// Value, or with Not those whose key does not; "parent" compares ids,
// "leaked" takes no value.
type Filter struct {
	Key, Value string
	Not        bool
}

// ThreadGroup is the threads that share a key.
type ThreadGroup struct {
	Key   string
	Count int
	// IDs are the first of the group's threads, by id (at most
	// MaxGroupIDs).
	IDs []int64
	// Stack is the stack the threads share (grouped by GroupStack).
	Stack []FrameInfo
}

// MaxGroupIDs is the most thread ids a ThreadGroup lists.
const MaxGroupIDs = 100

// view is what the views know of one thread.
type view struct {
	t  *vm.Thread
	ti ThreadInfo
}

// viewThreads returns the live threads f selects, by id, and the number
// of live threads. The program must be stopped.
func (s *Session) viewThreads(f ThreadFilter) ([]view, int, error) {
	for _, w := range f.With {
		if !slices.Contains(FilterKeys, w.Key) {
			return nil, 0, fmt.Errorf("unknown filter key %q (want %s)", w.Key, strings.Join(FilterKeys, ", "))
		}
		if w.Key == "parent" {
			if _, err := strconv.ParseInt(w.Value, 10, 64); err != nil {
				return nil, 0, fmt.Errorf("filter parent: %q is not a thread id", w.Value)
			}
		}
	}
	var leaked map[*vm.Thread]bool
	for _, w := range f.With {
		if w.Key == "leaked" && leaked == nil {
			ls, err := s.r.sch.Leaks()
			if err != nil {
				return nil, 0, err
			}
			leaked = make(map[*vm.Thread]bool, len(ls))
			for _, l := range ls {
				leaked[l.Thread] = true
			}
		}
	}
	ths := s.r.sch.Threads()
	out := make([]view, 0, len(ths))
	for i, t := range ths {
		if i%cancelEvery == cancelEvery-1 && s.cancelled() {
			return nil, 0, ErrCancelled
		}
		v := view{t: t, ti: s.threadInfo(t)}
		if f.State != "" && v.ti.State != f.State && v.ti.WaitReason != f.State {
			continue
		}
		if f.Func != "" && !strings.Contains(v.ti.Func, f.Func) {
			continue
		}
		ok := true
		for _, w := range f.With {
			var match bool
			switch w.Key {
			case "leaked":
				match = leaked[t]
			case "parent":
				match = strconv.FormatInt(v.ti.Parent, 10) == w.Value
			default:
				match = strings.Contains(s.groupKey(v, w.Key), w.Value)
			}
			if match == w.Not {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, v)
		}
	}
	return out, len(ths), nil
}

// SelectThreads returns the live threads f selects, by id, and the
// number of live threads. The program must be stopped.
func (s *Session) SelectThreads(f ThreadFilter) ([]ThreadInfo, int, error) {
	if err := s.checkStopped(); err != nil {
		return nil, 0, err
	}
	vs, total, err := s.viewThreads(f)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ThreadInfo, len(vs))
	for i, v := range vs {
		out[i] = v.ti
	}
	return out, total, nil
}

// ThreadGroups counts the threads f selects by key by (one of
// GroupKeys): the groups, largest first (then by key), the number of
// threads selected and of live threads. GroupStack merges the threads
// whose stacks are the same functions at the same lines. The program must
// be stopped.
func (s *Session) ThreadGroups(by string, f ThreadFilter) (groups []ThreadGroup, selected, total int, err error) {
	if !slices.Contains(GroupKeys, by) {
		return nil, 0, 0, fmt.Errorf("group by %q: want %s", by, strings.Join(GroupKeys, ", "))
	}
	if err := s.checkStopped(); err != nil {
		return nil, 0, 0, err
	}
	vs, total, err := s.viewThreads(f)
	if err != nil {
		return nil, 0, 0, err
	}
	index := map[string]int{}
	var buf []byte
	for _, v := range vs {
		var k string
		if by == GroupStack {
			buf = stackID(buf[:0], v.t, s)
			if i, ok := index[string(buf)]; ok { // (no string made for a hit)
				g := &groups[i]
				g.Count++
				if len(g.IDs) < MaxGroupIDs {
					g.IDs = append(g.IDs, v.ti.ID)
				}
				continue
			}
			k = string(buf)
		} else {
			k = s.groupKey(v, by)
		}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			g := ThreadGroup{Key: k}
			if by == GroupStack {
				g.Stack, _, _ = s.Stack(v.ti.ID, 0, 0)
				g.Key = stackText(g.Stack)
			}
			groups = append(groups, g)
		}
		g := &groups[i]
		g.Count++
		if len(g.IDs) < MaxGroupIDs {
			g.IDs = append(g.IDs, v.ti.ID)
		}
	}
	slices.SortStableFunc(groups, func(a, b ThreadGroup) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return groups, len(vs), total, nil
}

// groupKey returns the key by of a thread (not GroupStack's identity:
// its text).
func (s *Session) groupKey(v view, by string) string {
	switch by {
	case GroupFunction:
		return v.ti.Func
	case GroupLocation:
		if v.ti.File == "" {
			return ""
		}
		return v.ti.File + ":" + strconv.Itoa(v.ti.Line)
	case GroupState:
		return v.ti.State
	case GroupWaitReason:
		if v.ti.WaitReason == "" {
			return v.ti.State
		}
		return v.ti.WaitReason
	case GroupSpawnSite:
		switch {
		case v.ti.Spawn.Known():
			return v.ti.Spawn.String()
		case v.t.ID == 1:
			return "(main)"
		}
		return "(unknown)"
	case GroupStack:
		st, _, _ := s.Stack(v.ti.ID, 0, 0)
		return stackText(st)
	}
	return ""
}

// stackID appends to b the identity of t's stack: the function and line
// of every frame.
func stackID(b []byte, t *vm.Thread, s *Session) []byte {
	for d := 0; d < t.Depth(); d++ {
		f := t.Frame(d)
		pc := s.shownPC(t, f)
		if (d > 0 || t.InNative()) && pc > 0 {
			pc--
		}
		line, _ := f.Fn.Pos(pc)
		p := uintptr(unsafe.Pointer(f.Fn))
		for i := 0; i < 8; i++ {
			b = append(b, byte(p>>(8*i)))
		}
		b = append(b, byte(line), byte(line>>8), byte(line>>16), byte(line>>24))
	}
	return b
}

// stackText renders a stack on one line, innermost first:
// "worker (w.n:4) ← main (w.n:12)".
func stackText(st []FrameInfo) string {
	parts := make([]string, len(st))
	for i, f := range st {
		parts[i] = fmt.Sprintf("%s (%s:%d)", f.Func, f.File, f.Line)
	}
	return strings.Join(parts, " ← ")
}

// ValueMadeAt returns where a value was made, if known: a function
// value's function's declaration; a Thread or Future where its thread
// was spawned; a Channel, Mutex, ReentrantMutex or Semaphore where it
// was constructed (known when sites were recorded: a debug session
// records them).
func (s *Session) ValueMadeAt(v vm.Value) (Place, bool) {
	switch x := v.R.(type) {
	case *vm.FuncVal:
		if fn := x.Target(); fn != nil {
			return Place{File: fn.File, Line: int(fn.Line)}, true
		}
	case *vm.Thread, *sched.Future, *sched.Channel, *sched.Mutex, *sched.ReentrantMutex, *sched.Semaphore:
		if at, ok := s.r.sch.MadeAt(x); ok {
			return placeOf(at), true
		}
	}
	return Place{}, false
}

// localPlace returns where a local of fn is declared.
func localPlace(fn *vm.Funcode, lv vm.LocalVar) Place {
	if lv.Line == 0 || fn == nil {
		return Place{}
	}
	return Place{File: fn.File, Line: int(lv.Line), Col: int(lv.Col)}
}

// fieldPlace returns where a field is declared.
func fieldPlace(f *vm.Field) Place {
	if f.Line == 0 || f.Owner == nil {
		return Place{}
	}
	return Place{File: f.Owner.File, Line: int(f.Line)}
}
