package compile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// callee is one candidate of a call: a user function or method, or a
// native with its signature instantiated.
type callee struct {
	params   []*vm.Type
	names    []string
	outs     []bool
	defaults []syntax.Expr
	result   *vm.Type
	fi       *funcInfo
	native   *vm.Native
	file     *fileInfo // where defaults resolve
	name     string
}

func (c *compiler) userCallee(f *funcInfo) *callee {
	return &callee{params: f.params, names: f.names, outs: f.outs, defaults: f.defaults,
		result: f.result, fi: f, file: f.file, name: f.decl.Name, native: f.native}
}

// libFile is the file context of native signatures.
var libFile = &fileInfo{ast: &syntax.File{Name: "<builtin>"}, imports: map[string]bool{}, aliases: map[string]*syntax.TypeExpr{}, lib: true}

// nativeCallee parses a native's signature with the type parameters in
// env.
func (c *compiler) nativeCallee(n *vm.Native, env map[string]*vm.Type, owner string) *callee {
	d := c.sigs[n]
	if d == nil {
		wrap := owner
		if wrap == "" {
			wrap = "__Sig"
		}
		src := "class " + wrap + " { " + n.Sig + "; }"
		f, err := syntax.Parse("<builtin>", []byte(src))
		if err != nil || len(f.Decls) != 1 {
			panic(fmt.Sprintf("compile: bad native signature %q: %v", n.Sig, err))
		}
		cd := f.Decls[0].(*syntax.ClassDecl)
		if len(cd.Methods) != 1 {
			panic(fmt.Sprintf("compile: bad native signature %q", n.Sig))
		}
		d = cd.Methods[0]
		c.sigs[n] = d
	}
	cl := &callee{native: n, file: libFile, name: d.Name}
	if d.Result == nil {
		cl.result = vm.Void
	} else {
		cl.result = c.resolveType(libFile, d.Result, env)
	}
	for _, p := range d.Params {
		cl.params = append(cl.params, c.resolveType(libFile, p.Type, env))
		cl.names = append(cl.names, p.Name)
		cl.outs = append(cl.outs, p.Out)
		cl.defaults = append(cl.defaults, p.Default)
	}
	return cl
}

// methodsOf returns the methods named name of class ci and its bases
// (most derived first), including interface methods.
func (c *compiler) methodsOf(ci *classInfo, name string) []*funcInfo {
	var out []*funcInfo
	seen := map[string]bool{}
	visited := map[*classInfo]bool{}
	// a walk with a stack, in the order of a recursion: a class, the
	// interfaces it extends (for an interface), then its base
	stack := []*classInfo{ci}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if k == nil || visited[k] {
			continue
		}
		visited[k] = true
		for _, m := range k.methods {
			if m.decl.Name != name {
				continue
			}
			if key := fmt.Sprint(m.params); !seen[key] {
				seen[key] = true
				out = append(out, m)
			}
		}
		stack = append(stack, k.base)
		if k.cls.IsInterface {
			for i := len(k.cls.Interfaces) - 1; i >= 0; i-- {
				stack = append(stack, c.classes[k.cls.Interfaces[i].Name])
			}
		}
	}
	return out
}

func typeEnv(t *vm.Type) map[string]*vm.Type {
	switch t.Kind {
	case vm.KList, vm.KArray:
		return map[string]*vm.Type{"T": t.Elem}
	case vm.KDict:
		return map[string]*vm.Type{"K": t.Key, "V": t.Elem}
	case vm.KHost:
		env := map[string]*vm.Type{}
		for i, p := range t.Host.TypeParams {
			if i < len(t.Args) {
				env[p] = t.Args[i]
			}
		}
		return env
	}
	return nil
}

// builtinMethods returns the methods of string, List, Dict and arrays.
func (c *compiler) builtinMethods(t *vm.Type, name string) []*callee {
	key := vm.MethodKind(t)
	if key == "" {
		return nil
	}
	var out []*callee
	for _, n := range c.lib.Methods[key] {
		if n.Method() == name {
			out = append(out, c.nativeCallee(n, typeEnv(t), ""))
		}
	}
	return out
}

// hostMethods returns the methods of a host type.
func (c *compiler) hostMethods(t *vm.Type, name string) []*callee {
	var out []*callee
	for _, n := range t.Host.Methods {
		if n.Method() == name {
			out = append(out, c.nativeCallee(n, typeEnv(t), t.Host.Name))
		}
	}
	return out
}

func (c *compiler) packageFuncs(pkg, name string) []*callee {
	var out []*callee
	p := c.lib.Packages[pkg]
	if p == nil {
		return nil
	}
	for _, n := range p.Funcs {
		if n.Method() == name {
			out = append(out, c.nativeCallee(n, nil, ""))
		}
	}
	return out
}

