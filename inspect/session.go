package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// Session states.
const (
	stateInit    = iota // launched, not configured yet
	stateRunning        // the carrier dispatches
	stateStopped        // every thread is parked at a boundary
	stateExited         // the program is over
)

// Session debugs one program. See the package documentation.
//
// A session outlives its runs: it holds the program, its configuration,
// the breakpoint table, the exception filters, the scheduler-event stops
// and the timeline (the recording and its checkpoints); everything of
// one execution of the program — the machine, its scheduler, where it is
// stopped and why, the steps under way — is a run (run.go). Going back,
// going to a checkpoint and restarting build a run and swap it in.
type Session struct {
	cfg  Config
	l    Listener
	lmu  sync.Mutex // serialises Listener calls
	prog *vm.Program
	fs   *vm.FSPolicy // the file-system permissions of the program (nil: all)
	lib  *vm.Library

	// worldMu orders a stop (stopWorld) and a look at the running
	// program (LiveThreadsPage): neither sees the other half done.
	worldMu sync.Mutex

	// mu guards the fields below and the run's. Lock order: never call
	// into the scheduler while holding mu, except through the trap hooks,
	// which run inside a dispatch with the scheduler's lock held and take
	// mu second.
	mu sync.Mutex
	// r is the session's run: the execution it shows and controls. It
	// changes (swap) only while the session is stopped. live is r for
	// the runs' event filters, which cannot take mu.
	r        *run
	live     atomic.Pointer[run]
	bps      *breakpoints
	excAll   bool
	excUnc   bool
	excRules *excRules // filters with classes and exception options (excfilter.go)
	code     int
	done     chan struct{}
	traps    map[trapKey]int // reference counts of patched pcs
	// accessTraps are the traps at shared accesses (shared.go), for
	// race (the race detector: race.go) and shared (a recording explored
	// at --granularity shared: every access is a scheduling point)
	accessTraps map[trapKey]bool
	race        bool
	shared      bool

	schedBreaks map[sched.EventKind]bool // BreakSched kinds

	// nonStop makes ModeThread the default mode (Config.NonStop,
	// SetNonStop; nonstop.go).
	nonStop atomic.Bool

	data      *dataState  // data breakpoints (databp.go)
	cancel    cancelCheck // the request's cancel test (cancel.go)
	fnIdxOnce sync.Once
	fnIdx     map[*vm.Funcode]int // index in prog.Funcs (funcIndex)

	// OnSched, if set, receives every scheduler event (the REPL's
	// scheduler view). Called on the carrier goroutine.
	OnSched func(sched.Event)

	tt *timeTravel // the journal and going back (reverse.go); nil: no recording
	rl *reloads    // the reloads made (reload.go); nil: none

	// What a run starts from: the recording's header, and the program's
	// input and output (Restart builds a run of them again).
	hdr            record.Header
	stdin          io.Reader
	stdout, stderr io.Writer

	past pastState // the questions about the past (past.go)

	// The catch-up under way at a stop, if any (catchup.go): cuMu guards
	// cu and cuPending (one a stop asked for during a request); noCatchUp turns catch-ups off (benchmarks, beside them on);
	// catchUpMinTest, if set, replaces catchUpMinRun; everHeld: a thread
	// was held alone once (the recording replays holds, pinning traps);
	// changing counts the requests under way that keep catch-ups off
	// (quiet).
	cuMu           sync.Mutex
	cu             *catchUp
	cuPending      *pendingCatchUp
	cuLast         *catchUp // the last one started (tests wait for it)
	noCatchUp      atomic.Bool
	catchUpMinTest atomic.Int64
	everHeld       atomic.Bool
	changing       atomic.Int32
}

type queuedStop struct {
	info StopInfo
	t    *vm.Thread
}

type excStop struct {
	exc       *vm.Object
	uncaught  bool
	breakmode string
}

type trapKey struct {
	fn *vm.Funcode
	pc int32
}

// Library returns the native library programs are compiled with.
func Library() *vm.Library {
	lib := vm.StdLib()
	lib.Merge(sched.Lib())
	return lib
}

// CompileError is returned by Launch when the program does not compile;
// Error() is the full report (file:line:col: message, source line, caret).
type CompileError struct {
	Report string
	Err    error
}

func (e *CompileError) Error() string { return e.Report }
func (e *CompileError) Unwrap() error { return e.Err }

