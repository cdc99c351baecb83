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
	if err := s.checkInspect(); err != nil {
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

// gkey is a thread's key in a group (comparable, made without
// allocating): a text and a line (location, spawn site), or a stack's
// identity in text.
type gkey struct {
	text string
	line int
}

// String renders the key as the groups show it.
func (k gkey) String() string {
	if k.line == 0 {
		return k.text
	}
	return k.text + ":" + strconv.Itoa(k.line)
}

// stateOf returns a thread's state and wait reason as ThreadInfo shows
// them (threadInfo).
func (s *Session) stateOf(t *vm.Thread) (state, reason string) {
	state = t.State.String()
	if t == s.r.stopped && t.State == vm.Runnable {
		state = "stopped"
	}
	if s.r.sch.Frozen(t) {
		state = "frozen"
	}
	if t.State == vm.Waiting {
		reason = t.WaitReason
	}
	if p := s.r.sch.Pinned(t); p != "" {
		state, reason = "pinned", "pinned in "+p
	}
	return state, reason
}

// topPos returns the function and line of t's top frame, as threadInfo
// shows them (nil if t has no frame).
func (s *Session) topPos(t *vm.Thread) (*vm.Funcode, int) {
	if t.Depth() == 0 {
		return nil, 0
	}
	fn := t.Frame(0).Fn
	line, _ := fn.Pos(s.shownPC(t, 0))
	return fn, int(line)
}

// keyOf returns t's key by (one of GroupKeys); buf is scratch for the
// stack's identity (returned, maybe grown).
func (s *Session) keyOf(t *vm.Thread, by string, buf []byte) (gkey, []byte) {
	switch by {
	case GroupFunction:
		if fn, _ := s.topPos(t); fn != nil {
			return gkey{text: fn.Name}, buf
		}
	case GroupLocation:
		if fn, line := s.topPos(t); fn != nil {
			return gkey{text: fn.File, line: line}, buf
		}
	case GroupState:
		st, _ := s.stateOf(t)
		return gkey{text: st}, buf
	case GroupWaitReason:
		st, reason := s.stateOf(t)
		if reason == "" {
			reason = st
		}
		return gkey{text: reason}, buf
	case GroupSpawnSite:
		_, at := s.r.sch.SpawnedBy(t)
		switch file, line, _ := at.Pos(); {
		case at.Known():
			return gkey{text: file, line: line}, buf
		case t.ID == 1:
			return gkey{text: "(main)"}, buf
		}
		return gkey{text: "(unknown)"}, buf
	case GroupStack:
		buf = stackID(buf[:0], t, s)
		return gkey{text: string(buf)}, buf
	}
	return gkey{}, buf
}

// keyText returns t's key by as text (a whole stack for GroupStack).
func (s *Session) keyText(t *vm.Thread, by string) string {
	if by == GroupStack {
		st, _, _ := s.Stack(t.ID, 0, 0)
		return stackText(st)
	}
	k, _ := s.keyOf(t, by, nil)
	return k.String()
}

// selectThreads returns the live threads f selects, by id, and the
// number of live threads. The program must be stopped.
func (s *Session) selectThreads(f ThreadFilter) ([]*vm.Thread, int, error) {
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
	if f.State == "" && f.Func == "" && len(f.With) == 0 {
		return ths, len(ths), nil
	}
	out := ths[:0:0]
	stateSeen := false
	for i, t := range ths {
		if i%cancelEvery == cancelEvery-1 && s.cancelled() {
			return nil, 0, ErrCancelled
		}
		if f.State != "" {
			if st, reason := s.stateOf(t); st != f.State && reason != f.State {
				continue
			}
			stateSeen = true
		}
		if f.Func != "" {
			if fn, _ := s.topPos(t); fn == nil || !strings.Contains(fn.Name, f.Func) {
				continue
			}
		}
		ok := true
		for _, w := range f.With {
			var match bool
			switch w.Key {
			case "leaked":
				match = leaked[t]
			case "parent":
				parent, _ := s.r.sch.SpawnedBy(t)
				match = strconv.FormatInt(parent, 10) == w.Value
			default:
				match = strings.Contains(s.keyText(t, w.Key), w.Value)
			}
			if match == w.Not {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, t)
		}
	}
	if f.State != "" && !stateSeen && !slices.Contains(ThreadStates, f.State) {
		// (a state no thread is in is fine; a word that is neither a
		// state nor any thread's wait reason is a mistake)
		return nil, 0, fmt.Errorf("no thread is %s or waits for %q (states: %s; or a wait reason as threads shows it, such as \"chan recv\")",
			f.State, f.State, strings.Join(ThreadStates, ", "))
	}
	return out, len(ths), nil
}

// ThreadStates are the states a thread is shown in (ThreadInfo.State).
var ThreadStates = []string{"runnable", "running", "waiting", "stopped", "frozen", "pinned", "dead"}

// SelectThreads returns the live threads f selects, by id, and the
// number of live threads. The program must be stopped.
func (s *Session) SelectThreads(f ThreadFilter) ([]ThreadInfo, int, error) {
	if err := s.checkInspect(); err != nil {
		return nil, 0, err
	}
	ths, total, err := s.selectThreads(f)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ThreadInfo, len(ths))
	for i, t := range ths {
		out[i] = s.threadInfo(t)
	}
	return out, total, nil
}

