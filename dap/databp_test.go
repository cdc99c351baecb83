package dap

import (
	"fmt"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// dataID asks whether child name of ref can be watched and returns its
// data id and access types.
func dataID(t *testing.T, c *daptest.Client, ref int, name string, frameID int) (string, []dap.DataBreakpointAccessType) {
	t.Helper()
	c.DataBreakpointInfoRequest(ref, name, frameID)
	r := daptest.ExpectResponse[*dap.DataBreakpointInfoResponse](t, c).Body
	id, _ := r.DataId.(string)
	if id == "" {
		t.Fatalf("dataBreakpointInfo %s: no data id (%s)", name, r.Description)
	}
	return id, r.AccessTypes
}

// setWatches sets data breakpoints and checks that all are verified.
func setWatches(t *testing.T, c *daptest.Client, bps ...dap.DataBreakpoint) []dap.Breakpoint {
	t.Helper()
	c.SetDataBreakpointsRequest(bps...)
	r := daptest.ExpectResponse[*dap.SetDataBreakpointsResponse](t, c).Body.Breakpoints
	for i, b := range r {
		if !b.Verified {
			t.Fatalf("data breakpoint %d not verified: %s", i, b.Message)
		}
	}
	return r
}

// expectDataStop continues and expects a data breakpoint stop of thread
// tid in fn at line, with a description containing desc.
func expectDataStop(t *testing.T, c *daptest.Client, tid int, fn string, line int, desc string) dap.StackFrame {
	t.Helper()
	c.ContinueRequest(1, false)
	daptest.ExpectResponse[*dap.ContinueResponse](t, c)
	stop, top := checkStop(t, c, tid, fn, line)
	if stop.Body.Reason != "data breakpoint" || !strings.Contains(stop.Body.Description, desc) {
		t.Fatalf("stop %+v, want a data breakpoint stop %q", stop.Body, desc)
	}
	return top
}

func TestDataBreakpointOnAField(t *testing.T) {
	runSession(t, "testdata/dap/watch.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("start"))
		p := variables(t, c, scopes(t, c, top.Id)["Locals"].VariablesReference)["p"]
		id, access := dataID(t, c, p.VariablesReference, "x", 0)
		if len(access) != 2 || access[0] != "write" || access[1] != "readWrite" {
			t.Errorf("access types %v", access)
		}
		bps := setWatches(t, c, dap.DataBreakpoint{DataId: id, AccessType: "write"})
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		// main's write: stopped right after it
		expectDataStop(t, c, 1, "main", f.Line("start")+1, "p.x changed from 0 to 1")
		// the mover thread writes y (another field), then x with the value
		// it has (no change), then 5
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		stop, _ := checkStop(t, c, 2, "mover", f.Line("moved"))
		if stop.Body.Reason != "data breakpoint" || stop.Body.Text != "p.x: 1 -> 5" ||
			len(stop.Body.HitBreakpointIds) != 1 || stop.Body.HitBreakpointIds[0] != bps[0].Id {
			t.Errorf("stop %+v, want p.x: 1 -> 5 on breakpoint %d", stop.Body, bps[0].Id)
		}
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("start"))
}

func TestDataBreakpointOnElements(t *testing.T) {
	runSession(t, "testdata/dap/watch.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 2, "mover", f.Line("movex"))
		arr := variables(t, c, scopes(t, c, top.Id)["Arguments"].VariablesReference)["arr"]
		id, _ := dataID(t, c, arr.VariablesReference, "[1]", 0)
		setWatches(t, c, dap.DataBreakpoint{DataId: id})
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		expectDataStop(t, c, 2, "mover", f.Line("moved")+2, "arr[1] changed from 0 to 9")
		// reads too: the same value written again does not stop, the read does
		setWatches(t, c, dap.DataBreakpoint{DataId: id, AccessType: "readWrite"})
		// (right after the read: in the middle of its line)
		expectDataStop(t, c, 2, "mover", f.Line("readarr"), "arr[1] read (9)")
		// main reads it too, on its own thread
		expectDataStop(t, c, 1, "main", f.Line("after"), "arr[1] read (9)")
		setWatches(t, c)
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("movex"))
}

func TestDataBreakpointOnAListElementAndErrors(t *testing.T) {
	runSession(t, "testdata/dap/watch.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("after"))
		l := variables(t, c, scopes(t, c, top.Id)["Locals"].VariablesReference)["l"]
		id, _ := dataID(t, c, l.VariablesReference, "[1]", 0)
		// refused: a condition, an unknown id, a bad access type
		c.SetDataBreakpointsRequest(dap.DataBreakpoint{DataId: id, Condition: "true"},
			dap.DataBreakpoint{DataId: "w99"}, dap.DataBreakpoint{DataId: id, AccessType: "read"})
		r := daptest.ExpectResponse[*dap.SetDataBreakpointsResponse](t, c).Body.Breakpoints
		if len(r) != 3 || r[0].Verified || r[1].Verified || r[2].Verified || !strings.Contains(r[1].Message, "unknown data id") {
			t.Errorf("refused data breakpoints: %+v", r)
		}
		c.DataBreakpointInfoRequest(l.VariablesReference, "[7]", 0)
		if r := daptest.ExpectResponse[*dap.DataBreakpointInfoResponse](t, c).Body; r.DataId != nil || r.Description == "" {
			t.Errorf("info on l[7]: %+v, want no data id and a reason", r)
		}
		setWatches(t, c, dap.DataBreakpoint{DataId: id})
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		// l[0] = 10 passes, l[1] = 20 stops
		expectDataStop(t, c, 1, "main", f.Line("lset")+1, "l[1] changed from 2 to 20")
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("after"))
}

func TestDataBreakpointOnALocal(t *testing.T) {
	runSession(t, "testdata/dap/watch.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "sum", f.Line("loop"))
		// by frame and name (the debug console's "Break on value change")
		id, access := dataID(t, c, 0, "s", top.Id)
		if len(access) != 1 || access[0] != "write" {
			t.Errorf("a local's access types: %v, want [write]", access)
		}
		c.SetDataBreakpointsRequest(dap.DataBreakpoint{DataId: id, AccessType: "readWrite"})
		if r := daptest.ExpectResponse[*dap.SetDataBreakpointsResponse](t, c).Body.Breakpoints; r[0].Verified {
			t.Errorf("readWrite on a local verified: %+v", r[0])
		}
		setWatches(t, c, dap.DataBreakpoint{DataId: id})
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		// i = 0: s stays 0; then 1, 3, 6
		header := f.Line("loop") - 1
		expectDataStop(t, c, 1, "sum", header, "s changed from 0 to 1")
		// a step goes to the next statement, not to a watched instruction
		c.NextRequest(1, false)
		daptest.ExpectResponse[*dap.NextResponse](t, c)
		checkStop(t, c, 1, "sum", f.Line("loop"))
		expectDataStop(t, c, 1, "sum", header, "s changed from 1 to 3")
		expectDataStop(t, c, 1, "sum", header, "s changed from 3 to 6")
		// the frame returns: no more stops
		continueToExit(t, c, 1, 0)
		if out := c.Output("stdout"); !strings.Contains(out, "\n6\n") {
			t.Errorf("stdout %q", out)
		}
	}, withBreakpoints("loop"))
}

