package inspect

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
)

// Instruction addresses. The bytecode of every function of a program is
// laid out in one address space: the instruction at pc of the function
// with index i in Program.Funcs has address (i+1)<<AddrShift | pc, written
// in hex ("0x3000007": function 2, pc 7). Frames, disassembly and
// instruction breakpoints all use this form; addresses are stable for
// one compiled program (they change when the program is recompiled, as
// after a restart with edited sources).
const AddrShift = 24

// Address returns the address of pc in fn ("" for a function outside the
// program, such as a continuation frame's).
func (s *Session) Address(fn *vm.Funcode, pc int32) string {
	i, ok := s.funcIndex()[fn]
	if !ok {
		return ""
	}
	return formatAddr(i, pc)
}

func formatAddr(i int, pc int32) string {
	return "0x" + strconv.FormatUint(uint64(i+1)<<AddrShift|uint64(pc), 16)
}

// funcIndex maps each function of the program to its index (made once).
func (s *Session) funcIndex() map[*vm.Funcode]int {
	s.fnIdxOnce.Do(func() {
		s.fnIdx = make(map[*vm.Funcode]int, len(s.prog.Funcs))
		for i, fn := range s.prog.Funcs {
			s.fnIdx[fn] = i
		}
	})
	return s.fnIdx
}

// ParseAddress returns the function and pc of an address (see
// AddrShift); offset is added to the pc.
func (s *Session) ParseAddress(ref string, offset int) (*vm.Funcode, int32, error) {
	i, pc, err := parseAddr(ref)
	if err != nil {
		return nil, 0, err
	}
	pc += int64(offset)
	if i < 0 || i >= len(s.prog.Funcs) {
		return nil, 0, fmt.Errorf("address %s is not in the program's code", ref)
	}
	fn := s.prog.Funcs[i]
	if pc < 0 || pc >= int64(len(fn.Code)) {
		return nil, 0, fmt.Errorf("address %s%+d is outside %s (pcs 0 to %d)", ref, offset, fn.Name, len(fn.Code)-1)
	}
	return fn, int32(pc), nil
}

// parseAddr splits an address into a function index and a pc.
func parseAddr(ref string) (int, int64, error) {
	h := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(ref), "0x"), "0X")
	v, err := strconv.ParseUint(h, 16, 64)
	if err != nil || h == "" || v>>AddrShift == 0 || v>>AddrShift > 1<<30 {
		return 0, 0, fmt.Errorf("bad instruction address %q (want 0x followed by hex digits, as in a stack frame's instructionPointerReference)", ref)
	}
	return int(v>>AddrShift) - 1, int64(v & (1<<AddrShift - 1)), nil
}

// Instruction is one bytecode instruction as a disassembly shows it.
type Instruction struct {
	Address string // see AddrShift
	// Text is the opcode and operands, with a comment naming constants,
	// callees, types and jump targets ("call r2, r3 ; fib").
	Text string
	// Func is the function's name; First marks its first instruction.
	Func  string
	First bool
	File  string
	Line  int
	Col   int
	Stmt  bool // starts a statement
	// Invalid marks a filler entry before the first or after the last
	// instruction of the program (a client asked for a window past it).
	Invalid bool
}

// Disassemble returns count instructions starting instrOffset
// instructions from the instruction at address ref (plus offset pcs).
// The functions follow each other in Program.Funcs order, so a window
// may span several; entries outside the program are Invalid, so the
// result always has count entries. The program must be stopped (an
// instruction patched for a breakpoint is shown as compiled, marked
// [trap]).
func (s *Session) Disassemble(ref string, offset, instrOffset, count int) ([]Instruction, error) {
	if err := s.checkInspect(); err != nil {
		return nil, err
	}
	if count < 0 || count > 100000 {
		return nil, fmt.Errorf("instructionCount %d: want 0 to 100000", count)
	}
	i, pc, err := parseAddr(ref)
	if err != nil {
		return nil, err
	}
	if i >= len(s.prog.Funcs) {
		return nil, fmt.Errorf("address %s is not in the program's code", ref)
	}
	// the linear position of the start in the whole program
	pos := int64(0)
	for _, fn := range s.prog.Funcs[:i] {
		pos += int64(len(fn.Code))
	}
	fnLen := int64(len(s.prog.Funcs[i].Code))
	pc += int64(offset)
	if pc < 0 {
		pc = 0
	}
	if pc > fnLen {
		pc = fnLen
	}
	pos += pc + int64(instrOffset)
	out := make([]Instruction, 0, count)
	// find the function holding pos
	fi, base := 0, int64(0)
	if pos > 0 {
		for fi < len(s.prog.Funcs) && base+int64(len(s.prog.Funcs[fi].Code)) <= pos {
			base += int64(len(s.prog.Funcs[fi].Code))
			fi++
		}
	}
	for n := 0; n < count; n++ {
		p := pos + int64(n)
		for fi < len(s.prog.Funcs) && p >= base+int64(len(s.prog.Funcs[fi].Code)) {
			base += int64(len(s.prog.Funcs[fi].Code))
			fi++
		}
		if p < 0 || fi >= len(s.prog.Funcs) {
			out = append(out, s.filler(p))
			continue
		}
		fn := s.prog.Funcs[fi]
		out = append(out, s.instruction(fi, fn, int32(p-base)))
	}
	return out, nil
}

// filler is the invalid entry at linear position p outside the program:
// before it, addresses count down from the first function's; after it,
// up from the last one's end.
func (s *Session) filler(p int64) Instruction {
	var addr uint64
	if p < 0 {
		addr = uint64(1)<<AddrShift - uint64(-p)
	} else {
		last := len(s.prog.Funcs) - 1
		total := int64(0)
		for _, fn := range s.prog.Funcs[:last] {
			total += int64(len(fn.Code))
		}
		addr = uint64(last+1)<<AddrShift + uint64(p-total)
	}
	return Instruction{Address: "0x" + strconv.FormatUint(addr, 16), Text: "??", Invalid: true}
}

// instruction describes pc of fn, the function with index i.
func (s *Session) instruction(i int, fn *vm.Funcode, pc int32) Instruction {
	line, col := fn.Pos(pc)
	return Instruction{Address: formatAddr(i, pc), Text: fn.FormatInstr(pc), Func: fn.Name, First: pc == 0,
		File: fn.File, Line: int(line), Col: int(col), Stmt: isStmt(fn, pc)}
}
