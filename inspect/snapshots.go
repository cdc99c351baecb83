package inspect

// Checkpoints of the execution. A recording session copies its whole
// execution (sched.Snapshot: threads, frames, registers, objects,
// queues, timers, PRNGs, pending input) at the end of a quantum every so
// often while it runs; going back then re-executes from the nearest copy
// before the target instead of from the start, so the cost of a step
// back is bounded by the distance between two copies, not by how long
// the program has run.
//
// Why structural copies, chosen by measurement (vm.BenchmarkCopyHeap,
// BenchmarkStepBackLoopExit, BenchmarkDebugRecordOverhead): a copy costs
// 0.4–0.55 µs and about 165 bytes per object of the program's heap (40–50
// ms for a program holding 100,000 objects; a loop's state copies in
// microseconds) and is taken only between quanta, where nothing runs:
// the interpreter pays nothing for it. Copy-on-write by object epochs or
// an undo log would make every store of the interpreter pay a check (the
// loop's field and element stores are its hottest instructions), to save
// copying objects that did not change — which the budget and the
// spacing below make cheap enough anyway.
//
// Policy: a copy is taken when the program has run for Interval (25 ms
// by default) since the last copy it took or passed, and never more than
// one twentieth of the run time goes to copying (the interval grows to
// twenty times the cost of the last copy). The copies are kept within a
// memory budget (256 MiB by default): past it, the copy whose removal
// leaves the smallest gap between its neighbours is dropped (the oldest
// and newest stay), so the copies thin out where they are dense and the
// distance to the nearest copy grows slowly with the run's length. A copy
// larger than a quarter of the budget stops the copying: going back then
// re-executes from the last copy kept or from the start.

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
)

// DefaultSnapshotInterval is the run time between two checkpoints of the
// execution (Config.SnapshotInterval).
const DefaultSnapshotInterval = 25 * time.Millisecond

// DefaultSnapshotBudget is the memory the checkpoints may take
// (Config.SnapshotBudget): 256 MiB.
const DefaultSnapshotBudget = 256 << 20

// snap is one checkpoint of the execution: a copy and the journal's
// offset at its moment.
type snap struct {
	sn  *sched.Snapshot
	off int
	// counts are the breakpoints' hit counts at the copy's moment, which
	// a re-execution from it goes on from.
	counts map[*bp]int
}

// snapStore holds a session's checkpoints, by offset.
type snapStore struct {
	mu       sync.Mutex
	list     []*snap
	bytes    int64
	budget   int64
	interval time.Duration
	taken    int
	dropped  int
	restores int    // re-executions started from a copy
	stopped  string // why no more are taken ("" while they are)
	cost     time.Duration
	// heap is the bytes the copies hold, excluded from the program's
	// heap limit (vm.Machine.ExcludeHeap) on every machine.
	heap atomic.Int64
}

func newSnapStore(cfg Config) *snapStore {
	st := &snapStore{budget: cfg.SnapshotBudget, interval: cfg.SnapshotInterval}
	if st.budget <= 0 {
		st.budget = DefaultSnapshotBudget
	}
	if st.interval == 0 {
		st.interval = DefaultSnapshotInterval
	}
	if st.interval < 0 || cfg.Race {
		st.stopped = "checkpoints are off"
		if cfg.Race {
			st.stopped = "the race detector's state is not copied: checkpoints are off"
		}
	}
	return st
}

// active reports whether copies are taken.
func (st *snapStore) active() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.stopped == ""
}

