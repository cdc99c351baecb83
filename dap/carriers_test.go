package dap

import (
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// TestCarriersLaunchArg debugs on two carriers (the "carriers" launch
// argument): breakpoints stop every thread, a single-thread continue
// keeps the spinner frozen, and the program runs to its end.
func TestCarriersLaunchArg(t *testing.T) {
	runSession(t, "testdata/dap/steps.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("callwork"))
		c.ContinueRequest(1, true)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		checkStop(t, c, 1, "main", f.Line("after"))
		if strings.Contains(c.Output("stdout"), "spinner") {
			t.Errorf("the spinner ran during a single-thread continue")
		}
		continueToExit(t, c, 1, 0)
		if got := c.Output("stdout"); !strings.Contains(got, "12\n") || !strings.Contains(got, "spinner done\n") {
			t.Errorf("stdout %q", got)
		}
	}, withLaunch(map[string]any{"carriers": 2, "quota": 1}), withBreakpoints("callwork", "after"))
}
