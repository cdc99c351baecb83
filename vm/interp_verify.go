package vm

import "fmt"

// The interpreter loop (run) reads and writes registers and follows jumps
// without bounds checks: it addresses register i of a frame as
// regs + i*24 and the next instruction as a pointer into the code. That
// is safe because every function is verified once, before it runs
// (Program.Finish): each operand the loop uses as a register is below
// the function's NumRegs (and a frame's registers always lie inside the
// thread's stack: push and NewThread make room for NumRegs), each jump
// target is inside the code, and the code cannot run past its end (it
// ends in a return, a throw or a jump). An operand the loop uses in any
// other way (a constant, a callee, a type, a field) is indexed with Go's
// bounds checks. A function that fails the check is not run: its code
// is replaced by an instruction that raises an InternalError naming the
// fault.

// An operand kind, as the loop uses it.
type operandKind uint8

const (
	opNone operandKind = iota // not a register or a pc (or checked by Go)
	opReg                     // a register of the frame
	opPC                      // a jump target
)

// inlineOperands says how the loop uses the operands A, B and C of op.
func inlineOperands(op Opcode) (a, b, c operandKind) {
	switch op {
	case MOVE, ADDIK, ADDLK, NEGI, NEGL, NEGF, NEGD, NOT, ISNULL, NOTNULL,
		BOX, UNBOX, GETF, LEN:
		return opReg, opReg, opNone
	case LOADK, LOADI, LOADNIL, ASSERT, RET, CALL, CALLV, CALLI, BIND:
		return opReg, opNone, opNone
	case ADDI, SUBI, MULI, DIVI, MODI, ADDL, SUBL, MULL, DIVL, MODL,
		ADDU, SUBU, MULU, DIVU, MODU, ADDUL, SUBUL, MULUL, DIVUL, MODUL,
		ADDF, SUBF, MULF, DIVF, ADDD, SUBD, MULD, DIVD,
		EQ, NE, LTI, LEI, LTU, LEU, EQD, NED, LTD, LED,
		AGET, ASET, LGET, LSET, SGET:
		return opReg, opReg, opReg
	case SETF:
		return opReg, opNone, opReg
	case CALLF:
		return opReg, opReg, opNone
	case JMP, LOOP:
		return opPC, opNone, opNone
	case JT, JF:
		return opReg, opPC, opNone
	case LOOPLTIK, LOOPLEIK, LOOPGTIK, LOOPGEIK, LOOPT, JNLTIK, JNLEIK, JNGTIK, JNGEIK:
		return opReg, opNone, opPC
	case LOOPLTI, LOOPLEI, JNLTI, JNLEI, JNLTD, JNLED:
		return opReg, opReg, opPC
	}
	return opNone, opNone, opNone
}

// verify checks fn's code as the comment above says, and reports the
// first fault.
func (fn *Funcode) verify() error {
	n := len(fn.Code)
	if n == 0 {
		return fmt.Errorf("no code")
	}
	if fn.NumRegs < 0 || fn.NumRegs > maxRegs {
		return fmt.Errorf("%d registers", fn.NumRegs)
	}
	switch fn.Code[n-1].Op {
	case RET, RETV, JMP, LOOP, THROW, RETHROW, CONT:
	default:
		return fmt.Errorf("the code runs past its end (last instruction %v)", fn.Code[n-1].Op)
	}
	for pc, in := range fn.Code {
		if in.Op >= numOpcodes || in.Op == TRAP {
			return fmt.Errorf("pc %d: bad opcode %v", pc, in.Op)
		}
		ka, kb, kc := inlineOperands(in.Op)
		for i, x := range [3]struct {
			k operandKind
			v int32
		}{{ka, in.A}, {kb, in.B}, {kc, in.C}} {
			switch {
			case x.k == opReg && (x.v < 0 || int(x.v) >= fn.NumRegs):
				return fmt.Errorf("pc %d: %v: register %c = %d out of [0, %d)", pc, in.Op, "ABC"[i], x.v, fn.NumRegs)
			case x.k == opPC && (x.v < 0 || int(x.v) >= n):
				return fmt.Errorf("pc %d: %v: jump %c = %d out of [0, %d)", pc, in.Op, "ABC"[i], x.v, n)
			}
		}
	}
	return nil
}

// withSlack returns code with room for one more instruction after it
// (the same slice if it has it): the loop's pointer to the next
// instruction, past the last one while that executes, then stays inside
// the code's allocation, as Go's pointer rules (and -race's checkptr)
// require.
func withSlack(code []Instr) []Instr {
	if cap(code) > len(code) {
		return code
	}
	c := make([]Instr, len(code), len(code)+1)
	copy(c, code)
	return c
}

// Malformed returns why the function's code failed the verification
// that Program.Finish does before it runs, or nil.
func (fn *Funcode) Malformed() error { return fn.unverified }

// maxRegs bounds a function's registers (a frame's registers are
// addressed with 32-bit operands).
const maxRegs = 1 << 24

// badCode replaces the code of a function that failed verification: its
// one instruction (an opcode the loop does not know) raises an
// InternalError when the function is called.
func (fn *Funcode) badCode(err error) {
	fn.unverified = err
	fn.Code = withSlack([]Instr{{Op: numOpcodes}})
	fn.NumRegs = max(fn.NumRegs, 1)
}
