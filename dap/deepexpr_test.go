package dap

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// millionOnes is 1+1+…+1 with a million additions: 2 MB, under the 4 MiB
// limit of a message; halfMillion has half as many (a setBreakpoints
// request carries two).
// slowCompile bounds the wait for an answer that compiles megabytes (the
// race detector makes the compiler ten times slower).
const slowCompile = 5 * time.Minute

var (
	millionOnes = "1" + strings.Repeat("+1", 1_000_000)
	halfMillion = "1" + strings.Repeat("+1", 500_000)
)

// TestDeepExpressions: nothing a client sends can crash the server. An
// evaluate, a breakpoint condition and a log message holding a chain of
// half a million to a million operators compile (the compiler walks such chains
// with loops: the Go stack is limited to 64 MiB here, which a recursion
// per operator would pass), and an expression nested deeper than the
// parser allows is an error answer.
func TestDeepExpressions(t *testing.T) {
	old := debug.SetMaxStack(64 << 20)
	defer debug.SetMaxStack(old)
	deep := strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000)
	runSession(t, "testdata/dap/basic.n", func(c *daptest.Client, f *fixture) {
		// the condition n == 500001 - 499999 holds on the third call
		_, frame := checkStop(t, c, 1, "square", f.Line("square"))
		if got := evaluate(t, c, "n", frame.Id); got != "2" {
			t.Errorf("stopped with n = %s, want 2", got)
		}
		if got := evaluate(t, c, millionOnes+" + n", frame.Id); got != "1000003" {
			t.Errorf("evaluate of a million additions: %.100s, want 1000003", got)
		}
		c.EvaluateRequest(deep, frame.Id, "repl")
		if r := c.ExpectErrorResponse(t, "evaluate"); !strings.Contains(r.Message, "nested too deeply") {
			t.Errorf("evaluate of a deep expression: %.300q, want an error saying it is nested too deeply", r.Message)
		}
		continueToExit(t, c, 1, 0)
		if got, want := c.Output("console"), "total+500001 is 500001\ntotal+500001 is 500001\ntotal+500001 is 500002\n"; !strings.Contains(got, want) {
			t.Errorf("log point output %.300q, want %q", got, want)
		}
	}, withSetup(func(c *daptest.Client, f *fixture) {
		c.Timeout = slowCompile
		c.SetSourceBreakpointsRequest(f.Path,
			dap.SourceBreakpoint{Line: f.Line("loop"), LogMessage: "total+500001 is {total + " + halfMillion + "}"},
			dap.SourceBreakpoint{Line: f.Line("square"), Condition: "n == " + halfMillion + " - 499999"},
			dap.SourceBreakpoint{Line: f.Line("print"), Condition: deep})
		r := daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		if len(r.Body.Breakpoints) != 3 {
			t.Fatalf("breakpoints %+v", r.Body.Breakpoints)
		}
		if b := r.Body.Breakpoints; !b[0].Verified || !b[1].Verified {
			t.Errorf("breakpoints with half a million additions not verified: %.300s / %.300s", b[0].Message, b[1].Message)
		}
		if b := r.Body.Breakpoints[2]; b.Verified || !strings.Contains(b.Message, "nested too deeply") {
			t.Errorf("breakpoint with a deep condition: verified %v, %.300q; want refused as nested too deeply", b.Verified, b.Message)
		}
	}))
}

// TestLaunchLongProgram: a program whose expression is a chain of half a
// million operators launches and runs.
func TestLaunchLongProgram(t *testing.T) {
	old := debug.SetMaxStack(64 << 20)
	defer debug.SetMaxStack(old)
	path := filepath.Join(t.TempDir(), "long.n")
	src := "import io;\nint main() {\n    io.print(" + halfMillion + ");\n    return 0;\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, nil)
	c.Timeout = slowCompile
	c.Initialize(t)
	c.LaunchRequest(map[string]any{"program": path})
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
	expectExit(t, c, 0)
	if got := c.Output("stdout"); got != "500001\n" {
		t.Errorf("stdout %q, want 500001", got)
	}
}
