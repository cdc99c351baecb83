package inspect

// Going back: a session with one carrier keeps a journal of its run
// (sched/record): every input from outside and every quantum, and now
// and then a copy of the whole execution (a checkpoint, snapshots.go).
// Because the run is deterministic given the journal, any earlier moment
// can be rebuilt by restoring the nearest checkpoint before it (or
// starting the program afresh) on a new machine whose inputs come from
// the journal, and executing up to that moment; the session then carries
// on with the new machine. Output already shown is not shown again.
//
// A moment is (thread, its reductions, its depth, a pc at a statement
// boundary): between two reductions a thread passes each pc of each frame
// at most once. Finding the target (the previous statement of a thread,
// the previous breakpoint hit) takes one re-execution that watches the
// traps and stops at the present; reaching it takes a second one.

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
)

// ErrNoRecording is returned by the going-back methods of a session that
// does not record (several carriers, Config.NoRecord), wrapped with the
// reason (NoRecordingReason).
var ErrNoRecording = errors.New("going back needs a recording")

// DefaultRecordBudget is the memory a session's recording may take
// (Config.RecordBudget): 512 MiB.
const DefaultRecordBudget = 512 << 20

// timeTravel is a session's journal and what rebuilding its machine takes.
type timeTravel struct {
	j              *record.Journal
	stdin          io.Reader
	stdout, stderr io.Writer // the session's own writers (unwrapped)
	// the last quantum: its thread, how it ended and where the journal
	// was (a stop between dispatches is "after this quantum"); written on
	// the carrier that delivers the events, read at a stop (lastMu: a
	// pause returns once the quantum is over, maybe before its event is
	// delivered)
	lastMu      sync.Mutex
	last        moment
	checkpoints []Checkpoint
	nextCP      int
	budget      int64
	// stopped says why the session stopped recording ("" while it
	// records).
	stopped string
	// core is the moment of the dump the session opened (Config.Replay
	// of a dump), nil otherwise.
	core *record.Core
	// sets counts the variables set since the timeline began: a
	// re-execution does not set them, so the session cannot go back from
	// a moment after one (only to a checkpoint made before it).
	sets int
	// snaps are the copies of the execution that going back starts from.
	snaps *snapStore
}

// Checkpoint is a moment the user named (REPL checkpoint NOTE).
type Checkpoint struct {
	ID   int
	Note string
	// Where is the moment: thread, function and line.
	Where string
	at    moment
	sets  int // tt.sets when it was made
	epoch int // the number of the program's epoch it was made in (reload.go)
}

// moment names a point of a deterministic run. With trap set, it is the
// thread at a statement boundary; otherwise the end of a quantum of
// thread that ended with an event of kind and left the journal at offset
// off. The zero moment is the start.
type moment struct {
	thread int64
	red    int64
	depth  int
	fn     *vm.Funcode
	pc     int32
	trap   bool
	throw  bool // a throw (fn and pc: the top frame's) rather than a statement boundary
	off    int
	kind   sched.EventKind
	// byOff: the end of the first quantum that leaves the journal at
	// offset off or later (where a checkpoint was taken).
	byOff bool
}

func (m moment) isStart() bool { return m.thread == 0 && !m.byOff }

// journal returns the journal of tt (nil: none).
func (tt *timeTravel) journal() *record.Journal {
	if tt == nil {
		return nil
	}
	return tt.j
}

// newTimeTravel returns the journal of a new session, or nil if it
// cannot record (several carriers). log, if not nil, is a recording's log
// to replay (debug --replay).
func newTimeTravel(cfg Config, hdr record.Header, log []byte, stdin io.Reader, stdout, stderr io.Writer) (*timeTravel, error) {
	if cfg.Carriers > 1 || (cfg.NoRecord && log == nil) {
		return nil, nil
	}
	tt := &timeTravel{stdin: stdin, stdout: stdout, stderr: stderr, budget: cfg.RecordBudget, snaps: newSnapStore(cfg)}
	if tt.budget <= 0 {
		tt.budget = DefaultRecordBudget
	}
	if log != nil {
		j, err := record.ResumeJournal(log, 0)
		if err != nil {
			return nil, err
		}
		tt.j = j
	} else {
		tt.j = record.NewJournal(hdr)
	}
	return tt, nil
}

// newRunAt builds a run of the session's program, paused, stopped
// (state): at the start, or (from, if not nil) at a checkpoint with the
// journal j resumed at its offset. j, if not nil, is installed (output
// through it, its clock); h becomes the machine's debug hook. Its events
// reach the session (onEvent) once it is the session's run.
func (s *Session) newRunAt(stdin io.Reader, stdout, stderr io.Writer, j *record.Journal, h vm.DebugHook, from *snap, state int) (*run, error) {
	cfg := s.runConfig(stdin, stdout, stderr, j, h, from)
	if th, ok := h.(*travelHook); ok && th.cu != nil {
		cfg.NoSpare = true // (a catch-up leaves it to going back: catchup.go)
	}
	b, err := sched.Boot(s.prog, cfg)
	if err != nil {
		return nil, err
	}
	r := s.newRun(b.M, b.Sched, state)
	r.spare = b.Spare
	r.sch.OnEvent = func(ev sched.Event) {
		if s.live.Load() == r {
			s.onEvent(ev, j)
		}
	}
	return r, nil
}

