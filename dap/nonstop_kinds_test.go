package dap

import (
	"fmt"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// heldAt expects a stop that holds thread tid alone with reason, its
// top frame in fn at line, while the ticker goes on printing.
func heldAt(t *testing.T, c *daptest.Client, tid int, reason, fn string, line int) dap.StackFrame {
	t.Helper()
	st := expectHeld(t, c)
	if st.Body.ThreadId != tid || st.Body.Reason != reason {
		t.Fatalf("stop %+v, want thread %d, reason %q", st.Body, tid, reason)
	}
	top := topFrame(t, c, tid)
	if top.Name != fn || top.Line != line {
		t.Fatalf("held in %s at line %d, want %s at line %d", top.Name, top.Line, fn, line)
	}
	n := tickCount(c.Output("stdout"))
	c.WaitOutput(t, "stdout", func(s string) bool { return tickCount(s) > n+10 })
	return top
}

// continueAlone continues a held thread and checks that it alone goes on.
func continueAlone(t *testing.T, c *daptest.Client, tid int) {
	t.Helper()
	c.ContinueRequest(tid, false)
	if r := daptest.ExpectResponse[*dap.ContinueResponse](t, c); r.Body.AllThreadsContinued {
		t.Fatalf("continue of held thread %d: allThreadsContinued", tid)
	}
}

// TestNonStopEveryKind: the mode "thread" on a function breakpoint, a
// data breakpoint, an instruction breakpoint and an exception filter
// holds the worker alone each time while the ticker prints; stepIn and
// stepOut of the held worker act on it alone, and setExpression changes
// its argument. On one carrier and four.
func TestNonStopEveryKind(t *testing.T) {
	for _, carriers := range []int{1, 4} {
		t.Run(fmt.Sprint(carriers, " carriers"), func(t *testing.T) {
			runSession(t, "testdata/dap/nonstop_kinds.n", func(c *daptest.Client, f *fixture) {
				const worker = 3
				heldAt(t, c, worker, "function breakpoint", "work", f.Line("call"))
				// the threads: the worker stopped, the ticker not, main
				// waiting for the worker's future
				c.ThreadsRequest()
				for _, th := range daptest.ExpectResponse[*dap.ThreadsResponse](t, c).Body.Threads {
					stopped := strings.HasSuffix(th.Name, "· stopped")
					if stopped != (th.Id == worker) {
						t.Errorf("thread %q", th.Name)
					}
					if th.Id == 1 && !strings.Contains(th.Name, "future") {
						t.Errorf("main %q, want it waiting for the future", th.Name)
					}
				}
				c.StepInRequest(worker)
				daptest.ExpectResponse[*dap.StepInResponse](t, c)
				sq := heldAt(t, c, worker, "step", "square", f.Line("square"))
				c.SetExpressionRequest("x", "4", sq.Id)
				if r := daptest.ExpectResponse[*dap.SetExpressionResponse](t, c); r.Body.Value != "4" {
					t.Errorf("setExpression x: %s", r.Body.Value)
				}
				c.StepOutRequest(worker)
				daptest.ExpectResponse[*dap.StepOutResponse](t, c)
				work := heldAt(t, c, worker, "step", "work", f.Line("call"))
				// a watch on b.v and an instruction breakpoint at the
				// second instruction of the wrote line, both in mode thread
				b := variables(t, c, scopes(t, c, work.Id)["Arguments"].VariablesReference)["b"]
				id, _ := dataID(t, c, b.VariablesReference, "v", 0)
				c.RequestWith("setDataBreakpoints", map[string]any{"breakpoints": []map[string]any{
					{"dataId": id, "accessType": "write", "mode": "thread"}}})
				if r := daptest.ExpectResponse[*dap.SetDataBreakpointsResponse](t, c); !r.Body.Breakpoints[0].Verified {
					t.Fatalf("data breakpoint %+v", r.Body.Breakpoints)
				}
				// (the second: the watch stops at the first, after the write)
				addr, seen := "", 0
				for _, in := range disassemble(t, c, work.InstructionPointerReference, 0, 0, 40) {
					if in.Line == f.Line("wrote") {
						if seen++; seen == 2 {
							addr = in.Address
							break
						}
					}
				}
				if addr == "" {
					t.Fatal("no instruction at the wrote line")
				}
				c.RequestWith("setInstructionBreakpoints", map[string]any{"breakpoints": []map[string]any{
					{"instructionReference": addr, "mode": "thread"}}})
				if r := daptest.ExpectResponse[*dap.SetInstructionBreakpointsResponse](t, c); !r.Body.Breakpoints[0].Verified {
					t.Fatalf("instruction breakpoint %+v", r.Body.Breakpoints)
				}
				continueAlone(t, c, worker)
				st := c.ExpectStoppedEvent(t)
				if st.Body.AllThreadsStopped || st.Body.ThreadId != worker || st.Body.Reason != "data breakpoint" ||
					!strings.Contains(st.Body.Description, "16") {
					t.Fatalf("the watch: %+v", st.Body)
				}
				continueAlone(t, c, worker)
				heldAt(t, c, worker, "instruction breakpoint", "work", f.Line("wrote"))
				continueAlone(t, c, worker)
				heldAt(t, c, worker, "exception", "work", f.Line("throw"))
				continueAlone(t, c, worker)
				expectExit(t, c, 0)
				out := c.Output("stdout")
				for _, want := range []string{"wrote 16\n", "caught\n", "result 16\n", "ticker done\n"} {
					if !strings.Contains(out, want) {
						t.Errorf("no %q in the output; it ends %q", want, out[max(0, len(out)-80):])
					}
				}
			}, withLaunch(map[string]any{"carriers": carriers}), withSetup(func(c *daptest.Client, f *fixture) {
				c.RequestWith("setFunctionBreakpoints", map[string]any{"breakpoints": []map[string]any{{"name": "work", "mode": "thread"}}})
				if r := daptest.ExpectResponse[*dap.SetFunctionBreakpointsResponse](t, c); !r.Body.Breakpoints[0].Verified {
					t.Fatalf("function breakpoint %+v", r.Body.Breakpoints)
				}
				c.RequestWith("setExceptionBreakpoints", map[string]any{"filters": []string{},
					"filterOptions": []map[string]any{{"filterId": "all", "mode": "thread"}}})
				daptest.ExpectResponse[*dap.SetExceptionBreakpointsResponse](t, c)
			}))
		})
	}
}
