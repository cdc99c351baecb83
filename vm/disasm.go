package vm

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Disassemble writes a listing of every function of the program.
func Disassemble(w io.Writer, p *Program) {
	for i, fn := range p.Funcs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		DisassembleFunc(w, fn)
	}
}

// DisassembleFunc writes a listing of fn: a header, then one instruction
// per line with its pc, source line (at statement starts), operands and a
// comment naming constants, callees, types and jump targets.
func DisassembleFunc(w io.Writer, fn *Funcode) {
	fmt.Fprintf(w, "func %s  ; %s:%d  params=%d regs=%d\n", fn.Name, fn.File, fn.Line, fn.NumParams, fn.NumRegs)
	li := 0
	for pc := range fn.Code {
		lineCol := "    "
		for li < len(fn.Lines) && fn.Lines[li].PC <= int32(pc) {
			if fn.Lines[li].PC == int32(pc) && fn.Lines[li].Stmt {
				lineCol = fmt.Sprintf("%4d", fn.Lines[li].Line)
			}
			li++
		}
		fmt.Fprintf(w, "  %s %4d  %s\n", lineCol, pc, fn.FormatInstr(int32(pc)))
	}
	for _, h := range fn.Handlers {
		cls := "any"
		if h.Class != nil {
			cls = h.Class.Name
		}
		fmt.Fprintf(w, "  handler [%d, %d) -> %d  %s in r%d\n", h.StartPC, h.EndPC, h.Target, cls, h.Reg)
	}
	for _, l := range fn.Locals {
		fmt.Fprintf(w, "  local %s %s r%d [%d, %d)\n", l.Type, l.Name, l.Reg, l.StartPC, l.EndPC)
	}
}

// FormatInstr renders the instruction at pc (as compiled, ignoring traps):
// its operands as the opcode table describes them (registers as r1,
// immediates and jump targets as numbers, constants as k1, virtual-table
// slots as v1), and a comment naming what an index operand refers to.
func (fn *Funcode) FormatInstr(pc int32) string {
	in := fn.original(pc)
	info := in.Op.Info()
	var ops []string
	comment := ""
	for i, kind := range info.Args {
		x := in.Operand(Operand(i + 1))
		if s := formatOperand(kind, x); s != "" {
			ops = append(ops, s)
		}
		if c := fn.operandComment(kind, x); c != "" && comment == "" {
			comment = c
		}
	}
	s := fmt.Sprintf("%-8s %s", in.Op, strings.Join(ops, ", "))
	if comment != "" {
		s = fmt.Sprintf("%-28s ; %s", s, comment)
	}
	if fn.HasTrap(pc) {
		s += "  [trap]"
	}
	return strings.TrimRight(s, " ")
}

// formatOperand renders an operand of the given kind ("" for one not
// shown: unused, or an index that only the comment names).
func formatOperand(kind OperandKind, x int32) string {
	switch kind {
	case Reg:
		return "r" + strconv.Itoa(int(x))
	case RegOrNone:
		if x >= 0 {
			return "r" + strconv.Itoa(int(x))
		}
	case Imm, PCArg, FieldArg:
		return strconv.Itoa(int(x))
	case CountArg:
		if x != 0 {
			return strconv.Itoa(int(x))
		}
	case ConstArg:
		return "k" + strconv.Itoa(int(x))
	case SlotArg:
		return "v" + strconv.Itoa(int(x))
	}
	return ""
}

// operandComment names what an index operand refers to ("" if nothing).
func (fn *Funcode) operandComment(kind OperandKind, x int32) string {
	in := func(n int) bool { return x >= 0 && int(x) < n }
	switch kind {
	case ConstArg:
		if in(len(fn.Consts)) {
			return constString(fn.Consts[x])
		}
	case TypeArg:
		if in(len(fn.Types)) {
			return fn.Types[x].String()
		}
	case ClassArg:
		if in(len(fn.Classes)) {
			return fn.Classes[x].Name
		}
	case FuncArg:
		if in(len(fn.Funcs)) {
			return fn.Funcs[x].Name
		}
	case SlotArg:
		return "virtual"
	case DynArg:
		if in(len(fn.Dyns)) {
			return fn.Dyns[x].Name
		}
	case NCallArg:
		if in(len(fn.NCalls)) {
			return fn.NCalls[x].Native.Name
		}
	case BindArg:
		if in(len(fn.Binds)) {
			b := fn.Binds[x]
			switch {
			case b.Fn != nil:
				return b.Fn.Name
			case b.Native != nil:
				return b.Native.Name
			}
			return "by name " + b.Name
		}
	case KindsArg:
		return fmt.Sprintf("%s -> %s", kindName(Kind(x>>8)), kindName(Kind(x&255)))
	}
	return ""
}

func constString(v Value) string {
	switch x := v.R.(type) {
	case string:
		return strconv.Quote(x)
	case nil:
		return strconv.FormatInt(int64(v.N), 10) + " / " + FormatFloat(v.F(), 64)
	}
	return fmt.Sprint(v.R)
}

func kindName(k Kind) string {
	for name, t := range PrimitiveByName {
		if t.Kind == k {
			return name
		}
	}
	return fmt.Sprintf("kind%d", k)
}