// runConfig returns the configuration of a run of the session's program
// (sched.Boot): its limits and permissions, writing to stdout and stderr
// (through j, if not nil, with its clock), with hook h (behind the
// access hook of the race detector or shared accesses), paused; from,
// if not nil, is the checkpoint it goes on from.
func (s *Session) runConfig(stdin io.Reader, stdout, stderr io.Writer, j *record.Journal, h vm.DebugHook, from *snap) sched.RunConfig {
	cfg := sched.RunConfig{Limits: s.cfg.limits(), Seed: s.cfg.Seed, Policy: s.fs,
		Stdin: stdin, Stdout: stdout, Stderr: stderr, DebugLog: s.cfg.DebugLog, Paused: true, Sites: true}
	cfg.Hook, cfg.Race = s.accessHook(h) // shared.go
	if j != nil {
		cfg.Tap = j
		if s.tt != nil {
			cfg.Checkpointer = &snapHook{s: s, tt: s.tt, j: j}
			cfg.HostHeap = s.tt.snaps.heap.Load()
		}
	}
	if from != nil {
		cfg.From = from.sn
	}
	return cfg
}

// quantumEnd returns the moment at the end of the quantum that ev ends,
// if it ends one, in a run whose journal is j.
func quantumEnd(ev sched.Event, j *record.Journal) (moment, bool) {
	switch ev.Kind {
	case sched.EventPreempt, sched.EventPark, sched.EventExit:
		return moment{thread: ev.Thread.ID, red: ev.Thread.Reductions(), off: j.Offset(), kind: ev.Kind}, true
	}
	return moment{}, false
}

// noteEvent keeps the end of the last quantum, and stops the recording
// once it is over budget (it reports true then).
//
// j is the journal of the run the event is of: an event of the run going
// back leaves, delivered after the session took the new run's journal
// (the carrier delivers a quantum's events after a pause returned), is
// not of the session's timeline any more, and is dropped (its offset is
// in another journal, which the new run's carrier writes).
func (tt *timeTravel) noteEvent(ev sched.Event, j *record.Journal) bool {
	tt.lastMu.Lock()
	if j != tt.j {
		tt.lastMu.Unlock()
		return false
	}
	m, ok := quantumEnd(ev, j)
	if ok {
		tt.last = m
	}
	tt.lastMu.Unlock()
	if !ok {
		return false
	}
	if tt.stopped == "" && int64(j.Size()) > tt.budget && j.Stop() {
		tt.stopped = fmt.Sprintf("the recording reached its budget of %d MiB and was stopped", tt.budget>>20)
		return true
	}
	return false
}

// travelHook is the debug hook of a machine that re-executes the past:
// it watches the traps and stops at the target. Once the session adopts
// the machine it passes everything to the session's hook.
type travelHook struct {
	s       *Session
	adopted atomic.Bool
	target  moment
	watch   func(t *vm.Thread, m moment, fired []int) // every other trap, with the breakpoints that stop there
	r       *run                                      // the re-execution
	// watchThrow sees every throw that is not the target.
	watchThrow func(t *vm.Thread, m moment, exc *vm.Object, caught bool)
	// the exception the target is a throw of, once reached
	exc    *vm.Object
	caught bool
	// hit: the target was reached (a trap of the recording's holds is
	// not the target's)
	hit atomic.Bool
	// cu: the re-execution is the catch-up cu (catchup.go)
	cu *catchUp
}

// lock takes s.mu for a hook of the re-execution; a catch-up's gives
// way instead once hushed (false: the re-execution must stop).
func (h *travelHook) lock() bool {
	if h.cu != nil {
		return h.cu.lock(h.s)
	}
	h.s.mu.Lock()
	return true
}

// throwMoment names the throw of exc by t (inside OnThrow).
func throwMoment(t *vm.Thread) moment {
	f := t.Frame(0)
	return moment{thread: t.ID, red: t.TrapReductions(), depth: t.Depth(), fn: f.Fn, pc: f.PC, throw: true}
}

func (h *travelHook) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	if h.adopted.Load() {
		return hook{h.s}.OnTrap(t, fn, pc)
	}
	m := moment{thread: t.ID, red: t.TrapReductions(), depth: t.Depth(), fn: fn, pc: pc, trap: true}
	fired, ok := h.countHits(t, fn, pc)
	if !ok {
		return true // a catch-up hushed: it stops here, and ends
	}
	if h.target.trap && m == h.target {
		h.hit.Store(true)
		return true
	}
	if h.watch != nil {
		h.watch(t, m, fired)
	}
	return false
}

