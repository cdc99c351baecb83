package inspect

import "fmt"

// NoRecordingReason returns nil if the session records (it can go back),
// and otherwise ErrNoRecording wrapped with why it does not: several
// carriers, or a program that runs without a recording (run --listen
// without --record-for-debug: Config.NoRecord).
func (s *Session) NoRecordingReason() error {
	switch {
	case s.tt != nil:
		return nil
	case s.cfg.Carriers > 1:
		return fmt.Errorf("%w: a session records only with one carrier, and this one runs with %d", ErrNoRecording, s.cfg.Carriers)
	case s.cfg.NoRecord:
		return fmt.Errorf("%w: this program runs without one (start it with run --listen --record-for-debug to record it for the debugger)", ErrNoRecording)
	}
	return ErrNoRecording
}
