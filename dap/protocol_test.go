package dap

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

func TestInitializeCapabilitiesAndSeq(t *testing.T) {
	c := startServer(t, nil)
	seq := c.InitializeRequest()
	r := daptest.ExpectResponse[*dap.InitializeResponse](t, c)
	if r.RequestSeq != seq || r.Seq != 1 {
		t.Errorf("initialize response: seq %d request_seq %d, want 1 and %d", r.Seq, r.RequestSeq, seq)
	}
	// initialized comes right after the response, numbered next.
	ev := daptest.Expect[*dap.InitializedEvent](t, c)
	if ev.Seq != 2 {
		t.Errorf("initialized seq %d, want 2", ev.Seq)
	}
	caps := r.Body
	for name, ok := range map[string]bool{
		"supportsConfigurationDoneRequest":      caps.SupportsConfigurationDoneRequest,
		"supportsFunctionBreakpoints":           caps.SupportsFunctionBreakpoints,
		"supportsConditionalBreakpoints":        caps.SupportsConditionalBreakpoints,
		"supportsHitConditionalBreakpoints":     caps.SupportsHitConditionalBreakpoints,
		"supportsLogPoints":                     caps.SupportsLogPoints,
		"supportsEvaluateForHovers":             caps.SupportsEvaluateForHovers,
		"supportsSetVariable":                   caps.SupportsSetVariable,
		"supportsExceptionInfoRequest":          caps.SupportsExceptionInfoRequest,
		"supportsTerminateRequest":              caps.SupportsTerminateRequest,
		"supportsRestartRequest":                caps.SupportsRestartRequest,
		"supportsSingleThreadExecutionRequests": caps.SupportsSingleThreadExecutionRequests,
		"supportsDelayedStackTraceLoading":      caps.SupportsDelayedStackTraceLoading,
		"supportsLoadedSourcesRequest":          caps.SupportsLoadedSourcesRequest,
		"supportsDisassembleRequest":            caps.SupportsDisassembleRequest,
		"supportsSteppingGranularity":           caps.SupportsSteppingGranularity,
		"supportsInstructionBreakpoints":        caps.SupportsInstructionBreakpoints,
		"supportsTerminateThreadsRequest":       caps.SupportsTerminateThreadsRequest,
		"supportsRestartFrame":                  caps.SupportsRestartFrame,
		"supportsGotoTargetsRequest":            caps.SupportsGotoTargetsRequest,
		"supportsDataBreakpoints":               caps.SupportsDataBreakpoints,
		"supportsCompletionsRequest":            caps.SupportsCompletionsRequest,
		"supportsSetExpression":                 caps.SupportsSetExpression,
		"supportsBreakpointLocationsRequest":    caps.SupportsBreakpointLocationsRequest,
		"supportsStepInTargetsRequest":          caps.SupportsStepInTargetsRequest,
		"supportsValueFormattingOptions":        caps.SupportsValueFormattingOptions,
		"supportsExceptionFilterOptions":        caps.SupportsExceptionFilterOptions,
		"supportsExceptionOptions":              caps.SupportsExceptionOptions,
		"supportsCancelRequest":                 caps.SupportsCancelRequest,
		"supportsStepBack":                      caps.SupportsStepBack,
	} {
		if !ok {
			t.Errorf("capability %s not advertised", name)
		}
	}
	for name, ok := range map[string]bool{
		"supportsReadMemoryRequest": caps.SupportsReadMemoryRequest,
		"supportsModulesRequest":    caps.SupportsModulesRequest,
	} {
		if ok {
			t.Errorf("capability %s advertised but not implemented", name)
		}
	}
	var filters []string
	for _, f := range caps.ExceptionBreakpointFilters {
		filters = append(filters, f.Filter)
	}
	if strings.Join(filters, ",") != "uncaught,all" {
		t.Errorf("exception filters %v, want [uncaught all]", filters)
	}

	// Lists are [], never null, even before launch.
	c.ThreadsRequest()
	th := daptest.ExpectResponse[*dap.ThreadsResponse](t, c)
	if b, _ := json.Marshal(th.Body); string(b) != `{"threads":[]}` {
		t.Errorf("threads before launch: %s, want an empty list", b)
	}
	c.LoadedSourcesRequest()
	ls := daptest.ExpectResponse[*dap.LoadedSourcesResponse](t, c)
	if b, _ := json.Marshal(ls.Body); string(b) != `{"sources":[]}` {
		t.Errorf("loadedSources before launch: %s, want an empty list", b)
	}

	// Every message so far is numbered 1, 2, 3, … in order.
	for i, m := range c.Transcript() {
		if m.GetSeq() != i+1 {
			t.Errorf("message %d has seq %d: %s", i, m.GetSeq(), daptest.Describe(m))
		}
	}
}