// countHits applies the breakpoint rule (decide) to the breakpoints at
// pc of fn with the counts of the re-execution's run, as the session's
// run did going forward, and returns the ids of those that stop there
// (logpoints print nothing: their messages were printed). The session
// adopting the run carries on with the counts of that moment. ok is
// false if the re-execution is a catch-up that was hushed meanwhile.
func (h *travelHook) countHits(t *vm.Thread, fn *vm.Funcode, pc int32) (fired []int, ok bool) {
	s := h.s
	k := trapKey{fn, pc}
	if !h.lock() {
		return nil, false
	}
	list := append([]*bp(nil), s.bps.at[k]...)
	s.mu.Unlock()
	for _, b := range list {
		held, condErr := true, error(nil)
		if b.cond != "" {
			held, condErr = s.evalCond(t, b, k)
		}
		if !h.lock() {
			return nil, false
		}
		stop, _ := s.bps.decide(b, h.r.count(b), held, condErr)
		s.mu.Unlock()
		if stop {
			fired = append(fired, b.id)
		}
	}
	return fired, true
}

func (h *travelHook) OnThrow(t *vm.Thread, exc *vm.Object, caught bool) bool {
	if h.adopted.Load() {
		return hook{h.s}.OnThrow(t, exc, caught)
	}
	if h.target.throw || h.watchThrow != nil {
		m := throwMoment(t)
		if h.target.throw && m == h.target {
			h.hit.Store(true)
			h.exc, h.caught = exc, caught
			return true
		}
		if h.watchThrow != nil {
			h.watchThrow(t, m, exc, caught)
		}
	}
	return false
}

// pass is one re-execution of the past.
type pass struct {
	s     *Session
	r     *run // the re-execution, stopped once it reaches its target
	j     *record.Journal
	h     *travelHook
	once  sync.Once
	done  chan bool // true: the target was reached
	onEv  func(ev sched.Event)
	traps []trapKey // patched for the pass (cleared by wait)
	// cancelled: the request that went back was cancelled (cancelpass.go)
	cancelled bool
	from      *snap     // the checkpoint it started from (nil: the start)
	near      *nearCopy // how it takes a copy near its target (nil: it takes none)
}

// red0 returns the reductions thread id had where the pass started (0
// at the start, or if it did not exist yet).
func (p *pass) red0(id int64) int64 {
	if p.from == nil {
		return 0
	}
	if t := p.from.sn.Thread(id); t != nil {
		return t.Reductions()
	}
	return 0
}

// startPass builds a machine that re-executes the session's journal
// from the checkpoint from (nil: the start; output shown so far is not
// shown again) and starts it; it stops at target. watch sees every other
// trap; onEv every scheduler event.
func (s *Session) startPass(from *snap, target moment, watch func(*vm.Thread, moment, []int), onEv func(*pass, sched.Event), prepare func(*pass)) (*pass, error) {
	return s.startPassWith(from, target, watch, onEv, prepare, nil)
}

