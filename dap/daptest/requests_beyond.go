package daptest

import (
	dap "github.com/google/go-dap"
)

// Requests of the capabilities beyond the common set (instructions,
// threads, editing).

// DisassembleRequest sends disassemble.
func (c *Client) DisassembleRequest(ref string, offset, instrOffset, count int) int {
	return c.Send(&dap.DisassembleRequest{Request: req("disassemble"), Arguments: dap.DisassembleArguments{
		MemoryReference: ref, Offset: offset, InstructionOffset: instrOffset, InstructionCount: count, ResolveSymbols: true}})
}

// StepRequest sends next, stepIn or stepOut (command) with a granularity.
func (c *Client) StepRequest(command string, threadID int, granularity dap.SteppingGranularity) int {
	switch command {
	case "stepIn":
		return c.Send(&dap.StepInRequest{Request: req(command), Arguments: dap.StepInArguments{ThreadId: threadID, Granularity: granularity}})
	case "stepOut":
		return c.Send(&dap.StepOutRequest{Request: req(command), Arguments: dap.StepOutArguments{ThreadId: threadID, Granularity: granularity}})
	}
	return c.Send(&dap.NextRequest{Request: req("next"), Arguments: dap.NextArguments{ThreadId: threadID, Granularity: granularity}})
}

// SetInstructionBreakpointsRequest sends setInstructionBreakpoints.
func (c *Client) SetInstructionBreakpointsRequest(bps ...dap.InstructionBreakpoint) int {
	if bps == nil {
		bps = []dap.InstructionBreakpoint{}
	}
	return c.Send(&dap.SetInstructionBreakpointsRequest{Request: req("setInstructionBreakpoints"),
		Arguments: dap.SetInstructionBreakpointsArguments{Breakpoints: bps}})
}