func TestBadMessagesKeepTheSessionGoing(t *testing.T) {
	srv := &Server{ReplCommands: func(expr string) (string, bool) {
		if expr == "boom" {
			panic("boom")
		}
		return "", false
	}}
	c := startServer(t, srv)
	c.Initialize(t)

	// Malformed JSON with intact framing.
	c.SendRaw(`{"seq": 40, "type": "request", "command": "threads", `)
	r := c.ExpectErrorResponse(t, "")
	if r.RequestSeq != 40 || !strings.Contains(r.Message, "malformed") {
		t.Errorf("malformed JSON: %+v", r.Response)
	}

	// JSON that is no DAP message.
	c.SendRaw(`{"seq": 42}`)
	if r := c.ExpectErrorResponse(t, ""); r.RequestSeq != 42 || r.Body.Error.Id != errMalformed {
		t.Errorf("not a message: %+v", r.Response)
	}
	c.SendRaw(`null`)
	c.ExpectErrorResponse(t, "")

	// An unknown command.
	seq := c.UnknownRequest("frobnicate")
	r = c.ExpectErrorResponse(t, "frobnicate")
	if r.RequestSeq != seq || r.Body.Error == nil || r.Body.Error.Id != errUnsupported {
		t.Errorf("unknown command: %+v %+v", r.Response, r.Body.Error)
	}

	// A protocol command this adapter does not implement.
	c.Send(&dap.StepBackRequest{Request: dap.Request{Command: "stepBack"}})
	c.ExpectErrorResponse(t, "stepBack")

	// Arguments of the wrong type.
	c.SendRaw(`{"seq": 41, "type": "request", "command": "continue", "arguments": {"threadId": "one"}}`)
	r = c.ExpectErrorResponse(t, "continue")
	if r.RequestSeq != 41 || r.Body.Error.Id != errBadArguments {
		t.Errorf("bad arguments: %+v %+v", r.Response, r.Body.Error)
	}

	// Arguments with a bad value.
	c.StackTraceRequest(1, -5, 1)
	c.ExpectErrorResponse(t, "stackTrace")
	c.LaunchRequest(map[string]any{"program": 42})
	c.ExpectErrorResponse(t, "launch")
	c.LaunchRequest(map[string]any{})
	if r := c.ExpectErrorResponse(t, "launch"); !strings.Contains(r.Message, `"program"`) {
		t.Errorf("launch without program: %s", r.Message)
	}
	c.SetExceptionBreakpointsRequest("sometimes")
	c.ExpectErrorResponse(t, "setExceptionBreakpoints")

	// A request that needs a program.
	c.ContinueRequest(1, false)
	c.ExpectErrorResponse(t, "continue")

	// A panic in a handler becomes an error response.
	c.EvaluateRequest("boom", 0, "repl")
	if r := c.ExpectErrorResponse(t, "evaluate"); r.Body.Error.Id != errInternal || !strings.Contains(r.Message, "boom") {
		t.Errorf("panic: %+v", r.Response)
	}

	// The session goes on.
	c.ThreadsRequest()
	daptest.ExpectResponse[*dap.ThreadsResponse](t, c)
	c.DisconnectRequest(false)
	daptest.ExpectResponse[*dap.DisconnectResponse](t, c)
	c.ExpectClosed(t)
}

func TestReplCommandsHook(t *testing.T) {
	srv := &Server{ReplCommands: func(expr string) (string, bool) {
		if expr == "help" {
			return "the commands", true
		}
		return "", false
	}}
	c := startServer(t, srv)
	c.Initialize(t)
	c.EvaluateRequest("help", 0, "repl")
	if r := daptest.ExpectResponse[*dap.EvaluateResponse](t, c); r.Body.Result != "the commands" {
		t.Errorf("repl command: %q", r.Body.Result)
	}
	// Only the repl context goes to the hook.
	c.EvaluateRequest("help", 0, "watch")
	c.ExpectErrorResponse(t, "evaluate")
}