// startPassWith is startPass; with cu, for the catch-up cu (catchup.go):
// the target's trap is not patched (the session may patch others
// meanwhile; the catch-up ends at the copy near the target), and its
// hooks never wait for the session's lock.
func (s *Session) startPassWith(from *snap, target moment, watch func(*vm.Thread, moment, []int), onEv func(*pass, sched.Event), prepare func(*pass), cu *catchUp) (*pass, error) {
	tt := s.tt
	if from == nil {
		from = s.floorSnap() // the start of the program's epoch (reload.go)
	}
	off := 0
	if from != nil {
		off = from.off
	}
	j, err := record.ResumeJournalAt(tt.j.Log(), tt.j.Shown(), off)
	if err != nil {
		return nil, err
	}
	stdin, stdout, stderr := tt.stdin, tt.stdout, tt.stderr
	if cu != nil {
		// (a catch-up is never adopted: nothing it does is shown, and it
		// reads no input the session's runs have not recorded)
		stdin, stdout, stderr = strings.NewReader(""), io.Discard, io.Discard
	}
	h := &travelHook{s: s, target: target, watch: watch, cu: cu}
	p := &pass{s: s, j: j, h: h, done: make(chan bool, 1), from: from}
	if from != nil {
		if p.r, err = s.newRunAt(stdin, stdout, stderr, j, h, from, stateStopped); err == nil && cu == nil {
			tt.snaps.mu.Lock()
			tt.snaps.restores++
			if p.r.spare {
				tt.snaps.spares++
			}
			tt.snaps.mu.Unlock()
		} else {
			// (a copy that cannot be restored: from the start instead)
			if p.j, err = record.ResumeJournal(tt.j.Log(), tt.j.Shown()); err != nil {
				return nil, err
			}
			j, p.from = p.j, nil
		}
	}
	if p.from == nil {
		if p.r, err = s.newRunAt(stdin, stdout, stderr, j, h, nil, stateStopped); err != nil {
			return nil, err
		}
	}
	h.r = p.r
	if p.from != nil {
		for b, n := range p.from.counts {
			p.r.count(b).hits = n // (no other goroutine has the run yet)
		}
	}
	sch := p.r.sch
	// The target's trap is patched only once its thread may reach it in
	// its next quantum (it may be in a hot loop).
	quota := int64(sch.Quota())
	var near *nearCopy
	// (no near copy while a breakpoint counts its hits from the start:
	// going back starts from the start then, snapBefore; a catch-up
	// starts only without one)
	if (target.trap || target.throw) && tt.snaps.active() && (cu != nil || !s.hitCounted() && !s.dataHitCounted()) {
		near = &nearCopy{thread: sch.Thread(target.thread), red: target.red, quota: quota, cu: cu}
		near.counts = func() (map[*bp]int, bool) {
			if !h.lock() {
				return nil, false
			}
			defer s.mu.Unlock()
			counts := map[*bp]int{}
			for b, c := range p.r.counts {
				counts[b] = c.hits
			}
			return counts, true
		}
		sch.SetCheckpointer(&snapHook{s: s, tt: tt, j: j, near: near})
	}
	p.near = near
	armed := cu != nil // (a catch-up patches nothing)
	arm := func() {
		armed = true
		p.patch(trapKey{target.fn, target.pc})
	}
	if !armed && target.trap && p.red0(target.thread)+quota >= target.red {
		arm()
	}
	armOn := func(ev sched.Event) {
		if !armed && target.trap && ev.Thread != nil && ev.Thread.ID == target.thread && ev.Thread.Reductions()+quota >= target.red {
			arm()
		}
	}
	adopted := sch.OnEvent // the events once the session adopts the run
	sch.OnEvent = func(ev sched.Event) {
		if h.adopted.Load() {
			adopted(ev)
			return
		}
		if j.Forked() != "" {
			// diverged from the recording: the target cannot be reached
			// (and a program that loops forever would never end the pass)
			sch.Pause()
			p.finish(false)
			return
		}
		if onEv != nil {
			onEv(p, ev)
		}
		if _, ok := quantumEnd(ev, j); ok {
			tt.snaps.mu.Lock()
			tt.snaps.quanta++
			tt.snaps.mu.Unlock()
		}
		if near != nil && near.thread == nil && ev.Thread != nil && ev.Thread.ID == target.thread {
			near.thread = ev.Thread // (spawned after the copy the pass started from)
		}
		if ev.Kind == sched.EventIdle {
			// only threads the recording holds could run, and it no
			// longer releases them (it diverged): it cannot go on
			p.finish(false)
		}
		armOn(ev)
		if ev.Kind == sched.EventTrap && (target.trap || target.throw) && h.hit.Load() {
			p.finish(true)
		}
		if !target.trap && !target.throw && !target.isStart() {
			if m, ok := quantumEnd(ev, j); ok && (m == target || target.byOff && m.off >= target.off) {
				sch.Pause()
				p.finish(true)
			}
		}
	}
	if prepare != nil {
		prepare(p)
	}
	p.r.carrierDone = make(chan struct{})
	if near != nil {
		near.start = tt.snaps.clock.Now()
	}
	go func() {
		defer close(p.r.carrierDone)
		code := sch.Run()
		if h.adopted.Load() {
			s.afterRun(p.r, code)
			return
		}
		p.finish(false)
	}()
	if !target.isStart() {
		sch.Resume() // (the start: it stays paused before its first dispatch)
	}
	return p, nil
}

// prepareAgain restores the checkpoint pass p started from ahead, while
// p runs (snapStore.prepare): for a second re-execution from it.
func (s *Session) prepareAgain(p *pass) {
	if p.from == nil {
		return
	}
	s.tt.snaps.prepare(p.from)
	p.r.m.ExcludeHeap(s.tt.snaps.heap.Load())
}

// prepareBack restores ahead the checkpoint that going back from moment
// now starts from (snapStore.prepare): at a stop, while the user reads
// it. (The moment is taken before the stop is published: then a request
// may change the threads.)
func (s *Session) prepareBack(now moment) {
	if s.tt == nil || s.tt.stopped != "" || now.isStart() {
		return
	}
	from := s.snapBefore(func(sp *snap) bool { return sp.beforeMoment(now) })
	if s.catchUpAt(now, from) {
		return // (it restores from ahead, and takes a copy near now)
	}
	s.tt.snaps.prepare(from)
}

// finish reports the pass's end once.
func (p *pass) finish(reached bool) {
	p.once.Do(func() { p.done <- reached })
}

// patch patches k for the pass. Only between dispatches.
func (p *pass) patch(k trapKey) {
	p.s.mu.Lock()
	p.s.setTrapLocked(k)
	p.s.mu.Unlock()
	p.traps = append(p.traps, k)
}

// unpatch removes the pass's traps. Only between dispatches.
func (p *pass) unpatch() {
	p.s.mu.Lock()
	for _, k := range p.traps {
		p.s.clearTrapLocked(k)
	}
	p.s.mu.Unlock()
	p.traps = nil
}

// wait waits for the pass to reach its target or end; the traps it
// patched are removed.
func (p *pass) wait() bool {
	reached := p.waitDone() // (cancelpass.go)
	p.unpatch()
	return reached
}

