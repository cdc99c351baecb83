package record

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// A Divergence is the first place where a replay did not do what the
// recorded run did.
type Divergence struct {
	// Event is the index of the recorded event that differs (0-based);
	// Dispatch the number of quanta replayed before it.
	Event    int
	Dispatch int64
	// Want describes the recorded event, Got what the replay did.
	Want, Got string
	// MaxSteps, if not 0, says that the replay did not diverge but was
	// stopped there: it had run more reductions than its step cap
	// (Replayer.SetMaxSteps), MaxSteps.
	MaxSteps int64
}

func (d *Divergence) Error() string {
	if d.MaxSteps > 0 {
		return fmt.Sprintf("replay stopped at event %d (after %d dispatches): more than %d reductions (the step cap; the recording goes on with %s)",
			d.Event, d.Dispatch, d.MaxSteps, d.Want)
	}
	return fmt.Sprintf("replay diverged at event %d (after %d dispatches): recorded %s, replay %s",
		d.Event, d.Dispatch, d.Want, d.Got)
}

// A Replayer re-executes a recording: it is the run's vm.Outside,
// sched.Recorder and clock, and checks its output. Make one with
// NewReplayer, build the machine and the scheduler with its Stdout,
// Stderr and Clock and the recording's options, call Start before the
// first dispatch and Finish with the exit code.
type Replayer struct {
	rec *Recording

	mu       sync.Mutex // guards everything below
	d        decoder
	n        int   // events consumed
	dispatch int64 // quanta replayed
	now      time.Duration
	div      *Divergence
	divOff   int // where in the events the divergence is
	traps    trapSplits
	steps    int64 // reductions replayed
	maxSteps int64 // the step cap (0: none)
	// The recorded holds at traps ahead (hold.go), the program and the
	// index of its functions.
	holds *holdState
	prog  *vm.Program
	fns   map[*vm.Funcode]int
}

// SetMaxSteps caps the reductions the replay runs: at the end of the
// first quantum that takes it past n, the program ends (exit code 1) and
// Finish returns a Divergence whose MaxSteps is n. A quantum is at most
// the recording's quota (sched.MaxQuota), so a recording cannot make a
// replay run for ever; n <= 0 removes the cap.
func (p *Replayer) SetMaxSteps(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.maxSteps = max(0, n)
}

// NewReplayer returns a replayer of rec.
func NewReplayer(rec *Recording) *Replayer {
	return &Replayer{rec: rec, d: decoder{p: rec.events}}
}

// Stdout returns w wrapped so that every write is checked against the
// recording (and written to w if it matches).
func (p *Replayer) Stdout(w io.Writer) io.Writer { return &checkWriter{p: p, stream: 1, w: w} }

// Stderr is Stdout for the error stream.
func (p *Replayer) Stderr(w io.Writer) io.Writer { return &checkWriter{p: p, stream: 2, w: w} }

// Clock returns the replay's clock: it reads the recorded readings back
// and never sleeps.
func (p *Replayer) Clock() sched.Clock { return repClock{p} }

// Start installs the replayer in m and s.
func (p *Replayer) Start(m *vm.Machine, s *sched.Scheduler) error {
	if s.NumCarriers() > 1 {
		return ErrCarriers
	}
	m.SetOutside(p, p.rec.Header.InputDirect)
	s.SetRecorder(p)
	if p.rec.Header.Shared {
		sharedPoints(m) // schedule.go
	}
	p.mu.Lock()
	p.prog = m.Prog
	p.startHolds(m) // hold.go
	p.mu.Unlock()
	if p.rec.Header.Scheduled {
		return s.SetStrategy(p) // schedule.go
	}
	return nil
}

// Finish checks the end of the replay: the exit code and that no recorded
// event is left. It returns the first divergence, if any.
func (p *Replayer) Finish(code int) *Divergence {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unpinHoldsLocked()
	if p.div == nil {
		if p.d.off < len(p.d.p) {
			p.diverge(p.describeNext(), "ended (exit code "+strconv.Itoa(code)+")")
		} else if code != p.rec.ExitCode {
			p.diverge(fmt.Sprintf("the end with exit code %d", p.rec.ExitCode), fmt.Sprintf("exit code %d", code))
		}
	}
	return p.div
}

// Divergence returns the first divergence so far, or nil.
func (p *Replayer) Divergence() *Divergence {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.div
}

// Position returns the number of events consumed and of quanta replayed.
func (p *Replayer) Position() (events int, dispatches int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n, p.dispatch
}

// diverge records the first divergence. Must hold p.mu.
func (p *Replayer) diverge(want, got string) {
	if p.div == nil {
		p.div = &Divergence{Event: p.n, Dispatch: p.dispatch, Want: want, Got: got}
		p.divOff = p.d.off
		p.unpinHoldsLocked() // (hold.go)
	}
}

// peek returns the kind of the next event, or 0 at the end. Must hold p.mu.
func (p *Replayer) peek() byte {
	if p.div != nil || p.d.off >= len(p.d.p) {
		return 0
	}
	return p.d.p[p.d.off]
}

// take consumes the next event if it is of kind k and reports whether it
// was; otherwise it records a divergence (got describes what the replay
// did). Must hold p.mu.
func (p *Replayer) take(k byte, got string) bool {
	if p.div != nil {
		return false
	}
	if p.peek() != k {
		p.diverge(p.describeNext(), got)
		return false
	}
	p.d.off++
	p.n++
	return true
}

