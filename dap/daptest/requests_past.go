package daptest

import (
	"testing"

	"github.com/google/go-dap"
)

// InitializeWithProgress is Initialize for a client that reports
// progress (supportsProgressReporting): the server then sends progress
// events about long requests.
func (c *Client) InitializeWithProgress(t testing.TB) dap.Capabilities {
	t.Helper()
	c.Send(&dap.InitializeRequest{Request: req("initialize"), Arguments: dap.InitializeRequestArguments{
		ClientID: "daptest", AdapterID: "nlangdbg", PathFormat: "path",
		LinesStartAt1: true, ColumnsStartAt1: true,
		SupportsVariableType: true, SupportsVariablePaging: true, SupportsProgressReporting: true,
	}})
	r := ExpectResponse[*dap.InitializeResponse](t, c)
	c.ExpectInitializedEvent(t)
	return r.Body
}
