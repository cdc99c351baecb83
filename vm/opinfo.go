package vm

// The opcode table: what each opcode does, as data, for every part of
// the program that must know it — the debugger (steps, data breakpoints,
// read-only evaluation, going back), the race detector, schedule
// exploration and the disassembler. They ask the table (Opcode.Info,
// Funcode.AccessOf) instead of listing opcodes or comparing them with the
// bounds of the const block. The interpreter does not read it: its switch
// is the semantics, and a test (opinfo_test.go) runs programs under a
// hook that checks every instruction against its entry.
//
// In the spirit of Lua's lopcodes.h (an opmode per opcode: which operands
// are used and how, whether it sets register A, whether it is a test) and
// of Go's cmd/compile opInfo (a record of properties per op).

// OperandKind says what an operand of an instruction holds.
type OperandKind uint8

// Operand kinds.
const (
	Unused    OperandKind = iota // not used (0)
	Reg                          // a register of the frame
	RegOrNone                    // a register, or -1 for none (BIND's receiver)
	Imm                          // a signed immediate
	PCArg                        // a pc of the function: a jump target
	FieldArg                     // a field number of the object's class
	ConstArg                     // an index in Funcode.Consts
	TypeArg                      // an index in Funcode.Types
	ClassArg                     // an index in Funcode.Classes
	FuncArg                      // an index in Funcode.Funcs
	SlotArg                      // a virtual-table slot
	DynArg                       // an index in Funcode.Dyns
	NCallArg                     // an index in Funcode.NCalls
	BindArg                      // an index in Funcode.Binds
	KindsArg                     // CONV's conversion: from-kind<<8 | to-kind
	CountArg                     // a count (the NOP after NEWLIST holds the length)
)

// Operand names an operand of an instruction: A, B or C.
type Operand uint8

// Operands. NoOperand is the zero value: none.
const (
	NoOperand Operand = iota
	OpA
	OpB
	OpC
)

// Operand returns the value of operand o of in (0 for NoOperand).
func (in Instr) Operand(o Operand) int32 {
	switch o {
	case OpA:
		return in.A
	case OpB:
		return in.B
	case OpC:
		return in.C
	}
	return 0
}

// SetOperand sets operand o of in to x (nothing for NoOperand).
func (in *Instr) SetOperand(o Operand, x int32) {
	switch o {
	case OpA:
		in.A = x
	case OpB:
		in.B = x
	case OpC:
		in.C = x
	}
}

// CallKind says what a call instruction calls.
type CallKind uint8

// Call kinds. A call's arguments are in consecutive registers from R[A]
// (the receiver first for methods) and its result goes to R[C]; the
// callee's frame overlays the registers from R[A] up, so a call may
// change every one of them.
const (
	NoCall      CallKind = iota
	CallFunc             // CALL: a function or non-virtual method, Funcs[B]
	CallVirtual          // CALLV: the method in virtual-table slot B of R[A]'s class
	CallByName           // CALLI: the method Dyns[B] looked up by name on R[A]
	CallNative           // CALLN: the native NCalls[B]
	CallValue            // CALLF: the function value R[B]
	CallCont             // CONT: a native's continuation (runtime frames only)
)

// AccessKind says what memory an instruction loads or stores: the places
// threads may share, which the race detector, data breakpoints and
// --granularity shared watch.
type AccessKind uint8

// Access kinds.
const (
	NoAccess         AccessKind = iota
	AccessField                 // a field of an object (*Object)
	AccessArray                 // an element of an array (*Array)
	AccessList                  // an element of a List (*List)
	AccessCollection            // a List or Dict as a whole, through one of its native methods (CALLN)
)

// Access describes an instruction's load or store. Obj names the operand
// holding the register of the object, array, List (or the receiver of a
// collection's native method); Key names the operand that is the field
// number itself (AccessField) or that holds the register of the index
// (AccessArray, AccessList); Val names the operand holding the register
// loaded into or stored (or, for a store of an immediate, the
// immediate). Key and Val are NoOperand for a collection.
type Access struct {
	Kind  AccessKind
	Write bool // a store (or a native method that changes its receiver)
	Obj   Operand
	Key   Operand
	Val   Operand
}