// discard ends a pass the session does not adopt.
func (p *pass) discard() {
	p.r.sch.Kill(0)
}

// afterRun is the end of the carrier of run r: the program is over, if
// r is the session's run.
func (s *Session) afterRun(r *run, code int) {
	s.mu.Lock()
	cur := s.r == r
	dead := r.deadlock
	s.mu.Unlock()
	if !cur {
		return // a run the session has left for another
	}
	if dead {
		// Keep the threads for inspection until the user resumes.
		r.sch.Pause()
		report := "fatal: all threads are asleep - deadlock!"
		s.stopWorld(StopInfo{Reason: ReasonDeadlock, ThreadID: 1, Description: "Deadlock: all threads are asleep", Text: report}, r.sch.Main())
		s.waitResume()
		if !s.current(r) {
			return // the session went back from the deadlock
		}
	}
	s.finish(code)
}

// present returns the session's current moment. Must be stopped.
func (s *Session) present() moment {
	s.mu.Lock()
	info, t, sch := s.r.stop, s.r.stopped, s.r.sch
	s.mu.Unlock()
	return s.momentOf(info, t, sch)
}

// momentOf is the moment of a stop (info, of thread t) of the run whose
// scheduler is sch (present).
func (s *Session) momentOf(info StopInfo, t *vm.Thread, sch *sched.Scheduler) moment {
	switch info.Reason {
	case ReasonStep, ReasonBreakpoint, ReasonFunction, ReasonException, ReasonDataRace, ReasonData:
		if t != nil && t.Depth() > 0 {
			f := t.Frame(0)
			m := moment{thread: t.ID, red: t.Reductions(), depth: t.Depth(), fn: f.Fn, pc: f.PC, trap: true}
			if info.Reason == ReasonException {
				m.trap, m.throw = false, true
			}
			return m
		}
	}
	if t := sch.Cut(); t != nil && t.Depth() > 0 {
		// A pause cut t's quantum: the moment is t where it stopped (a
		// re-execution, whose quantum is not cut, passes it).
		f := t.Frame(0)
		return moment{thread: t.ID, red: t.Reductions(), depth: t.Depth(), fn: f.Fn, pc: f.PC, trap: true}
	}
	return s.tt.lastMoment()
}

// setLast and lastMoment write and read the end of the last quantum.
func (tt *timeTravel) setLast(m moment) {
	tt.lastMu.Lock()
	tt.last = m
	tt.lastMu.Unlock()
}

func (tt *timeTravel) lastMoment() moment {
	tt.lastMu.Lock()
	defer tt.lastMu.Unlock()
	return tt.last
}

// adopt makes the run of p the session's, stopped at its target with
// info; the old run ends.
func (s *Session) adopt(p *pass, info StopInfo, t *vm.Thread) {
	last := moment{} // the start, or a trap (present uses the stop)
	if tg := p.h.target; !tg.trap {
		last = tg
	}
	s.tt.setLast(last)
	r := p.r
	if h := p.h; h.exc != nil && t != nil {
		mode := "always"
		if !h.caught {
			mode = "unhandled"
		}
		r.excStops[t.ID] = excStop{exc: h.exc, uncaught: !h.caught, breakmode: mode}
	}
	s.tt.lastMu.Lock()
	s.tt.j = p.j
	s.tt.lastMu.Unlock()
	p.h.adopted.Store(true)
	s.swap(r, info, t)
}

// travelTo re-executes the past up to target and adopts the machine
// there (the start if target is the zero moment), stopped with info.
func (s *Session) travelTo(target moment, info StopInfo) error {
	var from *snap
	if !target.isStart() {
		from = s.snapBefore(func(sp *snap) bool { return sp.beforeMoment(target) })
	}
	p, err := s.startPass(from, target, nil, nil, nil)
	if err != nil {
		return err
	}
	if !target.isStart() && !p.wait() {
		p.discard()
		return p.failed(errors.New("the re-execution ended before the moment it was going back to (the recording diverged)"))
	}
	var t *vm.Thread
	if target.isStart() {
		t = p.r.sch.Main()
	} else {
		t = p.r.sch.Thread(target.thread)
	}
	s.adopt(p, info, t)
	return nil
}

// checkTravel checks that the session can go back now. A session that
// runs with threads held alone (non-stop) stops every thread first
// (nonstop.go): about thread threadID if fromHeld and it is held.
func (s *Session) checkTravel(threadID int64, fromHeld bool) error {
	if err := s.checkRecording(); err != nil {
		return err
	}
	s.stopForTravel(threadID, fromHeld)
	return s.checkStopped()
}

// checkRecording checks that the session records (and still does).
func (s *Session) checkRecording() error {
	if s.tt == nil {
		return s.NoRecordingReason()
	}
	if s.tt.stopped != "" {
		return errors.New("going back is no longer possible: " + s.tt.stopped)
	}
	return nil
}

