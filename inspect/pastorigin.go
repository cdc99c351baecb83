package inspect

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// Where did this value come from: the steps that produced the value of a
// location, followed back through the bytecode — assigned from which
// expression, computed from which operands, read from which field (and
// written there where), returned by which call, received from which
// channel (sent by which thread, where), passed as which argument — to
// a literal, an input (a native's result), or the depth asked for. Each
// step is found at its moment: the writer of a register in the same
// straight run of code is read off the code; anything else (the last
// write to a field, the call's return, the channel's sender, a
// register written before a jump) by a re-execution of the stretch
// before that moment.

// Kinds of origin steps.
const (
	OriginAssigned = "assigned" // a local was assigned (the line's statement)
	OriginWritten  = "written"  // a field or element was written
	OriginRead     = "read"     // a field or element was read
	OriginComputed = "computed" // an operator made the value from its operands
	OriginLiteral  = "literal"  // a constant of the code
	OriginReturned = "returned" // a call returned it
	OriginReceived = "received" // a channel delivered it
	OriginSent     = "sent"     // a thread sent it on the channel
	OriginArgument = "argument" // the caller passed it
	OriginInitial  = "initial"  // a field or element never written (its zero value)
	OriginNative   = "native"   // a native returned it: an input, or the runtime's
	OriginMade     = "made"     // a new object, array, List, Dict or function value
	OriginLimit    = "limit"    // the depth asked for is reached
	OriginLoop     = "loop"     // an earlier iteration of the same statement
	OriginUnknown  = "unknown"  // the value cannot be followed further (Text says why)
)

// OriginStep is one step of an origin: what happened (Kind, and Text in
// words: the statement, the operator, the channel), at Moment, in thread
// ThreadID at Func File:Line, with the value it made (when its type is
// known). Level is its depth in the tree of steps: the steps after a
// step with a higher Level are its inputs.
type OriginStep struct {
	Level      int
	Kind       string
	Text       string
	Moment     Moment
	ThreadID   int64
	ThreadName string
	Func       string
	File       string
	Line       int
	Value      string
	// Code is the source of the line.
	Code string
}

// DefaultOriginDepth is the depth an origin is followed to by default.
const DefaultOriginDepth = 8

// maxOriginSteps bounds the steps of one origin.
const maxOriginSteps = 64

// Origin returns the steps that produced the value of expr (a local,
// EXPR.FIELD or EXPR[INDEX]) in frame depth of thread threadID (0: the
// stopped one), followed to maxDepth steps (0: DefaultOriginDepth).
func (s *Session) Origin(threadID int64, depth int, expr string, maxDepth int) ([]OriginStep, error) {
	defer s.quiet()() // (catchup.go)
	if err := s.checkPast(); err != nil {
		return nil, err
	}
	if maxDepth <= 0 {
		maxDepth = DefaultOriginDepth
	}
	t, err := s.evalThread(threadID)
	if err != nil {
		return nil, err
	}
	loc, err := s.locateExpr(t, depth, strings.TrimSpace(expr))
	if err != nil {
		return nil, err
	}
	tg, err := s.writeTargetOf(loc)
	if err != nil {
		return nil, err
	}
	o := &originSearch{s: s, max: maxDepth, steps: []OriginStep{}}
	now := s.present()
	switch loc.kind {
	case watchLocal:
		d := t.Depth() - 1 - loc.frame
		f := t.Frame(d)
		cur := &frameAt{m: moment{thread: t.ID, red: t.Reductions(), depth: t.Depth() - d, fn: f.Fn, pc: t.DebugFrame(d).PC(), trap: true},
			fn: f.Fn, base: f.Base}
		if d == 0 && now.trap && now.thread == t.ID {
			cur.m = now
		} else {
			// (the frame is not at a moment of its own: a caller, or a
			// thread that is not the one stopped; its writes are those
			// before the present, and none is found from the code)
			cur.until, cur.inexact = &now, true
		}
		regs := make([]vm.Value, f.Fn.NumRegs)
		for r := range regs {
			regs[r] = *t.Reg(f, int32(r))
		}
		cur.regs = regs
		o.explainReg(cur, loc.reg, loc.typ, pos{})
	default:
		o.explainLoc(tg, now, pos{})
	}
	return o.steps, o.err
}

