package sched

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"unsafe"

	"github.com/nlangdbg/nlangdbg/vm"
)

// Snapshots: a copy of the whole execution between two quanta — every
// thread with its frames and registers, the objects they reach, the run
// queues, wait queues, channels, locks, futures, timers, the PRNGs of
// the scheduler and of the library, and standard input not yet
// consumed — from which a new machine can go on exactly as the original
// would have. The debugger takes them as checkpoints while it records
// (inspect), so that going back restores the nearest one before the
// target and re-executes only from there.
//
// A snapshot is taken at the end of a quantum that ran to its end (not
// cut by a debugger's trap), with one carrier, on the carrier, under
// s.mu (see SetCheckpointer): nothing runs, so the copy is consistent.

// A Snapshot is a frozen copy of a scheduler and its machine. It is never
// run itself: Restore makes a runnable copy of it, as many times as
// wanted.
type Snapshot struct {
	s       *Scheduler
	objects int // in the copy (a hint for the next copy's memo)
	slabs   *vm.SlabIndex
	// Bytes estimates the memory the snapshot holds.
	Bytes int64

	spareMu sync.Mutex
	spare   *spare // a copy restored ahead (Prepare), not yet taken
}

// A spare is a runnable copy of a snapshot restored ahead of time, on a
// machine of its own, which Boot adopts (see Prepare).
type spare struct {
	done chan struct{} // closed once s is set (nil: the copy failed)
	s    *Scheduler
}

// A Checkpointer is told of the end of every quantum that ran to its
// end (one carrier). It runs on the carrier with the scheduler's lock
// held, and may call only TakeSnapshot and the methods documented as
// safe there.
type Checkpointer interface {
	AfterQuantum(s *Scheduler)
}

// SetCheckpointer installs k (nil removes it). Set it before Run.
func (s *Scheduler) SetCheckpointer(k Checkpointer) {
	s.mu.Lock()
	s.ckpt = k
	s.mu.Unlock()
}

// checkpoint tells the checkpointer of the end of a full quantum. Must
// hold s.mu.
func (s *Scheduler) checkpoint() {
	if len(s.carriers) == 1 && s.cut == nil && !s.ended {
		s.ckpt.AfterQuantum(s)
	}
}

// ErrSnapshot is returned by TakeSnapshot when the state cannot be
// copied now.
var ErrSnapshot = errors.New("the execution cannot be copied now")

// TakeSnapshot copies the execution. Call it only from a Checkpointer's
// AfterQuantum (the scheduler's lock is held and nothing runs). limit,
// if positive, bounds the copy's estimated size: a larger state is not
// copied (the error wraps vm.ErrTooLarge), after copying only that much.
func (s *Scheduler) TakeSnapshot(limit int64) (sn *Snapshot, err error) {
	defer recoverCopy(&err)
	if s.race != nil || s.pinnedN > 0 || s.running > 0 || s.cut != nil {
		return nil, ErrSnapshot
	}
	m := vm.NewMachine(s.m.Prog, nil, nil, nil)
	cp, c := s.copyInto(m, nil, s.objects, limit, true, nil, nil)
	if err := c.Err(); err != nil {
		return nil, err
	}
	s.objects = c.Objects
	return &Snapshot{s: cp, Bytes: c.Bytes, objects: c.Objects, slabs: c.Slabs()}, nil
}

// Thread returns the thread of the snapshot with the given id, or nil:
// for looking at the moment (its reductions), not for changing.
func (sn *Snapshot) Thread(id int64) *vm.Thread { return sn.s.Thread(id) }

// Spawned reports whether the thread with the given id had been spawned
// at the snapshot's moment.
func (sn *Snapshot) Spawned(id int64) bool { return id <= sn.s.nextID }

// Allocated returns the last allocation numbers the copied machine gave:
// of objects and of arrays and Lists (vm.Machine.Allocated).
func (sn *Snapshot) Allocated() (objects, seqs int64) { return sn.s.m.Allocated() }

