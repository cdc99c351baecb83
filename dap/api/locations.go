package api

import "github.com/google/go-dap"

// DAP 1.68's locations, which go-dap does not know yet: a variable's
// declarationLocationReference (where the variable is declared) and
// valueLocationReference (where its value comes from: a function value's
// function, a thread's or future's spawn, a channel's or lock's
// construction), the same on evaluate's answer, and the locations
// request that resolves a reference to a source position.

// CmdLocations is the standard locations request. LocationsArgs →
// LocationsBody.
const CmdLocations = "locations"

// LocationsArgs name a location reference.
type LocationsArgs struct {
	LocationReference int `json:"locationReference"`
}

// LocationsBody is the position a location reference stands for.
type LocationsBody struct {
	Source    *dap.Source `json:"source"`
	Line      int         `json:"line"`
	Column    int         `json:"column,omitempty"`
	EndLine   int         `json:"endLine,omitempty"`
	EndColumn int         `json:"endColumn,omitempty"`
}

// Variable is DAP's Variable with its location references.
type Variable struct {
	dap.Variable
	DeclarationLocationReference int `json:"declarationLocationReference,omitempty"`
	ValueLocationReference       int `json:"valueLocationReference,omitempty"`
}

// VariablesResponse is DAP's variables response with Variable.
type VariablesResponse struct {
	dap.Response
	Body VariablesResponseBody `json:"body"`
}

// VariablesResponseBody lists the variables.
type VariablesResponseBody struct {
	Variables []Variable `json:"variables"`
}

// EvaluateResponse is DAP's evaluate response with the value's location.
type EvaluateResponse struct {
	dap.Response
	Body EvaluateResponseBody `json:"body"`
}

// EvaluateResponseBody is DAP's evaluate body with ValueLocationReference.
type EvaluateResponseBody struct {
	dap.EvaluateResponseBody
	ValueLocationReference int `json:"valueLocationReference,omitempty"`
}