// OpFlags are the yes/no attributes of an opcode.
type OpFlags uint16

// Opcode attributes.
const (
	// SetsA: the instruction writes R[A] and no other register. (A call
	// writes R[C] and may change every register from R[A] up: see
	// CallKind.)
	SetsA OpFlags = 1 << iota
	// Straight: it goes on to pc+1 without calling anything or running
	// NLang code, unless it throws. (A jump, call, return or throw is
	// not straight.)
	Straight
	// Safepoint: it may count a reduction — a loop back-edge, or the
	// entry of a function it calls — where Run may return StopBudget.
	Safepoint
	// MayThrow: it may raise an exception.
	MayThrow
	// RunsCode: it may run NLang code — a call, or a toString the runtime
	// calls (TOSTR; a native may call back too).
	RunsCode
	// NoNext: it never goes on to pc+1 in the same frame: an
	// unconditional jump, a return, a throw.
	NoNext
	// Returns: it pops the frame (RET, RETV).
	Returns
)

// OpInfo is the entry of an opcode in the table.
type OpInfo struct {
	Op    Opcode
	Name  string // as the disassembler prints it
	Flags OpFlags
	// Args says what each operand (A, B, C) holds.
	Args [3]OperandKind
	// Target is the operand holding a jump's target pc (NoOperand: not
	// a jump). A jump without NoNext is conditional: it goes to its
	// target or on to pc+1.
	Target Operand
	// Call is what a call instruction calls (NoCall: not a call).
	Call CallKind
	// Access is the instruction's own load or store. A native call's is
	// the native's (Native.Recv): ask Funcode.AccessOf.
	Access Access
}

// Is reports whether the opcode has every attribute of f.
func (i *OpInfo) Is(f OpFlags) bool { return i.Flags&f == f }

// IsJump reports whether the instruction may go to a pc other than the
// next one in the same frame (its Target).
func (i *OpInfo) IsJump() bool { return i.Target != NoOperand }

// Info returns op's entry in the opcode table. An opcode out of range
// (never compiled) has a zero entry with its number as name.
func (op Opcode) Info() *OpInfo {
	if int(op) < len(opTable) {
		return &opTable[op]
	}
	return &OpInfo{Op: op}
}

// JumpTarget returns the pc the instruction jumps to, if it is a jump.
func (in Instr) JumpTarget() (int32, bool) {
	i := in.Op.Info()
	return in.Operand(i.Target), i.IsJump()
}

// RecvAccess says how a native method touches its receiver as a whole:
// the methods of List and Dict read or change their collection, which
// the race detector and --granularity shared see as one location.
type RecvAccess uint8

// Receiver accesses.
const (
	RecvNone RecvAccess = iota
	RecvReads
	RecvWrites
)

// AccessOf returns the load or store of in, an instruction of fn: its
// opcode's, or, for a native call, the native's access to its receiver
// (R[A]).
func (fn *Funcode) AccessOf(in Instr) Access {
	info := in.Op.Info()
	if info.Call == CallNative && in.B >= 0 && int(in.B) < len(fn.NCalls) {
		if n := fn.NCalls[in.B].Native; n != nil && n.Recv != RecvNone {
			return Access{Kind: AccessCollection, Write: n.Recv == RecvWrites, Obj: OpA}
		}
	}
	return info.Access
}

// Shorthands for the table.
const (
	opVal  = SetsA | Straight            // computes R[A]
	opValT = SetsA | Straight | MayThrow // computes R[A], or throws
	opCall = RunsCode | MayThrow | Safepoint
)

var (
	argRRR   = [3]OperandKind{Reg, Reg, Reg}
	argRR    = [3]OperandKind{Reg, Reg}
	argRRT   = [3]OperandKind{Reg, Reg, TypeArg}
	argRImm  = [3]OperandKind{Reg, Imm}
	argRRImm = [3]OperandKind{Reg, Reg, Imm}
	argR     = [3]OperandKind{Reg}
	argRRPC  = [3]OperandKind{Reg, Reg, PCArg}
	argRIPC  = [3]OperandKind{Reg, Imm, PCArg}
)

