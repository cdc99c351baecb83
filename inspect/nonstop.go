package inspect

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// Non-stop debugging: a stop in ModeThread holds only the thread that
// reached it — the scheduler keeps it off the run queue (sched's holds),
// its quantum cut where it stopped — while the others go on being
// dispatched; a stop in ModeAll stops every thread, as always. Several
// threads may be held at once, each resumed or stepped on its own; a
// held thread's stack and variables are read, and expressions evaluated
// in its frames, between two dispatches of the others (Still), so that
// every request sees one consistent state. The holds and releases are
// inputs of the session's recording: a replay and going back make them
// again at the same instructions and dispatches.

// Breakpoint modes (DAP breakpointModes).
const (
	// ModeAll stops every thread (the default).
	ModeAll = "all"
	// ModeThread stops only the thread that reached the breakpoint; the
	// others go on.
	ModeThread = "thread"
)

// BreakpointMode describes a mode for a client (DAP breakpointModes).
type BreakpointMode struct {
	Mode, Label, Description string
}

// BreakpointModes lists the modes, the default first.
var BreakpointModes = []BreakpointMode{
	{ModeAll, "Stop all threads", "Every thread stops when one reaches it"},
	{ModeThread, "Stop this thread only", "Only the thread that reaches it stops; the others keep running (non-stop)"},
}

// checkMode refuses a mode that is neither ModeAll nor ModeThread (nor
// empty: the session's).
func checkMode(m string) error {
	switch m {
	case "", ModeAll, ModeThread:
		return nil
	}
	return fmt.Errorf("unknown breakpoint mode %q (want %s or %s)", m, ModeAll, ModeThread)
}

// ThreadRunningError is returned for a request about a thread that runs
// while others are held (non-stop): it must be stopped first. It is an
// ErrRunning.
type ThreadRunningError struct{ ID int64 }

func (e *ThreadRunningError) Error() string {
	return fmt.Sprintf("thread %d is running (pause it first)", e.ID)
}

// Is makes a ThreadRunningError an ErrRunning.
func (e *ThreadRunningError) Is(target error) bool { return target == ErrRunning }

// SetNonStop sets the session's mode: on, the breakpoints and exception
// filters that name no mode stop their thread only, and pausing a thread
// holds it alone; off, they stop every thread.
func (s *Session) SetNonStop(on bool) { s.nonStop.Store(on) }

// NonStop reports the session's mode (SetNonStop).
func (s *Session) NonStop() bool { return s.nonStop.Load() }

// threadModeLocked reports whether a stop of mode m (empty: the
// session's) holds its thread only. Must hold s.mu.
func (s *Session) threadModeLocked(m string) bool {
	return m == ModeThread || m == "" && s.nonStop.Load()
}

// heldStop is a thread the debugger holds while the others run: its
// stop, as reported, and what a step out brought back.
type heldStop struct {
	info StopInfo
	ret  *retValue
	// recorded: held by the recording (a replayed hold), not by a stop
	// of this run
	recorded bool
}

// retOf returns what the step out that stopped t brought back, if any.
// Must hold s.mu (or be stopped).
func (r *run) retOf(t *vm.Thread) *retValue {
	if h := r.held[t]; h != nil {
		return h.ret
	}
	if r.ret != nil && r.ret.thread == t {
		return r.ret
	}
	return nil
}

// holdIf makes the stop decided in a hook for t hold t alone if it is in
// ModeThread: the scheduler then holds t where it is and does not pause.
// A stop decided while the program does not run (a dispatch the debugger
// steps) stops every thread. Called inside the dispatch, before the hook
// returns true.
func (s *Session) holdIf(t *vm.Thread, info *StopInfo) {
	if !info.hold {
		return
	}
	s.mu.Lock()
	running := s.r.state == stateRunning && !s.r.stepping
	s.mu.Unlock()
	if !running {
		info.hold = false
		return
	}
	sched.HoldAtTrap(t, false)
}

