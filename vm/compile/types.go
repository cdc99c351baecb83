package compile

import (
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// badType is the type of an expression that failed to compile; it
// converts to and from anything silently, to avoid cascades of errors.
var badType = &vm.Type{Kind: vm.KVoid}

// resolveType turns a written type into a vm.Type. env maps type
// parameters (T, K, V of built-in generic types) to their arguments.
func (c *compiler) resolveType(f *fileInfo, te *syntax.TypeExpr, env map[string]*vm.Type) *vm.Type {
	return c.resolveTypeDepth(f, te, env, 0)
}

func (c *compiler) resolveTypeDepth(f *fileInfo, te *syntax.TypeExpr, env map[string]*vm.Type, depth int) *vm.Type {
	if te == nil {
		return badType
	}
	t := c.resolveBase(f, te, env, depth)
	if t == badType {
		return t
	}
	if te.Dims > 0 {
		if te.Dims > 1 {
			c.errorf(f, te.Pos, "jagged arrays %s are not supported", te.Name+"[][]")
			return badType
		}
		if t == vm.Void {
			c.errorf(f, te.Pos, "array of void")
			return badType
		}
		t = vm.ArrayOf(t)
	}
	return t
}

func (c *compiler) resolveBase(f *fileInfo, te *syntax.TypeExpr, env map[string]*vm.Type, depth int) *vm.Type {
	args := func(n int) []*vm.Type {
		if len(te.Args) != n {
			c.errorf(f, te.Pos, "%s takes %d type arguments, got %d", te.Name, n, len(te.Args))
			return nil
		}
		out := make([]*vm.Type, n)
		for i, a := range te.Args {
			out[i] = c.resolveTypeDepth(f, a, env, depth+1)
			if out[i] == vm.Void {
				c.errorf(f, a.Pos, "void is not a valid type argument here")
				out[i] = badType
			}
		}
		return out
	}
	if t, ok := env[te.Name]; ok && len(te.Args) == 0 {
		return t
	}
	if t := vm.PrimitiveByName[te.Name]; t != nil {
		if len(te.Args) > 0 {
			c.errorf(f, te.Pos, "%s takes no type arguments", te.Name)
		}
		return t
	}
	switch te.Name {
	case "List":
		if a := args(1); a != nil {
			return vm.ListOf(a[0])
		}
		return badType
	case "Dict":
		if a := args(2); a != nil {
			if a[0].Kind == vm.KFunc {
				c.errorf(f, te.Args[0].Pos, "a function type cannot be a Dict key (function values have no order or hash; key the Dict by a name)")
				return badType
			}
			return vm.DictOf(a[0], a[1])
		}
		return badType
	case "Func", "func":
		if len(te.Args) == 0 {
			c.errorf(f, te.Pos, "%s needs a result type argument", te.Name)
			return badType
		}
		res := c.resolveTypeDepth(f, te.Args[0], env, depth+1)
		var ps []*vm.Type
		var outs []bool
		for i, a := range te.Args[1:] {
			p := c.resolveTypeDepth(f, a, env, depth+1)
			if p == vm.Void {
				c.errorf(f, a.Pos, "void parameter type")
				p = badType
			}
			ps = append(ps, p)
			outs = append(outs, i+1 < len(te.ArgOut) && te.ArgOut[i+1])
		}
		return vm.FuncOf(res, ps, outs)
	case "Object":
		if c.classes["Object"] != nil && len(te.Args) == 0 {
			return vm.ObjectT
		}
	}
	if h := c.lib.HostTypes[te.Name]; h != nil {
		a := args(len(h.TypeParams))
		if a == nil {
			return badType
		}
		return vm.HostOf(h, a)
	}
	if _, ok := f.aliases[te.Name]; ok && len(te.Args) == 0 {
		if t, ok := f.aliasTypes[te.Name]; ok {
			return t
		}
		return badType // an alias whose error is reported (see checkAliases)
	}
	if ci := c.classes[te.Name]; ci != nil {
		if len(te.Args) > 0 {
			c.errorf(f, te.Pos, "user generics are not supported: %s takes no type arguments", te.Name)
		}
		return vm.ClassType(ci.cls)
	}
	c.errorf(f, te.Pos, "undefined type %s%s", te.Name, c.suggestType(te.Name))
	return badType
}

// intRange returns the value range of an integer type.
func intRange(t *vm.Type) (lo int64, hi uint64) {
	switch t.Kind {
	case vm.KByte:
		return -128, 127
	case vm.KUbyte:
		return 0, 255
	case vm.KShort:
		return -32768, 32767
	case vm.KUshort:
		return 0, 65535
	case vm.KInt:
		return -1 << 31, 1<<31 - 1
	case vm.KUint:
		return 0, 1<<32 - 1
	case vm.KLong:
		return -1 << 63, 1<<63 - 1
	case vm.KUlong:
		return 0, 1<<64 - 1
	}
	return 0, 0
}

// intContains reports whether every value of a fits in b.
func intContains(b, a *vm.Type) bool {
	alo, ahi := intRange(a)
	blo, bhi := intRange(b)
	return alo >= blo && ahi <= bhi
}

// Overload distances (the reference's 0.7.5 ladder): a widening within
// the signed or the unsigned integers, or across signs by containment,
// costs the difference of the types' width ranks (at most 3); float to
// double costs 1; any integer to float or double sits on a fixed rung
// above every widening, and a conversion to string above that, so that
// byte→int < byte→float < byte→string. An enum converts to int at no
// cost. Class upcasts cost their inheritance depth (an implemented
// interface one more than the class implementing it).
const (
	distToFloat  = 4
	distToString = 5
	distBox      = 6 // a scalar boxed as Object
)

// widthRank is 0..3 for 8-, 16-, 32- and 64-bit types.
func widthRank(t *vm.Type) int {
	switch t.Bits() {
	case 8:
		return 0
	case 16:
		return 1
	case 32:
		return 2
	}
	return 3
}

// classDepth returns how many base-class steps lead from c to d (0 when
// c is d), or -1 if d is not a base class of c. An interface that c (or
// a base) implements is one step beyond the class that implements it.
func classDepth(c, d *vm.Class) int {
	depth := 0
	for k := c; k != nil; k = k.Base {
		if k == d {
			return depth
		}
		for _, i := range k.Interfaces {
			if i.IsSubclassOf(d) {
				return depth + 1
			}
		}
		depth++
	}
	return -1
}

// convScore says whether a value of type from converts implicitly to to,
// and how far the conversion goes for overload resolution (0 = exact; the
// candidate with the smallest total distance wins). Returns -1 when there
// is no implicit conversion.
func (c *compiler) convScore(from, to *vm.Type) int {
	switch {
	case from == to:
		return 0
	case from == badType || to == badType:
		return 0
	case to == vm.Void || from == vm.Void:
		return -1
	case from == vm.Null:
		if to.IsRef() || to.Kind == vm.KString {
			return 0
		}
		return -1
	case from.IsInteger() && to.IsInteger():
		if intContains(to, from) {
			d := widthRank(to) - widthRank(from)
			if d < 0 {
				d = -d
			}
			return d
		}
		return -1
	case from.IsInteger() && to.IsFloat():
		// int/uint/long/ulong → float and long/ulong → double lose
		// precision; the reference warns but converts
		return distToFloat
	case from == vm.Float && to == vm.Double:
		return 1
	case from.Kind == vm.KEnum && to.IsInteger():
		if intContains(to, vm.Int) {
			return widthRank(to) - widthRank(vm.Int)
		}
		return -1
	case from.Kind == vm.KEnum && to.IsFloat():
		return distToFloat
	case to.Kind == vm.KString:
		if from.IsScalar() || from.IsRef() || from.Kind == vm.KStruct {
			return distToString
		}
		return -1
	case to.Kind == vm.KObject:
		if from.IsScalar() || from.Kind == vm.KString {
			return distBox
		}
		if from.Kind == vm.KClass || from.Kind == vm.KInterface {
			if d := classDepth(from.Class, c.object.cls); d >= 0 {
				return d
			}
			return 1
		}
		switch from.Kind {
		case vm.KArray, vm.KStruct, vm.KFunc:
			// an array converts only to its own type and to string;
			// a struct (a value) and a function value are not objects
			return -1
		}
		if from.IsRef() {
			return 1
		}
		return -1
	case from.Kind == vm.KClass || from.Kind == vm.KInterface:
		if to.Kind == vm.KClass || to.Kind == vm.KInterface {
			if from.Class.IsSubclassOf(to.Class) {
				if d := classDepth(from.Class, to.Class); d > 0 {
					return d
				}
				return 1
			}
		}
	}
	return -1
}

// litScore is the overload distance of an integer literal of type lt
// passed for the integer parameter pt that it fits (literals fit-check
// into narrower types).
func litScore(lt, pt *vm.Type) int {
	d := widthRank(pt) - widthRank(lt)
	if d < 0 {
		d = -d
	}
	if pt.IsSigned() != lt.IsSigned() {
		d++ // adapting across signs is never exact
	}
	return d
}

// promote returns the type of a binary arithmetic or comparison on a and
// b, or nil if there is none. lit reports which side is an integer
// literal (that adapts to the other side when it fits).
func promote(a, b *vm.Type) *vm.Type {
	if a == badType || b == badType {
		return badType
	}
	if a.Kind == vm.KEnum {
		a = vm.Int
	}
	if b.Kind == vm.KEnum {
		b = vm.Int
	}
	if !a.IsNumeric() || !b.IsNumeric() {
		return nil
	}
	if a.IsFloat() || b.IsFloat() {
		if a == vm.Double || b == vm.Double {
			return vm.Double
		}
		return vm.Float
	}
	if a.Bits() < 32 {
		a = vm.Int
	}
	if b.Bits() < 32 {
		b = vm.Int
	}
	if a == b {
		return a
	}
	if intContains(a, b) {
		return a
	}
	if intContains(b, a) {
		return b
	}
	// mixed sign, neither contains the other
	if a == vm.Ulong || b == vm.Ulong {
		return nil
	}
	return vm.Long
}

// literalFits reports whether an integer literal value (negated if neg)
// fits in integer type t.
func literalFits(v uint64, neg bool, t *vm.Type) bool {
	lo, hi := intRange(t)
	if neg {
		if v == 0 {
			return true
		}
		if v > 1<<63 {
			return false
		}
		return -int64(v-1)-1 >= lo
	}
	return v <= hi
}

// literalType types an integer literal by value: int, long or ulong.
func literalType(v uint64, neg bool) *vm.Type {
	switch {
	case literalFits(v, neg, vm.Int):
		return vm.Int
	case literalFits(v, neg, vm.Long):
		return vm.Long
	case !neg:
		return vm.Ulong
	}
	return nil
}

func (c *compiler) suggestType(name string) string {
	best := ""
	for n := range c.classes {
		if len(n) > 0 && editDistance(n, name) <= 2 && (best == "" || n < best) {
			best = n
		}
	}
	for n := range vm.PrimitiveByName {
		if editDistance(n, name) <= 1 && best == "" {
			best = n
		}
	}
	if best != "" {
		return " (did you mean " + best + "?)"
	}
	return ""
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	if len(a) > 32 || len(b) > 32 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