// bindArgs matches call arguments to a candidate's parameters: it returns,
// per parameter, the argument (nil: use the default) or ok=false.
func bindArgs(cl *callee, args []*syntax.Arg) ([]*syntax.Arg, bool) {
	out := make([]*syntax.Arg, len(cl.params))
	pos := 0
	for _, a := range args {
		if a.Name != "" {
			idx := -1
			for i, n := range cl.names {
				if n == a.Name {
					idx = i
				}
			}
			if idx < 0 || out[idx] != nil {
				return nil, false
			}
			out[idx] = a
			continue
		}
		if pos >= len(out) {
			return nil, false
		}
		out[pos] = a
		pos++
	}
	for i, a := range out {
		if a == nil && cl.defaults[i] == nil {
			return nil, false
		}
		if a != nil && a.Out != cl.outs[i] {
			return nil, false
		}
	}
	return out, true
}

// checkArgOrder reports a positional argument written after a named one
// (f(b = 2, 1)), which has no parameter to go to.
func (fc *fcomp) checkArgOrder(args []*syntax.Arg) bool {
	named := ""
	seen := map[string]bool{}
	for _, a := range args {
		switch {
		case a.Name != "" && seen[a.Name]:
			fc.errorf(a.Pos, "argument %s is given twice", a.Name)
			return false
		case a.Name != "":
			named = a.Name
			seen[a.Name] = true
		case named != "":
			fc.errorf(a.Pos, "positional argument after named argument %s (named arguments come last)", named)
			return false
		}
	}
	return true
}

// resolve picks the best candidate for the arguments (lowest total
// conversion score). It reports an error and returns nil if none fits or
// the best is ambiguous.
func (fc *fcomp) resolve(cands []*callee, args []*syntax.Arg, pos syntax.Pos, what string) (*callee, []*syntax.Arg) {
	if !fc.checkArgOrder(args) {
		for _, a := range args {
			fc.peekType(a.X)
		}
		return nil, nil
	}
	// types holds each argument's own type (no expectation), computed
	// when first needed
	types := make([]*vm.Type, len(args))
	typeOf := func(i int) *vm.Type {
		if types[i] == nil {
			types[i] = fc.peekType(args[i].X)
		}
		return types[i]
	}
	var best *callee
	var bestArgs []*syntax.Arg
	bestScore, ties := -1, 0
	for _, cl := range cands {
		bound, ok := bindArgs(cl, args)
		if !ok {
			continue
		}
		score := 0
		for i, a := range bound {
			if a == nil {
				continue // a default costs nothing (as in the reference)
			}
			ai := indexOf(args, a)
			if a.Out {
				if at := typeOf(ai); at != cl.params[i] && at != badType {
					ok = false
					break
				}
				continue
			}
			var ctx *vm.Type
			if fc.hintMatters(a.X, cl.params[i]) {
				ctx = fc.peekTypeHint(a.X, cl.params[i])
			} else {
				ctx = typeOf(ai)
			}
			s := fc.convCost(a.X, ctx, cl.params[i], func() *vm.Type { return typeOf(ai) })
			if s < 0 {
				ok = false
				break
			}
			score += s
		}
		if !ok {
			continue
		}
		switch {
		case best == nil || score < bestScore:
			best, bestArgs, bestScore, ties = cl, bound, score, 0
		case score == bestScore:
			ties++
		}
	}
	if best == nil {
		if len(cands) == 1 {
			fc.explainMismatch(cands[0], args, typeOf, pos, what)
		} else {
			var ts []string
			for i := range args {
				ts = append(ts, typeOf(i).String())
			}
			fc.errorf(pos, "no overload of %s matches (%s)", what, strings.Join(ts, ", "))
		}
		return nil, nil
	}
	if ties > 0 {
		for i := range args {
			if typeOf(i) == badType {
				// an argument failed to compile: its error is reported
				// when it is compiled, so do not add an ambiguity
				return best, bestArgs
			}
		}
		fc.errorf(pos, "ambiguous call of overloaded %s", what)
		return nil, nil
	}
	return best, bestArgs
}

// peekTypeHint is the static type of e typed where hint is expected
// (constant fitting, initialisers, function references).
func (fc *fcomp) peekTypeHint(e syntax.Expr, hint *vm.Type) *vm.Type {
	switch e.(type) {
	case *syntax.InitList, *syntax.ArrayLit:
		return hint
	}
	if fc.hintMatters(e, hint) {
		return fc.peekAs(e, hint)
	}
	return fc.peekType(e)
}

func indexOf(args []*syntax.Arg, a *syntax.Arg) int {
	for i, x := range args {
		if x == a {
			return i
		}
	}
	return -1
}