// add keeps a new copy taken at offset off (copies at offsets it already
// has are not kept), thinning the copies to the budget.
func (st *snapStore) add(sn *sched.Snapshot, off int, cost time.Duration, counts map[*bp]int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.cost = cost
	i := sort.Search(len(st.list), func(i int) bool { return st.list[i].off >= off })
	if i < len(st.list) && st.list[i].off == off {
		return
	}
	st.list = append(st.list, nil)
	copy(st.list[i+1:], st.list[i:])
	st.list[i] = &snap{sn: sn, off: off, counts: counts}
	st.bytes += sn.Bytes
	st.taken++
	for st.bytes > st.budget && len(st.list) > 2 {
		// Drop the copy whose neighbours are closest (not the first nor
		// the newest).
		best, gap := -1, 0
		for k := 1; k < len(st.list)-1; k++ {
			if g := st.list[k+1].off - st.list[k-1].off; best < 0 || g < gap {
				best, gap = k, g
			}
		}
		st.bytes -= st.list[best].sn.Bytes
		st.list = append(st.list[:best], st.list[best+1:]...)
		st.dropped++
	}
	st.heap.Store(st.bytes)
}

// tooLarge stops the copies: the program's state is larger than a
// quarter of the budget.
func (st *snapStore) tooLarge() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.stopped = fmt.Sprintf("the program's state is larger than %.1f MiB, a quarter of the checkpoints' budget", float64(st.budget)/(4<<20))
}

// passed reports whether a copy lies in (from, to].
func (st *snapStore) passed(from, to int) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	i := sort.Search(len(st.list), func(i int) bool { return st.list[i].off > from })
	return i < len(st.list) && st.list[i].off <= to
}

// latest returns the latest copy at an offset at most maxOff for which ok
// holds, or nil.
func (st *snapStore) latest(maxOff int, ok func(*snap) bool) *snap {
	st.mu.Lock()
	list := st.list
	st.mu.Unlock()
	for i := len(list) - 1; i >= 0; i-- {
		if sp := list[i]; sp.off <= maxOff && ok(sp) {
			return sp
		}
	}
	return nil
}

// before returns the copy before sp of the same program (nil if sp is
// the first: the first of its epoch, reload.go).
func (st *snapStore) before(sp *snap) *snap {
	st.mu.Lock()
	defer st.mu.Unlock()
	for i, x := range st.list {
		if x == sp {
			for i--; i >= 0; i-- {
				if st.list[i].sn.Program() == sp.sn.Program() {
					return st.list[i]
				}
			}
			return nil
		}
	}
	return nil
}

// dropAfter drops the copies past offset off (the recording forked there).
func (st *snapStore) dropAfter(off int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for len(st.list) > 0 && st.list[len(st.list)-1].off > off {
		last := st.list[len(st.list)-1]
		st.bytes -= last.sn.Bytes
		st.list = st.list[:len(st.list)-1]
	}
	st.heap.Store(st.bytes)
}

// SnapshotStats describes a session's checkpoints of the execution.
type SnapshotStats struct {
	Kept, Taken, Dropped int
	// Restores counts the re-executions that started from a checkpoint
	// rather than from the start.
	Restores      int
	Bytes, Budget int64
	Interval      time.Duration
	// LastCost is how long the last copy took.
	LastCost time.Duration
	// Stopped says why no more copies are taken ("" while they are).
	Stopped string
}

// SnapshotStats returns the state of the session's checkpoints (zero
// without a recording).
func (s *Session) SnapshotStats() SnapshotStats {
	if s.tt == nil {
		return SnapshotStats{Stopped: "no recording"}
	}
	st := s.tt.snaps
	st.mu.Lock()
	defer st.mu.Unlock()
	return SnapshotStats{Kept: len(st.list), Taken: st.taken, Dropped: st.dropped, Restores: st.restores, Bytes: st.bytes,
		Budget: st.budget, Interval: st.interval, LastCost: st.cost, Stopped: st.stopped}
}

// snapHook takes the checkpoints of one machine of the session, once it
// is the session's (a re-execution the session has not adopted takes
// none): it is the scheduler's Checkpointer.
type snapHook struct {
	s   *Session
	tt  *timeTravel
	j   *record.Journal
	n   int           // quanta since the last look at the clock (every 64th)
	ran time.Duration // run time since the last copy taken or passed
	at  time.Time     // the last look at the clock
	off int           // the journal's offset then
}