// describeNext describes the next recorded event. Must hold p.mu.
func (p *Replayer) describeNext() string {
	if p.d.off >= len(p.d.p) {
		return "the end of the run"
	}
	d := decoder{p: p.d.p, off: p.d.off}
	switch d.byte() {
	case evDispatch:
		id, stop, red := d.uvarint(), vm.Stop(d.byte()), d.uvarint()
		return describeDispatch(int64(id), stop, int(red))
	case evNow:
		return "a clock reading"
	case evInput:
		d.end()
		return fmt.Sprintf("input arriving (%d bytes)", len(d.bytes()))
	case evFill:
		d.end()
		return fmt.Sprintf("a read of standard input (%d bytes)", len(d.bytes()))
	case evCall:
		return "a call of " + d.string()
	case evOut:
		stream := d.byte()
		return describeOut(stream, d.bytes())
	case evHold:
		return d.hold().String()
	}
	return "a corrupt event"
}

func describeDispatch(id int64, stop vm.Stop, reductions int) string {
	return fmt.Sprintf("a quantum of thread %d ending in %s after %d reductions", id, stop, reductions)
}

func describeOut(stream byte, data []byte) string {
	name := "stdout"
	if stream == 2 {
		name = "stderr"
	}
	const max = 60
	s := string(data)
	if len(s) > max {
		s = s[:max] + "…"
	}
	return fmt.Sprintf("a write to %s %s", name, strconv.Quote(s))
}

// Replaying implements vm.Outside.
func (p *Replayer) Replaying() bool { return true }

// Fill implements vm.Outside: the next recorded read of the input.
func (p *Replayer) Fill(func() ([]byte, error)) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.take(evFill, "a read of standard input") {
		return nil, io.EOF
	}
	err := p.d.end()
	return append([]byte(nil), p.d.bytes()...), err
}

// PostInput implements vm.Outside; a replay has no reader goroutine.
func (p *Replayer) PostInput([]byte, error) {}

// Call implements vm.Outside: the recorded result, without calling do.
func (p *Replayer) Call(t *vm.Thread, name string, do func() (vm.Value, error)) (vm.Value, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	got := "a call of " + name
	if p.div == nil && p.peek() == evCall {
		d := decoder{p: p.d.p, off: p.d.off + 1}
		if d.string() != name {
			p.diverge(p.describeNext(), got)
		}
	}
	if !p.take(evCall, got) {
		return vm.Value{}, vm.Throwf("IOException", "%s: the replay diverged from the recording", name)
	}
	p.d.string()
	return p.d.result()
}

// BeforeDispatch implements sched.Recorder: the recorded input arriving
// at this moment.
func (p *Replayer) BeforeDispatch() []sched.InputChunk {
	p.mu.Lock()
	defer p.mu.Unlock()
	var in []sched.InputChunk
	for p.peek() == evInput {
		p.take(evInput, "")
		err := p.d.end()
		in = append(in, sched.InputChunk{Data: append([]byte(nil), p.d.bytes()...), Err: err})
	}
	return in
}

// AfterDispatch implements sched.Recorder: the quantum must be the
// recorded one; on a divergence the program ends.
func (p *Replayer) AfterDispatch(t *vm.Thread, stop vm.Stop, reductions int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	reductions, ended := p.traps.merge(t, stop, reductions)
	if !ended {
		return p.div == nil
	}
	p.steps += int64(max(0, reductions))
	if p.maxSteps > 0 && p.steps > p.maxSteps && p.div == nil {
		// past the cap (a replayed schedule's quantum is cut there): the
		// replay stops, whatever this quantum was
		p.diverge(p.describeNext(), "")
		p.div.MaxSteps = p.maxSteps
	}
	got := describeDispatch(t.ID, stop, reductions)
	at := p.d.off
	if p.take(evDispatch, got) {
		id, st, red := p.d.uvarint(), vm.Stop(p.d.byte()), p.d.uvarint()
		if int64(id) != t.ID || st != stop || int(red) != max(0, reductions) {
			p.n--
			p.d.off = at
			p.diverge(describeDispatch(int64(id), st, int(red)), got)
		}
	}
	p.dispatch++
	return p.div == nil
}

// Stalled implements sched.Recorder: a replay in which nothing can run
// goes on only if a timer is pending and the next recorded event is a
// clock reading (the next dispatch reads it, and the timer fires if it is
// due); otherwise it waits for input or time that the recording does not
// hold at this point, and has diverged.
func (p *Replayer) Stalled(timers bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if timers && p.peek() == evNow {
		return false
	}
	got := "waits for input"
	if timers {
		got = "waits for a timer"
	}
	p.diverge(p.describeNext(), got)
	return true
}

// readClock returns the next recorded clock reading.
func (p *Replayer) readClock() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.take(evNow, "a clock reading") {
		p.now += time.Duration(p.d.varint())
	}
	return p.now
}

// repClock is the replay's clock.
type repClock struct{ p *Replayer }

func (c repClock) Now() time.Duration { return c.p.readClock() }

// Peek reads the replayed time without consuming a reading.
func (c repClock) Peek() time.Duration {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	return c.p.now
}

func (c repClock) Sleep(time.Duration, <-chan struct{}) {}

// checkWriter checks the writes to one output stream.
type checkWriter struct {
	p      *Replayer
	stream byte
	w      io.Writer
}

func (w *checkWriter) Write(b []byte) (int, error) {
	p := w.p
	p.mu.Lock()
	got := describeOut(w.stream, b)
	ok := false
	if p.div == nil && p.peek() == evOut {
		d := decoder{p: p.d.p, off: p.d.off + 1}
		stream, data := d.byte(), d.bytes()
		if stream != w.stream || !bytes.Equal(data, b) {
			p.diverge(p.describeNext(), got)
		}
	}
	if p.take(evOut, got) {
		p.d.byte()
		p.d.bytes()
		ok = true
	}
	p.mu.Unlock()
	if !ok || w.w == nil {
		return len(b), nil
	}
	return w.w.Write(b)
}