// writeTargetOf is the target of a location already found, keeping the
// writers' frames.
func (s *Session) writeTargetOf(w *watchLoc) (*writeTarget, error) {
	tg, err := targetOf(w)
	if tg != nil {
		tg.capture = true
	}
	return tg, err
}

// originSearch is one Origin under way.
type originSearch struct {
	s     *Session
	max   int
	steps []OriginStep
	err   error
}

// add appends a step at moment m (its thread named name).
func (o *originSearch) add(level int, kind, text string, m moment, name, value string) {
	p := place(m.fn, m.pc)
	st := OriginStep{Level: level, Kind: kind, Text: text, ThreadID: m.thread, ThreadName: name, Func: p.Func,
		File: p.File, Line: p.Line, Value: value, Code: o.s.lineSource(m)}
	if !m.isStart() && (m.trap || m.throw || m.byOff || m.thread != 0) {
		st.Moment = o.s.encodeMoment(m)
	}
	o.steps = append(o.steps, st)
}

// done reports whether the search must stop.
func (o *originSearch) done() bool { return o.err != nil || len(o.steps) >= maxOriginSteps }

// pos is where a step is: its level in the tree of steps (operands one
// deeper), the statements on the path from the value asked about (the
// depth: each writer found at another line or moment is one), and the
// instructions of the path (a loop brings the same one back).
type pos struct {
	level int
	depth int
	at    stmtKey   // the statement of the last step
	path  []pathKey // the writers on the path
}

// stmtKey names a statement's execution.
type stmtKey struct {
	thread, red int64
	fn          *vm.Funcode
	line        int32
}

// pathKey names an instruction of a frame.
type pathKey struct {
	thread int64
	depth  int
	fn     *vm.Funcode
	pc     int32
}

// sub is p one level deeper (an operand).
func (p pos) sub() pos { p.level++; return p }

// enter is p at the writer of moment m: one statement deeper if m is
// another statement's, with the writer on the path. loop says the path
// already holds that instruction of that frame at another moment (an
// earlier iteration of a loop).
func (p pos) enter(m moment) (q pos, loop bool) {
	line, _ := m.fn.Pos(m.pc)
	at := stmtKey{m.thread, m.red, m.fn, line}
	if at != p.at {
		p.depth++
		p.at = at
	}
	k := pathKey{m.thread, m.depth, m.fn, m.pc}
	for _, x := range p.path {
		if x == k {
			loop = true
		}
	}
	p.path = append(append([]pathKey(nil), p.path...), k)
	return p, loop
}

// limit adds the step that says the depth is reached, if it is.
func (o *originSearch) limit(p pos, m moment, name string) bool {
	if p.depth <= o.max {
		return false
	}
	o.add(p.level, OriginLimit, fmt.Sprintf("depth %d reached (ask origin with a larger depth)", o.max), m, name, "")
	return true
}

// explainLoc explains the value a field or element held just before
// the moment end: its last write there, and where that value came from.
func (o *originSearch) explainLoc(tg *writeTarget, end moment, p pos) {
	if o.done() {
		return
	}
	tg.capture = true
	found, _, _, err := o.s.writesBefore(tg, end, 1)
	if err != nil {
		o.err = err
		return
	}
	if len(found) == 0 {
		o.add(p.level, OriginInitial, tg.name+" was never written before: its zero value", moment{}, "", "")
		return
	}
	w := found[0]
	o.add(p.level, OriginWritten, fmt.Sprintf("%s (%s -> %s)", tg.name, w.old, w.new), w.m, w.name, w.new)
	if w.fr == nil {
		return
	}
	in := w.m.fn.Instr(w.m.pc)
	o.explainReg(w.fr, in.C, tg.typ, p)
}