// AfterQuantum implements sched.Checkpointer (on the carrier, with the
// scheduler's lock held).
func (k *snapHook) AfterQuantum(sch *sched.Scheduler) {
	st := k.tt.snaps
	k.n++
	if st.interval >= time.Millisecond && k.n < 64 {
		return
	}
	k.n = 0
	if r := k.s.live.Load(); r == nil || r.sch != sch || !st.active() || k.tt.stopped != "" {
		return
	}
	now := time.Now()
	if !k.at.IsZero() {
		if d := now.Sub(k.at); d < 4*st.interval+time.Second {
			k.ran += d // (a longer gap: the program was stopped)
		}
	}
	k.at = now
	off := k.j.Offset()
	if st.passed(k.off, off) {
		k.ran = 0 // a copy of this moment or of a moment just before exists
	}
	k.off = off
	if k.ran < st.interval || (st.interval >= time.Millisecond && k.ran < 20*st.cost) {
		return
	}
	sn, err := sch.TakeSnapshot(st.budget / 4)
	if errors.Is(err, vm.ErrTooLarge) {
		st.tooLarge()
		return
	}
	if err != nil {
		return // (a thread in a pinned native: at a later quantum)
	}
	cost := time.Since(now)
	k.s.mu.Lock() // (after the scheduler's lock, as the trap hooks take it)
	counts := map[*bp]int{}
	for b, c := range k.s.r.counts {
		counts[b] = c.hits
	}
	k.s.mu.Unlock()
	st.add(sn, off, cost, counts)
	k.ran = 0
	k.at = time.Now()
	sch.Machine().ExcludeHeap(st.heap.Load())
}

// snapBefore returns the latest checkpoint for which ok holds, or nil
// (the start) — always nil while a breakpoint counts its hits, which are
// counted from the start.
func (s *Session) snapBefore(ok func(*snap) bool) *snap {
	if s.hitCounted() || s.dataHitCounted() {
		return s.floorSnap() // (the start of the program's epoch: reload.go)
	}
	if sp := s.tt.snaps.latest(int(^uint(0)>>1), func(sp *snap) bool { return s.inEpoch(sp) && ok(sp) }); sp != nil {
		return sp
	}
	return s.floorSnap()
}

// hitCounted reports whether a breakpoint has a hit condition or an
// ignore count: its hits are numbered from the start.
func (s *Session) hitCounted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, list := range s.bps.at {
		for _, b := range list {
			if b.hitTest != nil || len(s.bps.ignores[b.id]) > 0 {
				return true
			}
		}
	}
	return false
}

// beforeMoment reports whether the checkpoint is before moment m of the
// timeline.
func (sp *snap) beforeMoment(m moment) bool {
	switch {
	case m.isStart():
		return false
	case m.trap:
		return sp.beforeTrap(m)
	case m.throw:
		return sp.beforeRed(m.thread, m.red)
	}
	return sp.off < m.off // the end of a quantum
}

// beforeTrap reports whether the checkpoint is before trap moment m: its
// thread had fewer reductions then, or as many and was in the same frame
// at an earlier pc (between two reductions a frame's pc only moves
// forward: going back is a loop's back-edge, which counts one). A thread
// that spends no reductions — one that only waits on channels and
// writes fields — thus still has checkpoints before its later moments.
func (sp *snap) beforeTrap(m moment) bool {
	if sp.beforeRed(m.thread, m.red) {
		return true
	}
	t := sp.sn.Thread(m.thread)
	if t == nil || t.Reductions() != m.red || t.Depth() != m.depth {
		return false
	}
	f := t.DebugFrame(0)
	return f.Func() == m.fn && f.PC() < m.pc
}

// beforeRed reports whether the checkpoint is before thread id reached
// red reductions (or before it was spawned).
func (sp *snap) beforeRed(id, red int64) bool {
	if !sp.sn.Spawned(id) {
		return true
	}
	t := sp.sn.Thread(id)
	return t != nil && t.Reductions() < red
}
