package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/google/go-dap"
)

// The debugger's hot paths, measured the way an editor meets them: the
// real binary (`nlangdbg dap`, built from ../ once) driven over stdio by
// a small DAP client.

// debuggerFigures are the debugger's measurements (medians).
type debuggerFigures struct {
	Bin         string  // the binary measured
	NextUS      float64 // one `next`: request to the stopped event
	LogpointUS  float64 // one log point hit (100,000 hits, output included)
	CondUS      float64 // one evaluation of a false condition (100,000 hits)
	Threads100k float64 // ms for a threads request with 100,000 live threads
}

// stdioClient is a DAP client of one adapter process.
type stdioClient struct {
	cmd    *exec.Cmd
	w      io.WriteCloser
	r      *bufio.Reader
	seq    int
	events []dap.Message
}

func startAdapter(bin string) (*stdioClient, error) {
	cmd := exec.Command(bin, "dap")
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &stdioClient{cmd: cmd, w: w, r: bufio.NewReader(r)}
	_, err = c.call("initialize", map[string]any{"adapterID": "nlang", "linesStartAt1": true, "columnsStartAt1": true})
	return c, err
}

func (c *stdioClient) close() {
	c.w.Close()
	c.cmd.Process.Kill()
	c.cmd.Wait()
}

// send writes a request.
func (c *stdioClient) send(command string, args any) error {
	c.seq++
	msg := map[string]any{"seq": c.seq, "type": "request", "command": command}
	if args != nil {
		msg["arguments"] = args
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(b), b)
	return err
}

// call sends a request and reads up to its response (events on the way
// are kept).
func (c *stdioClient) call(command string, args any) (dap.Message, error) {
	if err := c.send(command, args); err != nil {
		return nil, err
	}
	for {
		m, err := dap.ReadProtocolMessage(c.r)
		if err != nil {
			return nil, err
		}
		if r, ok := m.(dap.ResponseMessage); ok && r.GetResponse().RequestSeq == c.seq {
			if !r.GetResponse().Success {
				return nil, fmt.Errorf("%s: %s", command, r.GetResponse().Message)
			}
			return m, nil
		}
		if _, ok := m.(dap.EventMessage); ok {
			c.events = append(c.events, m)
		}
	}
}

// until reads messages until one satisfies stop.
func (c *stdioClient) until(stop func(dap.Message) bool) error {
	for i := 0; i < len(c.events); i++ {
		if stop(c.events[i]) {
			c.events = c.events[i+1:]
			return nil
		}
	}
	c.events = nil
	for {
		m, err := dap.ReadProtocolMessage(c.r)
		if err != nil {
			return err
		}
		if stop(m) {
			return nil
		}
	}
}

func isStopped(m dap.Message) bool    { _, ok := m.(*dap.StoppedEvent); return ok }
func isTerminated(m dap.Message) bool { _, ok := m.(*dap.TerminatedEvent); return ok }

// launch starts path with breakpoints (line -> log message or condition
// spec) and waits for the first stop (if wantStop).
func (c *stdioClient) launch(path string, bps []dap.SourceBreakpoint, wantStop bool) error {
	if _, err := c.call("launch", map[string]any{"program": path}); err != nil {
		return err
	}
	if len(bps) > 0 {
		if _, err := c.call("setBreakpoints", dap.SetBreakpointsArguments{Source: dap.Source{Path: path}, Breakpoints: bps}); err != nil {
			return err
		}
	}
	if _, err := c.call("configurationDone", nil); err != nil {
		return err
	}
	if wantStop {
		return c.until(isStopped)
	}
	return nil
}

const hotLoop = `int main() {
    int s = 0;
    for (int i = 0; i < 100000; i += 1) {
        s += i; // line 4
    }
    return 0;
}
`

