package compile

import (
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// Chains.
//
// The parser bounds how deeply a program nests (parentheses, blocks,
// unary operators: see syntax's maxNesting), but not the length of a
// chain of left-associative operators: `1 + 1 + … + 1`, a long string
// concatenation, `a.b().c[i].d…` or `x as T as U …` make a tree as deep as
// the source is long. The compiler walks such a chain with a loop and an
// explicit stack instead of a Go recursion per link: it goes down the
// left operands, doing what each link does before its operand is
// compiled, compiles the innermost operand, then goes back up doing what
// each link does after. The order of every side effect (registers,
// instructions, peeks, errors) is the one a recursion would have, so the
// code is the same. Go recursion is then bounded by the nesting the
// parser allows, whatever the length of the chains.
//
// The registers of a chain are reused: a link's result goes to the
// lowest free register of the chain when it can, so a long chain needs a
// few registers, not one per link.

// binLink is one operator of a chain of binary operators (see binary).
type binLink struct {
	e        *syntax.Binary
	dst      int32
	floatCtx bool  // arithmetic where a float is expected
	d        int32 // && and ||: the result register, set before the operands
	mark     int32 // the first register free before the operands
}

// binary compiles a binary operation: the chain of operators down its left
// operands, `a + b - c` being ((a + b) - c), with a loop.
func (fc *fcomp) binary(e *syntax.Binary, hint *vm.Type, dst int32) (int32, *vm.Type) {
	n := 1
	for x := e.X; ; n++ {
		b, ok := x.(*syntax.Binary)
		if !ok {
			break
		}
		x = b.X
	}
	links := make([]binLink, n)
	for i, x := 0, e; i < n; i++ {
		links[i].e = x
		x, _ = x.X.(*syntax.Binary)
	}
	leaf := links[n-1].e.X
	// An expected float reaches the floating literals of arithmetic
	// (float f = x + 0.5): leftFloatish[i] reports whether the left
	// operand of links[i] has one, computed bottom-up once.
	var leftFloatish []bool
	if hint == vm.Float && isArith(e.Op) {
		leftFloatish = make([]bool, n)
		below := fc.floatish(leaf)
		for i := n - 1; i >= 0; i-- {
			leftFloatish[i] = below
			b := links[i].e
			below = isArith(b.Op) && (below || fc.floatish(b.Y))
		}
	}
	for i := range links {
		l := &links[i]
		b := l.e
		if i > 0 && fc.charge(b) {
			return fc.out(links[0].dst), badType
		}
		l.dst = dst
		switch b.Op {
		case syntax.ANDAND, syntax.OROR:
			l.d = fc.out(dst)
			hint, dst = vm.Bool, l.d
		default:
			// operand types: literals adapt to the other side
			var xh *vm.Type
			if isIntLit(b.X) && !isIntLit(b.Y) {
				xh = fc.peekType(b.Y)
			}
			l.floatCtx = hint == vm.Float && isArith(b.Op)
			if l.floatCtx && leftFloatish != nil && leftFloatish[i] {
				xh = vm.Float
			}
			l.mark = fc.top
			hint, dst = xh, -1
		}
	}
	r, t := fc.gen(leaf, hint, dst)
	// Every link's left operand starts where the leaf does.
	var leafStart syntax.Pos
	start := func() syntax.Pos {
		if !leafStart.IsValid() {
			leafStart = leaf.Start()
		}
		return leafStart
	}
	for i := len(links) - 1; i >= 0; i-- {
		r, t = fc.binaryOp(&links[i], r, t, start)
	}
	return r, t
}

// binaryOp compiles the operator of link l whose left operand is in
// register rx with type xt. xStart returns the position of the left
// operand.
func (fc *fcomp) binaryOp(l *binLink, rx int32, xt *vm.Type, xStart func() syntax.Pos) (int32, *vm.Type) {
	e, dst, mark := l.e, l.dst, l.mark
	switch e.Op {
	case syntax.ANDAND, syntax.OROR:
		d := l.d
		if xt != vm.Bool && xt != badType {
			fc.errorf(xStart(), "operator %s needs bool operands, got %s", e.Op, xt)
			xt = badType
		}
		fc.valueOf(e.X, rx, xt, vm.Bool, d)
		op := vm.JF
		if e.Op == syntax.OROR {
			op = vm.JT
		}
		j := fc.emit(op, d, 0, 0)
		mark := fc.top
		if ry, yt := fc.gen(e.Y, vm.Bool, d); yt != vm.Bool && yt != badType {
			fc.errorf(e.Y.Start(), "operator %s needs bool operands, got %s", e.Op, yt)
		} else {
			fc.valueOf(e.Y, ry, yt, vm.Bool, d)
		}
		fc.top = mark
		fc.patch(j, fc.pc())
		return d, vm.Bool
	}
	var yh *vm.Type
	if _, isLocal := e.X.(*syntax.Ident); isLocal && hasOutArg(e.Y) {
		// the right operand may write the local back: read it first
		t := fc.temp()
		fc.emit(vm.MOVE, t, rx, 0)
		rx = t
	}
	if !isIntLit(e.X) || isIntLit(e.Y) {
		yh = xt
	}
	if l.floatCtx && fc.floatish(e.Y) {
		yh = vm.Float
	}
	// out returns the result register: dst, or the first register of
	// the operation, free again once its operands are read.
	out := func() int32 {
		if dst >= 0 {
			return dst
		}
		fc.top = mark
		return fc.temp()
	}
	// x + k and x - k with a small constant k: one instruction
	if k, ok := smallIntLit(e.Y); ok && (e.Op == syntax.PLUS || e.Op == syntax.MINUS) && xt != badType {
		pt := promote(xt, xt)
		if pt == vm.Int || pt == vm.Long {
			if e.Op == syntax.MINUS {
				k = -k
			}
			d := out()
			op := vm.ADDIK
			if pt == vm.Long {
				op = vm.ADDLK
			}
			fc.emit(op, d, rx, k)
			return d, pt
		}
	}
	ry, yt := fc.gen(e.Y, yh, -1)
	if xt == badType || yt == badType {
		return fc.out(dst), badType
	}
	switch e.Op {
	case syntax.PLUS:
		if xt == vm.String || yt == vm.String {
			if xt == vm.Null || yt == vm.Null {
				at := e.Y.Start()
				if xt == vm.Null {
					at = xStart()
				}
				fc.errorf(at, "invalid operation: string + null (the null literal cannot be concatenated; write \"null\" for the text)")
				return fc.out(dst), badType
			}
			sx := fc.toString(rx, xt, xStart())
			sy := fc.toString(ry, yt, e.Y.Start())
			d := out()
			fc.emit(vm.CONCAT, d, sx, sy)
			if dst >= 0 {
				fc.top = mark
			}
			return d, vm.String
		}
		fallthrough
	case syntax.MINUS, syntax.STAR, syntax.SLASH, syntax.PERCENT:
		pt := fc.binaryOperandType(xt, yt, e.X, e.Y)
		if pt == nil {
			fc.errorf(e.Pos, "invalid operation: %s %s %s%s", xt, e.Op, yt, noCommonType(xt, yt))
			return fc.out(dst), badType
		}
		rx = fc.widen(rx, xt, pt)
		ry = fc.widen(ry, yt, pt)
		d := out()
		fc.emit(arithOp(e.Op, pt), d, rx, ry)
		return d, pt
	case syntax.EQL, syntax.NEQ, syntax.LT, syntax.LE, syntax.GT, syntax.GE:
		r := fc.compareRegs(e.Op, rx, xt, ry, yt, e.X, e.Y, e.Pos, dst)
		return r, vm.Bool
	}
	fc.errorf(e.Pos, "unsupported operator %s", e.Op)
	return fc.out(dst), badType
}

// cast compiles `x as T`: the chain of casts down x, `x as T as U` being
// ((x as T) as U), with a loop.
func (fc *fcomp) cast(e *syntax.Cast, dst int32) (int32, *vm.Type) {
	spine := []*syntax.Cast{e}
	for {
		x, ok := spine[len(spine)-1].X.(*syntax.Cast)
		if !ok {
			break
		}
		spine = append(spine, x)
	}
	tos := make([]*vm.Type, len(spine))
	for i, c := range spine {
		if i > 0 && fc.charge(c) {
			return fc.out(dst), badType
		}
		tos[i] = fc.c.resolveType(fc.file, c.Type, nil)
	}
	leaf := spine[len(spine)-1].X
	hint := tos[len(tos)-1]
	if isIntLit(leaf) || isFloatLit(leaf) {
		hint = nil // a literal keeps its own type: 98 as byte narrows an int
	}
	mark := fc.top
	r, t := fc.gen(leaf, hint, -1)
	for i := len(spine) - 1; i >= 0; i-- {
		d := dst
		if d < 0 {
			// the first free register of the chain, unless it holds
			// the operand (an unboxing writes only part of a register)
			fc.top = mark
			if d = fc.temp(); d == r {
				d = fc.temp()
			}
		}
		r, t = fc.castOn(spine[i], tos[i], r, t, d)
	}
	return r, t
}

// compactAt is how many registers a chain of member accesses, calls and
// subscripts may use before its value is moved down to the chain's first
// register (which frees the rest).
const compactAt = 32

// postfix compiles a member access, call or subscript: the chain of them
// down its operand, `a.b().c[i]` being (((a.b)()).c)[i], with a loop.
func (fc *fcomp) postfix(e syntax.Expr, hint *vm.Type, dst int32) (int32, *vm.Type) {
	mark := fc.top
	var links []syntax.Expr // outermost first
	var r int32
	var t *vm.Type
	for cur, h, d := e, hint, dst; ; h, d = nil, -1 {
		if cur != e && fc.charge(cur) {
			return fc.out(dst), badType
		}
		var operand syntax.Expr
		var done bool
		switch x := cur.(type) {
		case *syntax.Member:
			r, t, done = fc.memberPre(x, h, d)
			operand = x.X
		case *syntax.Index:
			operand = x.X
		case *syntax.Call:
			switch fun := x.Fun.(type) {
			case *syntax.Ident:
				r, t = fc.callIdent(x, fun, h, d)
				done = true
			case *syntax.Member:
				r, t, done = fc.callMemberPre(x, fun, d)
				operand = fun.X
			default: // a call of a computed function value
				operand = x.Fun
			}
		}
		if done {
			break
		}
		links = append(links, cur)
		switch operand.(type) {
		case *syntax.Member, *syntax.Index, *syntax.Call:
			cur = operand
			continue
		}
		r, t = fc.gen(operand, nil, -1)
		break
	}
	for i := len(links) - 1; i >= 0; i-- {
		h, d := hint, dst
		if i > 0 {
			h, d = nil, -1
		}
		switch x := links[i].(type) {
		case *syntax.Member:
			r, t = fc.memberOn(x, h, d, r, t)
		case *syntax.Index:
			r, t = fc.indexOn(x, d, r, t)
		case *syntax.Call:
			if m, ok := x.Fun.(*syntax.Member); ok {
				r, t = fc.callMemberOn(x, m, h, d, r, t)
			} else {
				r, t = fc.callFuncValue(x, r, t, d)
			}
		}
		if i > 0 && r >= mark+compactAt {
			fc.emit(vm.MOVE, mark, r, 0)
			r = mark
			fc.top = mark + 1
		}
	}
	return r, t
}

// castOn compiles `x as T` (e) where the value x, of type from, is in
// register r, into register d; to is the resolved T.
//
// A cast whose conversion the language does implicitly anyway (2 as int,
// null as Object, b as int for a byte b, d as Animal for a Dog d, f as
// string) is accepted and does that conversion, as the reference does
// since 0.7.5; the others narrow or convert numbers and chars, unbox,
// or downcast (checked when the program runs).
func (fc *fcomp) castOn(e *syntax.Cast, to *vm.Type, r int32, from *vm.Type, d int32) (int32, *vm.Type) {
	if from == badType || to == badType {
		return d, to
	}
	num := func(t *vm.Type) bool { return t.IsNumeric() || t == vm.Char || t.Kind == vm.KEnum }
	implicit := fc.c.convScore(from, to) >= 0
	switch {
	case from == to:
		fc.emit(vm.MOVE, d, r, 0)
	case num(from) && num(to):
		if implicit {
			fc.convertInto(d, r, from, to, e.Pos)
			break
		}
		fk, tk := from.Kind, to.Kind
		if fk == vm.KEnum {
			fk = vm.KInt
		}
		if tk == vm.KEnum {
			tk = vm.KInt
		}
		fc.emit(vm.CONV, d, r, int32(fk)<<8|int32(tk))
	case from.Kind == vm.KObject && to.IsScalar():
		fc.line(e.Pos, false)
		fc.emit(vm.UNBOX, d, r, fc.typeIndex(to))
	case from.Kind == vm.KObject && to == vm.String:
		fc.line(e.Pos, false)
		fc.emit(vm.CAST, d, r, fc.typeIndex(to))
	case implicit:
		fc.line(e.Pos, false)
		fc.convertInto(d, r, from, to, e.Pos)
	case from.IsRef() && to.IsRef() && to.Kind != vm.KObject:
		if fc.c.convScore(to, from) < 0 {
			fc.errorf(e.Pos, "impossible cast from %s to %s", from, to)
			return d, to
		}
		fc.line(e.Pos, false)
		fc.emit(vm.CAST, d, r, fc.typeIndex(to))
	default:
		hint := ""
		if from == vm.String && num(to) {
			hint = " (to read a number from a string, use its to" + map[bool]string{true: "Int", false: "Double"}[to.IsInteger()] + "() method)"
		}
		fc.errorf(e.Pos, "cannot cast %s to %s%s", from, to, hint)
	}
	return d, to
}

// noCommonType explains why arithmetic on integers of types a and b has
// no type ("" if that is not the reason).
func noCommonType(a, b *vm.Type) string {
	if a.IsInteger() && b.IsInteger() && (a == vm.Ulong) != (b == vm.Ulong) {
		return " (no common type: a signed integer and a ulong mix only through as)"
	}
	return ""
}
