package vm_test

import (
	"math"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
)

// TestVerifyRejectsMalformedCode checks that code the interpreter could
// not run safely (it addresses registers and instructions without bounds
// checks) is caught by Program.Finish, and that calling it raises an
// InternalError naming the fault instead of touching memory outside the
// frame.
func TestVerifyRejectsMalformedCode(t *testing.T) {
	for _, tc := range []struct {
		name string
		code []vm.Instr
		want string
	}{
		{"register out of range", []vm.Instr{{Op: vm.MOVE, A: 0, B: 7}, {Op: vm.RET, A: 0}}, "register B = 7 out of [0, 2)"},
		{"negative register", []vm.Instr{{Op: vm.ADDL, A: 0, B: 1, C: -1}, {Op: vm.RET, A: 0}}, "register C = -1 out of [0, 2)"},
		{"jump out of range", []vm.Instr{{Op: vm.JMP, A: 9}, {Op: vm.RET, A: 0}}, "jump A = 9 out of [0, 2)"},
		{"falls off the end", []vm.Instr{{Op: vm.LOADI, A: 0, B: 1}}, "runs past its end"},
		{"no code", nil, "no code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := compileSrc(t, "int main() { return 0; }")
			bad := &vm.Funcode{Name: "bad", Short: "bad", File: "t.n", NumRegs: 2, VIndex: -1, Result: vm.Int, Code: tc.code}
			prog.AddFunc(bad)
			prog.Finish()
			if err := bad.Malformed(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Malformed() = %v, want %q", err, tc.want)
			}
			if err := prog.Main.Malformed(); err != nil {
				t.Fatalf("main: %v", err)
			}
			m := vm.NewMachine(prog, nil, nil, nil)
			th := m.NewCallThread(bad, nil)
			finish(t, th, math.MaxInt)
			e := th.UncaughtError()
			if e == nil || !strings.HasPrefix(e.Msg, "InternalError: ") || !strings.Contains(e.Msg, tc.want) {
				t.Fatalf("uncaught %v, want an InternalError saying %q", e, tc.want)
			}
		})
	}
}

// TestFrameOutsideItsCode checks that a frame whose pc was moved outside
// its code from outside the interpreter (as a debugger could) raises an
// InternalError when it runs, instead of executing whatever lies past
// the code.
func TestFrameOutsideItsCode(t *testing.T) {
	prog := compileSrc(t, "int main() { int x = 1; return x; }")
	m := vm.NewMachine(prog, nil, nil, nil)
	th := m.NewCallThread(prog.Main, nil)
	th.Frame(0).PC = int32(len(prog.Main.Code)) + 100
	finish(t, th, math.MaxInt)
	e := th.UncaughtError()
	if e == nil || !strings.Contains(e.Msg, "is outside its code") {
		t.Fatalf("uncaught %v, want an InternalError about the frame", e)
	}
}