func TestLaunchCompileError(t *testing.T) {
	f := loadFixture(t, "testdata/dap/compile_error.n")
	c := startServer(t, nil)
	c.Initialize(t)
	c.LaunchRequest(map[string]any{"program": f.Path})
	r := c.ExpectErrorResponse(t, "launch")
	want := f.Path + ":" + strconv.Itoa(f.Line("bad")) + ":13: cannot use string as int"
	if !strings.Contains(r.Message, want) || r.Body.Error == nil || r.Body.Error.Id != api.ErrCompile {
		t.Errorf("launch error %q, want it to contain %q", r.Message, want)
	}
	if !strings.Contains(r.Body.Error.Format, want) {
		t.Errorf("error body %q, want it to contain %q", r.Body.Error.Format, want)
	}
	// The session goes on: a fixed program launches.
	good := loadFixture(t, "testdata/dap/output.n")
	c.LaunchRequest(map[string]any{"program": good.Path})
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
	expectExit(t, c, 7)
}

func TestOutputOrderAndExitCode(t *testing.T) {
	runSession(t, "testdata/dap/output.n", func(c *daptest.Client, f *fixture) {
		var got []string
		for len(got) < 3 {
			o := c.ExpectOutputEvent(t, "")
			got = append(got, o.Body.Category+": "+o.Body.Output)
		}
		want := []string{"stdout: one\n", "stderr: two\n", "stdout: three\n"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("output %q, want %q", got, want)
		}
		expectExit(t, c, 7)
		c.DisconnectRequest(false)
		daptest.ExpectResponse[*dap.DisconnectResponse](t, c)
		c.ExpectClosed(t)
	})
}

func TestDisconnectTerminatesDebuggee(t *testing.T) {
	runSession(t, "testdata/dap/busy.n", func(c *daptest.Client, f *fixture) {
		c.DisconnectRequest(true)
		daptest.ExpectResponse[*dap.DisconnectResponse](t, c)
		// The program ends after the response, and the server hangs up.
		c.ExpectExitedEvent(t)
		c.ExpectTerminatedEvent(t)
		c.ExpectClosed(t)
	})
}

// TestEveryRequestIsAnswered sends each request that does not move the
// program with empty arguments, before launch and while stopped: each
// gets exactly one response, and nothing panics.
func TestEveryRequestIsAnswered(t *testing.T) {
	commands := []string{
		"threads", "stackTrace", "scopes", "variables", "evaluate", "setVariable", "source",
		"loadedSources", "exceptionInfo", "setBreakpoints", "setFunctionBreakpoints",
		"setExceptionBreakpoints", "breakpointLocations", "setDataBreakpoints",
		"dataBreakpointInfo", "setInstructionBreakpoints",
		"restartFrame", "goto", "gotoTargets", "stepInTargets", "completions", "modules",
		"setExpression", "readMemory", "writeMemory", "disassemble", "cancel",
		"terminateThreads", "runInTerminal", "startDebugging",
	}
	check := func(c *daptest.Client) {
		for i, cmd := range commands {
			for j, args := range []string{``, `, "arguments": {}`, `, "arguments": null`} {
				seq := 1000 + 10*i + j
				c.SendRaw(fmt.Sprintf(`{"seq": %d, "type": "request", "command": %q%s}`, seq, cmd, args))
				var r *dap.Response
				for r == nil {
					switch m := c.Next(t).(type) {
					case dap.ResponseMessage:
						r = m.GetResponse()
					case *dap.OutputEvent, *dap.ThreadEvent:
					default:
						t.Fatalf("%s: got %s", cmd, daptest.Describe(m))
					}
				}
				if r.RequestSeq != seq || r.Command != cmd {
					t.Errorf("%s: response %+v", cmd, r)
				}
				if r.Message == "" && !r.Success {
					t.Errorf("%s: an error without a message", cmd)
				}
			}
		}
	}
	runSession(t, "testdata/dap/basic.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("print"))
		check(c)
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("print"))
	c := startServer(t, nil)
	c.Initialize(t)
	check(c)
}