// explainReg explains the value register r of frame fr holds at fr's
// moment (the instruction at fr.m.pc about to run reads it): the
// instruction that wrote it last and where its inputs came from.
func (o *originSearch) explainReg(fr *frameAt, r int32, typ *vm.Type, p pos) {
	if o.done() {
		return
	}
	fn := fr.fn
	if fn.Cont {
		o.add(p.level, OriginUnknown, "the value is in a runtime frame", fr.m, "", "")
		return
	}
	var raw *vm.Value
	if fr.regs != nil && !fr.stale[r] {
		raw = &fr.regs[r]
	}
	// The writer: in the same straight run of code, or by re-execution.
	if q, ok := staticWriter(fn, fr.m.pc, r); ok && fr.regs != nil && !fr.inexact {
		m := fr.m
		m.pc = q
		w := &frameAt{m: m, fn: fn, base: fr.base, regs: fr.regs, stale: map[int32]bool{}}
		for x := range fr.stale {
			w.stale[x] = true
		}
		// (the registers as they were at q: those written from q on differ)
		for pc := q; pc < fr.m.pc; pc++ {
			for _, x := range writtenRegs(fn, fn.Instr(pc)) {
				w.stale[x] = true
			}
		}
		o.explainWriter(w, r, typ, p, o.s.threadName(m.thread), raw)
		return
	}
	end := fr.m
	if fr.until != nil {
		end = *fr.until
	}
	o.explainRegBefore(fr, r, typ, p, end, raw)
}

// explainRegBefore finds by re-execution the last write to register r
// of frame fr before the moment end (fr's, or, for a caller's register
// at its call, the callee's entry), and explains it.
func (o *originSearch) explainRegBefore(fr *frameAt, r int32, typ *vm.Type, p pos, end moment, raw *vm.Value) {
	tg := &writeTarget{kind: watchLocal, name: fmt.Sprintf("r%d", r), typ: typ, thread: fr.m.thread,
		frame: fr.m.depth - 1, fn: fr.fn, base: fr.base, reg: r, lo: 0, hi: -1, capture: true}
	found, entry, _, err := o.s.writesBefore(tg, end, 1)
	if err != nil {
		o.err = err
		return
	}
	if len(found) == 0 {
		o.explainArgument(fr, r, typ, p, entry, raw)
		return
	}
	if found[0].fr == nil {
		o.add(p.level, OriginUnknown, "the writer's frame was not kept", found[0].m, found[0].name, "")
		return
	}
	o.explainWriter(found[0].fr, r, typ, p, found[0].name, raw)
}

