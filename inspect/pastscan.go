package inspect

// Scans: the re-executions that answer questions about the past
// (past.go). A scan cuts the recording into stretches at its checkpoints
// — from the start or a checkpoint to the next checkpoint, the last one
// to the present — and re-executes each stretch on a machine of its own,
// restored from the checkpoint it starts at, watching the traps the
// question needs. The checkpoints make the stretches independent, so
// they run side by side, as many at once as there are cores.
//
// Side by side is safe because nothing is patched while they run: a
// scan patches all its traps (in the program's shared code, through the
// session's refcounted table) before its first pass starts and removes
// them after its last pass has ended, while the session is stopped. Each
// pass's hook (scanHook) acts only on the traps its scan asked for and
// lets the others (the session's breakpoints, another scan's) go on as
// if they were not there; the machines share nothing else but the
// program (read only) and the checkpoints (restored, never changed).

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
)

// errDiverged is the error of a pass that ended before its stretch did.
var errDiverged = errors.New("the re-execution ended before the end of its stretch (the recording diverged)")

// stretch is a part of the recording a scan re-executes: from a
// checkpoint (nil: the start) to end — the moment of the next checkpoint
// or the present.
type stretch struct {
	from *snap
	end  moment
}

// stretches returns the stretches of the recording up to now, in order:
// from the latest checkpoint before now for which first holds (first nil,
// or none holds: from the start), one from each checkpoint to the next,
// the last one to now.
func (s *Session) stretches(now moment, first func(*snap) bool) []stretch {
	st := s.tt.snaps
	st.mu.Lock()
	list := append([]*snap(nil), st.list...)
	st.mu.Unlock()
	var cps []*snap
	for _, sp := range list {
		if sp.beforeMoment(now) {
			cps = append(cps, sp)
		}
	}
	var from *snap
	if first != nil {
		for i := len(cps) - 1; i >= 0; i-- {
			if first(cps[i]) {
				from, cps = cps[i], cps[i+1:]
				break
			}
		}
	}
	var out []stretch
	for _, sp := range cps {
		out = append(out, stretch{from: from, end: moment{byOff: true, off: sp.off}})
		from = sp
	}
	return append(out, stretch{from: from, end: now})
}

// scanWatch is what one pass of a scan watches: the traps of the scan
// (trap: true ends the pass there), the throws (throw, if the scan wants
// them) and the scheduler's events (event). Its methods run on the
// pass's carrier; what they gather is read once the pass is over.
type scanWatch interface {
	trap(t *vm.Thread, m moment) (stop bool)
	event(ev sched.Event, p *scanPass)
}

// endWatch is a scanWatch that sees the end of its stretch too, when it
// is a trap: the thread about to run the instruction of the moment.
type endWatch interface {
	atEnd(t *vm.Thread, m moment)
}

// throwWatch is a scanWatch that sees the throws too.
type throwWatch interface {
	throw(t *vm.Thread, m moment, exc *vm.Object, caught bool)
}

// scanHook is the debug hook of a scan's pass: it acts on the traps of
// its scan (keys) and the end of its stretch, and ignores every other
// trap (a breakpoint's, another pass's): the instruction runs as if it
// were not patched.
type scanHook struct {
	keys map[trapKey]bool
	end  moment
	w    scanWatch
}

func (h *scanHook) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	k := trapKey{fn, pc}
	if !h.keys[k] && !(h.end.trap && h.end.fn == fn && h.end.pc == pc) {
		return false
	}
	m := moment{thread: t.ID, red: t.TrapReductions(), depth: t.Depth(), fn: fn, pc: pc, trap: true}
	if h.end.trap && m == h.end {
		if ew, ok := h.w.(endWatch); ok {
			ew.atEnd(t, m)
		}
		return true
	}
	return h.keys[k] && h.w.trap(t, m)
}

