package compile

import (
	"math"
	"strconv"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// out returns dst, or a fresh temporary if dst < 0.
func (fc *fcomp) out(dst int32) int32 {
	if dst >= 0 {
		return dst
	}
	return fc.temp()
}

// value compiles e converted implicitly to type want, into dst (or any
// register if dst < 0), and returns the register.
func (fc *fcomp) value(e syntax.Expr, want *vm.Type, dst int32) int32 {
	r, t := fc.gen(e, want, dst)
	return fc.valueOf(e, r, t, want, dst)
}

// valueOf converts the value of e, compiled into register r with type t,
// implicitly to type want, into dst (or any register if dst < 0), and
// returns the register.
func (fc *fcomp) valueOf(e syntax.Expr, r int32, t, want *vm.Type, dst int32) int32 {
	if t == want || t == badType || want == badType {
		if want.Kind == vm.KStruct && !fresh(e) {
			d := fc.out(dst)
			fc.emit(vm.COPY, d, r, 0)
			return d
		}
		if dst >= 0 && r != dst {
			fc.emit(vm.MOVE, dst, r, 0)
			return dst
		}
		return r
	}
	if fc.convCost(e, t, want, nil) < 0 {
		fc.convError(e, t, want, "")
		return r
	}
	if lossyImplicit(t, want) && !exactLiteral(e, want) {
		fc.warnf(e.Start(), "implicit conversion from %s to %s may lose precision", t, want)
	}
	d := fc.out(dst)
	fc.convertInto(d, r, t, want, e.Start())
	return d
}

// lossyImplicit reports whether the implicit conversion from to to may
// lose precision (the reference warns about these): int, uint, long and
// ulong to float; long and ulong to double.
func lossyImplicit(from, to *vm.Type) bool {
	if !from.IsInteger() {
		return false
	}
	return to == vm.Float && from.Bits() >= 32 || to == vm.Double && from.Bits() == 64
}

// exactLiteral reports whether e is an integer literal whose value
// converts to the floating type t exactly.
func exactLiteral(e syntax.Expr, t *vm.Type) bool {
	if u, ok := e.(*syntax.Unary); ok && u.Op == syntax.MINUS {
		e = u.X // the sign does not change exactness
	}
	l, ok := e.(*syntax.IntLit)
	if !ok || l.Overflow {
		return false
	}
	f := float64(l.Value)
	if t == vm.Float {
		f = float64(float32(f))
	}
	return f < 1<<64 && uint64(f) == l.Value
}

func (fc *fcomp) castHint(from, to *vm.Type) string {
	if from.Kind == vm.KArray {
		return " (an array converts only to its own type and to string)"
	}
	if to.Kind == vm.KObject && from.Kind == vm.KStruct {
		return " (a struct is a value, not an object: use a class to store it as an Object)"
	}
	if to.Kind == vm.KObject && from.Kind == vm.KFunc {
		return " (a function value is not an object)"
	}
	if (from.IsNumeric() || from == vm.Char) && (to.IsNumeric() || to == vm.Char) {
		return " without a cast (use as " + to.String() + ")"
	}
	if from.Kind == vm.KObject || (from.IsRef() && to.IsRef()) {
		return " (use as " + to.String() + ")"
	}
	return ""
}

// fresh reports whether e produces a new value (no copy needed for
// struct value semantics).
func fresh(e syntax.Expr) bool {
	switch e.(type) {
	case *syntax.New, *syntax.InitList, *syntax.Call:
		return true
	}
	return false
}

// convertInto converts src of type from into dst of type to (an implicit
// conversion already checked).
func (fc *fcomp) convertInto(dst, src int32, from, to *vm.Type, pos syntax.Pos) {
	switch {
	case from == to || from == badType || to == badType || from == vm.Null:
		if dst != src {
			fc.emit(vm.MOVE, dst, src, 0)
		}
	case to.Kind == vm.KString:
		if from.Kind == vm.KClass || from.Kind == vm.KInterface {
			fc.callToString(dst, src, from, pos)
			return
		}
		fc.emit(vm.TOSTR, dst, src, fc.typeIndex(from))
	case to.Kind == vm.KObject && from.IsScalar():
		fc.emit(vm.BOX, dst, src, fc.typeIndex(from))
	case to.IsFloat() && (from.IsInteger() || from.Kind == vm.KEnum):
		fk := from.Kind
		if fk == vm.KEnum {
			fk = vm.KInt
		}
		fc.emit(vm.CONV, dst, src, int32(fk)<<8|int32(to.Kind))
	default: // widening integers, float→double, references: no code
		if dst != src {
			fc.emit(vm.MOVE, dst, src, 0)
		}
	}
}

// callToString calls toString on a class or interface value (null gives
// "null").
func (fc *fcomp) callToString(dst, src int32, t *vm.Type, pos syntax.Pos) {
	base := fc.alloc(1)
	fc.emit(vm.MOVE, base, src, 0)
	isNull := fc.temp()
	fc.emit(vm.ISNULL, isNull, base, 0)
	j := fc.emit(vm.JF, isNull, 0, 0)
	fc.emit(vm.LOADK, dst, fc.constIndex("s:null", vm.StrV("null")), 0)
	end := fc.emit(vm.JMP, 0, 0, 0)
	fc.patch(j, fc.pc())
	fc.line(pos, false)
	obj := fc.c.object.cls
	m := obj.FindMethod("toString", 0)
	fc.emit(vm.CALLV, base, int32(m.VIndex), dst)
	fc.patch(end, fc.pc())
}

// peekType returns the static type of e without emitting code or
// reporting errors.
func (fc *fcomp) peekType(e syntax.Expr) *vm.Type {
	return fc.peekAs(e, nil)
}

// peekAs returns the static type of e typed where hint is expected
// (nil: no expectation), without emitting code or reporting errors.
func (fc *fcomp) peekAs(e syntax.Expr, hint *vm.Type) *vm.Type {
	switch e := e.(type) {
	case *syntax.StringLit:
		return vm.String
	case *syntax.BoolLit:
		return vm.Bool
	case *syntax.CharLit:
		return vm.Char
	case *syntax.Ident:
		if l := fc.lookup(e.Name); l != nil {
			return l.typ
		}
	}
	key := peekKey{e, hint}
	if t, ok := fc.peeked[key]; ok {
		return t
	}
	var (
		code     = len(fc.fn.Code)
		lines    = len(fc.fn.Lines)
		locals   = len(fc.fn.Locals)
		handlers = len(fc.handlers)
		errs     = len(fc.c.errs)
		top, max = fc.top, fc.max
		ncalls   = len(fc.fn.NCalls)
		binds    = len(fc.fn.Binds)
		consts   = len(fc.fn.Consts)
	)
	_, t := fc.gen(e, hint, -1)
	fc.fn.Code = fc.fn.Code[:code]
	fc.fn.Lines = fc.fn.Lines[:lines]
	fc.fn.Locals = fc.fn.Locals[:locals]
	fc.handlers = fc.handlers[:handlers]
	fc.c.errs = fc.c.errs[:errs]
	fc.top, fc.max = top, max
	fc.fn.NCalls = fc.fn.NCalls[:ncalls]
	fc.fn.Binds = fc.fn.Binds[:binds]
	if len(fc.fn.Consts) > consts {
		fc.fn.Consts = fc.fn.Consts[:consts]
		for k, v := range fc.fbuilder.consts {
			if int(v) >= consts {
				delete(fc.fbuilder.consts, k)
			}
		}
	}
	if fc.peeked == nil {
		fc.peeked = map[peekKey]*vm.Type{}
	}
	fc.peeked[key] = t
	return t
}

// gen compiles e and returns the register holding its value and its
// static type. If dst >= 0 the value is placed in dst; otherwise it may be
// in any register (a local's own register, or a new temporary). hint is
// the expected type, used to type literals, initializers and function
// references; gen does not convert to it.
func (fc *fcomp) gen(e syntax.Expr, hint *vm.Type, dst int32) (int32, *vm.Type) {
	if fc.charge(e) || e == badDefault {
		return fc.out(dst), badType
	}
	switch e := e.(type) {
	case *syntax.IntLit:
		return fc.intLit(e, false, hint, dst)
	case *syntax.FloatLit:
		d := fc.out(dst)
		t := vm.Double
		v := e.Value
		if e.Float32 || hint == vm.Float && float64(float32(v)) == v {
			t = vm.Float
			v = float64(float32(v))
		}
		fc.emit(vm.LOADK, d, fc.constIndex(math.Float64bits(v), vm.FloatV(v)), 0)
		return d, t
	case *syntax.StringLit:
		d := fc.out(dst)
		fc.emit(vm.LOADK, d, fc.constIndex("s:"+e.Value, vm.StrV(e.Value)), 0)
		return d, vm.String
	case *syntax.CharLit:
		d := fc.out(dst)
		fc.loadInt(d, int64(e.Value))
		return d, vm.Char
	case *syntax.BoolLit:
		d := fc.out(dst)
		v := int32(0)
		if e.Value {
			v = 1
		}
		fc.emit(vm.LOADI, d, v, 0)
		return d, vm.Bool
	case *syntax.NullLit:
		d := fc.out(dst)
		fc.emit(vm.LOADNIL, d, 0, 0)
		return d, vm.Null
	case *syntax.This:
		if fc.this == nil {
			fc.errorf(e.Pos, "this outside a method")
			return fc.out(dst), badType
		}
		return fc.place(fc.thisReg, dst), fc.this
	case *syntax.Ident:
		return fc.ident(e, hint, dst)
	case *syntax.Member, *syntax.Index, *syntax.Call:
		return fc.postfix(e, hint, dst)
	case *syntax.Binary:
		return fc.binary(e, hint, dst)
	case *syntax.Unary:
		return fc.unary(e, hint, dst)
	case *syntax.Cast:
		return fc.cast(e, dst)
	case *syntax.New:
		return fc.newExpr(e, dst)
	case *syntax.InitList:
		if hint == badType { // the type's error is reported
			return fc.out(dst), badType
		}
		if hint == nil {
			fc.errorf(e.Pos, "cannot infer the type of {…} here (write new T{…})")
			return fc.out(dst), badType
		}
		return fc.initList(hint, e, e.Pos, dst), hint
	case *syntax.ArrayLit:
		return fc.arrayLit(e, hint, dst)
	}
	fc.errorf(e.Start(), "unsupported expression")
	return fc.out(dst), badType
}

// place moves register r into dst if dst >= 0.
func (fc *fcomp) place(r, dst int32) int32 {
	if dst >= 0 && dst != r {
		fc.emit(vm.MOVE, dst, r, 0)
		return dst
	}
	return r
}

func (fc *fcomp) loadInt(d int32, v int64) {
	if v >= math.MinInt32 && v <= math.MaxInt32 {
		fc.emit(vm.LOADI, d, int32(v), 0)
		return
	}
	fc.emit(vm.LOADK, d, fc.constIndex(v, vm.IntV(v)), 0)
}

func (fc *fcomp) intLit(e *syntax.IntLit, neg bool, hint *vm.Type, dst int32) (int32, *vm.Type) {
	d := fc.out(dst)
	if e.Overflow {
		if isExponentLit(e.Raw) {
			// 1e21: written with an exponent and beyond ulong: a double
			v, err := strconv.ParseFloat(e.Raw, 64)
			if err == nil {
				if neg {
					v = -v
				}
				fc.emit(vm.LOADK, d, fc.constIndex(math.Float64bits(v), vm.FloatV(v)), 0)
				return d, vm.Double
			}
		}
		fc.errorf(e.Pos, "integer literal %s does not fit in ulong", e.Raw)
		return d, badType
	}
	t := literalType(e.Value, neg)
	if hint != nil && hint.IsInteger() && literalFits(e.Value, neg, hint) {
		t = hint
	} else if hint != nil && hint.IsInteger() && hint.Bits() < 32 {
		// narrower targets fit-check the literal
		fc.errorf(e.Pos, "constant %s%s overflows %s", map[bool]string{true: "-"}[neg], e.Raw, hint)
		return d, badType
	}
	if t == nil {
		fc.errorf(e.Pos, "integer literal -%s does not fit in long", e.Raw)
		return d, badType
	}
	v := int64(e.Value)
	if neg {
		v = -v
	}
	fc.loadInt(d, v)
	return d, t
}

func (fc *fcomp) ident(e *syntax.Ident, hint *vm.Type, dst int32) (int32, *vm.Type) {
	if l := fc.lookup(e.Name); l != nil {
		return fc.place(l.reg, dst), l.typ
	}
	if fc.this != nil {
		if f := fc.this.Class.FieldByName(e.Name); f != nil && !fc.this.Class.IsEnum {
			d := fc.out(dst)
			fc.emit(vm.GETF, d, fc.thisReg, int32(f.Index))
			return d, f.Type
		}
		if ms := fc.c.methodsOf(fc.cls, e.Name); len(ms) > 0 {
			return fc.methodRef(fc.thisReg, fc.this, e.Name, hint, e.Pos, dst)
		}
	}
	if fs := fc.visibleFuncs(e.Name); len(fs) > 0 {
		return fc.funcRef(fs, hint, e.Pos, dst)
	}
	if fc.c.classes[e.Name] != nil || fc.c.lib.HostTypes[e.Name] != nil {
		fc.errorf(e.Pos, "type %s is not an expression", e.Name)
	} else if fc.c.lib.Packages[e.Name] != nil || e.Name == "thread" {
		fc.errorf(e.Pos, "package %s is not an expression", e.Name)
	} else {
		fc.errorf(e.Pos, "undefined: %s%s", e.Name, fc.suggestName(e.Name))
	}
	return fc.out(dst), badType
}

func (fc *fcomp) suggestName(name string) string {
	best := ""
	for i := len(fc.scopes) - 1; i >= 0; i-- {
		for n := range fc.scopes[i].vars {
			if n != "" && n[0] != 0 && editDistance(n, name) <= 2 && (best == "" || n < best) {
				best = n
			}
		}
		if fc.scopes[i].barrier {
			break // a default value does not see the caller's locals
		}
	}
	if best == "" {
		for n := range fc.c.funcs {
			if editDistance(n, name) <= 1 {
				best = n
			}
		}
	}
	if best != "" {
		return " (did you mean " + best + "?)"
	}
	return ""
}

// funcRef makes a Func value of a top-level function.
func (fc *fcomp) funcRef(fs []*funcInfo, hint *vm.Type, pos syntax.Pos, dst int32) (int32, *vm.Type) {
	f := fs[0]
	if len(fs) > 1 {
		f = nil
		if hint != nil && hint.Kind == vm.KFunc {
			for _, g := range fs {
				if sameParams(g.params, hint.Args) {
					f = g
				}
			}
		}
		if f == nil {
			fc.errorf(pos, "ambiguous reference to overloaded function %s", fs[0].decl.Name)
			return fc.out(dst), badType
		}
	}
	if hasDefaults(f.defaults) {
		fc.errorf(pos, "%s cannot be a function value: it has default parameter values, which a call through a function value cannot use", f.decl.Name)
		return fc.out(dst), badType
	}
	t := vm.FuncOf(f.result, f.params, f.outs)
	d := fc.out(dst)
	b := vm.Bind{Fn: f.fn, Type: t}
	if f.native != nil {
		b = vm.Bind{Native: f.native, Type: t}
	}
	fc.emit(vm.BIND, d, -1, fc.bind(b))
	return d, t
}

// hasDefaults reports whether a parameter list has a default value.
func hasDefaults(defaults []syntax.Expr) bool {
	for _, d := range defaults {
		if d != nil {
			return true
		}
	}
	return false
}

// methodRef makes a Func value of method name bound to the receiver in
// register recv of type rt.
func (fc *fcomp) methodRef(recv int32, rt *vm.Type, name string, hint *vm.Type, pos syntax.Pos, dst int32) (int32, *vm.Type) {
	var cands []*callee
	switch rt.Kind {
	case vm.KClass, vm.KInterface:
		ci := fc.c.classes[rt.Class.Name]
		for _, m := range fc.c.methodsOf(ci, name) {
			cands = append(cands, fc.c.userCallee(m))
		}
	case vm.KHost:
		cands = fc.c.hostMethods(rt, name)
	default:
		cands = fc.c.builtinMethods(rt, name)
	}
	if len(cands) == 0 {
		fc.errorf(pos, "%s has no method %s", rt, name)
		return fc.out(dst), badType
	}
	m := cands[0]
	if len(cands) > 1 {
		m = nil
		if hint != nil && hint.Kind == vm.KFunc {
			for _, g := range cands {
				if sameParams(g.params, hint.Args) {
					m = g
				}
			}
		}
		if m == nil {
			fc.errorf(pos, "ambiguous reference to overloaded method %s", name)
			return fc.out(dst), badType
		}
	}
	if m.fi != nil && hasDefaults(m.defaults) {
		fc.errorf(pos, "method %s cannot be a function value: it has default parameter values, which a call through a function value cannot use", name)
		return fc.out(dst), badType
	}
	t := vm.FuncOf(m.result, m.params, m.outs)
	b := vm.Bind{Type: t}
	switch {
	case m.native != nil:
		b.Native = m.native
	case rt.Kind == vm.KInterface || m.fi.fn.Virtual:
		b.Name = name // late-bound by name on each call
	default:
		b.Fn = m.fi.fn
	}
	d := fc.out(dst)
	fc.emit(vm.BIND, d, recv, fc.bind(b))
	return d, t
}

// memberPre compiles the forms of x.name whose x is not a value: a
// function of an imported module, an enum member, a function of a
// package. It reports done = false for the others: then x is compiled and
// memberOn applied (see postfix).
func (fc *fcomp) memberPre(e *syntax.Member, hint *vm.Type, dst int32) (r int32, t *vm.Type, done bool) {
	r, t = fc.memberSpecial(e, hint, dst)
	return r, t, t != nil
}

func (fc *fcomp) memberSpecial(e *syntax.Member, hint *vm.Type, dst int32) (int32, *vm.Type) {
	if mod, ok := fc.modulePath(e.X); ok {
		fs := fc.moduleFuncs(mod, e.Name)
		if len(fs) == 0 {
			fc.errorf(e.NamePos, "module %s has no function %s", mod.module, e.Name)
			return fc.out(dst), badType
		}
		return fc.funcRef(fs, hint, e.NamePos, dst)
	}
	if id, ok := e.X.(*syntax.Ident); ok && fc.lookup(id.Name) == nil && !fc.isThisField(id.Name) {
		if ci := fc.c.classes[id.Name]; ci != nil && ci.cls.IsEnum {
			v, ok := enumValue(ci.cls, e.Name)
			if !ok {
				fc.errorf(e.NamePos, "enum %s has no member %s", id.Name, e.Name)
				return fc.out(dst), badType
			}
			d := fc.out(dst)
			fc.loadInt(d, v)
			return d, vm.ClassType(ci.cls)
		}
		if fc.c.lib.Packages[id.Name] != nil || id.Name == "thread" {
			if !fc.file.imports[id.Name] {
				fc.errorf(id.Pos, "Package '%s' is not imported (add import %s;)", id.Name, id.Name)
				return fc.out(dst), badType
			}
			if ns := fc.c.packageFuncs(id.Name, e.Name); len(ns) > 0 {
				m := ns[0]
				t := vm.FuncOf(m.result, m.params, m.outs)
				d := fc.out(dst)
				fc.emit(vm.BIND, d, -1, fc.bind(vm.Bind{Native: m.native, Type: t}))
				return d, t
			}
			fc.errorf(e.NamePos, "package %s has no function %s", id.Name, e.Name)
			return fc.out(dst), badType
		}
	}
	return 0, nil
}

// memberOn compiles x.name where the value x, of type xt, is in register x.
func (fc *fcomp) memberOn(e *syntax.Member, hint *vm.Type, dst int32, x int32, xt *vm.Type) (int32, *vm.Type) {
	if xt == badType {
		return fc.out(dst), badType
	}
	switch xt.Kind {
	case vm.KClass, vm.KStruct, vm.KInterface:
		if f := xt.Class.FieldByName(e.Name); f != nil {
			d := fc.out(dst)
			fc.line(e.NamePos, false)
			fc.emit(vm.GETF, d, x, int32(f.Index))
			return d, f.Type
		}
		if xt.Kind != vm.KStruct {
			return fc.methodRef(x, xt, e.Name, hint, e.NamePos, dst)
		}
	case vm.KArray:
		if e.Name == "length" {
			d := fc.out(dst)
			fc.emit(vm.LEN, d, x, fc.typeIndex(xt))
			return d, vm.Int
		}
		return fc.methodRef(x, xt, e.Name, hint, e.NamePos, dst)
	case vm.KHost, vm.KList, vm.KDict, vm.KString:
		return fc.methodRef(x, xt, e.Name, hint, e.NamePos, dst)
	}
	fc.errorf(e.NamePos, "%s has no field %s", xt, e.Name)
	return fc.out(dst), badType
}

func (fc *fcomp) isThisField(name string) bool {
	return fc.this != nil && fc.this.Class.FieldByName(name) != nil
}

func (fc *fcomp) unary(e *syntax.Unary, hint *vm.Type, dst int32) (int32, *vm.Type) {
	switch e.Op {
	case syntax.PLUS:
		// +x is x, promoted as arithmetic promotes it (+b is an int)
		r, t := fc.gen(e.X, hint, dst)
		if t == badType {
			return r, badType
		}
		pt := promote(t, t)
		if pt == nil {
			fc.errorf(e.Pos, "operator + needs a number, got %s", t)
			return r, badType
		}
		return fc.place(r, dst), pt
	case syntax.NOT:
		r, t := fc.gen(e.X, vm.Bool, -1)
		if t != vm.Bool && t != badType {
			fc.errorf(e.Pos, "operator ! needs a bool, got %s", t)
		}
		d := fc.out(dst)
		fc.emit(vm.NOT, d, r, 0)
		return d, vm.Bool
	case syntax.MINUS:
		if lit, ok := e.X.(*syntax.IntLit); ok {
			return fc.intLit(lit, true, hint, dst)
		}
		if lit, ok := e.X.(*syntax.FloatLit); ok {
			neg := *lit
			neg.Value = -lit.Value
			return fc.gen(&neg, hint, dst)
		}
		r, t := fc.gen(e.X, hint, -1)
		if t == badType {
			return fc.out(dst), badType
		}
		pt := promote(t, t)
		if pt == nil {
			fc.errorf(e.Pos, "operator - needs a number, got %s", t)
			return fc.out(dst), badType
		}
		d := fc.out(dst)
		zero := fc.temp()
		switch pt.Kind {
		case vm.KInt:
			fc.emit(vm.NEGI, d, r, 0)
		case vm.KLong:
			fc.emit(vm.NEGL, d, r, 0)
		case vm.KFloat:
			fc.emit(vm.NEGF, d, r, 0)
		case vm.KDouble:
			fc.emit(vm.NEGD, d, r, 0)
		case vm.KUint:
			fc.emit(vm.LOADI, zero, 0, 0)
			fc.emit(vm.SUBU, d, zero, r)
		default:
			fc.emit(vm.LOADI, zero, 0, 0)
			fc.emit(vm.SUBUL, d, zero, r)
		}
		return d, pt
	}
	fc.errorf(e.Pos, "unsupported operator %s", e.Op)
	return fc.out(dst), badType
}

// isExponentLit reports whether an integer literal is written with an
// exponent (2e5).
func isExponentLit(raw string) bool {
	return !strings.HasPrefix(raw, "0x") && !strings.HasPrefix(raw, "0X") && strings.ContainsAny(raw, "eE")
}

func isFloatLit(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.FloatLit:
		return true
	case *syntax.Unary:
		_, ok := e.X.(*syntax.FloatLit)
		return ok && e.Op == syntax.MINUS
	}
	return false
}

