package compile

import (
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// local is a named local variable or parameter.
type local struct {
	name    string
	typ     *vm.Type
	reg     int32
	isConst bool
	varIdx  int  // index in fn.Locals
	loopVar bool // a for-init or foreach variable (function-scoped)
}

type scope struct {
	vars    map[string]*local
	barrier bool // lookups stop here (default-argument scopes)
}

// loopCtx is an enclosing loop or switch.
type loopCtx struct {
	isSwitch  bool
	breaks    []int32
	continues []int32
	tryDepth  int // len(fc.trys) at entry
}

// region is a protected pc range of a try statement whose handlers apply
// while it is open.
type region struct {
	start    int32 // -1 when closed
	handlers []handlerEntry
	segs     [][2]int32
}

type tryCtx struct {
	finally syntax.Stmt
	open    []*region
	depth   int
	scopes  int // len(fcomp.scopes) where the try statement began
}

// fcomp compiles one function body.
type fcomp struct {
	*fbuilder
	c         *compiler
	fi        *funcInfo
	file      *fileInfo
	cls       *classInfo // enclosing class (nil for functions)
	this      *vm.Type   // type of this (nil in functions)
	thisReg   int32      // the register holding this (0, but the receiver's while a default argument is compiled)
	scopes    []*scope
	loops     []*loopCtx
	trys      []*tryCtx
	inFinally int
	hOrder    int
	// inLoopInit is set while the init declaration of a for statement
	// is compiled: its variables are loop variables.
	inLoopInit bool
	// peeked remembers the types peekAs found during the current
	// statement (an expression is typed in one context within a
	// statement; a statement compiled again, such as an inlined finally
	// block, starts afresh).
	peeked map[peekKey]*vm.Type
	// defaults are the default values being compiled, outermost first
	// (see enterDefaultUse).
	defaults []defaultUse
}

func (c *compiler) compileFunc(fi *funcInfo) {
	c.compileFuncWith(fi, nil)
	if w := writtenParams(fi.fn); w != nil {
		// again, keeping copies of the arguments it assigns (reload.go)
		resetCode(fi.fn)
		c.compileFuncWith(fi, w)
	}
}

func (c *compiler) compileFuncWith(fi *funcInfo, argCopies []bool) {
	fc := &fcomp{fbuilder: newBuilder(fi.fn), c: c, fi: fi, file: fi.file, cls: fi.cls}
	fc.push()
	if fi.cls != nil {
		fc.this = vm.ClassType(fi.cls.cls)
		fc.alloc(1)
		fc.fn.Locals = append(fc.fn.Locals, vm.LocalVar{Name: "this", Type: fc.this, Reg: 0, IsParam: true})
	}
	for i, name := range fi.names {
		l := fc.declare(name, fi.params[i], fi.decl.Params[i].Pos, false)
		fc.fn.Locals[l.varIdx].IsParam = true
	}
	fc.line(fi.decl.NamePos, false)
	if argCopies != nil {
		fc.copyArgs(argCopies)
	}
	fc.block(fi.decl.Body.Stmts)
	fc.line(fi.decl.Body.End, true)
	if fi.result == vm.Void || fi.fn.IsCtor {
		fc.emit(vm.RETV, 0, 0, 0)
	} else {
		r := fc.temp()
		fc.zero(r, fi.result)
		fc.emit(vm.RET, r, 0, 0)
	}
	fc.pop()
	if fi.cls != nil {
		fc.fn.Locals[0].EndPC = fc.pc() // this lives in the whole method
	}
	fc.finish()
}

func (fc *fcomp) errorf(pos syntax.Pos, format string, args ...any) {
	fc.c.errorf(fc.file, pos, format, args...)
}

func (fc *fcomp) warnf(pos syntax.Pos, format string, args ...any) {
	fc.c.warnf(fc.file, pos, format, args...)
}

func (fc *fcomp) push() { fc.scopes = append(fc.scopes, &scope{vars: map[string]*local{}}) }

// pop closes the innermost scope, ending the live ranges of its locals
// and freeing their registers.
func (fc *fcomp) pop() {
	s := fc.scopes[len(fc.scopes)-1]
	fc.scopes = fc.scopes[:len(fc.scopes)-1]
	lowest := int32(-1)
	for _, l := range s.vars {
		fc.fn.Locals[l.varIdx].EndPC = fc.pc()
		if lowest < 0 || l.reg < lowest {
			lowest = l.reg
		}
	}
	if lowest >= 0 && !s.barrier {
		fc.top = lowest
	}
}

// declare adds a local in the innermost scope, in a fresh register.
func (fc *fcomp) declare(name string, t *vm.Type, pos syntax.Pos, isConst bool) *local {
	s := fc.scopes[len(fc.scopes)-1]
	// A loop variable (for-init, foreach) is function-scoped, but a later
	// loop of the same block may declare the name again (replacing it),
	// and a declaration in an inner block shadows it.
	shadowOK := false
	if old := fc.lookup(name); old != nil && old.loopVar {
		switch {
		case s.vars[name] != old:
			shadowOK = true
		case fc.inLoopInit:
			delete(s.vars, name)
			fc.fn.Locals[old.varIdx].EndPC = fc.pc()
		}
	}
	if old, dup := s.vars[name]; dup && old != nil {
		fc.errorf(pos, "%s redeclared in this scope", name)
	} else if fc.lookup(name) != nil && !s.barrier && !shadowOK {
		fc.errorf(pos, "%s redeclared (it shadows a variable of an enclosing block)", name)
	}
	if pos.IsValid() && fc.file.imports[name] && (fc.c.lib.Packages[name] != nil || name == "thread") {
		fc.errorf(pos, "%s is the name of a package this file imports: a variable cannot have it (it would hide the package's functions)", name)
	}
	l := &local{name: name, typ: t, reg: fc.alloc(1), isConst: isConst, varIdx: len(fc.fn.Locals), loopVar: fc.inLoopInit}
	fc.fn.Locals = append(fc.fn.Locals, vm.LocalVar{Name: name, Type: t, Reg: l.reg, StartPC: fc.pc(), EndPC: -1, Line: pos.Line, Col: pos.Col})
	s.vars[name] = l
	return l
}

func (fc *fcomp) lookup(name string) *local {
	for i := len(fc.scopes) - 1; i >= 0; i-- {
		if l, ok := fc.scopes[i].vars[name]; ok {
			return l
		}
		if fc.scopes[i].barrier {
			break
		}
	}
	return nil
}

// zero sets register r to the zero value of t.
func (fc *fcomp) zero(r int32, t *vm.Type) {
	if t.Kind == vm.KStruct {
		fc.emit(vm.NEW, r, fc.classIndex(t.Class), 0)
		return
	}
	fc.emit(vm.LOADNIL, r, 0, 0)
}

func (fc *fcomp) block(stmts []syntax.Stmt) {
	for _, s := range stmts {
		fc.stmt(s)
	}
}

func (fc *fcomp) stmt(s syntax.Stmt) {
	if fc.charge(s) {
		return
	}
	fc.peeked = nil
	mark := fc.top
	defer func() {
		if fc.top < mark {
			fc.top = mark
		}
	}()
	switch s := s.(type) {
	case *syntax.Block:
		fc.line(s.Pos, false)
		fc.push()
		fc.block(s.Stmts)
		fc.pop()
	case *syntax.Empty:
	case *syntax.VarDecl:
		fc.varDecl(s)
		return // keep the registers of the new locals
	case *syntax.Assign:
		fc.line(s.LHS.Start(), true)
		fc.assign(s)
	case *syntax.ExprStmt:
		fc.line(s.X.Start(), true)
		if _, ok := s.X.(*syntax.Call); !ok {
			fc.errorf(s.X.Start(), "expression is not a statement")
		}
		fc.gen(s.X, nil, -1)
	case *syntax.If:
		fc.ifStmt(s)
	case *syntax.While:
		fc.whileLoop(s.Pos, s.Cond, nil, s.Body)
	case *syntax.DoWhile:
		top := fc.pc()
		lc := fc.pushLoop(false)
		fc.body(s.Body)
		fc.patchHere(lc.continues)
		fc.line(s.Cond.Start(), true)
		cond := fc.cond(s.Cond)
		j := fc.emit(vm.JF, cond, 0, 0)
		fc.emit(vm.LOOP, top, 0, 0)
		fc.patch(j, fc.pc())
		fc.popLoop(lc)
	case *syntax.For:
		fc.line(s.Pos, true)
		// for-init variables are function-scoped: declared in the
		// current scope, which lives until the enclosing block ends.
		if s.Init != nil {
			if vd, ok := s.Init.(*syntax.VarDecl); ok {
				fc.inLoopInit = true
				fc.varDecl(vd)
				fc.inLoopInit = false
				mark = fc.top
			} else {
				fc.stmt(s.Init)
			}
		}
		fc.whileLoop(s.Pos, s.Cond, s.Step, s.Body)
		fc.top = mark
		return
	case *syntax.Foreach:
		fc.foreach(s)
		return
	case *syntax.Switch:
		fc.switchStmt(s)
	case *syntax.Break:
		fc.line(s.Pos, true)
		fc.jumpOut(s.Pos, true)
	case *syntax.Continue:
		fc.line(s.Pos, true)
		fc.jumpOut(s.Pos, false)
	case *syntax.Return:
		fc.line(s.Pos, true)
		fc.returnStmt(s)
	case *syntax.Try:
		fc.line(s.Pos, true)
		fc.tryStmt(s)
	case *syntax.Throw:
		fc.line(s.Pos, true)
		if fc.inFinally > 0 {
			fc.errorf(s.Pos, "throw is not allowed inside a finally block")
		}
		if s.X == nil {
			r := fc.currentCatchVar()
			if r < 0 {
				fc.errorf(s.Pos, "rethrow (throw;) outside a catch block")
				return
			}
			fc.emit(vm.RETHROW, r, 0, 0)
			return
		}
		r, t := fc.gen(s.X, nil, -1)
		if t != badType && !(t.Kind == vm.KClass && fc.isException(t.Class)) {
			fc.errorf(s.X.Start(), "cannot throw a value of type %s (want an Exception)", t)
		}
		fc.emit(vm.THROW, r, 0, 0)
	case *syntax.Assert:
		fc.line(s.Pos, true)
		r := fc.cond(s.Cond)
		fc.emit(vm.ASSERT, r, 0, 0)
	case *syntax.SuperCall:
		fc.line(s.Pos, true)
		fc.superCall(s)
	default:
		fc.errorf(s.Start(), "unsupported statement")
	}
}

// ifStmt compiles an if statement and the chain of else-ifs after it,
// with a loop (a chain can be as long as its source).
func (fc *fcomp) ifStmt(s *syntax.If) {
	var ends []int32
	for {
		mark := fc.top
		fc.line(s.Pos, true)
		j := fc.condJump(s.Cond)
		fc.top = mark
		fc.body(s.Then)
		if s.Else == nil {
			fc.patch(j, fc.pc())
			break
		}
		ends = append(ends, fc.emit(vm.JMP, 0, 0, 0))
		fc.patch(j, fc.pc())
		next, ok := s.Else.(*syntax.If)
		if !ok {
			fc.body(s.Else)
			break
		}
		// else if: what stmt does for the nested if statement
		if fc.charge(next) {
			break
		}
		fc.peeked = nil
		s = next
	}
	fc.patchHere(ends)
}

// body compiles the body of if/while/for; a declaration there is an error.
func (fc *fcomp) body(s syntax.Stmt) {
	if vd, ok := s.(*syntax.VarDecl); ok {
		fc.errorf(vd.Pos, "a declaration cannot be the body of a statement (use a block)")
		return
	}
	fc.push()
	fc.stmt(s)
	fc.pop()
}

func (fc *fcomp) isException(c *vm.Class) bool {
	exc := fc.c.classes["Exception"]
	return exc != nil && c.IsSubclassOf(exc.cls)
}

// cond compiles a condition, which must be bool.
func (fc *fcomp) cond(e syntax.Expr) int32 {
	r, t := fc.gen(e, vm.Bool, -1)
	if t != vm.Bool && t != badType {
		fc.errorf(e.Start(), "condition must be bool, got %s", t)
	}
	return r
}

func (fc *fcomp) varDecl(s *syntax.VarDecl) {
	t := fc.c.resolveType(fc.file, s.Type, nil)
	if t == vm.Void {
		fc.errorf(s.Type.Pos, "variable cannot have type void")
		t = badType
	}
	for _, it := range s.Items {
		fc.line(it.Pos, true)
		if it.Init == nil {
			if s.Const {
				fc.errorf(it.Pos, "const %s needs a value", it.Name)
			}
			l := fc.declare(it.Name, t, it.Pos, s.Const)
			fc.zero(l.reg, t)
			fc.fn.Locals[l.varIdx].StartPC = fc.pc()
			continue
		}
		// Compile the initializer before the name is in scope.
		mark := fc.top
		r := fc.value(it.Init, t, -1)
		fc.top = mark
		l := fc.declare(it.Name, t, it.Pos, s.Const)
		if r != l.reg {
			fc.emit(vm.MOVE, l.reg, r, 0)
		}
		fc.fn.Locals[l.varIdx].StartPC = fc.pc()
	}
}

func (fc *fcomp) pushLoop(isSwitch bool) *loopCtx {
	lc := &loopCtx{isSwitch: isSwitch, tryDepth: len(fc.trys)}
	fc.loops = append(fc.loops, lc)
	return lc
}

func (fc *fcomp) popLoop(lc *loopCtx) {
	fc.loops = fc.loops[:len(fc.loops)-1]
	fc.patchHere(lc.breaks)
}

// whileLoop compiles `while (cond) body`, with an optional step statement
// run before each re-test (for loops). A loop with a condition is rotated:
// it is tested once on entry, then at the bottom, where the test is the
// back-edge (a safepoint, one reduction per iteration as before) and, for
// comparisons of signed integers, one instruction:
//
//	jnlti i, n, exit; body: …; step; looplti i, n, body; exit:
//
// Both tests are statement starts of the condition's position, and a
// breakpoint there is placed on both.
func (fc *fcomp) whileLoop(pos syntax.Pos, cond syntax.Expr, step syntax.Stmt, body syntax.Stmt) {
	if lit, ok := cond.(*syntax.BoolLit); cond == nil || ok && lit.Value {
		top := fc.pc()
		lc := fc.pushLoop(false)
		fc.body(body)
		fc.patchHere(lc.continues)
		if step != nil {
			fc.line(step.Start(), true)
			fc.stmt(step)
		}
		fc.emit(vm.LOOP, top, 0, 0)
		fc.popLoop(lc)
		return
	}
	// the entry test (not a back-edge: no reduction) …
	fc.line(cond.Start(), true)
	mark0 := fc.top
	exit := fc.condJump(cond)
	fc.top = mark0
	bodyPC := fc.pc()
	lc := fc.pushLoop(false)
	fc.body(body)
	fc.patchHere(lc.continues)
	if step != nil {
		fc.line(step.Start(), true)
		fc.stmt(step)
	}
	// … and the test at the bottom, the back-edge
	fc.line(cond.Start(), true)
	mark := fc.top
	j := fc.condJump(cond)
	fc.top = mark
	// turn "exit unless cond" into "loop while cond"
	in := &fc.fn.Code[j]
	switch in.Op {
	case vm.JNLTIK:
		*in = vm.Instr{Op: vm.LOOPLTIK, A: in.A, B: in.B, C: bodyPC}
	case vm.JNLEIK:
		*in = vm.Instr{Op: vm.LOOPLEIK, A: in.A, B: in.B, C: bodyPC}
	case vm.JNGTIK:
		*in = vm.Instr{Op: vm.LOOPGTIK, A: in.A, B: in.B, C: bodyPC}
	case vm.JNGEIK:
		*in = vm.Instr{Op: vm.LOOPGEIK, A: in.A, B: in.B, C: bodyPC}
	case vm.JNLTI:
		*in = vm.Instr{Op: vm.LOOPLTI, A: in.A, B: in.B, C: bodyPC}
	case vm.JNLEI:
		*in = vm.Instr{Op: vm.LOOPLEI, A: in.A, B: in.B, C: bodyPC}
	case vm.JF:
		*in = vm.Instr{Op: vm.LOOPT, A: in.A, C: bodyPC}
	default: // floating comparisons: test, then a plain back-edge
		fc.emit(vm.LOOP, bodyPC, 0, 0)
		fc.patch(j, fc.pc())
	}
	fc.patch(exit, fc.pc())
	fc.popLoop(lc)
}

// condJump compiles a condition (of a loop or an if) as a jump taken
// when it is false, fusing integer and floating comparisons into one
// instruction.
func (fc *fcomp) condJump(cond syntax.Expr) int32 {
	if b, ok := cond.(*syntax.Binary); ok && (b.Op == syntax.LT || b.Op == syntax.LE || b.Op == syntax.GT || b.Op == syntax.GE) {
		x, y := b.X, b.Y
		op := b.Op
		if op == syntax.GT || op == syntax.GE {
			x, y = y, x
			if op == syntax.GT {
				op = syntax.LT
			} else {
				op = syntax.LE
			}
		}
		xt, yt := fc.peekType(x), fc.peekType(y)
		pt := fc.binaryOperandType(xt, yt, x, y)
		if pt != nil && pt.IsSigned() {
			// compare with a small constant: one instruction
			if k, ok := smallIntLit(y); ok {
				rx := fc.value(x, pt, -1)
				opc := vm.JNLTIK
				if op == syntax.LE {
					opc = vm.JNLEIK
				}
				return fc.emit(opc, rx, k, 0)
			}
			if k, ok := smallIntLit(x); ok {
				ry := fc.value(y, pt, -1)
				opc := vm.JNGTIK // k < y  ==  y > k
				if op == syntax.LE {
					opc = vm.JNGEIK
				}
				return fc.emit(opc, ry, k, 0)
			}
		}
		if pt != nil && pt != badType && (pt.IsSigned() || pt.IsFloat()) {
			rx := fc.value(x, pt, -1)
			ry := fc.value(y, pt, -1)
			var opc vm.Opcode
			switch {
			case pt.IsFloat() && op == syntax.LT:
				opc = vm.JNLTD
			case pt.IsFloat():
				opc = vm.JNLED
			case op == syntax.LT:
				opc = vm.JNLTI
			default:
				opc = vm.JNLEI
			}
			return fc.emit(opc, rx, ry, 0)
		}
	}
	r := fc.cond(cond)
	return fc.emit(vm.JF, r, 0, 0)
}

func (fc *fcomp) foreach(s *syntax.Foreach) {
	fc.line(s.Pos, true)
	et := fc.c.resolveType(fc.file, s.Type, nil)
	src, st := fc.gen(s.X, nil, -1)
	// hidden state in registers that live as long as the loop variable
	coll := fc.alloc(1)
	fc.emit(vm.MOVE, coll, src, 0)
	var get vm.Opcode
	var elem *vm.Type
	switch st.Kind {
	case vm.KArray:
		get, elem = vm.AGET, st.Elem
	case vm.KList:
		get, elem = vm.LGET, st.Elem
	case vm.KDict:
		n := fc.c.lib.Natives["__dictKeys"]
		fc.emit(vm.CALLN, coll, fc.ncall(vm.NCall{Native: n, NArgs: 1}), coll)
		get, elem = vm.LGET, st.Key
	case vm.KString:
		n := fc.c.lib.Natives["__chars"]
		fc.emit(vm.CALLN, coll, fc.ncall(vm.NCall{Native: n, NArgs: 1}), coll)
		get, elem = vm.AGET, vm.Char
	default:
		if st != badType {
			fc.errorf(s.X.Start(), "cannot iterate over %s", st)
		}
		return
	}
	if st.Kind != vm.KDict && st.Kind != vm.KString {
		// a null source throws NullPointerException at LEN
		_ = 0
	}
	if et != badType && elem != badType && fc.convCost(nil, elem, et, nil) < 0 {
		fc.errorf(s.Type.Pos, "cannot iterate %s as %s", elem, et)
	}
	n := fc.alloc(1)
	fc.emit(vm.LEN, n, coll, fc.typeIndex(st))
	i := fc.alloc(1)
	fc.emit(vm.LOADI, i, 0, 0)
	fc.inLoopInit = true
	v := fc.declare(s.Name, et, s.NamePos, false)
	fc.inLoopInit = false
	fc.zero(v.reg, et)
	// Each iteration starts a statement of its own at the loop variable
	// (the test and the element load), as a for loop's test does: next
	// from the body stops there, once per iteration. (Not at the foreach
	// keyword's column: a breakpoint on the line stops once, on entry.)
	fc.line(s.NamePos, true)
	top := fc.pc()
	exit := fc.emit(vm.JNLTI, i, n, 0)
	tmp := fc.temp()
	fc.emit(get, tmp, coll, i)
	fc.convertInto(v.reg, tmp, elem, et, s.NamePos)
	if et.Kind == vm.KStruct {
		fc.emit(vm.COPY, v.reg, v.reg, 0)
	}
	fc.top = tmp
	fc.fn.Locals[v.varIdx].StartPC = fc.pc()
	lc := fc.pushLoop(false)
	fc.body(s.Body)
	fc.patchHere(lc.continues)
	fc.emit(vm.ADDIK, i, i, 1)
	fc.emit(vm.LOOP, top, 0, 0)
	fc.patch(exit, fc.pc())
	fc.popLoop(lc)
}

// jumpOut compiles break (isBreak) or continue, running the finally blocks
// of the try statements it leaves.
func (fc *fcomp) jumpOut(pos syntax.Pos, isBreak bool) {
	if fc.inFinally > 0 {
		fc.errorf(pos, "%s is not allowed inside a finally block", map[bool]string{true: "break", false: "continue"}[isBreak])
		return
	}
	var lc *loopCtx
	for i := len(fc.loops) - 1; i >= 0; i-- {
		if isBreak || !fc.loops[i].isSwitch {
			lc = fc.loops[i]
			break
		}
	}
	if lc == nil {
		if isBreak {
			fc.errorf(pos, "break outside a loop or switch")
		} else {
			fc.errorf(pos, "continue outside a loop")
		}
		return
	}
	fc.ownLine(lc.tryDepth)
	saved := fc.leaveTrys(lc.tryDepth)
	j := fc.emit(vm.JMP, 0, 0, 0)
	fc.reenterTrys(saved)
	if isBreak {
		lc.breaks = append(lc.breaks, j)
	} else {
		lc.continues = append(lc.continues, j)
	}
}

func (fc *fcomp) returnStmt(s *syntax.Return) {
	if fc.inFinally > 0 {
		fc.errorf(s.Pos, "return is not allowed inside a finally block")
		return
	}
	if s.X == nil {
		fc.ownLine(0)
	}
	res := fc.fi.result
	if fc.fi.fn.IsCtor {
		// constructors may `return 0;` (canonical form) or return nothing
		if s.X != nil {
			mark := fc.top
			fc.gen(s.X, nil, -1)
			fc.top = mark
		}
		saved := fc.leaveTrys(0)
		fc.emit(vm.RETV, 0, 0, 0)
		fc.reenterTrys(saved)
		return
	}
	if s.X == nil {
		if res != vm.Void {
			fc.errorf(s.Pos, "missing return value (want %s)", res)
		}
		saved := fc.leaveTrys(0)
		fc.emit(vm.RETV, 0, 0, 0)
		fc.reenterTrys(saved)
		return
	}
	if res == vm.Void {
		fc.errorf(s.X.Start(), "void function %s cannot return a value", fc.fi.decl.Name)
		return
	}
	r := fc.value(s.X, res, -1)
	if len(fc.trys) > 0 {
		// the value is evaluated before finally blocks run
		t := fc.temp()
		fc.emit(vm.MOVE, t, r, 0)
		r = t
	}
	saved := fc.leaveTrys(0)
	fc.emit(vm.RET, r, 0, 0)
	fc.reenterTrys(saved)
}

// ownLine emits a NOP when leaving the try statements deeper than depth
// runs finally code, so that the jump statement's line keeps a pc of its
// own (a breakpoint on `break;` must have somewhere to go).
func (fc *fcomp) ownLine(depth int) {
	for i := len(fc.trys) - 1; i >= depth; i-- {
		if fc.trys[i].finally != nil {
			fc.emit(vm.NOP, 0, 0, 0)
			return
		}
	}
}

// leaveTrys emits the finally blocks of the try statements deeper than
// depth (innermost first), closing their protected regions so that the
// inlined code is not covered by its own handlers. It returns what
// reenterTrys needs to reopen them after the jump.
func (fc *fcomp) leaveTrys(depth int) []*tryCtx {
	var left []*tryCtx
	for i := len(fc.trys) - 1; i >= depth; i-- {
		t := fc.trys[i]
		fc.closeRegions(t)
		left = append(left, t)
		if t.finally != nil {
			fc.inlineFinally(t)
		}
	}
	return left
}

func (fc *fcomp) reenterTrys(left []*tryCtx) {
	for _, t := range left {
		fc.openRegions(t)
	}
}

func (fc *fcomp) closeRegions(t *tryCtx) {
	for _, r := range t.open {
		if r.start >= 0 {
			r.segs = append(r.segs, [2]int32{r.start, fc.pc()})
			r.start = -1
		}
	}
}

func (fc *fcomp) openRegions(t *tryCtx) {
	for _, r := range t.open {
		if r.start < 0 {
			r.start = fc.pc()
		}
	}
}

// endRegion closes r for good and records its handler entries.
func (fc *fcomp) endRegion(r *region) {
	if r.start >= 0 {
		r.segs = append(r.segs, [2]int32{r.start, fc.pc()})
		r.start = -1
	}
	for _, s := range r.segs {
		for _, h := range r.handlers {
			h.h.StartPC, h.h.EndPC = s[0], s[1]
			fc.handlers = append(fc.handlers, h)
		}
	}
}

func (fc *fcomp) inlineFinally(t *tryCtx) {
	// the finally of t runs outside t: pop it (and deeper trys) while
	// compiling, so nested jumps see the right context.
	saved := fc.trys
	for i, x := range fc.trys {
		if x == t {
			fc.trys = fc.trys[:i]
			break
		}
	}
	// and the try body's locals are out of its scope
	savedScopes := fc.scopes
	fc.scopes = fc.scopes[:t.scopes:t.scopes]
	fc.inFinally++
	fc.push()
	fc.stmt(t.finally)
	fc.pop()
	fc.inFinally--
	fc.scopes = savedScopes
	fc.trys = saved
}

// catchVars tracks the registers of the exceptions of enclosing catch
// clauses, for rethrow.
func (fc *fcomp) currentCatchVar() int32 {
	for i := len(fc.scopes) - 1; i >= 0; i-- {
		if l, ok := fc.scopes[i].vars["\x00catch"]; ok {
			return l.reg
		}
	}
	return -1
}

func (fc *fcomp) tryStmt(s *syntax.Try) {
	depth := len(fc.trys) + 1
	t := &tryCtx{finally: s.Finally, depth: depth, scopes: len(fc.scopes)}
	excReg := fc.alloc(1) // the pending exception for finally
	// region A: the try body, guarded by the catch clauses and finally;
	// region B: the catch bodies, guarded by finally only.
	regA := &region{start: fc.pc()}
	regB := &region{start: -1}
	var clauseTargets []int32
	catchRegs := make([]int32, len(s.Catches))
	catchTypes := make([]*vm.Class, len(s.Catches))
	for i, cc := range s.Catches {
		ct := fc.c.resolveType(fc.file, cc.Type, nil)
		if ct != badType && !(ct.Kind == vm.KClass && fc.isException(ct.Class)) {
			fc.errorf(cc.Type.Pos, "cannot catch %s (want an Exception class)", ct)
		}
		if ct.Kind == vm.KClass {
			catchTypes[i] = ct.Class
		}
		catchRegs[i] = fc.alloc(1)
	}
	for i := range s.Catches {
		clauseTargets = append(clauseTargets, -1)
		regA.handlers = append(regA.handlers, handlerEntry{h: vm.Handler{Class: catchTypes[i], Reg: catchRegs[i]}, depth: depth, order: i})
	}
	var finH handlerEntry
	if s.Finally != nil {
		finH = handlerEntry{h: vm.Handler{Reg: excReg}, depth: depth, order: len(s.Catches)}
	}
	t.open = []*region{regA}
	fc.trys = append(fc.trys, t)
	fc.push()
	fc.stmt(s.Body)
	fc.pop()
	fc.trys = fc.trys[:len(fc.trys)-1]
	var ends []int32
	fc.closeRegions(t)
	if s.Finally != nil {
		fc.inlineFinally(t)
	}
	ends = append(ends, fc.emit(vm.JMP, 0, 0, 0))
	// catch clauses
	t.open = []*region{regB}
	if s.Finally != nil {
		fc.trys = append(fc.trys, t)
	}
	for i, cc := range s.Catches {
		clauseTargets[i] = fc.pc()
		fc.openRegions(t)
		fc.line(cc.Pos, true)
		fc.push()
		ct := badType
		if catchTypes[i] != nil {
			ct = vm.ClassType(catchTypes[i])
		}
		l := fc.declare(cc.Name, ct, cc.NamePos, false)
		fc.emit(vm.MOVE, l.reg, catchRegs[i], 0)
		fc.fn.Locals[l.varIdx].StartPC = fc.pc()
		fc.scopes[len(fc.scopes)-1].vars["\x00catch"] = &local{reg: catchRegs[i], varIdx: l.varIdx}
		fc.stmt(cc.Body)
		delete(fc.scopes[len(fc.scopes)-1].vars, "\x00catch")
		fc.pop()
		fc.closeRegions(t)
		if s.Finally != nil {
			fc.inlineFinally(t)
		}
		ends = append(ends, fc.emit(vm.JMP, 0, 0, 0))
	}
	if s.Finally != nil {
		fc.trys = fc.trys[:len(fc.trys)-1]
	}
	for i := range regA.handlers {
		regA.handlers[i].h.Target = clauseTargets[i]
	}
	if s.Finally != nil {
		// the catch-all: run finally, rethrow
		target := fc.pc()
		finH.h.Target = target
		regA.handlers = append(regA.handlers, finH)
		regB.handlers = append(regB.handlers, finH)
		fc.inlineFinally(t)
		fc.emit(vm.RETHROW, excReg, 0, 0)
	} else if len(s.Catches) == 0 {
		fc.errorf(s.Pos, "try needs a catch or a finally clause")
	}
	fc.endRegion(regA)
	fc.endRegion(regB)
	fc.patchHere(ends)
}

func (fc *fcomp) superCall(s *syntax.SuperCall) {
	if fc.cls == nil || !fc.fi.fn.IsCtor {
		fc.errorf(s.Pos, "super(...) is only allowed in a constructor")
		return
	}
	base := fc.cls.base
	if base == nil || base == fc.c.object {
		if len(s.Args) > 0 {
			fc.errorf(s.Pos, "%s has no base class constructor taking arguments", fc.cls.name)
		}
		return
	}
	if len(base.ctors) == 0 {
		if len(s.Args) > 0 {
			fc.errorf(s.Pos, "%s has no constructor taking arguments", base.name)
		}
		return
	}
	cands := make([]*callee, len(base.ctors))
	for i, c := range base.ctors {
		cands[i] = fc.c.userCallee(c)
	}
	best, bound := fc.resolve(cands, s.Args, s.Pos, base.name)
	if best == nil {
		return
	}
	fc.callCallee(best, bound, fc.thisReg, true, s.Pos, -1, false, nil)
}