// FormatCompileError renders a compile error of the program at path.
func FormatCompileError(path string, src []byte, err error) string {
	var list syntax.ErrorList
	if !errors.As(err, &list) {
		return fmt.Sprintf("%s: %v\n", path, err)
	}
	var b bytes.Buffer
	for _, e := range list {
		text := src
		if e.File != path {
			text, _ = os.ReadFile(e.File)
		}
		b.WriteString(syntax.FormatErrors(e, text))
	}
	return b.String()
}

// Launch compiles the program of cfg and prepares it to run; it starts
// running at ConfigurationDone. A compile error is a *CompileError.
func Launch(cfg Config, l Listener) (*Session, error) {
	if err := cfg.limits().Check(); err != nil {
		return nil, err
	}
	fsPolicy, err := vm.NewFSPolicy(cfg.AllowRead, cfg.AllowWrite, cfg.DenyFS, cfg.Cwd)
	if err != nil {
		return nil, err
	}
	var path string
	var src, replayLog []byte
	var rec *record.Recording
	if cfg.Replay != "" {
		if rec, err = openReplay(&cfg); err != nil {
			return nil, err
		}
		path, src, replayLog = rec.Header.Path, rec.Header.Source, rec.Log()
	} else {
		path = cfg.Program
		if cfg.Cwd != "" && !filepath.IsAbs(path) {
			path = filepath.Join(cfg.Cwd, path)
		}
		if src, err = ReadSource(path); err != nil {
			return nil, err
		}
	}
	lib := Library()
	if cfg.Lib != nil {
		lib.Merge(cfg.Lib)
	}
	prog, err := compile.CompileFile(path, src, compile.Options{Lib: lib, ReadFile: ReadSource})
	if err != nil {
		return nil, &CompileError{Report: FormatCompileError(path, src, err), Err: err}
	}
	if rec != nil && record.ProgramHash(prog) != rec.Header.Hash {
		return nil, fmt.Errorf("%s was recorded by another build of nlangdbg, which compiles %s differently; refusing to replay it", cfg.Replay, path)
	}
	s := &Session{cfg: cfg, prog: prog, lib: lib, done: make(chan struct{}),
		traps: map[trapKey]int{}, schedBreaks: map[sched.EventKind]bool{}}
	s.l = s.noteStops(l) // (past.go)
	s.bps = newBreakpoints(s)
	s.nonStop.Store(cfg.NonStop)
	stdin := cfg.Stdin
	var stdout, stderr io.Writer = &outWriter{s: s, cat: "stdout"}, &outWriter{s: s, cat: "stderr"}
	if cfg.Stdout != nil {
		stdout = cfg.Stdout
	}
	if cfg.Stderr != nil {
		stderr = cfg.Stderr
	}
	hdr := record.Header{Path: path, Source: src, Hash: record.ProgramHash(prog), Quota: cfg.Quota,
		Seed: cfg.Seed, MaxFrames: cfg.MaxFrames, MaxHeap: cfg.MaxHeap, Args: cfg.Args, Race: cfg.Race}
	s.hdr, s.stdin, s.stdout, s.stderr = hdr, stdin, stdout, stderr
	if s.tt, err = newTimeTravel(cfg, hdr, replayLog, stdin, stdout, stderr); err != nil {
		return nil, err
	}
	if rec != nil && s.tt != nil {
		s.tt.core = rec.Core
	}
	var j *record.Journal
	if s.tt != nil {
		j = s.tt.j
	}
	s.fs = fsPolicy
	if cfg.Race {
		if err := s.initRace(); err != nil {
			return nil, err
		}
	}
	if rec != nil && rec.Header.Shared {
		s.initShared() // shared.go
	}
	if s.r, err = s.newRunAt(stdin, stdout, stderr, j, hook{s}, nil, stateInit); err != nil {
		return nil, err
	}
	s.live.Store(s.r)
	return s, nil
}

// Program returns the compiled program.
func (s *Session) Program() *vm.Program { return s.prog }

// Scheduler returns the scheduler running the program (for scheduler
// views and stepping; use it only while stopped).
func (s *Session) Scheduler() *sched.Scheduler { return s.r.sch }

// outWriter forwards program output to the listener.
type outWriter struct {
	s   *Session
	cat string
}

func (w *outWriter) Write(p []byte) (int, error) {
	w.s.emit(func(l Listener) { l.Output(w.cat, string(p)) })
	return len(p), nil
}