func isIntLit(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.IntLit:
		return true
	case *syntax.Unary:
		_, ok := e.X.(*syntax.IntLit)
		return ok && e.Op == syntax.MINUS
	}
	return false
}

// binaryOperandType returns the common type of a binary arithmetic or
// relational operation on types xt and yt; integer literals adapt to the
// other side when they fit.
func (fc *fcomp) binaryOperandType(xt, yt *vm.Type, x, y syntax.Expr) *vm.Type {
	if isIntLit(y) && xt.IsInteger() && fc.litFits(y, xt) {
		yt = xt
	}
	if isIntLit(x) && yt.IsInteger() && fc.litFits(x, yt) {
		xt = yt
	}
	return promote(xt, yt)
}

func (fc *fcomp) litFits(e syntax.Expr, t *vm.Type) bool {
	switch e := e.(type) {
	case *syntax.IntLit:
		return !e.Overflow && literalFits(e.Value, false, t)
	case *syntax.Unary:
		l := e.X.(*syntax.IntLit)
		return !l.Overflow && literalFits(l.Value, true, t)
	}
	return false
}

// widen converts register r of integer/floating type from to the
// operation type to (a new temporary if code is needed).
func (fc *fcomp) widen(r int32, from, to *vm.Type) int32 {
	if from == to || !(to.IsFloat() && !from.IsFloat()) {
		return r
	}
	t := fc.temp()
	fc.convertInto(t, r, from, to, syntax.Pos{})
	return t
}

