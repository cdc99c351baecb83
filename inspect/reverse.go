package inspect

// Going back: a session with one carrier keeps a journal of its run
// (sched/record): every input from outside and every quantum. Because the
// run is deterministic given the journal, any earlier moment can be
// rebuilt by executing the program again from the start on a fresh
// machine whose inputs come from the journal, up to that moment; the
// session then carries on with the fresh machine. Output already shown is
// not shown again. See sched/record's documentation for why re-execution
// rather than copies of the heap.
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
	"sync"
	"sync/atomic"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
)

// ErrNoRecording is returned by the going-back methods of a session that
// does not record (several carriers).
var ErrNoRecording = errors.New("going back needs a recording, and a session records only with one carrier")

// timeTravel is a session's journal and what rebuilding its machine takes.
type timeTravel struct {
	j              *record.Journal
	stdin          io.Reader
	stdout, stderr io.Writer // the session's own writers (unwrapped)
	// current is the scheduler the session runs: the events of one it
	// has left are dropped.
	current atomic.Pointer[sched.Scheduler]
	// the last quantum: its thread, how it ended and where the journal
	// was (a stop between dispatches is "after this quantum")
	last        moment
	checkpoints []Checkpoint
	nextCP      int
}

// Checkpoint is a moment the user named (REPL checkpoint NOTE).
type Checkpoint struct {
	ID   int
	Note string
	// Where is the moment: thread, function and line.
	Where string
	at    moment
	shown int
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
	off    int
	kind   sched.EventKind
}

func (m moment) isStart() bool { return m.thread == 0 }

// newTimeTravel returns the journal of a new session, or nil if it
// cannot record (several carriers). log, if not nil, is a recording's log
// to replay (debug --replay).
func newTimeTravel(cfg Config, hdr record.Header, log []byte, stdin io.Reader, stdout, stderr io.Writer) (*timeTravel, error) {
	if cfg.Carriers > 1 {
		return nil, nil
	}
	tt := &timeTravel{stdin: stdin, stdout: stdout, stderr: stderr}
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

// newMachine builds a machine and a paused scheduler for the session's
// program with main registered; j, if not nil, is installed (output
// through it, its clock). hook becomes the machine's debug hook.
func (s *Session) newMachine(stdin io.Reader, stdout, stderr io.Writer, j *record.Journal, h vm.DebugHook) (*vm.Machine, *sched.Scheduler) {
	var clock sched.Clock
	if j != nil {
		stdout, stderr, clock = j.Stdout(stdout), j.Stderr(stderr), j.Clock()
	}
	m := vm.NewMachine(s.prog, stdin, stdout, stderr)
	if s.cfg.MaxFrames > 0 {
		m.MaxFrames = s.cfg.MaxFrames
	}
	if s.cfg.MaxHeap > 0 {
		m.MaxHeap = s.cfg.MaxHeap
	}
	m.FS = s.fs
	m.DebugLog = s.cfg.DebugLog
	m.Hook = h
	sch := sched.New(m, sched.Options{Quota: s.cfg.Quota, Seed: s.cfg.Seed, Carriers: s.cfg.Carriers, Clock: clock})
	if j != nil {
		j.Start(m, sch)
	}
	sch.Pause()
	sch.Start(m.NewCallThread(s.prog.Main, nil))
	return m, sch
}

// quantumEnd returns the moment at the end of the quantum that ev ends,
// if it ends one, in a run whose journal is j.
func quantumEnd(ev sched.Event, j *record.Journal) (moment, bool) {
	switch ev.Kind {
	case sched.EventPreempt, sched.EventPark, sched.EventExit, sched.EventTrap:
		return moment{thread: ev.Thread.ID, red: ev.Thread.Reductions(), off: j.Offset(), kind: ev.Kind}, true
	}
	return moment{}, false
}

// events returns the OnEvent of the session's first scheduler.
func (s *Session) events(sch *sched.Scheduler) func(sched.Event) {
	if s.tt == nil {
		return s.onEvent
	}
	s.tt.current.Store(sch)
	return func(ev sched.Event) {
		if s.tt.current.Load() == sch {
			s.onEvent(ev)
		}
	}
}

// noteEvent keeps the end of the last quantum.
func (tt *timeTravel) noteEvent(ev sched.Event) {
	if m, ok := quantumEnd(ev, tt.j); ok {
		tt.last = m
	}
}

// travelHook is the debug hook of a machine that re-executes the past:
// it watches the traps and stops at the target. Once the session adopts
// the machine it passes everything to the session's hook.
type travelHook struct {
	s       *Session
	adopted atomic.Bool
	target  moment
	watch   func(t *vm.Thread, m moment) // every other trap
}

func (h *travelHook) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	if h.adopted.Load() {
		return hook{h.s}.OnTrap(t, fn, pc)
	}
	m := moment{thread: t.ID, red: t.TrapReductions(), depth: t.Depth(), fn: fn, pc: pc, trap: true}
	if h.target.trap && m == h.target {
		return true
	}
	if h.watch != nil {
		h.watch(t, m)
	}
	return false
}

