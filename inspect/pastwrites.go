package inspect

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// Who wrote this: the latest writes to a location, found by re-executing
// the recording backwards one stretch at a time (the latest first, two
// or more side by side) until enough are found. A write is seen at its
// instruction, before it runs: the old value is what the location held
// just before (a lost update shows 3 -> 1, whatever the writer had read
// earlier), the new one what the instruction stores. A field is followed
// by its object's allocation number, an array or List element by its
// array's or List's, a local by its thread and frame: the objects of a
// re-execution are not the session's, but they are numbered alike.

// DataLocation names a location for LastWrites: a data id (from
// DataBreakpointInfo), or an expression — a local, EXPR.FIELD or
// EXPR[INDEX] — in frame Depth of thread ThreadID (0: the stopped one).
type DataLocation struct {
	DataID   string
	ThreadID int64
	Depth    int
	Expr     string
}

// Write is one write to a location: at Moment, thread ThreadID, in Func
// at File:Line, the location went from Old to New. Argument marks the
// value a parameter was called with (no instruction of its frame wrote
// it since).
type Write struct {
	Moment     Moment
	ThreadID   int64
	ThreadName string
	Func       string
	File       string
	Line       int
	Old, New   string
	Argument   bool
}

// Writes is the answer of LastWrites: the writes to Name, newest first.
// Complete says there are no others (fewer than asked were found since
// the location came to be).
type Writes struct {
	Name     string
	Writes   []Write
	Complete bool
}

// writeTarget is a location followed into re-executions.
type writeTarget struct {
	kind  watchKind
	name  string
	typ   *vm.Type
	obj   int64 // watchField: the object's allocation number
	field int32
	seq   int64 // watchElem: the array's or List's allocation number
	list  bool
	index int
	// watchLocal: the frame (thread, index from the bottom, function,
	// base) and the register, live in [lo, hi) (hi < 0: to the end)
	thread int64
	frame  int
	fn     *vm.Funcode
	base   int32
	reg    int32
	lo, hi int32
	param  bool
	// capture keeps the writer's frame with each write (Origin)
	capture bool
}

// LastWrites returns the latest count writes (at least 1) to the
// location loc before the present, newest first.
func (s *Session) LastWrites(loc DataLocation, count int) (Writes, error) {
	defer s.quiet()() // (catchup.go)
	if err := s.checkPast(); err != nil {
		return Writes{}, err
	}
	count = max(count, 1)
	tg, err := s.writeTarget(loc)
	if err != nil {
		return Writes{}, err
	}
	found, entry, complete, err := s.writesBefore(tg, s.present(), count)
	if err != nil {
		return Writes{}, err
	}
	out := Writes{Name: tg.name, Writes: []Write{}, Complete: complete}
	for i := len(found) - 1; i >= 0; i-- {
		out.Writes = append(out.Writes, s.apiWrite(found[i]))
	}
	if len(out.Writes) < count && tg.param && entry != nil {
		w := s.apiWrite(*entry)
		w.Argument = true
		out.Writes = append(out.Writes, w)
	}
	return out, nil
}

