package dap

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// console runs a debug console command and returns its text.
func console(t *testing.T, c *daptest.Client, line string) string {
	t.Helper()
	c.EvaluateRequest(line, 0, "repl")
	return daptest.ExpectResponse[*dap.EvaluateResponse](t, c).Body.Result
}

// TestLeaksRequest: a server that drops the reply channel of some
// requests leaks their handlers: nlang/leaks lists exactly those, with
// where they were spawned, what they wait on and where that was made,
// while the workers parked on the channel main keeps are not listed and
// the program goes on to use them.
func TestLeaksRequest(t *testing.T) {
	runSession(t, "testdata/dap/leaky.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("check"))
		c.CustomRequest(api.CmdLeaks, api.LeaksArgs{Stack: true})
		var b api.LeaksBody
		c.ExpectCustomResponse(t, api.CmdLeaks, &b)
		var ids []int64
		for _, l := range b.Threads {
			ids = append(ids, l.ID)
			switch {
			case l.Parent != 1 || l.SpawnedAt == nil || l.SpawnedAt.Line != f.Line("spawnHandler") || l.SpawnedAt.Source == nil || l.SpawnedAt.Source.Path != f.Path:
				t.Errorf("thread %d: spawned by %d at %+v, want by 1 at line %d", l.ID, l.Parent, l.SpawnedAt, f.Line("spawnHandler"))
			case l.WaitReason != "chan send" || !strings.HasPrefix(l.WaitingOn, "chan send on Channel<int>"):
				t.Errorf("thread %d: waiting on %q (%q)", l.ID, l.WaitingOn, l.WaitReason)
			case l.ObjectMadeAt == nil || l.ObjectMadeAt.Line != f.Line("makeReply"):
				t.Errorf("thread %d: its channel made at %+v, want line %d", l.ID, l.ObjectMadeAt, f.Line("makeReply"))
			case l.Function != "handle" || l.Line != f.Line("handlerWaits") || len(l.Stack) != 1 || l.Stack[0].Line != f.Line("handlerWaits"):
				t.Errorf("thread %d: at %s line %d, stack %+v", l.ID, l.Function, l.Line, l.Stack)
			}
		}
		// main 1, workers 2-4, handlers 5-14: requests 1, 4 and 7 leak
		if want := []int64{6, 9, 12}; !slices.Equal(ids, want) {
			t.Errorf("leaked %v, want %v", ids, want)
		}
		if b.Total != 7 { // main, 3 workers, 3 leaked handlers (the others have ended)
			t.Errorf("total %d threads, want 7", b.Total)
		}
		text := console(t, c, ":leaks")
		for _, want := range []string{"3 of ", "[6]", "chan send on Channel<int>", fmt.Sprintf("spawned by [1] at leaky.n:%d", f.Line("spawnHandler")),
			fmt.Sprintf("at handle (leaky.n:%d)", f.Line("handlerWaits"))} {
			if !strings.Contains(text, want) {
				t.Errorf(":leaks says\n%s\nwant %q in it", text, want)
			}
		}
		// the filter: the leaked threads are the ones -with leaked selects
		c.CustomRequest(api.CmdThreads, api.ThreadsArgs{With: []api.ThreadFilter{{Key: "leaked"}}})
		var tb api.ThreadsBody
		c.ExpectCustomResponse(t, api.CmdThreads, &tb)
		var sel []int64
		for _, th := range tb.Threads {
			sel = append(sel, th.ID)
		}
		if !slices.Equal(sel, ids) {
			t.Errorf("threads -with leaked: %v, want %v", sel, ids)
		}
		continueToExit(t, c, 1, 0)
		if out := c.Output("stdout"); !strings.Contains(out, "served\n") || !strings.Contains(out, fmt.Sprint(2*(0+2+3+5+6+8+9)+0+1+2)) {
			t.Errorf("stdout %q", out)
		}
	}, withBreakpoints("check"))
}

// crowdTotal is the number of threads of crowd.n at @parked.
const crowdTotal = 10004

