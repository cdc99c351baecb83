package inspect

import (
	"bytes"
	"errors"
)

// ErrStale is returned by Restart when the program's sources changed
// since it was compiled: a restart of the new program is a new launch.
var ErrStale = errors.New("the program's sources changed since it was compiled")

// ErrRestartReplay is returned by Restart for a session of a recording,
// whose start is the recording's to give again (a new launch).
var ErrRestartReplay = errors.New("a session of a recording restarts by opening the recording again")

// Restart starts the program again, in a new run from its start (with a
// new recording): the run the session had ends, running or not. The
// session keeps what the user set up — breakpoints (their hit counts and
// ignore counts start again), exception filters, scheduler-event stops —
// but not the data breakpoints, whose objects were the old run's. As
// after Launch, the run starts at ConfigurationDone. Restart refuses
// (ErrStale, ErrRestartReplay) and changes nothing when the program must
// be compiled or read again.
func (s *Session) Restart() error {
	defer s.quiet()() // (catchup.go)
	if s.cfg.Replay != "" {
		return ErrRestartReplay
	}
	for path, src := range s.prog.Files {
		if now, err := ReadSource(path); err != nil || !bytes.Equal(now, src) {
			return ErrStale
		}
	}
	// End the run the session has: its events are dropped from now on,
	// and its carrier is gone before the session changes under it.
	s.mu.Lock()
	old := s.r
	s.mu.Unlock()
	s.live.Store(nil)
	old.sch.Pause()
	old.sch.Kill(137)
	if old.carrierDone != nil {
		<-old.carrierDone
	}
	tt := s.tt
	var err error
	if tt != nil {
		if tt, err = newTimeTravel(s.cfg, s.hdr, nil, s.stdin, s.stdout, s.stderr); err != nil {
			s.finish(137)
			return err
		}
	}
	s.tt = tt // (before the new run: its checkpointer reads it)
	r, err := s.newRunAt(s.stdin, s.stdout, s.stderr, tt.journal(), hook{s}, nil, stateInit)
	if err != nil {
		s.finish(137)
		return err
	}
	s.mu.Lock()
	s.r = r
	s.live.Store(r)
	s.data = nil
	s.rl = nil // a new timeline, whose first program is this one (reload.go)
	clear(s.bps.ignores)
	if old.state == stateExited {
		s.done = make(chan struct{})
	}
	s.code = 0
	if old.resumeCh != nil {
		close(old.resumeCh) // (a waiter finds the run is no longer the session's)
		old.resumeCh = nil
	}
	s.mu.Unlock()
	return nil
}