// Restore returns a scheduler that goes on from the snapshot, on m — a
// new machine of the same program, with its own writers, input and
// hook, on which nothing ran. The scheduler is paused; set OnEvent and a
// recorder, then Run it. clock is its clock (nil: the wall clock).
//
// A snapshot does not change once made (nothing runs it; Restore and
// Relinked only read it), so it is copied without its scheduler's lock:
// several restores of one snapshot may run at once, and a restore under
// way does not hold up a look at the snapshot (Thread).
func (sn *Snapshot) Restore(m *vm.Machine, clock Clock) (s *Scheduler, err error) {
	defer recoverCopy(&err)
	cp, c := sn.s.copyInto(m, clock, sn.objects, 0, false, nil, sn.slabs)
	return cp, c.Err()
}

// Prepare starts restoring a copy of the snapshot in the background, on
// a machine of its own, unless one is ready or under way: the next run
// Boot builds from the snapshot adopts that copy (waiting for it if it
// is not done) instead of copying then. A debugger that will go on from
// a snapshot soon (a second re-execution of the same stretch, going
// back after a stop) prepares it on an idle core while it does
// something else: going back costs the re-execution, not the copy.
// A spare holds as much memory as a restored run (about Bytes);
// DropSpare lets it go.
func (sn *Snapshot) Prepare() {
	sn.spareMu.Lock()
	defer sn.spareMu.Unlock()
	if sn.spare != nil {
		return
	}
	sp := &spare{done: make(chan struct{})}
	sn.spare = sp
	go func() {
		defer close(sp.done)
		m := vm.NewMachine(sn.s.m.Prog, nil, nil, nil)
		if s, err := sn.Restore(m, nil); err == nil {
			sp.s = s
		}
	}()
}

// Prepared reports whether a spare copy is ready or under way.
func (sn *Snapshot) Prepared() bool {
	sn.spareMu.Lock()
	defer sn.spareMu.Unlock()
	return sn.spare != nil
}

// DropSpare lets a prepared copy go (one under way is dropped when it
// is done).
func (sn *Snapshot) DropSpare() {
	sn.spareMu.Lock()
	sn.spare = nil
	sn.spareMu.Unlock()
}

// takeSpare returns the prepared copy, waiting for it if it is under
// way, or nil if there is none (or it failed). It is taken: the next
// run needs another.
func (sn *Snapshot) takeSpare() *Scheduler {
	sn.spareMu.Lock()
	sp := sn.spare
	sn.spare = nil
	sn.spareMu.Unlock()
	if sp == nil {
		return nil
	}
	<-sp.done
	return sp.s
}

// recoverCopy turns a panic of a copy (a bug: state the copier does not
// know) into an error, so that the debugger goes on without the
// checkpoint rather than the process failing.
func recoverCopy(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %v", ErrSnapshot, r)
	}
}

// copyCtx is the scheduler's part of a copy: the new scheduler and the
// carriers' correspondence.
type copyCtx struct {
	to       *Scheduler
	carriers map[*carrier]*carrier
}

