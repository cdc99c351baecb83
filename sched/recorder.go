package sched

import "github.com/nlangdbg/nlangdbg/vm"

// Recorder sees the moments of a run that a recording logs and a replay
// follows (package sched/record implements it): the start of every
// dispatch, when input handed to it (vm.Outside.PostInput) arrives, and
// the end of every quantum. Its methods are called on the carrier with the
// scheduler's lock held; they must not call the Scheduler's methods.
// Recording needs one carrier.
type Recorder interface {
	// BeforeDispatch is called at the start of every dispatch, before the
	// due timers fire. It returns the input chunks that arrive at this
	// moment, in order; the scheduler appends each to the machine's input
	// (vm.Machine.ArriveInput) and wakes the readers it answers.
	BeforeDispatch() []InputChunk
	// AfterDispatch is called when the quantum of t is over and the
	// scheduler has acted on stop. It returns false to end the program
	// now (a replay that diverged), with exit code 1.
	AfterDispatch(t *vm.Thread, stop vm.Stop, reductions int) bool
	// Stalled is called when nothing can run and the run waits for
	// something from outside: input, or the time of a timer if timers
	// says one is pending (the next dispatch reads the clock). True ends
	// the program with exit code 1: a replay whose log holds neither
	// (else a replay's clock, which never sleeps, would be read again and
	// again forever).
	Stalled(timers bool) bool
}

// InputChunk is input that arrives: Data, then the end of the input if
// Err is not nil (io.EOF or the read's error).
type InputChunk struct {
	Data []byte
	Err  error
}

// SetRecorder installs r (nil removes it). Call it before Run or the first
// Dispatch; it needs one carrier.
func (s *Scheduler) SetRecorder(r Recorder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rec = r
	s.holdRec, _ = r.(HoldRecorder)
}

// InputPosted tells the scheduler that input was handed to its Recorder,
// so that an idle carrier starts a dispatch that lets it arrive. It may be
// called from any goroutine (the input's reader).
func (s *Scheduler) InputPosted() {
	s.mu.Lock()
	s.broadcast()
	s.mu.Unlock()
	s.notify()
}

// beforeDispatch lets the recorder's input arrive. Must hold s.mu.
func (s *Scheduler) beforeDispatch() {
	for _, c := range s.rec.BeforeDispatch() {
		for _, w := range s.m.ArriveInput(c.Data, c.Err) {
			s.ioWaiting--
			if w.T.State == vm.Waiting {
				s.wake(w.T, w.V, w.Err)
			}
		}
	}
}

// afterDispatch tells the recorder about the quantum of t; it ends the
// program if the recorder says so. Must hold s.mu.
func (s *Scheduler) afterDispatch(t *vm.Thread, stop vm.Stop, reductions int) {
	if !s.rec.AfterDispatch(t, stop, reductions) && !s.ended {
		s.end(1)
	}
}

// stalled asks the recorder whether a run waiting only for input or
// timers is over. Must hold s.mu.
func (s *Scheduler) stalled() bool {
	if s.rec != nil && s.running == 0 && (len(s.timers) > 0 || s.ioWaiting > 0) &&
		!s.holdsFrozen() && s.rec.Stalled(len(s.timers) > 0) {
		s.end(1)
		return true
	}
	return false
}

// trapCont reports whether the dispatch starting now goes on with the
// quantum a debugger trap cut (the thread is still first in line and the
// debugger chose no other): then it is the same quantum, as if the trap
// had not stopped it, so no timer fires and no input arrives before it,
// and the seeded pick is not drawn (SetNext takes the thread). Any
// other dispatch ends the cut. Must hold s.mu.
func (s *Scheduler) trapCont() bool {
	t := s.cut
	s.cut = nil
	if t == nil || s.next != nil || len(s.carriers) > 1 {
		return false
	}
	ti := info(t)
	if ti == nil || !ti.queued || ti.frozen || ti.x == nil || ti.x.rest <= 0 {
		return false
	}
	if q := &ti.qc.runq; q.len() == 0 || q.at(0) != t {
		return false
	}
	s.next = t
	return true
}
