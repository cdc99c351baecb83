package vm

import (
	"fmt"
	"math"
	"runtime/debug"
)

// Run executes the thread until budget reductions are spent (counted at
// function entries and loop back-edges) or the machine's interrupt is
// set at such a safepoint (both return StopBudget), the thread parks,
// yields, ends, or stops at a trap. It returns why. Run never blocks and never recurses
// on the Go stack per NLang call: a call pushes a heap frame and the loop
// goes on.
//
// Run must not be called on a thread that is Done, nor concurrently on the
// same thread.
//
// A Go panic inside Run (a native's bug, or the interpreter's) does not
// escape: it becomes an InternalError thrown in the thread at the
// instruction in progress, with the NLang backtrace; the Go stack goes to
// Machine.DebugLog.
func (t *Thread) Run(budget int) (stop Stop) {
	t.inNative = false
	t.YieldAfterNative = false
	defer func() {
		if r := recover(); r != nil {
			stop = t.contain(r)
		}
	}()
	t.runBudget = budget
	stop, left := t.run(budget)
	t.reductions += int64(budget - left)
	return stop
}

// contain turns a Go panic r inside Run into an InternalError raised in
// the thread, and returns how Run ends.
func (t *Thread) contain(r any) Stop {
	if w := t.M.DebugLog; w != nil {
		fmt.Fprintf(w, "nlangdbg: internal error in thread %d %q: %v\n%s\n", t.ID, t.Name, r, debug.Stack())
	}
	t.call = nil
	if len(t.frames) == 0 {
		return StopDone
	}
	exc := t.M.NewException("InternalError", fmt.Sprintf("internal error: %v", r))
	// The top frame's PC is past the native call in progress (callNative
	// saves it), or, for a fault of the interpreter itself, where the
	// frame was last saved: a line of the right function.
	switch t.raise(exc) {
	case raiseCaught:
		return StopBudget // the handler runs at the next dispatch
	case raiseStop:
		return StopTrap
	}
	return StopDone
}