func (h *travelHook) OnThrow(t *vm.Thread, exc *vm.Object, caught bool) bool {
	if h.adopted.Load() {
		return hook{h.s}.OnThrow(t, exc, caught)
	}
	return false
}

// pass is one re-execution of the past.
type pass struct {
	s     *Session
	m     *vm.Machine
	sch   *sched.Scheduler
	j     *record.Journal
	h     *travelHook
	once  sync.Once
	done  chan bool // true: the target was reached
	onEv  func(ev sched.Event)
	traps []trapKey // patched for the pass (cleared by wait)
}

// startPass builds a machine that re-executes the session's journal
// (output shown so far is not shown again) and starts it; it stops at
// target. watch sees every other trap; onEv every scheduler event.
func (s *Session) startPass(target moment, watch func(*vm.Thread, moment), onEv func(*pass, sched.Event), prepare func(*pass)) (*pass, error) {
	tt := s.tt
	j, err := record.ResumeJournal(tt.j.Log(), tt.j.Shown())
	if err != nil {
		return nil, err
	}
	h := &travelHook{s: s, target: target, watch: watch}
	p := &pass{s: s, j: j, h: h, done: make(chan bool, 1)}
	p.m, p.sch = s.newMachine(tt.stdin, tt.stdout, tt.stderr, j, h)
	p.sch.OnEvent = func(ev sched.Event) {
		if h.adopted.Load() {
			if s.tt.current.Load() == p.sch {
				s.onEvent(ev)
			}
			return
		}
		if onEv != nil {
			onEv(p, ev)
		}
		if ev.Kind == sched.EventTrap && target.trap {
			p.finish(true)
		}
		if !target.trap && !target.isStart() {
			if m, ok := quantumEnd(ev, j); ok && m == target {
				p.sch.Pause()
				p.finish(true)
			}
		}
	}
	if target.trap {
		p.patch(trapKey{target.fn, target.pc})
	}
	if prepare != nil {
		prepare(p)
	}
	go func() {
		code := p.sch.Run()
		if h.adopted.Load() {
			s.afterRun(p.sch, code)
			return
		}
		p.finish(false)
	}()
	p.sch.Resume()
	return p, nil
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
	reached := <-p.done
	p.unpatch()
	return reached
}

// discard ends a pass the session does not adopt.
func (p *pass) discard() {
	p.sch.Kill(0)
}

// afterRun is the end of the session's carrier: the program is over.
func (s *Session) afterRun(sch *sched.Scheduler, code int) {
	s.mu.Lock()
	cur := s.sch == sch
	dead := s.deadlock
	s.mu.Unlock()
	if !cur {
		return // a machine the session has left for another
	}
	if dead {
		// Keep the threads for inspection until the user resumes.
		sch.Pause()
		report := "fatal: all threads are asleep - deadlock!"
		s.stopWorld(StopInfo{Reason: ReasonDeadlock, ThreadID: 1, Description: "Deadlock: all threads are asleep", Text: report}, sch.Main())
		s.waitResume()
	}
	s.finish(code)
}

// present returns the session's current moment. Must be stopped.
func (s *Session) present() moment {
	s.mu.Lock()
	info, t := s.stop, s.stopped
	s.mu.Unlock()
	switch info.Reason {
	case ReasonStep, ReasonBreakpoint, ReasonFunction:
		if t != nil && t.Depth() > 0 {
			f := t.Frame(0)
			return moment{thread: t.ID, red: t.Reductions(), depth: t.Depth(), fn: f.Fn, pc: f.PC, trap: true}
		}
	}
	return s.tt.last
}

// adopt makes the machine of p the session's, stopped at its target with
// info; the old machine ends.
func (s *Session) adopt(p *pass, info StopInfo, t *vm.Thread) {
	old := s.sch
	s.mu.Lock()
	s.m, s.sch = p.m, p.sch
	s.tt.j = p.j
	s.tt.current.Store(p.sch)
	s.refs.reset()
	s.pending = map[*vm.Thread]*StopInfo{}
	s.excStops = map[int64]excStop{}
	s.safepoints = map[*vm.Thread]bool{}
	s.frozen, s.queued, s.step = nil, nil, nil
	s.deadlock = false
	s.state = stateStopped
	s.stopping = false
	if s.resumeCh == nil {
		s.resumeCh = make(chan struct{})
	}
	info.AllThreadsStopped = true
	if t != nil {
		info.ThreadID = t.ID
	}
	s.stop, s.stopped = info, t
	s.mu.Unlock()
	p.h.adopted.Store(true)
	old.Kill(0)
	s.emit(func(l Listener) { l.Stopped(info) })
}

// travelTo re-executes the past up to target and adopts the machine
// there (the start if target is the zero moment), stopped with info.
func (s *Session) travelTo(target moment, info StopInfo) error {
	p, err := s.startPass(target, nil, nil, nil)
	if err != nil {
		return err
	}
	if !target.isStart() && !p.wait() {
		p.discard()
		return errors.New("the re-execution ended before the moment it was going back to (the recording diverged)")
	}
	var t *vm.Thread
	if target.isStart() {
		p.sch.Pause()
		t = p.sch.Main()
	} else {
		t = p.sch.Thread(target.thread)
	}
	s.adopt(p, info, t)
	return nil
}

