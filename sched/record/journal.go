package record

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// A Journal is the recording of a debug session, kept in memory: it
// replays what the timeline already holds, then records from its end
// (the frontier) on. A session starts with an empty journal (it only
// records); to go back, the debugger re-executes the program from the
// start with a journal resumed from the log so far (ResumeJournal): the
// past is replayed exactly — the same input, clock readings and file
// results, with its output checked but not shown again — and whatever
// runs past the frontier is new, shown and recorded.
//
// If the replayed part diverges (the debugger changed a variable in the
// past), the journal forks: the rest of the old log is dropped and the
// journal records a new future from there (Forked says why).
//
// A Journal is the run's vm.Outside, sched.Recorder and clock. Like a
// Recorder's, its log is written by the one carrier or while it is
// stopped.
type Journal struct {
	rp     *Replayer // nil past the frontier
	rc     *Recorder // holds the whole log: header, replayed events, new ones
	hdrLen int       // the header's bytes at the start of rc.e.buf
	forked string
	// outs counts the writes to stdout and stderr so far; the first
	// shown were shown by an earlier run of the session and are not
	// written again (re-execution is deterministic: the nth write is the
	// same write).
	outs, shown int
}

// NewJournal returns an empty journal of the run hdr describes.
func NewJournal(hdr Header) *Journal {
	rc := NewRecorder(hdr)
	rc.mem = true
	return &Journal{rc: rc}
}

// ResumeJournal returns a journal that replays log (a Journal's Log) and
// records on from its end. The first shown writes to stdout and stderr
// are not written again (see Shown; 0 shows everything).
func ResumeJournal(log []byte, shown int) (*Journal, error) {
	rec, hdrLen, err := parsePartial(log)
	if err != nil {
		return nil, err
	}
	rc := NewRecorder(rec.Header)
	rc.mem = true
	rc.e.buf = append([]byte(nil), log...)
	return &Journal{rp: NewReplayer(rec), rc: rc, hdrLen: hdrLen, shown: shown}, nil
}

// parsePartial reads a log without an end event (a Journal's).
func parsePartial(log []byte) (*Recording, int, error) {
	var e encoder
	e.byte(evEnd)
	e.varint(0)
	data := append(append([]byte(nil), log...), e.buf...)
	rec, err := Parse(binary.LittleEndian.AppendUint32(data, crc32.ChecksumIEEE(data)))
	if err != nil {
		return nil, 0, err
	}
	return rec, len(log) - len(rec.events), nil
}

// Shown returns how many writes to stdout and stderr have been shown.
// Give it to ResumeJournal to go back without showing them again.
func (j *Journal) Shown() int { return max(j.outs, j.shown) }

// Offset returns the current moment's offset in the events.
func (j *Journal) Offset() int {
	if rp := j.rp; rp != nil {
		rp.mu.Lock()
		defer rp.mu.Unlock()
		return rp.d.off
	}
	return len(j.rc.e.buf) - j.hdrLen
}

// Header returns the journal's header.
func (j *Journal) Header() Header { return j.rc.hdr }

// Log returns a copy of the log so far (header and events, no end): what
// ResumeJournal takes.
func (j *Journal) Log() []byte { return append([]byte(nil), j.rc.e.buf...) }

// Stop ends the recording for good and frees the log: the run goes on
// live (output written, inputs read) and nothing more is logged. A
// journal that is replaying is not stopped (it reports false).
func (j *Journal) Stop() bool {
	if j.live() != nil {
		return false
	}
	j.rc.done = true
	j.rc.e.buf = nil
	return true
}

// HeaderSize returns the size of the log's header in bytes.
func (j *Journal) HeaderSize() int { return j.hdrLen }

// Size returns the size of the log in bytes.
func (j *Journal) Size() int { return len(j.rc.e.buf) }

// Replaying reports whether the journal is still replaying its log (the
// session is in the past of its timeline).
func (j *Journal) Replaying() bool { return j.live() != nil }

// Forked returns why the journal dropped the rest of its log ("" if it
// did not).
func (j *Journal) Forked() string { return j.forked }