// run is Run's loop; it also returns the budget left.
func (t *Thread) run(budget int) (Stop, int) {
	if len(t.frames) == 0 {
		return StopDone, budget
	}
	var (
		fr   *Frame
		fn   *Funcode
		code []Instr
		regs []Value
		pc   int32
		ins  Instr
		exc  *Object
		// irq is the machine's interrupt (Machine.SetInterrupt), loaded
		// at each safepoint: one atomic load.
		irq = &t.M.interrupt
	)
	if err := t.pendingThrow; err != nil {
		t.pendingThrow = nil
		exc = t.errToException(err)
		goto throw
	}

reload:
	fr = &t.frames[len(t.frames)-1]
	fn = fr.Fn
	code = fn.Code
	pc = fr.PC
	regs = t.stack[fr.Base : int(fr.Base)+fn.NumRegs]

	for {
		ins = code[pc]
		pc++
	dispatch:
		switch ins.Op {
		case NOP:
		case MOVE:
			regs[ins.A] = regs[ins.B]
		case LOADK:
			regs[ins.A] = fn.Consts[ins.B]
		case LOADI:
			regs[ins.A].N = uint64(int64(ins.B))
		case LOADNIL:
			regs[ins.A] = Value{}

		case ADDI:
			regs[ins.A].N = uint64(int64(int32(regs[ins.B].N) + int32(regs[ins.C].N)))
		case SUBI:
			regs[ins.A].N = uint64(int64(int32(regs[ins.B].N) - int32(regs[ins.C].N)))
		case MULI:
			regs[ins.A].N = uint64(int64(int32(regs[ins.B].N) * int32(regs[ins.C].N)))
		case DIVI, MODI:
			x, y := int32(regs[ins.B].N), int32(regs[ins.C].N)
			if y == 0 {
				exc = t.M.NewException("DivByZeroException", "division by zero")
				goto throwHere
			}
			var r int32
			switch {
			case y == -1: // avoid the MinInt32 / -1 trap; wraps
				if ins.Op == DIVI {
					r = -x
				}
			case ins.Op == DIVI:
				r = x / y
			default:
				r = x % y
			}
			regs[ins.A].N = uint64(int64(r))
		case ADDL:
			regs[ins.A].N = regs[ins.B].N + regs[ins.C].N
		case SUBL:
			regs[ins.A].N = regs[ins.B].N - regs[ins.C].N
		case MULL:
			regs[ins.A].N = uint64(int64(regs[ins.B].N) * int64(regs[ins.C].N))
		case DIVL, MODL:
			x, y := int64(regs[ins.B].N), int64(regs[ins.C].N)
			if y == 0 {
				exc = t.M.NewException("DivByZeroException", "division by zero")
				goto throwHere
			}
			var r int64
			switch {
			case y == -1:
				if ins.Op == DIVL {
					r = -x
				}
			case ins.Op == DIVL:
				r = x / y
			default:
				r = x % y
			}
			regs[ins.A].N = uint64(r)
		case ADDU:
			regs[ins.A].N = uint64(uint32(regs[ins.B].N) + uint32(regs[ins.C].N))
		case SUBU:
			regs[ins.A].N = uint64(uint32(regs[ins.B].N) - uint32(regs[ins.C].N))
		case MULU:
			regs[ins.A].N = uint64(uint32(regs[ins.B].N) * uint32(regs[ins.C].N))
		case DIVU, MODU:
			x, y := uint32(regs[ins.B].N), uint32(regs[ins.C].N)
			if y == 0 {
				exc = t.M.NewException("DivByZeroException", "division by zero")
				goto throwHere
			}
			if ins.Op == DIVU {
				regs[ins.A].N = uint64(x / y)
			} else {
				regs[ins.A].N = uint64(x % y)
			}
		case ADDUL:
			regs[ins.A].N = regs[ins.B].N + regs[ins.C].N
		case SUBUL:
			regs[ins.A].N = regs[ins.B].N - regs[ins.C].N
		case MULUL:
			regs[ins.A].N = regs[ins.B].N * regs[ins.C].N
		case DIVUL, MODUL:
			x, y := regs[ins.B].N, regs[ins.C].N
			if y == 0 {
				exc = t.M.NewException("DivByZeroException", "division by zero")
				goto throwHere
			}
			if ins.Op == DIVUL {
				regs[ins.A].N = x / y
			} else {
				regs[ins.A].N = x % y
			}
		case ADDF, SUBF, MULF, DIVF, MODF:
			x, y := float32(regs[ins.B].F()), float32(regs[ins.C].F())
			var r float32
			switch ins.Op {
			case ADDF:
				r = x + y
			case SUBF:
				r = x - y
			case MULF:
				r = x * y
			default:
				if y == 0 {
					exc = t.M.NewException("DivByZeroException", "division by zero")
					goto throwHere
				}
				if ins.Op == DIVF {
					r = x / y
				} else {
					r = float32(math.Mod(float64(x), float64(y)))
				}
			}
			regs[ins.A].N = math.Float64bits(float64(r))
		case ADDD:
			regs[ins.A].N = math.Float64bits(regs[ins.B].F() + regs[ins.C].F())
		case SUBD:
			regs[ins.A].N = math.Float64bits(regs[ins.B].F() - regs[ins.C].F())
		case MULD:
			regs[ins.A].N = math.Float64bits(regs[ins.B].F() * regs[ins.C].F())
		case DIVD, MODD:
			x, y := regs[ins.B].F(), regs[ins.C].F()
			if y == 0 {
				exc = t.M.NewException("DivByZeroException", "division by zero")
				goto throwHere
			}
			if ins.Op == DIVD {
				regs[ins.A].N = math.Float64bits(x / y)
			} else {
				regs[ins.A].N = math.Float64bits(math.Mod(x, y))
			}
		case ADDIK:
			regs[ins.A].N = uint64(int64(int32(regs[ins.B].N) + ins.C))
		case ADDLK:
			regs[ins.A].N = regs[ins.B].N + uint64(int64(ins.C))
		case NEGI:
			regs[ins.A].N = uint64(int64(-int32(regs[ins.B].N)))
		case NEGL:
			regs[ins.A].N = -regs[ins.B].N
		case NEGF, NEGD:
			regs[ins.A].N = math.Float64bits(-regs[ins.B].F())
		case NOT:
			regs[ins.A].N = regs[ins.B].N ^ 1

		case EQ:
			regs[ins.A].N = b2u(regs[ins.B].N == regs[ins.C].N)
		case NE:
			regs[ins.A].N = b2u(regs[ins.B].N != regs[ins.C].N)
		case LTI:
			regs[ins.A].N = b2u(int64(regs[ins.B].N) < int64(regs[ins.C].N))
		case LEI:
			regs[ins.A].N = b2u(int64(regs[ins.B].N) <= int64(regs[ins.C].N))
		case LTU:
			regs[ins.A].N = b2u(regs[ins.B].N < regs[ins.C].N)
		case LEU:
			regs[ins.A].N = b2u(regs[ins.B].N <= regs[ins.C].N)
		case EQD:
			regs[ins.A].N = b2u(regs[ins.B].F() == regs[ins.C].F())
		case NED:
			regs[ins.A].N = b2u(regs[ins.B].F() != regs[ins.C].F())
		case LTD:
			regs[ins.A].N = b2u(regs[ins.B].F() < regs[ins.C].F())
		case LED:
			regs[ins.A].N = b2u(regs[ins.B].F() <= regs[ins.C].F())
		case EQS:
			regs[ins.A].N = b2u(regs[ins.B].S() == regs[ins.C].S())
		case NES:
			regs[ins.A].N = b2u(regs[ins.B].S() != regs[ins.C].S())
		case LTS:
			regs[ins.A].N = b2u(regs[ins.B].S() < regs[ins.C].S())
		case LES:
			regs[ins.A].N = b2u(regs[ins.B].S() <= regs[ins.C].S())
		case EQR:
			regs[ins.A].N = b2u(refEqual(regs[ins.B], regs[ins.C]))
		case NER:
			regs[ins.A].N = b2u(!refEqual(regs[ins.B], regs[ins.C]))
		case ISNULL:
			regs[ins.A].N = b2u(regs[ins.B].R == nil)
		case NOTNULL:
			regs[ins.A].N = b2u(regs[ins.B].R != nil)

		case JMP:
			pc = ins.A
		case LOOP:
			pc = ins.A
			budget--
			if budget <= 0 || irq.Load() {
				fr.PC = pc
				return StopBudget, budget
			}
		case LOOPLTIK:
			if int64(regs[ins.A].N) < int64(ins.B) {
				pc = ins.C
			}
			goto safepoint
		case LOOPLEIK:
			if int64(regs[ins.A].N) <= int64(ins.B) {
				pc = ins.C
			}
			goto safepoint
		case LOOPGTIK:
			if int64(regs[ins.A].N) > int64(ins.B) {
				pc = ins.C
			}
			goto safepoint
		case LOOPGEIK:
			if int64(regs[ins.A].N) >= int64(ins.B) {
				pc = ins.C
			}
			goto safepoint
		case LOOPLTI:
			if int64(regs[ins.A].N) < int64(regs[ins.B].N) {
				pc = ins.C
			}
			goto safepoint
		case LOOPLEI:
			if int64(regs[ins.A].N) <= int64(regs[ins.B].N) {
				pc = ins.C
			}
			goto safepoint
		case LOOPT:
			if regs[ins.A].N != 0 {
				pc = ins.C
			}
			goto safepoint
		case JT:
			if regs[ins.A].N != 0 {
				pc = ins.B
			}
		case JF:
			if regs[ins.A].N == 0 {
				pc = ins.B
			}
		case JNLTI:
			if !(int64(regs[ins.A].N) < int64(regs[ins.B].N)) {
				pc = ins.C
			}
		case JNLEI:
			if !(int64(regs[ins.A].N) <= int64(regs[ins.B].N)) {
				pc = ins.C
			}
		case JNLTIK:
			if !(int64(regs[ins.A].N) < int64(ins.B)) {
				pc = ins.C
			}
		case JNLEIK:
			if !(int64(regs[ins.A].N) <= int64(ins.B)) {
				pc = ins.C
			}
		case JNGTIK:
			if !(int64(regs[ins.A].N) > int64(ins.B)) {
				pc = ins.C
			}
		case JNGEIK:
			if !(int64(regs[ins.A].N) >= int64(ins.B)) {
				pc = ins.C
			}
		case JNLTD:
			if !(regs[ins.A].F() < regs[ins.B].F()) {
				pc = ins.C
			}
		case JNLED:
			if !(regs[ins.A].F() <= regs[ins.B].F()) {
				pc = ins.C
			}

		case CONV:
			regs[ins.A].N = Convert(regs[ins.B].N, Kind(ins.C>>8), Kind(ins.C&255))
		case TOSTR:
			fr.PC = pc
			act, x := t.opToStr(fr, ins)
			switch act {
			case actReload:
				goto reload
			case actEntry:
				goto entry
			}
			exc = x
			goto throw
		case CONCAT:
			a, b := regs[ins.B].S(), regs[ins.C].S()
			if int64(len(a))+int64(len(b)) > t.M.MaxHeap {
				exc = t.M.NewException("OutOfMemoryException", fmt.Sprintf("string of %d bytes exceeds the heap limit", len(a)+len(b)))
				goto throwHere
			}
			if exc = t.chargeHeap(t.concatCost(a, b), "string concatenation"); exc != nil {
				goto throwHere
			}
			regs[ins.A] = StrV(t.concat(a, b))
		case BOX:
			regs[ins.A] = Value{N: regs[ins.B].N, R: fn.Types[ins.C]}
		case UNBOX:
			v := regs[ins.B]
			want := fn.Types[ins.C]
			if bt, ok := v.R.(*Type); !ok || bt != want {
				exc = t.M.NewException("Exception", fmt.Sprintf("cannot unbox %s as %s", dynTypeName(v), want))
				goto throwHere
			}
			regs[ins.A].N = v.N
		case CAST:
			v := regs[ins.B]
			want := fn.Types[ins.C]
			if v.R != nil && !IsInstance(v, want) {
				exc = t.M.NewException("Exception", fmt.Sprintf("cannot cast %s to %s", dynTypeName(v), want))
				goto throwHere
			}
			regs[ins.A] = v

		case NEW:
			if exc = t.chargeHeap(objectSize+int64(len(fn.Classes[ins.B].Fields))*valueSize, "new object"); exc != nil {
				goto throwHere
			}
			regs[ins.A] = RefV(t.M.NewObject(fn.Classes[ins.B]))
		case GETF:
			o, ok := regs[ins.B].R.(*Object)
			if !ok {
				exc = t.npe("field access on null")
				goto throwHere
			}
			regs[ins.A] = o.Fields[ins.C]
		case SETF:
			o, ok := regs[ins.A].R.(*Object)
			if !ok {
				exc = t.npe("field access on null")
				goto throwHere
			}
			o.Fields[ins.B] = regs[ins.C]
		case COPY:
			if o, ok := regs[ins.B].R.(*Object); ok {
				regs[ins.A] = RefV(CopyStruct(o))
			} else {
				regs[ins.A] = regs[ins.B]
			}
		case NEWARRAY:
			n := int64(regs[ins.B].N)
			at := fn.Types[ins.C]
			if n < 0 {
				exc = t.M.NewException("IndexOutOfBoundsException", fmt.Sprintf("negative array length %d", n))
				goto throwHere
			}
			if n > t.M.MaxHeap/24 {
				exc = t.M.NewException("OutOfMemoryException", fmt.Sprintf("cannot allocate an array of %d elements", n))
				goto throwHere
			}
			if exc = t.chargeHeap(objectSize+n*valueSize, "new array"); exc != nil {
				goto throwHere
			}
			regs[ins.A] = RefV(t.M.NewArray(at, int(n)))
		case AGET:
			a, ok := regs[ins.B].R.(*Array)
			if !ok {
				exc = t.npe("index of null array")
				goto throwHere
			}
			i := int64(regs[ins.C].N)
			if uint64(i) >= uint64(len(a.Data)) {
				exc = t.oob(i, len(a.Data))
				goto throwHere
			}
			regs[ins.A] = a.Data[i]
		case ASET:
			a, ok := regs[ins.A].R.(*Array)
			if !ok {
				exc = t.npe("index of null array")
				goto throwHere
			}
			i := int64(regs[ins.B].N)
			if uint64(i) >= uint64(len(a.Data)) {
				exc = t.oob(i, len(a.Data))
				goto throwHere
			}
			a.Data[i] = regs[ins.C]
		case LGET:
			l, ok := regs[ins.B].R.(*List)
			if !ok {
				exc = t.npe("index of null List")
				goto throwHere
			}
			i := int64(regs[ins.C].N)
			if uint64(i) >= uint64(len(l.Data)) {
				exc = t.oob(i, len(l.Data))
				goto throwHere
			}
			regs[ins.A] = l.Data[i]
		case LSET:
			l, ok := regs[ins.A].R.(*List)
			if !ok {
				exc = t.npe("index of null List")
				goto throwHere
			}
			i := int64(regs[ins.B].N)
			if uint64(i) >= uint64(len(l.Data)) {
				exc = t.oob(i, len(l.Data))
				goto throwHere
			}
			l.Data[i] = regs[ins.C]
		case SGET:
			s := regs[ins.B].S()
			i := int64(regs[ins.C].N)
			if uint64(i) >= uint64(len(s)) {
				exc = t.oob(i, len(s))
				goto throwHere
			}
			regs[ins.A].N = uint64(s[i])
		case LEN:
			var n int
			switch x := regs[ins.B].R.(type) {
			case *Array:
				n = len(x.Data)
			case *List:
				n = len(x.Data)
			case *Dict:
				n = x.Len()
			case string:
				n = len(x)
			case nil:
				if fn.Types[ins.C].Kind != KString {
					exc = t.npe("length of null")
					goto throwHere
				}
			}
			regs[ins.A].N = uint64(n)
		case NEWLIST:
			lt := fn.Types[ins.B]
			n := fn.original(pc).A // length in the following NOP (which may be trapped)
			if exc = t.chargeHeap(objectSize+int64(n)*valueSize, "list literal"); exc != nil {
				goto throwHere
			}
			l := &List{Type: lt, Data: make([]Value, n), id: t.M.seqIDs.Add(1)}
			copy(l.Data, regs[ins.C:ins.C+n])
			regs[ins.A] = RefV(l)
		case NEWDICT:
			if exc = t.chargeHeap(2*objectSize, "new Dict"); exc != nil {
				goto throwHere
			}
			regs[ins.A] = RefV(NewDict(fn.Types[ins.B]))

		case CALL:
			callee := fn.Funcs[ins.B]
			fr.PC = pc
			if callee.NeedsThis && regs[ins.A].R == nil {
				exc = t.npe("method " + callee.Short + " called on null")
				goto throw
			}
			if !t.push(callee, fr.Base+ins.A, fr.Base+ins.C) {
				exc = t.M.NewException("StackOverflowException", "stack overflow")
				goto throw
			}
			// function entry: a safepoint
			budget--
			if budget <= 0 || irq.Load() {
				return StopBudget, budget
			}
			goto reload
		case CALLV, CALLI:
			o, ok := regs[ins.A].R.(*Object)
			var callee *Funcode
			if ok {
				if ins.Op == CALLV {
					callee = o.Class.VTable[ins.B]
				} else {
					callee = fn.lookupDyn(ins.B, o.Class)
				}
			}
			fr.PC = pc
			if callee == nil {
				if ins.Op == CALLI && regs[ins.A].R != nil {
					// Object methods on strings, boxed primitives, collections.
					act, x := t.opObjectMethod(fr, ins)
					switch act {
					case actReload:
						goto reload
					case actEntry:
						goto entry
					}
					exc = x
					goto throw
				}
				if !ok {
					exc = t.npe("method call on null")
				} else {
					exc = t.M.NewException("Exception", fmt.Sprintf("no method %s on %s", fn.Dyns[ins.B].Name, o.Class.Name))
				}
				goto throw
			}
			if !t.push(callee, fr.Base+ins.A, fr.Base+ins.C) {
				exc = t.M.NewException("StackOverflowException", "stack overflow")
				goto throw
			}
			// function entry: a safepoint
			budget--
			if budget <= 0 || irq.Load() {
				return StopBudget, budget
			}
			goto reload
		case CALLF:
			fv, _ := regs[ins.B].R.(*FuncVal)
			fr.PC = pc
			if fv == nil {
				exc = t.npe("call of a null function value")
				goto throw
			}
			base := ins.A + 1
			if fv.Bound {
				regs[ins.A] = fv.Recv
				base = ins.A
			}
			if fv.Native != nil {
				nargs := len(fv.Type.Args) + int(ins.A+1-base)
				nc := NCall{Native: fv.Native, NArgs: nargs}
				stop, ok := t.callNative(&nc, fr.Base+base, fr.Base+ins.C)
				if !ok {
					if stop == stopCall {
						goto entry
					}
					return stop, budget
				}
				goto reload
			}
			callee := fv.Target()
			if callee == nil {
				exc = t.M.NewException("Exception", "method "+fv.Name+" not found")
				goto throw
			}
			if !t.push(callee, fr.Base+base, fr.Base+ins.C) {
				exc = t.M.NewException("StackOverflowException", "stack overflow")
				goto throw
			}
			// function entry: a safepoint
			budget--
			if budget <= 0 || irq.Load() {
				return StopBudget, budget
			}
			goto reload
		case CALLN:
			fr.PC = pc
			stop, ok := t.callNative(&fn.NCalls[ins.B], fr.Base+ins.A, fr.Base+ins.C)
			if !ok {
				if stop == stopCall {
					goto entry
				}
				return stop, budget
			}
			goto reload
		case RET, RETV:
			var v Value
			if ins.Op == RET {
				v = regs[ins.A]
			}
			ret := fr.Ret
			t.frames = t.frames[:len(t.frames)-1]
			if ret >= 0 {
				t.stack[ret] = v
			}
			if len(t.frames) == 0 {
				t.Result = v
				return StopDone, budget
			}
			goto reload

		case CONT:
			// A continuation frame: the call it asked for has returned
			// its result into R[1].
			act, x := t.opCont(fr)
			switch act {
			case actReload:
				goto reload
			case actEntry:
				goto entry
			}
			exc = x
			goto throw

		case BIND:
			b := &fn.Binds[ins.C]
			if ins.B < 0 && b.val != nil {
				regs[ins.A] = RefV(b.val)
				break
			}
			f := &FuncVal{Fn: b.Fn, Native: b.Native, Name: b.Name, Type: b.Type}
			if ins.B >= 0 {
				recv := regs[ins.B]
				if recv.R == nil {
					exc = t.npe("method reference on null")
					goto throwHere
				}
				f.Recv, f.Bound = recv, true
			}
			regs[ins.A] = RefV(f)

		case THROW:
			o, ok := regs[ins.A].R.(*Object)
			if !ok {
				exc = t.npe("throw of null")
				goto throwHere
			}
			o.Native = nil // a fresh throw records a fresh trace
			exc = o
			goto throwHere
		case RETHROW:
			exc, _ = regs[ins.A].R.(*Object)
			goto throwHere
		case ASSERT:
			if regs[ins.A].N == 0 {
				exc = t.M.NewException("AssertionException", "assertion failed")
				goto throwHere
			}

		case TRAP:
			orig := fn.original(pc - 1)
			if (t.skipFn == fn && t.skipPC == pc-1) || t.M.Hook == nil || t.NoDebug {
				t.skipFn = nil
				ins = orig
				goto dispatch
			}
			fr.PC = pc - 1
			t.skipFn = nil
			t.trapLeft = budget
			if t.M.Hook.OnTrap(t, fn, pc-1) {
				t.skipFn, t.skipPC = fn, pc-1
				return StopTrap, budget
			}
			ins = orig
			goto dispatch

		default:
			panic(fmt.Sprintf("vm: bad opcode %v at %s pc %d", ins.Op, fn.Name, pc-1))
		}
		continue
	safepoint: // a rotated loop's test: one reduction per iteration
		budget--
		if budget <= 0 || irq.Load() {
			fr.PC = pc
			return StopBudget, budget
		}
	}

entry: // the runtime pushed a frame (a continuation's call): a safepoint
	budget--
	if budget <= 0 || irq.Load() {
		return StopBudget, budget
	}
	goto reload

throwHere:
	fr.PC = pc
throw:
	t.trapLeft = budget // for TrapReductions in ThrowHook.OnThrow
	switch t.raise(exc) {
	case raiseCaught:
		exc = nil
		goto reload
	case raiseStop:
		return StopTrap, budget
	}
	return StopDone, budget
}

