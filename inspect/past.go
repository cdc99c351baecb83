package inspect

// Questions about the past. A session that records can answer questions
// about the whole run so far instead of making the user step towards the
// answer: who wrote this location last (LastWrites), where a value came
// from (Origin), what a line saw every time it ran (Query: logpoints
// added after the fact), what a thread did (Timeline). Each answer is
// found by re-executing stretches of the recording (pastscan.go) and
// names the moments it speaks of with an opaque Moment, which Travel
// goes to.

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// Moment names a moment of a session's recording: a thread at an
// instruction, a throw or the end of a quantum. It is opaque: a client
// gets moments from the answers about the past and gives them back to
// Travel. A moment belongs to one session's recording; another
// session's, or one from a future the session dropped, is refused.
type Moment string

// MomentError is the error about a Moment the session cannot go to.
type MomentError struct {
	Moment Moment
	Why    string
}

func (e *MomentError) Error() string {
	m := string(e.Moment)
	if len(m) > 24 {
		m = m[:24] + "…"
	}
	return fmt.Sprintf("moment %q: %s", m, e.Why)
}

// pastState is what a session keeps for the questions about the past.
type pastState struct {
	idMu sync.Mutex
	id   uint64      // the recording's identity in its moments
	of   *timeTravel // the recording it is of (a restart makes another)
	mu   sync.Mutex
	// stops are the session's stops, as they happened (the debugger's
	// part of the timelines). Guarded by mu.
	stops []pastStop
}

// recordingID returns the identity of the session's recording in its
// moments.
func (s *Session) recordingID() uint64 {
	s.past.idMu.Lock()
	defer s.past.idMu.Unlock()
	if s.past.of != s.tt || s.past.id == 0 {
		var b [8]byte
		rand.Read(b[:])
		s.past.id, s.past.of = binary.LittleEndian.Uint64(b[:])|1, s.tt
	}
	return s.past.id
}

// The flags of an encoded moment.
const (
	momTrap = 1 << iota
	momThrow
	momByOff
)

// momentVersion is the first byte of an encoded moment.
const momentVersion = 1

// encodeMoment returns the client's name of m.
func (s *Session) encodeMoment(m moment) Moment {
	b := []byte{momentVersion}
	b = binary.LittleEndian.AppendUint64(b, s.recordingID())
	flags := 0
	if m.trap {
		flags |= momTrap
	}
	if m.throw {
		flags |= momThrow
	}
	if m.byOff {
		flags |= momByOff
	}
	fn := -1
	if m.fn != nil {
		if i, ok := s.funcIndex()[m.fn]; ok {
			fn = i
		}
	}
	for _, v := range []int64{int64(s.tt.sets), int64(flags), m.thread, m.red, int64(m.depth), int64(fn), int64(m.pc), int64(m.off), int64(m.kind)} {
		b = binary.AppendVarint(b, v)
	}
	return Moment(base64.RawURLEncoding.EncodeToString(b))
}

// decodeMoment returns the moment x names, or a *MomentError.
func (s *Session) decodeMoment(x Moment) (moment, error) {
	bad := func(why string) (moment, error) { return moment{}, &MomentError{Moment: x, Why: why} }
	if s.tt == nil {
		return moment{}, ErrNoRecording
	}
	b, err := base64.RawURLEncoding.DecodeString(string(x))
	if err != nil || len(b) < 9 || b[0] != momentVersion {
		return bad("not a moment (moments come from the answers about the past: lastWrites, query, origin, timeline)")
	}
	if binary.LittleEndian.Uint64(b[1:9]) != s.recordingID() {
		return bad("a moment of another recording (moments belong to the session that gave them)")
	}
	b = b[9:]
	var v [9]int64
	for i := range v {
		n, k := binary.Varint(b)
		if k <= 0 {
			return bad("not a moment (truncated)")
		}
		v[i], b = n, b[k:]
	}
	sets, flags := v[0], v[1]
	if sets != int64(s.tt.sets) {
		return bad("a moment of a future the session dropped (a variable was set since)")
	}
	m := moment{thread: v[2], red: v[3], depth: int(v[4]), pc: int32(v[6]), off: int(v[7]), kind: sched.EventKind(v[8]),
		trap: flags&momTrap != 0, throw: flags&momThrow != 0, byOff: flags&momByOff != 0}
	if fn := v[5]; fn >= 0 {
		if fn >= int64(len(s.prog.Funcs)) {
			return bad("not a moment (no such function)")
		}
		m.fn = s.prog.Funcs[fn]
	}
	if (m.trap || m.throw) && (m.fn == nil || m.pc < 0 || int(m.pc) >= len(m.fn.Code) || m.thread <= 0) {
		return bad("not a moment (no such instruction)")
	}
	if m.off < 0 || m.off > s.tt.j.Size() {
		return bad("not a moment of this recording (past its end)")
	}
	return m, nil
}

// CheckMoment reports whether m is a moment of the session's recording
// (a *MomentError says why not).
func (s *Session) CheckMoment(m Moment) error {
	_, err := s.decodeMoment(m)
	return err
}

// Travel puts the session at moment m (from an answer about the past):
// it stops there with reason goto, about the thread of the moment, and
// going forward and back work from there as usual. A trap moment is the
// thread about to run the instruction (the write, the line) the answer
// named.
func (s *Session) Travel(m Moment) error {
	defer s.quiet()() // (catchup.go)
	if err := s.checkTravel(0, false); err != nil {
		return err
	}
	mo, err := s.decodeMoment(m)
	if err != nil {
		return err
	}
	info := StopInfo{Reason: ReasonGoto, Description: "Travelled to " + s.describeMoment(mo)}
	if mo.isStart() {
		info.Description = "Travelled to the start of the recording"
	}
	return s.travelTo(mo, info)
}

// momentPlace is where a moment is, as the answers show it.
type momentPlace struct {
	Func string
	File string
	Line int
}

// place returns where the top frame of a moment at fn, pc is.
func place(fn *vm.Funcode, pc int32) momentPlace {
	if fn == nil {
		return momentPlace{}
	}
	line, _ := fn.Pos(pc)
	return momentPlace{Func: fn.Name, File: fn.File, Line: int(line)}
}

// shortPlace renders a place as "file.n:12 in f".
func (p momentPlace) String() string {
	if p.File == "" {
		return p.Func
	}
	return fmt.Sprintf("%s:%d in %s", filepath.Base(p.File), p.Line, p.Func)
}

// checkPast checks that the session can answer questions about its past
// now: it records, it is stopped, and the way back is open.
func (s *Session) checkPast() error {
	if s.tt == nil {
		return ErrNoRecording
	}
	if s.tt.stopped != "" {
		return errors.New("the past is no longer available: " + s.tt.stopped)
	}
	if err := s.checkStopped(); err != nil {
		return err
	}
	if s.tt.sets > 0 {
		return ErrAfterSet
	}
	return nil
}