// ErrAfterSet is returned by StepBack and ReverseContinue after a
// variable was set: the past is still there, but the way to it
// (re-executing from the start up to the present) is not.
var ErrAfterSet = errors.New("the execution was changed since the start (a variable set, a thread moved or a frame restarted): re-executing the program would not do it, so the session cannot find its way back from here (restart CHECKPOINT still goes to a checkpoint made before it)")

// checkBack checks that the session can go back from the present.
func (s *Session) checkBack(threadID int64, fromHeld bool) error {
	if err := s.checkTravel(threadID, fromHeld); err != nil {
		return err
	}

	if s.tt.sets > 0 {
		return ErrAfterSet
	}
	return nil
}

// afterSet notes a successful SetVariable: the run leaves its recording.
// In the past, the rest of the recording is dropped (a new future), and
// the session says so.
func (s *Session) afterSet(err error) {
	s.afterChange(err, "a variable was set")
}

// afterChange notes a successful request that changed the execution
// (what: setVariable, setExpression, goto, restartFrame), which a
// re-execution of the recording would not do: the run leaves its
// recording, as after afterSet.
func (s *Session) afterChange(err error, what string) {
	if err != nil || s.tt == nil {
		return
	}
	s.tt.sets++
	msg := "note: the program no longer follows its recording (" + what + "): going back is possible only to checkpoints made before\n"
	if s.tt.j.Replaying() {
		s.tt.j.Fork(what + " in the past")
		s.tt.snaps.dropAfter(s.tt.j.Offset()) // copies of the dropped future
		msg = "note: " + what + " in the past: the recorded future is dropped, and what runs from here is a new future, recorded as it happens\n"
	}
	s.emit(func(l Listener) { l.Output("console", msg) })
}

// StepBack goes back to the previous statement boundary of thread
// threadID: StepOver, the previous statement in its function or a caller
// (skipping the statements of callees); StepIn, the previous statement
// wherever it was; StepOut, the statement that called the current
// function. The other threads are where they were at that moment. At the
// start of the recording it stops at entry.
func (s *Session) StepBack(threadID int64, kind StepKind) error {
	s.awaitCatchUp() // (catchup.go)
	defer s.quiet()()
	if err := s.checkBack(threadID, true); err != nil {
		return err
	}
	t, err := s.thread(threadID)
	if err != nil {
		return err
	}
	now := s.present()
	if now.isStart() {
		return s.travelTo(moment{}, StopInfo{Reason: ReasonEntry, Description: "At the start of the recording"})
	}
	depth := t.Depth()
	fns := map[*vm.Funcode]bool{}
	for i := 0; i < t.Depth(); i++ {
		fns[t.Frame(i).Fn] = true
	}
	if kind == StepIn {
		for _, fn := range s.prog.Funcs {
			fns[fn] = true
		}
	}
	wants := func(m moment) bool {
		switch kind {
		case StepOut:
			return m.depth < depth
		case StepOver:
			return m.depth <= depth
		}
		return true
	}
	info := StopInfo{Reason: ReasonStep, Description: "Step back", Back: true}
	if now.trap && now.thread == threadID && kind != StepOut {
		if pc, ok := straightBefore(now.fn, now.pc); ok {
			prev := now
			prev.pc = pc
			return s.travelTo(prev, info)
		}
	}
	quota := int64(s.r.sch.Quota())
	red := t.Reductions()
	for _, back := range []int64{0, 4 * quota, 64 * quota, red + quota} {
		lo := red - back
		// near says, at an event of the re-execution, that thread
		// threadID may reach lo in its next quantum: the window opens.
		near := func(ev sched.Event) bool {
			return ev.Thread != nil && ev.Thread.ID == threadID && ev.Thread.Reductions()+quota >= lo
		}
		// (The two re-executions cannot run side by side: their machines
		// share the program's code, where traps are patched.)
		last, err := s.findBoundary(now, threadID, lo, quota, fns, wants, near)
		if err != nil {
			return err
		}
		if !last.isStart() {
			return s.travelTo(last, info)
		}
	}
	return s.travelTo(moment{}, StopInfo{Reason: ReasonEntry, Description: "At the start of the recording"})
}

// findBoundary re-executes the past up to the present now and returns the
// last statement boundary of thread threadID that wants accepts (in the
// functions fns), watched from the event where near says the thread may
// reach lo; the zero moment if there is none in that window.
func (s *Session) findBoundary(now moment, threadID, lo, quota int64, fns map[*vm.Funcode]bool,
	wants func(moment) bool, near func(sched.Event) bool) (moment, error) {
	var last moment
	watch := func(t *vm.Thread, m moment, _ []int) {
		// (a trap inside a statement, a data breakpoint's, is no
		// boundary: forward stepping never stops there)
		if m.thread == threadID && isStmt(m.fn, m.pc) && wants(m) {
			last = m
		}
	}
	patched := false
	patchAll := func(p *pass) {
		patched = true
		for fn := range fns {
			for _, e := range stmtPCs(fn) {
				p.patch(trapKey{fn, e.PC})
			}
		}
	}
	onEv := func(p *pass, ev sched.Event) {
		if !patched && near(ev) {
			patchAll(p)
		}
	}
	prepare := func(p *pass) {
		if p.red0(threadID)+quota >= lo {
			patchAll(p) // before the first dispatch
		}
	}
	from := s.snapBefore(func(sp *snap) bool { return sp.beforeMoment(now) && sp.beforeRed(threadID, lo) })
	p, err := s.startPass(from, now, watch, onEv, prepare)
	if err != nil {
		return moment{}, err
	}
	s.prepareAgain(p) // (for the re-execution to the boundary found)
	reached := p.wait()
	p.discard()
	if !reached {
		return moment{}, p.failed(errors.New("the re-execution ended before the present (the recording diverged)"))
	}
	return last, nil
}