// push enters callee with its registers starting at stack index base; its
// result goes to stack index ret. It reports false if the frame limit is
// reached, or if the registers cannot grow within the heap limit. Must
// be called with the caller's PC saved.
func (t *Thread) push(callee *Funcode, base, ret int32) bool {
	if len(t.frames) >= t.M.MaxFrames {
		return false
	}
	if need := int(base) + callee.NumRegs; need > len(t.stack) {
		if !t.growStack(need, true) {
			return false
		}
	}
	t.frames = append(t.frames, Frame{Fn: callee, Base: base, Ret: ret})
	return true
}

// growStack makes room for need registers. With mayFail it reports
// false, growing nothing, when the new registers (and as many frames)
// would cross the heap limit; otherwise it grows anyway (the heap is
// measured again at the next allocation).
func (t *Thread) growStack(need int, mayFail bool) bool {
	if need <= cap(t.stack) {
		t.stack = t.stack[:need]
		return true
	}
	n := 2 * cap(t.stack)
	if n < need {
		n = need
	}
	if t.chargeHeap(int64(n)*valueSize+int64(cap(t.frames))*frameSize, "call") != nil && mayFail {
		return false
	}
	s := make([]Value, need, n)
	copy(s, t.stack)
	t.stack = s
	return true
}

// action is what a slow-path operation, kept out of the loop so that
// it does not weigh on the loop's registers, asks the loop to do next.
type action uint8

