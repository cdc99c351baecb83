package inspect

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
)

// Data breakpoints (watchpoints) on a field of an object, an element of
// an array or List, or a local of a frame. They cost nothing while none
// is set: setting one patches (with TRAP) only the instructions that can
// write the location — every SETF of that field index, every ASET (LSET)
// for an element, the instructions of the local's function that write its
// register — and, for readWrite, those that can read it (GETF, AGET,
// LGET), with the instruction after each. At such a trap the hook checks
// whether the instruction really touches the watched location (the
// object, array and index in its registers; the local's frame) and, if
// so, notes the value; at the frame's next instruction it compares: a write that
// changed the value (or, for readWrite, any read) stops the thread, on
// whichever thread it is. Writes made by library natives (List.add,
// Dict.put, …) are not instructions and are not seen.

// ReasonData is the stop reason of a data breakpoint.
const ReasonData StopReason = "data breakpoint"

// Access types of data breakpoints.
const (
	AccessWrite     = "write"
	AccessReadWrite = "readWrite"
)

// DataInfo says whether a variable can be watched.
type DataInfo struct {
	DataID      string // "" if it cannot: Description says why
	Description string
	AccessTypes []string
}

// DataBreakpointSpec is a requested data breakpoint.
type DataBreakpointSpec struct {
	DataID       string
	AccessType   string // AccessWrite (default) or AccessReadWrite
	HitCondition string
	Condition    string // not supported: the breakpoint is refused
	Mode         string // as BreakpointSpec's
}

type watchKind int

const (
	watchField watchKind = iota
	watchElem
	watchLocal
)

// watchLoc is a watchable location (a data id stands for one, for the
// whole session).
type watchLoc struct {
	id   string
	kind watchKind
	name string // as the user sees it: "p.x", "arr[3]", "i"
	typ  *vm.Type

	obj   *vm.Object // watchField
	field int32

	seq   any // watchElem: *vm.Array or *vm.List
	index int

	t     *vm.Thread // watchLocal: the frame (index from the bottom)
	frame int
	fn    *vm.Funcode
	base  int32
	reg   int32
}

// read returns the location's value (false: it is gone: the frame
// returned, the List shrank).
func (w *watchLoc) read() (vm.Value, bool) {
	switch w.kind {
	case watchField:
		if int(w.field) < len(w.obj.Fields) {
			return w.obj.Fields[w.field], true
		}
	case watchElem:
		var data []vm.Value
		switch x := w.seq.(type) {
		case *vm.Array:
			data = x.Data
		case *vm.List:
			data = x.Data
		}
		if w.index < len(data) {
			return data[w.index], true
		}
	case watchLocal:
		if f := w.frameNow(); f != nil {
			return *w.t.Reg(f, w.reg), true
		}
	}
	return vm.Value{}, false
}

// frameNow returns the local's frame if it still exists.
func (w *watchLoc) frameNow() *vm.Frame {
	d := w.t.Depth() - 1 - w.frame
	if d < 0 || w.frame >= w.t.Depth() {
		return nil
	}
	if f := w.t.Frame(d); f.Fn == w.fn && f.Base == w.base {
		return f
	}
	return nil
}

// watch is a data breakpoint as set.
type watch struct {
	id      int // breakpoint id (shared with the other breakpoints)
	loc     *watchLoc
	read    bool // readWrite
	hitTest func(int) bool
	hits    int
	traps   []trapKey // the instructions that may touch it
	mode    string    // ModeAll, ModeThread or "" (the session's)
}

// pendingCheck is an instruction that touched a watched location: the
// value before it, checked at the frame's next instruction.
type pendingCheck struct {
	w     *watch
	t     *vm.Thread
	depth int // frames of t at the instruction
	at    trapKey
	old   vm.Value
	read  bool // a read, not a write
}

// dataState is the session's data breakpoints. Guarded by Session.mu.
type dataState struct {
	locs    map[string]*watchLoc
	byKey   map[any]*watchLoc
	watches []*watch
	pending []*pendingCheck
}

func (s *Session) dataLocked() *dataState {
	if s.data == nil {
		s.data = &dataState{locs: map[string]*watchLoc{}, byKey: map[any]*watchLoc{}}
	}
	return s.data
}