// toString converts register r of type t to a string register.
func (fc *fcomp) toString(r int32, t *vm.Type, pos syntax.Pos) int32 {
	if t == vm.String {
		return r
	}
	d := fc.temp()
	if t == vm.Null {
		fc.emit(vm.LOADK, d, fc.constIndex("s:null", vm.StrV("null")), 0)
		return d
	}
	fc.convertInto(d, r, t, vm.String, pos)
	return d
}

func arithOp(op syntax.Token, t *vm.Type) vm.Opcode {
	var base, off vm.Opcode
	switch t.Kind {
	case vm.KInt:
		base = vm.ADDI
	case vm.KLong:
		base = vm.ADDL
	case vm.KUint:
		base = vm.ADDU
	case vm.KUlong:
		base = vm.ADDUL
	case vm.KFloat:
		base = vm.ADDF
	case vm.KDouble:
		base = vm.ADDD
	}
	switch op {
	case syntax.MINUS:
		off = 1
	case syntax.STAR:
		off = 2
	case syntax.SLASH:
		off = 3
	case syntax.PERCENT:
		off = 4
	}
	return base + off
}

func (fc *fcomp) compareRegs(op syntax.Token, rx int32, xt *vm.Type, ry int32, yt *vm.Type, x, y syntax.Expr, pos syntax.Pos, dst int32) int32 {
	d := fc.out(dst)
	if xt == badType || yt == badType {
		return d
	}
	swap := false
	if op == syntax.GT || op == syntax.GE {
		swap = true
		rx, ry = ry, rx
		if op == syntax.GT {
			op = syntax.LT
		} else {
			op = syntax.LE
		}
	}
	eq := op == syntax.EQL || op == syntax.NEQ
	pick := func(eqOp, neOp, ltOp, leOp vm.Opcode) {
		var o vm.Opcode
		switch op {
		case syntax.EQL:
			o = eqOp
		case syntax.NEQ:
			o = neOp
		case syntax.LT:
			o = ltOp
		default:
			o = leOp
		}
		fc.emit(o, d, rx, ry)
	}
	_ = swap
	switch {
	case xt == vm.Null || yt == vm.Null:
		other := xt
		r := rx
		if xt == vm.Null {
			other, r = yt, ry
		}
		if !eq || !(other.IsRef() || other == vm.String || other == vm.Null) {
			fc.errorf(pos, "invalid comparison of %s with null", other)
			return d
		}
		if op == syntax.EQL {
			fc.emit(vm.ISNULL, d, r, 0)
		} else {
			fc.emit(vm.NOTNULL, d, r, 0)
		}
	case xt == vm.String || yt == vm.String:
		if xt != yt {
			fc.errorf(pos, "invalid comparison: mismatched types %s and %s", xt, yt)
			return d
		}
		pick(vm.EQS, vm.NES, vm.LTS, vm.LES)
	case xt == vm.Bool || yt == vm.Bool:
		if xt != yt || !eq {
			fc.errorf(pos, "invalid comparison of %s and %s", xt, yt)
			return d
		}
		pick(vm.EQ, vm.NE, 0, 0)
	case xt == vm.Char || yt == vm.Char:
		if xt != yt {
			fc.errorf(pos, "invalid comparison: char compares only with char, got %s and %s", xt, yt)
			return d
		}
		pick(vm.EQ, vm.NE, vm.LTU, vm.LEU)
	case xt.Kind == vm.KEnum && yt.Kind == vm.KEnum:
		if xt != yt {
			fc.errorf(pos, "invalid comparison of %s and %s", xt, yt)
			return d
		}
		pick(vm.EQ, vm.NE, vm.LTI, vm.LEI)
	case xt.IsRef() && yt.IsRef():
		if !eq {
			fc.errorf(pos, "invalid operation: %s %s %s", xt, op, yt)
			return d
		}
		if fc.c.convScore(xt, yt) < 0 && fc.c.convScore(yt, xt) < 0 {
			fc.errorf(pos, "invalid comparison: mismatched types %s and %s", xt, yt)
			return d
		}
		pick(vm.EQR, vm.NER, 0, 0)
	default:
		pt := fc.binaryOperandType(xt, yt, x, y)
		if swap {
			pt = fc.binaryOperandType(yt, xt, y, x)
		}
		if pt == nil || pt == badType {
			fc.errorf(pos, "invalid comparison of %s and %s", xt, yt)
			return d
		}
		if swap {
			rx = fc.widen(rx, yt, pt)
			ry = fc.widen(ry, xt, pt)
		} else {
			rx = fc.widen(rx, xt, pt)
			ry = fc.widen(ry, yt, pt)
		}
		switch {
		case pt.IsFloat():
			pick(vm.EQD, vm.NED, vm.LTD, vm.LED)
		case pt.IsSigned():
			pick(vm.EQ, vm.NE, vm.LTI, vm.LEI)
		default:
			pick(vm.EQ, vm.NE, vm.LTU, vm.LEU)
		}
	}
	return d
}

