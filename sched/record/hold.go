package record

import (
	"fmt"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// This file records and replays the holds of a non-stop debug session
// (sched's hold.go): the debugger held a thread where it stopped while
// the others ran on, and released it later. Both change the schedule, so
// they are inputs: a hold event says which thread, and for a hold at a
// trap exactly where it was (its reductions, depth, function and pc: a
// moment of the run), so that a replay cuts the thread's quantum at the
// same instruction; holds and releases at a dispatch boundary are
// replayed at the start of the same dispatch.

// Kinds of a hold event.
const (
	holdRelease = 0 // the thread was released
	holdAt      = 1 // held at the start of a dispatch
	holdTrap    = 2 // held at a trap, then: reductions, depth, function, pc
	holdThrow   = 3 // held at a throw (the top frame's function and pc)
)

// holdPoint is where a recorded hold at a trap or a throw stopped its
// thread.
type holdPoint struct {
	red   int64
	depth int
	fn    *vm.Funcode
	pc    int32
	throw bool
}

// hold appends a hold event for t (on: a hold; atTrap: where t is
// stopped), with fi the index of t's top function.
func (e *encoder) hold(t *vm.Thread, on, atTrap bool, fi func(*vm.Funcode) int) {
	e.byte(evHold)
	e.uvarint(uint64(t.ID))
	switch {
	case !on:
		e.byte(holdRelease)
	case !atTrap || t.Depth() == 0:
		e.byte(holdAt)
	default:
		kind := byte(holdTrap)
		if t.PendingThrow() {
			kind = holdThrow
		}
		f := t.Frame(0)
		e.byte(kind)
		e.uvarint(uint64(max(0, t.Reductions())))
		e.uvarint(uint64(t.Depth()))
		e.uvarint(uint64(max(0, fi(f.Fn))))
		e.uvarint(uint64(max(0, f.PC)))
	}
}

// holdEvent is a hold event read back.
type holdEvent struct {
	id    int64
	kind  byte
	red   int64
	depth int
	fn    int
	pc    int32
}

// hold reads a hold event's fields (after its kind).
func (d *decoder) hold() holdEvent {
	h := holdEvent{id: int64(d.uvarint()), kind: d.byte()}
	switch h.kind {
	case holdRelease, holdAt:
	case holdTrap, holdThrow:
		h.red, h.depth, h.fn, h.pc = int64(d.uvarint()), int(d.uvarint()), int(d.uvarint()), int32(d.uvarint())
	default:
		d.fail("bad hold kind %d", h.kind)
	}
	return h
}

func (h holdEvent) String() string {
	switch h.kind {
	case holdRelease:
		return fmt.Sprintf("a release of thread %d", h.id)
	case holdAt:
		return fmt.Sprintf("a hold of thread %d", h.id)
	case holdThrow:
		return fmt.Sprintf("a hold of thread %d at a throw (pc %d of function %d, depth %d, %d reductions)", h.id, h.pc, h.fn, h.depth, h.red)
	}
	return fmt.Sprintf("a hold of thread %d at pc %d of function %d (depth %d, %d reductions)", h.id, h.pc, h.fn, h.depth, h.red)
}

// funcIndex returns the index of fn in prog's functions (-1: none), with
// the index made on first use.
func funcIndex(idx *map[*vm.Funcode]int, prog *vm.Program, fn *vm.Funcode) int {
	if *idx == nil {
		*idx = map[*vm.Funcode]int{}
		if prog != nil {
			for i, f := range prog.Funcs {
				(*idx)[f] = i
			}
		}
	}
	if i, ok := (*idx)[fn]; ok {
		return i
	}
	return -1
}

// Held implements sched.HoldRecorder: the hold or release is logged.
func (r *Recorder) Held(t *vm.Thread, on, atTrap bool) {
	if r.done {
		return
	}
	r.e.hold(t, on, atTrap, func(fn *vm.Funcode) int { return funcIndex(&r.fns, r.prog, fn) })
	r.logged()
}

// DueHolds implements sched.HoldRecorder: a recording replays none.
func (r *Recorder) DueHolds() []sched.HoldChange { return nil }

// holdState is a replay's view of the recorded holds at traps ahead: by
// thread, in order, with the traps pinned where they stop their thread.
type holdState struct {
	prog   *vm.Program
	points map[int64][]holdPoint
	pinned []holdPoint // the traps pinned (vm.Funcode.PinTrap), not unpinned yet
}

// startHolds reads the recorded holds at traps from the current event on
// and, if there are any, pins their traps and puts a hook on m that stops
// each thread there (holdHook). Must hold p.mu, before the first
// dispatch.
func (p *Replayer) startHolds(m *vm.Machine) {
	d := decoder{p: p.d.p, off: p.d.off}
	hs := &holdState{prog: m.Prog, points: map[int64][]holdPoint{}}
	for d.off < len(d.p) && d.err == nil {
		if d.p[d.off] != evHold {
			skipEvent(&d)
			continue
		}
		d.byte()
		h := d.hold()
		if d.err != nil || (h.kind != holdTrap && h.kind != holdThrow) || m.Prog == nil || h.fn >= len(m.Prog.Funcs) {
			continue
		}
		pt := holdPoint{red: h.red, depth: h.depth, fn: m.Prog.Funcs[h.fn], pc: h.pc, throw: h.kind == holdThrow}
		hs.points[h.id] = append(hs.points[h.id], pt)
		if !pt.throw && pt.fn.PinTrap(pt.pc) {
			hs.pinned = append(hs.pinned, pt)
		}
	}
	if len(hs.points) == 0 {
		return
	}
	p.holds = hs
	m.Hook = &holdHook{p: p, next: m.Hook}
}

// unpinHolds removes the traps pinned for the holds not replayed yet
// (the replay diverged or is over). Only between dispatches, or on the
// carrier.
func (p *Replayer) unpinHolds() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unpinHoldsLocked()
}

