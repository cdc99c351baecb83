package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// pastProg is the lost update of testdata/dap/past.n.
func pastProg(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/dap/past.n")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestREPLPast asks the questions about the past of the lost update:
// last, query, timeline and origin print their answers with moments
// named m1, m2, …, and travel goes to one.
func TestREPLPast(t *testing.T) {
	ft := newFakeTerminal(t, pastProg(t))
	update := strconv.Itoa(ft.line("bp update"))
	ft.Exec("break prog.n:" + strconv.Itoa(ft.line("bp done")))
	ft.Exec("continue")
	out := ft.Exec("last c.count 2")
	ft.expect(out, `^\[m1\] c\.count: 3 -> 1 by thread 2 "thread-2" at prog\.n:`+update+` in Worker\.run$`,
		`^\[m2\] c\.count: 2 -> 3 by thread 4 "thread-4" at prog\.n:`+update+` in Worker\.run$`)
	out = ft.Exec("query prog.n:" + update + " v if v < 2")
	ft.expect(out, `^\[m3\] thread 4 "thread-4": 1$`, `^\[m4\] thread 2 "thread-2": 1$`, `^2 executions of prog\.n:`+update+`$`)
	out = ft.Exec("query " + update + " seen") // (the current file)
	ft.expect(out, `^3 executions of prog\.n:`+update+`$`)
	out = ft.Exec("timeline 2")
	ft.expect(out, `^thread 2 "thread-2"$`,
		`^  \[m\d+\] spawned by thread 1 "main" at prog\.n:`+strconv.Itoa(ft.line("bp spawnA"))+` in main$`,
		`^  \[m\d+\] parked: chan recv on Channel<int>\(len 0/cap 1\) at prog\.n:`+strconv.Itoa(ft.line("bp recv"))+` in Worker\.run$`,
		`^  \[m\d+\] woken by thread 1 "main"$`, `^  \[m\d+\] ran 4 quanta, \d+ reductions \(from \[m\d+\]\)$`, `^  \[m\d+\] ended$`)
	out = ft.Exec("origin last")
	ft.expect(out, `^\[m\d+\] received from a channel, sent by thread 2 "thread-2" = 1 at prog\.n:\d+ \(thread 1 "main"\): last = results\.recv\(\);$`,
		`^\[m1\] written Counter\.count \(3 -> 1\) = 1 at prog\.n:`+update+` \(thread 2 "thread-2"\): c\.count = v \+ seen;$`,
		`^  \[m\d+\] sent on the channel = 1 at prog\.n:`+strconv.Itoa(ft.line("bp sendA"))+` \(thread 1 "main"\): a\.inbox\.send\(base\);$`,
		`^  \[m\d+\] literal = 1 at prog\.n:\d+ \(thread 1 "main"\): int base = 1;$`)
	out = ft.Exec("travel m1")
	ft.expect(out, `^Travelled to thread 2 at Worker\.run \(line `+update+`\), \d+ reductions at Worker\.run \(prog\.n:`+update+`\) \[thread 2 "thread-2"\]$`,
		`=>\s+`+update+`:\s+c\.count = v \+ seen;`)
	out = ft.Exec("print c.count")
	ft.expect(out, `^3$`)
	out = ft.Exec("next")
	out = ft.Exec("print c.count")
	ft.expect(out, `^1$`)
	out = ft.Exec("travel m99")
	ft.expect(out, `^error: travel: no moment m99`)
	out = ft.Exec("last c.count +")
	ft.expect(out, `^error: .*column`)
	out = ft.Exec("query prog.n:3 v")
	ft.expect(out, `^error: .*line 3 of prog\.n has no code`)
	ft.Exec("continue") // (the breakpoint again)
	out = ft.Exec("continue")
	ft.expect(out, `Program exited with code 1`)
	out = ft.Exec("last c.count")
	ft.expect(out, `^error: last: the program is not running`)
}

// TestREPLPastExplored: the way from "explore found a lost update" to
// "here are the writes" (docs/past.md): the failure explore saves opens
// with debug --replay, and last names the write that lost the others'
// updates; origin follows main's last value to it across the results
// channel; travel lands there.
func TestREPLPastExplored(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := cli("explore", "--schedules", "100", "--out", dir, "../../testdata/dap/lost_channels.n"); code != 3 {
		t.Fatalf("explore: exit %d, %s", code, errs)
	}
	ft := newFakeTerminalArgs(t, map[string]any{"replay": filepath.Join(dir, "failure-1.replay"), "stopOnEntry": true})
	src, err := os.ReadFile("../../testdata/dap/lost_channels.n")
	if err != nil {
		t.Fatal(err)
	}
	ft.src = string(src)
	update, fail := strconv.Itoa(ft.line("bp update")), strconv.Itoa(ft.line("bp fail"))
	ft.Exec("break lost_channels.n:" + fail)
	out := ft.Exec("continue")
	ft.expect(out, `at main \(lost_channels\.n:`+fail+`\)`)
	out = ft.Exec("last c.count 3")
	// three writes, each over the one before; the newest is below the sum
	// of the three values (1 + 2 + 3): it lost an update
	re := regexp.MustCompile(`(?m)^\[m(\d)\] c\.count: (\d+) -> (\d+) by thread (\d) "thread-\d" at lost_channels\.n:` + update + ` in Worker\.run$`)
	ws := re.FindAllStringSubmatch(out, -1)
	if len(ws) != 3 {
		t.Fatalf("last c.count 3:\n%s", out)
	}
	for i := 0; i+1 < len(ws); i++ {
		if ws[i][2] != ws[i+1][3] {
			t.Errorf("write %d found %s, the one before left %s:\n%s", i, ws[i][2], ws[i+1][3], out)
		}
	}
	if ws[0][3] == "6" {
		t.Fatalf("no update lost:\n%s", out)
	}
	out = ft.Exec("origin last")
	ft.expect(out, `^\[m\d+\] received from a channel, sent by thread `+ws[0][4]+` "thread-`+ws[0][4]+`" = `+ws[0][3]+` at lost_channels\.n:\d+`,
		`^\[m1\] written Counter\.count \(`+ws[0][2]+` -> `+ws[0][3]+`\) = `+ws[0][3]+` at lost_channels\.n:`+update)
	out = ft.Exec("travel m1")
	ft.expect(out, `^Travelled to thread `+ws[0][4]+` at Worker\.run \(line `+update+`\)`)
	out = ft.Exec("next")
	out = ft.Exec("print c.count")
	ft.expect(out, `^`+ws[0][3]+`$`)
}
