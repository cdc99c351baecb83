package dap

import (
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// TestEvaluateHeapBudget: an evaluation that allocates in a loop is
// stopped by its memory budget (the step limit alone would let it take
// gigabytes), the error says so, and the session goes on.
func TestEvaluateHeapBudget(t *testing.T) {
	runSession(t, "testdata/dap/hog.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("start"))
		c.EvaluateRequest("hog(50000)", top.Id, "repl")
		r := c.ExpectErrorResponse(t, "evaluate")
		if !strings.Contains(r.Message, "OutOfMemoryException") || !strings.Contains(r.Message, "budget of 64MiB") {
			t.Errorf("evaluate hog(50000): %q", r.Message)
		}
		c.EvaluateRequest("hog(3)", top.Id, "repl")
		if r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c); r.Body.Result != "3" {
			t.Errorf("hog(3) = %q", r.Body.Result)
		}
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("start"))
}

// TestLaunchMaxHeap: a launched program's heap is bounded by maxHeap: a
// growing Dict throws OutOfMemoryException as it crosses the limit.
func TestLaunchMaxHeap(t *testing.T) {
	runSession(t, "testdata/dap/hog.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("start"))
		c.EvaluateRequest("hog(20)", top.Id, "repl") // 48 MB: within the budget, over the heap
		r := c.ExpectErrorResponse(t, "evaluate")
		if !strings.Contains(r.Message, "OutOfMemoryException") || !strings.Contains(r.Message, "heap limit of 32MiB") {
			t.Errorf("evaluate hog(20) under maxHeap 32MiB: %q", r.Message)
		}
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("start"), withLaunch(map[string]any{"maxHeap": "32MiB"}))
}