type fieldKey struct {
	o *vm.Object
	f int32
}
type elemKey struct {
	seq any
	i   int
}
type localKey struct {
	t     *vm.Thread
	frame int
	fn    *vm.Funcode
	base  int32
	reg   int32
}

// DataBreakpointInfo says whether the variable name among the children of
// variables reference ref can be watched, and gives its data id.
func (s *Session) DataBreakpointInfo(ref int, name string) (DataInfo, error) {
	if err := s.checkInspect(); err != nil {
		return DataInfo{}, err
	}
	n, err := s.node(ref)
	if err != nil {
		return DataInfo{}, err
	}
	loc, key, why := s.locate1(n, name)
	if loc == nil {
		return DataInfo{Description: why}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.dataLocked()
	if old := d.byKey[key]; old != nil {
		loc = old
	} else {
		loc.id = "w" + strconv.Itoa(len(d.locs)+1)
		d.locs[loc.id] = loc
		d.byKey[key] = loc
	}
	info := DataInfo{DataID: loc.id, Description: loc.name, AccessTypes: []string{AccessWrite, AccessReadWrite}}
	if loc.kind == watchLocal {
		info.AccessTypes = []string{AccessWrite}
	}
	return info, nil
}

// locate1 finds the location of child name of n.
func (s *Session) locate1(n *node, name string) (*watchLoc, any, string) {
	switch n.kind {
	case nodeScope:
		if n.depth >= n.t.Depth() {
			return nil, nil, "the frame has returned"
		}
		f := n.t.Frame(n.depth)
		for _, lv := range n.vars {
			if lv.Name == name {
				frame := n.t.Depth() - 1 - n.depth
				loc := &watchLoc{kind: watchLocal, name: name, typ: lv.Type, t: n.t, frame: frame, fn: f.Fn, base: f.Base, reg: lv.Reg}
				if f.Fn.Cont {
					return nil, nil, "a runtime frame's registers cannot be watched"
				}
				return loc, localKey{n.t, frame, f.Fn, f.Base, lv.Reg}, ""
			}
		}
		return nil, nil, fmt.Sprintf("%s cannot be watched (only locals, fields and elements can)", name)
	case nodeValue:
		switch x := n.v.R.(type) {
		case *vm.Object:
			for i, fd := range x.Class.Fields {
				if fd.Name == name && i < len(x.Fields) {
					return &watchLoc{kind: watchField, name: join(n.expr, "."+name), typ: fd.Type, obj: x, field: int32(i)},
						fieldKey{x, int32(i)}, ""
				}
			}
		case *vm.Array:
			if i, ok := elemIndex(name, len(x.Data)); ok {
				return &watchLoc{kind: watchElem, name: join(n.expr, name), typ: x.Type.Elem, seq: x, index: i}, elemKey{x, i}, ""
			}
		case *vm.List:
			if i, ok := elemIndex(name, len(x.Data)); ok {
				return &watchLoc{kind: watchElem, name: join(n.expr, name), typ: x.Type.Elem, seq: x, index: i}, elemKey{x, i}, ""
			}
		}
	}
	return nil, nil, fmt.Sprintf("%s cannot be watched (only locals, object fields and array or List elements can)", name)
}

// elemIndex parses "[i]".
func elemIndex(name string, n int) (int, bool) {
	if !strings.HasPrefix(name, "[") || !strings.HasSuffix(name, "]") {
		return 0, false
	}
	i, err := strconv.Atoi(name[1 : len(name)-1])
	return i, err == nil && i >= 0 && i < n
}

// SetDataBreakpoints replaces the data breakpoints. Each DataID comes
// from DataBreakpointInfo (of this session).
func (s *Session) SetDataBreakpoints(specs []DataBreakpointSpec) []Breakpoint {
	defer s.quiet()() // (catchup.go)
	var out []Breakpoint
	s.withWorldStopped(func() {
		d := s.dataLocked()
		for _, w := range d.watches {
			for _, k := range w.traps {
				s.clearTrapLocked(k)
			}
		}
		old := d.watches
		d.watches = nil
		d.pending = nil
		for _, sp := range specs {
			b := Breakpoint{}
			loc := d.locs[sp.DataID]
			hit, herr := parseHitCondition(sp.HitCondition)
			switch {
			case loc == nil:
				b.Message = fmt.Sprintf("unknown data id %q (ask dataBreakpointInfo)", sp.DataID)
			case sp.AccessType != "" && sp.AccessType != AccessWrite && sp.AccessType != AccessReadWrite:
				b.Message = fmt.Sprintf("access type %q is not supported (want write or readWrite)", sp.AccessType)
			case sp.AccessType == AccessReadWrite && loc.kind == watchLocal:
				b.Message = "a local can be watched for writes only"
			case strings.TrimSpace(sp.Condition) != "":
				b.Message = "data breakpoints take no condition (use a hit count)"
			case herr != nil:
				b.Message = herr.Error()
			case checkMode(sp.Mode) != nil:
				b.Message = checkMode(sp.Mode).Error()
			}
			var w *watch
			for _, o := range old {
				if loc != nil && o.loc == loc && o.read == (sp.AccessType == AccessReadWrite) {
					w = o // the same breakpoint again: its id and hits
				}
			}
			if w == nil {
				s.bps.nextID++
				w = &watch{id: s.bps.nextID}
			}
			b.ID = w.id
			if b.Message == "" {
				w.loc, w.read, w.hitTest, w.traps, w.mode = loc, sp.AccessType == AccessReadWrite, hit, nil, sp.Mode
				b.Mode = sp.Mode
				s.patchWatchLocked(w)
				d.watches = append(d.watches, w)
				s.precheckStoppedLocked(w)
				b.Verified = true
				b.Message = loc.name
				b.Hits = w.hits
			}
			out = append(out, b)
		}
	})
	return out
}

// patchWatchLocked traps the instructions that may touch w's location,
// and the instructions after them (where the check is made: patching
// happens only here, with the world stopped, never during a dispatch).
// Must hold s.mu with the world stopped.
func (s *Session) patchWatchLocked(w *watch) {
	loc := w.loc
	add := func(fn *vm.Funcode, pc int) {
		for _, p := range []int32{int32(pc), int32(pc) + 1} {
			if int(p) < len(fn.Code) {
				k := trapKey{fn, p}
				s.setTrapLocked(k)
				w.traps = append(w.traps, k)
			}
		}
	}
	if loc.kind == watchLocal {
		for pc := range loc.fn.Code {
			for _, r := range writtenRegs(loc.fn, loc.fn.Instr(int32(pc))) {
				if r == loc.reg {
					add(loc.fn, pc)
					break
				}
			}
		}
		return
	}
	elem := vm.AccessArray
	if _, isList := loc.seq.(*vm.List); isList {
		elem = vm.AccessList
	}
	for _, fn := range s.prog.Funcs {
		for pc := range fn.Code {
			in := fn.Instr(int32(pc))
			a := in.Op.Info().Access
			switch {
			case !a.Write && !w.read:
			case loc.kind == watchField && a.Kind == vm.AccessField && in.Operand(a.Key) == loc.field,
				loc.kind == watchElem && a.Kind == elem:
				add(fn, pc)
			}
		}
	}
}

// checkData runs at every trap: the pre-check of an instruction that may
// touch a watched location, and the post-check at the instruction after
// one that did. It returns the stop to make, if any. Called by OnTrap.
func (s *Session) checkData(t *vm.Thread, fn *vm.Funcode, pc int32) *StopInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.data
	if d == nil || len(d.watches) == 0 && len(d.pending) == 0 {
		return nil
	}
	depth := t.Depth()
	var stop *StopInfo
	kept := d.pending[:0]
	for _, p := range d.pending {
		switch {
		case p.t != t:
			kept = append(kept, p)
			continue
		case depth < p.depth:
			// the frame is gone (an exception unwound it)
		case depth > p.depth || p.at != (trapKey{fn, pc}):
			kept = append(kept, p)
			continue
		default:
			// (two watchpoints on one write: one stop, both their ids)
			stop = mergeDataStops(stop, s.decideLocked(p))
		}
	}
	clear(d.pending[len(kept):])
	d.pending = kept
	s.precheckLocked(t, fn, pc, d.watches)
	return stop
}

