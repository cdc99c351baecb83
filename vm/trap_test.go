package vm_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
)

// trapSrc prints 0, 1, 3 and returns 3.
const trapSrc = `import io;
int main() {
    int s = 0;
    for (int i = 0; i < 3; i += 1) { // @loop
        s += i; // @body
        io.print(s); // @print
    }
    return s;
}`

const trapOutput = "0\n1\n3\n"

// stmtPCs returns the pcs of fn's statements on line.
func stmtPCs(fn *vm.Funcode, line int32) []int32 {
	var pcs []int32
	for _, e := range fn.Lines {
		if e.Stmt && e.Line == line {
			pcs = append(pcs, e.PC)
		}
	}
	return pcs
}

// stmtPC returns the pc of the first statement of fn on line.
func stmtPC(tb testing.TB, fn *vm.Funcode, line int32) int32 {
	tb.Helper()
	pcs := stmtPCs(fn, line)
	if len(pcs) == 0 {
		tb.Fatalf("no statement of %s on line %d", fn.Name, line)
	}
	return pcs[0]
}

// recHook is a DebugHook that records each trap it sees and answers stop.
type recHook struct {
	tb   testing.TB
	stop bool
	hits []string
}

func (h *recHook) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	if top := t.Frame(0); top.Fn != fn || top.PC != pc {
		h.tb.Errorf("OnTrap(%s, %d) while the top frame is %s at pc %d", fn.Name, pc, top.Fn.Name, top.PC)
	}
	h.hits = append(h.hits, fmt.Sprintf("%s@%d", fn.Name, pc))
	return h.stop
}

// trapRun runs th to completion with the budget, recording the output
// printed so far at each StopTrap and checking where the thread stopped.
func trapRun(tb testing.TB, th *vm.Thread, out *bytes.Buffer, budget int) (atStops []string) {
	tb.Helper()
	for i := 0; ; i++ {
		if i > 100_000 {
			tb.Fatal("thread does not end")
		}
		switch stop := th.Run(budget); stop {
		case vm.StopDone:
			return atStops
		case vm.StopBudget:
		case vm.StopTrap:
			top := th.Frame(0)
			if !top.Fn.HasTrap(top.PC) {
				tb.Fatalf("stopped in %s at pc %d, which has no trap", top.Fn.Name, top.PC)
			}
			atStops = append(atStops, fmt.Sprintf("%s@%d %q", top.Fn.Name, top.PC, out.String()))
		default:
			tb.Fatalf("Run returned %v", stop)
		}
	}
}

// TestTrapStops checks that a trap whose hook answers true stops the
// thread before the trapped instruction, and that resuming executes the
// original instruction once and goes on: the output is unchanged, under
// any budget.
func TestTrapStops(t *testing.T) {
	for _, budget := range []int{1, 2, math.MaxInt} {
		prog := compileSrc(t, trapSrc)
		main := prog.Main
		line := markerLine(t, trapSrc, "body")
		pc := stmtPC(t, main, line)
		orig := main.Instr(pc)
		if !main.SetTrap(pc) || !main.HasTrap(pc) {
			t.Fatalf("SetTrap(%d) failed", pc)
		}
		if main.Code[pc].Op != vm.TRAP || main.Instr(pc) != orig {
			t.Fatalf("after SetTrap: code %v, Instr %v; want trap and the original %v", main.Code[pc], main.Instr(pc), orig)
		}
		var out bytes.Buffer
		m, th := newMain(prog, &out)
		hook := &recHook{tb: t, stop: true}
		m.Hook = hook

		// the first stop: nothing printed yet, the thread is walkable
		if stop := runUntilTrap(t, th, budget); stop != vm.StopTrap {
			t.Fatalf("budget %d: Run = %v, want trap", budget, stop)
		}
		if th.Frame(0).Fn != main || th.Frame(0).PC != pc || th.Depth() != 1 {
			t.Fatalf("budget %d: stopped in %s at pc %d, want main at %d", budget, th.Frame(0).Fn.Name, th.Frame(0).PC, pc)
		}
		if cs := th.CallStack(); len(cs) != 1 || cs[0].Func != "main" || cs[0].Line != line {
			t.Errorf("call stack %v, want main at line %d", cs, line)
		}
		stops := trapRun(t, th, &out, budget)
		want := []string{
			fmt.Sprintf("main@%d %q", pc, "0\n"),
			fmt.Sprintf("main@%d %q", pc, "0\n1\n"),
		}
		if strings.Join(stops, "\n") != strings.Join(want, "\n") {
			t.Errorf("budget %d: later stops\n%s\nwant\n%s", budget, strings.Join(stops, "\n"), strings.Join(want, "\n"))
		}
		if out.String() != trapOutput || int64(th.Result.N) != 3 {
			t.Errorf("budget %d: output %q, result %d; want %q, 3", budget, out.String(), int64(th.Result.N), trapOutput)
		}
		if len(hook.hits) != 3 {
			t.Errorf("budget %d: hook called %d times, want 3", budget, len(hook.hits))
		}
	}
}