func (p *Replayer) unpinHoldsLocked() {
	if hs := p.holds; hs != nil {
		for _, pt := range hs.pinned {
			pt.fn.UnpinTrap(pt.pc)
		}
		hs.pinned = nil
		hs.points = nil
	}
}

// holdDue reports whether the recording holds t at the trap at pc of fn
// (throw: at the throw its top frame is at) it is deciding about.
func (p *Replayer) holdDue(t *vm.Thread, fn *vm.Funcode, pc int32, throw bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.holds == nil || p.div != nil {
		return false
	}
	pts := p.holds.points[t.ID]
	if len(pts) == 0 {
		return false
	}
	pt := pts[0]
	return pt.throw == throw && pt.fn == fn && pt.pc == pc && pt.depth == t.Depth() && pt.red == t.TrapReductions()
}

// Held implements sched.HoldRecorder: the hold or release must be the
// recorded one.
func (p *Replayer) Held(t *vm.Thread, on, atTrap bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var e encoder
	e.hold(t, on, atTrap, func(fn *vm.Funcode) int {
		if p.holds != nil {
			return funcIndex(&p.fns, p.holds.prog, fn)
		}
		return funcIndex(&p.fns, p.prog, fn)
	})
	got := (&decoder{p: e.buf, off: 1}).hold()
	at := p.d.off
	if !p.take(evHold, got.String()) {
		return
	}
	want := p.d.hold()
	if want != got {
		p.n--
		p.d.off = at
		p.diverge(want.String(), got.String())
		p.unpinHoldsLocked()
		return
	}
	if hs := p.holds; hs != nil && (got.kind == holdTrap || got.kind == holdThrow) {
		if pts := hs.points[got.id]; len(pts) > 0 {
			pt := pts[0]
			hs.points[got.id] = pts[1:]
			if !pt.throw {
				for i, q := range hs.pinned {
					if q == pt {
						pt.fn.UnpinTrap(pt.pc)
						hs.pinned = append(hs.pinned[:i], hs.pinned[i+1:]...)
						break
					}
				}
			}
		}
	}
}

// DueHolds implements sched.HoldRecorder: the recorded holds and releases
// at the start of this dispatch.
func (p *Replayer) DueHolds() []sched.HoldChange {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []sched.HoldChange
	for p.peek() == evHold {
		d := decoder{p: p.d.p, off: p.d.off + 1}
		h := d.hold()
		if d.err != nil || (h.kind != holdRelease && h.kind != holdAt) {
			break // a hold at a trap: the thread's trap takes it
		}
		p.take(evHold, "")
		p.d.off = d.off
		out = append(out, sched.HoldChange{ID: h.id, On: h.kind == holdAt})
	}
	return out
}

// holdHook stops a thread where the recording holds it, and holds it
// there (sched.HoldAtTrap); everything else goes to the machine's own
// hook.
type holdHook struct {
	p    *Replayer
	next vm.DebugHook
}

// Next returns the hook it wraps.
func (h *holdHook) Next() vm.DebugHook { return h.next }

func (h *holdHook) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	stop := h.next != nil && h.next.OnTrap(t, fn, pc)
	return h.hold(t, fn, pc, false, stop)
}

func (h *holdHook) OnThrow(t *vm.Thread, exc *vm.Object, caught bool) bool {
	stop := false
	if th, ok := h.next.(vm.ThrowHook); ok {
		stop = th.OnThrow(t, exc, caught)
	}
	f := t.Frame(0)
	return h.hold(t, f.Fn, f.PC, true, stop)
}

// hold holds t if the recording says so; stop is whether the machine's
// hook stops it there too (a debugger's stop of every thread: the
// scheduler pauses as well).
func (h *holdHook) hold(t *vm.Thread, fn *vm.Funcode, pc int32, throw, stop bool) bool {
	if !h.p.holdDue(t, fn, pc, throw) {
		return stop
	}
	switch {
	case !stop:
		sched.HoldAtTrap(t, false)
	case !sched.HoldsAtTrap(t):
		sched.HoldAtTrap(t, true)
	}
	return true
}
