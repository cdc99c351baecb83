package dap

import (
	"encoding/json"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// TestLocations (DAP 1.68): every local and field says where it is
// declared; a function value, a Thread, a Future, a Channel and a Mutex
// say where they come from (the function's declaration, the spawn, the
// construction), in variables and in evaluate; the locations request
// resolves each reference, and refuses one it never gave.
func TestLocations(t *testing.T) {
	runSession(t, "testdata/dap/values.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("look"))
		resolve := func(ref int) (string, int) {
			t.Helper()
			if ref == 0 {
				return "", 0
			}
			c.CustomRequest(api.CmdLocations, api.LocationsArgs{LocationReference: ref})
			var l api.LocationsBody
			c.ExpectCustomResponse(t, api.CmdLocations, &l)
			if l.Source == nil {
				t.Fatalf("location %d has no source", ref)
			}
			return l.Source.Path, l.Line
		}
		vars := func(ref int) map[string]api.Variable {
			t.Helper()
			c.VariablesRequest(ref, "", 0, 0)
			r := daptest.ExpectResponse[*dap.VariablesResponse](t, c)
			var body struct {
				Body api.VariablesResponseBody `json:"body"`
			}
			if err := json.Unmarshal(c.Raw(r), &body); err != nil {
				t.Fatal(err)
			}
			out := map[string]api.Variable{}
			for _, v := range body.Body.Variables {
				out[v.Name] = v
			}
			return out
		}
		locals := vars(scopes(t, c, top.Id)["Locals"].VariablesReference)
		for _, tc := range []struct{ name, decl, value string }{
			{"c", "makeChan", "makeChan"},
			{"t", "spawnT", "spawnT"},
			{"f", "spawnF", "spawnF"},
			{"m", "makeMutex", "makeMutex"},
			{"w", "funcVal", "worker"},
			{"b", "makeBox", ""},
		} {
			v, ok := locals[tc.name]
			if !ok {
				t.Fatalf("no local %s in %v", tc.name, locals)
			}
			if path, line := resolve(v.DeclarationLocationReference); path != f.Path || line != f.Line(tc.decl) {
				t.Errorf("%s declared at %s:%d, want line %d", tc.name, path, line, f.Line(tc.decl))
			}
			want := 0
			if tc.value != "" {
				want = f.Line(tc.value)
			}
			if _, line := resolve(v.ValueLocationReference); line != want {
				t.Errorf("%s's value comes from line %d, want %d", tc.name, line, want)
			}
		}
		// a field: declared in its class, its value made in main
		fields := vars(locals["b"].VariablesReference)
		if _, line := resolve(fields["ch"].DeclarationLocationReference); line != f.Line("fieldCh") {
			t.Errorf("b.ch declared at line %d, want %d", line, f.Line("fieldCh"))
		}
		if _, line := resolve(fields["ch"].ValueLocationReference); line != f.Line("makeChan") {
			t.Errorf("b.ch's value made at line %d, want %d", line, f.Line("makeChan"))
		}
		if fields["n"].ValueLocationReference != 0 {
			t.Errorf("an int has a value location: %+v", fields["n"])
		}
		// evaluate gives the value's location too
		c.EvaluateRequest("t", top.Id, "watch")
		r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c)
		var ev struct {
			Body api.EvaluateResponseBody `json:"body"`
		}
		json.Unmarshal(c.Raw(r), &ev)
		if _, line := resolve(ev.Body.ValueLocationReference); line != f.Line("spawnT") {
			t.Errorf("evaluate t: value from line %d, want %d", line, f.Line("spawnT"))
		}
		c.CustomRequest(api.CmdLocations, api.LocationsArgs{LocationReference: 9999})
		if e := c.ExpectErrorResponse(t, api.CmdLocations); !strings.Contains(e.Message, "unknown location reference 9999") {
			t.Errorf("bad reference: %q", e.Message)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("look"))
}