// runUntilTrap runs th until it stops for another reason than its budget.
func runUntilTrap(tb testing.TB, th *vm.Thread, budget int) vm.Stop {
	tb.Helper()
	for i := 0; i < 100_000; i++ {
		if stop := th.Run(budget); stop != vm.StopBudget {
			return stop
		}
	}
	tb.Fatal("thread does not stop")
	return vm.StopBudget
}

// TestTrapAtLoopHead sets a trap on a loop condition, which in a rotated
// loop is the back-edge itself (where budget stops happen): the trap still
// stops once per test of the condition, with and without budget stops.
func TestTrapAtLoopHead(t *testing.T) {
	for _, budget := range []int{1, math.MaxInt} {
		prog := compileSrc(t, trapSrc)
		// the for statement's line has four statement entries: the
		// initialization, the entry test, the step and the test at the
		// bottom; a debugger traps both tests
		pcs := stmtPCs(prog.Main, markerLine(t, trapSrc, "loop"))
		if len(pcs) != 4 {
			t.Fatalf("statement pcs %v on the for line, want 4", pcs)
		}
		entry, pc := pcs[1], pcs[3]
		if !isBackEdge(prog.Main, pc) {
			t.Fatalf("pc %d is not the loop's back-edge", pc)
		}
		prog.Main.SetTrap(entry)
		prog.Main.SetTrap(pc)
		var out bytes.Buffer
		m, th := newMain(prog, &out)
		m.Hook = &recHook{tb: t, stop: true}
		stops := trapRun(t, th, &out, budget)
		want := []string{
			fmt.Sprintf("main@%d %q", entry, ""),
			fmt.Sprintf("main@%d %q", pc, "0\n"),
			fmt.Sprintf("main@%d %q", pc, "0\n1\n"),
			fmt.Sprintf("main@%d %q", pc, "0\n1\n3\n"),
		}
		if strings.Join(stops, "\n") != strings.Join(want, "\n") {
			t.Errorf("budget %d: stops\n%s\nwant\n%s", budget, strings.Join(stops, "\n"), strings.Join(want, "\n"))
		}
		if out.String() != trapOutput {
			t.Errorf("budget %d: output %q", budget, out.String())
		}
	}
}

// isBackEdge reports whether pc holds a rotated loop's conditional
// back-edge.
func isBackEdge(fn *vm.Funcode, pc int32) bool {
	switch fn.Instr(pc).Op {
	case vm.LOOPLTIK, vm.LOOPLEIK, vm.LOOPGTIK, vm.LOOPGEIK, vm.LOOPLTI, vm.LOOPLEI, vm.LOOPT:
		return true
	}
	return false
}

// TestTrapContinue checks that a hook answering false sees every hit but
// never stops the thread.
func TestTrapContinue(t *testing.T) {
	prog := compileSrc(t, trapSrc)
	pc := stmtPC(t, prog.Main, markerLine(t, trapSrc, "print"))
	prog.Main.SetTrap(pc)
	var out bytes.Buffer
	m, th := newMain(prog, &out)
	hook := &recHook{tb: t}
	m.Hook = hook
	if stop := th.Run(math.MaxInt); stop != vm.StopDone {
		t.Fatalf("Run = %v, want done", stop)
	}
	at := fmt.Sprintf("main@%d", pc)
	if got := strings.Join(hook.hits, " "); got != at+" "+at+" "+at {
		t.Errorf("hits %q, want 3 × %s", got, at)
	}
	if out.String() != trapOutput || int64(th.Result.N) != 3 {
		t.Errorf("output %q, result %d", out.String(), int64(th.Result.N))
	}
}