func (fc *fcomp) explainMismatch(cl *callee, args []*syntax.Arg, typeOf func(int) *vm.Type, pos syntax.Pos, what string) {
	nreq := 0
	for _, d := range cl.defaults {
		if d == nil {
			nreq++
		}
	}
	positional := 0
	for _, a := range args {
		if a.Name == "" {
			positional++
		}
	}
	if positional > len(cl.params) || len(args) < nreq {
		want := fmt.Sprint(len(cl.params))
		if nreq != len(cl.params) {
			want = fmt.Sprintf("%d to %d", nreq, len(cl.params))
		}
		fc.errorf(pos, "wrong number of arguments in call to %s: got %d, want %s", what, len(args), want)
		return
	}
	bound, ok := bindArgs(cl, args)
	if !ok {
		for _, a := range args {
			if a.Name != "" {
				found := false
				for _, n := range cl.names {
					found = found || n == a.Name
				}
				if !found {
					fc.errorf(a.Pos, "%s has no parameter named %s", what, a.Name)
					return
				}
			}
		}
		for _, a := range args {
			for i, n := range cl.names {
				if a.Name != "" && n == a.Name && i < positional {
					fc.errorf(a.Pos, "argument %s of %s is given twice (it is argument %d, passed by position)", a.Name, what, i+1)
					return
				}
			}
		}
		for i, a := range args {
			if i < len(cl.outs) && a.Name == "" && a.Out != cl.outs[i] {
				if cl.outs[i] {
					fc.errorf(a.Pos, "argument %d of %s must be passed as out", i+1, what)
				} else {
					fc.errorf(a.Pos, "argument %d of %s is not an out parameter", i+1, what)
				}
				return
			}
		}
		fc.errorf(pos, "arguments do not match %s", what)
		return
	}
	for i, a := range bound {
		if a == nil {
			continue
		}
		at := typeOf(indexOf(args, a))
		if a.Out {
			if at != cl.params[i] && at != badType {
				fc.errorf(a.X.Start(), "out argument %d of %s must be a %s variable, got %s", i+1, what, cl.params[i], at)
				return
			}
			continue
		}
		ctx := at
		if fc.hintMatters(a.X, cl.params[i]) {
			ctx = fc.peekTypeHint(a.X, cl.params[i])
		}
		if fc.convCost(a.X, ctx, cl.params[i], nil) >= 0 {
			continue
		}
		fc.convError(a.X, ctx, cl.params[i], fmt.Sprintf(" in argument %d of %s", i+1, what))
		return
	}
	fc.errorf(pos, "arguments do not match %s", what)
}

// emitArgs evaluates the bound arguments of cl into consecutive registers
// starting at base (defaults computed at the call site). recv is the
// register of the receiver of a method call (-1 for none): a default
// value is compiled in the callee's class with this = that receiver, so
// `int foo(int a = this.x)` reads x of the object the call is made on,
// at each call. It returns the out-argument write-backs to do after the
// call.
func (fc *fcomp) emitArgs(cl *callee, bound []*syntax.Arg, base, recv int32, pos syntax.Pos) []outBack {
	var backs []outBack
	// default expressions see earlier parameters by name
	var defScope *scope
	for i, a := range bound {
		r := base + int32(i)
		if a == nil {
			if defScope == nil {
				defScope = &scope{vars: map[string]*local{}, barrier: true}
				for j := 0; j < i; j++ {
					defScope.vars[cl.names[j]] = &local{name: cl.names[j], typ: cl.params[j], reg: base + int32(j), varIdx: -1}
				}
			}
			if cl.fi != nil && !fc.enterDefaultUse(cl.fi, i, pos) {
				continue
			}
			fc.scopes = append(fc.scopes, defScope)
			restore := fc.enterDefault(cl, recv)
			fc.value(cl.defaults[i], cl.params[i], r)
			restore()
			fc.scopes = fc.scopes[:len(fc.scopes)-1]
			if cl.fi != nil {
				fc.leaveDefaultUse()
			}
		} else if a.Out {
			id, ok := a.X.(*syntax.Ident)
			var l *local
			if ok {
				l = fc.lookup(id.Name)
			}
			if l == nil {
				fc.errorf(a.X.Start(), "out argument must be a local variable")
				continue
			}
			fc.emit(vm.MOVE, r, l.reg, 0)
			backs = append(backs, outBack{local: l.reg, arg: r})
		} else {
			fc.value(a.X, cl.params[i], r)
		}
		if defScope != nil {
			defScope.vars[cl.names[i]] = &local{name: cl.names[i], typ: cl.params[i], reg: r, varIdx: -1}
		}
	}
	return backs
}

// enterDefault switches the compiler to the context of cl's default
// values: its file, and its class with the receiver in register recv (no
// class outside a method). The returned function switches back.
func (fc *fcomp) enterDefault(cl *callee, recv int32) func() {
	file, cls, this, thisReg := fc.file, fc.cls, fc.this, fc.thisReg
	fc.file = cl.file
	fc.cls, fc.this, fc.thisReg = nil, nil, 0
	if cl.fi != nil && cl.fi.cls != nil && recv >= 0 {
		fc.cls, fc.this, fc.thisReg = cl.fi.cls, vm.ClassType(cl.fi.cls.cls), recv
	}
	return func() { fc.file, fc.cls, fc.this, fc.thisReg = file, cls, this, thisReg }
}

type outBack struct{ local, arg int32 }

func (fc *fcomp) writeBack(backs []outBack) {
	for _, b := range backs {
		fc.emit(vm.MOVE, b.local, b.arg, 0)
	}
}