// writesBefore returns the latest count writes to tg before the moment
// end, oldest first, and for a local the first instruction of its
// frame's activation (entry); complete says there are no other writes.
func (s *Session) writesBefore(tg *writeTarget, end moment, count int) (found []rawWrite, entry *rawWrite, complete bool, err error) {
	if end.isStart() {
		return nil, nil, true, nil
	}
	if ws, err := s.recentWrites(tg, end, count); err != nil || ws != nil {
		return ws, nil, false, err
	}
	sts := s.stretches(end, nil)
	order := make([]int, len(sts))
	for i := range order {
		order[i] = len(sts) - 1 - i // the latest first
	}
	complete = true
	var later []rawWrite     // the next stretch's writes: a view into found, where its orphans are joined
	var orphan *pendingWrite // the next stretch's
	valid := func() int {
		n := 0
		for _, w := range found {
			if !w.orphan {
				n++
			}
		}
		return n
	}
	err = s.scan(sts, tg.keys(s.prog), order, func(i int) scanWatch { return &writesWatch{tg: tg, s: s} },
		func(i int, w scanWatch) bool {
			ww := w.(*writesWatch)
			writes := ww.writes
			if p := ww.pending; p != nil && orphan != nil && orphan.pc == p.pc && orphan.depth == p.depth {
				// a write that began here and ended in the next stretch
				p.w.new = orphan.w.new
				writes = append(append([]rawWrite(nil), writes...), p.w)
			}
			if ww.seen || tg.kind != watchLocal {
				orphan = ww.orphan // (a stretch where the frame did not run passes it on)
			}
			// Stores seen here that ran in a later stretch complete its
			// orphans (the first orphan of their thread and next pc).
			for _, p := range ww.stores {
				for k := range later {
					if o := &later[k]; o.orphan && o.m.thread == p.w.m.thread && o.m.pc == p.pc && o.m.depth == p.depth {
						joined := p.w
						joined.new = o.new
						if o.old != "" {
							joined.old = o.old // (a store that ran before it there)
						}
						*o = joined
						break
					}
				}
			}
			found = append(append([]rawWrite(nil), writes...), found...)
			later = found[:len(writes)]
			if ww.entry != nil {
				entry = ww.entry
			}
			if n := valid(); n >= count || ww.began {
				complete = n < count
				return false
			}
			if from := sts[i].from; from != nil && !tg.existedAt(from) {
				return false // the location came to be in this stretch
			}
			return true
		}, nil)
	found = dropOrphans(found)
	if len(found) > count {
		found = found[len(found)-count:]
	}
	return found, entry, complete, err
}

// recentWrites looks for the latest count writes to a local (or a
// register) in the last quantum of its thread before end, by one
// re-execution whose traps are patched only once the thread is that
// close (a local written in a hot loop would trap at every iteration of
// the whole stretch otherwise). It returns nil if it did not find them
// all there (the whole scan looks further).
func (s *Session) recentWrites(tg *writeTarget, end moment, count int) ([]rawWrite, error) {
	if tg.kind != watchLocal || !end.trap || end.thread != tg.thread {
		return nil, nil
	}
	sts := s.stretches(end, nil)
	st := sts[len(sts)-1]
	quota := int64(s.r.sch.Quota())
	keys := tg.keys(s.prog)
	set := map[trapKey]bool{}
	for _, k := range keys {
		set[k] = true
	}
	lo := end.red - quota
	// (the end too is patched only when near: it may be in the loop)
	arm := &armSpec{s: s, keys: append(keys, trapKey{end.fn, end.pc}), near: func(ev sched.Event) bool {
		return ev.Thread != nil && ev.Thread.ID == tg.thread && ev.Thread.Reductions() >= lo-quota
	}}
	if st.from == nil {
		arm.now = lo <= quota
	} else if t := st.from.sn.Thread(tg.thread); t == nil || t.Reductions() >= lo-quota {
		arm.now = true
	}
	ww := &writesWatch{tg: tg, s: s}
	p, err := s.startScanPassArmed(st, set, ww, arm)
	if err == nil {
		err = <-p.done
		p.r.sch.Kill(0)
		<-p.exited
	}
	arm.disarm()
	if err != nil || len(ww.writes) < count {
		return nil, err
	}
	return ww.writes[len(ww.writes)-count:], nil
}

// dropOrphans removes the stores whose start was not found (they began
// before the stretches re-executed).
func dropOrphans(ws []rawWrite) []rawWrite {
	out := ws[:0]
	for _, w := range ws {
		if !w.orphan {
			out = append(out, w)
		}
	}
	return out
}

// rawWrite is a write seen by a pass.
type rawWrite struct {
	m        moment
	name     string
	old, new string
	// with writeTarget.capture: the writer's frame at the write (its
	// base and registers), and for an activation's entry its caller
	fr     *frameAt
	caller *frameAt
	// orphan: a store that ran in this stretch but was seen at its
	// instruction in an earlier one (m names its next instruction; old is
	// what the last store before it in this stretch left, "" if none)
	orphan bool
}

// frameAt is a frame at a moment, as a pass saw it: its function, base
// and registers (the values are the pass's: read their numbers and
// scalars, not their current contents).
type frameAt struct {
	m    moment // the frame's thread at the moment (its pc: the instruction about to run)
	fn   *vm.Funcode
	base int32
	regs []vm.Value
	// stale marks registers that regs do not hold as they were at m (a
	// later moment's, for a writer found from the code)
	stale map[int32]bool
	// inexact: m names the frame (thread, depth), not a moment it
	// passes; its writes are those before until
	inexact bool
	until   *moment
}