// SetListener replaces the listener (nil: events are dropped), e.g. when a
// debugger attaches to or detaches from a running program.
func (s *Session) SetListener(l Listener) {
	s.lmu.Lock()
	s.l = s.noteStops(l) // (past.go)
	s.lmu.Unlock()
}

// emit calls the listener, serialised.
func (s *Session) emit(f func(Listener)) {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	if s.l != nil {
		f(s.l)
	}
}

// ConfigurationDone starts the program: it stops at entry if the
// configuration asks for it, and otherwise runs.
func (s *Session) ConfigurationDone() {
	s.mu.Lock()
	if s.r.state != stateInit {
		s.mu.Unlock()
		return
	}
	s.r.state = stateRunning
	r := s.r
	r.carrierDone = make(chan struct{})
	s.mu.Unlock()
	go s.carrier(r)
	if s.startCore() {
		return // a dump: to its moment (reverse.go)
	}
	if s.cfg.StopOnEntry {
		s.stopWorld(StopInfo{Reason: ReasonEntry, ThreadID: 1, Description: "Paused on entry"}, s.r.sch.Main())
		return
	}
	s.r.sch.Resume()
}

// carrier runs the scheduler until the program ends.
func (s *Session) carrier(r *run) {
	defer close(r.carrierDone)
	s.afterRun(r, r.sch.Run())
}

// waitResume blocks until the session leaves the stopped state.
func (s *Session) waitResume() {
	s.mu.Lock()
	ch := s.r.resumeCh
	stopped := s.r.state == stateStopped
	done := s.done
	s.mu.Unlock()
	if !stopped || ch == nil {
		return
	}
	select {
	case <-ch:
	case <-done:
	}
}

func (s *Session) finish(code int) {
	s.hush()
	s.mu.Lock()
	if s.r.state == stateExited {
		s.mu.Unlock()
		return
	}
	s.r.state = stateExited
	s.code = code
	close(s.done)
	s.mu.Unlock()
	s.emit(func(l Listener) { l.Exited(code) })
}

// Done is closed when the program has ended.
func (s *Session) Done() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

// ExitCode returns the program's exit code once Done is closed.
func (s *Session) ExitCode() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.code
}

// onEvent receives the scheduler's events on the carrier goroutine (of
// the run whose journal is j, nil if none).
func (s *Session) onEvent(ev sched.Event, j *record.Journal) {
	if s.tt != nil && s.tt.noteEvent(ev, j) {
		msg := "note: " + s.tt.stopped + "; the program goes on, but going back is no longer possible\n"
		s.emit(func(l Listener) { l.Output("console", msg) })
	}
	if s.OnSched != nil {
		s.OnSched(ev)
	}
	switch ev.Kind {
	case sched.EventSpawn:
		id := ev.Thread.ID
		s.emit(func(l Listener) { l.ThreadStarted(id) })
	case sched.EventExit:
		id := ev.Thread.ID
		s.emit(func(l Listener) { l.ThreadExited(id) })
		// The stepping thread ended: the step becomes a continue.
		s.endStepOf(ev.Thread)
	case sched.EventDeadlock:
		s.mu.Lock()
		s.r.deadlock = true
		s.mu.Unlock()
	case sched.EventHold, sched.EventRelease:
		s.onHold(ev) // non-stop (nonstop.go)
	case sched.EventTrap:
		var p *StopInfo
		if ev.Held {
			// a thread held alone (nonstop.go); with a stop of every
			// thread at the same instruction, that stop follows
			if p, _ = s.heldAtTrap(ev.Thread); p == nil {
				break
			}
		}
		s.mu.Lock()
		if !ev.Held {
			p = s.r.pending[ev.Thread]
		}
		delete(s.r.pending, ev.Thread)
		if p != nil && (s.r.stopping || s.r.state == stateStopped) {
			// another thread's stop came first: report this one next
			s.r.queued = append(s.r.queued, queuedStop{info: *p, t: ev.Thread})
			p = nil
		}
		if p != nil {
			s.r.stopping = true
		}
		s.mu.Unlock()
		if p != nil {
			s.stopWorld(*p, ev.Thread)
		}
	case sched.EventIdle:
		s.checkSingleThreadBlocked()
	}
	if info, ok := s.schedEventStop(ev); ok {
		s.stopWorld(info, ev.Thread)
	}
}