func (h *scanHook) OnThrow(t *vm.Thread, exc *vm.Object, caught bool) bool {
	if vm.IsTermination(exc) {
		return false
	}
	m := throwMoment(t)
	if h.end.throw && m == h.end {
		return true
	}
	if tw, ok := h.w.(throwWatch); ok {
		tw.throw(t, m, exc, caught)
	}
	return false
}

// scanPass is one re-execution of a scan: one stretch.
type scanPass struct {
	s    *Session
	r    *run
	j    *record.Journal
	st   stretch
	h    *scanHook
	once sync.Once
	done chan error // nil: the end of the stretch was reached
	// exited is closed when the pass's carrier has returned (nothing of
	// it runs: its traps may be removed)
	exited chan struct{}
}

// finish reports the pass's end once (nil: the end of its stretch).
func (p *scanPass) finish(err error) {
	p.once.Do(func() { p.done <- err })
}

// startScanPass builds the machine of a pass over st, watched by w, and
// starts it. The scan's traps must be patched.
func (s *Session) startScanPass(st stretch, keys map[trapKey]bool, w scanWatch) (*scanPass, error) {
	return s.startScanPassArmed(st, keys, w, nil)
}

// armSpec arms a pass's traps late: patched (by the pass: only when it
// runs alone) once near says, at a scheduler event, that the moments
// watched are close.
type armSpec struct {
	keys []trapKey
	near func(ev sched.Event) bool
	now  bool // near already at the start
	s    *Session
	done bool
}

// arm patches the keys once. Only between the pass's dispatches.
func (a *armSpec) arm() {
	if a.done {
		return
	}
	a.done = true
	a.s.mu.Lock()
	for _, k := range a.keys {
		a.s.setTrapLocked(k)
	}
	a.s.mu.Unlock()
}

// disarm removes what arm patched. Once the pass's carrier has returned.
func (a *armSpec) disarm() {
	if !a.done {
		return
	}
	a.s.mu.Lock()
	for _, k := range a.keys {
		a.s.clearTrapLocked(k)
	}
	a.s.mu.Unlock()
}

// startScanPassArmed is startScanPass with the traps of arm (if not nil)
// patched late.
func (s *Session) startScanPassArmed(st stretch, keys map[trapKey]bool, w scanWatch, arm *armSpec) (*scanPass, error) {
	tt := s.tt
	off := 0
	if st.from != nil {
		off = st.from.off
	}
	j, err := record.ResumeJournalAt(tt.j.Log(), tt.j.Shown(), off)
	if err != nil {
		return nil, err
	}
	h := &scanHook{keys: keys, end: st.end, w: w}
	p := &scanPass{s: s, j: j, st: st, h: h, done: make(chan error, 1), exited: make(chan struct{})}
	// (the output of a pass is checked against the recording, never shown)
	if p.r, err = s.newRunAt(tt.stdin, io.Discard, io.Discard, j, h, st.from, stateStopped); err != nil {
		if st.from != nil {
			return nil, fmt.Errorf("a checkpoint of the recording cannot be restored: %v", err)
		}
		return nil, err
	}
	if st.from != nil {
		tt.snaps.mu.Lock()
		tt.snaps.restores++
		tt.snaps.mu.Unlock()
	}
	end := st.end
	frontier := tt.j.Size() - tt.j.HeaderSize() // the events recorded
	sch := p.r.sch
	if arm != nil && arm.now {
		arm.arm()
	}
	sch.OnEvent = func(ev sched.Event) {
		if arm != nil && !arm.done && arm.near(ev) {
			arm.arm() // (between dispatches: the events are delivered after one)
		}
		w.event(ev, p)
		if ev.Kind == sched.EventTrap {
			p.finish(nil) // (the hook stops only at the end, or where the watch has its answer)
			return
		}
		if m, ok := quantumEnd(ev, j); ok {
			if !end.trap && !end.throw && (m == end || end.byOff && m.off >= end.off) {
				sch.Pause()
				p.finish(nil)
				return
			}
			if m.off > frontier {
				p.finish(errDiverged) // past the recording: the end was missed
				sch.Pause()
			}
		}
	}
	go func() {
		sch.Run()
		p.finish(errDiverged)
		close(p.exited)
	}()
	sch.Resume()
	return p, nil
}