func (fc *fcomp) indexOn(e *syntax.Index, dst int32, x int32, xt *vm.Type) (int32, *vm.Type) {
	if xt == badType {
		return fc.out(dst), badType
	}
	switch xt.Kind {
	case vm.KArray, vm.KList, vm.KString:
		i := fc.value(e.Index, vm.Int, -1)
		d := fc.out(dst)
		fc.line(e.Lbrack, false)
		switch xt.Kind {
		case vm.KArray:
			fc.emit(vm.AGET, d, x, i)
			return d, xt.Elem
		case vm.KList:
			fc.emit(vm.LGET, d, x, i)
			return d, xt.Elem
		}
		fc.emit(vm.SGET, d, x, i)
		return d, vm.Ubyte
	case vm.KDict:
		m := fc.c.builtinMethods(xt, "get")
		if len(m) == 0 {
			fc.errorf(e.Lbrack, "Dict has no get method")
			return fc.out(dst), badType
		}
		base := fc.alloc(2)
		fc.emit(vm.MOVE, base, x, 0)
		fc.value(e.Index, xt.Key, base+1)
		d := fc.out(dst)
		fc.line(e.Lbrack, false)
		fc.emit(vm.CALLN, base, fc.ncall(vm.NCall{Native: m[0].native, NArgs: 2, Type: xt}), d)
		return d, xt.Elem
	}
	fc.errorf(e.Lbrack, "cannot index a value of type %s", xt)
	return fc.out(dst), badType
}