// stopWorld stops dispatching and reports the stop.
func (s *Session) stopWorld(info StopInfo, t *vm.Thread) { s.stopWorldIf(info, t, false) }

// pauseWorld is stopWorld for a pause, which reports nothing if another
// stop came first (a breakpoint hit while the pause was on its way):
// that stop is the one reported, once.
func (s *Session) pauseWorld(info StopInfo, t *vm.Thread) { s.stopWorldIf(info, t, true) }

// stopWorldIf is stopWorld; with unlessStopped it reports nothing if the
// program is stopped or stopping already.
func (s *Session) stopWorldIf(info StopInfo, t *vm.Thread, unlessStopped bool) {
	s.worldMu.Lock()
	s.r.sch.Pause()
	if unlessStopped && s.r.sch.Ended() {
		// the quantum the pause waited for ended the program: the end
		// (or a deadlock's stop) is reported, not a pause
		s.worldMu.Unlock()
		return
	}
	var now moment // (for prepareBack: read before a request can change the threads)
	if s.tt != nil {
		now = s.momentOf(info, t, s.r.sch)
	}
	s.mu.Lock()
	if s.r.state == stateExited || (unlessStopped && (s.r.stopping || s.r.state == stateStopped)) {
		s.mu.Unlock()
		s.worldMu.Unlock()
		return
	}
	s.r.state = stateStopped
	s.noteStopped(true)
	s.r.stopping = false
	s.r.resumeCh = make(chan struct{})
	info.AllThreadsStopped = true
	if t != nil {
		info.ThreadID = t.ID
	}
	s.r.stop = info
	s.r.stopped = t
	s.r.stoppedAt = s.r.sch.Now()
	s.r.ret = s.r.returns[t]
	clear(s.r.returns)
	s.endStepsLocked()
	s.thawLocked()
	s.mu.Unlock()
	s.worldMu.Unlock()
	s.emit(func(l Listener) { l.Stopped(info) })
	s.prepareBack(now)
}

// resume leaves the stopped state: the handles of the stop expire.
// Must hold s.mu.
func (s *Session) resumeLocked() {
	s.cancelCatchUp()
	s.r.state = stateRunning
	s.noteStopped(false)
	s.releaseOwed() // shared.go
	s.r.ret = nil
	s.r.refs.reset()
	if s.r.resumeCh != nil {
		close(s.r.resumeCh)
		s.r.resumeCh = nil
	}
	if s.r.stopped != nil {
		delete(s.r.excStops, s.r.stopped.ID)
	}
}

// Continue resumes the program (only threadID with singleThread). A
// threadID other than 0 must name a live thread.
func (s *Session) Continue(threadID int64, singleThread bool) error {
	defer s.quiet()() // (catchup.go)
	if handled, err := s.continueHeld(threadID); handled {
		return err // a thread held alone (non-stop: nonstop.go)
	}
	if err := s.checkStopped(); err != nil {
		return err
	}
	if threadID != 0 {
		if _, err := s.thread(threadID); err != nil {
			return err // as Step: an unknown thread is an error, not "all"
		}
	}
	if s.reportQueued(threadID, singleThread) {
		return nil
	}
	s.mu.Lock()
	if s.r.state != stateStopped {
		s.mu.Unlock()
		return ErrRunning
	}
	if singleThread {
		if err := s.freezeOthersLocked(threadID); err != nil {
			s.mu.Unlock()
			return err
		}
	}
	release, recorded := s.releaseForResumeLocked(threadID, singleThread)
	s.resumeLocked()
	sch := s.r.sch
	s.mu.Unlock()
	s.emit(func(l Listener) { l.Continued(threadID, !singleThread) })
	s.resumeHeld(sch, release, recorded)
	sch.Resume()
	return nil
}

// releaseForResumeLocked takes the threads held alone (non-stop) that a
// resume lets go on: every one the debugger holds, or with singleThread
// only threadID; and the stops of those the recording still holds, to
// report again. Must hold s.mu.
func (s *Session) releaseForResumeLocked(threadID int64, singleThread bool) ([]*vm.Thread, []StopInfo) {
	if len(s.r.held) == 0 {
		return nil, nil
	}
	if singleThread {
		if t := s.heldThreadLocked(threadID); t != nil {
			s.releaseLocked(t)
			return []*vm.Thread{t}, nil
		}
		return nil, nil
	}
	return s.takeHeldLocked(), s.recordedHoldsLocked()
}

