package record

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// flushAt is the size at which a Recorder writes its buffer out.
const flushAt = 64 << 10

// ErrCarriers is returned by Start for a scheduler with several carriers.
var ErrCarriers = errors.New("recording needs one carrier (--carriers 1): with several, the interleaving is not a function of the logged inputs")

// A Recorder records a run: it is the run's vm.Outside, sched.Recorder
// and clock, and wraps its output. Make one with NewRecorder, build the
// machine and the scheduler with its Stdout, Stderr and Clock, then call
// Start before the first dispatch and Finish with the exit code.
type Recorder struct {
	hdr   Header
	inner sched.Clock

	// The events are logged by the carrier (there is one), or while it
	// is stopped (a debugger's Dispatch, a scratch thread), always after
	// taking the scheduler's lock or inside a dispatch: the log needs no
	// lock of its own.
	w     io.Writer
	e     encoder
	crc   uint32
	last  time.Duration // the last clock reading logged
	err   error         // the first write error
	done  bool
	traps trapSplits
	mem   bool // keep the whole log in e.buf (a Journal's)
	// offset is added to the wall clock's readings: a journal that goes
	// on past the end of what it replayed starts at the replayed time.
	offset time.Duration

	// prog is the program recorded, fns the index of its functions (hold
	// events name a function by it).
	prog *vm.Program
	fns  map[*vm.Funcode]int

	mu      sync.Mutex // guards pending and s: the input's reader posts
	pending []sched.InputChunk
	s       *sched.Scheduler
	posted  atomic.Bool // pending is not empty
}

// NewRecorder returns a recorder of a run described by hdr (its Hash,
// Path, Source and options; InputDirect is filled in by Start).
func NewRecorder(hdr Header) *Recorder {
	return &Recorder{hdr: hdr, inner: sched.WallClock()}
}

// Stdout returns w wrapped so that every write is logged.
func (r *Recorder) Stdout(w io.Writer) io.Writer { return &recWriter{r: r, stream: 1, w: w} }

// Stderr returns w wrapped so that every write is logged.
func (r *Recorder) Stderr(w io.Writer) io.Writer { return &recWriter{r: r, stream: 2, w: w} }

// Clock returns the clock the scheduler must use: the wall clock, each of
// whose readings is logged.
func (r *Recorder) Clock() sched.Clock { return recClock{r} }

// Start writes the header to w and installs the recorder in m and s. s
// must have one carrier (else ErrCarriers).
func (r *Recorder) Start(w io.Writer, m *vm.Machine, s *sched.Scheduler) error {
	if s.NumCarriers() > 1 {
		return ErrCarriers
	}
	r.mu.Lock()
	r.s = s
	r.mu.Unlock()
	r.w = w
	r.prog = m.Prog
	r.hdr.InputDirect = m.InputDirect()
	r.e.header(&r.hdr)
	m.SetOutside(r, false)
	s.SetRecorder(r)
	return nil
}

// MarkCore logs the moment of a dump (see Core); Finish must follow.
func (r *Recorder) MarkCore(c *Core) {
	if !r.done {
		r.e.core(c)
	}
}

// Finish logs the end of the run with its exit code, writes out what is
// left and returns the first write error.
func (r *Recorder) Finish(code int) error {
	if r.done {
		return r.err
	}
	r.done = true
	r.e.byte(evEnd)
	r.e.varint(int64(code))
	r.flush()
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], r.crc)
	if r.err == nil && r.w != nil {
		_, r.err = r.w.Write(sum[:])
	}
	return r.err
}

// flush writes the buffer out.
func (r *Recorder) flush() {
	if len(r.e.buf) == 0 {
		return
	}
	r.crc = crc32.Update(r.crc, crc32.IEEETable, r.e.buf)
	if r.err == nil && r.w != nil {
		_, r.err = r.w.Write(r.e.buf)
	}
	r.e.buf = r.e.buf[:0]
}

// logged ends the logging of an event.
func (r *Recorder) logged() {
	if len(r.e.buf) >= flushAt && !r.mem {
		r.flush()
	}
}

// Replaying implements vm.Outside: a recorder does the real thing.
func (r *Recorder) Replaying() bool { return false }

// Fill implements vm.Outside.
func (r *Recorder) Fill(read func() ([]byte, error)) ([]byte, error) {
	data, err := read()
	if !r.done {
		r.e.byte(evFill)
		r.e.end(err)
		r.e.bytes(data)
		r.logged()
	}
	return data, err
}