// assign compiles an assignment statement.
func (fc *fcomp) assign(s *syntax.Assign) {
	rhs := s.RHS
	if s.Op != syntax.ASSIGN {
		op := map[syntax.Token]syntax.Token{syntax.PLUSEQ: syntax.PLUS, syntax.MINUSEQ: syntax.MINUS,
			syntax.STAREQ: syntax.STAR, syntax.SLASHEQ: syntax.SLASH, syntax.PERCENTEQ: syntax.PERCENT}[s.Op]
		if _, isIdx := s.LHS.(*syntax.Index); isIdx {
			fc.errorf(s.Pos, "compound assignment to an element is not allowed (use a[i] = a[i] %s x)", op)
			return
		}
		rhs = &syntax.Binary{Pos: s.Pos, Op: op, X: s.LHS, Y: s.RHS}
	}
	switch l := s.LHS.(type) {
	case *syntax.Ident:
		if loc := fc.lookup(l.Name); loc != nil {
			if loc.isConst {
				fc.errorf(l.Pos, "cannot assign to const %s", l.Name)
				return
			}
			if s.Op != syntax.ASSIGN {
				fc.compoundValue(rhs.(*syntax.Binary), s.RHS, loc.typ, loc.reg)
				return
			}
			fc.assignValue(rhs, loc.typ, loc.reg, false)
			return
		}
		if fc.this != nil && !fc.this.Class.IsEnum {
			if f := fc.this.Class.FieldByName(l.Name); f != nil {
				r := fc.compoundValue(rhs, s.RHS, f.Type, -1)
				fc.emit(vm.SETF, fc.thisReg, int32(f.Index), r)
				return
			}
		}
		fc.errorf(l.Pos, "undefined: %s%s", l.Name, fc.suggestName(l.Name))
	case *syntax.Member:
		x, xt := fc.gen(l.X, nil, -1)
		if xt == badType {
			return
		}
		if s.Op != syntax.ASSIGN {
			// the target object is evaluated once: the read goes
			// through a hidden local holding it
			const hidden = "\x00lhs"
			sc := fc.scopes[len(fc.scopes)-1]
			sc.vars[hidden] = &local{name: hidden, typ: xt, reg: x, varIdx: -1}
			defer delete(sc.vars, hidden)
			b := rhs.(*syntax.Binary)
			rhs = &syntax.Binary{Pos: b.Pos, Op: b.Op, X: &syntax.Member{X: &syntax.Ident{Pos: l.X.Start(), Name: hidden}, Name: l.Name, NamePos: l.NamePos}, Y: b.Y}
		}
		if xt.Kind != vm.KClass && xt.Kind != vm.KStruct {
			fc.errorf(l.NamePos, "cannot assign to %s of %s", l.Name, xt)
			return
		}
		f := xt.Class.FieldByName(l.Name)
		if f == nil {
			fc.errorf(l.NamePos, "%s has no field %s", xt, l.Name)
			return
		}
		r := fc.compoundValue(rhs, s.RHS, f.Type, -1)
		fc.line(l.NamePos, false)
		fc.emit(vm.SETF, x, int32(f.Index), r)
	case *syntax.Index:
		x, xt := fc.gen(l.X, nil, -1)
		switch xt.Kind {
		case vm.KArray, vm.KList:
			i := fc.value(l.Index, vm.Int, -1)
			r := fc.value(rhs, xt.Elem, -1)
			fc.line(l.Lbrack, false)
			if xt.Kind == vm.KArray {
				fc.emit(vm.ASET, x, i, r)
			} else {
				fc.emit(vm.LSET, x, i, r)
			}
		case vm.KDict:
			m := fc.c.builtinMethods(xt, "set")
			base := fc.alloc(3)
			fc.emit(vm.MOVE, base, x, 0)
			fc.value(l.Index, xt.Key, base+1)
			fc.value(rhs, xt.Elem, base+2)
			fc.line(l.Lbrack, false)
			fc.emit(vm.CALLN, base, fc.ncall(vm.NCall{Native: m[0].native, NArgs: 3, Type: xt}), base)
		case vm.KString:
			fc.errorf(l.Lbrack, "cannot assign to a character of a string (strings are immutable)")
		default:
			if xt != badType {
				fc.errorf(l.Lbrack, "cannot index a value of type %s", xt)
			}
		}
	default:
		fc.errorf(s.LHS.Start(), "cannot assign to this expression")
	}
}