// opTable has one entry per opcode, in the order of the const block
// (checked by a test); the constants below make a missing or extra
// entry a compile error.
var opTable = [...]OpInfo{
	{Op: NOP, Name: "nop", Flags: Straight, Args: [3]OperandKind{CountArg}},
	{Op: MOVE, Name: "move", Flags: opVal, Args: argRR},
	{Op: LOADK, Name: "loadk", Flags: opVal, Args: [3]OperandKind{Reg, ConstArg}},
	{Op: LOADI, Name: "loadi", Flags: opVal, Args: argRImm},
	{Op: LOADNIL, Name: "loadnil", Flags: opVal, Args: argR},

	{Op: ADDI, Name: "addi", Flags: opVal, Args: argRRR},
	{Op: SUBI, Name: "subi", Flags: opVal, Args: argRRR},
	{Op: MULI, Name: "muli", Flags: opVal, Args: argRRR},
	{Op: DIVI, Name: "divi", Flags: opValT, Args: argRRR},
	{Op: MODI, Name: "modi", Flags: opValT, Args: argRRR},
	{Op: ADDL, Name: "addl", Flags: opVal, Args: argRRR},
	{Op: SUBL, Name: "subl", Flags: opVal, Args: argRRR},
	{Op: MULL, Name: "mull", Flags: opVal, Args: argRRR},
	{Op: DIVL, Name: "divl", Flags: opValT, Args: argRRR},
	{Op: MODL, Name: "modl", Flags: opValT, Args: argRRR},
	{Op: ADDU, Name: "addu", Flags: opVal, Args: argRRR},
	{Op: SUBU, Name: "subu", Flags: opVal, Args: argRRR},
	{Op: MULU, Name: "mulu", Flags: opVal, Args: argRRR},
	{Op: DIVU, Name: "divu", Flags: opValT, Args: argRRR},
	{Op: MODU, Name: "modu", Flags: opValT, Args: argRRR},
	{Op: ADDUL, Name: "addul", Flags: opVal, Args: argRRR},
	{Op: SUBUL, Name: "subul", Flags: opVal, Args: argRRR},
	{Op: MULUL, Name: "mulul", Flags: opVal, Args: argRRR},
	{Op: DIVUL, Name: "divul", Flags: opValT, Args: argRRR},
	{Op: MODUL, Name: "modul", Flags: opValT, Args: argRRR},
	{Op: ADDF, Name: "addf", Flags: opVal, Args: argRRR},
	{Op: SUBF, Name: "subf", Flags: opVal, Args: argRRR},
	{Op: MULF, Name: "mulf", Flags: opVal, Args: argRRR},
	{Op: DIVF, Name: "divf", Flags: opValT, Args: argRRR},
	{Op: MODF, Name: "modf", Flags: opValT, Args: argRRR},
	{Op: ADDD, Name: "addd", Flags: opVal, Args: argRRR},
	{Op: SUBD, Name: "subd", Flags: opVal, Args: argRRR},
	{Op: MULD, Name: "muld", Flags: opVal, Args: argRRR},
	{Op: DIVD, Name: "divd", Flags: opValT, Args: argRRR},
	{Op: MODD, Name: "modd", Flags: opValT, Args: argRRR},
	{Op: ADDIK, Name: "addik", Flags: opVal, Args: argRRImm},
	{Op: ADDLK, Name: "addlk", Flags: opVal, Args: argRRImm},
	{Op: NEGI, Name: "negi", Flags: opVal, Args: argRR},
	{Op: NEGL, Name: "negl", Flags: opVal, Args: argRR},
	{Op: NEGF, Name: "negf", Flags: opVal, Args: argRR},
	{Op: NEGD, Name: "negd", Flags: opVal, Args: argRR},
	{Op: NOT, Name: "not", Flags: opVal, Args: argRR},

	{Op: EQ, Name: "eq", Flags: opVal, Args: argRRR},
	{Op: NE, Name: "ne", Flags: opVal, Args: argRRR},
	{Op: LTI, Name: "lti", Flags: opVal, Args: argRRR},
	{Op: LEI, Name: "lei", Flags: opVal, Args: argRRR},
	{Op: LTU, Name: "ltu", Flags: opVal, Args: argRRR},
	{Op: LEU, Name: "leu", Flags: opVal, Args: argRRR},
	{Op: EQD, Name: "eqd", Flags: opVal, Args: argRRR},
	{Op: NED, Name: "ned", Flags: opVal, Args: argRRR},
	{Op: LTD, Name: "ltd", Flags: opVal, Args: argRRR},
	{Op: LED, Name: "led", Flags: opVal, Args: argRRR},
	{Op: EQS, Name: "eqs", Flags: opVal, Args: argRRR},
	{Op: NES, Name: "nes", Flags: opVal, Args: argRRR},
	{Op: LTS, Name: "lts", Flags: opVal, Args: argRRR},
	{Op: LES, Name: "les", Flags: opVal, Args: argRRR},
	{Op: EQR, Name: "eqr", Flags: opVal, Args: argRRR},
	{Op: NER, Name: "ner", Flags: opVal, Args: argRRR},
	{Op: ISNULL, Name: "isnull", Flags: opVal, Args: argRR},
	{Op: NOTNULL, Name: "notnull", Flags: opVal, Args: argRR},

	{Op: JMP, Name: "jmp", Flags: NoNext, Args: [3]OperandKind{PCArg}, Target: OpA},
	{Op: LOOP, Name: "loop", Flags: NoNext | Safepoint, Args: [3]OperandKind{PCArg}, Target: OpA},
	{Op: JT, Name: "jt", Args: [3]OperandKind{Reg, PCArg}, Target: OpB},
	{Op: JF, Name: "jf", Args: [3]OperandKind{Reg, PCArg}, Target: OpB},
	{Op: JNLTI, Name: "jnlti", Args: argRRPC, Target: OpC},
	{Op: JNLEI, Name: "jnlei", Args: argRRPC, Target: OpC},
	{Op: JNLTIK, Name: "jnltik", Args: argRIPC, Target: OpC},
	{Op: JNLEIK, Name: "jnleik", Args: argRIPC, Target: OpC},
	{Op: JNGTIK, Name: "jngtik", Args: argRIPC, Target: OpC},
	{Op: JNGEIK, Name: "jngeik", Args: argRIPC, Target: OpC},
	{Op: LOOPLTIK, Name: "loopltik", Flags: Safepoint, Args: argRIPC, Target: OpC},
	{Op: LOOPLEIK, Name: "loopleik", Flags: Safepoint, Args: argRIPC, Target: OpC},
	{Op: LOOPGTIK, Name: "loopgtik", Flags: Safepoint, Args: argRIPC, Target: OpC},
	{Op: LOOPGEIK, Name: "loopgeik", Flags: Safepoint, Args: argRIPC, Target: OpC},
	{Op: LOOPLTI, Name: "looplti", Flags: Safepoint, Args: argRRPC, Target: OpC},
	{Op: LOOPLEI, Name: "looplei", Flags: Safepoint, Args: argRRPC, Target: OpC},
	{Op: LOOPT, Name: "loopt", Flags: Safepoint, Args: [3]OperandKind{Reg, Unused, PCArg}, Target: OpC},
	{Op: JNLTD, Name: "jnltd", Args: argRRPC, Target: OpC},
	{Op: JNLED, Name: "jnled", Args: argRRPC, Target: OpC},
	{Op: JEQIK, Name: "jeqik", Args: argRIPC, Target: OpC},

	{Op: CONV, Name: "conv", Flags: opVal, Args: [3]OperandKind{Reg, Reg, KindsArg}},
	{Op: TOSTR, Name: "tostr", Flags: SetsA | MayThrow | RunsCode | Safepoint, Args: argRRT},
	{Op: CONCAT, Name: "concat", Flags: opValT, Args: argRRR},
	{Op: BOX, Name: "box", Flags: opVal, Args: argRRT},
	{Op: UNBOX, Name: "unbox", Flags: opValT, Args: argRRT},
	{Op: CAST, Name: "cast", Flags: opValT, Args: argRRT},

	{Op: NEW, Name: "new", Flags: opValT, Args: [3]OperandKind{Reg, ClassArg}},
	{Op: GETF, Name: "getf", Flags: opValT, Args: [3]OperandKind{Reg, Reg, FieldArg},
		Access: Access{Kind: AccessField, Obj: OpB, Key: OpC, Val: OpA}},
	{Op: SETF, Name: "setf", Flags: Straight | MayThrow, Args: [3]OperandKind{Reg, FieldArg, Reg},
		Access: Access{Kind: AccessField, Write: true, Obj: OpA, Key: OpB, Val: OpC}},
	{Op: COPY, Name: "copy", Flags: opVal, Args: argRR},
	{Op: NEWARRAY, Name: "newarray", Flags: opValT, Args: argRRT},
	{Op: AGET, Name: "aget", Flags: opValT, Args: argRRR,
		Access: Access{Kind: AccessArray, Obj: OpB, Key: OpC, Val: OpA}},
	{Op: ASET, Name: "aset", Flags: Straight | MayThrow, Args: argRRR,
		Access: Access{Kind: AccessArray, Write: true, Obj: OpA, Key: OpB, Val: OpC}},
	{Op: LGET, Name: "lget", Flags: opValT, Args: argRRR,
		Access: Access{Kind: AccessList, Obj: OpB, Key: OpC, Val: OpA}},
	{Op: LSET, Name: "lset", Flags: Straight | MayThrow, Args: argRRR,
		Access: Access{Kind: AccessList, Write: true, Obj: OpA, Key: OpB, Val: OpC}},
	{Op: SGET, Name: "sget", Flags: opValT, Args: argRRR},
	{Op: LEN, Name: "len", Flags: opValT, Args: argRRT},
	{Op: NEWLIST, Name: "newlist", Flags: opValT, Args: [3]OperandKind{Reg, TypeArg, Reg}},
	{Op: NEWDICT, Name: "newdict", Flags: opValT, Args: [3]OperandKind{Reg, TypeArg}},

	{Op: CALL, Name: "call", Flags: opCall, Args: [3]OperandKind{Reg, FuncArg, Reg}, Call: CallFunc},
	{Op: CALLV, Name: "callv", Flags: opCall, Args: [3]OperandKind{Reg, SlotArg, Reg}, Call: CallVirtual},
	{Op: CALLI, Name: "calli", Flags: opCall, Args: [3]OperandKind{Reg, DynArg, Reg}, Call: CallByName},
	{Op: CALLN, Name: "calln", Flags: opCall, Args: [3]OperandKind{Reg, NCallArg, Reg}, Call: CallNative},
	{Op: CALLF, Name: "callf", Flags: opCall, Args: argRRR, Call: CallValue},
	{Op: RET, Name: "ret", Flags: Returns | NoNext, Args: argR},
	{Op: RETV, Name: "retv", Flags: Returns | NoNext},

	{Op: BIND, Name: "bind", Flags: opValT, Args: [3]OperandKind{Reg, RegOrNone, BindArg}},

	{Op: THROW, Name: "throw", Flags: MayThrow | NoNext, Args: argR},
	{Op: RETHROW, Name: "rethrow", Flags: MayThrow | NoNext, Args: argR},
	{Op: ASSERT, Name: "assert", Flags: Straight | MayThrow, Args: argR},

	// TRAP stands for the instruction it replaced (Funcode.Instr returns
	// that one): it is taken to do anything.
	{Op: TRAP, Name: "trap", Flags: MayThrow | RunsCode | Safepoint},

	{Op: CONT, Name: "cont", Flags: opCall, Call: CallCont},
}

// One entry per opcode: with an entry missing, the first constant is
// negative, with one too many the second; either fails to compile.
const (
	_ = uint(len(opTable) - int(numOpcodes))
	_ = uint(int(numOpcodes) - len(opTable))
)
