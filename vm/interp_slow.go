package vm

import (
	"fmt"
	"math"
)

// slowOp executes the instruction of the top frame before its saved
// PC (as compiled, if a trap patched it): the instructions the loop leaves out because they
// allocate or call Go functions, and the failing cases of the ones it
// runs inline (a null receiver, an index out of range). It returns what
// the loop does next; actThrow with the exception to raise.
func (t *Thread) slowOp() (action, *Object) {
	fr := &t.frames[len(t.frames)-1]
	fn := fr.Fn
	ins := fn.Code[fr.PC-1]
	if ins.Op == TRAP {
		ins = fn.original(fr.PC - 1)
	}
	regs := t.stack[fr.Base : int(fr.Base)+fn.NumRegs]
	switch ins.Op {
	case MODF:
		x, y := float32(regs[ins.B].F()), float32(regs[ins.C].F())
		if y == 0 {
			return actThrow, t.M.NewException("DivByZeroException", "division by zero")
		}
		regs[ins.A].N = math.Float64bits(float64(float32(math.Mod(float64(x), float64(y)))))
	case MODD:
		x, y := regs[ins.B].F(), regs[ins.C].F()
		if y == 0 {
			return actThrow, t.M.NewException("DivByZeroException", "division by zero")
		}
		regs[ins.A].N = math.Float64bits(math.Mod(x, y))

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

	case CONV:
		regs[ins.A].N = Convert(regs[ins.B].N, Kind(ins.C>>8), Kind(ins.C&255))
	case TOSTR:
		return t.opToStr(fr, ins)
	case CONCAT:
		a, b := regs[ins.B].S(), regs[ins.C].S()
		if int64(len(a))+int64(len(b)) > t.M.MaxHeap {
			return actThrow, t.M.NewException("OutOfMemoryException", fmt.Sprintf("string of %d bytes exceeds the heap limit", len(a)+len(b)))
		}
		if exc := t.chargeHeap(t.concatCost(a, b), "string concatenation"); exc != nil {
			return actThrow, exc
		}
		regs[ins.A] = StrV(t.concat(a, b))
	case UNBOX:
		v := regs[ins.B]
		want := fn.Types[ins.C]
		if bt, ok := v.R.(*Type); !ok || bt != want {
			return actThrow, t.M.NewException("Exception", fmt.Sprintf("cannot unbox %s as %s", dynTypeName(v), want))
		}
		regs[ins.A].N = v.N
	case CAST:
		v := regs[ins.B]
		want := fn.Types[ins.C]
		if v.R != nil && !IsInstance(v, want) {
			return actThrow, t.M.NewException("Exception", fmt.Sprintf("cannot cast %s to %s", dynTypeName(v), want))
		}
		regs[ins.A] = v

	case NEW:
		if exc := t.chargeHeap(objectSize+int64(len(fn.Classes[ins.B].Fields))*valueSize, "new object"); exc != nil {
			return actThrow, exc
		}
		regs[ins.A] = RefV(t.M.NewObject(fn.Classes[ins.B]))
	case GETF:
		if _, ok := regs[ins.B].R.(*Object); !ok {
			return actThrow, t.npe("field access on null")
		}
		return t.bad(fn, ins)
	case SETF:
		if _, ok := regs[ins.A].R.(*Object); !ok {
			return actThrow, t.npe("field access on null")
		}
		return t.bad(fn, ins)
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
			return actThrow, t.M.NewException("IndexOutOfBoundsException", fmt.Sprintf("negative array length %d", n))
		}
		if n > t.M.MaxHeap/24 {
			return actThrow, t.M.NewException("OutOfMemoryException", fmt.Sprintf("cannot allocate an array of %d elements", n))
		}
		if exc := t.chargeHeap(objectSize+n*valueSize, "new array"); exc != nil {
			return actThrow, exc
		}
		regs[ins.A] = RefV(t.M.NewArray(at, int(n)))
	case AGET, ASET:
		x, i := ins.B, ins.C // AGET: R[A] = R[B][R[C]]
		if ins.Op == ASET {
			x, i = ins.A, ins.B // ASET: R[A][R[B]] = R[C]
		}
		a, ok := regs[x].R.(*Array)
		if !ok {
			return actThrow, t.npe("index of null array")
		}
		return actThrow, t.oob(int64(regs[i].N), len(a.Data))
	case LGET, LSET:
		x, i := ins.B, ins.C
		if ins.Op == LSET {
			x, i = ins.A, ins.B
		}
		l, ok := regs[x].R.(*List)
		if !ok {
			return actThrow, t.npe("index of null List")
		}
		return actThrow, t.oob(int64(regs[i].N), len(l.Data))
	case SGET:
		s := regs[ins.B].S()
		return actThrow, t.oob(int64(regs[ins.C].N), len(s))
	case LEN:
		switch x := regs[ins.B].R.(type) {
		case *Dict:
			regs[ins.A].N = uint64(x.Len())
		case nil:
			if fn.Types[ins.C].Kind != KString {
				return actThrow, t.npe("length of null")
			}
			regs[ins.A].N = 0
		default:
			regs[ins.A].N = 0
		}
	case NEWLIST:
		lt := fn.Types[ins.B]
		n := fn.original(fr.PC).A // length in the following NOP (which may be trapped)
		if exc := t.chargeHeap(objectSize+int64(n)*valueSize, "list literal"); exc != nil {
			return actThrow, exc
		}
		l := &List{Type: lt, Data: make([]Value, n), id: t.M.seqIDs.Add(1)}
		copy(l.Data, regs[ins.C:ins.C+n])
		regs[ins.A] = RefV(l)
	case NEWDICT:
		if exc := t.chargeHeap(2*objectSize, "new Dict"); exc != nil {
			return actThrow, exc
		}
		regs[ins.A] = RefV(NewDict(fn.Types[ins.B]))

	case CALL: // on a null receiver
		return actThrow, t.npe("method " + fn.Funcs[ins.B].Short + " called on null")
	case CALLV, CALLI:
		o, ok := regs[ins.A].R.(*Object)
		if ins.Op == CALLI && regs[ins.A].R != nil && !ok {
			// Object methods on strings, boxed primitives, collections.
			return t.opObjectMethod(fr, ins)
		}
		if !ok {
			return actThrow, t.npe("method call on null")
		}
		return actThrow, t.M.NewException("Exception", fmt.Sprintf("no method %s on %s", fn.Dyns[ins.B].Name, o.Class.Name))
	case CALLF:
		fv, _ := regs[ins.B].R.(*FuncVal)
		if fv == nil {
			return actThrow, t.npe("call of a null function value")
		}
		return actThrow, t.M.NewException("Exception", "method "+fv.Name+" not found")

	case CONT:
		// A continuation frame: the call it asked for has returned its
		// result into R[1].
		return t.opCont(fr)

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
				return actThrow, t.npe("method reference on null")
			}
			f.Recv, f.Bound = recv, true
		}
		regs[ins.A] = RefV(f)

	case THROW:
		o, ok := regs[ins.A].R.(*Object)
		if !ok {
			return actThrow, t.npe("throw of null")
		}
		o.Native = nil // a fresh throw records a fresh trace
		return actThrow, o
	case RETHROW:
		exc, _ := regs[ins.A].R.(*Object)
		return actThrow, exc
	case ASSERT:
		if regs[ins.A].N == 0 {
			return actThrow, t.M.NewException("AssertionException", "assertion failed")
		}

	default:
		return t.bad(fn, ins)
	}
	return actReload, nil
}

// bad reports an instruction the interpreter cannot execute: a bug of
// the compiler or of the interpreter (Run turns the panic into an
// InternalError).
func (t *Thread) bad(fn *Funcode, ins Instr) (action, *Object) {
	if fn.unverified != nil {
		panic(fmt.Sprintf("vm: the code of %s is malformed: %v", fn.Name, fn.unverified))
	}
	panic(fmt.Sprintf("vm: bad opcode %v at %s pc %d", ins.Op, fn.Name, t.frames[len(t.frames)-1].PC-1))
}