// captureFrame returns frame d of t (0: the top) as it is now, at the
// moment m of t's top frame.
func captureFrame(t *vm.Thread, d int, m moment) *frameAt {
	f := t.Frame(d)
	regs := make([]vm.Value, f.Fn.NumRegs)
	for r := range regs {
		regs[r] = *t.Reg(f, int32(r))
	}
	fa := &frameAt{m: m, fn: f.Fn, base: f.Base, regs: regs}
	if d > 0 {
		fa.m = moment{thread: t.ID, red: m.red, depth: t.Depth() - d, fn: f.Fn, pc: t.DebugFrame(d).PC(), trap: true}
	}
	return fa
}

// apiWrite is w as LastWrites returns it.
func (s *Session) apiWrite(w rawWrite) Write {
	p := place(w.m.fn, w.m.pc)
	return Write{Moment: s.encodeMoment(w.m), ThreadID: w.m.thread, ThreadName: w.name, Func: p.Func, File: p.File,
		Line: p.Line, Old: w.old, New: w.new}
}

// writeTarget resolves loc.
func (s *Session) writeTarget(loc DataLocation) (*writeTarget, error) {
	var w *watchLoc
	if loc.DataID != "" {
		s.mu.Lock()
		if s.data != nil {
			w = s.data.locs[loc.DataID]
		}
		s.mu.Unlock()
		if w == nil {
			return nil, fmt.Errorf("unknown data id %q (ask dataBreakpointInfo)", loc.DataID)
		}
		cp := *w
		w = &cp
	} else {
		if strings.TrimSpace(loc.Expr) == "" {
			return nil, errors.New("no location: give a data id or an expression (a local, EXPR.FIELD or EXPR[INDEX])")
		}
		t, err := s.evalThread(loc.ThreadID)
		if err != nil {
			return nil, err
		}
		if w, err = s.locateExpr(t, loc.Depth, strings.TrimSpace(loc.Expr)); err != nil {
			return nil, err
		}
	}
	return targetOf(w)
}

// targetOf returns the target that follows location w into
// re-executions.
func targetOf(w *watchLoc) (*writeTarget, error) {
	tg := &writeTarget{kind: w.kind, name: w.name, typ: w.typ}
	switch w.kind {
	case watchField:
		if tg.obj = w.obj.PeekID(); tg.obj == 0 {
			return nil, fmt.Errorf("%s: the object is a struct value copied by assignment, which the recording does not number; ask about the object that holds it", w.name)
		}
		tg.field = w.field
	case watchElem:
		switch x := w.seq.(type) {
		case *vm.Array:
			tg.seq = x.PeekID()
		case *vm.List:
			tg.seq, tg.list = x.PeekID(), true
		}
		if tg.seq == 0 {
			return nil, fmt.Errorf("%s: the array or List is not numbered (made by the debugger?)", w.name)
		}
		tg.index = w.index
	case watchLocal:
		tg.thread, tg.frame, tg.fn, tg.base, tg.reg = w.t.ID, w.frame, w.fn, w.base, w.reg
		tg.lo, tg.hi = 0, -1
		d := w.t.Depth() - 1 - w.frame
		if d < 0 || d >= w.t.Depth() {
			return nil, fmt.Errorf("%s: the frame has returned", w.name)
		}
		pc := w.t.DebugFrame(d).PC()
		for _, lv := range w.fn.Locals {
			if lv.Reg == w.reg && lv.Name == w.name && (lv.IsParam || lv.StartPC <= pc && (pc < lv.EndPC || lv.EndPC < 0)) {
				tg.lo, tg.hi, tg.param = lv.StartPC, lv.EndPC, lv.IsParam
			}
		}
	}
	return tg, nil
}