// TestTrapWithoutHook checks that a trap is transparent when no debugger
// is attached.
func TestTrapWithoutHook(t *testing.T) {
	prog := compileSrc(t, trapSrc)
	prog.Main.SetTrap(stmtPC(t, prog.Main, markerLine(t, trapSrc, "body")))
	var out bytes.Buffer
	_, th := newMain(prog, &out)
	if stop := th.Run(math.MaxInt); stop != vm.StopDone || out.String() != trapOutput {
		t.Errorf("Run = %v with output %q, want done and %q", stop, out.String(), trapOutput)
	}
}

// TestClearTrap checks that ClearTrap restores the instruction, that
// SetTrap is idempotent and rejects pcs out of range, and FormatInstr's
// "[trap]" mark.
func TestClearTrap(t *testing.T) {
	prog := compileSrc(t, trapSrc)
	main := prog.Main
	pc := stmtPC(t, main, markerLine(t, trapSrc, "body"))
	orig := main.Code[pc]
	text := main.FormatInstr(pc)
	if strings.Contains(text, "[trap]") || strings.HasPrefix(text, "trap") {
		t.Fatalf("untrapped instruction formats as %q", text)
	}
	if main.SetTrap(-1) || main.SetTrap(int32(len(main.Code))) {
		t.Errorf("SetTrap accepted a pc out of range")
	}
	main.SetTrap(pc)
	main.SetTrap(pc) // twice: still one trap over the original
	if got, want := main.FormatInstr(pc), text+"  [trap]"; got != want {
		t.Errorf("FormatInstr = %q, want %q", got, want)
	}
	var buf bytes.Buffer
	vm.DisassembleFunc(&buf, main)
	if n := strings.Count(buf.String(), "[trap]"); n != 1 {
		t.Errorf("listing has %d traps, want 1:\n%s", n, buf.String())
	}
	main.ClearTrap(pc)
	if main.HasTrap(pc) || main.Code[pc] != orig || main.FormatInstr(pc) != text {
		t.Errorf("after ClearTrap: HasTrap %v, code %v (want %v), text %q", main.HasTrap(pc), main.Code[pc], orig, main.FormatInstr(pc))
	}
	main.ClearTrap(pc)     // clearing again is harmless
	main.ClearTrap(pc + 1) // as is clearing an untrapped pc
	if main.Code[pc] != orig || main.Code[pc+1].Op == vm.TRAP {
		t.Errorf("ClearTrap changed the code")
	}

	var out bytes.Buffer
	m, th := newMain(prog, &out)
	hook := &recHook{tb: t, stop: true}
	m.Hook = hook
	if stop := th.Run(math.MaxInt); stop != vm.StopDone || len(hook.hits) != 0 || out.String() != trapOutput {
		t.Errorf("Run = %v, hits %v, output %q; want done, none, %q", stop, hook.hits, out.String(), trapOutput)
	}
}

// TestTrapSetWhileStopped checks the usual debugger sequence: stop at a
// trap, set another one, resume; the thread stops at both, in order.
func TestTrapSetWhileStopped(t *testing.T) {
	prog := compileSrc(t, trapSrc)
	main := prog.Main
	body := stmtPC(t, main, markerLine(t, trapSrc, "body"))
	printPC := stmtPC(t, main, markerLine(t, trapSrc, "print"))
	main.SetTrap(printPC)
	var out bytes.Buffer
	m, th := newMain(prog, &out)
	m.Hook = &recHook{tb: t, stop: true}
	if stop := th.Run(math.MaxInt); stop != vm.StopTrap || th.Frame(0).PC != printPC {
		t.Fatalf("Run = %v at pc %d, want trap at %d", stop, th.Frame(0).PC, printPC)
	}
	main.SetTrap(body)
	stops := trapRun(t, th, &out, math.MaxInt)
	want := []string{
		fmt.Sprintf("main@%d %q", body, "0\n"),
		fmt.Sprintf("main@%d %q", printPC, "0\n"),
		fmt.Sprintf("main@%d %q", body, "0\n1\n"),
		fmt.Sprintf("main@%d %q", printPC, "0\n1\n"),
	}
	if strings.Join(stops, "\n") != strings.Join(want, "\n") {
		t.Errorf("stops\n%s\nwant\n%s", strings.Join(stops, "\n"), strings.Join(want, "\n"))
	}
	if out.String() != trapOutput {
		t.Errorf("output %q", out.String())
	}
}