// ReverseContinue goes back to the most recent breakpoint hit, exception
// stop (as the exception breakpoints are set) or data change (a data
// breakpoint on a field of an object or a local; one on an element is
// not followed back) before the present (any thread; a breakpoint counts
// where its condition held and its hit count, counted from the start,
// says stop; logpoints never stop), or to the start of the recording if
// there is none.
func (s *Session) ReverseContinue(threadID int64) error {
	s.awaitCatchUp() // (catchup.go)
	defer s.quiet()()
	if err := s.checkBack(threadID, false); err != nil {
		return err
	}
	now := s.present()
	if now.isStart() {
		return s.travelTo(moment{}, StopInfo{Reason: ReasonEntry, Description: "At the start of the recording"})
	}
	var last moment
	var ids []int
	var dataStop *StopInfo
	var data *dataSearch // (made anew for each re-execution)
	// (a re-execution counts the hits as the run did: from the start, or
	// from a checkpoint when no breakpoint has a hit condition)
	watch := func(t *vm.Thread, m moment, fired []int) {
		if data != nil {
			if st := data.at(t, m.fn, m.pc); st != nil {
				last, ids, dataStop = m, nil, st
			}
		}
		if len(fired) > 0 {
			last, ids, dataStop = m, fired, nil
		}
	}
	var excText string
	s.mu.Lock()
	excAll, excUnc := s.excAll, s.excUnc
	s.mu.Unlock()
	watchThrow := func(t *vm.Thread, m moment, exc *vm.Object, caught bool) {
		if excAll || (excUnc && !caught) {
			last, ids, excText, dataStop = m, nil, vm.ExceptionString(exc), nil
		}
	}
	prepare := func(p *pass) { p.h.watchThrow = watchThrow }
	// Search back from the present one stretch between two checkpoints
	// at a time: the latest hit is in the latest stretch that has one.
	// (With hit counts, counted from the start, the search is one
	// re-execution from the start: snapBefore returns nil.)
	end := now
	from := s.snapBefore(func(sp *snap) bool { return sp.beforeMoment(now) })
	for {
		data = s.newDataSearch()
		p, err := s.startPass(from, end, watch, nil, prepare)
		if err != nil {
			return err
		}
		s.prepareAgain(p) // (for the re-execution to a hit found in this stretch)
		reached := p.wait()
		p.discard()
		if !reached {
			return p.failed(errors.New("the re-execution ended before the present (the recording diverged)"))
		}
		if !last.isStart() || from == nil || from == s.floorSnap() {
			break
		}
		end = moment{byOff: true, off: from.off}
		from = s.tt.snaps.before(from)
	}
	if last.throw {
		return s.travelTo(last, StopInfo{Reason: ReasonException, Description: "Exception (going back)", Text: excText, Back: true})
	}
	if last.isStart() {
		return s.travelTo(moment{}, StopInfo{Reason: ReasonEntry, Description: "At the start of the recording (no breakpoint hit before)"})
	}
	if dataStop != nil {
		return s.travelTo(last, *dataStop)
	}
	return s.travelTo(last, StopInfo{Reason: ReasonBreakpoint, HitBreakpointIDs: ids, Description: "Breakpoint (going back)", Back: true})
}

// CanGoBack reports whether the session records, so that StepBack and
// ReverseContinue work (see also its recording budget).
func (s *Session) CanGoBack() bool { return s.tt != nil }

// Where describes the present of the session's timeline (REPL when).
type Where struct {
	// Recording says whether the session records at all.
	Recording bool
	// Replaying says that the session is in the past of its recording:
	// going forward re-executes what the journal holds (without showing
	// its output again) up to the frontier.
	Replaying bool
	// Offset is the present in bytes of events, Size the journal's size.
	Offset, Size int
	// HeaderSize is the bytes of the header in Size.
	HeaderSize int
	Thread     int64
	Reductions int64
	Forked     string
}

// When returns where the session is in its recording. Must be stopped.
func (s *Session) When() (Where, error) {
	if s.tt == nil {
		return Where{}, nil
	}
	if err := s.checkStopped(); err != nil {
		return Where{}, err
	}
	now := s.present()
	j := s.tt.j
	return Where{Recording: true, Replaying: j.Replaying(), Offset: j.Offset(), Size: j.Size(),
		HeaderSize: j.HeaderSize(), Thread: now.thread, Reductions: now.red, Forked: j.Forked()}, nil
}

