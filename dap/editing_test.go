package dap

import (
	"sort"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// completions returns the labels offered for text with the cursor at its
// end.
func completions(t *testing.T, c *daptest.Client, text string, frameID int) []string {
	t.Helper()
	c.CompletionsRequest(text, len(text)+1, frameID)
	var out []string
	for _, it := range daptest.ExpectResponse[*dap.CompletionsResponse](t, c).Body.Targets {
		out = append(out, it.Label)
	}
	sort.Strings(out)
	return out
}

func has(list []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, l := range list {
			found = found || l == w
		}
		if !found {
			return false
		}
	}
	return true
}

func TestCompletions(t *testing.T) {
	runSession(t, "testdata/dap/editing.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("calls"))
		if got := completions(t, c, "b", top.Id); !has(got, "big") || has(got, "p") {
			t.Errorf("b: %v, want big and not p", got)
		}
		if got := completions(t, c, "p.", top.Id); !has(got, "sum", "x", "y", "toString") || has(got, "big") {
			t.Errorf("p.: %v, want the fields and methods of Point (and Object's)", got)
		}
		if got := completions(t, c, "1 + p.s", top.Id); strings.Join(got, " ") != "sum" {
			t.Errorf("1 + p.s: %v, want [sum]", got)
		}
		if got := completions(t, c, "tw", top.Id); strings.Join(got, " ") != "twice" {
			t.Errorf("tw: %v, want [twice]", got)
		}
		if got := completions(t, c, "Po", top.Id); strings.Join(got, " ") != "Point" {
			t.Errorf("Po: %v, want [Point]", got)
		}
		if got := completions(t, c, "d.cont", top.Id); !has(got, "containsKey") {
			t.Errorf("d.cont: %v, want containsKey (a Dict method)", got)
		}
		if got := completions(t, c, ":sch", top.Id); strings.Join(got, " ") != "sched" {
			t.Errorf(":sch: %v, want [sched]", got)
		}
		if got := completions(t, c, ":sched g", top.Id); strings.Join(got, " ") != "graph" {
			t.Errorf(":sched g: %v, want [graph]", got)
		}
		c.CompletionsRequest("p", 9, top.Id)
		c.ExpectErrorResponse(t, "completions")
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("calls"))
}

func TestSetExpressionAndHex(t *testing.T) {
	runSession(t, "testdata/dap/editing.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("calls"))
		for _, set := range []struct{ expr, value, want string }{
			{"p.x", "5", "5"},
			{"arr[1]", "arr[0] + 40", "41"},
			{`d["k"]`, "7", "7"},
			{"big", "big + 1", "256"},
		} {
			c.SetExpressionRequest(set.expr, set.value, top.Id)
			if r := daptest.ExpectResponse[*dap.SetExpressionResponse](t, c); r.Body.Value != set.want {
				t.Errorf("setExpression %s = %s: %q, want %q", set.expr, set.value, r.Body.Value, set.want)
			}
		}
		for _, bad := range []struct{ expr, value, want string }{
			{"p.nope", "1", "no field nope"},
			{"1 + 2", "3", "cannot assign"},
			{"arr[9]", "1", "no element [9]"},
			{"p.x", `"text"`, "string"},
		} {
			c.SetExpressionRequest(bad.expr, bad.value, top.Id)
			if e := c.ExpectErrorResponse(t, "setExpression"); !strings.Contains(e.Message, bad.want) {
				t.Errorf("setExpression %s = %s: %q, want it to say %q", bad.expr, bad.value, e.Message, bad.want)
			}
		}
		// hex: the value of an integer, in variables and evaluate
		c.Send(&dap.EvaluateRequest{Request: dap.Request{Command: "evaluate"}, Arguments: dap.EvaluateArguments{
			Expression: "big", FrameId: top.Id, Context: "watch", Format: &dap.ValueFormat{Hex: true}}})
		if r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c); r.Body.Result != "0x100" {
			t.Errorf("big in hex: %q", r.Body.Result)
		}
		ref := scopes(t, c, top.Id)["Locals"].VariablesReference
		c.Send(&dap.VariablesRequest{Request: dap.Request{Command: "variables"}, Arguments: dap.VariablesArguments{
			VariablesReference: ref, Format: &dap.ValueFormat{Hex: true}}})
		vars := map[string]string{}
		for _, v := range daptest.ExpectResponse[*dap.VariablesResponse](t, c).Body.Variables {
			vars[v.Name] = v.Value
		}
		if vars["big"] != "0x100" || !strings.HasPrefix(vars["p"], "Point") {
			t.Errorf("Locals in hex: %v", vars)
		}
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		continueToExit(t, c, 1, 0)
		if out := c.Output("stdout"); !strings.HasPrefix(out, "5 41 7 5 256\n") {
			t.Errorf("stdout %q", out)
		}
	}, withBreakpoints("calls"))
}