// ThreadGroups counts the threads f selects by key by (one of
// GroupKeys): the groups, largest first (then by key), the number of
// threads selected and of live threads. GroupStack merges the threads
// whose stacks are the same functions at the same lines. The program must
// be stopped. It costs a look at each thread's top frame (its whole
// stack by GroupStack), without describing the threads.
func (s *Session) ThreadGroups(by string, f ThreadFilter) (groups []ThreadGroup, selected, total int, err error) {
	if !slices.Contains(GroupKeys, by) {
		return nil, 0, 0, fmt.Errorf("group by %q: want %s", by, strings.Join(GroupKeys, ", "))
	}
	if err := s.checkInspect(); err != nil {
		return nil, 0, 0, err
	}
	ths, total, err := s.selectThreads(f)
	if err != nil {
		return nil, 0, 0, err
	}
	index := map[gkey]int{}
	var buf []byte
	for i, t := range ths {
		if i%cancelEvery == cancelEvery-1 && s.cancelled() {
			return nil, 0, 0, ErrCancelled
		}
		var k gkey
		if by == GroupStack {
			buf = stackID(buf[:0], t, s)
			if gi, ok := index[gkey{text: string(buf)}]; ok { // (no string made for a hit)
				groups[gi].add(t.ID)
				continue
			}
			k = gkey{text: string(buf)}
		} else {
			k, buf = s.keyOf(t, by, buf)
		}
		gi, ok := index[k]
		if !ok {
			gi = len(groups)
			index[k] = gi
			g := ThreadGroup{Key: k.String()}
			if by == GroupStack {
				g.Stack, _, _ = s.Stack(t.ID, 0, 0)
				g.Key = stackText(g.Stack)
			}
			groups = append(groups, g)
		}
		groups[gi].add(t.ID)
	}
	slices.SortStableFunc(groups, func(a, b ThreadGroup) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return groups, len(ths), total, nil
}

// add counts thread id in g.
func (g *ThreadGroup) add(id int64) {
	g.Count++
	if len(g.IDs) < MaxGroupIDs {
		g.IDs = append(g.IDs, id)
	}
}

// stackID appends to b the identity of t's stack: the function and line
// of every frame.
func stackID(b []byte, t *vm.Thread, s *Session) []byte {
	for d := 0; d < t.Depth(); d++ {
		f := t.Frame(d)
		line, _ := f.Fn.Pos(s.shownPC(t, d))
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
	case *vm.Thread, sched.Primitive:
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