// explainWriter explains the instruction of w (at w.m.pc) that writes
// register r, which then holds raw (nil: not known).
func (o *originSearch) explainWriter(w *frameAt, r int32, typ *vm.Type, p pos, name string, raw *vm.Value) {
	fn := w.fn
	in := fn.Instr(w.m.pc)
	m := w.m
	p, loop := p.enter(m)
	if o.limit(p, m, name) {
		return
	}
	if loop {
		o.add(p.level, OriginLoop, "the value of an earlier execution of this statement (a loop): not followed further", m, name, "")
		return
	}
	// A local's assignment is a step of its own; a temporary's is not.
	lv := localAt(fn, m.pc+1, r)
	if lv != nil && typ == nil {
		typ = lv.Type
	}
	value := ""
	if raw != nil && typ != nil {
		value = o.s.brief(*raw, typ, 0)
	}
	if lv != nil {
		o.add(p.level, OriginAssigned, lv.Name, m, name, value)
	}
	if o.refresh(w, in) {
		return
	}
	reg := func(x int32) vm.Value { return w.regs[x] }
	switch op := in.Op; {
	case op == vm.MOVE, op == vm.COPY, op == vm.BOX, op == vm.UNBOX, op == vm.CAST, op == vm.CONV:
		o.explainReg(w, in.B, typ, p)
	case op == vm.LOADK:
		v := o.s.brief(fn.Consts[in.B], typ, 0)
		o.add(p.level, OriginLiteral, "", m, name, v)
	case op == vm.LOADI:
		o.add(p.level, OriginLiteral, "", m, name, fmt.Sprint(in.B))
	case op == vm.LOADNIL:
		o.add(p.level, OriginLiteral, "null or zero", m, name, value)
	case op >= vm.ADDI && op <= vm.NOTNULL, op == vm.CONCAT, op == vm.TOSTR, op == vm.LEN, op == vm.SGET:
		o.add(p.level, OriginComputed, opText(op), m, name, value)
		for _, x := range operands(in) {
			if o.done() {
				return
			}
			o.explainReg(w, x, nil, p.sub())
		}
	case op == vm.GETF:
		obj, ok := reg(in.B).R.(*vm.Object)
		if !ok || obj.PeekID() == 0 {
			o.add(p.level, OriginRead, "a field of a value the recording does not number", m, name, value)
			return
		}
		field := "?"
		var ftyp *vm.Type
		if int(in.C) < len(obj.Class.Fields) {
			field, ftyp = obj.Class.Fields[in.C].Name, obj.Class.Fields[in.C].Type
		}
		o.add(p.level, OriginRead, obj.Class.Name+"."+field, m, name, value)
		if o.limit(p, m, name) {
			return
		}
		o.explainLoc(&writeTarget{kind: watchField, name: obj.Class.Name + "." + field, typ: ftyp, obj: obj.PeekID(), field: in.C}, m, p)
	case op == vm.AGET || op == vm.LGET:
		var id int64
		var et *vm.Type
		switch x := reg(in.B).R.(type) {
		case *vm.Array:
			id, et = x.PeekID(), x.Type.Elem
		case *vm.List:
			id, et = x.PeekID(), x.Type.Elem
		}
		i := int(int64(reg(in.C).N))
		o.add(p.level, OriginRead, fmt.Sprintf("element %d", i), m, name, value)
		if id == 0 || o.limit(p, m, name) {
			return
		}
		o.explainLoc(&writeTarget{kind: watchElem, name: fmt.Sprintf("[%d]", i), typ: et, seq: id, list: op == vm.LGET, index: i}, m, p)
	case op == vm.CALL || op == vm.CALLV || op == vm.CALLI || op == vm.CALLF:
		o.explainReturn(w, in, typ, p, name, value)
	case op == vm.CALLN:
		nat := fn.NCalls[in.B].Native.Name
		if nat == "Channel.recv" {
			o.explainReceive(w, in, typ, p, name, value)
			return
		}
		o.add(p.level, OriginNative, "by "+nat, m, name, value)
	case op == vm.NEW || op == vm.NEWARRAY || op == vm.NEWLIST || op == vm.NEWDICT || op == vm.BIND:
		o.add(p.level, OriginMade, opText(op), m, name, value)
	default:
		o.add(p.level, OriginUnknown, fmt.Sprintf("%s is not followed", op), m, name, value)
	}
}

// refresh makes sure the registers of w that in reads for its identity
// (an object, an array, a channel, a receiver) are those of w's moment:
// registers a static step marked stale are captured again by
// re-executing up to the moment. It reports true when the search must
// stop (an error).
func (o *originSearch) refresh(w *frameAt, in vm.Instr) bool {
	var need []int32
	switch in.Op {
	case vm.GETF, vm.AGET, vm.LGET:
		need = []int32{in.B, in.C}
	case vm.CALLV, vm.CALLI:
		need = []int32{in.A}
	}
	stale := false
	for _, x := range need {
		stale = stale || w.stale[x]
	}
	if !stale {
		return false
	}
	fa, err := o.s.captureAt(w.m)
	if err != nil {
		o.err = err
		return true
	}
	w.regs, w.stale = fa.regs, nil
	return false
}

// captureAt returns the top frame of the thread of moment m (a trap
// moment) there, by re-executing up to it.
func (s *Session) captureAt(m moment) (*frameAt, error) {
	sts := s.stretches(m, func(sp *snap) bool { return sp.beforeMoment(m) })
	cw := &captureWatch{}
	st := stretch{from: sts[0].from, end: m}
	if err := s.scan([]stretch{st}, nil, nil, func(int) scanWatch { return cw }, func(int, scanWatch) bool { return false }, nil); err != nil {
		return nil, err
	}
	if cw.fr == nil {
		return nil, errDiverged
	}
	return cw.fr, nil
}

// captureWatch keeps the frame at the end of its stretch.
type captureWatch struct{ fr *frameAt }

func (w *captureWatch) trap(*vm.Thread, moment) bool { return false }
func (w *captureWatch) event(sched.Event, *scanPass) {}
func (w *captureWatch) atEnd(t *vm.Thread, m moment) { w.fr = captureFrame(t, 0, m) }

