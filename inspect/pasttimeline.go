package inspect

import (
	"fmt"
	"sort"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// A thread's timeline: what the scheduler did with it — spawned (by
// whom, where), ran (from which moment to which, in how many quanta),
// parked (on what, where), woken (by whom), stopped by the debugger,
// ended — from the recording. The stretches from the last checkpoint
// before the thread's spawn up to the present are re-executed side by
// side, watching the scheduler's events and the spawn calls; the
// debugger's stops are the session's own history.

// Kinds of timeline entries.
const (
	TimelineStarted = "started" // main, at the start of the recording
	TimelineSpawned = "spawned"
	TimelineRan     = "ran"
	TimelineParked  = "parked"
	TimelineWoken   = "woken"
	TimelineStopped = "stopped"
	TimelineEnded   = "ended"
)

// TimelineEntry is one thing that happened to a thread, at Moment.
type TimelineEntry struct {
	Kind   string
	Moment Moment
	// From is where a ran entry starts (the end of the quantum before
	// its first): it ran in Quanta quanta (preempted in between, and
	// after the last if Preempted says so), Reductions in all.
	From       Moment
	Quanta     int
	Reductions int64
	Preempted  bool
	// ByThread spawned or woke the thread (0: the runtime: a timer, the
	// start).
	ByThread int64
	ByName   string
	// Reason is a park's wait reason, or why the debugger stopped it;
	// On is what it parked on.
	Reason string
	On     string
	// Func, File and Line: where (the spawn call, the park, the stop).
	Func string
	File string
	Line int
	off  int // the journal's offset, to place the debugger's stops
}

// Timeline is the answer of Timeline: the thread's entries in order
// (at most Limit; Total counts them all).
type Timeline struct {
	ThreadID int64
	Name     string
	Entries  []TimelineEntry
	Total    int
}

// DefaultTimelineLimit is the most entries a timeline returns by default.
const DefaultTimelineLimit = 1000

// Timeline returns what happened to thread threadID (0: the stopped
// one) from its spawn to the present: at most limit entries (0:
// DefaultTimelineLimit), the latest ones. progress is told of the
// stretches re-executed.
func (s *Session) Timeline(threadID int64, limit int, progress func(done, total int)) (Timeline, error) {
	defer s.quiet()() // (catchup.go)
	if err := s.checkPast(); err != nil {
		return Timeline{}, err
	}
	if threadID == 0 {
		t, err := s.evalThread(0)
		if err != nil {
			return Timeline{}, err
		}
		threadID = t.ID
	}
	if limit <= 0 {
		limit = DefaultTimelineLimit
	}
	now := s.present()
	tl := Timeline{ThreadID: threadID, Entries: []TimelineEntry{}}
	var entries []TimelineEntry
	if !now.isStart() {
		sts := s.stretches(now, func(sp *snap) bool { return !sp.sn.Spawned(threadID) })
		var keys []trapKey
		for _, fn := range s.prog.Funcs {
			for pc := range fn.Code {
				if in := fn.Instr(int32(pc)); in.Op == vm.CALLN && fn.NCalls[in.B].Native.Name == "thread.spawn" {
					keys = append(keys, trapKey{fn, int32(pc)})
				}
			}
		}
		err := s.scan(sts, keys, nil, func(i int) scanWatch {
			w := &timelineWatch{s: s, id: threadID, started: sts[i].from == nil}
			if from := sts[i].from; from != nil {
				w.last = moment{byOff: true, off: from.off}
				if t := from.sn.Thread(threadID); t != nil {
					w.red, w.known = t.Reductions(), true
				}
			}
			return w
		}, func(i int, w scanWatch) bool {
			tw := w.(*timelineWatch)
			tw.flush()
			if tw.name != "" {
				tl.Name = tw.name
			}
			for _, e := range tw.entries {
				if n := len(entries); n > 0 && e.Kind == TimelineRan && entries[n-1].Kind == TimelineRan {
					// a run of quanta across a checkpoint
					p := &entries[n-1]
					p.Moment, p.Quanta, p.Reductions, p.Preempted, p.off = e.Moment, p.Quanta+e.Quanta, p.Reductions+e.Reductions, e.Preempted, e.off
					continue
				}
				entries = append(entries, e)
			}
			return true
		}, progress)
		if err != nil {
			return Timeline{}, err
		}
	}
	entries = append(entries, s.pastStops(threadID)...)
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].off < entries[j].off })
	if len(entries) == 0 {
		if t := s.r.sch.Thread(threadID); t == nil {
			return Timeline{}, fmt.Errorf("thread %d did not run before the present", threadID)
		}
	}
	if tl.Name == "" {
		if t := s.r.sch.Thread(threadID); t != nil {
			tl.Name = t.Name()
		}
	}
	tl.Total = len(entries)
	if len(entries) > limit {
		entries = entries[len(entries)-limit:]
	}
	tl.Entries = append(tl.Entries, entries...)
	return tl, nil
}

