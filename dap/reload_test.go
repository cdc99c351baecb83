package dap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// reloadSession launches a copy of testdata/dap/reload.n (the tests edit
// it) from a client that handles the invalidated event, with line
// breakpoints at markers, and runs to the first stop.
func reloadSession(t *testing.T, markers ...string) (*daptest.Client, *fixture) {
	t.Helper()
	f := loadFixture(t, "testdata/dap/reload.n")
	f.Path = filepath.Join(t.TempDir(), "reload.n")
	if err := os.WriteFile(f.Path, []byte(f.Src), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, nil)
	c.Send(&dap.InitializeRequest{Request: dap.Request{ProtocolMessage: dap.ProtocolMessage{Type: "request"}, Command: "initialize"},
		Arguments: dap.InitializeRequestArguments{AdapterID: "nlangdbg", PathFormat: "path", LinesStartAt1: true, ColumnsStartAt1: true,
			SupportsInvalidatedEvent: true}})
	daptest.ExpectResponse[*dap.InitializeResponse](t, c)
	c.ExpectInitializedEvent(t)
	c.LaunchRequest(map[string]any{"program": f.Path})
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
	var lines []int
	for _, m := range markers {
		lines = append(lines, f.Line(m))
	}
	c.SetBreakpointsRequest(f.Path, lines...)
	daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
	return c, f
}

