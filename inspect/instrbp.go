package inspect

import (
	"strings"
)

// InstructionBreakpointSpec is a requested breakpoint on one bytecode
// instruction: an address (see AddrShift) plus an offset in
// instructions.
type InstructionBreakpointSpec struct {
	Ref          string
	Offset       int
	Condition    string
	HitCondition string
	Mode         string // as BreakpointSpec's
}

// ReasonInstruction is the stop reason of an instruction breakpoint.
const ReasonInstruction StopReason = "instruction breakpoint"

// SetInstructionBreakpoints replaces the instruction breakpoints. A
// breakpoint asked for again (same address) keeps its id and hit count.
// The Breakpoint's Line is the instruction's source line and Address
// its address.
func (s *Session) SetInstructionBreakpoints(specs []InstructionBreakpointSpec) []Breakpoint {
	defer s.quiet()() // (catchup.go)
	var out []Breakpoint
	s.withWorldStopped(func() {
		t := s.bps
		old := t.instrs
		for _, o := range old {
			t.remove(o)
		}
		t.instrs = nil
		used := map[*bp]bool{}
		for _, sp := range specs {
			b := &bp{isInstr: true, cond: strings.TrimSpace(sp.Condition), hitCond: sp.HitCondition, mode: sp.Mode}
			fn, pc, err := s.ParseAddress(sp.Ref, sp.Offset)
			if err == nil {
				b.name = s.Address(fn, pc)
			}
			t.keep(b, reuse(old, used, func(o *bp) bool { return err == nil && o.name == b.name }, b.cond, b.hitCond, ""))
			hit, herr := parseHitCondition(sp.HitCondition)
			switch {
			case err != nil:
				b.message = err.Error()
			case herr != nil:
				b.message = herr.Error()
			case checkMode(sp.Mode) != nil:
				b.message = checkMode(sp.Mode).Error()
			default:
				line, _ := fn.Pos(pc)
				b.fn, b.pc, b.line, b.file, b.hitTest = fn, pc, int(line), canonPath(fn.File), hit
				if err := s.prepare(b); err != nil {
					b.message = err.Error()
					break
				}
				b.verified = true
				t.add(b)
			}
			t.instrs = append(t.instrs, b)
			out = append(out, b.info(s.r))
		}
	})
	return out
}

// instrAddress is the address of an instruction breakpoint ("" if it is
// not placed).
func (b *bp) instrAddress() string {
	if b.isInstr && b.fn != nil {
		return b.name
	}
	return ""
}

// isInstrStop reports whether every breakpoint that fired is an
// instruction breakpoint.
func isInstrStop(hit []*bp) bool {
	for _, b := range hit {
		if !b.isInstr {
			return false
		}
	}
	return len(hit) > 0
}
