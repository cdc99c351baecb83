package compile

import (
	"math"
	"strconv"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// The switch statement.
//
// The discriminant is an integer, a char, an enum, a float or double, or a
// string. Each label is compared with it for equality, in order; labels
// may be computed, but they must be of the discriminant's kind:
//
//   - an integer, char or enum switch takes integers, chars and enum
//     members (a char and an integer compare as code points), each of a
//     type that converts to the discriminant's implicitly, or a constant
//     that fits it (case 3000000000 on an int switch is an error, as is
//     case 1.5);
//   - a float or double switch takes what converts to it implicitly: a
//     double constant must be exactly a float on a float switch (case 0.3
//     is an error there: write 0.3f);
//   - a string switch takes strings.
//
// null is never a label, and two constant labels of one switch (literals
// and enum members) may not have the same value.

func (fc *fcomp) switchStmt(s *syntax.Switch) {
	fc.line(s.Pos, true)
	x, xt := fc.gen(s.X, nil, -1)
	d := fc.alloc(1)
	fc.emit(vm.MOVE, d, x, 0)
	switch {
	case xt == badType, xt.IsInteger(), xt.Kind == vm.KEnum, xt.IsFloat(), xt == vm.String, xt == vm.Char:
	case xt == vm.Bool:
		fc.errorf(s.X.Start(), "cannot switch on a bool (use if and else)")
		xt = badType
	default:
		fc.errorf(s.X.Start(), "cannot switch on a value of type %s (switch on an integer, a char, an enum, a float, a double or a string)", xt)
		xt = badType
	}
	var bodies [][]int32 // jumps to each case body
	defaultCase := -1
	seen := map[any]syntax.Pos{} // constant labels: where each first appears
	for ci, cs := range s.Cases {
		var js []int32
		if cs.Labels == nil {
			if defaultCase >= 0 {
				fc.errorf(cs.Pos, "multiple default clauses in switch")
			}
			defaultCase = ci
		}
		for _, lab := range cs.Labels {
			mark := fc.top
			r := fc.caseLabel(lab, d, xt, seen)
			js = append(js, fc.emit(vm.JT, r, 0, 0))
			fc.top = mark
		}
		bodies = append(bodies, js)
	}
	toDefault := fc.emit(vm.JMP, 0, 0, 0)
	lc := fc.pushLoop(true)
	for ci, cs := range s.Cases {
		fc.patchHere(bodies[ci])
		if ci == defaultCase {
			fc.patch(toDefault, fc.pc())
		}
		fc.push()
		fc.block(cs.Body)
		fc.pop()
		lc.breaks = append(lc.breaks, fc.emit(vm.JMP, 0, 0, 0))
	}
	if defaultCase < 0 {
		fc.patch(toDefault, fc.pc())
	}
	fc.popLoop(lc)
}

// intFamily reports whether t is an integer, char or enum type: the
// kinds that compare by their integer value in a switch.
func intFamily(t *vm.Type) bool { return t.IsInteger() || t == vm.Char || t.Kind == vm.KEnum }

// caseLabel compiles the comparison of label lab with the discriminant in
// register d (of type xt; badType after an error) and returns the
// register of the result. seen records the constant labels so far.
func (fc *fcomp) caseLabel(lab syntax.Expr, d int32, xt *vm.Type, seen map[any]syntax.Pos) int32 {
	pos := lab.Start()
	res := fc.temp()
	if _, ok := lab.(*syntax.NullLit); ok {
		fc.errorf(pos, "null is not a valid case label")
		return res
	}
	if xt == badType {
		fc.gen(lab, nil, -1)
		return res
	}
	text, key := fc.labelConst(lab, xt)
	switch {
	case intFamily(xt):
		r, lt := fc.gen(lab, xt, -1)
		if lt == badType {
			return res
		}
		if !intFamily(lt) {
			fc.errorf(pos, "case label of type %s does not match a switch on %s (its labels are integers, chars and enum members)", lt, xt)
			return res
		}
		if key != nil {
			if !labelFits(key.(int64Key), xt) {
				fc.errorf(pos, "case label %s is out of range for a switch on %s", text, xt)
				return res
			}
		} else if ok := lt == xt || lt == vm.Char || xt == vm.Char ||
			xt.Kind == vm.KEnum && lt.IsInteger() || fc.c.convScore(lt, xt) >= 0; !ok {
			fc.errorf(pos, "case label of type %s does not match a switch on %s (it does not convert to %s implicitly)", lt, xt, xt)
			return res
		}
		if lt.Kind == vm.KEnum && xt.Kind == vm.KEnum && lt != xt {
			fc.errorf(pos, "case label of type %s does not match a switch on %s", lt, xt)
			return res
		}
		fc.emit(vm.EQ, res, d, r)
	case xt.IsFloat():
		if xt == vm.Float && key != nil && fc.peekAs(lab, vm.Float) == vm.Double {
			fc.errorf(pos, "case label %s is not exactly a float (the switch is on a float: write %sf)", text, text)
			return res
		}
		r := fc.value(lab, xt, -1)
		fc.emit(vm.EQD, res, d, r)
	default: // string
		r, lt := fc.gen(lab, xt, -1)
		if lt != vm.String {
			if lt != badType {
				fc.errorf(pos, "case label of type %s does not match a switch on string", lt)
			}
			return res
		}
		fc.emit(vm.EQS, res, d, r)
	}
	if key != nil {
		if first, dup := seen[key]; dup {
			fc.errorf(pos, "duplicate case label %s (first at %d:%d)", text, first.Line, first.Col)
		} else {
			seen[key] = pos
		}
	}
	return res
}

// Keys of constant labels, by the kind of switch.
type (
	int64Key struct {
		v   uint64 // the value's bits (a negative value sign-extended)
		neg bool   // the value is negative
	}
	floatKey  float64
	stringKey string
)

// labelConst returns the text and the value of label lab if it is a
// constant (a literal, a negated literal or an enum member) of the kind of
// the switch on xt, or a nil key.
func (fc *fcomp) labelConst(lab syntax.Expr, xt *vm.Type) (string, any) {
	neg := false
	e := lab
	if u, ok := e.(*syntax.Unary); ok && u.Op == syntax.MINUS {
		neg, e = true, u.X
	}
	switch x := e.(type) {
	case *syntax.IntLit:
		if x.Overflow || !intFamily(xt) && !xt.IsFloat() {
			return "", nil
		}
		text := x.Raw
		if neg {
			text = "-" + text
		}
		if xt.IsFloat() {
			v := float64(x.Value)
			if neg {
				v = -v
			}
			return text, floatKey(v)
		}
		if neg {
			if x.Value > 1<<63 {
				return "", nil
			}
			return text, int64Key{v: uint64(-int64(x.Value)), neg: x.Value != 0}
		}
		return text, int64Key{v: x.Value}
	case *syntax.CharLit:
		if neg || !intFamily(xt) {
			return "", nil
		}
		return strconv.QuoteRune(x.Value), int64Key{v: uint64(x.Value)}
	case *syntax.FloatLit:
		if !xt.IsFloat() {
			return "", nil
		}
		v := x.Value
		if x.Float32 || xt == vm.Float {
			v = float64(float32(v))
		}
		if neg {
			v = -v
		}
		if v == 0 {
			v = 0 // -0.0 and 0.0 are the same label
		}
		text := x.Raw
		if neg {
			text = "-" + text
		}
		return text, floatKey(v)
	case *syntax.StringLit:
		if neg || xt != vm.String {
			return "", nil
		}
		return strconv.Quote(x.Value), stringKey(x.Value)
	case *syntax.Member:
		id, ok := x.X.(*syntax.Ident)
		if neg || !ok || !intFamily(xt) || fc.lookup(id.Name) != nil || fc.isThisField(id.Name) {
			return "", nil
		}
		ci := fc.c.classes[id.Name]
		if ci == nil || !ci.cls.IsEnum {
			return "", nil
		}
		v, ok := enumValue(ci.cls, x.Name)
		if !ok {
			return "", nil
		}
		return id.Name + "." + x.Name, int64Key{v: uint64(v)}
	}
	return "", nil
}

// labelFits reports whether the constant k fits the integer, char or
// enum type t.
func labelFits(k int64Key, t *vm.Type) bool {
	switch {
	case t == vm.Char:
		return !k.neg && k.v <= math.MaxInt32 && (k.v < 0xD800 || k.v > 0xDFFF) && k.v <= 0x10FFFF
	case t.Kind == vm.KEnum:
		return !k.neg && k.v <= math.MaxInt32
	}
	lo, hi := intRange(t)
	if k.neg {
		return int64(k.v) >= lo
	}
	return k.v <= hi
}
