package dap

import (
	"fmt"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// TestLogPointBurst: the lines of a log point hit in a hot loop may be
// batched into fewer output events, but every line arrives, in order,
// and before the stop that follows them.
func TestLogPointBurst(t *testing.T) {
	runSession(t, "testdata/dap/logburst.n", func(c *daptest.Client, f *fixture) {
		var out strings.Builder
		events := 0
		for {
			m := c.Next(t)
			if o, ok := m.(*dap.OutputEvent); ok && o.Body.Category == "console" {
				out.WriteString(o.Body.Output)
				events++
				continue
			}
			if _, ok := m.(*dap.StoppedEvent); ok {
				break
			}
		}
		var want strings.Builder
		for i := 0; i < 1000; i++ {
			fmt.Fprintf(&want, "i = %d\n", i)
		}
		if out.String() != want.String() {
			t.Fatalf("log output before the stop: %d bytes in %d events, want the 1000 lines in order", out.Len(), events)
		}
		if top := topFrame(t, c, 1); top.Line != f.Line("after") {
			t.Errorf("stopped at %d", top.Line)
		}
		continueToExit(t, c, 1, 0)
	}, withSetup(func(c *daptest.Client, f *fixture) {
		c.SetSourceBreakpointsRequest(f.Path, dap.SourceBreakpoint{Line: f.Line("log"), LogMessage: "i = {i}"},
			dap.SourceBreakpoint{Line: f.Line("after")})
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	}))
}