// locateExpr finds the location expr names in frame depth of t: a local,
// EXPR.FIELD (of an object) or EXPR[INDEX] (of an array or List).
func (s *Session) locateExpr(t *vm.Thread, depth int, expr string) (*watchLoc, error) {
	if depth < 0 || depth >= t.Depth() {
		return nil, ErrNoFrame
	}
	// notLocation says why expr is not a location: it does not compile,
	// or it is some other expression.
	notLocation := func() error {
		if _, _, err := s.evalInFrame(t, depth, expr, false); err != nil {
			return err
		}
		return fmt.Errorf("%s is not a location: want a local, EXPR.FIELD or EXPR[INDEX]", expr)
	}
	var parent, name string
	switch {
	case strings.HasSuffix(expr, "]"):
		open := matchingBracket(expr)
		if open <= 0 {
			return nil, fmt.Errorf("%s: want a local, EXPR.FIELD or EXPR[INDEX]", expr)
		}
		parent, name = expr[:open], expr[open+1:len(expr)-1]
	case strings.Contains(expr, "."):
		i := strings.LastIndex(expr, ".")
		parent, name = expr[:i], strings.TrimSpace(expr[i+1:])
		if !isIdent(name) {
			return nil, notLocation()
		}
	default:
		if !isIdent(expr) {
			return nil, notLocation()
		}
		f := t.Frame(depth)
		this, params, locals := frameVars(t, depth)
		_ = this
		for _, lv := range append(params, locals...) {
			if lv.Name == expr {
				if f.Fn.Cont {
					return nil, errors.New("a runtime frame's registers cannot be followed")
				}
				frame := t.Depth() - 1 - depth
				return &watchLoc{kind: watchLocal, name: expr, typ: lv.Type, t: t, frame: frame, fn: f.Fn, base: f.Base, reg: lv.Reg}, nil
			}
		}
		return nil, notLocation()
	}
	pv, _, err := s.evalInFrame(t, depth, strings.TrimSpace(parent), false)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", strings.TrimSpace(parent), err)
	}
	switch x := pv.R.(type) {
	case *vm.Object:
		if strings.HasSuffix(expr, "]") {
			break
		}
		for i, fd := range x.Class.Fields {
			if fd.Name == name && i < len(x.Fields) {
				return &watchLoc{kind: watchField, name: expr, typ: fd.Type, obj: x, field: int32(i)}, nil
			}
		}
		return nil, fmt.Errorf("%s has no field %s", x.Class.Name, name)
	case *vm.Array, *vm.List:
		if !strings.HasSuffix(expr, "]") {
			break
		}
		iv, ityp, err := s.evalInFrame(t, depth, name, false)
		if err != nil {
			return nil, fmt.Errorf("index %s: %v", name, err)
		}
		if ityp == nil || !ityp.IsScalar() {
			return nil, fmt.Errorf("index %s is not an integer", name)
		}
		i := int(int64(iv.N))
		var n int
		var elem *vm.Type
		if a, ok := x.(*vm.Array); ok {
			n, elem = len(a.Data), a.Type.Elem
		} else {
			l := x.(*vm.List)
			n, elem = len(l.Data), l.Type.Elem
		}
		if i < 0 || i >= n {
			return nil, fmt.Errorf("index %d is out of range (length %d)", i, n)
		}
		return &watchLoc{kind: watchElem, name: expr, typ: elem, seq: x, index: i}, nil
	case nil:
		return nil, fmt.Errorf("%s is null", strings.TrimSpace(parent))
	}
	return nil, fmt.Errorf("%s: want a local, EXPR.FIELD (of an object) or EXPR[INDEX] (of an array or List)", expr)
}