// resumeHeld releases threads held alone and reports again the stops of
// those the recording holds (a resume of every thread reported them
// running).
func (s *Session) resumeHeld(sch *sched.Scheduler, release []*vm.Thread, recorded []StopInfo) {
	for _, t := range release {
		sch.Release(t)
	}
	for _, info := range recorded {
		s.emit(func(l Listener) { l.Stopped(info) })
	}
}

// reportQueued reports the next queued stop, if any, in place of a
// resume: the thread stopped when another thread's stop was being made,
// and it is still there.
func (s *Session) reportQueued(threadID int64, singleThread bool) bool {
	s.mu.Lock()
	s.dropStaleQueuedLocked()
	if len(s.r.queued) == 0 || s.r.state != stateStopped {
		s.mu.Unlock()
		return false
	}
	q := s.r.queued[0]
	s.r.queued = s.r.queued[1:]
	s.r.refs.reset()
	info := q.info
	info.AllThreadsStopped = true
	info.ThreadID = q.t.ID
	s.r.stop, s.r.stopped = info, q.t
	s.r.ret = nil
	s.mu.Unlock()
	s.emit(func(l Listener) { l.Continued(threadID, !singleThread) })
	s.emit(func(l Listener) { l.Stopped(info) })
	return true
}

// dropStaleQueuedLocked forgets queued breakpoint stops whose breakpoints
// were all deleted since (the thread goes on as if they never were).
// Must hold s.mu.
func (s *Session) dropStaleQueuedLocked() {
	live := map[int]bool{}
	for _, list := range s.bps.byFile {
		for _, b := range list {
			live[b.id] = b.verified
		}
	}
	for _, b := range s.bps.funcs {
		live[b.id] = b.verified
	}
	for _, b := range s.bps.instrs {
		live[b.id] = b.verified
	}
	kept := s.r.queued[:0]
	for _, q := range s.r.queued {
		if len(q.info.HitBreakpointIDs) > 0 {
			var ids []int
			for _, id := range q.info.HitBreakpointIDs {
				if live[id] {
					ids = append(ids, id)
				}
			}
			if len(ids) == 0 {
				continue
			}
			q.info.HitBreakpointIDs = ids
		}
		kept = append(kept, q)
	}
	s.r.queued = kept
}

// Pause stops the program: every running thread stops at its next
// safepoint (a call or loop back-edge), so Pause returns at once even
// while a thread runs an endless loop. The stop is about the thread that
// was running or next to run.
func (s *Session) Pause() error { return s.PauseThread(0) }

// PauseThread is Pause with the stop about thread threadID (0: the one
// that was running or next to run; an id that is not a live thread is an
// ErrNoThread). In non-stop mode, or while threads are held alone and the
// others run, it holds thread threadID alone.
func (s *Session) PauseThread(threadID int64) error {
	defer s.quiet()() // (catchup.go)
	if threadID != 0 && (s.nonStop.Load() || s.runsWithHolds()) {
		return s.pauseThread(threadID) // that thread alone (nonstop.go)
	}
	s.mu.Lock()
	if s.r.state != stateRunning {
		st := s.r.state
		s.mu.Unlock()
		if st == stateStopped {
			return nil
		}
		return ErrNotRunning
	}
	s.mu.Unlock()
	var t *vm.Thread
	if threadID != 0 {
		if t = s.r.sch.Thread(threadID); t == nil {
			return ErrNoThread
		}
	}
	s.r.sch.Pause()
	if t == nil {
		if q := s.r.sch.RunQueue(); len(q) > 0 {
			t = q[0]
		} else {
			t = s.r.sch.Main()
		}
	}
	s.pauseWorld(StopInfo{Reason: ReasonPause, Description: "Paused"}, t)
	return nil
}

// Terminate ends the program now.
func (s *Session) Terminate() {
	s.hush()
	s.finish(137)
	s.r.sch.Kill(137) // the carrier's Run returns: nothing is left running
}

// thread returns the live thread with the given id. Must be stopped,
// or inside Still with the thread held (non-stop; otherwise it is a
// ThreadRunningError).
func (s *Session) thread(id int64) (*vm.Thread, error) {
	t := s.r.sch.Thread(id)
	if t == nil {
		return nil, ErrNoThread
	}
	s.mu.Lock()
	running := s.r.state == stateRunning && s.r.held[t] == nil
	s.mu.Unlock()
	if running {
		return nil, &ThreadRunningError{ID: id}
	}
	return t, nil
}