// Fork drops what the log holds past the current moment: the future is
// recorded anew from here. why is said by Forked.
func (j *Journal) Fork(why string) {
	if j.rp == nil {
		return
	}
	j.switchAt(j.rp.d.off)
	j.forked = why
	j.shown = min(j.shown, j.outs) // a new future: its writes were never shown
}

// Position returns how far the replay has come (events, quanta) while
// the journal replays; 0, 0 once it records.
func (j *Journal) Position() (events int, dispatches int64) {
	if j.rp != nil {
		return j.rp.Position()
	}
	return 0, 0
}

// Start installs the journal in m and s (one carrier).
func (j *Journal) Start(m *vm.Machine, s *sched.Scheduler) error {
	if s.NumCarriers() > 1 {
		return ErrCarriers
	}
	rc := j.rc
	rc.mu.Lock()
	rc.s = s
	rc.mu.Unlock()
	if j.rp == nil && len(rc.e.buf) == 0 {
		rc.hdr.InputDirect = m.InputDirect()
		rc.e.header(&rc.hdr)
		j.hdrLen = len(rc.e.buf)
	}
	rc.prog = m.Prog
	m.SetOutside(j, rc.hdr.InputDirect)
	s.SetRecorder(j)
	if rp := j.rp; rp != nil {
		rp.mu.Lock()
		rp.prog = m.Prog
		rp.startHolds(m) // hold.go
		rp.mu.Unlock()
	}
	if rc.hdr.Scheduled {
		return s.SetStrategy(journalStrategy{j}) // schedule.go
	}
	return nil
}

// live returns the replayer while it has events to replay; at the
// frontier, or after a divergence, it switches to recording and returns
// nil.
func (j *Journal) live() *Replayer {
	rp := j.rp
	if rp == nil {
		return nil
	}
	rp.mu.Lock()
	div, off, end := rp.div, rp.divOff, rp.d.off >= len(rp.d.p)
	rp.mu.Unlock()
	switch {
	case div != nil:
		j.switchAt(off)
		j.forked = fmt.Sprintf("the re-execution differs from the recording (%v)", div)
		j.shown = min(j.shown, j.outs) // a new future: its writes were never shown
		return nil
	case end:
		j.switchAt(off)
		return nil
	}
	return rp
}

// switchAt stops replaying: the log keeps the events before offset off
// of the replayed events, and the recorder goes on from there.
func (j *Journal) switchAt(off int) {
	rp := j.rp
	if rp.div == nil {
		off = rp.d.off
	}
	j.rc.e.buf = j.rc.e.buf[:j.hdrLen+off]
	j.rc.last = rp.now
	j.rc.offset = rp.now - j.rc.inner.Now()
	j.rc.traps = rp.traps
	rp.unpinHolds()
	j.rp = nil
}

// Fill implements vm.Outside.
func (j *Journal) Fill(read func() ([]byte, error)) ([]byte, error) {
	if rp := j.live(); rp != nil {
		return rp.Fill(read)
	}
	return j.rc.Fill(read)
}

// PostInput implements vm.Outside.
func (j *Journal) PostInput(chunk []byte, err error) { j.rc.PostInput(chunk, err) }

// Call implements vm.Outside.
func (j *Journal) Call(t *vm.Thread, name string, do func() (vm.Value, error)) (vm.Value, error) {
	if rp := j.live(); rp != nil {
		v, err := rp.Call(t, name, do)
		if j.live() != nil || rp.Divergence() == nil {
			return v, err
		}
		// diverged at this call: do it for real (the future is new)
	}
	return j.rc.Call(t, name, do)
}

// BeforeDispatch implements sched.Recorder.
func (j *Journal) BeforeDispatch() []sched.InputChunk {
	if rp := j.live(); rp != nil {
		return rp.BeforeDispatch()
	}
	return j.rc.BeforeDispatch()
}

// AfterDispatch implements sched.Recorder. A journal never ends the
// program: a divergence forks it.
func (j *Journal) AfterDispatch(t *vm.Thread, stop vm.Stop, reductions int) bool {
	if rp := j.live(); rp != nil {
		rp.AfterDispatch(t, stop, reductions)
		j.live()
		return true
	}
	return j.rc.AfterDispatch(t, stop, reductions)
}