// matchingBracket returns the index of the '[' that the final ']' of
// expr closes (-1: none).
func matchingBracket(expr string) int {
	depth := 0
	for i := len(expr) - 1; i >= 0; i-- {
		switch expr[i] {
		case ']':
			depth++
		case '[':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// keys returns the traps that watch the target's writes.
func (tg *writeTarget) keys(prog *vm.Program) []trapKey {
	var out []trapKey
	switch tg.kind {
	case watchField, watchElem:
		for _, fn := range prog.Funcs {
			for pc := range fn.Code {
				in := fn.Instr(int32(pc))
				switch {
				case tg.stores(in):
					// the store, and the next instruction (where it has
					// run: a scheduling point of a store may let others
					// run in between)
					out = append(out, trapKey{fn, int32(pc)})
					if pc+1 < len(fn.Code) {
						out = append(out, trapKey{fn, int32(pc) + 1})
					}
				}
			}
		}
	case watchLocal:
		fn := tg.fn
		out = append(out, trapKey{fn, 0})
		for pc := range fn.Code {
			in := fn.Instr(int32(pc))
			switch {
			case in.Op == vm.RET || in.Op == vm.RETV:
				out = append(out, trapKey{fn, int32(pc)})
			case tg.writes(int32(pc), in) && pc+1 < len(fn.Code):
				out = append(out, trapKey{fn, int32(pc)}, trapKey{fn, int32(pc) + 1})
			}
		}
	}
	return out
}

// stores reports whether in may store into the target (a field or an
// element).
func (tg *writeTarget) stores(in vm.Instr) bool {
	switch {
	case tg.kind == watchField && in.Op == vm.SETF && in.B == tg.field,
		tg.kind == watchElem && !tg.list && in.Op == vm.ASET,
		tg.kind == watchElem && tg.list && in.Op == vm.LSET:
		return true
	}
	return false
}

// writes reports whether the instruction in at pc of the target's
// function writes the local (in its live range: the write that
// initializes it comes just before).
func (tg *writeTarget) writes(pc int32, in vm.Instr) bool {
	if pc < tg.lo-1 || tg.hi >= 0 && pc >= tg.hi {
		return false
	}
	switch in.Op {
	case vm.CALL, vm.CALLV, vm.CALLI, vm.CALLN, vm.CALLF:
		return in.C == tg.reg // (the argument registers are the callee's)
	}
	for _, r := range writtenRegs(tg.fn, in) {
		if r == tg.reg {
			return true
		}
	}
	return false
}

// existedAt reports whether the location existed at checkpoint sp (if
// not, no write before it can be one of its).
func (tg *writeTarget) existedAt(sp *snap) bool {
	switch tg.kind {
	case watchField:
		objs, _ := sp.sn.Allocated()
		return objs >= tg.obj
	case watchElem:
		_, seqs := sp.sn.Allocated()
		return seqs >= tg.seq
	case watchLocal:
		return sp.sn.Spawned(tg.thread) && sp.sn.Thread(tg.thread) != nil
	}
	return true
}

// writesWatch gathers the writes to a target in one stretch.
type writesWatch struct {
	s      *Session
	tg     *writeTarget
	writes []rawWrite // oldest first
	// a local: the write whose new value is read at the next instruction
	pending *pendingWrite
	// a field or element: the stores seen and not run yet, and the value
	// the last store that ran left ("" before the first)
	stores []*pendingStore
	last   string
	// a local: seen says the frame trapped in the stretch; orphan is its
	// first trap if it is the next instruction of a write that began
	// before the stretch (a call that parked across the checkpoint); the
	// pending write left at the end is completed by the next stretch's
	// orphan
	seen   bool
	orphan *pendingWrite
	began  bool      // a local: an earlier activation of its frame ended here
	entry  *rawWrite // a local: the first instruction of its activation
}

type pendingWrite struct {
	w     rawWrite
	depth int
	pc    int32 // of the next instruction
}

func (w *writesWatch) event(sched.Event, *scanPass) {}

func (w *writesWatch) trap(t *vm.Thread, m moment) bool {
	tg := w.tg
	f := t.Frame(0)
	in := m.fn.Instr(m.pc)
	reg := func(r int32) vm.Value { return *t.Reg(f, r) }
	switch tg.kind {
	case watchField, watchElem:
		// the store before this instruction has run (post), then this
		// instruction's store about to run (pre)
		if m.pc > 0 && tg.stores(m.fn.Instr(m.pc-1)) {
			w.stored(t, m)
		}
		if tg.stores(in) {
			if v, ok := tg.value(f, t, in); ok {
				w.stores = append(w.stores, &pendingStore{w: rawWrite{m: m, name: t.Name(), old: w.s.brief(v, tg.typ, 0), fr: w.capture(t, m)},
					t: t, depth: m.depth, pc: m.pc + 1})
			}
		}
	case watchLocal:
		if t.ID != tg.thread || t.Depth()-1 != tg.frame || f.Base != tg.base {
			return false
		}
		if p := w.pending; p != nil && p.pc == m.pc && p.depth == m.depth {
			p.w.new = w.s.brief(reg(tg.reg), tg.typ, 0)
			w.writes = append(w.writes, p.w)
			w.pending = nil
		} else if !w.seen && m.pc > 0 && tg.writes(m.pc-1, m.fn.Instr(m.pc-1)) {
			w.orphan = &pendingWrite{w: rawWrite{new: w.s.brief(reg(tg.reg), tg.typ, 0)}, depth: m.depth, pc: m.pc}
		}
		w.seen = true
		switch {
		case in.Op == vm.RET || in.Op == vm.RETV:
			// an earlier activation of the frame ends: its writes are not
			// the present one's
			w.writes, w.pending, w.entry, w.began = nil, nil, nil, true
		case m.pc == 0 && w.entry == nil:
			w.entry = &rawWrite{m: m, name: t.Name(), new: w.s.brief(reg(tg.reg), tg.typ, 0), fr: w.capture(t, m)}
			if tg.capture && t.Depth() > 1 && !t.Frame(1).Fn.Cont {
				w.entry.caller = captureFrame(t, 1, m)
			}
		}
		if tg.writes(m.pc, in) {
			w.pending = &pendingWrite{w: rawWrite{m: m, name: t.Name(), old: w.s.brief(reg(tg.reg), tg.typ, 0), fr: w.capture(t, m)},
				depth: m.depth, pc: m.pc + 1}
		}
	}
	return false
}

// pendingStore is a store into a field or element about to run: seen
// at its instruction, where the location held old (unless a store that
// ran before it changes that), run at the next instruction.
type pendingStore struct {
	w     rawWrite
	t     *vm.Thread
	depth int
	pc    int32 // the next instruction
}

// value returns the target's value if the store in, about to run in t's
// top frame f, stores into it.
func (tg *writeTarget) value(f *vm.Frame, t *vm.Thread, in vm.Instr) (vm.Value, bool) {
	reg := func(r int32) vm.Value { return *t.Reg(f, r) }
	switch tg.kind {
	case watchField:
		o, ok := reg(in.A).R.(*vm.Object)
		if !ok || o.PeekID() != tg.obj || int(tg.field) >= len(o.Fields) {
			return vm.Value{}, false
		}
		return o.Fields[tg.field], true
	case watchElem:
		var data []vm.Value
		var id int64
		switch x := reg(in.A).R.(type) {
		case *vm.Array:
			data, id = x.Data, x.PeekID()
		case *vm.List:
			data, id = x.Data, x.PeekID()
		}
		if id != tg.seq || int64(reg(in.B).N) != int64(tg.index) || tg.index >= len(data) {
			return vm.Value{}, false
		}
		return data[tg.index], true
	}
	return vm.Value{}, false
}

// stored notes that the store before m.pc in t's top frame has run, if
// it stored into the target: the write, in the order the stores ran, and
// the value every other store still to run will find. A store seen in
// an earlier stretch (its thread was preempted at it across the
// checkpoint) is an orphan, joined to it later (writesBefore).
func (w *writesWatch) stored(t *vm.Thread, m moment) {
	tg := w.tg
	f := t.Frame(0)
	prev := m.fn.Instr(m.pc - 1)
	now, ok := tg.value(f, t, prev) // (the registers of the store are as they were)
	if !ok {
		return
	}
	nowText := w.s.brief(now, tg.typ, 0)
	var done *pendingStore
	kept := w.stores[:0]
	for _, p := range w.stores {
		if done == nil && p.t == t && p.pc == m.pc && p.depth == m.depth {
			done = p
			continue
		}
		kept = append(kept, p)
	}
	w.stores = kept
	for _, p := range w.stores {
		p.w.old = nowText // (it runs later: it finds this value)
	}
	if done == nil {
		w.writes = append(w.writes, rawWrite{m: moment{thread: t.ID, depth: m.depth, fn: m.fn, pc: m.pc}, name: t.Name(),
			new: nowText, orphan: true, old: w.last})
		w.last = nowText
		return
	}
	done.w.new = nowText
	w.writes = append(w.writes, done.w)
	w.last = nowText
}

// atEnd completes a local's write whose next instruction is the end of
// the stretch (the write has happened by then).
func (w *writesWatch) atEnd(t *vm.Thread, m moment) {
	tg := w.tg
	if p := w.pending; tg.kind == watchLocal && p != nil && p.pc == m.pc && p.depth == m.depth &&
		t.ID == tg.thread && t.Frame(0).Base == tg.base {
		p.w.new = w.s.brief(*t.Reg(t.Frame(0), tg.reg), tg.typ, 0)
		w.writes = append(w.writes, p.w)
		w.pending = nil
	}
}

// capture returns t's top frame at m if the target keeps it.
func (w *writesWatch) capture(t *vm.Thread, m moment) *frameAt {
	if !w.tg.capture {
		return nil
	}
	return captureFrame(t, 0, m)
}

// formatIndex renders an element's name.
func formatIndex(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }
