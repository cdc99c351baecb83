package vm_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
)

const frameSrc = `import io;
int area(int w, int h) {
    int a = w * h; // @area
    if (a > 10) {
        int big = a;
        io.print(big);
    }
    return a / (w - w); // @divide
}
int main() {
    int x = 3;
    int y = area(x, 4); // @call
    int z = 0;
    return y + z;
}`

// throwStop stops the thread at the first exception thrown.
type throwStop struct{ recHook }

func (h *throwStop) OnThrow(t *vm.Thread, exc *vm.Object, caught bool) bool { return true }

// names returns the names of locals.
func names(ls []vm.LocalVar) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

// TestDebugFrame checks the frame accessor on a thread stopped at a trap
// (top frame before its instruction, caller in its call) and at a throw
// (top frame inside the throwing instruction): the pc, its position, the
// locals live there and their registers, and agreement with CallStack.
func TestDebugFrame(t *testing.T) {
	prog := compileSrc(t, frameSrc)
	area := prog.FuncByName("area")
	if area == nil {
		t.Fatal("no function area")
	}
	areaLine, callLine := markerLine(t, frameSrc, "area"), markerLine(t, frameSrc, "call")
	divLine := markerLine(t, frameSrc, "divide")
	pc := stmtPC(t, area, areaLine)
	area.SetTrap(pc)
	var out bytes.Buffer
	m, th := newMain(prog, &out)
	m.Hook = &throwStop{recHook{tb: t, stop: true}}
	if stop := runUntilTrap(t, th, 1000); stop != vm.StopTrap {
		t.Fatalf("Run = %v, want a trap", stop)
	}
	if th.Depth() != 2 {
		t.Fatalf("depth %d, want 2", th.Depth())
	}
	top, caller := th.DebugFrame(0), th.DebugFrame(1)
	if top.Func() != area || top.PC() != pc || top.InInstr() || top.Depth() != 0 {
		t.Errorf("top frame: %s pc %d (in instruction %v), want area pc %d, before it", top.Func().Name, top.PC(), top.InInstr(), pc)
	}
	if line, _ := top.Position(); line != areaLine {
		t.Errorf("top frame at line %d, want %d", line, areaLine)
	}
	// a is declared on this line: not yet live; big is in a later block
	if got := names(top.Locals()); !slices.Equal(got, []string{"w", "h"}) {
		t.Errorf("locals at the trap: %v, want [w h]", got)
	}
	for _, l := range top.Locals() {
		want := map[string]uint64{"w": 3, "h": 4}[l.Name]
		if v := top.Reg(l.Reg); v.N != want {
			t.Errorf("%s = %d, want %d", l.Name, v.N, want)
		}
	}
	if caller.Func() != prog.Main || !caller.InInstr() {
		t.Errorf("caller: %s, in instruction %v; want main, in its call", caller.Func().Name, caller.InInstr())
	}
	if in := caller.Func().Instr(caller.PC()); in.Op.Info().Call != vm.CallFunc {
		t.Errorf("caller at pc %d: %v, want the call", caller.PC(), in.Op)
	}
	if line, _ := caller.Position(); line != callLine {
		t.Errorf("caller at line %d, want %d", line, callLine)
	}
	if got := names(caller.Locals()); !slices.Equal(got, []string{"x"}) {
		t.Errorf("caller's locals: %v, want [x] (y is live after its initializer, the call)", got)
	}
	checkCallStack(t, th)

	// resume: the division by zero stops the thread inside the DIVI
	if stop := runUntilTrap(t, th, 1000); stop != vm.StopTrap {
		t.Fatalf("Run = %v, want a stop at the throw", stop)
	}
	top = th.DebugFrame(0)
	if !th.InNative() || !top.InInstr() {
		t.Fatalf("at the throw: InNative %v, InInstr %v; want both", th.InNative(), top.InInstr())
	}
	if in := area.Instr(top.PC()); in.Op != vm.DIVI {
		t.Errorf("top frame at pc %d: %v, want the divi that threw", top.PC(), in.Op)
	}
	if line, _ := top.Position(); line != divLine {
		t.Errorf("top frame at line %d, want %d", line, divLine)
	}
	if got := names(top.Locals()); !slices.Equal(got, []string{"w", "h", "a"}) {
		t.Errorf("locals at the throw: %v, want [w h a] (big's block is over)", got)
	}
	checkCallStack(t, th)
}

// checkCallStack checks that the backtrace shows each frame where the
// accessor says it is.
func checkCallStack(t *testing.T, th *vm.Thread) {
	t.Helper()
	cs := th.CallStack()
	for d := range th.Depth() {
		line, col := th.DebugFrame(d).Position()
		if cs[d].Line != line || cs[d].Col != col {
			t.Errorf("frame %d: CallStack at %d:%d, DebugFrame at %d:%d", d, cs[d].Line, cs[d].Col, line, col)
		}
	}
}

// TestLocalsAt checks the live ranges: a block's local only inside its
// block, parameters everywhere, the compiler's hidden locals never.
func TestLocalsAt(t *testing.T) {
	prog := compileSrc(t, frameSrc)
	area := prog.FuncByName("area")
	for pc := range int32(len(area.Code)) {
		got := names(area.LocalsAt(pc))
		if len(got) < 2 || got[0] != "w" || got[1] != "h" {
			t.Errorf("pc %d: %v, want the parameters first", pc, got)
		}
		for _, l := range area.Locals {
			live := l.IsParam || l.StartPC <= pc && pc < l.EndPC
			if slices.Contains(got, l.Name) != (live && !l.Hidden()) {
				t.Errorf("pc %d: %s in %v, live [%d, %d)", pc, l.Name, got, l.StartPC, l.EndPC)
			}
		}
	}
	if !(&vm.LocalVar{Name: "\x00it"}).Hidden() || (&vm.LocalVar{Name: "it"}).Hidden() {
		t.Error("Hidden: want only names starting with NUL (or empty)")
	}
	if !(&vm.LocalVar{StartPC: 2, EndPC: -1}).LiveAt(100) {
		t.Error("a local whose range is open is live to the end")
	}
}
