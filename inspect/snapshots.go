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
//
// Restoring: a copy of a checkpoint is found object by object by the
// position of each in the checkpoint's blocks (vm.Copier.FromSlabs), and
// with a large heap it is made ahead, on another core, while the session
// waits for the user or for a first re-execution (snapStore.prepare,
// sched.Snapshot.Prepare): going back then costs the re-execution from a
// copy near the stop (a few milliseconds), not the restore.

import (
	"errors"
	"fmt"
	"runtime"
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
	// near counts the copies taken by re-executions near the moment
	// they went to (nearCopy); quanta the quanta re-executed to go back.
	near   int
	quanta int64
	// clock measures the program's run time (the policy's).
	clock runClock
	// noNear turns the near copies off (benchmarks, beside them on).
	noNear bool
	// spare is the copy restored ahead (prepare), if any; spares counts
	// the re-executions that started from one; noSpare turns them off
	// (benchmarks, beside them on); spareMin is the least size of a
	// checkpoint restored ahead (defaultSpareMin; tests lower it).
	spare    *snap
	spares   int
	noSpare  bool
	spareMin int64
	// catchUps counts the catch-ups that ran to their end or gave way
	// (catchup.go); caughtUp those that took the copy near their stop;
	// catchUpBytes is the size of the copy the one under way restored
	// (the host's heap too, as the spare).
	catchUps, caughtUp int
	catchUpBytes       int64
}

// defaultSpareMin is the least size of a checkpoint worth restoring
// ahead: a smaller one restores in about a millisecond.
const defaultSpareMin = 1 << 20

// prepare restores the copy sp ahead, on another core, for a
// re-execution that will start from it soon (sched.Snapshot.Prepare):
// the second re-execution of a step back, going back after a stop. A
// step back of a program of 200,000 objects re-executes a few
// milliseconds but restores 25 MiB twice, 60–90 ms each; with the copy
// restored ahead it waits for neither. The session keeps one spare (the
// last asked for), counted as the host's heap like the copies
// (ExcludeHeap). Not on one core, where the restore would only delay
// the program.
func (st *snapStore) prepare(sp *snap) {
	if sp == nil || sp.sn.Bytes < st.spareMin || st.noSpare || runtime.GOMAXPROCS(0) < 2 {
		return
	}
	st.mu.Lock()
	if old := st.spare; old != nil && old != sp {
		old.sn.DropSpare()
	}
	st.spare = sp
	st.storeHeap()
	st.mu.Unlock()
	sp.sn.Prepare()
}

// forget drops sp's spare, if it has the session's. Must hold st.mu.
func (st *snapStore) forget(sp *snap) {
	if st.spare == sp {
		sp.sn.DropSpare()
		st.spare = nil
	}
}

// storeHeap publishes the bytes the copies and the spare hold. Must hold
// st.mu.
func (st *snapStore) storeHeap() {
	n := st.bytes + st.catchUpBytes
	if st.spare != nil {
		n += st.spare.sn.Bytes
	}
	st.heap.Store(n)
}

// runClock measures how long a session's program has run: the wall
// clock less the time the session spent stopped (a user reading a stop,
// a script sending its next request), which the policy must not count
// as run time — nor drop the run time around it.
type runClock struct {
	mu      sync.Mutex
	now     func() time.Time // time.Now (tests set a clock of their own)
	since   time.Time        // when the current stop began (zero: running)
	stopped time.Duration    // the stops that ended
}

// Now reads the clock.
func (c *runClock) Now() time.Time {
	if c.now == nil {
		return time.Now()
	}
	return c.now()
}

// stop notes that the session stopped.
func (c *runClock) stop() {
	c.mu.Lock()
	if c.since.IsZero() {
		c.since = c.Now()
	}
	c.mu.Unlock()
}

// resume notes that the session resumed.
func (c *runClock) resume() {
	c.mu.Lock()
	if !c.since.IsZero() {
		c.stopped += c.Now().Sub(c.since)
		c.since = time.Time{}
	}
	c.mu.Unlock()
}

// Stopped returns the time the session has spent stopped (the stops
// that ended).
func (c *runClock) Stopped() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopped
}

func newSnapStore(cfg Config) *snapStore {
	st := &snapStore{budget: cfg.SnapshotBudget, interval: cfg.SnapshotInterval, spareMin: defaultSpareMin}
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
func (st *snapStore) add(sn *sched.Snapshot, off int, cost time.Duration, counts map[*bp]int) *snap {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.cost = cost
	i := sort.Search(len(st.list), func(i int) bool { return st.list[i].off >= off })
	if i < len(st.list) && st.list[i].off == off {
		return nil
	}
	st.list = append(st.list, nil)
	copy(st.list[i+1:], st.list[i:])
	sp := &snap{sn: sn, off: off, counts: counts}
	st.list[i] = sp
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
		st.forget(st.list[best])
		st.list = append(st.list[:best], st.list[best+1:]...)
		st.dropped++
	}
	st.storeHeap()
	return sp
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
		st.forget(last)
		st.list = st.list[:len(st.list)-1]
	}
	st.storeHeap()
}