// callCallee is the common call emitter.
func (fc *fcomp) callCallee(f *callee, bound []*syntax.Arg, recv int32, isMethod bool, pos syntax.Pos, dst int32, virtual bool, ncType *vm.Type) int32 {
	n := int32(len(f.params))
	if isMethod {
		n++
	}
	base := fc.alloc(n)
	argBase := base
	if isMethod {
		fc.emit(vm.MOVE, base, recv, 0)
		argBase = base + 1
	}
	recvReg := int32(-1)
	if isMethod {
		recvReg = base
	}
	backs := fc.emitArgs(f, bound, argBase, recvReg, pos)
	d := dst
	if d < 0 {
		d = fc.temp()
	}
	fc.line(pos, false)
	switch {
	case f.native != nil:
		fc.emit(vm.CALLN, base, fc.ncall(vm.NCall{Native: f.native, NArgs: int(n), Type: ncType}), d)
	case virtual && f.fi.cls != nil && f.fi.cls.cls.IsInterface:
		fc.emit(vm.CALLI, base, fc.dyn(vm.DynCall{Name: f.name, NArgs: len(f.params)}), d)
	case virtual && f.fi.fn.Virtual:
		fc.emit(vm.CALLV, base, int32(f.fi.fn.VIndex), d)
	default:
		fc.emit(vm.CALL, base, fc.funcIndex(f.fi.fn), d)
	}
	fc.writeBack(backs)
	return d
}

func (fc *fcomp) callFuncValue(e *syntax.Call, fr int32, ft *vm.Type, dst int32) (int32, *vm.Type) {
	if ft == badType {
		return fc.out(dst), badType
	}
	if ft.Kind != vm.KFunc {
		fc.errorf(e.Lparen, "cannot call a value of type %s", ft)
		return fc.out(dst), badType
	}
	cl := &callee{params: ft.Args, outs: ft.Out, result: ft.Result, name: "function value"}
	cl.names = make([]string, len(ft.Args))
	cl.defaults = make([]syntax.Expr, len(ft.Args))
	best, bound := fc.resolve([]*callee{cl}, e.Args, e.Lparen, "function value")
	if best == nil {
		return fc.out(dst), badType
	}
	fv := fc.temp()
	fc.emit(vm.MOVE, fv, fr, 0)
	base := fc.alloc(int32(len(ft.Args)) + 1)
	backs := fc.emitArgs(cl, bound, base+1, -1, e.Lparen)
	d := dst
	if d < 0 {
		d = fc.temp()
	}
	fc.line(e.Lparen, false)
	fc.emit(vm.CALLF, base, fv, d)
	fc.writeBack(backs)
	return d, ft.Result
}

func (fc *fcomp) callIdent(e *syntax.Call, id *syntax.Ident, hint *vm.Type, dst int32) (int32, *vm.Type) {
	name := id.Name
	// a Func local or parameter shadows functions
	if l := fc.lookup(name); l != nil {
		return fc.callFuncValue(e, l.reg, l.typ, dst)
	}
	if fc.this != nil && !fc.this.Class.IsEnum {
		if f := fc.this.Class.FieldByName(name); f != nil && f.Type.Kind == vm.KFunc {
			r := fc.temp()
			fc.emit(vm.GETF, r, fc.thisReg, int32(f.Index))
			return fc.callFuncValue(e, r, f.Type, dst)
		}
	}
	// a method of this class
	if fc.cls != nil {
		if ms := fc.c.methodsOf(fc.cls, name); len(ms) > 0 {
			cands := make([]*callee, len(ms))
			for i, m := range ms {
				cands[i] = fc.c.userCallee(m)
			}
			best, bound := fc.resolve(cands, e.Args, e.Lparen, name)
			if best == nil {
				return fc.out(dst), badType
			}
			if fc.this == nil {
				fc.errorf(id.Pos, "method %s called without a receiver", name)
				return fc.out(dst), badType
			}
			return fc.callCallee(best, bound, fc.thisReg, true, id.Pos, dst, !fc.cls.cls.IsEnum, nil), best.result
		}
	}
	if fs := fc.visibleFuncs(name); len(fs) > 0 {
		cands := make([]*callee, len(fs))
		for i, f := range fs {
			cands[i] = fc.c.userCallee(f)
		}
		best, bound := fc.resolve(cands, e.Args, e.Lparen, name)
		if best == nil {
			return fc.out(dst), badType
		}
		return fc.callCallee(best, bound, -1, false, id.Pos, dst, false, nil), best.result
	}
	// C(args) constructs like new C(args)
	if fc.c.classes[name] != nil || fc.c.lib.HostTypes[name] != nil {
		if h := fc.c.lib.HostTypes[name]; h != nil && len(h.TypeParams) > 0 {
			if hint == nil || hint.Kind != vm.KHost || hint.Host != h {
				fc.errorf(id.Pos, "%s needs type arguments: write new %s<…>(…)", name, name)
				return fc.out(dst), badType
			}
			return fc.construct(hint, e.Args, id.Pos, dst), hint
		}
		t := fc.c.resolveType(fc.file, &syntax.TypeExpr{Pos: id.Pos, Name: name}, nil)
		return fc.construct(t, e.Args, id.Pos, dst), t
	}
	if hint := fc.hiddenFuncHint(name); hint != "" {
		fc.errorf(id.Pos, "undefined: %s%s", name, hint)
	} else {
		fc.errorf(id.Pos, "undefined: %s%s", name, fc.suggestName(name))
	}
	for _, a := range e.Args {
		fc.peekType(a.X)
	}
	return fc.out(dst), badType
}