// operands returns the registers an operator reads.
func operands(in vm.Instr) []int32 {
	switch in.Op {
	case vm.ADDIK, vm.ADDLK, vm.NEGI, vm.NEGL, vm.NEGF, vm.NEGD, vm.NOT, vm.ISNULL, vm.NOTNULL, vm.TOSTR, vm.LEN:
		return []int32{in.B}
	}
	return []int32{in.B, in.C}
}

// localAt returns the named local held in register r at pc of fn, if any.
func localAt(fn *vm.Funcode, pc, r int32) *vm.LocalVar {
	for i := range fn.Locals {
		lv := &fn.Locals[i]
		if lv.Reg == r && lv.Name != "" && lv.Name[0] != 0 && lv.Name != "this" &&
			(lv.IsParam || lv.StartPC <= pc && (pc < lv.EndPC || lv.EndPC < 0)) {
			return lv
		}
	}
	return nil
}

// explainArgument explains a register no instruction of its frame wrote
// since the frame's activation began (entry): a parameter, passed by the
// caller.
func (o *originSearch) explainArgument(fr *frameAt, r int32, typ *vm.Type, p pos, entry *rawWrite, raw *vm.Value) {
	name := o.s.threadName(fr.m.thread)
	if int(r) >= fr.fn.NumParams {
		o.add(p.level, OriginUnknown, "no instruction wrote it before (the recording may not reach back that far)", fr.m, name, "")
		return
	}
	value := ""
	if raw != nil && typ != nil {
		value = o.s.brief(*raw, typ, 0)
	}
	if entry == nil || entry.caller == nil {
		m := fr.m
		if entry != nil {
			m = entry.m
		}
		o.add(p.level, OriginArgument, "an argument of the thread's function, given to thread.spawn", m, name, value)
		return
	}
	c := entry.caller
	o.add(p.level, OriginArgument, fmt.Sprintf("of %s, passed by the call", fr.fn.Name), c.m, entry.name, value)
	if o.limit(p, c.m, entry.name) {
		return
	}
	// The callee's registers begin at the caller's argument registers.
	cr := entry.fr.base - c.base + r
	if cr < 0 || int(cr) >= len(c.regs) {
		o.add(p.level, OriginUnknown, "the call's arguments are not in the caller's registers", c.m, entry.name, "")
		return
	}
	// (the caller's registers at the call, as the callee's entry saw them)
	at := &frameAt{m: c.m, fn: c.fn, base: c.base, regs: c.regs}
	if q, ok := staticWriter(c.fn, c.m.pc, cr); ok {
		m := c.m
		m.pc = q
		o.explainWriter(&frameAt{m: m, fn: c.fn, base: c.base, regs: c.regs}, cr, typ, p, entry.name, &c.regs[cr])
		return
	}
	o.explainRegBefore(at, cr, typ, p, entry.m, &c.regs[cr])
}

// staticWriter returns the instruction that last wrote register r
// before pc of fn when the code alone says so: it is in the same
// straight run of instructions as pc (no jump into or out of the run,
// no call in between), so the thread ran it just before, at the same
// reductions. The writer itself may be a native call that runs no NLang
// code.
func staticWriter(fn *vm.Funcode, pc, r int32) (int32, bool) {
	targets := jumpTargets(fn)
	for q := pc - 1; q >= 0; q-- {
		in := fn.Instr(q)
		if writesReg(fn, in, r) {
			if in.Op.Info().Is(vm.Straight) || in.Op == vm.MOVE || in.Op == vm.CALLN && plainNative(fn.NCalls[in.B].Native.Name) {
				return q, true
			}
			return 0, false
		}
		if !in.Op.Info().Is(vm.Straight) || targets[q] {
			return 0, false // (q is entered from elsewhere, or calls)
		}
	}
	return 0, false
}

// writesReg reports whether in writes register r (a call: its result
// only).
func writesReg(fn *vm.Funcode, in vm.Instr, r int32) bool {
	switch in.Op {
	case vm.CALL, vm.CALLV, vm.CALLI, vm.CALLN, vm.CALLF:
		return in.C == r
	}
	for _, x := range writtenRegs(fn, in) {
		if x == r {
			return true
		}
	}
	return false
}