// scanWorkers is how many passes of a scan run at once: one per core.
func scanWorkers() int { return max(1, runtime.GOMAXPROCS(0)) }

// scanProgress, if not nil, is told of a scan's progress: stretches
// done of total.
type scanProgress func(done, total int)

// scan re-executes the stretches sts, patched with keys, each watched by
// a watch made by newWatch(i), at most scanWorkers() at once, taken in
// the order order (nil: first to last). Each watch is handed to use once
// its pass is over, in order, however the passes finish; use returns
// false when it has its answer (the passes still running are dropped).
// The scan gives up with ErrCancelled when the request is cancelled.
// The session must be stopped.
func (s *Session) scan(sts []stretch, keys []trapKey, order []int, newWatch func(i int) scanWatch,
	use func(i int, w scanWatch) bool, progress scanProgress) error {
	if order == nil {
		order = make([]int, len(sts))
		for i := range order {
			order[i] = i
		}
	}
	set := map[trapKey]bool{}
	for _, k := range keys {
		set[k] = true
	}
	ends := map[trapKey]bool{}
	for _, st := range sts {
		if st.end.trap {
			ends[trapKey{st.end.fn, st.end.pc}] = true
		}
	}
	s.mu.Lock()
	for k := range set {
		s.setTrapLocked(k)
	}
	for k := range ends {
		s.setTrapLocked(k)
	}
	s.mu.Unlock()
	type result struct {
		i   int
		w   scanWatch
		err error
	}
	results := make(chan result, len(sts))
	var (
		mu      sync.Mutex
		running = map[*scanPass]bool{}
		quit    atomic.Bool
		next    int
	)
	// start runs the next stretch of order, if any, on its own goroutine.
	var start func()
	start = func() {
		mu.Lock()
		if quit.Load() || next >= len(order) {
			mu.Unlock()
			return
		}
		i := order[next]
		next++
		mu.Unlock()
		go func() {
			w := newWatch(i)
			p, err := s.startScanPass(sts[i], set, w)
			if err == nil {
				mu.Lock()
				running[p] = true
				if quit.Load() {
					p.finish(errStop)
				}
				mu.Unlock()
				err = <-p.done
				p.r.sch.Kill(0)
				<-p.exited
				mu.Lock()
				delete(running, p)
				mu.Unlock()
			}
			results <- result{i, w, err}
			start()
		}()
	}
	for range min(scanWorkers(), len(order)) {
		start()
	}
	got := map[int]result{}
	var err error
	released, finished := 0, 0
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for finished < len(order) && err == nil {
		select {
		case r := <-results:
			finished++
			got[r.i] = r
			if progress != nil {
				progress(finished, len(order))
			}
		case <-tick.C:
			if s.cancelled() {
				err = ErrCancelled
			}
			continue
		}
		for err == nil && released < len(order) {
			r, ok := got[order[released]]
			if !ok {
				break
			}
			released++
			if r.err != nil {
				err = r.err
				break
			}
			if !use(r.i, r.w) {
				err = errStop
			}
		}
	}
	// Drop the passes still running, and wait for them to leave.
	quit.Store(true)
	mu.Lock()
	for p := range running {
		p.finish(errStop)
	}
	mu.Unlock()
	mu.Lock()
	started := next
	mu.Unlock()
	for ; finished < started; finished++ {
		<-results
	}
	s.mu.Lock()
	for k := range set {
		s.clearTrapLocked(k)
	}
	for k := range ends {
		s.clearTrapLocked(k)
	}
	s.mu.Unlock()
	if err == errStop {
		err = nil
	}
	return err
}

// errStop ends a scan that has its answer.
var errStop = errors.New("stop")