// callMemberPre compiles the calls x.name(args) whose x is not a value:
// of a function of an imported module or of a package. It reports done =
// false for the others: then x is compiled and callMemberOn applied (see
// postfix).
func (fc *fcomp) callMemberPre(e *syntax.Call, m *syntax.Member, dst int32) (r int32, t *vm.Type, done bool) {
	if mod, ok := fc.modulePath(m.X); ok {
		fs := fc.moduleFuncs(mod, m.Name)
		if len(fs) == 0 {
			fc.errorf(m.NamePos, "module %s has no function %s", mod.module, m.Name)
			return fc.out(dst), badType, true
		}
		cands := make([]*callee, len(fs))
		for i, f := range fs {
			cands[i] = fc.c.userCallee(f)
		}
		best, bound := fc.resolve(cands, e.Args, e.Lparen, mod.module+"."+m.Name)
		if best == nil {
			return fc.out(dst), badType, true
		}
		return fc.callCallee(best, bound, -1, false, m.NamePos, dst, false, nil), best.result, true
	}
	if id, ok := m.X.(*syntax.Ident); ok && fc.lookup(id.Name) == nil && !fc.isThisField(id.Name) {
		pkg := id.Name
		if fc.c.lib.Packages[pkg] != nil || pkg == "thread" {
			if !fc.file.imports[pkg] {
				fc.errorf(id.Pos, "Package '%s' is not imported (add import %s;)", pkg, pkg)
				return fc.out(dst), badType, true
			}
			if pkg == "thread" && m.Name == "spawn" {
				r, t := fc.spawn(e, dst)
				return r, t, true
			}
			cands := fc.c.packageFuncs(pkg, m.Name)
			if len(cands) == 0 {
				fc.errorf(m.NamePos, "package %s has no function %s", pkg, m.Name)
				return fc.out(dst), badType, true
			}
			best, bound := fc.resolve(cands, e.Args, e.Lparen, pkg+"."+m.Name)
			if best == nil {
				return fc.out(dst), badType, true
			}
			return fc.callCallee(best, bound, -1, false, m.NamePos, dst, false, nil), best.result, true
		}
		if ci := fc.c.classes[pkg]; ci != nil && !ci.cls.IsEnum {
			fc.errorf(id.Pos, "%s is a type: static calls are not supported (call a method on an instance)", pkg)
			return fc.out(dst), badType, true
		}
	}
	return 0, nil, false
}