// spawnSite is where a thread called thread.spawn.
type spawnSite struct {
	m    moment
	name string
}

// timelineWatch gathers a thread's timeline in one stretch.
type timelineWatch struct {
	s       *Session
	id      int64
	name    string
	entries []TimelineEntry
	ran     *TimelineEntry // the run of quanta under way
	last    moment         // the end of the last quantum (of any thread)
	red     int64          // the thread's reductions then
	known   bool           // red is known
	started bool           // the stretch starts at the start of the recording
	told    bool           // main's start is in the entries
	spawns  map[int64][]spawnSite
	woken   *TimelineEntry // a wake whose moment is the end of its quantum
}

func (w *timelineWatch) trap(t *vm.Thread, m moment) bool {
	if w.spawns == nil {
		w.spawns = map[int64][]spawnSite{}
	}
	w.spawns[t.ID] = append(w.spawns[t.ID], spawnSite{m: m, name: t.Name()})
	return false
}

// flush ends the run of quanta under way.
func (w *timelineWatch) flush() {
	if w.ran != nil {
		w.entries = append(w.entries, *w.ran)
		w.ran = nil
	}
}

// add records an entry (ending the run of quanta under way).
func (w *timelineWatch) add(e TimelineEntry) {
	w.flush()
	w.entries = append(w.entries, e)
}

func (w *timelineWatch) event(ev sched.Event, p *scanPass) {
	s := w.s
	if w.started && !w.told && w.id == 1 {
		// main is there from the start
		w.told, w.known = true, true
		w.add(TimelineEntry{Kind: TimelineStarted, Moment: s.encodeMoment(moment{}), Reason: "the start of the recording"})
	}
	if ev.Kind == sched.EventSpawn && ev.By != nil {
		// (the spawn call of the spawner, in order)
		if list := w.spawns[ev.By.ID]; len(list) > 0 {
			site := list[0]
			w.spawns[ev.By.ID] = list[1:]
			if ev.Thread != nil && ev.Thread.ID == w.id {
				pl := place(site.m.fn, site.m.pc)
				w.name = ev.Thread.Name()
				w.red, w.known = 0, true
				w.add(TimelineEntry{Kind: TimelineSpawned, Moment: s.encodeMoment(site.m), ByThread: ev.By.ID, ByName: ev.By.Name(),
					Func: pl.Func, File: pl.File, Line: pl.Line, off: p.j.Offset()})
			}
		}
		return
	}
	m, end := quantumEnd(ev, p.j)
	if end {
		if wk := w.woken; wk != nil {
			wk.Moment, wk.off = s.encodeMoment(m), m.off
			w.add(*wk)
			w.woken = nil
		}
	}
	if ev.Thread == nil || ev.Thread.ID != w.id {
		if end {
			w.last = m
		}
		return
	}
	t := ev.Thread
	w.name = t.Name()
	if end {
		red := t.Reductions()
		if w.ran == nil {
			w.ran = &TimelineEntry{Kind: TimelineRan, From: s.encodeMoment(w.last)}
		}
		w.ran.Moment, w.ran.off = s.encodeMoment(m), m.off
		w.ran.Quanta++
		if w.known {
			w.ran.Reductions += red - w.red
		}
		w.ran.Preempted = ev.Kind == sched.EventPreempt
		w.red, w.known, w.last = red, true, m
	}
	switch ev.Kind {
	case sched.EventPark:
		e := TimelineEntry{Kind: TimelineParked, Moment: s.encodeMoment(m), Reason: ev.Reason, off: m.off}
		if t.WaitOn != nil {
			_, e.On = describeWaitObject(t.WaitOn, ev.Reason)
		}
		if t.Depth() > 0 {
			pl := place(t.Frame(0).Fn, t.DebugFrame(0).PC())
			e.Func, e.File, e.Line = pl.Func, pl.File, pl.Line
		}
		w.add(e)
	case sched.EventWake:
		e := TimelineEntry{Kind: TimelineWoken, Reason: "woken by the runtime (a timer, input)"}
		if ev.By != nil {
			e.ByThread, e.ByName, e.Reason = ev.By.ID, ev.By.Name(), ""
		}
		w.woken = &e
	case sched.EventExit:
		e := TimelineEntry{Kind: TimelineEnded, Moment: s.encodeMoment(m), off: m.off}
		if t.Uncaught != nil {
			e.Reason = "uncaught " + vm.ExceptionString(t.Uncaught)
		}
		w.add(e)
	}
}

