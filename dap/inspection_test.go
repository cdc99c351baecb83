package dap

import (
	"fmt"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

func TestStackTracePagingDeepRecursion(t *testing.T) {
	runSession(t, "testdata/dap/deep.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "down", f.Line("bottom"))
		const total = 100000 + 2 // down(100000)…down(0) and main
		// The first page, as an editor asks for it.
		c.StackTraceRequest(1, 0, 20)
		r := daptest.ExpectResponse[*dap.StackTraceResponse](t, c)
		if len(r.Body.StackFrames) != 20 || r.Body.TotalFrames != total {
			t.Fatalf("first page: %d frames, total %d; want 20 of %d", len(r.Body.StackFrames), r.Body.TotalFrames, total)
		}
		// The last page.
		c.StackTraceRequest(1, total-2, 20)
		r = daptest.ExpectResponse[*dap.StackTraceResponse](t, c)
		if n := len(r.Body.StackFrames); n != 2 || r.Body.StackFrames[1].Name != "main" || r.Body.TotalFrames != total {
			t.Fatalf("last page: %+v", r.Body)
		}
		// "All frames" is still a page, not 100,000 frames.
		c.StackTraceRequest(1, 0, 0)
		r = daptest.ExpectResponse[*dap.StackTraceResponse](t, c)
		if n := len(r.Body.StackFrames); n == 0 || n > maxStackFrames || r.Body.TotalFrames != total {
			t.Fatalf("levels 0: %d frames, total %d", n, r.Body.TotalFrames)
		}
		// A frame deep in the stack has its own scopes.
		c.StackTraceRequest(1, 50000, 1)
		r = daptest.ExpectResponse[*dap.StackTraceResponse](t, c)
		fr := r.Body.StackFrames[0]
		args := variables(t, c, scopes(t, c, fr.Id)["Arguments"].VariablesReference)
		if args["n"].Value != "50000" {
			t.Errorf("frame 50000: n = %q, want 50000", args["n"].Value)
		}
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("bottom"))
}

func TestScopesAndVariables(t *testing.T) {
	runSession(t, "testdata/dap/basic.n", func(c *daptest.Client, f *fixture) {
		// In a method: "this" holds the fields.
		_, top := checkStop(t, c, 1, "Point.sum", f.Line("sum"))
		sc := scopes(t, c, top.Id)
		for _, name := range []string{"Locals", "Arguments", "this"} {
			if _, ok := sc[name]; !ok {
				t.Fatalf("scopes %v, want %s", sc, name)
			}
		}
		if sc["Locals"].PresentationHint != "locals" || sc["Arguments"].PresentationHint != "arguments" {
			t.Errorf("scope hints: %+v", sc)
		}
		this := variables(t, c, sc["this"].VariablesReference)
		if this["x"].Value != "3" || this["y"].Value != "4" || this["x"].Type != "int" {
			t.Errorf("this: %+v", this)
		}
		// The caller's frame: locals, an object and a list.
		c.StackTraceRequest(1, 1, 1)
		caller := daptest.ExpectResponse[*dap.StackTraceResponse](t, c).Body.StackFrames[0]
		if caller.Name != "main" || caller.Line != f.Line("call") {
			t.Fatalf("caller %+v", caller)
		}
		locals := variables(t, c, scopes(t, c, caller.Id)["Locals"].VariablesReference)
		if locals["total"].Value != "5" {
			t.Errorf("total = %q, want 5", locals["total"].Value)
		}
		p := locals["p"]
		if p.VariablesReference == 0 || p.Type != "Point" {
			t.Fatalf("p: %+v", p)
		}
		fields := variables(t, c, p.VariablesReference)
		if fields["x"].Value != "3" || fields["y"].Value != "4" {
			t.Errorf("p's fields: %+v", fields)
		}
		xs := locals["xs"]
		if xs.IndexedVariables != 3 || xs.VariablesReference == 0 {
			t.Fatalf("xs: %+v", xs)
		}
		// Paging and filters.
		c.VariablesRequest(xs.VariablesReference, "indexed", 1, 2)
		page := daptest.ExpectResponse[*dap.VariablesResponse](t, c).Body.Variables
		if len(page) != 2 || page[0].Name != "[1]" || page[0].Value != "20" || page[1].Value != "30" {
			t.Errorf("xs[1:3]: %+v", page)
		}
		c.VariablesRequest(xs.VariablesReference, "named", 0, 0)
		if named := daptest.ExpectResponse[*dap.VariablesResponse](t, c).Body.Variables; len(named) != 0 {
			t.Errorf("named children of a list: %+v", named)
		}
		// References expire when the program resumes.
		c.NextRequest(1, false)
		daptest.ExpectResponse[*dap.NextResponse](t, c)
		c.ExpectStoppedEvent(t)
		c.VariablesRequest(p.VariablesReference, "", 0, 0)
		c.ExpectErrorResponse(t, "variables")
		c.ScopesRequest(caller.Id)
		c.ExpectErrorResponse(t, "scopes")
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("sum"))
}

func TestEvaluate(t *testing.T) {
	runSession(t, "testdata/dap/basic.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("print"))
		for _, tc := range []struct{ expr, ctx, want string }{
			{"total * 2", "watch", "10"},
			{"p.x + p.y", "hover", "7"},
			{"s", "repl", "7"},
			{"total", "clipboard", "5"},
		} {
			c.EvaluateRequest(tc.expr, top.Id, tc.ctx)
			if r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c); r.Body.Result != tc.want {
				t.Errorf("%s (%s) = %q, want %q", tc.expr, tc.ctx, r.Body.Result, tc.want)
			}
		}
		// Without a frame: the stopped thread's top frame.
		c.EvaluateRequest("total", 0, "watch")
		if r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c); r.Body.Result != "5" {
			t.Errorf("total = %q", r.Body.Result)
		}
		// An object value can be expanded.
		c.EvaluateRequest("p", top.Id, "watch")
		p := daptest.ExpectResponse[*dap.EvaluateResponse](t, c)
		if p.Body.VariablesReference == 0 || variables(t, c, p.Body.VariablesReference)["y"].Value != "4" {
			t.Errorf("p: %+v", p.Body)
		}
		// Errors answer the request; the session goes on.
		c.EvaluateRequest("nosuchname", top.Id, "watch")
		c.ExpectErrorResponse(t, "evaluate")
		c.EvaluateRequest("total", 12345, "watch")
		c.ExpectErrorResponse(t, "evaluate")
		// Debugger commands travel as repl expressions with a ':'.
		c.EvaluateRequest(":help", top.Id, "repl")
		if r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c); !strings.Contains(r.Body.Result, "sched") {
			t.Errorf(":help = %q", r.Body.Result)
		}
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("print"))
}

