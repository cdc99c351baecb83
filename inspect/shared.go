package inspect

import (
	"sync"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/race"
	"github.com/nlangdbg/nlangdbg/vm"
)

// This file composes the traps the session patches at the program's
// shared accesses — for the race detector (race.go) and for the
// scheduling points of a recording explored at --granularity shared
// (Config.Replay of such a recording) — with the debugger's own traps
// (breakpoints, steps, the targets of re-executions) at the same pcs.
//
// An access trap holds one reference in s.traps, so that a breakpoint
// set and cleared at the same pc leaves it in place. At a pc where the
// session has a trap of its own as well, the debugger decides first: if
// it stops the thread there, the access has not run yet and its
// scheduling point is still owed; when the session resumes, the thread
// meets the trap again (resumeLocked clears the skip the stop left) and
// takes the scheduling point then, before the access runs. A stop at a
// trap does not change the schedule (the thread goes on with the rest of
// its quantum), so a run with breakpoints at access points follows the
// same schedule as one without: a replay under the debugger does not
// diverge, in the session's run as in the re-executions of going back.

// instrumentAccesses patches every shared access of the program
// (sched.IsAccess) with a trap owned by the session. Must be called in
// Launch, before the first machine; once is enough for race and shared.
func (s *Session) instrumentAccesses() {
	if s.accessTraps != nil {
		return
	}
	sched.InstrumentAccesses(s.prog)
	s.accessTraps = map[trapKey]bool{}
	for _, fn := range s.prog.Funcs {
		for pc := range fn.Code {
			if fn.HasTrap(int32(pc)) {
				k := trapKey{fn, int32(pc)}
				s.accessTraps[k] = true
				s.traps[k]++
			}
		}
	}
}

// initShared makes every shared access a scheduling point, as in the
// explored run of the recording the session replays.
func (s *Session) initShared() {
	s.instrumentAccesses()
	s.shared = true
}

// accessHook returns the debug hook of a new machine whose own hook is h
// (the session's, or a re-execution's travelHook): the access hook in
// front of h if the program has access traps, with a race detector of
// its own (its race hook) if the session detects races; else h.
func (s *Session) accessHook(h vm.DebugHook) (vm.DebugHook, sched.RaceHook) {
	if s.accessTraps == nil {
		return h, nil
	}
	a := &accessHook{s: s, h: h, shared: s.shared, d: s.newDetector()}
	if th, ok := h.(*travelHook); ok {
		a.travel = th
	}
	_, a.scan = h.(*scanHook)
	if a.d != nil {
		return a, a.d // one carrier: checked in Launch
	}
	return a, nil
}

// accessHook is the debug hook of a machine whose program has access
// traps.
type accessHook struct {
	s      *Session
	h      vm.DebugHook
	travel *travelHook    // h, if the machine re-executes the past
	scan   bool           // h is a scan's (pastscan.go): it reports no race
	d      *race.Detector // with Config.Race
	shared bool           // every access is a scheduling point
	mu     sync.Mutex     // guards owed (the carrier, and resumes)
	owed   map[*vm.Thread]owedPoint
}

// owedPoint is the scheduling point of an access a thread was stopped
// at before it took the point.
type owedPoint struct {
	fn    *vm.Funcode
	pc    int32
	depth int
}

// reports says whether a new race stops the program: not while a
// re-execution goes back (the session has seen those races).
func (a *accessHook) reports() bool {
	return !a.scan && (a.travel == nil || a.travel.adopted.Load())
}

func (a *accessHook) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	s := a.s
	k := trapKey{fn, pc}
	s.mu.Lock()
	mine := s.accessTraps[k]
	theirs := s.traps[k] > 1 || !mine
	s.mu.Unlock()
	if mine && a.shared && a.takeOwed(t, fn, pc) {
		sched.PreemptAtTrap(t) // the debugger stopped here first
		return true
	}
	var info *StopInfo
	if mine && a.d != nil {
		n := len(a.d.Races())
		a.d.OnTrap(t, fn, pc)
		info = a.raceStop(t, n)
	}
	stop := false
	if info != nil {
		s.mu.Lock()
		s.r.pending[t] = info
		s.mu.Unlock()
		stop = true
	}
	if theirs && a.h.OnTrap(t, fn, pc) {
		stop = true // a breakpoint or a step's end at the same pc decides
	}
	if !mine || !a.shared {
		return stop
	}
	if stop {
		a.owe(t, fn, pc)
	} else {
		sched.PreemptAtTrap(t)
	}
	return true
}

func (a *accessHook) OnThrow(t *vm.Thread, exc *vm.Object, caught bool) bool {
	if th, ok := a.h.(vm.ThrowHook); ok {
		return th.OnThrow(t, exc, caught)
	}
	return false
}

// owe notes that t stopped at its access at pc of fn before taking its
// scheduling point.
func (a *accessHook) owe(t *vm.Thread, fn *vm.Funcode, pc int32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.owed == nil {
		a.owed = map[*vm.Thread]owedPoint{}
	}
	a.owed[t] = owedPoint{fn, pc, t.Depth()}
}

// takeOwed reports whether t owes the scheduling point at pc of fn, and
// clears the debt.
func (a *accessHook) takeOwed(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.owed[t]
	if !ok {
		return false
	}
	delete(a.owed, t)
	return p.fn == fn && p.pc == pc && p.depth == t.Depth()
}

// release makes each thread that owes a scheduling point meet its trap
// again when it resumes (instead of running the access as a resume from
// a trap does); a thread moved elsewhere since (goto, restart frame,
// an exception) owes nothing. Only while no thread runs.
func (a *accessHook) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for t, p := range a.owed {
		if t.State == vm.Dead || t.Depth() != p.depth || t.Depth() == 0 {
			delete(a.owed, t)
			continue
		}
		if f := t.Frame(0); f.Fn != p.fn || f.PC != p.pc {
			delete(a.owed, t)
			continue
		}
		t.SkipTrapOnce(nil, 0)
	}
}

// releaseOwed is release for the session's machine. Must hold s.mu with
// the world stopped (resumeLocked).
func (s *Session) releaseOwed() {
	if a, ok := s.r.m.Hook.(*accessHook); ok && a.shared {
		a.release()
	}
}
