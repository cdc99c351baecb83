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

// FormatInstr renders the instruction at pc (as compiled, ignoring traps).
func (fn *Funcode) FormatInstr(pc int32) string {
	in := fn.original(pc)
	op := in.Op
	r := func(x int32) string { return "r" + strconv.Itoa(int(x)) }
	var ops []string
	comment := ""
	switch op {
	case NOP:
		if in.A != 0 {
			ops = []string{strconv.Itoa(int(in.A))}
		}
	case LOADNIL, RETV, RET, THROW, RETHROW, ASSERT:
		if op != RETV {
			ops = []string{r(in.A)}
		}
	case MOVE, NOT, NEGI, NEGL, NEGF, NEGD, ISNULL, NOTNULL, COPY:
		ops = []string{r(in.A), r(in.B)}
	case LOADK:
		ops = []string{r(in.A), "k" + strconv.Itoa(int(in.B))}
		if int(in.B) < len(fn.Consts) {
			comment = constString(fn.Consts[in.B])
		}
	case LOADI:
		ops = []string{r(in.A), strconv.Itoa(int(in.B))}
	case ADDIK, ADDLK:
		ops = []string{r(in.A), r(in.B), strconv.Itoa(int(in.C))}
	case JMP, LOOP:
		ops = []string{strconv.Itoa(int(in.A))}
	case JT, JF:
		ops = []string{r(in.A), strconv.Itoa(int(in.B))}
	case LOOPT:
		ops = []string{r(in.A), strconv.Itoa(int(in.C))}
	case LOOPLTI, LOOPLEI:
		ops = []string{r(in.A), r(in.B), strconv.Itoa(int(in.C))}
	case JNLTIK, JNLEIK, JNGTIK, JNGEIK, LOOPLTIK, LOOPLEIK, LOOPGTIK, LOOPGEIK:
		ops = []string{r(in.A), strconv.Itoa(int(in.B)), strconv.Itoa(int(in.C))}
	case JNLTI, JNLEI, JNLTD, JNLED:
		ops = []string{r(in.A), r(in.B), strconv.Itoa(int(in.C))}
	case CONV:
		ops = []string{r(in.A), r(in.B)}
		comment = fmt.Sprintf("%s -> %s", kindName(Kind(in.C>>8)), kindName(Kind(in.C&255)))
	case TOSTR, BOX, UNBOX, CAST, NEWARRAY, LEN:
		ops = []string{r(in.A), r(in.B)}
		if int(in.C) < len(fn.Types) {
			comment = fn.Types[in.C].String()
		}
	case NEW:
		ops = []string{r(in.A)}
		if int(in.B) < len(fn.Classes) {
			comment = fn.Classes[in.B].Name
		}
	case GETF:
		ops = []string{r(in.A), r(in.B), strconv.Itoa(int(in.C))}
	case SETF:
		ops = []string{r(in.A), strconv.Itoa(int(in.B)), r(in.C)}
	case NEWLIST:
		ops = []string{r(in.A), r(in.C)}
		if int(in.B) < len(fn.Types) {
			comment = fn.Types[in.B].String()
		}
	case NEWDICT:
		ops = []string{r(in.A)}
		if int(in.B) < len(fn.Types) {
			comment = fn.Types[in.B].String()
		}
	case CALL:
		ops = []string{r(in.A), r(in.C)}
		if int(in.B) < len(fn.Funcs) {
			comment = fn.Funcs[in.B].Name
		}
	case CALLV:
		ops = []string{r(in.A), "v" + strconv.Itoa(int(in.B)), r(in.C)}
		if fn.Class != nil || true {
			comment = "virtual"
		}
	case CALLI:
		ops = []string{r(in.A), r(in.C)}
		if int(in.B) < len(fn.Dyns) {
			comment = fn.Dyns[in.B].Name
		}
	case CALLN:
		ops = []string{r(in.A), r(in.C)}
		if int(in.B) < len(fn.NCalls) {
			comment = fn.NCalls[in.B].Native.Name
		}
	case CALLF:
		ops = []string{r(in.A), r(in.B), r(in.C)}
	case BIND:
		ops = []string{r(in.A)}
		if in.B >= 0 {
			ops = append(ops, r(in.B))
		}
		if int(in.C) < len(fn.Binds) {
			b := fn.Binds[in.C]
			switch {
			case b.Fn != nil:
				comment = b.Fn.Name
			case b.Native != nil:
				comment = b.Native.Name
			default:
				comment = "by name " + b.Name
			}
		}
	default:
		ops = []string{r(in.A), r(in.B), r(in.C)}
	}
	s := fmt.Sprintf("%-8s %s", op, strings.Join(ops, ", "))
	if comment != "" {
		s = fmt.Sprintf("%-28s ; %s", s, comment)
	}
	if fn.HasTrap(pc) {
		s += "  [trap]"
	}
	return strings.TrimRight(s, " ")
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