// TestTrapInRuntimeCall checks that a trap in code the runtime calls (a
// user toString while a List is converted to a string) stops like any
// other: the call is an activation of the thread, above a continuation
// frame, not a nested run on the Go stack.
func TestTrapInRuntimeCall(t *testing.T) {
	src := `import io;
class Node {
    public string toString() {
        return "N"; // @ts
    }
}
int main() {
    List<Node> l = [new Node(), new Node()];
    io.print(l); // @print
    Node n = new Node();
    io.print(n.toString()); // @direct
    return 0;
}`
	prog := compileSrc(t, src)
	ts := prog.FuncByName("Node.toString")
	pc := stmtPC(t, ts, markerLine(t, src, "ts"))
	ts.SetTrap(pc)
	var out bytes.Buffer
	m, th := newMain(prog, &out)
	hook := &recHook{tb: t, stop: true}
	m.Hook = hook
	if stop := th.Run(math.MaxInt); stop != vm.StopTrap {
		t.Fatalf("Run = %v, want a trap in the runtime-called toString", stop)
	}
	st := th.CallStack()
	if len(st) != 3 || st[0].Func != "Node.toString" || st[1].Func != "string conversion" || st[1].File != vm.NativeFile ||
		st[2].Func != "main" || st[2].Line != markerLine(t, src, "print") {
		t.Fatalf("stack at the stop: %v", st)
	}
	// both elements' toString stop, then the direct call
	stops := append([]string{fmt.Sprintf("%s@%d %q", th.Frame(0).Fn.Name, th.Frame(0).PC, out.String())},
		trapRun(t, th, &out, math.MaxInt)...)
	want := []string{
		fmt.Sprintf("Node.toString@%d %q", pc, ""),
		fmt.Sprintf("Node.toString@%d %q", pc, ""),
		fmt.Sprintf("Node.toString@%d %q", pc, "[N, N]\n"),
	}
	if strings.Join(stops, "\n") != strings.Join(want, "\n") {
		t.Errorf("stops %q, want %q", stops, want)
	}
	if out.String() != "[N, N]\nN\n" {
		t.Errorf("output %q", out.String())
	}
}

// TestPinTrap checks that a pinned trap outlives ClearTrap and goes with
// its last UnpinTrap, and that SetTrap's trap outlives the pins.
func TestPinTrap(t *testing.T) {
	prog := compileSrc(t, trapSrc)
	main := prog.Main
	pc := stmtPC(t, main, markerLine(t, trapSrc, "body"))
	orig := main.Code[pc]
	trapped := func() bool { return main.Code[pc].Op == vm.TRAP && main.HasTrap(pc) && main.Instr(pc) == orig }
	steps := []struct {
		name string
		do   func()
		want bool
	}{
		{"pin", func() { main.PinTrap(pc) }, true},
		{"set", func() { main.SetTrap(pc) }, true},
		{"clear while pinned", func() { main.ClearTrap(pc) }, true},
		{"pin again", func() { main.PinTrap(pc) }, true},
		{"unpin one of two", func() { main.UnpinTrap(pc) }, true},
		{"unpin the last", func() { main.UnpinTrap(pc) }, false},
		{"unpin once more", func() { main.UnpinTrap(pc) }, false},
		{"set", func() { main.SetTrap(pc) }, true},
		{"pin over set", func() { main.PinTrap(pc) }, true},
		{"unpin: set's stays", func() { main.UnpinTrap(pc) }, true},
		{"clear", func() { main.ClearTrap(pc) }, false},
		{"pin", func() { main.PinTrap(pc) }, true},
		{"clear without set", func() { main.ClearTrap(pc) }, true},
		{"set while pinned", func() { main.SetTrap(pc) }, true},
		{"unpin: set's stays", func() { main.UnpinTrap(pc) }, true},
		{"clear", func() { main.ClearTrap(pc) }, false},
	}
	for _, st := range steps {
		st.do()
		if got := trapped(); got != st.want {
			t.Fatalf("after %s: trapped %v, want %v (code %v)", st.name, got, st.want, main.Code[pc])
		}
	}
	if main.Code[pc] != orig {
		t.Errorf("code %v, want the original %v", main.Code[pc], orig)
	}
	if main.PinTrap(-1) || main.PinTrap(int32(len(main.Code))) {
		t.Errorf("PinTrap accepted a pc out of range")
	}
}
