package dap

import (
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// TestSetExpressionOnNull: assigning to a field or an element of a
// variable that holds null says that it is null, not that it is not an
// object.
func TestSetExpressionOnNull(t *testing.T) {
	runSession(t, "testdata/dap/editing.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("calls"))
		for _, set := range []string{"p", "arr"} {
			c.SetExpressionRequest(set, "null", top.Id)
			if r := daptest.ExpectResponse[*dap.SetExpressionResponse](t, c); r.Body.Value != "null" {
				t.Fatalf("setExpression %s = null: %q", set, r.Body.Value)
			}
		}
		for _, bad := range []struct{ expr, want string }{
			{"p.x", "cannot assign to p.x: p is null"},
			{"arr[0]", "cannot assign to arr[0]: arr is null"},
		} {
			c.SetExpressionRequest(bad.expr, "1", top.Id)
			if e := c.ExpectErrorResponse(t, "setExpression"); !strings.Contains(e.Message, bad.want) {
				t.Errorf("setExpression %s = 1: %q, want it to say %q", bad.expr, e.Message, bad.want)
			}
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("calls"))
}
