package vm

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
)

// Reloading: the debugger's edit and continue. A program edited while
// it is paused is compiled afresh (package compile, told of the program
// it replaces so that the classes they share keep their layout), and the
// paused execution is copied (Copier) onto a machine of the new program
// through a Relink, which maps everything the execution refers to in the
// old program — classes, types, functions — to its counterpart in the
// new one. The old program is left as it was: the debugger's copies of
// the execution made before the reload (its checkpoints) still run it.
//
// Functions are matched by signature (name, parameter and result
// types). A frame of a function whose code did not change goes on in the
// new function at the same pc. A frame of a function whose code changed
// finishes on the code it started with — an obsolete copy of the old
// function (Funcode.Obsolete), whose calls, allocations and casts are
// relinked to the new program, so that every call it makes takes the new
// code — unless it has not started yet (pc 0: the thread was spawned, or
// stopped at the function's entry), or the debugger asked to move it
// (Relink.Move) and its statement is unchanged. Objects of a class that
// gained fields get them, zeroed (the caller runs their initialisers:
// Relink.Grown). Nothing here runs while the program runs: the hot loop
// pays nothing for reloading.

// Relink maps a program's code, classes and types to those of the program
// that replaces it. Set it as a Copier's Relink to copy an execution of
// Old onto a machine of New.
type Relink struct {
	Old, New *Program
	// Move makes a thread's innermost frame in a changed function go on
	// in the new code at the same statement, when the statement's line
	// is unchanged (LineMap) and every local the new code has there was
	// a local of the old code with the same name and type.
	Move bool
	// LineMap maps a line of a file of Old to the same line in New (false:
	// the line changed or is gone). Move needs it.
	LineMap func(file string, line int32) (int32, bool)

	// Grown lists the copies of the objects whose class gained fields,
	// in the order they were copied.
	Grown []*Object
	// Fates tells where each frame of a changed function went on.
	Fates []FrameFate

	classes  map[*Class]*Class
	types    map[*Type]*Type
	bySig    map[string]*Funcode   // New's functions by signature
	funcs    map[*Funcode]*Funcode // Old's function → New's of the same signature (nil: none)
	old      map[*Funcode]bool     // Old's functions
	same     map[*Funcode]bool     // memo of sameCode
	obsolete map[*Funcode]*Funcode // an old function → its relinked copy
	fvals    map[*FuncVal]*FuncVal
	sigs     map[*Funcode]string // Signature, made once
}

// FrameFate says where a frame of a function whose code changed goes on.
type FrameFate struct {
	Thread int64
	Depth  int // 0: the innermost frame
	Func   string
	// How: FateOld (it finishes on its old code), FateNew (it had not
	// started: it runs the new code from its entry) or FateMoved (it
	// goes on at the same statement of the new code).
	How  Fate
	Line int32 // the line it is at (of the code it goes on in)
	// Why says, for FateOld with Move asked for, why it could not move.
	Why string
}

// Fate is what became of a frame in a reload (FrameFate).
type Fate uint8

// Frame fates.
const (
	FateOld Fate = iota
	FateNew
	FateMoved
)

func (f Fate) String() string {
	switch f {
	case FateNew:
		return "new code from its entry"
	case FateMoved:
		return "moved to the new code"
	}
	return "old code"
}

// NewRelink returns the relink from old to new (new replaces old).
func NewRelink(old, new *Program) *Relink {
	r := &Relink{Old: old, New: new, classes: map[*Class]*Class{}, types: map[*Type]*Type{},
		bySig: map[string]*Funcode{}, funcs: map[*Funcode]*Funcode{}, old: map[*Funcode]bool{},
		same: map[*Funcode]bool{}, obsolete: map[*Funcode]*Funcode{}, fvals: map[*FuncVal]*FuncVal{},
		sigs: make(map[*Funcode]string, len(old.Funcs)+len(new.Funcs))}
	for _, f := range new.Funcs {
		if sig := r.Sig(f); r.bySig[sig] == nil {
			r.bySig[sig] = f
		}
	}
	for _, f := range old.Funcs {
		r.old[f] = true
		r.funcs[f] = r.bySig[r.Sig(f)]
	}
	return r
}

// Sig is Signature(f), made once per function.
func (r *Relink) Sig(f *Funcode) string {
	s, ok := r.sigs[f]
	if !ok {
		s = Signature(f)
		r.sigs[f] = s
	}
	return s
}

