package inspect

import (
	"errors"

	"github.com/nlangdbg/nlangdbg/sched/race"
	"github.com/nlangdbg/nlangdbg/vm"
)

// This file runs a session with the race detector (Config.Race): the
// program's accesses are patched with traps (instrumentAccesses,
// shared.go), and a new race stops the thread that made the second
// access, with reason "data race". Every machine of the session has its
// own detector, the re-executions of time travel too: a re-execution
// rebuilds the detector's state from the start, so that the races after
// the moment it goes back to are found again when the program goes on;
// it reports none before the session adopts it (they were reported).

// ReasonDataRace is the stop of a thread whose access races with an
// earlier one (Config.Race); the stop's Text is the report.
const ReasonDataRace StopReason = "data race"

// initRace instruments the program for the detector. Must be called in
// Launch, before the first machine.
func (s *Session) initRace() error {
	if s.cfg.Carriers > 1 {
		return errors.New(`launch: "race" needs one carrier`)
	}
	s.instrumentAccesses()
	s.race = true
	return nil
}

// newDetector returns the race detector of a new machine, or nil.
func (s *Session) newDetector() *race.Detector {
	if !s.race {
		return nil
	}
	return race.New(nil)
}

// raceStop is the stop of t at its access that made the detector d find
// a race (d had n races before it), or nil.
func (a *accessHook) raceStop(t *vm.Thread, n int) *StopInfo {
	rs := a.d.Races()
	if len(rs) == n || !a.reports() {
		return nil
	}
	return &StopInfo{Reason: ReasonDataRace, Description: "Data race", Text: rs[len(rs)-1].Report}
}