// copyInto copies s onto m (a machine on which nothing ran) and returns
// the new, paused scheduler; frozen for a snapshot (vm.Copier.Frozen:
// it never runs); r, if not nil, relinks the copy to m's program
// (reload.go); slabs, if not nil, indexes the blocks s's objects were
// carved out of (a snapshot's: vm.Copier.FromSlabs). Must hold s.mu,
// unless s is a snapshot's (it never changes).
func (s *Scheduler) copyInto(m *vm.Machine, clock Clock, hint int, limit int64, frozen bool, r *vm.Relink, slabs *vm.SlabIndex) (*Scheduler, *vm.Copier) {
	d := New(m, Options{Quota: s.quota, Carriers: len(s.carriers), Clock: clock})
	if s.pcg != nil {
		p := *s.pcg
		d.pcg = &p
		d.rng = rand.New(d.pcg)
	}
	if slabs != nil {
		hint -= slabs.Objects // (found by position, not in the memo)
	}
	c := vm.NewCopier(m, hint)
	c.FromSlabs(slabs)
	c.Limit, c.Frozen = limit, frozen
	c.Relink = r
	cx := &copyCtx{to: d, carriers: map[*carrier]*carrier{}}
	for i, sc := range s.carriers {
		cx.carriers[sc] = d.carriers[i]
	}
	c.Ctx = cx
	s.m.CopyStateTo(m, c)

	d.nextID = s.nextID
	d.main = c.Thread(s.main)
	d.threads = make([]*vm.Thread, len(s.threads), cap(s.threads))
	for i, t := range s.threads {
		d.threads[i] = c.Thread(t)
	}
	d.live, d.nfrozen = s.live, s.nfrozen
	d.next = c.Thread(s.next)
	d.timers = make(timerHeap, len(s.timers))
	for i, tm := range s.timers {
		d.timers[i] = copyTimer(c, tm)
	}
	d.timerSeq = s.timerSeq
	d.paused = true
	d.yieldOn, d.yieldAny = s.yieldOn, s.yieldAny
	d.ended, d.code = s.ended, s.code
	d.ioWaiting = s.ioWaiting
	d.sites = s.sites
	d.idleTold = s.idleTold
	for i, sc := range s.carriers {
		d.carriers[i].runq = copyThreads(c, sc.runq)
	}
	c.Bytes += int64(cap(s.threads))*8 + int64(len(s.timers))*48
	return d, c
}

// copyThreads copies a queue of threads.
func copyThreads(c *vm.Copier, q queue[*vm.Thread]) queue[*vm.Thread] {
	out := queue[*vm.Thread]{buf: make([]*vm.Thread, 0, q.len())}
	for i := 0; i < q.len(); i++ {
		out.buf = append(out.buf, c.Thread(q.at(i)))
	}
	c.Bytes += int64(q.len()) * 8
	return out
}

func copyValues(c *vm.Copier, q queue[vm.Value]) queue[vm.Value] {
	out := queue[vm.Value]{buf: make([]vm.Value, 0, q.len())}
	for i := 0; i < q.len(); i++ {
		out.buf = append(out.buf, c.Value(q.at(i)))
	}
	c.Bytes += int64(q.len()) * 24
	return out
}

func ctxOf(c *vm.Copier) *copyCtx { return c.Ctx.(*copyCtx) }

func copyTimer(c *vm.Copier, tm *Timer) *Timer {
	if tm == nil {
		return nil
	}
	if cp, ok := c.Seen(unsafe.Pointer(tm)); ok {
		return cp.(*Timer)
	}
	cp := new(Timer)
	*cp = *tm
	c.Remember(unsafe.Pointer(tm), cp)
	cp.Thread = c.Thread(tm.Thread)
	return cp
}

// CopyFor implements vm.Copyable.
func (tm *Timer) CopyFor(c *vm.Copier) any { return copyTimer(c, tm) }

// CopyFor implements vm.Copyable: a thread's scheduling data.
func (ti *threadInfo) CopyFor(c *vm.Copier) any {
	if cp, ok := c.Seen(unsafe.Pointer(ti)); ok {
		return cp
	}
	cx := ctxOf(c)
	cp := new(threadInfo)
	*cp = *ti
	c.Remember(unsafe.Pointer(ti), cp)
	cp.on = nil
	cp.last, cp.qc = cx.carriers[ti.last], cx.carriers[ti.qc]
	if x := ti.x; x != nil {
		cp.x = &threadExtra{joiners: copyThreads(c, x.joiners), pinned: x.pinned, rest: x.rest, spawn: x.spawn,
			held: x.held, wasFrozen: x.wasFrozen}
		if x.future != nil {
			cp.x.future = x.future.CopyFor(c).(*Future)
		}
	}
	return cp
}
