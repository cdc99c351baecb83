package dap

import (
	"strconv"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// addrPlus returns address a moved by n instructions within a function.
func addrPlus(t *testing.T, a string, n int) string {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(a, "0x"), 16, 64)
	if err != nil {
		t.Fatalf("address %q: %v", a, err)
	}
	return "0x" + strconv.FormatUint(v+uint64(n), 16)
}

// disassemble sends disassemble and returns the instructions.
func disassemble(t *testing.T, c *daptest.Client, ref string, offset, instrOffset, count int) []dap.DisassembledInstruction {
	t.Helper()
	c.DisassembleRequest(ref, offset, instrOffset, count)
	return daptest.ExpectResponse[*dap.DisassembleResponse](t, c).Body.Instructions
}

func TestDisassemble(t *testing.T) {
	runSession(t, "testdata/dap/disasm.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("calls"))
		ip := top.InstructionPointerReference
		if !strings.HasPrefix(ip, "0x") {
			t.Fatalf("instructionPointerReference %q, want an 0x address", ip)
		}
		// the window VS Code asks for: some before, the frame's, some after
		list := disassemble(t, c, ip, 0, -1, 6)
		if len(list) != 6 {
			t.Fatalf("%d instructions, want 6", len(list))
		}
		entry, at, call := list[0], list[1], list[2]
		if entry.Address != addrPlus(t, ip, -1) || entry.Symbol != "main" || entry.Line != f.Line("first") ||
			entry.Location == nil || entry.Location.Path != f.Path || !strings.HasPrefix(entry.Instruction, "loadi") {
			t.Errorf("main's first instruction: %+v", entry)
		}
		if at.Address != ip || at.Line != f.Line("calls") || at.Symbol != "" {
			t.Errorf("the frame's instruction: %+v, want address %s at line %d", at, ip, f.Line("calls"))
		}
		if !strings.HasPrefix(call.Instruction, "call") || !strings.Contains(call.Instruction, "; twice") {
			t.Errorf("the call: %q, want a call naming twice", call.Instruction)
		}
		// the window runs on past the program's end: filler entries
		end := disassemble(t, c, ip, 0, 1000, 3)
		if len(end) != 3 || end[0].Instruction != "??" || end[0].Location != nil || end[0].Address == end[1].Address {
			t.Errorf("past the end: %+v", end)
		}
		// an offset in pcs moves the start as an instruction offset does
		if same := disassemble(t, c, ip, 1, 0, 1); same[0].Address != call.Address {
			t.Errorf("offset 1: %+v, want %s", same[0], call.Address)
		}
		for _, bad := range []string{"12", "zz", "", "0xff000000000000"} {
			c.DisassembleRequest(bad, 0, 0, 4)
			if e := c.ExpectErrorResponse(t, "disassemble"); !strings.Contains(e.Message, "address") {
				t.Errorf("disassemble %q: %q, want an error about the address", bad, e.Message)
			}
		}
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("calls"))
}

// stepAndCheck steps thread 1 one instruction and checks where it is.
func stepAndCheck(t *testing.T, c *daptest.Client, command, fn, addr string, line int) dap.StackFrame {
	t.Helper()
	c.StepRequest(command, 1, "instruction")
	daptest.Expect[dap.ResponseMessage](t, c)
	stop := c.ExpectStoppedEvent(t)
	top := topFrame(t, c, 1)
	if stop.Body.Reason != "step" || top.Name != fn || top.Line != line || addr != "" && top.InstructionPointerReference != addr {
		t.Fatalf("%s by instruction: stopped (%s) in %s line %d at %s, want %s line %d at %s",
			command, stop.Body.Reason, top.Name, top.Line, top.InstructionPointerReference, fn, line, addr)
	}
	return top
}

func TestInstructionStepping(t *testing.T) {
	runSession(t, "testdata/dap/disasm.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("calls"))
		ip := top.InstructionPointerReference
		calls := f.Line("calls")
		stepAndCheck(t, c, "next", "main", addrPlus(t, ip, 1), calls) // move: one instruction, same line
		stepAndCheck(t, c, "next", "main", addrPlus(t, ip, 2), calls) // over the call: twice runs to its return
		stepAndCheck(t, c, "stepIn", "main", addrPlus(t, ip, 3), calls)
		in := stepAndCheck(t, c, "stepIn", "twice", "", f.Line("twice")) // into the second call
		stepAndCheck(t, c, "next", "twice", addrPlus(t, in.InstructionPointerReference, 1), f.Line("twice"))
		// out: at the instruction after the call, with the value returned
		out := stepAndCheck(t, c, "stepOut", "main", addrPlus(t, ip, 4), calls)
		if rv := variables(t, c, scopes(t, c, out.Id)["Return value"].VariablesReference)["Return value"]; rv.Value != "8" {
			t.Errorf("Return value after stepOut by instruction: %+v, want 8", rv)
		}
		// by statements again: the next line
		c.NextRequest(1, false)
		daptest.ExpectResponse[*dap.NextResponse](t, c)
		checkStop(t, c, 1, "main", f.Line("print"))
		c.StepRequest("next", 1, "word")
		if e := c.ExpectErrorResponse(t, "next"); !strings.Contains(e.Message, "granularity") {
			t.Errorf("granularity word: %q", e.Message)
		}
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("calls"))
}

func TestInstructionBreakpoints(t *testing.T) {
	runSession(t, "testdata/dap/disasm.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("first"))
		// twice's second instruction (the multiply), from main's entry:
		// find it in a disassembly of twice
		c.SetFunctionBreakpointsRequest("twice")
		daptest.ExpectResponse[*dap.SetFunctionBreakpointsResponse](t, c)
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		_, tw := checkStop(t, c, 1, "twice", f.Line("twice"))
		mul := addrPlus(t, tw.InstructionPointerReference, 1)
		c.SetFunctionBreakpointsRequest()
		daptest.ExpectResponse[*dap.SetFunctionBreakpointsResponse](t, c)
		c.SetInstructionBreakpointsRequest(
			dap.InstructionBreakpoint{InstructionReference: tw.InstructionPointerReference, Offset: 1, Condition: "a == 4"},
			dap.InstructionBreakpoint{InstructionReference: "0x1"},
			dap.InstructionBreakpoint{InstructionReference: top.InstructionPointerReference, Offset: 1000})
		r := daptest.ExpectResponse[*dap.SetInstructionBreakpointsResponse](t, c).Body.Breakpoints
		if len(r) != 3 || !r[0].Verified || r[0].InstructionReference != mul || r[0].Line != f.Line("twice") || r[1].Verified || r[2].Verified || r[2].Message == "" {
			t.Fatalf("setInstructionBreakpoints: %+v", r)
		}
		// the first call (a == 3) passes, the second stops
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		stop, at := checkStop(t, c, 1, "twice", f.Line("twice"))
		if stop.Body.Reason != "instruction breakpoint" || at.InstructionPointerReference != mul ||
			len(stop.Body.HitBreakpointIds) != 1 || stop.Body.HitBreakpointIds[0] != r[0].Id {
			t.Errorf("stop: %+v at %s, want instruction breakpoint %d at %s", stop.Body, at.InstructionPointerReference, r[0].Id, mul)
		}
		if a := variables(t, c, scopes(t, c, at.Id)["Arguments"].VariablesReference)["a"]; a.Value != "4" {
			t.Errorf("a = %s, want 4 (the condition)", a.Value)
		}
		c.SetInstructionBreakpointsRequest()
		daptest.ExpectResponse[*dap.SetInstructionBreakpointsResponse](t, c)
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("first"))
}
