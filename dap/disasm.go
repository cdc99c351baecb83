package dap

import (
	"fmt"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/inspect"
)

// Error ids of the instruction-level requests.
const (
	errDisassemble     = 1040
	errInstructionBPs  = 1041
	maxDisassembleSpan = 100000
)

// onDisassembleRequest lists bytecode. memoryReference is an instruction
// address as in a stack frame's instructionPointerReference ("0x" and
// hex: the function's index in the program plus one, shifted left by
// 24, or'ed with the pc); offset counts pcs, instructionOffset and
// instructionCount count instructions. The functions follow each other
// in one address space, so a window may cross from one to the next;
// entries outside the program are "??" with no location.
func (c *session) onDisassembleRequest(req *dap.DisassembleRequest) {
	if !c.haveProgram(req) {
		return
	}
	a := req.Arguments
	if a.InstructionCount < 0 || a.InstructionCount > maxDisassembleSpan {
		c.sendError(req, errBadArguments, fmt.Sprintf("disassemble: instructionCount %d: want 0 to %d", a.InstructionCount, maxDisassembleSpan))
		return
	}
	list, err := c.prog.Disassemble(a.MemoryReference, a.Offset, a.InstructionOffset, a.InstructionCount)
	if err != nil {
		c.sendError(req, errID(err, errDisassemble), "disassemble: "+err.Error())
		return
	}
	out := make([]dap.DisassembledInstruction, 0, len(list))
	var last string // the file of the previous entry: a location is sent when it changes
	for _, in := range list {
		d := dap.DisassembledInstruction{Address: in.Address, Instruction: in.Text}
		if !in.Invalid {
			if in.First {
				d.Symbol = in.Func
			}
			if in.File != last || in.First {
				d.Location = c.source(in.File)
			}
			last = in.File
			d.Line, d.Column = in.Line, in.Col
		} else {
			last = ""
		}
		out = append(out, d)
	}
	c.respond(&dap.DisassembleResponse{Response: newResponse(req),
		Body: dap.DisassembleResponseBody{Instructions: out}})
}

// onSetInstructionBreakpointsRequest replaces the instruction
// breakpoints (addresses as in disassemble).
func (c *session) onSetInstructionBreakpointsRequest(req *dap.SetInstructionBreakpointsRequest) {
	if !c.haveProgram(req) {
		return
	}
	var specs []inspect.InstructionBreakpointSpec
	modes := c.rawModes("breakpoints")
	for i, b := range req.Arguments.Breakpoints {
		specs = append(specs, inspect.InstructionBreakpointSpec{Ref: b.InstructionReference, Offset: b.Offset,
			Condition: b.Condition, HitCondition: b.HitCondition, Mode: modeAt(modes, i)})
	}
	placed := c.prog.SetInstructionBreakpoints(specs)
	out := make([]dap.Breakpoint, 0, len(placed))
	for _, b := range placed {
		d := c.breakpoint(b, nil)
		d.InstructionReference = b.Address
		out = append(out, d)
	}
	c.respondBreakpoints(req, out, false)
}