// plainNative reports whether the native runs no NLang code and spends
// no reductions (the thread's reductions are the same before and after
// it, even if it parks).
func plainNative(name string) bool {
	return strings.HasPrefix(name, "Channel.") || strings.HasPrefix(name, "Future.") ||
		strings.HasPrefix(name, "AtomicInt.") || strings.HasPrefix(name, "io.read") || strings.HasPrefix(name, "math.")
}

// jumpTargets returns the pcs of fn that a jump or a handler enters.
func jumpTargets(fn *vm.Funcode) map[int32]bool {
	out := map[int32]bool{}
	for pc := range fn.Code {
		if target, ok := fn.Instr(int32(pc)).JumpTarget(); ok {
			out[target] = true
		}
	}
	for _, h := range fn.Handlers {
		out[h.Target] = true
	}
	return out
}

// explainReturn explains the result of a call at w: the callee's return.
func (o *originSearch) explainReturn(w *frameAt, in vm.Instr, typ *vm.Type, p pos, name, value string) {
	m := w.m
	callee := "a function value"
	switch in.Op {
	case vm.CALL:
		callee = w.fn.Funcs[in.B].Name
	case vm.CALLV, vm.CALLI:
		callee = "a method"
		if obj, ok := w.regs[in.A].R.(*vm.Object); ok {
			callee = "a method of " + obj.Class.Name
		}
	}
	o.add(p.level, OriginReturned, "by "+callee, m, name, value)
	if o.limit(p, m, name) {
		return
	}
	ret, err := o.s.callReturn(w, in)
	if err != nil {
		o.err = err
		return
	}
	if ret == nil {
		o.add(p.level, OriginUnknown, "the call's return was not found before the present", m, name, "")
		return
	}
	rin := ret.fn.Instr(ret.m.pc)
	if rin.Op != vm.RET {
		o.add(p.level, OriginUnknown, "the call returned no value", ret.m, name, "")
		return
	}
	o.explainReg(ret, rin.A, typ, p)
}

// explainReceive explains the value a Channel.recv at w received: the
// send that delivered it, and where the sent value came from.
func (o *originSearch) explainReceive(w *frameAt, in vm.Instr, typ *vm.Type, p pos, name, value string) {
	m := w.m
	snd, err := o.s.channelSender(w, in)
	if err != nil {
		o.err = err
		return
	}
	if snd == nil {
		o.add(p.level, OriginReceived, "from a channel (the send was not found)", m, name, value)
		return
	}
	o.add(p.level, OriginReceived, fmt.Sprintf("from a channel, sent by thread %d %q", snd.m.thread, snd.name), m, name, value)
	if o.limit(p, snd.m, snd.name) {
		return
	}
	o.add(p.level, OriginSent, "on the channel", snd.m, snd.name, value)
	sin := snd.fn.Instr(snd.m.pc)
	o.explainReg(&snd.frameAt, sin.A+1, typ, p)
}

// lineSource returns the source of the line of moment m, trimmed, without
// its comment ("" if unknown).
func (s *Session) lineSource(m moment) string {
	if m.fn == nil {
		return ""
	}
	p := place(m.fn, m.pc)
	src, ok := s.Source(p.File)
	if !ok {
		return ""
	}
	lines := strings.Split(string(src), "\n")
	if p.Line < 1 || p.Line > len(lines) {
		return ""
	}
	text := strings.TrimSpace(lines[p.Line-1])
	if i := strings.Index(text, "//"); i >= 0 {
		text = strings.TrimSpace(text[:i])
	}
	return text
}

// opText names what an instruction computes, in the source's terms.
func opText(op vm.Opcode) string {
	name := op.String()
	for _, x := range []struct{ prefix, text string }{
		{"add", "+"}, {"sub", "-"}, {"mul", "*"}, {"div", "/"}, {"mod", "%"}, {"neg", "unary -"},
		{"not", "!"}, {"eq", "=="}, {"ne", "!="}, {"lt", "<"}, {"le", "<="}, {"isnull", "== null"},
		{"notnull", "!= null"}, {"concat", "+ (strings)"}, {"tostr", "conversion to string"}, {"len", "length"},
		{"sget", "a byte of a string"}, {"newarray", "a new array"}, {"newlist", "a new List"},
		{"newdict", "a new Dict"}, {"new", "a new object"}, {"bind", "a function value"},
	} {
		if strings.HasPrefix(name, x.prefix) {
			return x.text
		}
	}
	return name
}

