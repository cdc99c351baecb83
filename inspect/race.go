package inspect

import (
	"errors"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/race"
	"github.com/nlangdbg/nlangdbg/vm"
)

// This file runs a session with the race detector (Config.Race): the
// program's accesses are patched with traps owned by the detector (one
// reference each in s.traps, so that breakpoints set and cleared at the
// same pcs leave them in place), and a new race stops the thread that
// made the second access, with reason "data race".

// ReasonDataRace is the stop of a thread whose access races with an
// earlier one (Config.Race); the stop's Text is the report.
const ReasonDataRace StopReason = "data race"

// initRace instruments the program for the detector. Must be called in
// Launch, before the first machine.
func (s *Session) initRace() error {
	if s.cfg.Carriers > 1 {
		return errors.New(`launch: "race" needs one carrier`)
	}
	race.Instrument(s.prog)
	s.raceTraps = map[trapKey]bool{}
	for _, fn := range s.prog.Funcs {
		for pc := range fn.Code {
			if fn.HasTrap(int32(pc)) {
				k := trapKey{fn, int32(pc)}
				s.raceTraps[k] = true
				s.traps[k]++
			}
		}
	}
	return nil
}

// installRace puts the detector between machine m and its debug hook h.
// Only the session's own run (h is the session's hook) detects races;
// the re-executions of time travel only skip the detector's traps.
func (s *Session) installRace(m *vm.Machine, sch *sched.Scheduler, h vm.DebugHook) {
	if s.raceTraps == nil {
		return
	}
	rh := &raceHook{s: s, h: h}
	if _, live := h.(hook); live {
		rh.d = race.New(nil)
		sch.SetRaceHook(rh.d)
	}
	m.Hook = rh
}

// raceHook is the debug hook of a machine of a race session.
type raceHook struct {
	s *Session
	h vm.DebugHook
	d *race.Detector // nil in a re-execution
}

func (r *raceHook) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	s := r.s
	k := trapKey{fn, pc}
	s.mu.Lock()
	mine, theirs := s.raceTraps[k], s.traps[k] > 1 || !s.raceTraps[k]
	s.mu.Unlock()
	stop := false
	if mine && r.d != nil {
		n := len(r.d.Races())
		r.d.OnTrap(t, fn, pc)
		if rs := r.d.Races(); len(rs) > n {
			s.mu.Lock()
			s.pending[t] = &StopInfo{Reason: ReasonDataRace, Description: "Data race", Text: rs[len(rs)-1].Report}
			s.mu.Unlock()
			stop = true
		}
	}
	if theirs && r.h.OnTrap(t, fn, pc) {
		return true // a breakpoint or a step's end at the same pc decides
	}
	return stop
}

func (r *raceHook) OnThrow(t *vm.Thread, exc *vm.Object, caught bool) bool {
	if th, ok := r.h.(vm.ThrowHook); ok {
		return th.OnThrow(t, exc, caught)
	}
	return false
}
