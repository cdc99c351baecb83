package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/internal/testmode"
)

// The concurrency views with 100,000 threads, 1,000 of them leaked,
// through the DAP server in-process (the targets: 50 ms a request):
//
//	go test ./cmd/nlangdbg -run '^$' -bench 'Views100k' -benchtime 20x

// views100kSrc is the benchmarks' program (shared with the other
// package's views benchmarks).
func views100kSrc(b *testing.B) string {
	src, err := os.ReadFile("../../testdata/bench/views100k.n")
	if err != nil {
		b.Fatal(err)
	}
	return string(src)
}

// views100k stops the program above with its 100,000 threads parked.
// Its events (100,000 thread events) are read as they come, so that the
// client's event queue never holds up a response.
func views100k(b *testing.B) *dapClient {
	c := debugClient(b)
	stopped := make(chan bool, 1)
	go func() {
		first := true
		for m := range c.Events {
			_, stop := m.(*api.StoppedEvent)
			_, end := m.(*dap.TerminatedEvent)
			if first && (stop || end) {
				stopped <- stop
				first = false
			}
		}
	}()
	src := views100kSrc(b)
	stopLine := 1 + strings.Count(src[:strings.Index(src, "// @stop")], "\n")
	path := writeProg(b, src)
	if _, err := c.call(&dap.LaunchRequest{Request: request("launch"), Arguments: rawArgs(map[string]any{"program": path})}); err != nil {
		b.Fatal(err)
	}
	if _, err := c.call(&dap.SetBreakpointsRequest{Request: request("setBreakpoints"), Arguments: dap.SetBreakpointsArguments{
		Source: dap.Source{Path: path}, Breakpoints: []dap.SourceBreakpoint{{Line: stopLine}}}}); err != nil {
		b.Fatal(err)
	}
	if _, err := c.call(&dap.ConfigurationDoneRequest{Request: request("configurationDone")}); err != nil {
		b.Fatal(err)
	}
	if !<-stopped {
		b.Fatal("no stop")
	}
	return c
}

// BenchmarkLeaksViews100k: nlang/leaks (the reachability pass and the
// 1,000 threads it reports).
func BenchmarkLeaksViews100k(b *testing.B) {
	c := views100k(b)
	cpu := testmode.CPUTime()
	for b.Loop() {
		body, err := c.callCustom(api.CmdLeaks, api.LeaksArgs{})
		if err != nil {
			b.Fatal(err)
		}
		if n := len(body.(api.LeaksBody).Threads); n != 1000 {
			b.Fatalf("%d leaks", n)
		}
	}
	b.ReportMetric(float64(testmode.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkGroupsViews100k: nlang/threadGroups by function, by spawn
// site and by stack.
func BenchmarkGroupsViews100k(b *testing.B) {
	c := views100k(b)
	for _, by := range []string{api.GroupByFunction, api.GroupBySpawnSite, api.GroupByStack} {
		b.Run(by, func(b *testing.B) {
			cpu := testmode.CPUTime()
			for b.Loop() {
				body, err := c.callCustom(api.CmdThreadGroups, api.ThreadGroupsArgs{By: by})
				if err != nil {
					b.Fatal(err)
				}
				if g := body.(api.ThreadGroupsBody); g.Selected != 100001 || len(g.Groups) < 2 {
					b.Fatalf("%d threads in %d groups", g.Selected, len(g.Groups))
				}
			}
			b.ReportMetric(float64(testmode.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