// PostInput implements vm.Outside: the chunk arrives at the scheduler's
// next dispatch (BeforeDispatch), which the scheduler is told to start.
func (r *Recorder) PostInput(chunk []byte, err error) {
	r.mu.Lock()
	r.pending = append(r.pending, sched.InputChunk{Data: chunk, Err: err})
	r.posted.Store(true)
	s := r.s
	r.mu.Unlock()
	if s != nil {
		s.InputPosted()
	}
}

// Call implements vm.Outside.
func (r *Recorder) Call(t *vm.Thread, name string, do func() (vm.Value, error)) (vm.Value, error) {
	v, err := do()
	if !r.done {
		r.e.byte(evCall)
		r.e.string(name)
		r.e.result(v, err)
		r.logged()
	}
	return v, err
}

// BeforeDispatch implements sched.Recorder: the input posted since the
// last dispatch arrives now.
func (r *Recorder) BeforeDispatch() []sched.InputChunk {
	if !r.posted.Load() {
		return nil
	}
	r.mu.Lock()
	in := r.pending
	r.pending = nil
	r.posted.Store(false)
	r.mu.Unlock()
	if len(in) == 0 {
		return nil
	}
	if !r.done {
		for _, c := range in {
			r.e.byte(evInput)
			r.e.end(c.Err)
			r.e.bytes(c.Data)
		}
		r.logged()
	}
	return in
}

// AfterDispatch implements sched.Recorder.
func (r *Recorder) AfterDispatch(t *vm.Thread, stop vm.Stop, reductions int) bool {
	reductions, ok := r.traps.merge(t, stop, reductions)
	if ok && !r.done {
		r.e.byte(evDispatch)
		r.e.uvarint(uint64(t.ID))
		r.e.byte(byte(stop))
		r.e.uvarint(uint64(max(0, reductions)))
		r.logged()
	}
	return true
}

// Stalled implements sched.Recorder: a recorded run waits for its input.
func (r *Recorder) Stalled(bool) bool { return false }

// now logs a clock reading.
func (r *Recorder) now() time.Duration {
	v := r.inner.Now() + r.offset
	if !r.done {
		r.e.byte(evNow)
		r.e.varint(int64(v - r.last))
		r.last = v
		r.logged()
	}
	return v
}

// recClock is the wall clock with its readings logged.
type recClock struct{ r *Recorder }

func (c recClock) Now() time.Duration { return c.r.now() }

// Peek reads the clock without logging (for the debugger's views).
func (c recClock) Peek() time.Duration { return c.r.inner.Now() + c.r.offset }

func (c recClock) Sleep(d time.Duration, wake <-chan struct{}) { c.r.inner.Sleep(d, wake) }

// recWriter logs the writes to one output stream.
type recWriter struct {
	r      *Recorder
	stream byte
	w      io.Writer
}

func (w *recWriter) Write(p []byte) (int, error) {
	r := w.r
	if !r.done {
		r.e.byte(evOut)
		r.e.byte(w.stream)
		r.e.bytes(p)
		r.logged()
	}
	if w.w == nil {
		return len(p), nil
	}
	return w.w.Write(p)
}

// trapSplits merges the quanta that stops at debugger traps cut in two:
// the thread goes on with the rest of its quantum (see sched), so a
// quantum is logged once, when it really ends, with all its reductions,
// whether or not a debugger stopped it on the way.
type trapSplits map[int64]int

// merge returns the reductions of the quantum of t that stop ends, and
// false if stop is a trap (the quantum goes on).
func (m *trapSplits) merge(t *vm.Thread, stop vm.Stop, reductions int) (int, bool) {
	if stop == vm.StopTrap {
		if *m == nil {
			*m = trapSplits{}
		}
		(*m)[t.ID] += max(0, reductions)
		return 0, false
	}
	if n, ok := (*m)[t.ID]; ok {
		reductions += n
		delete(*m, t.ID)
	}
	return reductions, true
}

// To returns r as the sched.Tap of a run (sched.RunConfig.Tap) that
// writes the recording to w.
func (r *Recorder) To(w io.Writer) sched.Tap { return recTap{r, w} }

// recTap is a Recorder with the writer of its recording.
type recTap struct {
	*Recorder
	w io.Writer
}

func (t recTap) Start(m *vm.Machine, s *sched.Scheduler) error { return t.Recorder.Start(t.w, m, s) }