// callMemberOn compiles x.name(args) where the value x, of type xt, is in
// register x.
func (fc *fcomp) callMemberOn(e *syntax.Call, m *syntax.Member, hint *vm.Type, dst int32, x int32, xt *vm.Type) (int32, *vm.Type) {
	if xt == badType {
		for _, a := range e.Args {
			fc.peekType(a.X)
		}
		return fc.out(dst), badType
	}
	var cands []*callee
	virtual := false
	switch xt.Kind {
	case vm.KClass, vm.KInterface, vm.KEnum:
		ci := fc.c.classes[xt.Class.Name]
		if f := xt.Class.FieldByName(m.Name); f != nil && f.Type.Kind == vm.KFunc && xt.Kind == vm.KClass {
			r := fc.temp()
			fc.emit(vm.GETF, r, x, int32(f.Index))
			return fc.callFuncValue(e, r, f.Type, dst)
		}
		for _, f := range fc.c.methodsOf(ci, m.Name) {
			cands = append(cands, fc.c.userCallee(f))
		}
		if xt.Kind == vm.KInterface && len(cands) == 0 {
			for _, f := range fc.c.methodsOf(fc.c.object, m.Name) {
				cands = append(cands, fc.c.userCallee(f))
			}
		}
		virtual = xt.Kind != vm.KEnum
		if xt.Kind == vm.KEnum && m.Name == "toString" && len(cands) == 0 && len(e.Args) == 0 {
			d := fc.out(dst)
			fc.emit(vm.TOSTR, d, x, fc.typeIndex(xt))
			return d, vm.String
		}
	case vm.KObject:
		for _, f := range fc.c.methodsOf(fc.c.object, m.Name) {
			cands = append(cands, fc.c.userCallee(f))
		}
		if len(cands) > 0 {
			best, bound := fc.resolve(cands, e.Args, e.Lparen, m.Name)
			if best == nil {
				return fc.out(dst), badType
			}
			// dynamic by name: works on strings, boxed values, collections
			n := int32(len(best.params)) + 1
			base := fc.alloc(n)
			fc.emit(vm.MOVE, base, x, 0)
			fc.emitArgs(best, bound, base+1, base, m.NamePos)
			d := fc.out(dst)
			fc.line(m.NamePos, false)
			fc.emit(vm.CALLI, base, fc.dyn(vm.DynCall{Name: m.Name, NArgs: len(best.params)}), d)
			return d, best.result
		}
	case vm.KStruct:
		fc.errorf(m.NamePos, "structs have no methods (%s.%s)", xt, m.Name)
		return fc.out(dst), badType
	case vm.KHost:
		if r, t, ok := fc.streamCall(e, m, x, xt, dst); ok {
			return r, t
		}
		cands = fc.c.hostMethods(xt, m.Name)
	case vm.KFunc:
		if m.Name == "toString" || m.Name == "equals" {
			cands = nil
		}
	default:
		cands = fc.c.builtinMethods(xt, m.Name)
		if xt.Kind == vm.KArray && m.Name == "length" && len(e.Args) == 0 {
			d := fc.out(dst)
			fc.emit(vm.LEN, d, x, fc.typeIndex(xt))
			return d, vm.Int
		}
		if xt.IsScalar() && m.Name == "toString" && len(e.Args) == 0 {
			d := fc.out(dst)
			fc.emit(vm.TOSTR, d, x, fc.typeIndex(xt))
			return d, vm.String
		}
		if xt.IsScalar() && (m.Name == "equals" || m.Name == "getHashCode") {
			// Object's methods on a primitive: the value is boxed
			var oc []*callee
			for _, f := range fc.c.methodsOf(fc.c.object, m.Name) {
				oc = append(oc, fc.c.userCallee(f))
			}
			best, bound := fc.resolve(oc, e.Args, e.Lparen, xt.String()+"."+m.Name)
			if best == nil {
				return fc.out(dst), badType
			}
			base := fc.alloc(int32(len(best.params)) + 1)
			fc.emit(vm.BOX, base, x, fc.typeIndex(xt))
			fc.emitArgs(best, bound, base+1, base, m.NamePos)
			d := fc.out(dst)
			fc.line(m.NamePos, false)
			fc.emit(vm.CALLI, base, fc.dyn(vm.DynCall{Name: m.Name, NArgs: len(best.params)}), d)
			return d, best.result
		}
	}
	if len(cands) == 0 {
		fc.errorf(m.NamePos, "%s has no method %s", xt, m.Name)
		for _, a := range e.Args {
			fc.peekType(a.X)
		}
		return fc.out(dst), badType
	}
	best, bound := fc.resolve(cands, e.Args, e.Lparen, xt.String()+"."+m.Name)
	if best == nil {
		return fc.out(dst), badType
	}
	if best.native != nil && xt.Kind != vm.KString {
		// built-in receivers must not be null
		_ = 0
	}
	return fc.callCallee(best, bound, x, true, m.NamePos, dst, virtual, xt), best.result
}

// spawn compiles thread.spawn(f, args…): a Thread for a void function, a
// Future<T> for one returning T.
func (fc *fcomp) spawn(e *syntax.Call, dst int32) (int32, *vm.Type) {
	sp := fc.c.lib.Special["thread.spawn"]
	th := fc.c.lib.HostTypes["Thread"]
	fu := fc.c.lib.HostTypes["Future"]
	if sp == nil || th == nil || fu == nil {
		fc.errorf(e.Lparen, "thread.spawn is not available")
		return fc.out(dst), badType
	}
	if len(e.Args) == 0 {
		fc.errorf(e.Lparen, "thread.spawn needs a function to run")
		return fc.out(dst), badType
	}
	base := fc.alloc(int32(len(e.Args)))
	_, ft := fc.gen(e.Args[0].X, nil, base)
	if ft == badType {
		return fc.out(dst), badType
	}
	if ft.Kind != vm.KFunc {
		fc.errorf(e.Args[0].X.Start(), "thread.spawn needs a function or method, got %s", ft)
		return fc.out(dst), badType
	}
	extra := e.Args[1:]
	if len(extra) != len(ft.Args) {
		fc.errorf(e.Lparen, "wrong number of arguments for the spawned function: got %d, want %d", len(extra), len(ft.Args))
		return fc.out(dst), badType
	}
	for i, a := range extra {
		if ft.Out[i] || a.Out || a.Name != "" {
			fc.errorf(a.Pos, "thread.spawn cannot pass out or named arguments")
			continue
		}
		fc.value(a.X, ft.Args[i], base+1+int32(i))
	}
	var rt *vm.Type
	if ft.Result == vm.Void {
		rt = vm.HostOf(th, nil)
	} else {
		rt = vm.HostOf(fu, []*vm.Type{ft.Result})
	}
	d := fc.out(dst)
	fc.line(e.Lparen, false)
	fc.emit(vm.CALLN, base, fc.ncall(vm.NCall{Native: sp, NArgs: len(e.Args), Type: rt}), d)
	return d, rt
}

