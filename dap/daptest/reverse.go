package daptest

import dap "github.com/google/go-dap"

// StepBackRequest sends stepBack.
func (c *Client) StepBackRequest(threadID int) int {
	return c.Send(&dap.StepBackRequest{Request: req("stepBack"), Arguments: dap.StepBackArguments{ThreadId: threadID}})
}

// ReverseContinueRequest sends reverseContinue.
func (c *Client) ReverseContinueRequest(threadID int) int {
	return c.Send(&dap.ReverseContinueRequest{Request: req("reverseContinue"),
		Arguments: dap.ReverseContinueArguments{ThreadId: threadID}})
}