// Held implements sched.HoldRecorder: a hold or release is replayed
// (checked) while the journal replays, and logged past the frontier or
// after a divergence (a hold the recorded run did not have forks the
// journal).
func (j *Journal) Held(t *vm.Thread, on, atTrap bool) {
	if rp := j.live(); rp != nil {
		rp.Held(t, on, atTrap)
		if j.live() != nil || rp.Divergence() == nil {
			return
		}
	}
	j.rc.Held(t, on, atTrap)
}

// DueHolds implements sched.HoldRecorder.
func (j *Journal) DueHolds() []sched.HoldChange {
	if rp := j.live(); rp != nil {
		return rp.DueHolds()
	}
	return nil
}

// Stalled implements sched.Recorder: the journal waits for real input.
func (j *Journal) Stalled(timers bool) bool {
	if rp := j.live(); rp != nil {
		rp.Stalled(timers)
		j.live()
	}
	return false
}

// Clock returns the journal's clock.
func (j *Journal) Clock() sched.Clock { return journalClock{j} }

type journalClock struct{ j *Journal }

func (c journalClock) Now() time.Duration {
	if rp := c.j.live(); rp != nil {
		return rp.readClock()
	}
	return c.j.rc.now()
}

func (c journalClock) Peek() time.Duration {
	if rp := c.j.rp; rp != nil {
		return repClock{rp}.Peek()
	}
	return recClock{c.j.rc}.Peek()
}

func (c journalClock) Sleep(d time.Duration, wake <-chan struct{}) {
	if c.j.live() == nil {
		c.j.rc.inner.Sleep(d, wake)
	}
}

// Stdout returns w wrapped: replayed writes are checked and not written
// again (they were shown when they first happened); new ones are logged
// and written.
func (j *Journal) Stdout(w io.Writer) io.Writer { return &journalWriter{j: j, stream: 1, w: w} }

// Stderr is Stdout for the error stream.
func (j *Journal) Stderr(w io.Writer) io.Writer { return &journalWriter{j: j, stream: 2, w: w} }

type journalWriter struct {
	j      *Journal
	stream byte
	w      io.Writer
}

func (w *journalWriter) Write(b []byte) (int, error) {
	j := w.j
	out := w.w
	if j.outs < j.shown {
		out = nil // shown before the session went back
	}
	j.outs++
	if rp := j.live(); rp != nil {
		(&checkWriter{p: rp, stream: w.stream, w: out}).Write(b)
		if j.live() != nil || rp.Divergence() == nil {
			return len(b), nil
		}
		out = w.w // it differs from the recording: a new write
	}
	return (&recWriter{r: j.rc, stream: w.stream, w: out}).Write(b)
}

// ResumeJournalAt is ResumeJournal for a run that starts at offset off of
// the events rather than at the start: a copy of the execution at that
// moment (a sched.Snapshot taken at the end of a quantum, when the
// journal's Offset was off) goes on from there. The events before off are
// taken as done: their clock readings add up to the time of that moment,
// and their writes count as made (and shown, if shown says so).
func ResumeJournalAt(log []byte, shown, off int) (*Journal, error) {
	j, err := ResumeJournal(log, shown)
	if err != nil {
		return nil, err
	}
	outs, err := j.rp.seek(off)
	if err != nil {
		return nil, err
	}
	j.outs = outs
	return j, nil
}

// seek consumes the events before offset off without acting on them, as
// if they had been replayed, and returns how many writes they hold.
func (p *Replayer) seek(off int) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if off < 0 || off > len(p.d.p) {
		return 0, fmt.Errorf("offset %d is outside the recording's %d bytes of events", off, len(p.d.p))
	}
	outs := 0
	for p.d.off < off && p.d.err == nil {
		d := decoder{p: p.d.p, off: p.d.off}
		switch d.p[d.off] {
		case evDispatch:
			p.dispatch++
		case evNow:
			d.off++
			p.now += time.Duration(d.varint())
			d.off = p.d.off
		case evOut:
			outs++
		}
		skipEvent(&d)
		if d.err != nil {
			return 0, d.err
		}
		p.d.off = d.off
		p.n++
	}
	if p.d.off != off {
		return 0, fmt.Errorf("offset %d is not at an event of the recording", off)
	}
	return outs, nil
}