// construct compiles the creation of a value of type t with constructor
// arguments.
func (fc *fcomp) construct(t *vm.Type, args []*syntax.Arg, pos syntax.Pos, dst int32) int32 {
	d := fc.out(dst)
	switch t.Kind {
	case vm.KClass:
		ci := fc.c.classes[t.Class.Name]
		obj := fc.temp()
		fc.line(pos, false)
		fc.emit(vm.NEW, obj, fc.classIndex(t.Class), 0)
		if init := fc.c.initFunc(ci); init != nil {
			base := fc.alloc(1)
			fc.emit(vm.MOVE, base, obj, 0)
			fc.emit(vm.CALL, base, fc.funcIndex(init), base)
		}
		if len(ci.ctors) == 0 {
			if len(args) > 0 {
				fc.errorf(pos, "%s has no constructor taking arguments", ci.name)
			}
		} else {
			cands := make([]*callee, len(ci.ctors))
			for i, c := range ci.ctors {
				cands[i] = fc.c.userCallee(c)
			}
			best, bound := fc.resolve(cands, args, pos, ci.name)
			if best != nil {
				fc.callCallee(best, bound, obj, true, pos, -1, false, nil)
			}
		}
		fc.emit(vm.MOVE, d, obj, 0)
	case vm.KStruct:
		if len(args) > 0 {
			fc.errorf(pos, "struct %s has no constructor (use new %s{field: value})", t, t)
		}
		fc.emit(vm.NEW, d, fc.classIndex(t.Class), 0)
	case vm.KList:
		if len(args) > 0 {
			fc.errorf(pos, "List constructor takes no arguments")
		}
		fc.emit(vm.NEWLIST, d, fc.typeIndex(t), 0)
		fc.emit(vm.NOP, 0, 0, 0)
	case vm.KDict:
		if len(args) > 0 {
			fc.errorf(pos, "Dict constructor takes no arguments")
		}
		fc.emit(vm.NEWDICT, d, fc.typeIndex(t), 0)
	case vm.KHost:
		var cands []*callee
		for _, n := range t.Host.Ctors {
			cands = append(cands, fc.c.nativeCallee(n, typeEnv(t), t.Host.Name))
		}
		if len(cands) == 0 {
			fc.errorf(pos, "%s cannot be created with new", t)
			return d
		}
		best, bound := fc.resolve(cands, args, pos, t.Host.Name)
		if best != nil {
			fc.callCallee(best, bound, -1, false, pos, d, false, t)
		}
	case vm.KInterface:
		fc.errorf(pos, "cannot create an instance of interface %s", t)
	case vm.KEnum:
		fc.errorf(pos, "cannot create an instance of enum %s", t)
	default:
		if t != badType {
			fc.errorf(pos, "cannot construct a value of type %s", t)
		}
	}
	return d
}

// initFunc returns the synthesized method that runs the field
// initializers of ci and its bases, or nil if there are none.
func (c *compiler) initFunc(ci *classInfo) *vm.Funcode {
	if ci.init != nil {
		return ci.init
	}
	if !c.hasFieldInits(ci) {
		return nil
	}
	fn := &vm.Funcode{Name: ci.name + ".<init>", Short: "<init>", File: ci.file.ast.Name, Line: ci.cls.Line,
		Class: ci.cls, Params: []*vm.Type{vm.ClassType(ci.cls)}, ParamOut: []bool{false}, NumParams: 1, Result: vm.Void, VIndex: -1}
	ci.init = fn
	fi := &funcInfo{fn: fn, cls: ci, file: ci.file, result: vm.Void, decl: &syntax.FuncDecl{Name: "<init>"}}
	fc := &fcomp{fbuilder: newBuilder(fn), c: c, fi: fi, file: ci.file, cls: ci, this: vm.ClassType(ci.cls)}
	fc.push()
	fc.alloc(1)
	fn.Locals = append(fn.Locals, vm.LocalVar{Name: "this", Type: fc.this, Reg: 0, IsParam: true})
	var chain []*classInfo // the bases first
	for k := ci; k != nil; k = k.base {
		chain = append(chain, k)
	}
	slices.Reverse(chain)
	for _, k := range chain {
		if k.cdecl == nil {
			continue
		}
		fc.file = k.file
		for _, fd := range k.cdecl.Fields {
			if fd.Init == nil {
				continue
			}
			f := k.cls.FieldByName(fd.Name)
			mark := fc.top
			fc.line(fd.Pos, true)
			r := fc.value(fd.Init, f.Type, -1)
			fc.emit(vm.SETF, 0, int32(f.Index), r)
			fc.top = mark
		}
	}
	fc.emit(vm.RETV, 0, 0, 0)
	fc.pop()
	fc.finish()
	return fn
}

// hasFieldInits reports whether ci or one of its bases has a field with
// an initial value. The answers are remembered, so that a long chain of
// classes is walked once, not once per class.
func (c *compiler) hasFieldInits(ci *classInfo) bool {
	var todo []*classInfo
	has := false
	for k := ci; k != nil; k = k.base {
		if k.fieldInits != 0 {
			has = k.fieldInits > 0
			break
		}
		todo = append(todo, k)
	}
	for i := len(todo) - 1; i >= 0; i-- {
		k := todo[i]
		if k.cdecl != nil {
			for _, f := range k.cdecl.Fields {
				has = has || f.Init != nil
			}
		}
		k.fieldInits = -1
		if has {
			k.fieldInits = 1
		}
	}
	return has
}