// checkStopped returns ErrRunning unless the program is stopped.
func (s *Session) checkStopped() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.r.state {
	case stateStopped:
		return nil
	case stateExited:
		return ErrNotRunning
	}
	return ErrRunning
}

// freezeOthersLocked keeps every thread but threadID off the run queue
// until the next stop. Must hold s.mu.
func (s *Session) freezeOthersLocked(threadID int64) error {
	var found bool
	for _, t := range s.r.sch.Threads() {
		if t.ID == threadID {
			found = true
			continue
		}
		if !s.r.sch.Frozen(t) {
			s.r.sch.Freeze(t)
			s.r.frozen = append(s.r.frozen, t)
		}
	}
	if !found {
		return ErrNoThread
	}
	return nil
}

// thawLocked undoes freezeOthersLocked. Must hold s.mu.
func (s *Session) thawLocked() {
	for _, t := range s.r.frozen {
		s.r.sch.Thaw(t)
	}
	s.r.frozen = nil
}

// checkSingleThreadBlocked stops the program when it cannot go on because
// of the debugger: a single-thread resume whose only thread is parked, or
// threads frozen by the user (freeze) while every other thread waits
// (often for what a frozen thread holds). The report says who waits for
// what, and who holds it.
func (s *Session) checkSingleThreadBlocked() {
	s.mu.Lock()
	single := len(s.r.frozen) > 0
	running := s.r.state == stateRunning
	s.mu.Unlock()
	if !running {
		return
	}
	if len(s.r.sch.RunQueue()) > 0 || len(s.r.sch.Timers()) > 0 {
		return
	}
	if !single && s.noteHeldBlocking() {
		return // held threads (non-stop): a note, not a stop (nonstop.go)
	}
	if single {
		var t *vm.Thread
		for _, x := range s.r.sch.Threads() {
			if !s.r.sch.Frozen(x) {
				t = x
			}
		}
		desc := "Paused: the only thread allowed to run is blocked"
		text := ""
		if t != nil {
			text = fmt.Sprintf("thread %d %q waits for %s; the other threads are frozen", t.ID, t.Name(), t.WaitReason)
		}
		s.emit(func(l Listener) { l.Output("console", text+"\n") })
		s.pauseWorld(StopInfo{Reason: ReasonPause, Description: desc, Text: text}, t)
		return
	}
	var frozen []*vm.Thread
	var first *vm.Thread
	var b strings.Builder
	for _, t := range s.r.sch.Threads() {
		if s.r.sch.Frozen(t) {
			frozen = append(frozen, t)
			continue
		}
		if t.State != vm.Waiting {
			continue
		}
		if first == nil {
			first = t
		}
		fmt.Fprintf(&b, "  thread %d %q waits for %s", t.ID, t.Name(), t.WaitReason)
		if owner := lockOwner(t.WaitOn); owner != nil {
			fmt.Fprintf(&b, ", held by thread %d %q", owner.ID, owner.Name())
			if s.r.sch.Frozen(owner) {
				b.WriteString(" (frozen)")
			}
		}
		b.WriteString("\n")
	}
	if len(frozen) == 0 {
		return
	}
	var names []string
	for _, t := range frozen {
		names = append(names, fmt.Sprintf("%d %q", t.ID, t.Name()))
	}
	text := "nothing can run: every thread is blocked or frozen\n" + b.String() +
		"  frozen: thread " + strings.Join(names, ", thread ") + " (thaw to let it run)"
	if first == nil {
		first = frozen[0]
	}
	s.emit(func(l Listener) { l.Output("console", text+"\n") })
	s.pauseWorld(StopInfo{Reason: ReasonPause, Description: "Paused: nothing can run while threads are frozen", Text: text}, first)
}

// lockOwner returns the owner of the lock a thread waits on (nil if it
// waits on something else, or the lock is free).
func lockOwner(on any) *vm.Thread {
	if p, ok := on.(sched.Primitive); ok {
		if t, h := p.Holder(); h == sched.HeldBy {
			return t
		}
	}
	return nil
}

// noteStopped tells the checkpoints' run clock that the session stopped
// (or resumed).
func (s *Session) noteStopped(stopped bool) {
	if s.tt == nil {
		return
	}
	if stopped {
		s.tt.snaps.clock.stop()
	} else {
		s.tt.snaps.clock.resume()
	}
}