const (
	actReload action = iota // go on with the top frame
	actEntry                // a frame was pushed: its entry is a safepoint
	actThrow                // raise the exception returned
)

// opToStr is TOSTR (R[A] = string conversion of R[B] of type Types[C]),
// whose user toString calls run as activations above a continuation
// frame. fr's PC is saved.
func (t *Thread) opToStr(fr *Frame, ins Instr) (action, *Object) {
	fn := fr.Fn
	s, err := t.format(t.stack[fr.Base+ins.B], fn.Types[ins.C], "string conversion")
	return t.finishOp(fr.Base+ins.A, StrV(s), err)
}

// opObjectMethod is a CALLI of an Object method (toString, equals,
// getHashCode) on a value that is not a class object. fr's PC is saved.
func (t *Thread) opObjectMethod(fr *Frame, ins Instr) (action, *Object) {
	d := &fr.Fn.Dyns[ins.B]
	base := fr.Base + ins.A
	v, err := t.objectMethod(d.Name, t.stack[base:int(base)+1+d.NArgs])
	return t.finishOp(fr.Base+ins.C, v, err)
}

// finishOp ends a slow-path operation whose result v goes to stack index
// dest: stored, or, for ErrCall, the call pushed above a continuation
// frame, or err raised.
func (t *Thread) finishOp(dest int32, v Value, err error) (action, *Object) {
	switch err {
	case nil:
		t.stack[dest] = v
		return actReload, nil
	case ErrCall:
		if !t.startCall(dest) {
			return actThrow, t.M.NewException("StackOverflowException", "stack overflow")
		}
		return actEntry, nil
	}
	return actThrow, t.errToException(err)
}

