package dap

import (
	"sort"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// TestCustomRequestsRegistered: every custom request package api names
// has a handler, and nothing else does.
func TestCustomRequestsRegistered(t *testing.T) {
	var have []string
	for cmd := range customRequests {
		have = append(have, cmd)
	}
	want := append([]string(nil), api.Commands...)
	sort.Strings(have)
	sort.Strings(want)
	if strings.Join(have, " ") != strings.Join(want, " ") {
		t.Errorf("handlers for\n%v\nwant\n%v", have, want)
	}
}

// TestCustomCommandMatchedDecoded: a command written with an escaped
// slash ("nlang\/scheduler", as nvim-dap's JSON encoder writes it) is the
// same command once decoded.
func TestCustomCommandMatchedDecoded(t *testing.T) {
	runSession(t, "testdata/dap/locks.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("started"))
		c.SendRaw(`{"seq":100,"type":"request","command":"nlang\/scheduler"}`)
		var b api.SchedulerBody
		r := c.ExpectCustomResponse(t, "nlang/scheduler", &b)
		if !r.Success || r.RequestSeq != 100 || b.Quota == 0 || len(b.RunQueue) == 0 {
			t.Errorf("response %+v, body %+v", r.Response, b)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("started"))
}

// TestStoppedEventCarriesTypedReason: the stopped event says why in
// nlangdbg's terms where the protocol's reasons cannot (a safepoint stop
// travels as "step"), and a scheduler step that reaches no stop of its
// own says so.
func TestStoppedEventCarriesTypedReason(t *testing.T) {
	runSession(t, "testdata/dap/busy.n", func(c *daptest.Client, f *fixture) {
		stop, _ := checkStop(t, c, 1, "main", f.Line("start"))
		if s := c.StopOf(stop); s == nil || s.Reason != api.StopBreakpoint || s.Back {
			t.Errorf("breakpoint stop: %+v", s)
		}
		c.CustomRequest(api.CmdBreakSafepoint, api.ThreadArgs{ThreadID: 1})
		c.ExpectCustomResponse(t, api.CmdBreakSafepoint, nil)
		c.ContinueRequest(1, false)
		daptest.ExpectResponse[*dap.ContinueResponse](t, c)
		stop = c.ExpectStoppedEvent(t)
		if s := c.StopOf(stop); stop.Body.Reason != "step" || s == nil || s.Reason != api.StopSafepoint {
			t.Errorf("safepoint stop: reason %q, nlang %+v", stop.Body.Reason, s)
		}
		c.CustomRequest(api.CmdSchedStep, nil)
		var d api.DispatchBody
		c.ExpectCustomResponse(t, api.CmdSchedStep, &d)
		stop = c.ExpectStoppedEvent(t)
		if s := c.StopOf(stop); d.ThreadID == 0 || s == nil || s.Reason != api.StopSchedStep {
			t.Errorf("sched step: dispatch %+v, stop %+v", d, s)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("start"))
}

// TestCustomRequestBadArguments: arguments of the wrong shape get an
// error response and the session goes on.
func TestCustomRequestBadArguments(t *testing.T) {
	runSession(t, "testdata/dap/locks.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("started"))
		c.CustomRequest(api.CmdQuota, map[string]any{"quota": "many"})
		if e := c.ExpectErrorResponse(t, api.CmdQuota); !strings.Contains(e.Message, "bad arguments") {
			t.Errorf("bad quota: %q", e.Message)
		}
		c.CustomRequest(api.CmdStepBack, api.StepBackArgs{ThreadID: 1, Kind: "sideways"})
		if e := c.ExpectErrorResponse(t, api.CmdStepBack); !strings.Contains(e.Message, `kind "sideways"`) {
			t.Errorf("bad kind: %q", e.Message)
		}
		n := 7
		c.CustomRequest(api.CmdQuota, api.QuotaArgs{Quota: &n})
		var q api.QuotaBody
		c.ExpectCustomResponse(t, api.CmdQuota, &q)
		if q.Quota != 7 {
			t.Errorf("quota %d, want 7", q.Quota)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("started"))
}
