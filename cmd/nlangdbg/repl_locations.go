package main

import (
	"fmt"
	"path/filepath"

	"github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
)

// variablesAt returns the children of a variables reference with their
// location references (DAP 1.68).
func (r *repl) variablesAt(ref int) ([]api.Variable, error) {
	resp, err := r.c.call(&dap.VariablesRequest{Request: request("variables"), Arguments: dap.VariablesArguments{VariablesReference: ref}})
	if err != nil {
		return nil, err
	}
	return resp.(*api.VariablesResponse).Body.Variables, nil
}

// at renders where a location reference points ("  at prog.n:12"), or
// "" for none (0, or one the server cannot resolve).
func (r *repl) at(ref int) string {
	if ref == 0 {
		return ""
	}
	body, err := r.c.callCustom(api.CmdLocations, api.LocationsArgs{LocationReference: ref})
	if err != nil {
		return ""
	}
	l, ok := body.(api.LocationsBody)
	if !ok || l.Source == nil {
		return ""
	}
	name := l.Source.Name
	if name == "" {
		name = filepath.Base(l.Source.Path)
	}
	return fmt.Sprintf("  at %s:%d", name, l.Line)
}