// Signature identifies a function across two compilations of a
// program: its name, parameter types and result ("Point.move(Point,
// int)void").
func Signature(f *Funcode) string {
	var b strings.Builder
	b.WriteString(f.Name)
	b.WriteByte('(')
	for i, p := range f.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		if i < len(f.ParamOut) && f.ParamOut[i] {
			b.WriteString("out ")
		}
		b.WriteString(p.String())
	}
	b.WriteByte(')')
	b.WriteString(f.Result.String())
	return b.String()
}

// Class returns the class of New that stands for c (c itself if New has
// none of its name: a class the runtime made).
func (r *Relink) Class(c *Class) *Class {
	if c == nil {
		return nil
	}
	if n, ok := r.classes[c]; ok {
		return n
	}
	n := r.New.ClassByName(c.Name)
	if n == nil {
		n = c
	}
	r.classes[c] = n
	return n
}

// Type returns the type of New that stands for t.
func (r *Relink) Type(t *Type) *Type {
	if t == nil {
		return nil
	}
	switch t.Kind {
	case KClass, KInterface, KStruct, KEnum, KArray, KList, KDict, KFunc, KHost:
	default:
		return t // (predeclared types are shared)
	}
	if n, ok := r.types[t]; ok {
		return n
	}
	var n *Type
	switch t.Kind {
	case KClass, KInterface, KStruct, KEnum:
		n = ClassType(r.Class(t.Class))
	case KArray:
		n = ArrayOf(r.Type(t.Elem))
	case KList:
		n = ListOf(r.Type(t.Elem))
	case KDict:
		n = DictOf(r.Type(t.Key), r.Type(t.Elem))
	case KFunc:
		n = FuncOf(r.Type(t.Result), r.typeList(t.Args), t.Out)
	case KHost:
		n = HostOf(t.Host, r.typeList(t.Args))
	default:
		n = t
	}
	r.types[t] = n
	return n
}

func (r *Relink) typeList(ts []*Type) []*Type {
	if ts == nil {
		return nil
	}
	out := make([]*Type, len(ts))
	for i, t := range ts {
		out[i] = r.Type(t)
	}
	return out
}

// NewVersion returns the function of New with f's signature, or nil.
func (r *Relink) NewVersion(f *Funcode) *Funcode {
	switch {
	case r.old[f]:
		return r.funcs[f]
	case f.Obsolete: // the old code of an earlier reload
		return r.bySig[r.Sig(f)]
	}
	return nil
}

// Changed reports whether f, a function of Old, has no function of New
// with its signature and the same code.
func (r *Relink) Changed(f *Funcode) bool {
	n := r.NewVersion(f)
	return n == nil || !r.sameCode(f, n)
}

// Func returns what a reference to f (a call of old code, a function
// value) stands for in New: the function of New with f's signature, or,
// if there is none, f's obsolete copy. Functions of neither program (the
// runtime's continuations) stand for themselves.
func (r *Relink) Func(f *Funcode) *Funcode {
	if f == nil {
		return nil
	}
	if n := r.NewVersion(f); n != nil {
		return n
	}
	if r.old[f] || f.Obsolete {
		return r.Obsolete(f)
	}
	return f
}

// Obsolete returns f's obsolete copy: its code as compiled, without
// traps, whose references are relinked to New (made once).
func (r *Relink) Obsolete(f *Funcode) *Funcode {
	if cp, ok := r.obsolete[f]; ok {
		return cp
	}
	cp := new(Funcode)
	*cp = *f
	r.obsolete[f] = cp // (before the references: a recursive function)
	cp.Obsolete = true
	cp.trapped = nil
	cp.Code = make([]Instr, len(f.Code))
	for pc := range f.Code {
		cp.Code[pc] = f.Instr(int32(pc))
	}
	cp.Class = r.Class(f.Class)
	cp.Params = r.typeList(f.Params)
	cp.Result = r.Type(f.Result)
	cp.Consts = make([]Value, len(f.Consts))
	for i, v := range f.Consts {
		cp.Consts[i] = r.value(v)
	}
	cp.Locals = append([]LocalVar(nil), f.Locals...)
	for i := range cp.Locals {
		cp.Locals[i].Type = r.Type(cp.Locals[i].Type)
	}
	cp.Handlers = append([]Handler(nil), f.Handlers...)
	for i := range cp.Handlers {
		cp.Handlers[i].Class = r.Class(cp.Handlers[i].Class)
	}
	cp.NCalls = append([]NCall(nil), f.NCalls...)
	for i := range cp.NCalls {
		cp.NCalls[i].Type = r.Type(cp.NCalls[i].Type)
	}
	cp.Binds = append([]Bind(nil), f.Binds...)
	for i := range cp.Binds {
		b := &cp.Binds[i]
		b.Fn, b.Type, b.val = r.Func(b.Fn), r.Type(b.Type), nil
	}
	cp.Funcs = make([]*Funcode, len(f.Funcs))
	for i, g := range f.Funcs {
		cp.Funcs[i] = r.Func(g)
	}
	cp.Classes = make([]*Class, len(f.Classes))
	for i, c := range f.Classes {
		cp.Classes[i] = r.Class(c)
	}
	cp.Types = r.typeList(f.Types)
	cp.finish()
	return cp
}

