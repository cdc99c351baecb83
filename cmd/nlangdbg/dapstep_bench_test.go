package main

import (
	"testing"

	"github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
)

// BenchmarkNextStep measures one `next` over the DAP server: the request,
// the resume, the step to the next line, the response and the stopped
// event (what an editor waits for between two presses of F10).
func BenchmarkNextStep(b *testing.B) {
	path := writeProg(b, `int main() {
    long s = 0;
    while (true) {
        s += 1; // breakpoint
        s -= 1;
    }
    return 0;
}
`)
	c := debugClient(b)
	e := launchTo(b, c, path, 4)
	if e == nil {
		b.Fatal("no stop")
	}
	// the breakpoint stays on line 4: next alternates between 4 and 5
	tid := e.Body.ThreadId
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.call(&dap.NextRequest{Request: request("next"), Arguments: dap.NextArguments{ThreadId: tid}}); err != nil {
			b.Fatal(err)
		}
		for m := range c.Events {
			if _, ok := m.(*api.StoppedEvent); ok {
				break
			}
		}
	}
	b.StopTimer()
	c.call(&dap.TerminateRequest{Request: request("terminate")})
}

// BenchmarkLogpoint measures a log point hit: 100,000 hits of a
// breakpoint with a log message (`i = {i}`) on a loop's body. The
// figure is per hit, output to the client included.
func BenchmarkLogpoint(b *testing.B) {
	path := writeProg(b, `int main() {
    int s = 0;
    for (int i = 0; i < 100000; i += 1) {
        s += i; // logpoint
    }
    return 0;
}
`)
	for b.Loop() {
		c := debugClient(b)
		if _, err := c.call(&dap.LaunchRequest{Request: request("launch"), Arguments: rawArgs(map[string]any{"program": path})}); err != nil {
			b.Fatal(err)
		}
		if _, err := c.call(&dap.SetBreakpointsRequest{Request: request("setBreakpoints"), Arguments: dap.SetBreakpointsArguments{
			Source: dap.Source{Path: path}, Breakpoints: []dap.SourceBreakpoint{{Line: 4, LogMessage: "i = {i}"}}}}); err != nil {
			b.Fatal(err)
		}
		if _, err := c.call(&dap.ConfigurationDoneRequest{Request: request("configurationDone")}); err != nil {
			b.Fatal(err)
		}
		logs := 0
		for m := range c.Events {
			if o, ok := m.(*dap.OutputEvent); ok && o.Body.Category == "console" {
				logs++
			}
			if _, ok := m.(*dap.TerminatedEvent); ok {
				break
			}
		}
		if logs < 1 {
			b.Fatalf("%d log lines", logs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100000/1000, "µs/hit")
}