// threadName returns the name of thread id in the session's run ("" if
// it is gone).
func (s *Session) threadName(id int64) string {
	if t := s.r.sch.Thread(id); t != nil {
		return t.Name()
	}
	return fmt.Sprintf("thread-%d", id)
}

// callReturn finds the return of the call at w (the instruction in): the
// callee's RET, with its frame, by re-executing from the checkpoint
// before the call until the callee returns.
func (s *Session) callReturn(w *frameAt, in vm.Instr) (*frameAt, error) {
	var keys []trapKey
	keys = append(keys, trapKey{w.fn, w.m.pc})
	var callees []*vm.Funcode
	switch in.Op {
	case vm.CALL:
		callees = []*vm.Funcode{w.fn.Funcs[in.B]}
	default:
		short := ""
		if in.Op == vm.CALLI {
			short = w.fn.Dyns[in.B].Name
		}
		for _, fn := range s.prog.Funcs {
			if short == "" || fn.Short == short {
				callees = append(callees, fn)
			}
		}
	}
	for _, fn := range callees {
		for pc := range fn.Code {
			if op := fn.Instr(int32(pc)).Op; op == vm.RET || op == vm.RETV {
				keys = append(keys, trapKey{fn, int32(pc)})
			}
		}
	}
	now := s.present()
	sts := s.stretches(now, func(sp *snap) bool { return sp.beforeMoment(w.m) })
	rw := &returnWatch{call: w.m}
	err := s.scan(sts[:1], keys, nil, func(int) scanWatch { return rw }, func(int, scanWatch) bool { return false }, nil)
	if err != nil {
		return nil, err
	}
	for _, st := range sts[1:] {
		if rw.ret != nil || err != nil {
			break
		}
		// (a call that returned past the first stretch: the next one)
		err = s.scan([]stretch{st}, keys, nil, func(int) scanWatch { return rw }, func(int, scanWatch) bool { return false }, nil)
	}
	return rw.ret, err
}

// returnWatch finds the return of a call: the first RET one frame deeper
// than the call, in its thread, after the call.
type returnWatch struct {
	call   moment
	called bool
	ret    *frameAt
}

func (w *returnWatch) event(sched.Event, *scanPass) {}

func (w *returnWatch) trap(t *vm.Thread, m moment) bool {
	switch {
	case m == w.call:
		w.called = true
	case w.called && w.ret == nil && t.ID == w.call.thread && m.depth == w.call.depth+1:
		if op := m.fn.Instr(m.pc).Op; op == vm.RET || op == vm.RETV {
			w.ret = captureFrame(t, 0, m)
			return true // (the answer: the pass ends here)
		}
	}
	return false
}

// sendInfo is the send that delivered a received value.
type sendInfo struct {
	frameAt
	name string
}

// errBeforeStretch is a channel's value sent before the stretch a
// re-execution started at.
var errBeforeStretch = errors.New("sent before the stretch")

// channelSender finds the send that delivered the value the
// Channel.recv at w received. Channels deliver in order: the re-execution
// follows every channel operation from a checkpoint before the receive,
// and matches sends to receives as the channel does.
func (s *Session) channelSender(w *frameAt, in vm.Instr) (*sendInfo, error) {
	var keys []trapKey
	for _, fn := range s.prog.Funcs {
		for pc := range fn.Code {
			if x := fn.Instr(int32(pc)); x.Op == vm.CALLN {
				switch fn.NCalls[x.B].Native.Name {
				case "Channel.send", "Channel.trySend", "Channel.recv", "Channel.tryRecv", "Channel.close":
					keys = append(keys, trapKey{fn, int32(pc)})
				}
			}
		}
	}
	// The end: the instruction after the receive (the value has arrived).
	after := w.m
	after.pc++
	sts := s.stretches(after, nil)
	for i := len(sts) - 1; i >= 0; i-- {
		// from checkpoint i to the instruction after the receive: before
		// the receive, or while its thread was parked in it (a parked
		// receiver of the channel then)
		st := stretch{from: sts[i].from, end: after}
		cw := &chanWatch{recv: w.m, chans: map[*sched.Channel]*chanQueue{}}
		err := s.scan([]stretch{st}, keys, nil, func(int) scanWatch { return cw }, func(int, scanWatch) bool { return false }, nil)
		if err != nil {
			return nil, err
		}
		if (cw.unknown || cw.sender == nil) && st.from != nil {
			// sent before this checkpoint (delivered to the receiver
			// parked there, or waiting in the channel): from an earlier one
			continue
		}
		return cw.sender, nil
	}
	return nil, nil
}