func (fc *fcomp) newExpr(e *syntax.New, dst int32) (int32, *vm.Type) {
	t := fc.c.resolveType(fc.file, &syntax.TypeExpr{Pos: e.Type.Pos, Name: e.Type.Name, Args: e.Type.Args, ArgOut: e.Type.ArgOut}, nil)
	if t == badType {
		return fc.out(dst), badType
	}
	if e.Len != nil {
		if e.Type.Dims > 0 {
			fc.errorf(e.Pos, "jagged arrays are not supported")
			return fc.out(dst), badType
		}
		if t == vm.Void {
			fc.errorf(e.Pos, "array of void")
			return fc.out(dst), badType
		}
		at := vm.ArrayOf(t)
		n := fc.value(e.Len, vm.Int, -1)
		d := fc.out(dst)
		fc.line(e.Pos, false)
		fc.emit(vm.NEWARRAY, d, n, fc.typeIndex(at))
		return d, at
	}
	if e.Type.Dims > 0 {
		t = fc.c.resolveType(fc.file, e.Type, nil)
	}
	if e.Init != nil {
		return fc.initList(t, e.Init, e.Pos, dst), t
	}
	return fc.construct(t, e.Args, e.Pos, dst), t
}

// initList compiles a braced initializer for type t.
func (fc *fcomp) initList(t *vm.Type, il *syntax.InitList, pos syntax.Pos, dst int32) int32 {
	switch t.Kind {
	case vm.KList, vm.KArray:
		var elems []syntax.Expr
		for _, en := range il.Entries {
			if en.Key != nil {
				fc.errorf(en.Key.Start(), "unexpected key in a %s initializer", t)
				continue
			}
			elems = append(elems, en.Value)
		}
		return fc.seqLit(t, elems, pos, dst)
	case vm.KDict:
		d := fc.temp()
		fc.emit(vm.NEWDICT, d, fc.typeIndex(t), 0)
		set := fc.c.builtinMethods(t, "set")
		for _, en := range il.Entries {
			if en.Key == nil {
				fc.errorf(en.Value.Start(), "Dict initializer entries are key: value")
				continue
			}
			mark := fc.top
			base := fc.alloc(3)
			fc.emit(vm.MOVE, base, d, 0)
			key := en.Key
			if id, ok := key.(*syntax.Ident); ok && t.Key == vm.String && fc.lookup(id.Name) == nil {
				key = &syntax.StringLit{Pos: id.Pos, Value: id.Name}
			}
			fc.value(key, t.Key, base+1)
			fc.value(en.Value, t.Elem, base+2)
			fc.emit(vm.CALLN, base, fc.ncall(vm.NCall{Native: set[0].native, NArgs: 3, Type: t}), base)
			fc.top = mark
		}
		return fc.place(d, dst)
	case vm.KClass, vm.KStruct:
		obj := fc.temp()
		fc.construct(t, nil, pos, obj)
		for _, en := range il.Entries {
			id, ok := en.Key.(*syntax.Ident)
			if !ok {
				fc.errorf(en.Value.Start(), "%s initializer entries are field: value", t)
				continue
			}
			f := t.Class.FieldByName(id.Name)
			if f == nil {
				fc.errorf(id.Pos, "%s has no field %s", t, id.Name)
				continue
			}
			mark := fc.top
			r := fc.value(en.Value, f.Type, -1)
			fc.emit(vm.SETF, obj, int32(f.Index), r)
			fc.top = mark
		}
		return fc.place(obj, dst)
	case vm.KHost:
		if len(il.Entries) > 0 {
			fc.errorf(pos, "%s cannot be initialized with values", t)
		}
		return fc.construct(t, nil, pos, dst)
	}
	if t != badType {
		fc.errorf(pos, "cannot use an initializer {…} for %s", t)
	}
	return fc.out(dst)
}

func (fc *fcomp) arrayLit(e *syntax.ArrayLit, hint *vm.Type, dst int32) (int32, *vm.Type) {
	if hint == nil || (hint.Kind != vm.KArray && hint.Kind != vm.KList) {
		fc.errorf(e.Pos, "cannot infer the type of [...] here (it needs an array or List target)")
		for _, x := range e.Elems {
			fc.peekType(x)
		}
		return fc.out(dst), badType
	}
	return fc.seqLit(hint, e.Elems, e.Pos, dst), hint
}

// seqLit builds an array or List of type t from element expressions.
func (fc *fcomp) seqLit(t *vm.Type, elems []syntax.Expr, pos syntax.Pos, dst int32) int32 {
	n := int32(len(elems))
	base := fc.alloc(n)
	for i, x := range elems {
		fc.value(x, t.Elem, base+int32(i))
	}
	d := fc.out(dst)
	if t.Kind == vm.KList {
		fc.emit(vm.NEWLIST, d, fc.typeIndex(t), base)
		fc.emit(vm.NOP, n, 0, 0)
		return d
	}
	nr := fc.temp()
	fc.loadInt(nr, int64(n))
	arr := fc.temp()
	fc.emit(vm.NEWARRAY, arr, nr, fc.typeIndex(t))
	for i := int32(0); i < n; i++ {
		fc.loadInt(nr, int64(i))
		fc.emit(vm.ASET, arr, nr, base+i)
	}
	return fc.place(arr, d)
}