// precheckLocked notes the watched locations the instruction at pc of
// fn, about to run in t's top frame, touches. Must hold s.mu.
func (s *Session) precheckLocked(t *vm.Thread, fn *vm.Funcode, pc int32, watches []*watch) {
	d := s.data
	in := fn.Instr(pc)
	for _, w := range watches {
		touches, read := w.touches(t, fn, in)
		if !touches {
			continue
		}
		old, _ := w.loc.read()
		next := trapKey{fn, pc + 1} // patched with the instruction
		dup := false
		for _, p := range d.pending {
			dup = dup || p.w == w && p.t == t && p.at == next && p.depth == t.Depth()
		}
		if !dup {
			d.pending = append(d.pending, &pendingCheck{w: w, t: t, depth: t.Depth(), at: next, old: old, read: read})
		}
	}
}

// precheckStoppedLocked runs the pre-check for the threads stopped right
// at an instruction a new watch patched: they will run it without
// trapping (it is where they stopped), so the check is made now. Must
// hold s.mu with the world stopped.
func (s *Session) precheckStoppedLocked(w *watch) {
	for _, t := range s.r.sch.Threads() {
		if t.Depth() == 0 || t.InNative() || t.State == vm.Dead {
			continue
		}
		f := t.Frame(0)
		if int(f.PC) < len(f.Fn.Code) {
			s.precheckLocked(t, f.Fn, f.PC, []*watch{w})
		}
	}
}

