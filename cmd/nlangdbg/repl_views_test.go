package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestREPLLeaksGroupsTree: in the terminal debugger, `leaks` lists the
// handlers a server leaked (what they wait on, where they were spawned),
// `threads -with leaked` selects them, `threads -group-by` counts the
// threads by spawn site and `threads -tree` shows who spawned whom; the
// program then goes on.
func TestREPLLeaksGroupsTree(t *testing.T) {
	path, err := filepath.Abs("../../testdata/dap/leaky.n")
	if err != nil {
		t.Fatal(err)
	}
	ft, _ := startTerminal(t, path)
	ft.Exec(fmt.Sprintf("break %d", ft.line("bp check")))
	ft.expect(ft.Exec("continue"), `^Breakpoint 1 at main`)
	spawn := ft.line("bp spawnHandler")
	out := ft.Exec("leaks")
	ft.expect(out, `^3 of 7 threads leaked \(parked on what no thread that can run reaches\):$`)
	for _, id := range []int{6, 9, 12} {
		ft.expect(out, fmt.Sprintf(`^\s+\[%d\] "thread-%d"\s+chan send on Channel<int>\(len 0/cap 0\) \(made at leaky.n:%d\), spawned by \[1\] at leaky.n:%d$`,
			id, id, ft.line("bp makeReply"), spawn),
			fmt.Sprintf(`^\s+at handle \(leaky.n:%d\)$`, ft.line("bp handlerWaits")))
	}
	if n := strings.Count(out, "spawned by"); n != 3 {
		t.Errorf("%d leaked threads listed, want 3:\n%s", n, out)
	}
	ft.expect(ft.Exec("leaks -stack"), fmt.Sprintf(`^\s+at handle \(leaky.n:%d\)$`, ft.line("bp handlerWaits")))
	out = ft.Exec("threads -with leaked")
	ft.expect(out, `\[6\] "thread-6"`, `\[9\] "thread-9"`, `\[12\] "thread-12"`, `^3 threads \(of 7\)$`)
	out = ft.Exec("threads -group-by spawn")
	ft.expect(out, fmt.Sprintf(`^\s+3  \S*leaky.n:%d\s+threads 2 3 4$`, ft.line("bp spawnWorker")),
		fmt.Sprintf(`^\s+3  \S*leaky.n:%d\s+threads 6 9 12$`, spawn), `^\s+1  \(main\)\s+threads 1$`, `^7 threads in 3 groups$`)
	out = ft.Exec("threads -tree -without function worker")
	ft.expect(out, `^\*\s+\[1\] "main"`, fmt.Sprintf(`^└─ \[6\] "thread-6"\s+chan send\s+handle \(leaky.n:\d+\)  spawned at leaky.n:%d$`, spawn),
		`^└─ \[12\]`, `^4 threads \(of 7\)$`)
	ft.expect(ft.Exec("threads -group-by colour"), `error: threads: -group-by takes function, location, state, waitReason, spawnSite, stack`)
	ft.expect(ft.Exec("leaks -all"), `error: leaks: unknown "-all"`)
	ft.expect(ft.Exec("continue"), `served`)
}

// TestREPLPrintLocations: print shows where a value comes from (DAP
// 1.68 locations): a thread's and a future's spawn, a channel's and a
// mutex's construction, a function value's declaration, also for the
// fields it lists; a number has none.
func TestREPLPrintLocations(t *testing.T) {
	path, err := filepath.Abs("../../testdata/dap/values.n")
	if err != nil {
		t.Fatal(err)
	}
	ft, _ := startTerminal(t, path)
	ft.Exec(fmt.Sprintf("break %d", ft.line("bp look")))
	ft.expect(ft.Exec("continue"), `^Breakpoint 1 at main`)
	at := func(marker string) string { return fmt.Sprintf(`  at values.n:%d$`, ft.line("bp "+marker)) }
	ft.expect(ft.Exec("print t"), `^\[2\] thread-2 \(\w+\)`+at("spawnT"))
	ft.expect(ft.Exec("print f"), `^Future<int>\(\w+\)`+at("spawnF"), `^  thread = \[3\] thread-3 .*`+at("spawnF"))
	ft.expect(ft.Exec("print c"), `^Channel<int>\(len 0/cap 0\)`+at("makeChan"))
	ft.expect(ft.Exec("print m"), `^Mutex\(unlocked\)`+at("makeMutex"))
	ft.expect(ft.Exec("print w"), `^func .*worker`+at("worker"))
	ft.expect(ft.Exec("print b"), `^Box \{n: 0, ch: .*\}$`, `^  n = 0$`, `^  ch = Channel<int>\(len 0/cap 0\)`+at("makeChan"))
	ft.expect(ft.Exec("print 6 * 7"), `^42$`)
}