// AddCheckpoint names the present (REPL checkpoint NOTE) and returns the
// checkpoint.
func (s *Session) AddCheckpoint(note string) (Checkpoint, error) {
	if err := s.checkRecording(); err != nil {
		return Checkpoint{}, err
	}
	if err := s.checkStopped(); err != nil {
		return Checkpoint{}, err
	}
	now := s.present()
	s.tt.nextCP++
	cp := Checkpoint{ID: s.tt.nextCP, Note: note, at: now, Where: s.describeMoment(now), sets: s.tt.sets, epoch: s.epochIndex()}
	s.tt.checkpoints = append(s.tt.checkpoints, cp)
	return cp, nil
}

// Checkpoints returns the named checkpoints, oldest first.
func (s *Session) Checkpoints() []Checkpoint {
	if s.tt == nil {
		return nil
	}
	return append([]Checkpoint(nil), s.tt.checkpoints...)
}

// RestartAt goes to checkpoint id (REPL restart ID): forward or back.
func (s *Session) RestartAt(id int) error {
	defer s.quiet()() // (catchup.go)
	if err := s.checkTravel(0, false); err != nil {
		return err
	}
	for _, cp := range s.tt.checkpoints {
		if cp.ID == id {
			if cp.sets > 0 {
				return fmt.Errorf("checkpoint %d was made after a variable was set, which a re-execution does not do: it cannot be reached again", id)
			}
			if cp.epoch != s.epochIndex() {
				return s.restartBeforeReload(cp) // reload.go
			}
			if cp.at.isStart() {
				err := s.travelTo(moment{}, StopInfo{Reason: ReasonEntry, Description: fmt.Sprintf("Checkpoint %d", id)})
				if err == nil {
					s.tt.sets = 0
				}
				return err
			}
			reason := ReasonStep
			switch {
			case cp.at.throw:
				reason = ReasonException
			case !cp.at.trap:
				reason = ReasonPause
			}
			if err := s.travelTo(cp.at, StopInfo{Reason: reason, Description: fmt.Sprintf("Checkpoint %d", id)}); err != nil {
				return err
			}
			s.tt.sets = 0
			return nil
		}
	}
	return fmt.Errorf("no checkpoint %d", id)
}

// describeMoment renders a moment for the user. Must be stopped.
func (s *Session) describeMoment(m moment) string {
	if m.isStart() {
		return "the start"
	}
	t := s.r.sch.Thread(m.thread)
	name := fmt.Sprintf("thread %d", m.thread)
	if t != nil {
		name = fmt.Sprintf("thread %d %q", t.ID, t.Name())
	}
	if m.trap || m.throw {
		line, _ := m.fn.Pos(m.pc)
		what := "at"
		if m.throw {
			what = "throwing in"
		}
		return fmt.Sprintf("%s %s %s (line %d), %d reductions", name, what, m.fn.Name, line, m.red)
	}
	return fmt.Sprintf("%s after a quantum, %d reductions", name, m.red)
}

// openReplay reads the recording cfg.Replay and takes its options.
func openReplay(cfg *Config) (*record.Recording, error) {
	path := cfg.Replay
	if cfg.Cwd != "" && !filepath.IsAbs(path) {
		path = filepath.Join(cfg.Cwd, path)
	}
	rec, err := record.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if cfg.Carriers > 1 {
		return nil, fmt.Errorf("a recording replays on one carrier, not %d", cfg.Carriers)
	}
	h := rec.Header // checked against the limits by record.Parse
	cfg.Quota, cfg.Seed, cfg.MaxFrames, cfg.Args = h.Quota, h.Seed, h.MaxFrames, h.Args
	if cfg.MaxHeap == 0 {
		cfg.MaxHeap = h.MaxHeap // a heap limit the client gives is over the recording's
	}
	cfg.Race = cfg.Race || h.Race // a recording made with the detector replays with it
	return rec, nil
}

// straightBefore returns, for a thread at the statement boundary pc of
// fn, the boundary it passed last — when the code alone says so: the
// boundary before pc is the previous one in fn, no jump or handler leads
// to pc, and the instructions in between neither jump nor call (nor run
// NLang code another way), so the thread passed it in the same frame
// with the same reductions. Then going back one statement takes one
// re-execution instead of two.
func straightBefore(fn *vm.Funcode, pc int32) (int32, bool) {
	prev := int32(-1)
	for _, e := range stmtPCs(fn) {
		if e.PC < pc && e.PC > prev {
			prev = e.PC
		}
	}
	if prev < 0 {
		return 0, false
	}
	for _, h := range fn.Handlers {
		if h.Target == pc {
			return 0, false
		}
	}
	for i := range int32(len(fn.Code)) {
		in := fn.Instr(i)
		if target, jump := in.JumpTarget(); jump && target == pc {
			return 0, false
		}
		if i >= prev && i < pc && !in.Op.Info().Is(vm.Straight) {
			return 0, false
		}
	}
	return prev, true
}