// recheckDataLocked starts the data breakpoints' checks over on a
// machine the session adopts (going back): the threads that will run the
// instruction they are at without trapping (preempted at its trap, as
// a recorded schedule that preempts at shared accesses does) are checked
// now, as for a new watch. Must hold s.mu with the world stopped.
func (s *Session) recheckDataLocked() {
	if s.data == nil {
		return
	}
	s.data.pending = nil
	for _, w := range s.data.watches {
		s.precheckStoppedLocked(w)
	}
}

// touches reports whether in, about to run in t's top frame, writes (or,
// for a readWrite watch, reads: read true) w's location. A watch on a
// field or a local follows the location into another execution of the
// recording (match): touching it there rebinds the watch to it.
func (w *watch) touches(t *vm.Thread, fn *vm.Funcode, in vm.Instr) (bool, bool) {
	ok, read, o := w.match(t, fn, in)
	if ok {
		switch w.loc.kind {
		case watchField:
			w.loc.obj = o
		case watchLocal:
			w.loc.t = t
		}
	}
	return ok, read
}

// match is touches without the rebinding; for a field it also returns
// the object touched: loc.obj, or its counterpart in another execution
// of the recording (the same allocation number).
func (w *watch) match(t *vm.Thread, fn *vm.Funcode, in vm.Instr) (ok, read bool, obj *vm.Object) {
	loc := w.loc
	f := t.Frame(0)
	reg := func(r int32) vm.Value {
		if r < 0 || int(r) >= fn.NumRegs {
			return vm.Value{}
		}
		return *t.Reg(f, r)
	}
	a := in.Op.Info().Access // (the opcode's own: not a collection's methods)
	switch loc.kind {
	case watchField:
		if a.Kind != vm.AccessField || in.Operand(a.Key) != loc.field || !a.Write && !w.read {
			return false, false, nil
		}
		o, isObj := reg(in.Operand(a.Obj)).R.(*vm.Object)
		if !isObj || !sameObject(o, loc.obj) || int(loc.field) >= len(o.Fields) {
			return false, false, nil
		}
		return true, !a.Write, o
	case watchElem:
		if (a.Kind == vm.AccessArray || a.Kind == vm.AccessList) && (a.Write || w.read) {
			return sameRef(reg(in.Operand(a.Obj)).R, loc.seq) && int64(reg(in.Operand(a.Key)).N) == int64(loc.index), !a.Write, nil
		}
	case watchLocal:
		// (the thread, or the same thread of another execution)
		if t.ID != loc.t.ID || fn != loc.fn || t.Depth()-1 != loc.frame || f.Base != loc.base {
			return false, false, nil
		}
		for _, r := range writtenRegs(fn, in) {
			if r == loc.reg {
				return true, false, nil
			}
		}
	}
	return false, false, nil
}