func TestBreakpointLocationsAndStepInTargets(t *testing.T) {
	runSession(t, "testdata/dap/editing.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("calls"))
		// the for header has three statements: init, test, update
		loop := f.Line("fail") - 2
		c.BreakpointLocationsRequest(f.Path, loop, 0)
		locs := daptest.ExpectResponse[*dap.BreakpointLocationsResponse](t, c).Body.Breakpoints
		if len(locs) != 3 || locs[0].Line != loop || !(locs[0].Column < locs[1].Column && locs[1].Column < locs[2].Column) {
			t.Errorf("locations on the for line: %+v", locs)
		}
		c.BreakpointLocationsRequest(f.Path, f.Line("calls"), f.Line("print"))
		if locs := daptest.ExpectResponse[*dap.BreakpointLocationsResponse](t, c).Body.Breakpoints; len(locs) != 2 {
			t.Errorf("locations on two one-statement lines: %+v", locs)
		}
		c.StepInTargetsRequest(top.Id)
		targets := daptest.ExpectResponse[*dap.StepInTargetsResponse](t, c).Body.Targets
		if len(targets) != 2 || targets[0].Label != "twice" || targets[1].Label != "inc" {
			t.Fatalf("stepInTargets: %+v", targets)
		}
		c.StepInTargetRequest(1, 999)
		c.ExpectErrorResponse(t, "stepIn")
		// into inc: twice runs to its return on the way
		c.StepInTargetRequest(1, targets[1].Id)
		daptest.ExpectResponse[*dap.StepInResponse](t, c)
		_, in := checkStop(t, c, 1, "inc", f.Line("inc"))
		if a := variables(t, c, scopes(t, c, in.Id)["Arguments"].VariablesReference)["a"]; a.Value != "2" {
			t.Errorf("inc's a = %s, want 2", a.Value)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("calls"))
}

func TestExceptionFiltersByClass(t *testing.T) {
	runSession(t, "testdata/dap/editing.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("calls"))
		c.SetExpressionRequest(`d["k"]`, "0", top.Id)
		daptest.ExpectResponse[*dap.SetExpressionResponse](t, c)
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		// an unknown class is refused and the filters stay as they were
		c.SetExceptionBreakpointsArgsRequest(dap.SetExceptionBreakpointsArguments{
			FilterOptions: []dap.ExceptionFilterOptions{{FilterId: "all", Condition: "Nope"}}})
		if r := daptest.ExpectResponse[*dap.SetExceptionBreakpointsResponse](t, c).Body.Breakpoints; len(r) != 1 || r[0].Verified || !strings.Contains(r[0].Message, "no class Nope") {
			t.Errorf("condition Nope: %+v", r)
		}
		// all exceptions, but only MyError and its subclasses: the plain
		// Exception (k = 0) passes, BadInput (k = 1) stops
		c.SetExceptionBreakpointsArgsRequest(dap.SetExceptionBreakpointsArguments{
			FilterOptions: []dap.ExceptionFilterOptions{{FilterId: "all", Condition: "MyError"}}})
		daptest.ExpectResponse[*dap.SetExceptionBreakpointsResponse](t, c)
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		stop := c.ExpectStoppedEvent(t)
		c.ExceptionInfoRequest(1)
		if info := daptest.ExpectResponse[*dap.ExceptionInfoResponse](t, c); stop.Body.Reason != "exception" || info.Body.ExceptionId != "BadInput" {
			t.Fatalf("stop %+v on %s, want BadInput", stop.Body, info.Body.ExceptionId)
		}
		if out := c.Output("stdout"); !strings.Contains(out, "caught plain\n") {
			t.Errorf("the plain Exception did not pass first: %q", out)
		}
		// exception options: break always on IndexOutOfBoundsException,
		// never on the rest
		c.SetExceptionBreakpointsArgsRequest(dap.SetExceptionBreakpointsArguments{
			Filters: []string{"all"},
			ExceptionOptions: []dap.ExceptionOptions{
				{Path: []dap.ExceptionPathSegment{{Names: []string{"IndexOutOfBoundsException"}}}, BreakMode: "always"},
				{Path: []dap.ExceptionPathSegment{{Names: []string{"Exception"}}}, BreakMode: "never"}}})
		daptest.ExpectResponse[*dap.SetExceptionBreakpointsResponse](t, c)
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		c.ExpectStoppedEvent(t)
		c.ExceptionInfoRequest(1)
		if info := daptest.ExpectResponse[*dap.ExceptionInfoResponse](t, c); info.Body.ExceptionId != "IndexOutOfBoundsException" {
			t.Fatalf("stopped on %s, want IndexOutOfBoundsException", info.Body.ExceptionId)
		}
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("calls"))
}