// SnapshotStats describes a session's checkpoints of the execution.
type SnapshotStats struct {
	Kept, Taken, Dropped int
	// Near counts the copies (in Taken) that re-executions took near
	// the moment they went to.
	Near int
	// Restores counts the re-executions that started from a checkpoint
	// rather than from the start; Spares, those of them that started
	// from a copy of it restored ahead, while the session did something
	// else.
	Restores, Spares int
	// CatchUps counts the re-executions made at stops in the background
	// (catch-ups, catchup.go) that ended, CaughtUp those of them that took
	// the copy near their stop.
	CatchUps, CaughtUp int
	// Reexecuted counts the quanta that going back re-executed (every
	// re-execution, adopted or not).
	Reexecuted    int64
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
	return SnapshotStats{Kept: len(st.list), Taken: st.taken, Dropped: st.dropped, Near: st.near, Restores: st.restores, Spares: st.spares,
		CatchUps: st.catchUps, CaughtUp: st.caughtUp, Reexecuted: st.quanta, Bytes: st.bytes,
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
	// stopped is the session's time stopped then (runClock.Stopped)
	stopped time.Duration
	off     int // the journal's offset then
	// near, for a re-execution, takes a copy near its target (nearCopy).
	near *nearCopy
}

// nearCopy is how a re-execution that goes back takes a copy near the
// moment it goes to: at the end of the quantum after which the target's
// thread may reach the target in its next quantum (the copy is before
// the target), if the re-execution has run by then for longer than half
// what a copy costs: a step back re-executes twice (to find its target,
// then to reach it), so the copy pays for itself on the next one. The
// copies the run took going forward are spaced by the
// policy (a copy every twenty times its cost of run time), so a program
// with a large heap has copies seconds of run apart; a user who stops
// and goes back goes back near the stop, again and again: from the near
// copy the next re-executions are short.
type nearCopy struct {
	thread *vm.Thread // the target's thread in the re-execution (nil: not known yet)
	red    int64      // the target's reductions
	quota  int64
	start  time.Time // when the re-execution started running
	done   bool
	took   bool                       // the copy was taken
	counts func() (map[*bp]int, bool) // the re-execution's hit counts (false: a catch-up hushed)
	cu     *catchUp                   // the re-execution is a catch-up (catchup.go)
}

// AfterQuantum implements sched.Checkpointer (on the carrier, with the
// scheduler's lock held).
func (k *snapHook) AfterQuantum(sch *sched.Scheduler) {
	st := k.tt.snaps
	if nc := k.near; nc != nil {
		if r := k.s.live.Load(); r == nil || r.sch != sch {
			k.nearQuantum(sch, nc)
			return
		}
	}
	k.n++
	if st.interval >= time.Millisecond && k.n < 64 {
		return
	}
	k.n = 0
	if r := k.s.live.Load(); r == nil || r.sch != sch || !st.active() || k.tt.stopped != "" {
		return
	}
	now, stopped := st.clock.Now(), st.clock.Stopped()
	if !k.at.IsZero() {
		// (the time the session was stopped since the last look is not
		// run time)
		if d := now.Sub(k.at) - (stopped - k.stopped); d > 0 {
			k.ran += d
		}
	}
	k.at, k.stopped = now, stopped
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
	end := st.clock.Now()
	cost := end.Sub(now)
	k.s.mu.Lock() // (after the scheduler's lock, as the trap hooks take it)
	counts := map[*bp]int{}
	for b, c := range k.s.r.counts {
		counts[b] = c.hits
	}
	k.s.mu.Unlock()
	st.add(sn, off, cost, counts)
	k.ran = 0
	k.at = end
	sch.Machine().ExcludeHeap(st.heap.Load())
}

// nearQuantum is AfterQuantum in a re-execution that goes back: it takes
// the copy near the target (nearCopy), once.
func (k *snapHook) nearQuantum(sch *sched.Scheduler, nc *nearCopy) {
	st := k.tt.snaps
	if nc.done || st.noNear || nc.thread == nil || nc.thread.Reductions()+nc.quota < nc.red {
		return
	}
	nc.done = true // (the window opened: now or never)
	if !st.active() || k.tt.stopped != "" || k.j.Forked() != "" || nc.cu != nil && nc.cu.cancel.Load() {
		return
	}
	now := st.clock.Now()
	st.mu.Lock()
	cost := st.cost
	st.mu.Unlock()
	if st.interval >= time.Millisecond && now.Sub(nc.start) < max(cost/2, time.Millisecond) {
		return // (the copy would cost more than the re-executions it saves)
	}
	off := k.j.Offset()
	if st.passed(off-1, off) {
		return // a copy of this moment exists
	}
	sn, err := sch.TakeSnapshot(st.budget / 4)
	if errors.Is(err, vm.ErrTooLarge) {
		st.tooLarge()
		return
	}
	if err != nil {
		return
	}
	end := st.clock.Now()
	counts, ok := nc.counts()
	if !ok {
		return
	}
	sp := st.add(sn, off, end.Sub(now), counts)
	if sp == nil {
		return // (a copy of this moment was kept meanwhile)
	}
	nc.took = true
	st.mu.Lock()
	st.near++
	st.mu.Unlock()
	// (the step back's second re-execution starts from it: restored
	// while this one goes on to the target)
	st.prepare(sp)
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