// heldAtTrap is the EventTrap of a thread held where it stopped (Held):
// by a ModeThread stop decided in the dispatch, or by the recording (a
// replayed hold), maybe with a stop of every thread of the session's at
// the same instruction. It reports whether that all-thread stop remains
// to be made (with its info).
func (s *Session) heldAtTrap(t *vm.Thread) (*StopInfo, bool) {
	s.mu.Lock()
	p := s.r.pending[t]
	delete(s.r.pending, t)
	h := &heldStop{ret: s.r.returns[t]}
	delete(s.r.returns, t)
	var all *StopInfo
	if p != nil && p.hold {
		h.info = *p
	} else {
		h.info = StopInfo{Reason: ReasonPause, Description: "Held (as recorded)", Recorded: true}
		h.recorded = true
		all = p
		h.ret = nil
	}
	h.info.ThreadID, h.info.AllThreadsStopped = t.ID, false
	s.r.held[t] = h
	s.everHeld.Store(true) // (catchup.go)
	s.r.lastHeld = t
	info := h.info
	s.mu.Unlock()
	s.endStepOf(t)
	s.emit(func(l Listener) { l.Stopped(info) })
	return all, all != nil
}

// onHold handles the holds and releases the scheduler did at the start
// of a dispatch: a thread Pause held (non-stop), or a hold or release of
// the recording (replayed); the debugger's own releases were reported
// when asked for.
func (s *Session) onHold(ev sched.Event) {
	t := ev.Thread
	s.mu.Lock()
	if ev.Kind == sched.EventRelease {
		h := s.r.held[t]
		if h == nil {
			s.mu.Unlock()
			return
		}
		s.releaseLocked(t)
		s.mu.Unlock()
		s.emit(func(l Listener) { l.Continued(t.ID, false) })
		return
	}
	if s.r.held[t] != nil {
		s.mu.Unlock()
		return
	}
	info := StopInfo{Reason: ReasonPause, Description: "Paused", ThreadID: t.ID}
	asked := s.r.pausing[t]
	delete(s.r.pausing, t)
	if !asked {
		info.Description, info.Recorded = "Held (as recorded)", true
	}
	s.r.held[t] = &heldStop{info: info, recorded: !asked}
	s.everHeld.Store(true) // (catchup.go)
	s.r.lastHeld = t
	s.mu.Unlock()
	s.endStepOf(t) // a pause of a thread that steps ends the step
	s.emit(func(l Listener) { l.Stopped(info) })
}

// releaseLocked forgets the hold of t: its handles expire, and so does
// its exception stop. The scheduler's Release is the caller's. Must hold
// s.mu.
func (s *Session) releaseLocked(t *vm.Thread) {
	delete(s.r.held, t)
	delete(s.r.excStops, t.ID)
	if s.r.lastHeld == t {
		s.r.lastHeld = nil
	}
	s.r.refs.drop(func(v any) bool {
		n, ok := v.(*node)
		return ok && n.t == t
	})
}