// Origins returns the obsolete copies made so far, each with the
// function it is a copy of.
func (r *Relink) Origins() map[*Funcode]*Funcode {
	out := make(map[*Funcode]*Funcode, len(r.obsolete))
	for f, cp := range r.obsolete {
		out[cp] = f
	}
	return out
}

// Obsoletes returns the obsolete copies made so far, by name.
func (r *Relink) Obsoletes() []*Funcode {
	var out []*Funcode
	for _, f := range r.obsolete {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// finish prepares one function to run (Program.Finish).
func (f *Funcode) finish() {
	f.icache = make([]atomic.Pointer[icEntry], len(f.Dyns))
	for i := range f.Binds {
		b := &f.Binds[i]
		b.val = &FuncVal{Fn: b.Fn, Native: b.Native, Name: b.Name, Type: b.Type}
	}
}

// value relinks what a value refers to in the program (a boxed enum's
// type, a function value); other references stay.
func (r *Relink) value(v Value) Value {
	switch x := v.R.(type) {
	case *Type:
		v.R = r.Type(x)
	case *FuncVal:
		if !x.Bound {
			v.R = r.funcVal(x)
		}
	}
	return v
}

// funcVal returns the relinked copy of an unbound function value (one
// copy per value).
func (r *Relink) funcVal(f *FuncVal) *FuncVal {
	if f == nil {
		return nil
	}
	if cp, ok := r.fvals[f]; ok {
		return cp
	}
	cp := &FuncVal{Fn: r.Func(f.Fn), Native: f.Native, Name: f.Name, Type: r.Type(f.Type)}
	r.fvals[f] = cp
	return cp
}

// sameCode reports whether o (of Old) and n (of New) execute alike: the
// same instructions on the same registers, referring to the same
// functions, classes, types and constants (positions and local names may
// differ).
func (r *Relink) sameCode(o, n *Funcode) bool {
	if s, ok := r.same[o]; ok {
		return s
	}
	s := sameCode(o, n, r.Sig)
	r.same[o] = s
	return s
}

// SameCode reports whether o and n, functions of two compilations,
// execute alike: the same instructions (as compiled, without traps) on
// the same registers, referring to functions, classes, types and
// constants of the same names and values (positions and local names may
// differ).
func SameCode(o, n *Funcode) bool { return sameCode(o, n, Signature) }

func sameCode(o, n *Funcode, sig func(*Funcode) string) bool {
	if o.NumParams != n.NumParams || o.NumRegs != n.NumRegs || len(o.Code) != len(n.Code) ||
		o.IsCtor != n.IsCtor || o.Virtual != n.Virtual || o.VIndex != n.VIndex || o.NeedsThis != n.NeedsThis ||
		len(o.Consts) != len(n.Consts) || len(o.Funcs) != len(n.Funcs) || len(o.Classes) != len(n.Classes) ||
		len(o.Types) != len(n.Types) || len(o.NCalls) != len(n.NCalls) || len(o.Dyns) != len(n.Dyns) ||
		len(o.Binds) != len(n.Binds) || len(o.Handlers) != len(n.Handlers) || len(o.ArgCopies) != len(n.ArgCopies) {
		return false
	}
	for pc := range o.Code {
		if o.Instr(int32(pc)) != n.Instr(int32(pc)) {
			return false
		}
	}
	for i, c := range o.Consts {
		if !sameValue(c, n.Consts[i]) {
			return false
		}
	}
	for i, g := range o.Funcs {
		if sig(g) != sig(n.Funcs[i]) {
			return false
		}
	}
	for i, c := range o.Classes {
		if c.Name != n.Classes[i].Name {
			return false
		}
	}
	for i, t := range o.Types {
		if t.String() != n.Types[i].String() {
			return false
		}
	}
	for i, c := range o.NCalls {
		d := n.NCalls[i]
		if c.Native.Name != d.Native.Name || c.NArgs != d.NArgs || c.Type.String() != d.Type.String() {
			return false
		}
	}
	for i, d := range o.Dyns {
		if d != n.Dyns[i] {
			return false
		}
	}
	for i, b := range o.Binds {
		c := n.Binds[i]
		if (b.Fn == nil) != (c.Fn == nil) || b.Fn != nil && sig(b.Fn) != sig(c.Fn) ||
			(b.Native == nil) != (c.Native == nil) || b.Native != nil && b.Native.Name != c.Native.Name ||
			b.Name != c.Name || b.Type.String() != c.Type.String() {
			return false
		}
	}
	for i, h := range o.Handlers {
		k := n.Handlers[i]
		if h.StartPC != k.StartPC || h.EndPC != k.EndPC || h.Target != k.Target || h.Reg != k.Reg ||
			(h.Class == nil) != (k.Class == nil) || h.Class != nil && h.Class.Name != k.Class.Name {
			return false
		}
	}
	for i, a := range o.ArgCopies {
		if a != n.ArgCopies[i] {
			return false
		}
	}
	return true
}

// sameValue compares two constants of two compilations.
func sameValue(a, b Value) bool {
	if a.N != b.N {
		return false
	}
	switch x := a.R.(type) {
	case nil:
		return b.R == nil
	case string:
		y, ok := b.R.(string)
		return ok && x == y
	case *Type:
		y, ok := b.R.(*Type)
		return ok && x.String() == y.String()
	}
	return fmt.Sprintf("%T %v", a.R, a.R) == fmt.Sprintf("%T %v", b.R, b.R)
}

// grow gives a copy o, whose class (already New's) has more fields than
// the original had (n), its new fields, zeroed in o.Fields[n:]: a struct
// field gets a zero struct (as NewObject does). Called by the Copier,
// which made o.Fields long enough.
func (r *Relink) grow(m *Machine, o *Object, n int) {
	for i := n; i < len(o.Fields); i++ {
		if f := o.Class.Fields[i]; f.Type.Kind == KStruct {
			o.Fields[i] = RefV(m.NewObject(f.Type.Class))
		}
	}
	r.Grown = append(r.Grown, o)
}

// relinkThread decides where each frame of cp, a copy of t being made,
// goes on (see the file comment), and relinks the thread's other
// references to the program. cp's registers are still shallow copies.
func (r *Relink) relinkThread(t, cp *Thread) {
	for i := range cp.frames {
		f := &cp.frames[i]
		depth := len(cp.frames) - 1 - i
		o := f.Fn
		if !r.old[o] && !o.Obsolete {
			continue // a continuation
		}
		n := r.NewVersion(o)
		if n != nil && r.sameCode(o, n) {
			f.Fn = n
			continue
		}
		fate := FrameFate{Thread: t.ID, Depth: depth, Func: o.Name, How: FateOld}
		switch {
		case n != nil && depth == 0 && f.PC == 0:
			fate.How = FateNew
			r.resize(cp, f, n.NumRegs)
			f.Fn = n
		case n != nil && depth == 0 && r.Move:
			if why := r.moveTop(cp, f, n); why != "" {
				fate.Why = why
				f.Fn = r.Obsolete(o)
			} else {
				fate.How = FateMoved
			}
		default:
			if n != nil && r.Move {
				fate.Why = "it is not the innermost frame (it waits for a call to return)"
			}
			f.Fn = r.Obsolete(o)
		}
		fate.Line, _ = f.Fn.Pos(f.PC)
		r.Fates = append(r.Fates, fate)
	}
	if cc := cp.cold; cc != nil && cc.skipFn != nil {
		if len(cp.frames) > 0 && t.frames[len(t.frames)-1].Fn == cc.skipFn {
			top := cp.frames[len(cp.frames)-1]
			cc.skipFn, cc.skipPC = top.Fn, top.PC
		} else {
			cc.skipFn = r.Func(cc.skipFn)
		}
	}
}

// resize makes the registers of f, the innermost frame of cp, n long.
func (r *Relink) resize(cp *Thread, f *Frame, n int) {
	need := int(f.Base) + n
	if need <= len(cp.stack) {
		return
	}
	if need <= cap(cp.stack) {
		cp.stack = cp.stack[:need]
		return
	}
	st := make([]Value, need, need+4)
	copy(st, cp.stack)
	cp.stack = st
}

// moveTop moves f, the innermost frame of cp, at a statement boundary of
// an old function, to the same statement of n (see Relink.Move), with
// its locals carried by name. It returns why it cannot ("" if done).
func (r *Relink) moveTop(cp *Thread, f *Frame, n *Funcode) string {
	o := f.Fn
	if cp.inNative || (cp.cold != nil && cp.cold.call != nil) {
		return "the thread is inside a native call"
	}
	var at LineEntry
	ord, found := 0, false
	for _, e := range o.Lines {
		if e.Stmt && e.PC == f.PC {
			at, found = e, true
			break
		}
	}
	if !found {
		return "it is not at the start of a statement"
	}
	for _, e := range o.Lines {
		if e.Stmt && e.Line == at.Line && e.Col == at.Col && e.PC < at.PC {
			ord++ // (a rotated loop's test has two starts)
		}
	}
	if r.LineMap == nil {
		return "the edit is not known line by line"
	}
	line, ok := r.LineMap(o.File, at.Line)
	if !ok {
		return fmt.Sprintf("line %d was changed", at.Line)
	}
	npc := int32(-1)
	for _, e := range n.Lines {
		if e.Stmt && e.Line == line && e.Col == at.Col {
			if ord == 0 {
				npc = e.PC
				break
			}
			ord--
		}
	}
	if npc < 0 {
		return fmt.Sprintf("the new code has no statement at line %d", line)
	}
	live := func(l LocalVar, pc int32) bool { return pc >= l.StartPC && (pc < l.EndPC || l.EndPC < 0) }
	regs := make([]Value, n.NumRegs)
	old := cp.stack[f.Base : int(f.Base)+o.NumRegs]
	for _, nl := range n.Locals {
		if !live(nl, npc) {
			continue
		}
		from := int32(-1)
		for _, ol := range o.Locals {
			if ol.Name == nl.Name && live(ol, f.PC) && ol.Type.String() == nl.Type.String() {
				from = ol.Reg
			}
		}
		if from < 0 {
			return fmt.Sprintf("the new code has a variable %s there that the old code had not set", nl.Name)
		}
		regs[nl.Reg] = old[from]
	}
	for i := 0; i < n.NumParams && i < o.NumParams; i++ {
		regs[i] = old[i]
	}
	for i, c := range n.ArgCopies {
		if c >= 0 {
			regs[c] = argument(o, old, i)
		}
	}
	r.resize(cp, f, n.NumRegs)
	copy(cp.stack[f.Base:], regs)
	f.Fn, f.PC = n, npc
	return ""
}

// argument returns the value parameter i of a frame of fn was called
// with, from its registers regs: the copy the function keeps of a
// parameter it assigns (ArgCopies), else the parameter itself.
func argument(fn *Funcode, regs []Value, i int) Value {
	if i < len(fn.ArgCopies) && fn.ArgCopies[i] >= 0 {
		return regs[fn.ArgCopies[i]]
	}
	return regs[i]
}

// Arguments returns the values the innermost-but-depth frame of t was
// called with (see argument). Valid only while t is stopped.
func (t *Thread) Arguments(depth int) []Value {
	f := t.Frame(depth)
	regs := t.stack[f.Base : int(f.Base)+f.Fn.NumRegs]
	out := make([]Value, f.Fn.NumParams)
	for i := range out {
		out[i] = argument(f.Fn, regs, i)
	}
	return out
}

// RestartFrameIn drops the frames above frame depth of t and re-enters
// fn — the frame's function, or its new version after a reload (the same
// parameters) — at its first instruction with the arguments the frame was
// called with. Call it only while the thread is stopped, with depth
// checked (no native call in progress up to it).
func (t *Thread) RestartFrameIn(depth int, fn *Funcode) {
	args := t.Arguments(depth)
	t.frames = t.frames[:len(t.frames)-depth]
	f := &t.frames[len(t.frames)-1]
	if need := int(f.Base) + fn.NumRegs; need > len(t.stack) {
		t.growStack(need, false)
	}
	copy(t.stack[f.Base:], args)
	// The entry's copies of the arguments (the first instructions): made
	// here, so that the frame starts at its first statement.
	pc := int32(0)
	for i, c := range fn.ArgCopies {
		if c >= 0 && i < len(args) {
			t.stack[f.Base+c] = args[i]
			pc++
		}
	}
	f.Fn, f.PC = fn, pc
	if c := t.cold; c != nil {
		c.call, c.reported = nil, nil
	}
	t.skipAt(fn, pc)
}
