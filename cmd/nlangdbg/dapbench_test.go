package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-dap"

	dapserver "github.com/nlangdbg/nlangdbg/dap"
	"github.com/nlangdbg/nlangdbg/dap/api"
)

// Debugger benchmarks, through the DAP server in-process:
//
//	go test ./cmd/nlangdbg -run '^$' -bench 'Fib30|Debug|Threads100k|Stack100k' -benchtime 3x

// debugClient starts a DAP session on an in-process server.
func debugClient(b *testing.B) *dapClient {
	c1, c2 := net.Pipe()
	srv := &dapserver.Server{}
	go srv.ServeConn(c2)
	b.Cleanup(func() { c1.Close() })
	c := newDAPClient(c1, c1)
	if _, err := c.call(&dap.InitializeRequest{Request: request("initialize"), Arguments: dap.InitializeRequestArguments{AdapterID: "nlang", LinesStartAt1: true, ColumnsStartAt1: true}}); err != nil {
		b.Fatal(err)
	}
	return c
}

// launchTo launches path with one breakpoint at line (0: none) and waits
// for the first stop or the end; it returns the stopped event (or nil).
func launchTo(b *testing.B, c *dapClient, path string, line int) *api.StoppedEvent {
	if _, err := c.call(&dap.LaunchRequest{Request: request("launch"), Arguments: rawArgs(map[string]any{"program": path})}); err != nil {
		b.Fatal(err)
	}
	if line > 0 {
		if _, err := c.call(&dap.SetBreakpointsRequest{Request: request("setBreakpoints"), Arguments: dap.SetBreakpointsArguments{
			Source: dap.Source{Path: path}, Breakpoints: []dap.SourceBreakpoint{{Line: line}}}}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := c.call(&dap.ConfigurationDoneRequest{Request: request("configurationDone")}); err != nil {
		b.Fatal(err)
	}
	for m := range c.Events {
		switch e := m.(type) {
		case *api.StoppedEvent: // (the client decodes nlangdbg's stopped events)
			return e
		case *dap.TerminatedEvent:
			return nil
		}
	}
	return nil
}

func writeProg(b *testing.B, src string) string {
	path := filepath.Join(b.TempDir(), "prog.n")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkFib30Debug runs fib(30) under the debugger with a breakpoint
// on a line it never reaches; compare with BenchmarkFib30.
func BenchmarkFib30Debug(b *testing.B) {
	src, err := os.ReadFile("../../testdata/bench/fib.n")
	if err != nil {
		b.Fatal(err)
	}
	// a line never reached: a function nobody calls
	path := writeProg(b, string(src)+"int never() {\n    return 1;\n}\n")
	line := strings.Count(string(src), "\n") + 2
	for b.Loop() {
		c := debugClient(b)
		if e := launchTo(b, c, path, line); e != nil {
			b.Fatalf("stopped: %+v", e.Body)
		}
	}
}

// BenchmarkThreads100k measures a threads request with 100,000 live
// threads (the response is capped at 1,000 threads).
func BenchmarkThreads100k(b *testing.B) {
	path := writeProg(b, `import thread;
void waiter(Channel<int> c) {
    c.recv();
}
int main() {
    Channel<int> c = {};
    for (int i = 0; i < 100000; i += 1) {
        thread.spawn(waiter, c);
    }
    thread.yield();
    int stop = 1; // breakpoint
    return stop;
}
`)
	c := debugClient(b)
	if e := launchTo(b, c, path, 11); e == nil {
		b.Fatal("no stop")
	}
	b.ResetTimer()
	for b.Loop() {
		resp, err := c.call(&dap.ThreadsRequest{Request: request("threads")})
		if err != nil {
			b.Fatal(err)
		}
		if n := len(resp.(*dap.ThreadsResponse).Body.Threads); n < 1000 {
			b.Fatalf("%d threads listed", n)
		}
	}
}

// BenchmarkStack100k measures stackTrace pages of a 100,000-deep stack.
func BenchmarkStack100k(b *testing.B) {
	path := writeProg(b, `int down(int n) {
    if (n == 0) {
        return 0; // breakpoint
    }
    return down(n - 1) + 1;
}
int main() {
    return down(100000) - 100000;
}
`)
	c := debugClient(b)
	e := launchTo(b, c, path, 3)
	if e == nil {
		b.Fatal("no stop")
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := (i * 997) % 100000
		resp, err := c.call(&dap.StackTraceRequest{Request: request("stackTrace"), Arguments: dap.StackTraceArguments{ThreadId: e.Body.ThreadId, StartFrame: start, Levels: 20}})
		if err != nil {
			b.Fatal(err)
		}
		if body := resp.(*dap.StackTraceResponse).Body; body.TotalFrames != 100002 || len(body.StackFrames) != 20 {
			b.Fatalf("total %d, %d frames", body.TotalFrames, len(body.StackFrames))
		}
	}
}

// BenchmarkThreadsWhileRunning measures a threads request while 11 busy
// threads run: the list is current (names, functions), at the cost of
// holding the scheduler between two dispatches.
func BenchmarkThreadsWhileRunning(b *testing.B) {
	path := writeProg(b, `import thread;
void spin() {
    long n = 0;
    while (true) {
        n += 1;
    }
}
int main() {
    for (int i = 0; i < 10; i += 1) {
        thread.spawn(spin);
    }
    spin();
    return 0;
}
`)
	c := debugClient(b)
	if _, err := c.call(&dap.LaunchRequest{Request: request("launch"), Arguments: rawArgs(map[string]any{"program": path})}); err != nil {
		b.Fatal(err)
	}
	if _, err := c.call(&dap.ConfigurationDoneRequest{Request: request("configurationDone")}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		resp, err := c.call(&dap.ThreadsRequest{Request: request("threads")})
		if err != nil {
			b.Fatal(err)
		}
		if ths := resp.(*dap.ThreadsResponse).Body.Threads; len(ths) != 11 || !strings.Contains(ths[0].Name, "main") {
			b.Fatalf("threads while running: %+v", ths)
		}
	}
	b.StopTimer()
	c.call(&dap.TerminateRequest{Request: request("terminate")})
}
