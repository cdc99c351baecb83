package main

import (
	"strconv"
	"testing"
)

// Transcripts of the commands users bring from gdb and Delve.

func TestREPLUntilLeavesTheLoop(t *testing.T) {
	ft := newFakeTerminal(t, linesREPLProg)
	ft.Exec("break " + strconv.Itoa(ft.line("loop")))
	ft.Exec("continue")
	ft.Exec("clear 1")
	// next goes back to the for line; until from there leaves the loop
	ft.expect(ft.Exec("next"), `^Step at worker \(prog\.n:5\)`)
	out := ft.Exec("until")
	ft.expect(out, `^Step at worker \(prog\.n:`+strconv.Itoa(ft.line("ret"))+`\)`)
	ft.expect(ft.Exec("print s"), `^4950$`)
	// until LOCATION runs there
	out = ft.Exec("until 12")
	ft.expect(out, `^Stopped at main \(prog\.n:12\)`)
	ft.expect(ft.Exec("breakpoints"), `^No breakpoints\.$`)
}

func TestREPLEnableDisableIgnore(t *testing.T) {
	ft := newFakeTerminal(t, linesREPLProg)
	loop := strconv.Itoa(ft.line("loop"))
	ft.Exec("break " + loop)
	ft.Exec("break " + strconv.Itoa(ft.line("ret")))
	ft.expect(ft.Exec("continue"), `^Breakpoint 1 at worker`)
	ft.expect(ft.Exec("ignore 1 3"), `^Will ignore next 3 crossings of breakpoint 1\.$`)
	ft.expect(ft.Exec("breakpoints"), `^\s+1\s+prog\.n:`+loop+` \(hit once\) \(ignoring the next 3 hits\)$`)
	ft.Exec("continue")
	ft.expect(ft.Exec("print i"), `^4$`)
	ft.expect(ft.Exec("disable 1"), `^Breakpoint 1 disabled\.$`)
	ft.expect(ft.Exec("breakpoints"), `^\s+1\s+prog\.n:`+loop+` \(disabled\)$`)
	ft.expect(ft.Exec("list"), `^=>\s+`+loop+`:`) // no ● on a disabled breakpoint
	ft.expect(ft.Exec("continue"), `^Breakpoint 2 at worker \(prog\.n:`+strconv.Itoa(ft.line("ret"))+`\)`)
	ft.expect(ft.Exec("enable 1"), `^Breakpoint 1 enabled\.$`)
	ft.expect(ft.Exec("ignore 9 1"), `error: no breakpoint 9`)
	ft.expect(ft.Exec("delete 2"), `^Breakpoint 2 cleared\.$`)
	ft.expect(ft.Exec("disable x"), `error: "x" is not a breakpoint number`)
}

func TestREPLDisplay(t *testing.T) {
	ft := newFakeTerminal(t, linesREPLProg)
	ft.Exec("break " + strconv.Itoa(ft.line("loop")) + " if i == 10")
	ft.Exec("continue")
	ft.expect(ft.Exec("display i"), `^1: i = 10$`)
	ft.expect(ft.Exec("display/x s"), `^2: /x s = 0x2d$`)
	ft.Exec("condition 1 i == 11")
	out := ft.Exec("continue")
	ft.expect(out, `^Breakpoint 1 at worker`, `^1: i = 11$`, `^2: /x s = 0x37$`)
	ft.expect(ft.Exec("display"), `^1: i$`, `^2: /x s$`)
	ft.expect(ft.Exec("info display"), `^1: i$`)
	ft.Exec("undisplay 1")
	ft.Exec("condition 1 i == 12")
	out = ft.Exec("continue")
	ft.expect(out, `^2: /x s = 0x42$`)
	if regexp := `1: i =`; ft.r.displays[0].id != 2 {
		t.Errorf("undisplay 1 left %v (%s)", ft.r.displays, regexp)
	}
	ft.expect(ft.Exec("undisplay 7"), `error: no display 7`)
}

