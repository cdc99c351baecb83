package compile

import (
	"sort"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// fbuilder accumulates the code and tables of one function.
type fbuilder struct {
	fn      *vm.Funcode
	top     int32 // first free register
	max     int32
	lastPos syntax.Pos

	consts   map[any]int32
	funcs    map[*vm.Funcode]int32
	classes  map[*vm.Class]int32
	types    map[*vm.Type]int32
	handlers []handlerEntry
}

type handlerEntry struct {
	h     vm.Handler
	depth int
	order int
}

func newBuilder(fn *vm.Funcode) *fbuilder {
	return &fbuilder{fn: fn, consts: map[any]int32{}, funcs: map[*vm.Funcode]int32{},
		classes: map[*vm.Class]int32{}, types: map[*vm.Type]int32{}}
}

func (b *fbuilder) pc() int32 { return int32(len(b.fn.Code)) }

func (b *fbuilder) emit(op vm.Opcode, a, bb, c int32) int32 {
	b.fn.Code = append(b.fn.Code, vm.Instr{Op: op, A: a, B: bb, C: c})
	return int32(len(b.fn.Code) - 1)
}

// patch sets the jump target of the jump at pc to target (the operand
// the opcode table names).
func (b *fbuilder) patch(pc, target int32) {
	in := &b.fn.Code[pc]
	in.SetOperand(in.Op.Info().Target, target)
}

// patchHere points the jumps at pcs to the current pc.
func (b *fbuilder) patchHere(pcs []int32) {
	for _, p := range pcs {
		b.patch(p, b.pc())
	}
}

// alloc reserves n consecutive registers and returns the first.
func (b *fbuilder) alloc(n int32) int32 {
	r := b.top
	b.top += n
	if b.top > b.max {
		b.max = b.top
	}
	return r
}

func (b *fbuilder) temp() int32 { return b.alloc(1) }

// line records the source position of the next instruction. stmt marks a
// statement boundary.
func (b *fbuilder) line(p syntax.Pos, stmt bool) {
	if !p.IsValid() {
		return
	}
	pc := b.pc()
	n := len(b.fn.Lines)
	if n > 0 && b.fn.Lines[n-1].PC == pc {
		e := &b.fn.Lines[n-1]
		if stmt || !e.Stmt {
			e.Line, e.Col = p.Line, p.Col
			e.Stmt = e.Stmt || stmt
		}
		return
	}
	if n > 0 && !stmt {
		if e := b.fn.Lines[n-1]; e.Line == p.Line && e.Col == p.Col {
			return
		}
	}
	b.fn.Lines = append(b.fn.Lines, vm.LineEntry{PC: pc, Line: p.Line, Col: p.Col, Stmt: stmt})
	b.lastPos = p
}

func (b *fbuilder) constIndex(key any, v vm.Value) int32 {
	if i, ok := b.consts[key]; ok {
		return i
	}
	i := int32(len(b.fn.Consts))
	b.fn.Consts = append(b.fn.Consts, v)
	b.consts[key] = i
	return i
}

func (b *fbuilder) funcIndex(f *vm.Funcode) int32 {
	if i, ok := b.funcs[f]; ok {
		return i
	}
	i := int32(len(b.fn.Funcs))
	b.fn.Funcs = append(b.fn.Funcs, f)
	b.funcs[f] = i
	return i
}

func (b *fbuilder) classIndex(c *vm.Class) int32 {
	if i, ok := b.classes[c]; ok {
		return i
	}
	i := int32(len(b.fn.Classes))
	b.fn.Classes = append(b.fn.Classes, c)
	b.classes[c] = i
	return i
}

func (b *fbuilder) typeIndex(t *vm.Type) int32 {
	if i, ok := b.types[t]; ok {
		return i
	}
	i := int32(len(b.fn.Types))
	b.fn.Types = append(b.fn.Types, t)
	b.types[t] = i
	return i
}

func (b *fbuilder) ncall(n vm.NCall) int32 {
	b.fn.NCalls = append(b.fn.NCalls, n)
	return int32(len(b.fn.NCalls) - 1)
}

func (b *fbuilder) dyn(d vm.DynCall) int32 {
	for i, x := range b.fn.Dyns {
		if x == d {
			return int32(i)
		}
	}
	b.fn.Dyns = append(b.fn.Dyns, d)
	return int32(len(b.fn.Dyns) - 1)
}

func (b *fbuilder) bind(d vm.Bind) int32 {
	b.fn.Binds = append(b.fn.Binds, d)
	return int32(len(b.fn.Binds) - 1)
}

// finish sorts the handler table and sets the register count.
func (b *fbuilder) finish() {
	sort.SliceStable(b.handlers, func(i, j int) bool {
		if b.handlers[i].depth != b.handlers[j].depth {
			return b.handlers[i].depth > b.handlers[j].depth
		}
		return b.handlers[i].order < b.handlers[j].order
	})
	for _, h := range b.handlers {
		if h.h.StartPC < h.h.EndPC {
			b.fn.Handlers = append(b.fn.Handlers, h.h)
		}
	}
	if int(b.max) < b.fn.NumParams {
		b.max = int32(b.fn.NumParams)
	}
	b.fn.NumRegs = int(b.max) + 1
}