func TestDataBreakpointSetWhereTheWriteIsNext(t *testing.T) {
	runSession(t, "testdata/dap/watch.n", func(c *daptest.Client, f *fixture) {
		// stopped at q.x = seven: one SETF, the very instruction the
		// thread is at (it will run it without trapping again)
		_, top := checkStop(t, c, 1, "main", f.Line("setq"))
		q := variables(t, c, scopes(t, c, top.Id)["Locals"].VariablesReference)["q"]
		id, _ := dataID(t, c, q.VariablesReference, "x", 0)
		setWatches(t, c, dap.DataBreakpoint{DataId: id})
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		expectDataStop(t, c, 1, "main", f.Line("printq"), "q.x changed from 0 to 7")
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("setq"))
}

// TestReverseContinueToADataChange: reverseContinue goes back to the
// latest change of a watched field — made by another thread — then to
// the one before (a write of the same value does not count), then to
// the start; going forward again, the data breakpoint still follows the
// object (the re-execution's copy of it) and stops at the change.
func TestReverseContinueToADataChange(t *testing.T) {
	runSession(t, "testdata/dap/watch.n", func(c *daptest.Client, f *fixture) {
		_, top := checkStop(t, c, 1, "main", f.Line("after"))
		p := variables(t, c, scopes(t, c, top.Id)["Locals"].VariablesReference)["p"]
		id, _ := dataID(t, c, p.VariablesReference, "x", 0)
		bps := setWatches(t, c, dap.DataBreakpoint{DataId: id, AccessType: "write"})
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		reverse := func(tid int, fn string, line int, text string) {
			t.Helper()
			c.ReverseContinueRequest(1)
			daptest.ExpectResponse[*dap.ReverseContinueResponse](t, c)
			stop, _ := checkStop(t, c, tid, fn, line)
			if stop.Body.Reason != "data breakpoint" || stop.Body.Text != text ||
				len(stop.Body.HitBreakpointIds) != 1 || stop.Body.HitBreakpointIds[0] != bps[0].Id {
				t.Fatalf("reverse continue: %+v, want a data breakpoint stop %q", stop.Body, text)
			}
		}
		reverse(2, "mover", f.Line("moved"), "p.x: 1 -> 5")
		reverse(1, "main", f.Line("start")+1, "p.x: 0 -> 1")
		c.ReverseContinueRequest(1)
		daptest.ExpectResponse[*dap.ReverseContinueResponse](t, c)
		if stop := daptest.Expect[*dap.StoppedEvent](t, c); stop.Body.Reason != "entry" {
			t.Fatalf("reverse continue past the first change: %+v", stop.Body)
		}
		expectDataStop(t, c, 1, "main", f.Line("start")+1, "p.x changed from 0 to 1")
		expectDataStop(t, c, 2, "mover", f.Line("moved"), "p.x changed from 1 to 5")
		continueToExit(t, c, 1, 0)
	}, withBreakpoints("after"))
}

// TestDataBreakpointOldValueAfterPreemption: in the replay of a lost
// update found at --granularity shared, a thread is preempted at its
// write while the other thread writes; the data breakpoint reports what
// each write really overwrote (each change starts where the one before
// ended), going forward, going back, and forward again after going back.
func TestDataBreakpointOldValueAfterPreemption(t *testing.T) {
	f := loadFixture(t, "testdata/dap/lostwatch.n")
	rec := exploreShared(t, f)
	runSession(t, "testdata/dap/lostwatch.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("start"))
		next(t, c, 1)
		_, top := checkStop(t, c, 1, "main", f.Line("spawned"))
		cv := variables(t, c, scopes(t, c, top.Id)["Locals"].VariablesReference)["c"]
		id, _ := dataID(t, c, cv.VariablesReference, "value", 0)
		setWatches(t, c, dap.DataBreakpoint{DataId: id, AccessType: "write"})
		c.SetBreakpointsRequest(f.Path)
		daptest.ExpectResponse[*dap.SetBreakpointsResponse](t, c)
		// change reads the next stop: a data change "c.value: A -> B", or
		// the end (forward) or the start (back)
		change := func() (a, b int, ok bool) {
			t.Helper()
			for {
				switch m := c.Next(t).(type) {
				case *dap.StoppedEvent:
					if m.Body.Reason == "entry" {
						return 0, 0, false
					}
					if m.Body.Reason != "data breakpoint" {
						t.Fatalf("stop %+v, want a data change", m.Body)
					}
					if _, err := fmt.Sscanf(m.Body.Text, "c.value: %d -> %d", &a, &b); err != nil {
						t.Fatalf("stop text %q: %v", m.Body.Text, err)
					}
					return a, b, true
				case *dap.ExitedEvent:
					return 0, 0, false
				}
			}
		}
		var forward [][2]int
		for {
			c.ContinueRequest(1, false)
			daptest.ExpectResponse[*dap.ContinueResponse](t, c)
			a, b, ok := change()
			if !ok {
				break
			}
			forward = append(forward, [2]int{a, b})
			if b < a {
				break // the lost update: the write over a larger value
			}
		}
		n := len(forward)
		if n < 3 || forward[n-1][1] > forward[n-1][0] {
			t.Fatalf("changes %v: want a lost update (a write that makes the counter go down)", forward)
		}
		for i := 1; i < n; i++ {
			if forward[i][0] != forward[i-1][1] {
				t.Errorf("change %d is %d -> %d, but the counter held %d (changes %v)", i+1, forward[i][0], forward[i][1], forward[i-1][1], forward)
			}
		}
		// back two changes, then forward through them again
		for i := 0; i < 2; i++ {
			c.ReverseContinueRequest(1)
			daptest.ExpectResponse[*dap.ReverseContinueResponse](t, c)
			a, b, ok := change()
			if want := forward[n-2-i]; !ok || a != want[0] || b != want[1] {
				t.Errorf("reverse continue %d: %d -> %d, want %v", i+1, a, b, want)
			}
		}
		for i := n - 2; i < n; i++ {
			c.ContinueRequest(1, false)
			daptest.ExpectResponse[*dap.ContinueResponse](t, c)
			if a, b, ok := change(); !ok || a != forward[i][0] || b != forward[i][1] {
				t.Errorf("forward again, change %d: %d -> %d, want %v", i+1, a, b, forward[i])
			}
		}
	}, withLaunch(map[string]any{"replay": rec}), withBreakpoints("start"))
}
