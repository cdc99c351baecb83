package vm

import (
	"fmt"
	"math"
	"runtime/debug"
	"unsafe"
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
func (t *Thread) Run(budget int) Stop {
	_, stop := t.runQuantum(budget, false)
	return stop
}

// RunSwitching is Run for a scheduler's carrier: when the thread parks,
// the loop asks the scheduler (Scheduler.SwitchOnPark) for the next
// thread to run, and if it gets one goes on with it, with the budget it
// was given, without returning. It returns the thread the Stop is about:
// t, or the last thread switched to. The reductions of every thread it
// ran are counted in their Reductions.
func (t *Thread) RunSwitching(budget int) (*Thread, Stop) {
	return t.runQuantum(budget, true)
}

func (t *Thread) runQuantum(budget int, switching bool) (cur *Thread, stop Stop) {
	cur = t
	var sw *Thread // the thread running now, if switching (run updates it)
	if switching {
		sw = t
	}
	t.inNative = false
	t.YieldAfterNative = false
	defer func() {
		if r := recover(); r != nil {
			if sw != nil {
				cur = sw
			}
			stop = cur.contain(r)
		}
	}()
	t.runBudget, t.left = budget, budget
	stop = t.run(&sw)
	if sw != nil {
		cur = sw
	}
	cur.reductions += int64(cur.runBudget - cur.left)
	return cur, stop
}

// contain turns a Go panic r inside Run into an InternalError raised in
// the thread, and returns how Run ends.
func (t *Thread) contain(r any) Stop {
	if w := t.M.DebugLog; w != nil {
		fmt.Fprintf(w, "nlangdbg: internal error in thread %d %q: %v\n%s\n", t.ID, t.Name(), r, debug.Stack())
	}
	if t.cold != nil {
		t.cold.call = nil
	}
	if len(t.frames) == 0 {
		return StopDone
	}
	exc := t.M.NewException("InternalError", fmt.Sprintf("internal error: %v", r))
	// The top frame's PC is past the instruction in progress (every
	// instruction that calls out of the loop saves it first): a line of
	// the right function.
	switch t.raise(exc) {
	case raiseCaught:
		return StopBudget // the handler runs at the next dispatch
	case raiseStop:
		return StopTrap
	}
	return StopDone
}

// run is Run's loop. The budget left is t.left.
//
// How it is written, for speed (see docs/performance.md for what an
// instruction costs):
//
//   - The loop keeps only ip (a pointer to the next instruction), code,
//     regs (a pointer to the frame's first register) and fr in machine
//     registers. An instruction that calls a Go function (an allocation,
//     a string comparison, a native, an exception) first saves the pc in
//     the frame and afterwards reloads everything from the frame (goto
//     reload) or ends in throw: nothing that changes at every instruction
//     (ip, the operands) is live across a call, so the Go compiler has no
//     reason to spill it at every dispatch. The rarer instructions that
//     allocate or call are in slowOp (interp_slow.go).
//   - Registers and instructions are addressed without bounds checks, over
//     code verified once before it runs (interp_verify.go); the operands
//     are loaded zero-extended, so a register's address is one multiply
//     and an add.
//   - A call enters its callee and a return its caller without a reload.
//   - The budget lives in the thread (t.left), decremented at the
//     safepoints only.
//   - The calls the loop makes are not inlined into it (go:noinline on
//     the ones a profile-guided build would inline): they would add to
//     the registers the Go compiler must keep across the whole switch.
//
// If *sw is not nil, a thread that parks may hand the loop to the next
// thread (switchOnPark): t then changes, and *sw is set to it.
func (t *Thread) run(sw **Thread) Stop {
	var (
		fr         *Frame
		code       unsafe.Pointer // &fr.Fn.Code[0]
		regs       unsafe.Pointer // &t.stack[fr.Base]
		ip         unsafe.Pointer // the next instruction: &fr.Fn.Code[pc]
		op         Opcode         // the instruction: Op, and A, B, C (zero-extended)
		ia, ib, ic uintptr
		exc        *Object
	)
start:
	if len(t.frames) == 0 {
		return StopDone
	}
	if !t.frameOK(&t.frames[len(t.frames)-1]) {
		goto corrupt
	}
	if err := t.pendingThrow(); err != nil {
		t.cold.pendingThrow = nil
		exc = t.errToException(err)
		goto throw
	}

reload: // (the top frame is one this loop ran or pushed: see frameOK)
	fr = &t.frames[len(t.frames)-1]
	code = unsafe.Pointer(unsafe.SliceData(fr.Fn.Code))
	ip = unsafe.Add(code, uintptr(fr.PC)*instrSize)
	regs = unsafe.Pointer(&t.stack[fr.Base])

	for {
		op = *(*Opcode)(ip)
		ia = uintptr(*(*uint32)(unsafe.Add(ip, offA)))
		ib = uintptr(*(*uint32)(unsafe.Add(ip, offB)))
		ic = uintptr(*(*uint32)(unsafe.Add(ip, offC)))
		ip = unsafe.Add(ip, instrSize)
	dispatch:
		switch op {
		case NOP:
		case MOVE:
			(*reg(regs, ia)) = (*reg(regs, ib))
		case LOADK:
			(*reg(regs, ia)) = fr.Fn.Consts[ib]
		case LOADI:
			(*reg(regs, ia)).N = uint64(int64(int32(ib)))
		case LOADNIL:
			(*reg(regs, ia)) = Value{}

		case ADDI:
			(*reg(regs, ia)).N = uint64(int64(int32((*reg(regs, ib)).N) + int32((*reg(regs, ic)).N)))
		case SUBI:
			(*reg(regs, ia)).N = uint64(int64(int32((*reg(regs, ib)).N) - int32((*reg(regs, ic)).N)))
		case MULI:
			(*reg(regs, ia)).N = uint64(int64(int32((*reg(regs, ib)).N) * int32((*reg(regs, ic)).N)))
		case DIVI, MODI:
			x, y := int32((*reg(regs, ib)).N), int32((*reg(regs, ic)).N)
			if y == 0 {
				goto divZero
			}
			var r int32
			switch {
			case y == -1: // avoid the MinInt32 / -1 trap; wraps
				if op == DIVI {
					r = -x
				}
			case op == DIVI:
				r = x / y
			default:
				r = x % y
			}
			(*reg(regs, ia)).N = uint64(int64(r))
		case ADDL:
			(*reg(regs, ia)).N = (*reg(regs, ib)).N + (*reg(regs, ic)).N
		case SUBL:
			(*reg(regs, ia)).N = (*reg(regs, ib)).N - (*reg(regs, ic)).N
		case MULL:
			(*reg(regs, ia)).N = uint64(int64((*reg(regs, ib)).N) * int64((*reg(regs, ic)).N))
		case DIVL, MODL:
			x, y := int64((*reg(regs, ib)).N), int64((*reg(regs, ic)).N)
			if y == 0 {
				goto divZero
			}
			var r int64
			switch {
			case y == -1:
				if op == DIVL {
					r = -x
				}
			case op == DIVL:
				r = x / y
			default:
				r = x % y
			}
			(*reg(regs, ia)).N = uint64(r)
		case ADDU:
			(*reg(regs, ia)).N = uint64(uint32((*reg(regs, ib)).N) + uint32((*reg(regs, ic)).N))
		case SUBU:
			(*reg(regs, ia)).N = uint64(uint32((*reg(regs, ib)).N) - uint32((*reg(regs, ic)).N))
		case MULU:
			(*reg(regs, ia)).N = uint64(uint32((*reg(regs, ib)).N) * uint32((*reg(regs, ic)).N))
		case DIVU, MODU:
			x, y := uint32((*reg(regs, ib)).N), uint32((*reg(regs, ic)).N)
			if y == 0 {
				goto divZero
			}
			if op == DIVU {
				(*reg(regs, ia)).N = uint64(x / y)
			} else {
				(*reg(regs, ia)).N = uint64(x % y)
			}
		case ADDUL:
			(*reg(regs, ia)).N = (*reg(regs, ib)).N + (*reg(regs, ic)).N
		case SUBUL:
			(*reg(regs, ia)).N = (*reg(regs, ib)).N - (*reg(regs, ic)).N
		case MULUL:
			(*reg(regs, ia)).N = (*reg(regs, ib)).N * (*reg(regs, ic)).N
		case DIVUL, MODUL:
			x, y := (*reg(regs, ib)).N, (*reg(regs, ic)).N
			if y == 0 {
				goto divZero
			}
			if op == DIVUL {
				(*reg(regs, ia)).N = x / y
			} else {
				(*reg(regs, ia)).N = x % y
			}
		case ADDF, SUBF, MULF, DIVF:
			x, y := float32((*reg(regs, ib)).F()), float32((*reg(regs, ic)).F())
			var r float32
			switch op {
			case ADDF:
				r = x + y
			case SUBF:
				r = x - y
			case MULF:
				r = x * y
			default:
				if y == 0 {
					goto divZero
				}
				r = x / y
			}
			(*reg(regs, ia)).N = math.Float64bits(float64(r))
		case ADDD:
			(*reg(regs, ia)).N = math.Float64bits((*reg(regs, ib)).F() + (*reg(regs, ic)).F())
		case SUBD:
			(*reg(regs, ia)).N = math.Float64bits((*reg(regs, ib)).F() - (*reg(regs, ic)).F())
		case MULD:
			(*reg(regs, ia)).N = math.Float64bits((*reg(regs, ib)).F() * (*reg(regs, ic)).F())
		case DIVD:
			x, y := (*reg(regs, ib)).F(), (*reg(regs, ic)).F()
			if y == 0 {
				goto divZero
			}
			(*reg(regs, ia)).N = math.Float64bits(x / y)
		case ADDIK:
			(*reg(regs, ia)).N = uint64(int64(int32((*reg(regs, ib)).N) + int32(ic)))
		case ADDLK:
			(*reg(regs, ia)).N = (*reg(regs, ib)).N + uint64(int64(int32(ic)))
		case NEGI:
			(*reg(regs, ia)).N = uint64(int64(-int32((*reg(regs, ib)).N)))
		case NEGL:
			(*reg(regs, ia)).N = -(*reg(regs, ib)).N
		case NEGF, NEGD:
			(*reg(regs, ia)).N = math.Float64bits(-(*reg(regs, ib)).F())
		case NOT:
			(*reg(regs, ia)).N = (*reg(regs, ib)).N ^ 1

		case EQ:
			(*reg(regs, ia)).N = b2u((*reg(regs, ib)).N == (*reg(regs, ic)).N)
		case NE:
			(*reg(regs, ia)).N = b2u((*reg(regs, ib)).N != (*reg(regs, ic)).N)
		case LTI:
			(*reg(regs, ia)).N = b2u(int64((*reg(regs, ib)).N) < int64((*reg(regs, ic)).N))
		case LEI:
			(*reg(regs, ia)).N = b2u(int64((*reg(regs, ib)).N) <= int64((*reg(regs, ic)).N))
		case LTU:
			(*reg(regs, ia)).N = b2u((*reg(regs, ib)).N < (*reg(regs, ic)).N)
		case LEU:
			(*reg(regs, ia)).N = b2u((*reg(regs, ib)).N <= (*reg(regs, ic)).N)
		case EQD:
			(*reg(regs, ia)).N = b2u((*reg(regs, ib)).F() == (*reg(regs, ic)).F())
		case NED:
			(*reg(regs, ia)).N = b2u((*reg(regs, ib)).F() != (*reg(regs, ic)).F())
		case LTD:
			(*reg(regs, ia)).N = b2u((*reg(regs, ib)).F() < (*reg(regs, ic)).F())
		case LED:
			(*reg(regs, ia)).N = b2u((*reg(regs, ib)).F() <= (*reg(regs, ic)).F())
		case ISNULL:
			(*reg(regs, ia)).N = b2u((*reg(regs, ib)).R == nil)
		case NOTNULL:
			(*reg(regs, ia)).N = b2u((*reg(regs, ib)).R != nil)

		case JMP:
			ip = unsafe.Add(code, uintptr(ia)*instrSize)
		case LOOP:
			ip = unsafe.Add(code, uintptr(ia)*instrSize)
			goto safepoint
		case LOOPLTIK:
			if int64((*reg(regs, ia)).N) < int64(int32(ib)) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
			goto safepoint
		case LOOPLEIK:
			if int64((*reg(regs, ia)).N) <= int64(int32(ib)) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
			goto safepoint
		case LOOPGTIK:
			if int64((*reg(regs, ia)).N) > int64(int32(ib)) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
			goto safepoint
		case LOOPGEIK:
			if int64((*reg(regs, ia)).N) >= int64(int32(ib)) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
			goto safepoint
		case LOOPLTI:
			if int64((*reg(regs, ia)).N) < int64((*reg(regs, ib)).N) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
			goto safepoint
		case LOOPLEI:
			if int64((*reg(regs, ia)).N) <= int64((*reg(regs, ib)).N) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
			goto safepoint
		case LOOPT:
			if (*reg(regs, ia)).N != 0 {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
			goto safepoint
		case JT:
			if (*reg(regs, ia)).N != 0 {
				ip = unsafe.Add(code, uintptr(ib)*instrSize)
			}
		case JF:
			if (*reg(regs, ia)).N == 0 {
				ip = unsafe.Add(code, uintptr(ib)*instrSize)
			}
		case JNLTI:
			if !(int64((*reg(regs, ia)).N) < int64((*reg(regs, ib)).N)) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
		case JNLEI:
			if !(int64((*reg(regs, ia)).N) <= int64((*reg(regs, ib)).N)) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
		case JNLTIK:
			if !(int64((*reg(regs, ia)).N) < int64(int32(ib))) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
		case JNLEIK:
			if !(int64((*reg(regs, ia)).N) <= int64(int32(ib))) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
		case JNGTIK:
			if !(int64((*reg(regs, ia)).N) > int64(int32(ib))) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
		case JNGEIK:
			if !(int64((*reg(regs, ia)).N) >= int64(int32(ib))) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
		case JEQIK:
			if int64((*reg(regs, ia)).N) == int64(int32(ib)) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
		case JNLTD:
			if !((*reg(regs, ia)).F() < (*reg(regs, ib)).F()) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}
		case JNLED:
			if !((*reg(regs, ia)).F() <= (*reg(regs, ib)).F()) {
				ip = unsafe.Add(code, uintptr(ic)*instrSize)
			}

		case BIND:
			// an unbound function value, made once (Program.Finish);
			// bound ones are allocated in slowOp
			if b := &fr.Fn.Binds[ic]; int32(ib) < 0 && b.val != nil {
				(*reg(regs, ia)) = Value{R: b.val}
			} else {
				goto slow
			}
		case ASSERT:
			if (*reg(regs, ia)).N == 0 {
				goto slow
			}

		case BOX:
			(*reg(regs, ia)) = Value{N: (*reg(regs, ib)).N, R: fr.Fn.Types[ic]}
		case UNBOX:
			if bt, ok := (*reg(regs, ib)).R.(*Type); !ok || bt != fr.Fn.Types[ic] {
				goto slow
			}
			(*reg(regs, ia)).N = (*reg(regs, ib)).N

		case GETF:
			o, ok := (*reg(regs, ib)).R.(*Object)
			if !ok {
				goto slow
			}
			(*reg(regs, ia)) = o.Fields[ic]
		case SETF:
			o, ok := (*reg(regs, ia)).R.(*Object)
			if !ok {
				goto slow
			}
			o.Fields[ib] = (*reg(regs, ic))
		case AGET:
			a, ok := (*reg(regs, ib)).R.(*Array)
			i := (*reg(regs, ic)).N
			if !ok || i >= uint64(len(a.Data)) {
				goto slow
			}
			(*reg(regs, ia)) = a.Data[i]
		case ASET:
			a, ok := (*reg(regs, ia)).R.(*Array)
			i := (*reg(regs, ib)).N
			if !ok || i >= uint64(len(a.Data)) {
				goto slow
			}
			a.Data[i] = (*reg(regs, ic))
		case LGET:
			l, ok := (*reg(regs, ib)).R.(*List)
			i := (*reg(regs, ic)).N
			if !ok || i >= uint64(len(l.Data)) {
				goto slow
			}
			(*reg(regs, ia)) = l.Data[i]
		case LSET:
			l, ok := (*reg(regs, ia)).R.(*List)
			i := (*reg(regs, ib)).N
			if !ok || i >= uint64(len(l.Data)) {
				goto slow
			}
			l.Data[i] = (*reg(regs, ic))
		case SGET:
			s, _ := (*reg(regs, ib)).R.(string)
			i := (*reg(regs, ic)).N
			if i >= uint64(len(s)) {
				goto slow
			}
			(*reg(regs, ia)).N = uint64(s[i])
		case LEN:
			var n int
			switch x := (*reg(regs, ib)).R.(type) {
			case *Array:
				n = len(x.Data)
			case *List:
				n = len(x.Data)
			case string:
				n = len(x)
			default:
				goto slow // a Dict, or null
			}
			(*reg(regs, ia)).N = uint64(n)

		case CALL:
			callee := fr.Fn.Funcs[ib]
			fr.PC = pcOf(code, ip)
			if callee.NeedsThis && (*reg(regs, ia)).R == nil {
				goto slow
			}
			base, ret := fr.Base+int32(ia), fr.Base+int32(ic)
			if n := len(t.frames); n < cap(t.frames) && n < t.M.MaxFrames && int(base)+callee.NumRegs <= len(t.stack) {
				// push, inline while the frame and registers fit, and
				// enter the callee without a reload
				t.frames = t.frames[:n+1]
				fr = &t.frames[n]
				*fr = Frame{Fn: callee, Base: base, Ret: ret}
				code = unsafe.Pointer(unsafe.SliceData(callee.Code))
				ip = code
				regs = unsafe.Pointer(reg(regs, ia))
				t.left-- // function entry: a safepoint
				if t.left <= 0 || t.M.interrupt.Load() {
					return StopBudget
				}
				continue
			}
			if !t.push(callee, base, ret) {
				exc = t.M.NewException("StackOverflowException", "stack overflow")
				goto throw
			}
			goto entry
		case CALLV, CALLI:
			fr.PC = pcOf(code, ip)
			o, ok := (*reg(regs, ia)).R.(*Object)
			if !ok {
				goto slow
			}
			base, ret := fr.Base+int32(ia), fr.Base+int32(ic)
			var callee *Funcode
			if op == CALLV {
				callee = o.Class.VTable[ib]
			} else {
				callee = fr.Fn.lookupDyn(int32(ib), o.Class)
			}
			if callee == nil {
				goto slowSaved
			}
			if !t.push(callee, base, ret) {
				exc = t.M.NewException("StackOverflowException", "stack overflow")
				goto throw
			}
			goto entry
		case CALLF:
			fr.PC = pcOf(code, ip)
			fv, _ := (*reg(regs, ib)).R.(*FuncVal)
			if fv == nil {
				goto slow
			}
			base, ret := int32(ia)+1, fr.Base+int32(ic)
			if fv.Bound {
				(*reg(regs, ia)) = fv.Recv
				base = int32(ia)
			}
			base += fr.Base
			if fv.Native != nil {
				nc := NCall{Native: fv.Native, NArgs: len(fv.Type.Args) + int(fr.Base+int32(ia)+1-base)}
				stop, ok := t.callNative(&nc, base, ret)
				if !ok {
					if stop == stopCall {
						goto entry
					}
					return stop
				}
				goto reload
			}
			callee := fv.Target()
			if callee == nil {
				goto slowSaved
			}
			if !t.push(callee, base, ret) {
				exc = t.M.NewException("StackOverflowException", "stack overflow")
				goto throw
			}
			goto entry
		case CALLN:
			fr.PC = pcOf(code, ip)
			{
				nc := &fr.Fn.NCalls[ib]
				base := fr.Base + int32(ia)
				end := int(base) + nc.NArgs
				var stop Stop
				var ok bool
				if end <= len(t.stack) && !nc.Native.Pinned {
					// callNative's common case, inline
					t.nativeDest, t.nativeArgs = fr.Base+int32(ic), base
					v, err := nc.Native.Fn(t, t.stack[base:end])
					if err == nil && !t.YieldAfterNative {
						t.stack[t.nativeDest] = v
						goto reload
					}
					stop, ok = t.nativeResult(v, err)
				} else {
					stop, ok = t.callNative(nc, base, fr.Base+int32(ic))
				}
				if ok {
					goto reload
				}
				if stop == stopCall {
					goto entry
				}
				if stop == StopPark && *sw != nil {
					if next := t.switchOnPark(); next != nil {
						t, *sw = next, next
						goto start
					}
				}
				return stop
			}
		case RET, RETV:
			var v Value
			if op == RET {
				v = (*reg(regs, ia))
			}
			ret := fr.Ret
			n := len(t.frames) - 1
			t.frames = t.frames[:n]
			if ret >= 0 {
				t.stack[ret] = v
			}
			if n == 0 {
				t.Result = v
				return StopDone
			}
			// back in the caller, without a reload
			fr = &t.frames[n-1]
			if !t.frameOK(fr) {
				goto corrupt
			}
			code = unsafe.Pointer(unsafe.SliceData(fr.Fn.Code))
			ip = unsafe.Add(code, uintptr(fr.PC)*instrSize)
			regs = unsafe.Pointer(&t.stack[fr.Base])

		case TRAP:
			fr.PC = pcOf(code, ip) - 1
			orig, stop := t.onTrap(fr.Fn, fr.PC)
			if stop {
				return StopTrap
			}
			// (everything reloaded: nothing of the loop's is kept across
			// a call)
			fr = &t.frames[len(t.frames)-1]
			code = unsafe.Pointer(unsafe.SliceData(fr.Fn.Code))
			ip = unsafe.Add(code, uintptr(fr.PC+1)*instrSize)
			regs = unsafe.Pointer(&t.stack[fr.Base])
			op, ia, ib, ic = orig.Op, uintptr(uint32(orig.A)), uintptr(uint32(orig.B)), uintptr(uint32(orig.C))
			goto dispatch

		default:
			goto slow
		}
		continue
	safepoint: // a loop's back-edge: one reduction per iteration
		t.left--
		if t.left <= 0 || t.M.interrupt.Load() {
			fr.PC = pcOf(code, ip)
			return StopBudget
		}
	}

entry: // a frame was pushed (a call): its entry is a safepoint
	t.left--
	if t.left <= 0 || t.M.interrupt.Load() {
		return StopBudget
	}
	goto reload

slow: // an instruction that allocates, calls out, or throws
	fr.PC = pcOf(code, ip)
slowSaved:
	{
		act, x := t.slowOp()
		switch act {
		case actReload:
			goto reload
		case actEntry:
			goto entry
		}
		exc = x
		goto throw
	}

corrupt:
	panic(t.badFrame(&t.frames[len(t.frames)-1]))

divZero:
	fr.PC = pcOf(code, ip)
	exc = t.M.NewException("DivByZeroException", "division by zero")
throw:
	switch t.raise(exc) {
	case raiseCaught:
		exc = nil
		goto reload
	case raiseStop:
		return StopTrap
	}
	return StopDone
}

// switchOnPark asks the scheduler for a thread to run in place of t,
// which has just parked, and prepares it to run (see RunSwitching); nil
// if there is none. (Not inlined into the loop, even where a profile
// says it is hot: see run.)
//
//go:noinline
func (t *Thread) switchOnPark() *Thread {
	t.inNative = true // as Run's caller sees it once it returns StopPark
	t.reductions += int64(t.runBudget - t.left)
	t.runBudget = t.left // counted
	next, budget := t.M.Sched.SwitchOnPark(t)
	if next == nil {
		return nil
	}
	next.inNative = false
	next.YieldAfterNative = false
	next.runBudget, next.left = budget, budget
	return next
}

// frameOK reports whether the frame fr, about to run, has its pc inside
// its code and its registers inside the stack: the loop relies on both
// without checking each access. Push keeps them so; this is for frames
// restored or changed from outside while the thread was stopped, which
// the loop checks when it starts (or switches to) a thread and when a
// return enters a caller. (If not, Run raises an InternalError.)
func (t *Thread) frameOK(fr *Frame) bool {
	return uint(fr.PC) < uint(len(fr.Fn.Code)) && fr.Base >= 0 && int(fr.Base)+fr.Fn.NumRegs <= len(t.stack)
}

func (t *Thread) badFrame(fr *Frame) string {
	return (fmt.Sprintf("vm: frame of %s at pc %d, registers [%d, %d), is outside its code (%d instructions) or the stack (%d registers)",
		fr.Fn.Name, fr.PC, fr.Base, int(fr.Base)+fr.Fn.NumRegs, len(fr.Fn.Code), len(t.stack)))
}

// onTrap decides about the trapped instruction at pc of fn, the top
// frame's (whose PC is pc): it reports whether the thread stops there
// (the debug hook said so), and otherwise returns the instruction to
// execute in its place.
func (t *Thread) onTrap(fn *Funcode, pc int32) (Instr, bool) {
	c := t.cold
	if (c != nil && c.skipFn == fn && c.skipPC == pc && c.skipRed == t.TrapReductions()) || t.M.Hook == nil || t.NoDebug {
		if c != nil {
			c.skipFn = nil
		}
		return fn.original(pc), false
	}
	if c != nil {
		c.skipFn = nil
	}
	if t.M.Hook.OnTrap(t, fn, pc) {
		c = t.cx()
		c.skipFn, c.skipPC, c.skipRed = fn, pc, t.TrapReductions()
		return Instr{}, true
	}
	return fn.original(pc), false
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
	var v Value
	var err error
	if nc.Native.Pinned && t.M.Sched != nil {
		t.M.Sched.EnterPinned(t, nc.Native)
		v, err = nc.Native.Fn(t, args)
		t.M.Sched.ExitPinned(t)
	} else {
		v, err = nc.Native.Fn(t, args)
	}
	return t.nativeResult(v, err)
}

// nativeResult acts on what the native called at t.nativeDest returned,
// as callNative says. (Not inlined into the loop, even where a profile
// says it is hot: see run.)
//
//go:noinline
func (t *Thread) nativeResult(v Value, err error) (Stop, bool) {
	dest := t.nativeDest
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

// reg returns register i of the frame whose registers start at regs.
func reg(regs unsafe.Pointer, i uintptr) *Value {
	return (*Value)(unsafe.Add(regs, uintptr(i)*unsafe.Sizeof(Value{})))
}

// The size of an Instr and the offsets of its operands.
const (
	instrSize = unsafe.Sizeof(Instr{})
	offA      = unsafe.Offsetof(Instr{}.A)
	offB      = unsafe.Offsetof(Instr{}.B)
	offC      = unsafe.Offsetof(Instr{}.C)
)

// pcOf returns the pc of the instruction ip points to in the code that
// starts at code.
func pcOf(code, ip unsafe.Pointer) int32 {
	return int32((uintptr(ip) - uintptr(code)) / instrSize)
}