// sameObject reports whether o is x, or x's counterpart in another
// execution of the same recording: an object with the same allocation
// number.
func sameObject(o, x *vm.Object) bool {
	if o == x {
		return true
	}
	id := x.PeekID()
	return id != 0 && o.PeekID() == id
}

// sameRef reports whether a register's reference is x.
func sameRef(r any, x any) bool {
	switch y := x.(type) {
	case *vm.Object:
		o, ok := r.(*vm.Object)
		return ok && o == y
	case *vm.Array:
		a, ok := r.(*vm.Array)
		return ok && a == y
	case *vm.List:
		l, ok := r.(*vm.List)
		return ok && l == y
	}
	return false
}

// decideLocked decides at the post-check of p whether the thread stops.
// Must hold s.mu.
func (s *Session) decideLocked(p *pendingCheck) *StopInfo {
	w := p.w
	now, ok := w.loc.read()
	if !ok {
		return nil
	}
	if !p.read {
		s.data.wrote(p, now)
	}
	if !p.read && sameValue(p.old, now, w.loc.typ) {
		return nil // written with the value it had
	}
	w.hits++
	if w.hitTest != nil && !w.hitTest(w.hits) {
		return nil
	}
	info := s.dataStop(w, p.old, now, p.read, "Data breakpoint")
	info.hold = s.threadModeLocked(w.mode) // (nonstop.go)
	return info
}

// mergeDataStops returns the stop of a trap where data breakpoints
// decided: the first one's, with the ids of every breakpoint that stops.
func mergeDataStops(stop, info *StopInfo) *StopInfo {
	switch {
	case info == nil:
		return stop
	case stop == nil:
		return info
	}
	for _, id := range info.HitBreakpointIDs {
		if !slices.Contains(stop.HitBreakpointIDs, id) {
			stop.HitBreakpointIDs = append(stop.HitBreakpointIDs, id)
		}
	}
	return stop
}

// wrote notes that the instruction of p wrote now to its location: the
// other writes pending there (of threads that were checked before their
// instruction, then preempted before it ran) write over now, not over
// the value they saw. Must hold s.mu.
func (d *dataState) wrote(p *pendingCheck, now vm.Value) {
	for _, q := range d.pending {
		sameInstr := q.t == p.t && q.at == p.at && q.depth == p.depth // (another watch of this write)
		if q != p && !sameInstr && !q.read && q.w.loc == p.w.loc {
			q.old = now
		}
	}
}

// dataStop is the stop of data breakpoint w at a write of now over old
// (or a read of now), described after what.
func (s *Session) dataStop(w *watch, old, now vm.Value, read bool, what string) *StopInfo {
	oldText, newText := s.brief(old, w.loc.typ, 0), s.brief(now, w.loc.typ, 0)
	info := &StopInfo{Reason: ReasonData, HitBreakpointIDs: []int{w.id},
		Change: &DataChange{Name: w.loc.name, Old: oldText, New: newText, Read: read}}
	if read {
		info.Change.Old = ""
		info.Description = fmt.Sprintf("%s: %s read (%s)", what, w.loc.name, newText)
		info.Text = fmt.Sprintf("%s = %s (read)", w.loc.name, newText)
	} else {
		info.Description = fmt.Sprintf("%s: %s changed from %s to %s", what, w.loc.name, oldText, newText)
		info.Text = fmt.Sprintf("%s: %s -> %s", w.loc.name, oldText, newText)
	}
	return info
}

// sameValue reports whether two values of type typ are equal as the
// watch sees them: scalars by bits, strings by content, references by
// identity.
func sameValue(a, b vm.Value, typ *vm.Type) bool {
	if typ != nil && typ.IsScalar() {
		return a.N == b.N
	}
	if x, ok := a.R.(string); ok {
		y, ok := b.R.(string)
		return ok && x == y
	}
	switch a.R.(type) {
	case nil:
		return b.R == nil && a.N == b.N
	case *vm.Object, *vm.Array, *vm.List, *vm.Dict, *vm.FuncVal:
		return a.R == b.R && a.N == b.N
	}
	return fmt.Sprintf("%p", a.R) == fmt.Sprintf("%p", b.R) && a.N == b.N
}