// pastStop is a stop of the session, as it happened.
type pastStop struct {
	of     *timeTravel // the recording
	thread int64
	m      moment
	off    int
	reason StopReason
	desc   string
	at     momentPlace
}

// noteStops returns l with the session's stops noted (for the
// timelines), or nil.
func (s *Session) noteStops(l Listener) Listener {
	if l == nil {
		return nil
	}
	if n, ok := l.(*stopNoter); ok {
		l = n.Listener
	}
	return &stopNoter{Listener: l, s: s}
}

// stopNoter is a session's Listener: it notes each stop, then passes it
// on.
type stopNoter struct {
	Listener
	s *Session
}

func (n *stopNoter) Stopped(info StopInfo) {
	n.s.notePastStop(info)
	n.Listener.Stopped(info)
}

// Reloaded passes a reload on to a listener that is told of them
// (ReloadListener): the wrapper must not hide the optional interface.
func (n *stopNoter) Reloaded(res ReloadResult) {
	if rl, ok := n.Listener.(ReloadListener); ok {
		rl.Reloaded(res)
	}
}

// notePastStop notes a stop of the session (on the goroutine that
// reports it, with the session stopped).
func (s *Session) notePastStop(info StopInfo) {
	r := s.live.Load()
	if s.tt == nil || r == nil || info.ThreadID == 0 {
		return
	}
	t := r.sch.Thread(info.ThreadID)
	if t == nil || t.Depth() == 0 {
		return
	}
	f := t.Frame(0)
	m := moment{thread: t.ID, red: t.Reductions(), depth: t.Depth(), fn: f.Fn, pc: f.PC, trap: true}
	switch info.Reason {
	case ReasonStep, ReasonBreakpoint, ReasonFunction, ReasonInstruction, ReasonData, ReasonDataRace, ReasonGoto:
	case ReasonException:
		m.trap, m.throw = false, true
	default:
		if r.sch.Cut() != t {
			m = s.tt.lastMoment() // between two quanta
		}
	}
	ps := pastStop{of: s.tt, thread: t.ID, m: m, off: s.tt.j.Offset(), reason: info.Reason, desc: info.Description, at: place(f.Fn, t.DebugFrame(0).PC())}
	s.past.mu.Lock()
	defer s.past.mu.Unlock()
	kept := s.past.stops[:0]
	for _, o := range s.past.stops {
		if o.of == s.tt {
			kept = append(kept, o) // (a restart's recording forgets the old one's)
		}
	}
	s.past.stops = kept
	for _, o := range s.past.stops {
		if o.m == ps.m && o.reason == ps.reason {
			return // (the same stop again, after going back)
		}
	}
	s.past.stops = append(s.past.stops, ps)
}

// pastStops returns the stops of thread id before the present, as
// timeline entries.
func (s *Session) pastStops(id int64) []TimelineEntry {
	now := s.tt.j.Offset()
	s.past.mu.Lock()
	defer s.past.mu.Unlock()
	var out []TimelineEntry
	for _, ps := range s.past.stops {
		if ps.of != s.tt || ps.thread != id || ps.off > now {
			continue
		}
		out = append(out, TimelineEntry{Kind: TimelineStopped, Moment: s.encodeMoment(ps.m), Reason: ps.desc,
			Func: ps.at.Func, File: ps.at.File, Line: ps.at.Line, off: ps.off})
	}
	return out
}
