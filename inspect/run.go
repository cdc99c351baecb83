package inspect

import (
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// run is one execution of the session's program: a machine and its
// scheduler (built by sched.Boot), and what the debugger knows of it —
// whether it runs or is stopped, where and why, the stops decided during
// a dispatch, the steps under way, the handles of the last stop. A new
// run starts with none of these (the session's breakpoints, filters and
// timeline are not the run's), so that replacing a run (Session.swap:
// going back, a checkpoint, a restart) leaves nothing of the old one
// behind. The fields are guarded by the session's mu.
type run struct {
	s   *Session
	m   *vm.Machine
	sch *sched.Scheduler
	// spare: the run is a checkpoint's copy restored ahead
	// (snapStore.prepare)
	spare bool

	state    int
	stop     StopInfo
	stopped  *vm.Thread               // the thread of the last stop
	pending  map[*vm.Thread]*StopInfo // decided by a hook during a dispatch
	stopping bool                     // a stop is being made (stopWorld runs)
	// queued are stops of other threads that happened while the program
	// was stopping or stopped (several carriers): the next Continue or
	// Step reports the first instead of resuming.
	queued []queuedStop
	// steps are the steps under way, by thread: one in all-stop mode,
	// one per held thread stepped alone in non-stop mode (nonstop.go)
	steps   map[*vm.Thread]*stepReq
	returns map[*vm.Thread]*retValue // decided with pending: a step out's return
	ret     *retValue                // the last stop's, if a step out
	// stoppedAt is the scheduler's clock at the last stop
	stoppedAt  time.Duration
	excStops   map[int64]excStop // threads stopped on an exception
	frozen     []*vm.Thread      // threads frozen for a single-thread resume
	deadlock   bool
	refs       handles
	resumeCh   chan struct{}       // closed at the next resume (made at each stop)
	stepping   bool                // SchedStep is dispatching
	safepoints map[*vm.Thread]bool // BreakSafepoint requests
	nextInto   int32               // the target of the next step in (StepInto)
	// carrierDone is closed when the run's carrier goroutine returns
	// (nil until it starts).
	carrierDone chan struct{}
	// counts are the breakpoints' hit counts in this run (decide).
	counts map[*bp]*bpCount
	// Non-stop (nonstop.go): the threads held while the others run, the
	// last one held, the threads a Pause asked to hold (reported when
	// the scheduler holds them), and Still calls under way.
	held     map[*vm.Thread]*heldStop
	lastHeld *vm.Thread
	pausing  map[*vm.Thread]bool
	still    int
}

// newRun returns the session's run of a machine and its scheduler, in
// state.
func (s *Session) newRun(m *vm.Machine, sch *sched.Scheduler, state int) *run {
	return &run{s: s, m: m, sch: sch, state: state, pending: map[*vm.Thread]*StopInfo{},
		returns: map[*vm.Thread]*retValue{}, excStops: map[int64]excStop{}, safepoints: map[*vm.Thread]bool{},
		counts: map[*bp]*bpCount{}, steps: map[*vm.Thread]*stepReq{}, held: map[*vm.Thread]*heldStop{},
		pausing: map[*vm.Thread]bool{}}
}

// current reports whether r is the session's run (the events of a run
// the session has left are dropped).
func (s *Session) current(r *run) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.r == r
}

// swap makes r the session's run, stopped with info about thread t (nil:
// none), and ends the run it replaces: its carrier returns, and whoever
// waited for it to resume is released (it is no longer the session's).
// The session must be stopped.
func (s *Session) swap(r *run, info StopInfo, t *vm.Thread) {
	held := heldOf(r)
	var now moment // (for prepareBack: read before a request can change the threads)
	if s.tt != nil {
		now = s.momentOf(info, t, r.sch)
	}
	s.mu.Lock()
	old := s.r
	r.state = stateStopped
	s.noteStopped(true)
	r.resumeCh = make(chan struct{})
	info.AllThreadsStopped = true
	if t != nil {
		info.ThreadID = t.ID
	}
	r.stop, r.stopped = info, t
	registerHeldLocked(r, held) // threads the recording holds there (nonstop.go)
	s.r = r
	s.live.Store(r)
	s.recheckDataLocked() // (the checks were of the old run's threads)
	if old.resumeCh != nil {
		close(old.resumeCh)
		old.resumeCh = nil
	}
	s.mu.Unlock()
	old.sch.Kill(0)
	s.emit(func(l Listener) { l.Stopped(info) })
	s.prepareBack(now)
}
