package dap

import (
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

func TestCancel(t *testing.T) {
	runSession(t, "testdata/dap/slow.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("start"))
		// an evaluation that would run for a minute (each of its 100,000
		// reductions rewrites a megabyte), cancelled while it runs
		eval := c.EvaluateRequest("slow(20)", top.Id, "repl")
		c.CancelRequest(eval)
		if e := c.ExpectErrorResponse(t, "evaluate"); e.Message != "cancelled" || e.RequestSeq != eval {
			t.Errorf("the evaluation: %+v, want cancelled", e.Response)
		}
		daptest.ExpectResponse[*dap.CancelResponse](t, c)
		// a request waiting behind it is cancelled before it runs
		eval = c.EvaluateRequest("slow(20)", top.Id, "repl")
		st := c.StackTraceRequest(1, 0, 0)
		c.CancelRequest(st)
		c.CancelRequest(eval)
		if e := c.ExpectErrorResponse(t, "evaluate"); e.Message != "cancelled" {
			t.Errorf("the evaluation: %q", e.Message)
		}
		if e := c.ExpectErrorResponse(t, "stackTrace"); e.Message != "cancelled" || e.RequestSeq != st {
			t.Errorf("the stack trace: %+v", e.Response)
		}
		daptest.ExpectResponse[*dap.CancelResponse](t, c)
		daptest.ExpectResponse[*dap.CancelResponse](t, c)
		// the session goes on; a cancel of a request that is over is answered
		if r := evaluate(t, c, "2 + 3", top.Id); r != "5" {
			t.Errorf("2 + 3 = %s", r)
		}
		c.CancelRequest(eval)
		daptest.ExpectResponse[*dap.CancelResponse](t, c)
		// a disconnect cuts a long evaluation short
		c.EvaluateRequest("slow(20)", top.Id, "repl")
		c.DisconnectRequest(true)
		if e := c.ExpectErrorResponse(t, "evaluate"); e.Message != "cancelled" {
			t.Errorf("the evaluation before a disconnect: %q", e.Message)
		}
		daptest.ExpectResponse[*dap.DisconnectResponse](t, c)
	}, withBreakpoints("start"))
}