func TestSetVariableChangesOutput(t *testing.T) {
	runSession(t, "testdata/dap/basic.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("print"))
		sc := scopes(t, c, top.Id)
		c.SetVariableRequest(sc["Locals"].VariablesReference, "total", "40 + 2")
		r := daptest.ExpectResponse[*dap.SetVariableResponse](t, c)
		if r.Body.Value != "42" {
			t.Errorf("setVariable: %+v", r.Body)
		}
		// A field, through the object's reference.
		p := variables(t, c, sc["Locals"].VariablesReference)["p"]
		c.SetVariableRequest(p.VariablesReference, "x", "100")
		daptest.ExpectResponse[*dap.SetVariableResponse](t, c)
		c.SetVariableRequest(sc["Locals"].VariablesReference, "total", `"text"`)
		c.ExpectErrorResponse(t, "setVariable")
		continueToExit(t, c, 1, 0)
		if got := c.Output("stdout"); got != "total 42\nsum 7 first 10\n" {
			t.Errorf("stdout %q", got)
		}
	}, withBreakpoints("print"))
}

func TestSourceAndLoadedSources(t *testing.T) {
	runSession(t, "testdata/dap/basic.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("print"))
		c.LoadedSourcesRequest()
		ls := daptest.ExpectResponse[*dap.LoadedSourcesResponse](t, c)
		if len(ls.Body.Sources) != 1 || ls.Body.Sources[0].Path != f.Path {
			t.Errorf("loadedSources %+v", ls.Body.Sources)
		}
		c.SourceRequest(0, f.Path)
		if r := daptest.ExpectResponse[*dap.SourceResponse](t, c); r.Body.Content != f.Src {
			t.Errorf("source by path: %d bytes, want %d", len(r.Body.Content), len(f.Src))
		}
		c.SourceRequest(77, "")
		c.ExpectErrorResponse(t, "source")
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("print"))
}

func TestThreadsAreCapped(t *testing.T) {
	runSession(t, "testdata/dap/many.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("spawned"))
		// Look at a thread the cap would leave out.
		const focused = 1090
		top := topFrame(t, c, focused)
		if top.Name != "wait" {
			t.Errorf("thread %d is in %s", focused, top.Name)
		}
		c.ThreadsRequest()
		th := daptest.ExpectResponse[*dap.ThreadsResponse](t, c).Body.Threads
		if len(th) != maxThreads {
			t.Fatalf("%d threads listed, want %d", len(th), maxThreads)
		}
		ids := map[int]bool{}
		for _, x := range th {
			ids[x.Id] = true
		}
		if !ids[1] || !ids[focused] {
			t.Errorf("the stopped thread or the focused one is missing")
		}
		note := c.ExpectOutputEvent(t, "console")
		if !strings.Contains(note.Body.Output, fmt.Sprintf("showing %d of 1101 threads", maxThreads)) {
			t.Errorf("note %q", note.Body.Output)
		}
		if want := fmt.Sprintf("[%d] thread-%d · wait · chan recv", focused, focused); !hasThread(th, want) {
			t.Errorf("no thread named %q", want)
		}
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("spawned"))
}

func hasThread(ts []dap.Thread, name string) bool {
	for _, x := range ts {
		if x.Name == name {
			return true
		}
	}
	return false
}

func TestLibrarySourceByReference(t *testing.T) {
	runSession(t, "testdata/dap/waitgroup.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 2, "worker", f.Line("work"))
		// Main waits inside the library's WaitGroup, written in NLang.
		c.StackTraceRequest(1, 0, 0)
		frames := daptest.ExpectResponse[*dap.StackTraceResponse](t, c).Body.StackFrames
		if len(frames) < 2 || frames[len(frames)-1].Name != "main" {
			t.Fatalf("main's stack %+v", frames)
		}
		lib := frames[0].Source
		if lib == nil || lib.SourceReference == 0 || lib.Path != "" || !strings.HasPrefix(lib.Name, "<") {
			t.Fatalf("library frame %+v source %+v", frames[0], lib)
		}
		c.SourceRequest(lib.SourceReference, "")
		if r := daptest.ExpectResponse[*dap.SourceResponse](t, c); !strings.Contains(r.Body.Content, "class WaitGroup") {
			t.Errorf("library source %q…", r.Body.Content[:min(len(r.Body.Content), 80)])
		}
		c.ThreadsRequest()
		for _, th := range daptest.ExpectResponse[*dap.ThreadsResponse](t, c).Body.Threads {
			if th.Id == 1 && !strings.Contains(th.Name, "WaitGroup.wait") {
				t.Errorf("main is %q", th.Name)
			}
		}
		continueToExit(t, c, 2, 0)
	}, withBreakpoints("work"))
}