// compoundValue compiles the value rhs of an assignment to a target of
// type t, into dst (or any register if dst < 0), and returns the
// register. For a compound assignment (rhs is the *syntax.Binary x op y
// it stands for, y the right operand as written) whose operation gives a
// wider integer than t, as byte b; b %= 4 does (byte % int is an int),
// the result is narrowed back to t provided y itself converts to t
// implicitly: the operation stays in t's range the way x = x op y would
// with every operand of type t.
func (fc *fcomp) compoundValue(rhs, y syntax.Expr, t *vm.Type, dst int32) int32 {
	b, ok := rhs.(*syntax.Binary)
	if !ok || b.Y != y || !t.IsInteger() {
		return fc.value(rhs, t, dst)
	}
	if bt := fc.peekAs(b, t); bt == badType || bt == t || !bt.IsInteger() || !intContains(bt, t) {
		return fc.value(rhs, t, dst)
	}
	r, bt := fc.gen(b, t, -1)
	d := fc.out(dst)
	if yt := fc.peekAs(y, t); fc.convCost(y, yt, t, nil) < 0 {
		fc.errorf(y.Start(), "cannot use %s as %s in a compound assignment (its right operand must convert to %s implicitly; use as %s)", yt, t, t, t)
		return d
	}
	fc.emit(vm.CONV, d, r, int32(bt.Kind)<<8|int32(t.Kind))
	return d
}