// takeHeldLocked forgets the holds of the debugger (not those of the
// recording) for a resume of every thread, and returns the threads to
// release. Must hold s.mu.
func (s *Session) takeHeldLocked() []*vm.Thread {
	var out []*vm.Thread
	for t, h := range s.r.held {
		if !h.recorded {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	for _, t := range out {
		s.releaseLocked(t)
	}
	return out
}

// recordedHolds returns the stops of the threads the recording holds
// (after a resume of every thread, they are still held: the recording
// releases them where it did). Must hold s.mu.
func (s *Session) recordedHoldsLocked() []StopInfo {
	var out []StopInfo
	for _, h := range s.r.held {
		if h.recorded {
			out = append(out, h.info)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ThreadID < out[j].ThreadID })
	return out
}

// heldThread returns the held thread of id (nil if it is not held).
// Must hold s.mu.
func (s *Session) heldThreadLocked(id int64) *vm.Thread {
	for t := range s.r.held {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// ThreadHeld reports whether thread id is held while others run
// (non-stop).
func (s *Session) ThreadHeld(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.r.state == stateRunning && s.heldThreadLocked(id) != nil
}

// runsWithHolds reports whether the program runs with threads held
// alone.
func (s *Session) runsWithHolds() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.r.state == stateRunning && len(s.r.held) > 0
}

// HeldThreads returns the ids of the threads held while the others run
// (non-stop), in order.
func (s *Session) HeldThreads() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int64
	for t := range s.r.held {
		out = append(out, t.ID)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// continueHeld resumes thread threadID alone if the program runs with it
// held (non-stop), or with threadID 0 every held thread (gdb's
// continue -a); handled is false when the program is stopped (a
// resume of every thread, as ever).
func (s *Session) continueHeld(threadID int64) (handled bool, err error) {
	s.mu.Lock()
	if s.r.state != stateRunning {
		s.mu.Unlock()
		return false, nil
	}
	if threadID == 0 && len(s.r.held) > 0 {
		// (the recording's holds too: the user lets them go here)
		var release []*vm.Thread
		for t := range s.r.held {
			release = append(release, t)
		}
		sort.Slice(release, func(i, j int) bool { return release[i].ID < release[j].ID })
		for _, t := range release {
			s.releaseLocked(t)
		}
		sch := s.r.sch
		s.mu.Unlock()
		s.emit(func(l Listener) { l.Continued(0, true) })
		for _, t := range release {
			sch.Release(t)
		}
		return true, nil
	}
	t := s.heldThreadLocked(threadID)
	if t == nil {
		s.mu.Unlock()
		if len(s.HeldThreads()) == 0 || s.r.sch.Thread(threadID) == nil {
			return true, ErrRunning
		}
		return true, &ThreadRunningError{ID: threadID}
	}
	s.releaseLocked(t)
	sch := s.r.sch
	s.mu.Unlock()
	s.emit(func(l Listener) { l.Continued(t.ID, false) })
	sch.Release(t)
	return true, nil
}

// stepHeld starts a step of thread threadID alone if the program runs
// with it held (non-stop): its end holds it again; the others are not
// touched. handled is false when the program is stopped.
func (s *Session) stepHeld(threadID int64, kind StepKind, instr bool) (handled bool, err error) {
	s.mu.Lock()
	if s.r.state != stateRunning {
		s.mu.Unlock()
		return false, nil
	}
	t := s.heldThreadLocked(threadID)
	sch := s.r.sch
	s.mu.Unlock()
	if t == nil {
		if sch.Thread(threadID) == nil {
			return true, ErrNoThread
		}
		return true, &ThreadRunningError{ID: threadID}
	}
	if kind != StepOut && !instr && s.stepFromCall(threadID, t) {
		return true, nil
	}
	sch.Between(func() { // patching the code needs no dispatch running
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.r.held[t] == nil {
			err = &ThreadRunningError{ID: threadID}
			return
		}
		st := s.newStepLocked(t, kind, instr)
		st.threadOnly = true
		s.r.steps[t] = st
		s.releaseLocked(t)
	})
	if err != nil {
		return true, err
	}
	s.emit(func(l Listener) { l.Continued(t.ID, false) })
	sch.Release(t)
	return true, nil
}

// pauseThread holds thread threadID alone (non-stop): at the next
// dispatch boundary (a running thread, when its quantum is over). The
// stop is reported then.
func (s *Session) pauseThread(threadID int64) error {
	s.mu.Lock()
	st, sch := s.r.state, s.r.sch
	s.mu.Unlock()
	switch st {
	case stateStopped:
		return nil // stopped already
	case stateRunning:
	default:
		return ErrNotRunning
	}
	t := sch.Thread(threadID)
	if t == nil {
		return ErrNoThread
	}
	s.mu.Lock()
	if s.r.held[t] != nil || s.r.pausing[t] {
		s.mu.Unlock()
		return nil
	}
	s.r.pausing[t] = true
	s.mu.Unlock()
	s.everHeld.Store(true) // (catchup.go)
	sch.Hold(t)
	return nil
}

// Still runs f while no thread of the program runs: at once if the
// program is stopped or over, and between two dispatches while it runs
// (sched.Scheduler.Between): the requests that read a thread held in
// non-stop mode — its stack, variables, evaluations in its frames,
// changes to them — run in f, which sees the program as one consistent
// state, never a dispatch half done. Inspection methods called while the
// program runs outside Still return ErrRunning.
func (s *Session) Still(f func()) {
	s.mu.Lock()
	running := s.r.state == stateRunning
	r := s.r
	s.mu.Unlock()
	if !running {
		f()
		return
	}
	r.sch.Between(func() {
		s.mu.Lock()
		r.still++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			r.still--
			s.mu.Unlock()
		}()
		f()
	})
}

// checkInspect returns nil if the program's state may be read now: it is
// stopped, or it runs and the caller is inside Still.
func (s *Session) checkInspect() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.r.state {
	case stateStopped:
		return nil
	case stateRunning:
		if s.r.still > 0 {
			return nil
		}
	case stateExited:
		return ErrNotRunning
	}
	return ErrRunning
}

// noteHeldBlocking tells the user (once per idle period) that nothing
// but held threads could run: the others wait, maybe for a held one. It
// is not a deadlock — continuing a held thread lets the program go on —
// and the program is not stopped. It reports whether threads are held.
func (s *Session) noteHeldBlocking() bool {
	s.mu.Lock()
	var held []*vm.Thread
	for t := range s.r.held {
		held = append(held, t)
	}
	sch := s.r.sch
	s.mu.Unlock()
	if len(held) == 0 {
		return false
	}
	sort.Slice(held, func(i, j int) bool { return held[i].ID < held[j].ID })
	isHeld := map[*vm.Thread]bool{}
	for _, t := range held {
		isHeld[t] = true
	}
	var b strings.Builder
	b.WriteString("note: nothing else can run while the debugger holds ")
	for i, t := range held {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "thread %d %q", t.ID, t.Name())
	}
	b.WriteString(" (continue it to go on)\n")
	for _, t := range sch.Threads() {
		if isHeld[t] || t.State != vm.Waiting {
			continue
		}
		fmt.Fprintf(&b, "  thread %d %q waits for %s", t.ID, t.Name(), t.WaitReason)
		if on := waitsOnThread(t); on != nil {
			fmt.Fprintf(&b, ", held by thread %d %q", on.ID, on.Name())
			if isHeld[on] {
				b.WriteString(" (stopped by the debugger)")
			}
		}
		b.WriteString("\n")
	}
	text := b.String()
	s.emit(func(l Listener) { l.Output("console", text) })
	return true
}

// waitsOnThread returns the thread a waiting thread waits for, if one:
// the owner of a lock, the thread computing a future, a thread joined.
func waitsOnThread(t *vm.Thread) *vm.Thread {
	switch on := t.WaitOn.(type) {
	case *vm.Thread:
		return on
	case sched.Primitive:
		if h, kind := on.Holder(); kind != sched.NoHolder && h != nil {
			return h
		}
	}
	return nil
}

// stopForTravel stops every thread before going back from a non-stop
// session that runs with threads held: the stop is about thread
// threadID if held is set and it is held (its moment is the present: a
// step back goes back from where it stands), otherwise about the end of
// the last quantum. The user is told.
func (s *Session) stopForTravel(threadID int64, fromHeld bool) {
	s.mu.Lock()
	if s.r.state != stateRunning || len(s.r.held) == 0 {
		s.mu.Unlock()
		return
	}
	info := StopInfo{Reason: ReasonPause, Description: "Paused: going back stops every thread"}
	var t *vm.Thread
	if h := s.r.held[s.heldThreadLocked(threadID)]; fromHeld && h != nil {
		info, t = h.info, s.heldThreadLocked(threadID)
		info.Description += " (going back stops every thread)"
	}
	s.r.stopping = true
	sch := s.r.sch
	s.mu.Unlock()
	s.emit(func(l Listener) {
		l.Output("console", "note: going back stops every thread first\n")
	})
	// between two dispatches: the quantum under way ends by itself (a
	// pause's interrupt would cut it short, which the recording, whose
	// re-execution going back is, does not know)
	sch.Between(func() { s.stopWorld(info, t) })
}

// heldOf returns the threads the scheduler of a run holds (a run going
// on from the past: the recording held them there).
func heldOf(r *run) []*vm.Thread {
	var out []*vm.Thread
	for _, t := range r.sch.Threads() {
		if r.sch.Held(t) {
			out = append(out, t)
		}
	}
	return out
}

// registerHeldLocked registers threads of r (heldOf) as held by the
// recording. Must hold s.mu.
func registerHeldLocked(r *run, ts []*vm.Thread) {
	for _, t := range ts {
		if r.held[t] == nil {
			r.held[t] = &heldStop{recorded: true,
				info: StopInfo{Reason: ReasonPause, Description: "Held (as recorded)", ThreadID: t.ID, Recorded: true}}
		}
	}
}

// errHeldOnly says what a request of the all-stop world cannot do while
// threads are held and the others run.
var errHeldOnly = errors.New("the program is running (threads are held: stop every thread first, e.g. pause with no thread)")