// opCont is CONT: the continuation of the continuation frame fr, on top,
// resumes with the result of its call. It finishes (fr is popped and its
// result delivered), asks for another call (pushed above fr), or raises
// an error in fr.
func (t *Thread) opCont(fr *Frame) (action, *Object) {
	k := t.stack[fr.Base].R.(Continuation)
	v, err := k.Resume(t, t.stack[fr.Base+1])
	switch err {
	case nil:
		ret := fr.Ret
		t.frames = t.frames[:len(t.frames)-1]
		if ret >= 0 {
			t.stack[ret] = v
		}
		return actReload, nil
	case ErrCall:
		fr.PC = 0 // resume again when this call returns
		if !t.continueCall() {
			fr.PC = 1
			return actThrow, t.M.NewException("StackOverflowException", "stack overflow")
		}
		return actEntry, nil
	}
	fr.PC = 1
	return actThrow, t.errToException(err)
}

// stopCall is callNative's answer when the native asked for an NLang
// call (CallThen): the frames are pushed, and the loop goes on at the
// callee's entry, a safepoint.
const stopCall Stop = 255

// callNative calls a native at a call site. It returns ok=true when the
// caller should reload its frame and go on, stopCall when a continuation's
// call was pushed, or the Stop to return. The caller's PC must be saved.
func (t *Thread) callNative(nc *NCall, argBase, dest int32) (Stop, bool) {
	if need := int(argBase) + nc.NArgs; need > len(t.stack) {
		t.growStack(need, false)
	}
	args := t.stack[argBase : int(argBase)+nc.NArgs]
	t.nativeDest, t.nativeArgs = dest, argBase
	t.nativeType = nc.Type
	var v Value
	var err error
	if nc.Native.Pinned && t.M.Sched != nil {
		t.M.Sched.EnterPinned(t, nc.Native)
		v, err = nc.Native.Fn(t, args)
		t.M.Sched.ExitPinned(t)
	} else {
		v, err = nc.Native.Fn(t, args)
	}
	if err == nil {
		t.stack[dest] = v
		if t.YieldAfterNative {
			t.YieldAfterNative = false
			return StopYield, false
		}
		return 0, true
	}
	if sig, ok := err.(*signal); ok {
		switch sig {
		case errPark:
			t.inNative = true
			return StopPark, false
		case errYield:
			t.stack[dest] = v
			return StopYield, false
		case errCall:
			if t.startCall(dest) {
				return stopCall, false
			}
			err = Throwf("StackOverflowException", "stack overflow")
		}
	}
	switch t.raise(t.errToException(err)) {
	case raiseCaught:
		return 0, true
	case raiseStop:
		return StopTrap, false
	}
	return StopDone, false
}

