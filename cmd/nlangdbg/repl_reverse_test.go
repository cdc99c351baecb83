package main

import (
	"strconv"
	"testing"
)

// TestREPLGoingBack drives each going-back command: rewind, rev
// next/step/stepout/continue, checkpoint, checkpoints, restart N, when.
func TestREPLGoingBack(t *testing.T) {
	ft := newFakeTerminal(t, replProg)
	ft.Exec("break prog.n:" + strconv.Itoa(ft.line("recv")))
	for i := 0; i < 3; i++ {
		ft.Exec("continue")
	}
	out := ft.Exec("print sum")
	ft.expect(out, `^3$`)
	out = ft.Exec("when")
	ft.expect(out, `^thread 1, \d+ reductions into it; event byte \d+ of \d+ \(at the frontier: going forward records\)$`)
	out = ft.Exec("checkpoint third hit")
	ft.expect(out, `^Checkpoint 1: thread 1 "main" at main \(line `+strconv.Itoa(ft.line("recv"))+`\), \d+ reductions$`)
	out = ft.Exec("rewind")
	ft.expect(out, `^Breakpoint 1 at main \(prog\.n:`+strconv.Itoa(ft.line("recv"))+`\) \[thread 1 "main"\]`)
	out = ft.Exec("print sum")
	ft.expect(out, `^1$`)
	out = ft.Exec("when")
	ft.expect(out, `^thread 1, \d+ reductions into it; event byte \d+ of \d+`)
	out = ft.Exec("rev continue")
	ft.expect(out, `^Breakpoint 1 at main`)
	out = ft.Exec("print sum")
	ft.expect(out, `^0$`)
	out = ft.Exec("rev next")
	ft.expect(out, `Step back`)
	out = ft.Exec("checkpoints")
	ft.expect(out, `^\s+1\s+thread 1 "main" at main \(line \d+\), \d+ reductions\s+"third hit"$`, `^the recording: \d+ bytes in memory`)
	out = ft.Exec("restart 1")
	ft.expect(out, `Checkpoint 1`)
	out = ft.Exec("print sum")
	ft.expect(out, `^3$`)
	ft.Exec("clear 1")
	ft.Exec("break twice")
	ft.Exec("continue")
	out = ft.Exec("next")
	ft.expect(out, `=>\s+\d+:\s+return r;`)
	out = ft.Exec("rev stepout")
	ft.expect(out, `at main \(prog\.n:`+strconv.Itoa(ft.line("call"))+`\)`)
	out = ft.Exec("rev step")
	ft.expect(out, `Step back`)
	out = ft.Exec("rev sideways")
	ft.expect(out, `error: usage: rev next \| step \| stepout \| continue`)
	ft.Exec("clear all")
	out = ft.Exec("continue")
	ft.expect(out, `^sum 12$`, `Program exited with code 0`)
}