func TestREPLInfoFrameAndBacktrace(t *testing.T) {
	ft := newFakeTerminal(t, linesREPLProg)
	ft.Exec("break " + strconv.Itoa(ft.line("loop")) + " if i == 2")
	ft.Exec("continue")
	ft.expect(ft.Exec("info breakpoints"), `^\s+1\s+prog\.n:\d+ if i == 2 \(hit once\)$`)
	ft.expect(ft.Exec("info threads"), `\[1\] "main"`, `1 thread$`)
	ft.expect(ft.Exec("goroutines"), `\[1\] "main"`)
	ft.expect(ft.Exec("info args"), `^int n = 100$`)
	ft.expect(ft.Exec("info locals"), `^int s = 1$`, `^int i = 2$`)
	out := ft.Exec("info frame")
	ft.expect(out, `^Frame 0 of thread 1 "main": worker \(prog\.n:\d+\)$`, `called by frame 1: main \(prog\.n:`+strconv.Itoa(ft.line("call"))+`\)`, `^\s+int n = 100$`)
	ft.expect(ft.Exec("info nonsense"), `error: usage: info breakpoints\|threads`)
	out = ft.Exec("bt full")
	ft.expect(out, `^\*\s+0\s+worker \(prog\.n:\d+\)$`, `^\s+int n = 100$`, `^\s+int i = 2$`, `^\s+1\s+main \(prog\.n:\d+\)$`, `^\s+\(no variables\)$`)
	ft.expect(ft.Exec("frame 1"), `^Frame 1: main`)
	ft.expect(ft.Exec("frame"), `^Frame 1: main \(prog\.n:`+strconv.Itoa(ft.line("call"))+`\)`)
	ft.expect(ft.Exec("up"), `error: no frame 2`)
}

func TestREPLPrintFormats(t *testing.T) {
	ft := newFakeTerminal(t, linesREPLProg)
	ft.Exec("break " + strconv.Itoa(ft.line("loop")) + " if i == 10")
	ft.Exec("continue")
	ft.expect(ft.Exec("p/x 255"), `^0xff$`)
	ft.expect(ft.Exec("print/x s"), `^0x2d$`)
	ft.expect(ft.Exec("p/o 8"), `^010$`)
	ft.expect(ft.Exec("p/t 5"), `^101$`)
	ft.expect(ft.Exec("p/d -0"), `^0$`)
	ft.expect(ft.Exec("p/x -16"), `^-0x10$`)
	ft.expect(ft.Exec("p/c 65"), `^65 'A'$`)
	ft.expect(ft.Exec(`p/x "abc"`), `error: /x formats integers, not "abc"`)
	ft.expect(ft.Exec("p/q 1"), `error: unknown format /q`)
	ft.expect(ft.Exec("p/x new int[]{10, 11}"), `^int\[2\].* \{\[0\] = 0xa, \[1\] = 0xb\}$`)
}

func TestREPLKillAndRun(t *testing.T) {
	ft := newFakeTerminal(t, linesREPLProg)
	ft.Exec("break " + strconv.Itoa(ft.line("ret")))
	ft.Exec("continue")
	ft.expect(ft.Exec("kill"), `^Program killed\.$`)
	ft.expect(ft.Exec("continue"), `error: the program is not running`)
	ft.expect(ft.Exec("kill"), `error: the program is not running`)
	// reading or changing a frame says the same, not "not stopped" or
	// "already at the innermost frame"
	for _, cmd := range []string{"down", "up", "locals", "args", "set var s = 1", "print s"} {
		ft.expect(ft.Exec(cmd), `^error: the program is not running`)
	}
	out := ft.Exec("run")
	ft.expect(out, `Restarted`, `Stopped at entry at main`)
	ft.expect(ft.Exec("continue"), `^Breakpoint 1 at worker`)
	ft.expect(ft.Exec("print s"), `^4950$`)
}