func (fn *Funcode) lookupDyn(i int32, c *Class) *Funcode {
	if e := fn.icache[i].Load(); e != nil && e.class == c {
		return e.fn
	}
	d := &fn.Dyns[i]
	f := c.FindMethod(d.Name, d.NArgs)
	fn.icache[i].Store(&icEntry{class: c, fn: f})
	return f
}

func (t *Thread) npe(msg string) *Object {
	return t.M.NewException("NullPointerException", msg)
}

func (t *Thread) oob(i int64, n int) *Object {
	return t.M.NewException("IndexOutOfBoundsException", fmt.Sprintf("index %d out of range [0, %d)", i, n))
}

// refEqual compares references: identity, except strings by content and
// function values by target and receiver.
func refEqual(a, b Value) bool {
	switch x := a.R.(type) {
	case *FuncVal:
		y, _ := b.R.(*FuncVal)
		return x.Equal(y)
	case string:
		y, ok := b.R.(string)
		return ok && x == y
	case *Type: // boxed primitives compare by value
		return a == b
	}
	return a.R == b.R
}

// Convert converts the scalar bits v of kind from to kind to (integer
// narrowing wraps, floating to integer truncates toward zero).
func Convert(v uint64, from, to Kind) uint64 {
	var i int64
	var u uint64
	var f float64
	isF := false
	switch from {
	case KFloat, KDouble:
		f = math.Float64frombits(v)
		isF = true
	case KUbyte, KUshort, KUint, KUlong:
		u = v
		i = int64(v)
	default: // signed, char, enum, bool
		i = int64(v)
		u = uint64(i)
	}
	switch to {
	case KFloat:
		if !isF {
			if from >= KUbyte && from <= KUlong && from.unsigned() {
				f = float64(u)
			} else {
				f = float64(i)
			}
		}
		return math.Float64bits(float64(float32(f)))
	case KDouble:
		if !isF {
			if from.unsigned() {
				f = float64(u)
			} else {
				f = float64(i)
			}
		}
		return math.Float64bits(f)
	}
	if isF {
		u = floatToIntBits(f, to)
	}
	switch to {
	case KByte:
		return uint64(int64(int8(u)))
	case KUbyte:
		return uint64(uint8(u))
	case KShort:
		return uint64(int64(int16(u)))
	case KUshort:
		return uint64(uint16(u))
	case KInt:
		return uint64(int64(int32(u)))
	case KUint:
		return uint64(uint32(u))
	case KChar:
		return uint64(uint32(u))
	case KBool:
		if u != 0 {
			return 1
		}
		return 0
	}
	return u // long, ulong, enum
}

// floatToIntBits truncates f toward zero for an integer (or char) kind as
// C++ on x86-64 does: a value outside the range of int (for byte, short
// and int) or long (for the others), or NaN, gives that type's minimum;
// narrower types then wrap.
func floatToIntBits(f float64, to Kind) uint64 {
	switch to {
	case KByte, KShort, KInt:
		if !(f > -2147483649 && f < 2147483648) {
			return 0x80000000 // INT32_MIN; wraps below
		}
		return uint64(int64(f))
	case KUlong:
		if f >= 9223372036854775808 && f < 18446744073709551616 {
			return uint64(f)
		}
	}
	if !(f > -9223372036854775809 && f < 9223372036854775808) {
		return 1 << 63
	}
	return uint64(int64(f))
}

func (k Kind) unsigned() bool {
	return k == KUbyte || k == KUshort || k == KUint || k == KUlong
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
