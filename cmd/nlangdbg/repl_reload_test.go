package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

const reloadREPLProg = `import io;
int f(int x) {
    int y = x * 2; // @f
    y = y + 1; // @f2
    return y;
}
int main() {
    for (int i = 0; i < 4; i += 1) {
        int r = f(i); // @call
        io.print("r " + r); // @print
    }
    return 0;
}
`

// editFile replaces from by to in the program the terminal debugs.
func (ft *fakeTerminal) editFile(from, to string) {
	ft.t.Helper()
	src, err := os.ReadFile(ft.path)
	if err != nil {
		ft.t.Fatal(err)
	}
	if !strings.Contains(string(src), from) {
		ft.t.Fatalf("edit: no %q", from)
	}
	if err := os.WriteFile(ft.path, []byte(strings.Replace(string(src), from, to, 1)), 0o644); err != nil {
		ft.t.Fatal(err)
	}
}

// TestREPLReload: edit f while a frame is inside it, reload, see the old
// frame in bt, finish it on the old code, restart it on the new; a file
// that does not compile and a refused edit change nothing; breakpoints
// follow their lines; whatif compares the recording with the edit.
func TestREPLReload(t *testing.T) {
	ft := newFakeTerminal(t, reloadREPLProg)
	f2 := ft.line("f2")
	ft.Exec("break prog.n:" + strconv.Itoa(f2))
	ft.Exec("continue")
	out := ft.Exec("continue") // f(1), y = 2
	ft.expect(out, `^Breakpoint 1 at f \(prog\.n:`+strconv.Itoa(f2)+`\)`)
	out = ft.Exec("reload")
	ft.expect(out, `^Nothing to reload: no file of the program changed$`)

	ft.editFile("y = y + 1;", "y = y + ;")
	out = ft.Exec("reload")
	ft.expect(out, `^error: .*prog\.n:4:13: expected expression, got ';'$`, `^\s+y = y \+ ; // @f2$`)
	ft.editFile("y = y + ;", "y = y + 100;")
	ft.editFile("int main() {", "int unused() {\n    return 0;\n}\nint main() {")
	out = ft.Exec("reload")
	ft.expect(out, `^Reload 1: prog\.n$`, `^  changed: f$`, `^  added: unused$`,
		`^  thread 1 frame 0 f \(line `+strconv.Itoa(f2)+`\): finishes on the old code \(restart the frame to run the new code\)$`)
	out = ft.Exec("bt")
	ft.expect(out, `^\*\s+0  f \[old code\] \(<prog\.n before reload 1>:`+strconv.Itoa(f2)+`\)$`, `^\s+1  main \(prog\.n:`+strconv.Itoa(ft.line("call")+3)+`\)$`)
	out = ft.Exec("list")
	ft.expect(out, `=>.*y = y \+ 1;`)
	out = ft.Exec("print y")
	ft.expect(out, `^2$`)

	// a refused edit: main has a frame and its signature changes
	ft.editFile("int main() {", "int main(int argc) {")
	out = ft.Exec("reload")
	ft.expect(out, `cannot reload: main has a frame on a thread's stack, and its signature changed`)
	ft.editFile("int main(int argc) {", "int main() {")

	out = ft.Exec("restartframe")
	ft.expect(out, `Restarted f on the new code`)
	out = ft.Exec("bt")
	ft.expect(out, `^\*\s+0  f \(prog\.n:`+strconv.Itoa(ft.line("f"))+`\)$`)
	out = ft.Exec("whatif")
	ft.expect(out, `^Re-executed from the start of the run with the new code: the output differs at line 1: "r 100" where the recorded run printed "r 1"$`)
	out = ft.Exec("breakpoints")
	ft.expect(out, `prog\.n:`+strconv.Itoa(f2))
	ft.Exec("clear all")
	out = ft.Exec("continue")
	ft.expect(out, `^r 102$`, `^r 104$`, `^r 106$`, `Program exited with code 0`)
}
