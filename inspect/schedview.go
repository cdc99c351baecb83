package inspect

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// SchedInfo is a snapshot of the scheduler: what the REPL's `sched`
// command shows.
type SchedInfo struct {
	Carriers []CarrierInfo
	RunQueue []ThreadInfo // in dispatch order
	Parked   []ThreadInfo // waiting threads, with what they wait on
	Frozen   []ThreadInfo
	Timers   []TimerInfo
	Quota    int
	Next     int64 // thread chosen for the next dispatch (0: the queue's head)
}

// CarrierInfo describes a carrier (a Go goroutine running threads).
type CarrierInfo struct {
	ID      int
	Running int64 // thread it runs now (0: none, the world is stopped)
	// RunQueue is the carrier's own run queue, in dispatch order (with
	// one carrier, the same as SchedInfo.RunQueue).
	RunQueue []ThreadInfo
}

// TimerInfo is a pending timer.
type TimerInfo struct {
	ThreadID int64
	Name     string
	In       time.Duration // time left
}

// DispatchInfo reports one dispatch made by SchedStep.
type DispatchInfo struct {
	ThreadID   int64
	Name       string
	Reductions int
	// Why is "quota", "yield", "parked on chan recv", "ended", "trap",
	// "idle" (nothing runnable: timers pending), "deadlock" or "end".
	Why   string
	Woken []int64
	// Spawned lists threads the dispatch created.
	Spawned []int64
}

// SchedView returns the scheduler's state. The program must be stopped.
func (s *Session) SchedView() (SchedInfo, error) {
	if err := s.checkInspect(); err != nil {
		return SchedInfo{}, err
	}
	info := SchedInfo{Quota: s.r.sch.Quota()}
	for _, c := range s.r.sch.Carriers() {
		ci := CarrierInfo{ID: c.ID}
		if c.Running != nil {
			ci.Running = c.Running.ID
		}
		for _, t := range c.RunQueue {
			ci.RunQueue = append(ci.RunQueue, s.threadInfo(t))
		}
		info.Carriers = append(info.Carriers, ci)
	}
	queued := map[*vm.Thread]bool{}
	for _, t := range s.r.sch.RunQueue() {
		info.RunQueue = append(info.RunQueue, s.threadInfo(t))
		queued[t] = true
	}
	for _, t := range s.r.sch.Threads() {
		switch {
		case s.r.sch.Frozen(t):
			info.Frozen = append(info.Frozen, s.threadInfo(t))
		case t.State == vm.Waiting:
			info.Parked = append(info.Parked, s.threadInfo(t))
		}
	}
	// the time left as it was when the program stopped (the clock goes
	// on, but no timer fires while the program is stopped)
	s.mu.Lock()
	now := s.r.stoppedAt
	s.mu.Unlock()
	for _, tm := range s.r.sch.Timers() {
		info.Timers = append(info.Timers, TimerInfo{ThreadID: tm.Thread.ID, Name: tm.Thread.Name(), In: tm.Deadline - now})
	}
	return info, nil
}

// SchedStep dispatches exactly one quantum while the program is stopped
// and reports what ran. The program stays stopped (a breakpoint reached in
// the quantum is reported as a stop as usual).
func (s *Session) SchedStep() (DispatchInfo, error) {
	defer s.quiet()() // (catchup.go)
	if err := s.checkStopped(); err != nil {
		return DispatchInfo{}, err
	}
	s.mu.Lock()
	s.r.refs.reset()
	s.r.stepping = true
	s.mu.Unlock()
	ev := s.r.sch.Dispatch()
	s.mu.Lock()
	s.r.stepping = false
	s.mu.Unlock()
	d := DispatchInfo{Reductions: ev.Reductions}
	if ev.Thread != nil {
		d.ThreadID, d.Name = ev.Thread.ID, ev.Thread.Name()
	}
	for _, t := range ev.Woken {
		d.Woken = append(d.Woken, t.ID)
	}
	for _, t := range ev.Spawned {
		d.Spawned = append(d.Spawned, t.ID)
	}
	switch ev.Kind {
	case sched.EventIdle:
		d.Why = "idle"
	case sched.EventDeadlock:
		d.Why = "deadlock"
	case sched.EventEnd:
		d.Why = "end"
	default:
		switch ev.Stop {
		case vm.StopBudget:
			d.Why = "quota"
		case vm.StopYield:
			d.Why = "yield"
		case vm.StopPark:
			d.Why = "parked on " + ev.Thread.WaitReason
		case vm.StopTrap:
			d.Why = "trap"
			if info, ok := s.takeQueued(ev.Thread); ok {
				// the quantum reached a breakpoint (or a step's end, an
				// exception): that is now the stop, reported as such
				d.Why = strings.ToLower(info.Description)
				if len(info.HitBreakpointIDs) > 0 {
					d.Why = "breakpoint"
				}
				defer s.emit(func(l Listener) { l.Stopped(info) })
			}
		default:
			d.Why = "ended"
		}
	}
	if code, over := s.r.sch.ExitCode(); over && ev.Kind != sched.EventDeadlock {
		go s.finish(code)
	}
	return d, nil
}