// checkTravel checks that the session can go back now.
func (s *Session) checkTravel() error {
	if s.tt == nil {
		return ErrNoRecording
	}
	return s.checkStopped()
}

// StepBack goes back to the previous statement boundary of thread
// threadID: StepOver, the previous statement in its function or a caller
// (skipping the statements of callees); StepIn, the previous statement
// wherever it was; StepOut, the statement that called the current
// function. The other threads are where they were at that moment. At the
// start of the recording it stops at entry.
func (s *Session) StepBack(threadID int64, kind StepKind) error {
	if err := s.checkTravel(); err != nil {
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
	quota := int64(s.sch.Quota())
	red := t.Reductions()
	var found moment
	for _, back := range []int64{0, 4 * quota, 64 * quota, red + quota} {
		lo := red - back
		var last moment
		watch := func(t *vm.Thread, m moment) {
			if m.thread == threadID && wants(m) {
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
			if !patched && ev.Thread != nil && ev.Thread.ID == threadID && ev.Thread.Reductions()+quota >= lo {
				patchAll(p)
			}
		}
		prepare := func(p *pass) {
			if lo <= quota {
				patchAll(p) // before the first dispatch
			}
		}
		p, err := s.startPass(now, watch, onEv, prepare)
		if err != nil {
			return err
		}
		reached := p.wait()
		p.discard()
		if !reached {
			return errors.New("the re-execution ended before the present (the recording diverged)")
		}
		if !last.isStart() {
			found = last
			break
		}
	}
	if found.isStart() {
		return s.travelTo(moment{}, StopInfo{Reason: ReasonEntry, Description: "At the start of the recording"})
	}
	return s.travelTo(found, StopInfo{Reason: ReasonStep, Description: "Step back"})
}

// ReverseContinue goes back to the most recent breakpoint hit before the
// present (any thread; conditions, hit counts and logpoints are not
// looked at going back), or to the start of the recording if there is
// none.
func (s *Session) ReverseContinue(threadID int64) error {
	if err := s.checkTravel(); err != nil {
		return err
	}
	now := s.present()
	if now.isStart() {
		return s.travelTo(moment{}, StopInfo{Reason: ReasonEntry, Description: "At the start of the recording"})
	}
	var last moment
	var ids []int
	watch := func(t *vm.Thread, m moment) {
		s.mu.Lock()
		list := s.bps.at[trapKey{m.fn, m.pc}]
		var hit []int
		for _, b := range list {
			if b.logMsg == "" {
				hit = append(hit, b.id)
			}
		}
		s.mu.Unlock()
		if len(hit) > 0 {
			last, ids = m, hit
		}
	}
	p, err := s.startPass(now, watch, nil, nil)
	if err != nil {
		return err
	}
	reached := p.wait()
	p.discard()
	if !reached {
		return errors.New("the re-execution ended before the present (the recording diverged)")
	}
	if last.isStart() {
		return s.travelTo(moment{}, StopInfo{Reason: ReasonEntry, Description: "At the start of the recording (no breakpoint hit before)"})
	}
	return s.travelTo(last, StopInfo{Reason: ReasonBreakpoint, HitBreakpointIDs: ids, Description: "Breakpoint (going back)"})
}

// CanGoBack reports whether the session records, so that StepBack and
// ReverseContinue work.
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
	if err := s.checkTravel(); err != nil {
		return Checkpoint{}, err
	}
	now := s.present()
	s.tt.nextCP++
	cp := Checkpoint{ID: s.tt.nextCP, Note: note, at: now, Where: s.describeMoment(now)}
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
	if err := s.checkTravel(); err != nil {
		return err
	}
	for _, cp := range s.tt.checkpoints {
		if cp.ID == id {
			if cp.at.isStart() {
				return s.travelTo(moment{}, StopInfo{Reason: ReasonEntry, Description: fmt.Sprintf("Checkpoint %d", id)})
			}
			reason := ReasonStep
			if !cp.at.trap {
				reason = ReasonPause
			}
			return s.travelTo(cp.at, StopInfo{Reason: reason, Description: fmt.Sprintf("Checkpoint %d", id)})
		}
	}
	return fmt.Errorf("no checkpoint %d", id)
}

// describeMoment renders a moment for the user. Must be stopped.
func (s *Session) describeMoment(m moment) string {
	if m.isStart() {
		return "the start"
	}
	t := s.sch.Thread(m.thread)
	name := fmt.Sprintf("thread %d", m.thread)
	if t != nil {
		name = fmt.Sprintf("thread %d %q", t.ID, t.Name)
	}
	if m.trap {
		line, _ := m.fn.Pos(m.pc)
		return fmt.Sprintf("%s at %s (line %d), %d reductions", name, m.fn.Name, line, m.red)
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
	h := rec.Header
	cfg.Quota, cfg.Seed, cfg.MaxFrames, cfg.Args = h.Quota, h.Seed, h.MaxFrames, h.Args
	return rec, nil
}
