package inspect

// Dumps (REPL dump FILE, nlangdbg run --dump-on-crash, debug --core): a
// dump is a recording that also names a moment (record.Core); a session
// opened on one goes to that moment at ConfigurationDone.

import (
	"errors"
	"os"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
)

// Dump writes the present as a dump (REPL dump FILE): the recording so
// far and the present moment. nlangdbg debug --core FILE opens it there.
func (s *Session) Dump(path string) error {
	if err := s.checkRecording(); err != nil {
		return err
	}
	if err := s.checkStopped(); err != nil {
		return err
	}
	if s.tt.sets > 0 {
		return ErrAfterSet
	}
	if s.epochIndex() > 0 {
		return errReloadedDump // reload.go
	}
	now := s.present()
	c := &record.Core{Thread: now.thread, Reductions: now.red, Depth: now.depth, PC: now.pc, Trap: now.trap,
		Throw: now.throw, Offset: now.off, Kind: uint8(now.kind)}
	if now.trap || now.throw {
		c.Func = -1
		for i, fn := range s.prog.Funcs {
			if fn == now.fn {
				c.Func = i
			}
		}
		if c.Func < 0 {
			return errors.New("dump: the present's function is not in the program")
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = record.WriteDump(f, s.tt.j.Log(), c)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// startCore begins a session on a dump at ConfigurationDone: at the end
// of the run (a crash) it runs to the crash and stops there (an uncaught
// exception or the deadlock); at a moment, it goes there. It reports
// false if the session is not on a dump.
func (s *Session) startCore() bool {
	if s.tt == nil || s.tt.core == nil {
		return false
	}
	c := s.tt.core
	if c.AtEnd {
		s.mu.Lock()
		s.excUnc = true
		s.mu.Unlock()
		s.r.sch.Resume()
		return true
	}
	m := moment{thread: c.Thread, red: c.Reductions, depth: c.Depth, pc: c.PC, trap: c.Trap,
		throw: c.Throw, off: c.Offset, kind: sched.EventKind(c.Kind)}
	if c.Trap || c.Throw {
		if c.Func < 0 || c.Func >= len(s.prog.Funcs) {
			s.emit(func(l Listener) { l.Output("console", "the dump names no function of the program\n") })
			s.stopWorld(StopInfo{Reason: ReasonEntry, ThreadID: 1, Description: "Paused on entry"}, s.r.sch.Main())
			return true
		}
		m.fn = s.prog.Funcs[c.Func]
	}
	reason := ReasonStep
	switch {
	case c.Throw:
		reason = ReasonException
	case !c.Trap:
		reason = ReasonPause
	}
	if err := s.travelTo(m, StopInfo{Reason: reason, Description: "At the moment of the dump"}); err != nil {
		s.emit(func(l Listener) { l.Output("console", "cannot reach the moment of the dump: "+err.Error()+"\n") })
		s.stopWorld(StopInfo{Reason: ReasonEntry, ThreadID: 1, Description: "Paused on entry"}, s.r.sch.Main())
	}
	return true
}