// TestThreadGroupsLarge: 10,000 threads grouped by every key give the
// right counts and first ids; the groups by stack tell apart two lines of
// one function, and two callers of it.
func TestThreadGroupsLarge(t *testing.T) {
	runSession(t, "testdata/dap/crowd.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("parked"))
		groups := func(by string, with ...api.ThreadFilter) api.ThreadGroupsBody {
			t.Helper()
			c.CustomRequest(api.CmdThreadGroups, api.ThreadGroupsArgs{By: by, ThreadsArgs: api.ThreadsArgs{With: with}})
			var b api.ThreadGroupsBody
			c.ExpectCustomResponse(t, api.CmdThreadGroups, &b)
			return b
		}
		at := func(marker string) string { return path(f, marker) }
		counts := func(b api.ThreadGroupsBody) string {
			var parts []string
			for _, g := range b.Groups {
				parts = append(parts, fmt.Sprintf("%s=%d", g.Key, g.Count))
			}
			return strings.Join(parts, " ")
		}
		for _, tc := range []struct {
			by   string
			want string
		}{
			{api.GroupByFunction, "wait=9000 sleepy=1000 a=1 b=1 c=1 main=1"},
			{api.GroupByWaitReason, "chan recv=9003 sleep=1000 stopped=1"},
			{api.GroupByState, "waiting=10003 stopped=1"},
			{api.GroupByLocation, fmt.Sprintf("%s=6000 %s=3000 %s=1000", path(f, "recvFirst"), path(f, "recvSecond"), path(f, "sleeps"))},
			{api.GroupBySpawnSite, fmt.Sprintf("%s=6000 %s=3000 %s=1000 (main)=1 %s=1 %s=1 %s=1",
				at("spawnFirst"), at("spawnRelay"), at("spawnSleepy"), at("spawnC"), at("spawnB"), at("spawnA"))}, // (ties by key)
		} {
			b := groups(tc.by)
			got := counts(b)
			if tc.by == api.GroupByLocation {
				got = strings.Join(strings.Fields(got)[:3], " ") // the three large ones
			}
			if got != tc.want || b.Selected != crowdTotal || b.Total != crowdTotal {
				t.Errorf("by %s: %s (%d of %d)\nwant %s", tc.by, got, b.Selected, b.Total, tc.want)
			}
		}
		// parallel stacks: the two lines of wait, and relay's callers
		b := groups(api.GroupByStack)
		if len(b.Groups) < 3 {
			t.Fatalf("by stack: %d groups", len(b.Groups))
		}
		stack := func(g api.ThreadGroup) string {
			var s []string
			for _, fr := range g.Stack {
				s = append(s, fmt.Sprintf("%s:%d", fr.Function, fr.Line))
			}
			return fmt.Sprintf("%d %s", g.Count, strings.Join(s, " "))
		}
		want := []string{
			fmt.Sprintf("6000 wait:%d", f.Line("recvFirst")),
			fmt.Sprintf("3000 wait:%d relay:%d", f.Line("recvSecond"), f.Line("relayCall")),
			fmt.Sprintf("1000 sleepy:%d", f.Line("sleeps")),
		}
		for i, w := range want {
			if got := stack(b.Groups[i]); got != w {
				t.Errorf("by stack, group %d: %s, want %s", i, got, w)
			}
		}
		if g := b.Groups[0]; len(g.ThreadIDs) != api.MaxGroupIDs || g.ThreadIDs[0] != 3 || g.ThreadIDs[99] != 102 {
			t.Errorf("first group's ids: %d of them, %v…", len(g.ThreadIDs), g.ThreadIDs[:3])
		}
		// filters: by spawn site, and without a function
		b = groups(api.GroupByFunction, api.ThreadFilter{Key: api.GroupBySpawnSite, Value: at("spawnRelay")})
		if got := counts(b); got != "wait=3000" || b.Selected != 3000 {
			t.Errorf("with spawnSite %s: %s (%d)", at("spawnRelay"), got, b.Selected)
		}
		b = groups(api.GroupByFunction, api.ThreadFilter{Key: api.GroupByFunction, Value: "wait", Not: true},
			api.ThreadFilter{Key: api.GroupByState, Value: "waiting"})
		if got := counts(b); got != "sleepy=1000 a=1 b=1 c=1" {
			t.Errorf("without function wait, with state waiting: %s", got)
		}
		// the console's form, and a key it does not know
		text := console(t, c, fmt.Sprintf(":threads -group-by stack -with spawn crowd.n:%d", f.Line("spawnSleepy")))
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^\s+1000  threads \d+ \d+ .*\n\s+sleepy \(crowd.n:%d\)$`, f.Line("sleeps"))).MatchString(text) ||
			!strings.HasSuffix(text, "1000 threads in 1 group") {
			t.Errorf(":threads -group-by stack:\n%s", text)
		}
		c.CustomRequest(api.CmdThreadGroups, api.ThreadGroupsArgs{By: "colour"})
		if r := c.ExpectErrorResponse(t, api.CmdThreadGroups); !strings.Contains(r.Message, `group by "colour"`) {
			t.Errorf("unknown key: %q", r.Message)
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("parked"))
}

// path returns the "file:line" a location group of marker is keyed by.
func path(f *fixture, marker string) string { return fmt.Sprintf("%s:%d", f.Path, f.Line(marker)) }

// TestSpawnTree: every thread knows who spawned it and where: a three-
// level spawn (main → a → b → c) in nlang/threads, and as a tree in the
// console, with the 10,000 siblings counted rather than listed.
func TestSpawnTree(t *testing.T) {
	runSession(t, "testdata/dap/crowd.n", func(c *daptest.Client, f *fixture) {
		checkStop(t, c, 1, "main", f.Line("parked"))
		c.CustomRequest(api.CmdThreads, api.ThreadsArgs{With: []api.ThreadFilter{{Key: "function", Value: "wait", Not: true},
			{Key: "function", Value: "sleepy", Not: true}}})
		var b api.ThreadsBody
		c.ExpectCustomResponse(t, api.CmdThreads, &b)
		var got []string
		for _, th := range b.Threads {
			line := 0
			if th.SpawnedAt != nil {
				line = th.SpawnedAt.Line
			}
			got = append(got, fmt.Sprintf("%d<-%d@%d", th.ID, th.Parent, line))
		}
		if len(b.Threads) != 4 || b.Total != crowdTotal {
			t.Fatalf("threads: %v (of %d), want main, a, b, c", got, b.Total)
		}
		ids := map[string]int64{}
		for _, th := range b.Threads {
			ids[th.Function] = th.ID
		}
		crowdA, crowdB, crowdC := ids["a"], ids["b"], ids["c"]
		want := []string{"1<-0@0", fmt.Sprintf("%d<-1@%d", crowdA, f.Line("spawnA")),
			fmt.Sprintf("%d<-%d@%d", crowdB, crowdA, f.Line("spawnB")), fmt.Sprintf("%d<-%d@%d", crowdC, crowdB, f.Line("spawnC"))}
		if !slices.Equal(got, want) {
			t.Errorf("threads: %v\nwant %v", got, want)
		}
		text := console(t, c, ":threads -tree")
		for _, re := range []string{
			`(?m)^\* +\[1\] "main"`,
			fmt.Sprintf(`(?m)^└─ \[%d\] "thread-%d" .* a \(crowd.n:\d+\)  spawned at crowd.n:%d$`, crowdA, crowdA, f.Line("spawnA")),
			fmt.Sprintf(`(?m)^   └─ \[%d\] "thread-%d" .*  spawned at crowd.n:%d$`, crowdB, crowdB, f.Line("spawnB")),
			fmt.Sprintf(`(?m)^      └─ \[%d\] "thread-%d" .*  spawned at crowd.n:%d$`, crowdC, crowdC, f.Line("spawnC")),
			fmt.Sprintf(`(?m)^└─ … 5997 more spawned at crowd.n:%d wait$`, f.Line("spawnFirst")),
			fmt.Sprintf(`(?m)^└─ … 997 more spawned at crowd.n:%d sleepy$`, f.Line("spawnSleepy")),
			`10004 threads$`,
		} {
			if !regexp.MustCompile(re).MatchString(text) {
				t.Errorf(":threads -tree does not match %s:\n%s", re, firstLines(text, 20))
			}
		}
		c.TerminateRequest()
		daptest.ExpectResponse[*dap.TerminateResponse](t, c)
	}, withBreakpoints("parked"))
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = append(l[:n], "…")
	}
	return strings.Join(l, "\n")
}