// chanQueue is a channel as a re-execution follows it: the sends not yet
// received (buffered or parked, in order; nil: sent before the
// re-execution started) and the receivers waiting (for one parked
// before it started, only its thread is known).
type chanQueue struct {
	sends []*sendInfo
	recvs []recvEntry
}

// recvEntry is a receive waiting for a send.
type recvEntry struct {
	m      moment
	parked *vm.Thread // parked before the re-execution started (m unknown)
}

// chanWatch follows the channel operations of a re-execution to find the
// sender of the value the receive recv gets.
type chanWatch struct {
	recv    moment
	chans   map[*sched.Channel]*chanQueue
	sender  *sendInfo
	unknown bool // the receive got a value sent before the re-execution began
}

func (w *chanWatch) event(sched.Event, *scanPass) {}

// queue returns the channel's queue, made at its first operation from its
// state then (what it holds was sent before).
func (w *chanWatch) queue(c *sched.Channel) *chanQueue {
	q := w.chans[c]
	if q == nil {
		q = &chanQueue{}
		info := c.Snapshot()
		for range len(info.Buffer) + len(info.Senders) {
			q.sends = append(q.sends, nil)
		}
		for _, r := range info.Receivers {
			q.recvs = append(q.recvs, recvEntry{parked: r})
		}
		w.chans[c] = q
	}
	return q
}

// match notes that the receive r gets the value of send snd (nil: sent
// before). A receiver parked before the re-execution began is the
// receive asked about if it is its thread, parked at it (its reductions
// are the receive's: a parked thread spends none).
func (w *chanWatch) match(r recvEntry, snd *sendInfo) {
	ours := r.m == w.recv && r.parked == nil
	if t := r.parked; t != nil && t.ID == w.recv.thread && t.Reductions() == w.recv.red && t.Depth() == w.recv.depth {
		ours = t.Frame(0).Fn == w.recv.fn && t.DebugFrame(0).PC() == w.recv.pc
	}
	if ours {
		w.sender, w.unknown = snd, snd == nil
	}
}

func (w *chanWatch) trap(t *vm.Thread, m moment) bool {
	f := t.Frame(0)
	in := m.fn.Instr(m.pc)
	c, ok := t.Reg(f, in.A).R.(*sched.Channel)
	if !ok || c == nil {
		return false
	}
	q := w.queue(c)
	info := c.Snapshot()
	switch m.fn.NCalls[in.B].Native.Name {
	case "Channel.send", "Channel.trySend":
		if info.Closed {
			return false // it throws
		}
		try := m.fn.NCalls[in.B].Native.Name == "Channel.trySend"
		snd := &sendInfo{frameAt: *captureFrame(t, 0, m), name: t.Name()}
		switch {
		case len(q.recvs) > 0:
			r := q.recvs[0]
			q.recvs = q.recvs[1:]
			w.match(r, snd)
		case try && len(info.Buffer) >= info.Cap:
			// (a trySend that finds no room sends nothing)
		default:
			q.sends = append(q.sends, snd)
		}
	case "Channel.recv", "Channel.tryRecv":
		switch {
		case len(q.sends) > 0:
			snd := q.sends[0]
			q.sends = q.sends[1:]
			w.match(recvEntry{m: m}, snd)
		case info.Closed, m.fn.NCalls[in.B].Native.Name == "Channel.tryRecv":
			// it throws, or gets nothing
		default:
			q.recvs = append(q.recvs, recvEntry{m: m})
		}
	case "Channel.close":
		if !info.Closed {
			// the parked senders and receivers fail
			q.sends = q.sends[:min(len(q.sends), len(info.Buffer))]
			q.recvs = nil
		}
	}
	return false
}