// editFixture replaces from by to in the copy the session debugs.
func editFixture(t *testing.T, f *fixture, from, to string) {
	t.Helper()
	src, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), from) {
		t.Fatalf("edit: no %q", from)
	}
	if err := os.WriteFile(f.Path, []byte(strings.Replace(string(src), from, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reload sends nlang/reload and returns its body; the stopped and
// invalidated events it causes follow the response.
func reload(t *testing.T, c *daptest.Client, args api.ReloadArgs) api.ReloadBody {
	t.Helper()
	c.CustomRequest(api.CmdReload, args)
	var b api.ReloadBody
	c.ExpectCustomResponse(t, api.CmdReload, &b)
	stop := c.ExpectStoppedEvent(t)
	if s := c.StopOf(stop); s == nil || s.Reload != b.Reload {
		t.Errorf("the stop after the reload: %+v", s)
	}
	inv := daptest.Expect[*dap.InvalidatedEvent](t, c)
	if strings.Join(areas(inv.Body.Areas), ",") != "threads,stacks,variables" {
		t.Errorf("invalidated: %+v", inv.Body)
	}
	return b
}

func areas(a []dap.InvalidatedAreas) []string {
	var out []string
	for _, x := range a {
		out = append(out, string(x))
	}
	return out
}

// TestReloadDAP: paused in f called from a loop, edit f, reload: the
// frame in f finishes on the old code (shown as such, in the old text),
// the next calls run the new code; restartFrame restarts it on the new
// code; the breakpoints in f still stop at their lines.
func TestReloadDAP(t *testing.T) {
	c, f := reloadSession(t, "f2")
	checkStop(t, c, 1, "f", f.Line("f2"))
	c.ContinueRequest(1, false)
	daptest.ExpectResponse[*dap.ContinueResponse](t, c)
	checkStop(t, c, 1, "f", f.Line("f2")) // f(1): y = 2
	editFixture(t, f, "y = y + 1; // @bp f2", "y = y + 100; // @bp f2")
	b := reload(t, c, api.ReloadArgs{})
	if b.Reload != 1 || strings.Join(b.Changed, ",") != "f" || len(b.Frames) != 1 || b.Frames[0].How != api.FrameOld || b.Frames[0].Function != "f" {
		t.Fatalf("reload: %+v", b)
	}
	frames := stack(t, c, 1)
	if frames[0].Name != "f [old code]" || frames[0].Source == nil || frames[0].Source.SourceReference == 0 || frames[1].Name != "main" {
		t.Fatalf("stack after the reload: %+v", frames)
	}
	c.SourceRequest(frames[0].Source.SourceReference, "")
	if text := daptest.ExpectResponse[*dap.SourceResponse](t, c).Body.Content; !strings.Contains(text, "y = y + 1;") {
		t.Errorf("the old frame's source: %q", text)
	}
	if y := evaluate(t, c, "y", frames[0].Id); y != "2" {
		t.Errorf("y = %s in the old frame", y)
	}
	c.RestartFrameRequest(frames[0].Id)
	daptest.ExpectResponse[*dap.RestartFrameResponse](t, c)
	stop := c.ExpectStoppedEvent(t)
	top := topFrame(t, c, 1)
	if stop.Body.Reason != "restart" || top.Name != "f" || top.Line != f.Line("f") || top.Source == nil || top.Source.Path != f.Path {
		t.Fatalf("after restartFrame: %+v in %+v", stop.Body, top)
	}
	// the breakpoint in f stops at its line (the new code)
	c.ContinueRequest(1, false)
	daptest.ExpectResponse[*dap.ContinueResponse](t, c)
	_, top = checkStop(t, c, 1, "f", f.Line("f2"))
	if y := evaluate(t, c, "y", top.Id); y != "2" {
		t.Errorf("y = %s", y)
	}
	finishWithout(t, c, f.Path, 0, "r 1\nr 102\nr 104\nr 106\ntotal 313\n")
}

// TestReloadDAPRefused: a file that does not compile, and an edit the
// running program cannot take, are error responses naming file:line:col;
// the session goes on with the old code.
func TestReloadDAPRefused(t *testing.T) {
	c, f := reloadSession(t, "add")
	checkStop(t, c, 1, "Acc.add", f.Line("add"))
	for _, e := range []struct{ from, to, want string }{
		{"y = y + 1;", "y = y + ;", "reload.n:11:13: expected expression, got ';'"},
		{"public int total;", "public long total;", "reload.n:4:17: cannot reload: field total of Acc changed its type from int to long"},
		{"public void add(int v) {", "public void add(int v, int w = 0) {", "reload.n:5:17: cannot reload: Acc.add has a frame on a thread's stack, and its signature changed"},
	} {
		editFixture(t, f, e.from, e.to)
		c.CustomRequest(api.CmdReload, api.ReloadArgs{})
		if r := c.ExpectErrorResponse(t, api.CmdReload); !strings.Contains(r.Message, e.want) {
			t.Errorf("reload of %q: %q, want %q", e.to, r.Message, e.want)
		}
		editFixture(t, f, e.to, e.from)
	}
	if top := topFrame(t, c, 1); top.Name != "Acc.add" {
		t.Errorf("after the refusals: %+v", top)
	}
	finishWithout(t, c, f.Path, 0, "r 1\nr 3\nr 5\nr 7\ntotal 16\n")
}

// TestReloadDAPNewFunctionAndField: the edited method calls a new
// function and writes a new field with an initialiser, which the live
// object gets; a breakpoint follows its line down; whatIf says what the
// edit changes.
func TestReloadDAPNewFunctionAndField(t *testing.T) {
	c, f := reloadSession(t, "print")
	checkStop(t, c, 1, "main", f.Line("print"))
	editFixture(t, f, "    public int total;\n", "    public int total;\n    public int calls = 1000;\n")
	editFixture(t, f, "total = total + v; // @bp add", "total = total + twice(v); calls = calls + 1; // @bp add")
	editFixture(t, f, "int f(int x) {", "int twice(int v) {\n    return 2 * v;\n}\nint f(int x) {")
	editFixture(t, f, `io.print("total " + acc.total);`, `report(acc);`)
	editFixture(t, f, "int main() {", "void report(Acc acc) {\n    io.print(\"total \" + acc.total + \" calls \" + acc.calls);\n}\nint main() {")
	c.CustomRequest(api.CmdWhatIf, api.WhatIfArgs{})
	var w api.WhatIfBody
	c.ExpectCustomResponse(t, api.CmdWhatIf, &w)
	if !w.Diverged || w.What != api.WhatOutput || w.Recorded != "total 16" || w.New != "total 32 calls 1004" {
		t.Errorf("whatIf: %+v", w)
	}
	b := reload(t, c, api.ReloadArgs{})
	if strings.Join(b.Added, ",") != "report,twice" || strings.Join(b.Changed, ",") != "Acc.add,main" || strings.Join(b.Fields, ",") != "Acc.calls" || b.Objects != 1 {
		t.Errorf("reload: %+v", b)
	}
	if len(b.Breakpoints) != 1 || b.Breakpoints[0].Line != f.Line("print")+7 {
		t.Errorf("the breakpoint at @print after the reload: %+v", b.Breakpoints)
	}
	frames := stack(t, c, 1)
	if frames[0].Name != "main [old code]" {
		t.Errorf("main after the reload: %+v", frames[0])
	}
	if calls := evaluate(t, c, "acc.calls", frames[0].Id); calls != "1000" {
		t.Errorf("acc.calls = %s", calls)
	}
	c.SetBreakpointsRequest(f.Path)
	daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	continueToExit(t, c, 1, 0)
	// main finishes on its old code: it prints the total itself
	if out := c.Output("stdout"); out != "r 1\nr 3\nr 5\nr 7\ntotal 31\n" {
		t.Errorf("stdout %q", out)
	}
}

// TestReloadDAPBreakpointOnDeletedLine: a breakpoint whose line the edit
// deleted is no longer placed (verified false, reason failed, why).
func TestReloadDAPBreakpointOnDeletedLine(t *testing.T) {
	c, f := reloadSession(t, "print", "f2")
	checkStop(t, c, 1, "f", f.Line("f2")) // f(0)
	c.ContinueRequest(1, false)
	daptest.ExpectResponse[*dap.ContinueResponse](t, c)
	checkStop(t, c, 1, "main", f.Line("print")) // f(0) done
	editFixture(t, f, "    y = y + 1; // @bp f2\n", "")
	b := reload(t, c, api.ReloadArgs{})
	var gone, moved *api.Breakpoint
	for i := range b.Breakpoints {
		switch {
		case !b.Breakpoints[i].Verified:
			gone = &b.Breakpoints[i]
		default:
			moved = &b.Breakpoints[i]
		}
	}
	if gone == nil || gone.Reason != "failed" || gone.Message != "line 11 was removed by the reload" || moved == nil || moved.Line != f.Line("print")-1 {
		t.Fatalf("breakpoints after the reload: %+v", b.Breakpoints)
	}
	c.ContinueRequest(1, false)
	daptest.ExpectResponse[*dap.ContinueResponse](t, c)
	checkStop(t, c, 1, "main", f.Line("print")-1)
	finishWithout(t, c, f.Path, 0, "r 1\nr 2\nr 4\nr 6\ntotal 13\n")
}

// TestReloadDAPDataBreakpoint: a data breakpoint on a field of a live
// object still stops after a reload, at a write of the new code.
func TestReloadDAPDataBreakpoint(t *testing.T) {
	c, f := reloadSession(t, "print")
	_, top := checkStop(t, c, 1, "main", f.Line("print"))
	acc := variables(t, c, scopes(t, c, top.Id)["Locals"].VariablesReference)["acc"]
	id, _ := dataID(t, c, acc.VariablesReference, "total", 0)
	setWatches(t, c, dap.DataBreakpoint{DataId: id, AccessType: "write"})
	c.SetBreakpointsRequest(f.Path)
	daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
	editFixture(t, f, "total = total + v; // @bp add", "total = total + v * 10; // @bp add")
	reload(t, c, api.ReloadArgs{})
	c.ContinueRequest(1, false)
	daptest.ExpectResponse[*dap.ContinueResponse](t, c)
	stop, top := checkStop(t, c, 1, "Acc.add", f.Line("add")+1)
	if stop.Body.Reason != "data breakpoint" || !strings.Contains(stop.Body.Description, "total changed from 1 to 31") {
		t.Errorf("stop after the reload: %+v", stop.Body)
	}
	c.SetDataBreakpointsRequest()
	daptest.ExpectResponse[*dap.SetDataBreakpointsResponse](t, c)
	continueToExit(t, c, 1, 0)
}

// TestReloadDAPSaveSendsBreakpoints: VS Code sends a file's breakpoints
// again when it is saved (sourceModified), before or after the
// extension's nlang/reload reaches the server; either way, clearing the
// file's breakpoints afterwards leaves no trap behind and the program
// runs to its end on the new code.
func TestReloadDAPSaveSendsBreakpoints(t *testing.T) {
	for _, order := range []string{"before", "after"} {
		t.Run(order, func(t *testing.T) {
			c, f := reloadSession(t, "f2")
			checkStop(t, c, 1, "f", f.Line("f2"))
			editFixture(t, f, "y = y + 1; // @bp f2", "y = y + 100; // @bp f2")
			resend := func() {
				c.Send(&dap.SetBreakpointsRequest{Request: dap.Request{ProtocolMessage: dap.ProtocolMessage{Type: "request"}, Command: "setBreakpoints"},
					Arguments: dap.SetBreakpointsArguments{Source: dap.Source{Path: f.Path}, Breakpoints: []dap.SourceBreakpoint{{Line: f.Line("f2")}}, SourceModified: true}})
				bp := daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
				if len(bp.Body.Breakpoints) != 1 || !bp.Body.Breakpoints[0].Verified {
					t.Fatalf("breakpoints sent again: %+v", bp.Body)
				}
			}
			if order == "before" {
				resend()
			}
			if b := reload(t, c, api.ReloadArgs{}); strings.Join(b.Changed, ",") != "f" {
				t.Fatalf("reload: %+v", b)
			}
			if order == "after" {
				resend()
			}
			finishWithout(t, c, f.Path, 0, "r 1\nr 102\nr 104\nr 106\ntotal 313\n")
		})
	}
}
