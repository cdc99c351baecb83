package vm

import "fmt"

// Opcode is a bytecode operation. The VM is register based: A, B and C
// are register numbers relative to the frame's base, immediates, pcs or
// indexes into the function's tables, as each opcode's comment says
// (R = register, K = constant, imm = immediate).
type Opcode uint8

// Instr is one instruction.
type Instr struct {
	Op      Opcode
	A, B, C int32
}

// Opcodes. Each one has an entry in the opcode table (opinfo.go: its
// name, operands and attributes), in the same order; a missing entry
// does not compile.
const (
	NOP     Opcode = iota //                               -
	MOVE                  // R[A] = R[B]
	LOADK                 // R[A] = K[B]
	LOADI                 // R[A] = imm B (signed integer)
	LOADNIL               // R[A] = null / zero

	// arithmetic: R[A] = R[B] op R[C]; suffix I int32, L int64, U uint32,
	// UL uint64, F float32, D float64. Division by zero throws.
	ADDI
	SUBI
	MULI
	DIVI
	MODI
	ADDL
	SUBL
	MULL
	DIVL
	MODL
	ADDU
	SUBU
	MULU
	DIVU
	MODU
	ADDUL
	SUBUL
	MULUL
	DIVUL
	MODUL
	ADDF
	SUBF
	MULF
	DIVF
	MODF
	ADDD
	SUBD
	MULD
	DIVD
	MODD
	ADDIK // R[A] = int32(R[B] + imm C)
	ADDLK // R[A] = int64(R[B] + imm C)
	NEGI  // R[A] = -R[B] (int32)
	NEGL  // R[A] = -R[B] (int64)
	NEGF  // R[A] = -R[B] (float32)
	NEGD  // R[A] = -R[B] (float64)
	NOT   // R[A] = !R[B]

	// comparisons: R[A] = R[B] op R[C] as bool.
	EQ      // bit equality of scalars (ints, bool, char, enum)
	NE      //
	LTI     // signed integers
	LEI     //
	LTU     // unsigned integers
	LEU     //
	EQD     // floating
	NED     //
	LTD     //
	LED     //
	EQS     // strings by content
	NES     //
	LTS     // strings by bytes
	LES     //
	EQR     // references by identity (Func values by target and receiver)
	NER     //
	ISNULL  // R[A] = R[B] is null
	NOTNULL // R[A] = R[B] is not null

	// control flow.
	JMP  // pc = A
	LOOP // pc = A; a safepoint: one reduction (loop back-edge)
	JT   // if R[A] { pc = B }
	JF   // if !R[A] { pc = B }
	// fused compare-and-branch for loop conditions: if !(R[A] op R[B]) { pc = C }
	JNLTI  // signed integers <
	JNLEI  // signed integers <=
	JNLTIK // if !(R[A] < imm B) { pc = C } (signed integers)
	JNLEIK // if !(R[A] <= imm B) { pc = C }
	JNGTIK // if !(R[A] > imm B) { pc = C }
	JNGEIK // if !(R[A] >= imm B) { pc = C }
	// rotated loops: the test at the bottom is the back-edge, a safepoint
	// (one reduction per test, whether the loop goes on or ends).
	LOOPLTIK // if R[A] < imm B { pc = C } (signed integers)
	LOOPLEIK // if R[A] <= imm B { pc = C }
	LOOPGTIK // if R[A] > imm B { pc = C }
	LOOPGEIK // if R[A] >= imm B { pc = C }
	LOOPLTI  // if R[A] < R[B] { pc = C } (signed integers)
	LOOPLEI  // if R[A] <= R[B] { pc = C }
	LOOPT    // if R[A] { pc = C }
	JNLTD    // floating <
	JNLED    // floating <=
	JEQIK    // if R[A] == imm B { pc = C } (integers: a switch's constant label)

	// conversions.
	CONV   // R[A] = convert(R[B]) from kind C>>8 to kind C&255
	TOSTR  // R[A] = string of R[B], a scalar or reference of Types[C]
	CONCAT // R[A] = R[B] + R[C] (strings)
	BOX    // R[A] = box(R[B]) of scalar type Types[C]
	UNBOX  // R[A] = unbox(R[B]) to Types[C], throwing on a mismatch
	CAST   // R[A] = R[B] checked as Types[C] (downcast), throwing on a mismatch

	// objects, arrays, collections.
	NEW      // R[A] = new object of Classes[B], fields zeroed
	GETF     // R[A] = R[B].Fields[C]
	SETF     // R[A].Fields[B] = R[C]
	COPY     // R[A] = deep copy of the struct R[B] (null stays null)
	NEWARRAY // R[A] = new Types[C] (an array type) of length R[B]
	AGET     // R[A] = R[B][R[C]] (array)
	ASET     // R[A][R[B]] = R[C] (array)
	LGET     // R[A] = R[B][R[C]] (List)
	LSET     // R[A][R[B]] = R[C] (List)
	SGET     // R[A] = byte R[C] of the string R[B] as ubyte
	LEN      // R[A] = length of R[B]: array, List, Dict, string (bytes)
	NEWLIST  // R[A] = new Types[B] (a List type), elements R[C..C+len) with len in the next NOP's A
	NEWDICT  // R[A] = new Types[B] (a Dict type)

	// calls. Arguments are in consecutive registers starting at A; for
	// methods the receiver is R[A].
	CALL  // R[C] = Funcs[B](R[A]…)
	CALLV // R[C] = virtual call of VTable slot B on the receiver R[A]
	CALLI // R[C] = call of the method Dyns[B] looked up by name on R[A]'s class
	CALLN // R[C] = Natives[B](R[A]…)
	CALLF // R[C] = call of the function value R[B]; R[A] is reserved for a bound receiver, arguments start at R[A+1]
	RET   // return R[A]
	RETV  // return (void)

	// functions values.
	BIND // R[A] = Binds[C] bound to the receiver R[B] (B < 0: unbound)

	// exceptions.
	THROW   // throw R[A]
	RETHROW // rethrow R[A] keeping its backtrace
	ASSERT  // if !R[A] throw AssertionException

	// debugger.
	TRAP // a patched instruction: report to the debug hook

	// continuations (only in the runtime's continuation frames, never
	// emitted by the compiler).
	CONT // resume the continuation R[0] with the result R[1] (see CallThen)

	numOpcodes
)

func (op Opcode) String() string {
	if int(op) < len(opTable) {
		return opTable[op].Name
	}
	return fmt.Sprintf("op%d", op)
}

// DynCall names a method called by name (CALLI).
type DynCall struct {
	Name  string
	NArgs int // arguments besides the receiver
}

// Bind describes a function value made by BIND.
type Bind struct {
	Fn     *Funcode // static target
	Native *Native  // native target (method of a host type, or package function)
	Name   string   // late-bound method name (interface or virtual method)
	Type   *Type    // the Func type of the value
	// val is the value itself for an unbound function (immutable, so
	// made once, by Program.Finish): a spawn in a loop allocates no
	// function value per thread.
	val *FuncVal
}

// NCall describes a native call site (CALLN).
type NCall struct {
	Native *Native
	NArgs  int // argument registers, including the receiver
	// Type is the instantiated receiver or result type the native may
	// need (Thread.NativeType), e.g. Channel<int> for a constructor.
	Type *Type
}
