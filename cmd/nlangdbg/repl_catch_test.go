package main

import (
	"strconv"
	"strings"
	"testing"
)

const catchREPLProg = `import io;
class Bad : Exception {
    public Bad(string m) { super(m); }
}
void f(int i) {
    if (i % 2 == 0) {
        throw new Bad("bad " + i); // @bad
    }
    throw new Exception("plain " + i); // @plain
}
int main() {
    for (int i = 0; i < 4; i += 1) {
        try {
            f(i);
        } catch (Exception e) {
            io.print("caught " + e.message);
        }
    }
    f(9);
    return 0;
}
`

// TestREPLCatch: catch shows and chooses which exceptions stop the
// program: uncaught ones by default, every one thrown, those of some
// classes, none; a class that is not one is refused and changes
// nothing; the choice outlives a restart.
func TestREPLCatch(t *testing.T) {
	ft := newFakeTerminal(t, catchREPLProg)
	ft.expect(ft.Exec("catch"), `^Stops where an exception is thrown that no catch handles\.$`)
	ft.expect(ft.Exec("catch throw"), `^Stops wherever an exception is thrown, caught or not\.$`)
	ft.expect(ft.Exec("continue"), `^Paused on exception: Bad: bad 0 at f \(prog\.n:\d+\)`)
	ft.expect(ft.Exec("print i"), `^0$`)
	ft.expect(ft.Exec("catch throw NoSuch"), `^error: catch: no class NoSuch$`)
	ft.expect(ft.Exec("catch throw Bad, Oops"), `^error: catch: no class Oops$`)
	ft.expect(ft.Exec("continue"), `^Paused on exception: Exception: plain 1 at f`) // unchanged: every class
	ft.expect(ft.Exec("catch throw Bad"), `^Stops wherever Bad \(or a subclass\) is thrown, caught or not, and where an exception is thrown that no catch handles\.$`)
	out := ft.Exec("continue")
	ft.expect(out, `^caught plain 1$`, `^Paused on exception: Bad: bad 2 at f \(prog\.n:`+strconv.Itoa(ft.line("bad"))+`\)`)
	ft.expect(ft.Exec("catch throw off"), `^Stops where an exception is thrown that no catch handles\.$`)
	out = ft.Exec("continue")
	ft.expect(out, `^caught bad 2$`, `^caught plain 3$`, `^Paused on uncaught exception: Exception: plain 9 at f \(prog\.n:`+strconv.Itoa(ft.line("plain"))+`\)`)
	ft.expect(ft.Exec("catch off"), `^No exception stops the program \(an uncaught one ends it\)\.$`)
	ft.expect(ft.Exec("catch sometimes"), `^error: catch: "sometimes" is not throw, uncaught or off`)
	ft.expect(ft.Exec("run"), `Restarted`)
	out = ft.Exec("continue")
	if strings.Contains(out, "Paused") {
		t.Errorf("stopped with catch off, after a restart:\n%s", out)
	}
	ft.expect(out, `^Runtime error: Exception: plain 9$`, `^Program exited with code 1$`)
}
