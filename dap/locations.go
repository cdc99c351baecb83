package dap

// DAP 1.68's locations: the variables and evaluate responses carry a
// declarationLocationReference (where a local, parameter or field is
// declared) and a valueLocationReference (where the value comes from: a
// function value's function, a Thread's or Future's spawn, a Channel's,
// Mutex's or Semaphore's construction), and the locations request turns
// a reference into a source position. go-dap does not know the request
// yet: it is decoded with the custom requests (custom.go).

import (
	"fmt"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/inspect"
)

// standardRequests are the handlers of the protocol's requests that
// go-dap does not decode, with the types of their arguments (as
// customRequests).
var standardRequests = map[string]struct {
	args func() any
	run  customHandler
}{}

func init() {
	standardRequests[api.CmdLocations] = struct {
		args func() any
		run  customHandler
	}{
		args: func() any { return new(api.LocationsArgs) },
		run:  func(c *session, a any) (any, error) { return c.locations(a.(api.LocationsArgs)) },
	}
}

// locationRef returns the location reference of p (0 if p is unknown).
// References are never reset: a place in the program stays one.
func (c *session) locationRef(p inspect.Place) int {
	if !p.Known() {
		return 0
	}
	return c.locs.add(p)
}

// locations answers the locations request.
func (c *session) locations(a api.LocationsArgs) (any, error) {
	p, ok := c.locs.get(a.LocationReference)
	if !ok {
		return nil, &reqError{errBadArguments, fmt.Sprintf("unknown location reference %d", a.LocationReference)}
	}
	return api.LocationsBody{Source: c.source(p.File), Line: p.Line, Column: p.Col}, nil
}
