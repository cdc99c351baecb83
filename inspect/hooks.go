package inspect

import (
	"fmt"
	"path/filepath"

	"github.com/nlangdbg/nlangdbg/vm"
)

// hook is the session's vm.DebugHook and vm.ThrowHook. Its methods run
// inside a dispatch (the scheduler's lock held) on the carrier goroutine;
// they decide whether the thread stops and leave the decision in
// s.r.pending (per thread: with several carriers two threads may stop at
// once), which onEvent turns into a stop when the dispatch is over.
type hook struct{ s *Session }

// OnTrap decides about a thread at a patched pc: a step's end, or a
// breakpoint whose condition and hit count say stop (a logpoint prints
// and goes on).
func (h hook) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	s := h.s
	if info := s.checkData(t, fn, pc); info != nil {
		s.holdIf(t, info) // ModeThread: t alone (nonstop.go)
		s.mu.Lock()
		s.r.pending[t] = info
		s.mu.Unlock()
		return true
	}
	s.mu.Lock()
	k := trapKey{fn, pc}
	var ret *retValue
	var stepInfo *StopInfo
	if st := s.r.steps[t]; st != nil && st.matches(t, fn, pc) {
		info := &StopInfo{Reason: ReasonStep, Description: "Step", hold: st.threadOnly}
		stepInfo = info
		if st.isReturn(t, fn, pc) {
			ret = st.returned(t)
			info.Description = "Step out"
			info.Text = "returned from " + ret.callee.Name
			if ret.has {
				info.Text = ret.callee.Name + " returned " + s.brief(ret.v, ret.typ, 0)
			}
			s.r.returns[t] = ret
		}
		call, _ := fn.Pos(pc - 1)
		here, _ := fn.Pos(pc)
		if ret == nil || len(s.bps.at[k]) == 0 || call == here || !isStmt(fn, pc) {
			s.r.pending[t] = info
			s.mu.Unlock()
			s.holdIf(t, info)
			return true
		}
		// the caller goes on at a line with a breakpoint: the breakpoint
		// decides (the return value is shown all the same)
		s.r.pending[t] = info
	}
	list := append([]*bp(nil), s.bps.at[k]...)
	s.mu.Unlock()
	var hit []int
	var fired []*bp
	isFunc := false
	for _, b := range list {
		if !s.breakpointFires(t, b, k) {
			continue
		}
		hit = append(hit, b.id)
		fired = append(fired, b)
		isFunc = isFunc || b.isFunc
	}
	if len(hit) == 0 {
		if ret != nil { // a step out's stop
			s.holdIf(t, stepInfo)
		}
		return ret != nil
	}
	if ret != nil {
		ret.atCall = false // the stop shows the breakpoint's line
	}
	s.mu.Lock()
	hold := stepInfo == nil || stepInfo.hold
	for _, b := range fired {
		hold = hold && s.threadModeLocked(b.mode)
	}
	s.mu.Unlock()
	info := &StopInfo{Reason: ReasonBreakpoint, HitBreakpointIDs: hit, Description: "Breakpoint", hold: hold}
	if isFunc {
		info.Reason = ReasonFunction
		info.Description = "Function breakpoint"
	}
	if isInstrStop(fired) {
		info.Reason = ReasonInstruction
		info.Description = "Instruction breakpoint"
	}
	s.mu.Lock()
	s.r.pending[t] = info
	s.mu.Unlock()
	s.holdIf(t, info)
	return true
}

// breakpointFires evaluates b's condition for t at k (one of b's pcs)
// and applies the breakpoint rule (decide) with the counts of the
// session's run; a logpoint prints. It returns whether t stops.
func (s *Session) breakpointFires(t *vm.Thread, b *bp, k trapKey) bool {
	held, condErr := true, error(nil)
	if b.cond != "" {
		held, condErr = s.evalCond(t, b, k)
	}
	s.mu.Lock()
	stop, logIt := s.bps.decide(b, s.r.count(b), held, condErr)
	s.mu.Unlock()
	switch {
	case condErr != nil && stop:
		s.emit(func(l Listener) {
			// named by where it is: clients number breakpoints their way
			l.Output("console", fmt.Sprintf("breakpoint at %s:%d: condition %q failed: %v (stopping)\n",
				filepath.Base(b.file), b.line, b.cond, condErr))
		})
	case logIt:
		msg := s.logText(t, b, k)
		s.emit(func(l Listener) { l.Output("console", msg+"\n") })
	}
	return stop
}

// OnThrow stops a thread at a throw when the exception filters say so.
func (h hook) OnThrow(t *vm.Thread, exc *vm.Object, caught bool) bool {
	if vm.IsTermination(exc) {
		return false // the debugger ended the thread (TerminateThreads)
	}
	s := h.s
	s.mu.Lock()
	mode, stopMode := "", ""
	switch {
	case s.excRules != nil:
		if mode, stopMode = s.excRules.mode(exc.Class, caught); mode == "" {
			s.mu.Unlock()
			return false
		}
	case s.excAll:
		mode = "always"
	case s.excUnc && !caught:
		mode = "unhandled"
	default:
		s.mu.Unlock()
		return false
	}
	s.r.excStops[t.ID] = excStop{exc: exc, uncaught: !caught, breakmode: mode}
	desc := "Paused on exception"
	if !caught {
		desc = "Paused on uncaught exception"
	}
	info := &StopInfo{Reason: ReasonException, Description: desc, Text: vm.ExceptionString(exc), hold: s.threadModeLocked(stopMode)}
	s.r.pending[t] = info
	s.mu.Unlock()
	s.holdIf(t, info) // ModeThread: t alone (nonstop.go)
	return true
}

// ExceptionInfo describes the exception threadID is stopped on.
func (s *Session) ExceptionInfo(threadID int64) (ExceptionDetails, error) {
	if err := s.checkInspect(); err != nil {
		return ExceptionDetails{}, err
	}
	s.mu.Lock()
	es, ok := s.r.excStops[threadID]
	s.mu.Unlock()
	if !ok {
		return ExceptionDetails{}, fmt.Errorf("thread %d is not stopped on an exception", threadID)
	}
	return ExceptionDetails{
		ID:          es.exc.Class.Name,
		Description: vm.ExceptionMessage(es.exc),
		Breakmode:   es.breakmode,
		StackTrace:  vm.ExceptionString(es.exc) + "\n" + vm.FormatTrace(es.exc),
	}, nil
}