// assignValue stores rhs (converted to t) into register reg; values that
// read reg after writing their result go through a temp.
func (fc *fcomp) assignValue(rhs syntax.Expr, t *vm.Type, reg int32, compound bool) {
	if t.Kind == vm.KStruct || !writesLast(rhs) {
		r := fc.value(rhs, t, -1)
		if r != reg {
			fc.emit(vm.MOVE, reg, r, 0)
		}
		return
	}
	// Compile straight into the local when the value does not read it
	// after writing (binary ops read both operands before writing).
	fc.value(rhs, t, reg)
}

// writesLast reports whether compiling e into a register writes that
// register only after reading all of e's operands.
func writesLast(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.Binary:
		return e.Op != syntax.ANDAND && e.Op != syntax.OROR
	case *syntax.ArrayLit, *syntax.InitList, *syntax.New:
		return false
	}
	return true
}

// smallIntLit returns the value of an integer literal (or negated
// literal) that fits an instruction's immediate operand.
func smallIntLit(e syntax.Expr) (int32, bool) {
	neg := false
	if u, ok := e.(*syntax.Unary); ok && u.Op == syntax.MINUS {
		e, neg = u.X, true
	}
	l, ok := e.(*syntax.IntLit)
	if !ok || l.Overflow || l.Value > 1<<30 {
		return 0, false
	}
	v := int32(l.Value)
	if neg {
		v = -v
	}
	return v, true
}

// hasOutArg reports whether e contains a call with an out argument (which
// may change a local while e is evaluated).
func hasOutArg(e syntax.Expr) bool {
	found := false
	syntax.WalkExpr(e, func(x syntax.Expr) bool {
		if c, ok := x.(*syntax.Call); ok {
			for _, a := range c.Args {
				found = found || a.Out
			}
		}
		return !found
	})
	return found
}