// measureDebugger takes the figures of each binary in bins (or, if bins
// is empty, of one built from ../), each the median of rounds runs; with
// several binaries every round measures each of them in turn, so that
// they meet the same load.
func measureDebugger(rounds int, bins []string) ([]debuggerFigures, error) {
	dir, err := os.MkdirTemp("", "nlangdbg-bench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if len(bins) == 0 {
		bin := filepath.Join(dir, "nlangdbg")
		build := exec.Command("go", "build", "-o", bin, "./cmd/nlangdbg")
		build.Dir = ".."
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return nil, fmt.Errorf("building nlangdbg: %v", err)
		}
		bins = []string{bin}
	}
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(src), 0o644)
		return p
	}
	loop := write("loop.n", hotLoop)
	steps := write("steps.n", "int main() {\n    long s = 0;\n    while (true) {\n        s += 1;\n        s -= 1;\n    }\n    return 0;\n}\n")
	many := write("many.n", `import thread;
void waiter(Channel<int> c) {
    c.recv();
}
int main() {
    Channel<int> c = {};
    for (int i = 0; i < 100000; i += 1) {
        thread.spawn(waiter, c);
    }
    thread.yield();
    int stop = 1;
    return stop;
}
`)
	// a run with no breakpoint, to subtract from the per-hit figures
	runTo := func(bin string, bps []dap.SourceBreakpoint) (time.Duration, error) {
		c, err := startAdapter(bin)
		if err != nil {
			return 0, err
		}
		defer c.close()
		start := time.Now()
		if err := c.launch(loop, bps, false); err != nil {
			return 0, err
		}
		err = c.until(isTerminated)
		return time.Since(start), err
	}
	samples := make([]struct{ next, logp, cond, threads []float64 }, len(bins))
	for r := 0; r < rounds; r++ {
		for bi, bin := range bins {
			sm := &samples[bi]
			plain, err := runTo(bin, nil)
			if err != nil {
				return nil, err
			}
			d, err := runTo(bin, []dap.SourceBreakpoint{{Line: 4, LogMessage: "i = {i}"}})
			if err != nil {
				return nil, err
			}
			sm.logp = append(sm.logp, float64((d-plain).Nanoseconds())/100_000/1000)
			d, err = runTo(bin, []dap.SourceBreakpoint{{Line: 4, Condition: "i == -1"}})
			if err != nil {
				return nil, err
			}
			sm.cond = append(sm.cond, float64((d-plain).Nanoseconds())/100_000/1000)

			c, err := startAdapter(bin)
			if err != nil {
				return nil, err
			}
			if err := c.launch(steps, []dap.SourceBreakpoint{{Line: 4}}, true); err != nil {
				c.close()
				return nil, err
			}
			const n = 200
			start := time.Now()
			for i := 0; i < n; i++ {
				if _, err := c.call("next", dap.NextArguments{ThreadId: 1}); err != nil {
					c.close()
					return nil, err
				}
				if err := c.until(isStopped); err != nil {
					c.close()
					return nil, err
				}
			}
			sm.next = append(sm.next, float64(time.Since(start).Microseconds())/n)
			c.close()

			c, err = startAdapter(bin)
			if err != nil {
				return nil, err
			}
			if err := c.launch(many, []dap.SourceBreakpoint{{Line: 11}}, true); err != nil {
				c.close()
				return nil, err
			}
			const k = 20
			start = time.Now()
			for i := 0; i < k; i++ {
				if _, err := c.call("threads", nil); err != nil {
					c.close()
					return nil, err
				}
			}
			sm.threads = append(sm.threads, float64(time.Since(start).Microseconds())/k/1000)
			c.close()
		}
	}
	med := func(xs []float64) float64 {
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	out := make([]debuggerFigures, len(bins))
	for i, sm := range samples {
		out[i] = debuggerFigures{Bin: bins[i], NextUS: med(sm.next), LogpointUS: med(sm.logp), CondUS: med(sm.cond), Threads100k: med(sm.threads)}
	}
	return out, nil
}

// reportDebugger prints the debugger's figures against their targets,
// naming the binary if named.
func reportDebugger(out io.Writer, f debuggerFigures, named bool) {
	fmt.Fprintln(out)
	if named {
		fmt.Fprintf(out, "Debugger, over stdio (`%s dap`, medians)\n", f.Bin)
	} else {
		fmt.Fprintln(out, "Debugger, over stdio (`nlangdbg dap`, medians)")
	}
	fmt.Fprintln(out)
	check := func(what string, got, limit float64, unit string) {
		verdict := fmt.Sprintf("met (%s× the limit)", ratio(got/limit))
		if got > limit {
			verdict = fmt.Sprintf("MISSED by %s×", ratio(got/limit))
		}
		fmt.Fprintf(out, "- %s: %s%s (limit %s%s): %s\n", what, num(got), unit, num(limit), unit, verdict)
	}
	check("next, request to stopped event", f.NextUS, 50, " µs")
	check("log point hit", f.LogpointUS, 3, " µs")
	check("conditional breakpoint, one evaluation", f.CondUS, 1, " µs")
	check("threads with 100,000 threads", f.Threads100k, 5, " ms")
	fmt.Fprintln(out)
}