// SchedNext makes the next dispatch take thread id (if runnable).
func (s *Session) SchedNext(id int64) error {
	defer s.quiet()() // (catchup.go)
	if err := s.checkStopped(); err != nil {
		return err
	}
	t, err := s.thread(id)
	if err != nil {
		return err
	}
	if t.State != vm.Runnable {
		return fmt.Errorf("thread %d is %s, not runnable", id, t.State)
	}
	s.r.sch.SetNext(t)
	return nil
}

// SetQuota changes the reductions per dispatch.
func (s *Session) SetQuota(n int) error {
	defer s.quiet()() // (catchup.go)
	if n < 1 {
		return fmt.Errorf("quota must be at least 1")
	}
	s.r.sch.SetQuota(n)
	return nil
}

// Freeze keeps thread id off the run queue until Thaw.
func (s *Session) Freeze(id int64) error {
	defer s.quiet()() // (catchup.go)
	if err := s.checkStopped(); err != nil {
		return err
	}
	t, err := s.thread(id)
	if err != nil {
		return err
	}
	s.r.sch.Freeze(t)
	return nil
}

// Thaw undoes Freeze.
func (s *Session) Thaw(id int64) error {
	defer s.quiet()() // (catchup.go)
	if err := s.checkStopped(); err != nil {
		return err
	}
	t, err := s.thread(id)
	if err != nil {
		return err
	}
	s.r.sch.Thaw(t)
	return nil
}

// BreakSafepoint stops thread id at its next safepoint (function entry or
// loop back-edge) once the program resumes.
func (s *Session) BreakSafepoint(id int64) error {
	defer s.quiet()() // (catchup.go)
	t, err := s.thread(id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.r.safepoints[t] = true
	s.mu.Unlock()
	s.r.sch.SetBudgetOnce(t, 1)
	return nil
}

// SchedBreakKinds are the scheduler events BreakSched accepts.
var SchedBreakKinds = []string{"spawn", "park", "wake", "exit", "deadlock"}

// BreakSched stops the program at the next scheduler event of the given
// kind (one of SchedBreakKinds); on=false removes it.
func (s *Session) BreakSched(kind string, on bool) error {
	defer s.quiet()() // (catchup.go)
	k, ok := map[string]sched.EventKind{"spawn": sched.EventSpawn, "park": sched.EventPark,
		"wake": sched.EventWake, "exit": sched.EventExit, "deadlock": sched.EventDeadlock}[kind]
	if !ok {
		return fmt.Errorf("unknown scheduler event %q (want %s)", kind, strings.Join(SchedBreakKinds, ", "))
	}
	s.r.sch.SetYieldOn(k, on)
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.schedBreaks[k] = true
	} else {
		delete(s.schedBreaks, k)
	}
	return nil
}

// SchedBreaks lists the scheduler events that stop the program.
func (s *Session) SchedBreaks() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.schedBreaks {
		out = append(out, k.String())
	}
	sort.Strings(out)
	return out
}

// schedEventStop decides whether a scheduler event stops the program;
// called from onEvent on the carrier.
func (s *Session) schedEventStop(ev sched.Event) (StopInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r.state != stateRunning || s.r.stepping {
		return StopInfo{}, false
	}
	if ev.Kind == sched.EventPreempt && ev.Stop == vm.StopBudget && s.r.safepoints[ev.Thread] {
		delete(s.r.safepoints, ev.Thread)
		return StopInfo{Reason: ReasonSafepoint, Description: "Stopped at a safepoint"}, true
	}
	if !s.schedBreaks[ev.Kind] || (ev.Kind == sched.EventSpawn && ev.By == nil) {
		return StopInfo{}, false // (main's own spawn is not an event of the program)
	}
	desc := fmt.Sprintf("Scheduler event: %s", ev.Kind)
	if ev.Thread != nil {
		desc = fmt.Sprintf("Scheduler event: %s of thread %d %q", ev.Kind, ev.Thread.ID, ev.Thread.Name())
		if ev.Kind == sched.EventPark {
			desc += " on " + ev.Reason
		}
	}
	return StopInfo{Reason: ReasonSched, Description: desc, Text: ev.String()}, true
}

// takeQueued makes the queued stop of t, if any, the current stop (the
// program stays stopped) and returns it.
func (s *Session) takeQueued(t *vm.Thread) (StopInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, q := range s.r.queued {
		if q.t != t {
			continue
		}
		s.r.queued = append(s.r.queued[:i:i], s.r.queued[i+1:]...)
		info := q.info
		info.AllThreadsStopped = true
		info.ThreadID = t.ID
		s.r.stop, s.r.stopped, s.r.ret = info, t, nil
		s.r.refs.reset()
		return info, true
	}
	return StopInfo{}, false
}