// dataSearch finds, in a re-execution of the past, the changes of the
// watched locations (and, for readWrite watches, the reads), as the
// session's data breakpoints would stop at them: reverseContinue's
// "data change" targets. It follows the watched objects by allocation
// number and the watched locals by thread id (the re-execution has its
// own objects and threads), and does not touch the session's watches.
type dataSearch struct {
	s       *Session
	watches []*watch
	pending []dataCheck
	hits    map[*watch]int // counted from where the re-execution started
}

// dataCheck is an instruction of the re-execution that touched a watched
// location: the value before it, checked at the frame's next instruction.
type dataCheck struct {
	w     *watch
	t     *vm.Thread
	depth int
	at    trapKey
	old   vm.Value
	read  bool
	obj   *vm.Object // the re-execution's object (watchField)
}

// newDataSearch returns the search for the session's data breakpoints
// that can be followed from one execution to another (fields of objects
// with an allocation number, locals), or nil if there are none.
func (s *Session) newDataSearch() *dataSearch {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		return nil
	}
	var ws []*watch
	for _, w := range s.data.watches {
		switch w.loc.kind {
		case watchField:
			if w.loc.obj.PeekID() != 0 {
				ws = append(ws, w)
			}
		case watchLocal:
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return nil
	}
	return &dataSearch{s: s, watches: ws, hits: map[*watch]int{}}
}

// hitCounted reports whether a data breakpoint has a hit condition.
func (s *Session) dataHitCounted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		return false
	}
	for _, w := range s.data.watches {
		if w.hitTest != nil {
			return true
		}
	}
	return false
}

// at sees the trap of the re-execution at (fn, pc) of t's top frame; it
// returns the stop a data breakpoint would make there, if any.
func (ds *dataSearch) at(t *vm.Thread, fn *vm.Funcode, pc int32) *StopInfo {
	var stop *StopInfo
	var wrote []dataCheck
	depth := t.Depth()
	kept := ds.pending[:0]
	for _, p := range ds.pending {
		switch {
		case p.t != t:
			kept = append(kept, p)
		case depth < p.depth:
			// unwound
		case depth > p.depth || p.at != (trapKey{fn, pc}):
			kept = append(kept, p)
		default:
			stop = mergeDataStops(stop, ds.decide(p))
			if !p.read {
				wrote = append(wrote, p)
			}
		}
	}
	ds.pending = kept
	for _, p := range wrote {
		// as dataState.wrote: the writes pending there write over this one
		for i := range ds.pending {
			if q := &ds.pending[i]; !q.read && q.w.loc == p.w.loc && q.obj == p.obj {
				q.old = p.now()
			}
		}
	}
	in := fn.Instr(pc)
	for _, w := range ds.watches {
		ok, read, o := w.match(t, fn, in)
		if !ok {
			continue
		}
		c := dataCheck{w: w, t: t, depth: depth, at: trapKey{fn, pc + 1}, read: read, obj: o}
		if o != nil {
			c.old = o.Fields[w.loc.field]
		} else {
			c.old = *t.Reg(t.Frame(0), w.loc.reg)
		}
		ds.pending = append(ds.pending, c)
	}
	return stop
}

// decide is the post-check of c: the stop a data breakpoint makes, if
// the value changed (or was read).
func (ds *dataSearch) decide(c dataCheck) *StopInfo {
	w := c.w
	now := c.now()
	if !c.read && sameValue(c.old, now, w.loc.typ) {
		return nil
	}
	ds.hits[w]++
	if w.hitTest != nil && !w.hitTest(ds.hits[w]) {
		return nil
	}
	st := ds.s.dataStop(w, c.old, now, c.read, "Data breakpoint (going back)")
	st.Back = true
	return st
}

// now reads c's location in the re-execution, at c's post-check.
func (c *dataCheck) now() vm.Value {
	if c.obj != nil {
		return c.obj.Fields[c.w.loc.field]
	}
	return *c.t.Reg(c.t.Frame(0), c.w.loc.reg)
}
