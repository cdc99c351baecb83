package vm_test

import (
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

const relinkOld = `class P {
    public int a;
}
int g(int x) {
    return x + 1;
}
int f(P p, int n) {
    int s = 0;
    for (int i = 0; i < n; i += 1) {
        s = s + g(i);
    }
    p.a = s;
    return s;
}
int main() {
    P p = new P();
    int r = f(p, 5);
    return r * 100 + f(p, 1);
}`

// relinkNew changes g and f and gives P a field.
var relinkNew = strings.NewReplacer(
	"return x + 1;", "return x + 10;",
	"s = s + g(i);", "s = s + 2 * g(i);",
	"public int a;", "public int b;\n    public int a;",
).Replace(relinkOld)

// TestRelinkThread copies a thread stopped at the entry of g, called from
// f's loop, onto the new program: g's frame had not started (the new
// code), f's frame finishes on its old code (obsolete, calling the new
// g), main's (unchanged) goes on in the new main, and the object gets
// the new field, in the slot after the old ones.
func TestRelinkThread(t *testing.T) {
	old := compileSrc(t, relinkOld)
	m := vm.NewMachine(old, nil, nil, nil)
	th := m.NewCallThread(old.Main, nil)
	for calls := 0; ; {
		th.Run(1) // to the next safepoint (a function's entry, a loop's test)
		if f := th.Frame(0); f.Fn.Name == "g" && f.PC == 0 {
			if calls++; calls == 3 { // g(2)
				break
			}
		}
	}
	prog, err := compile.CompileFile("t.n", []byte(relinkNew), compile.Options{Lib: vm.StdLib(), Prior: &compile.Prior{Program: old}})
	if err != nil {
		t.Fatal(err)
	}
	if p := prog.ClassByName("P"); p.Fields[0].Name != "a" || p.Fields[1].Name != "b" {
		t.Fatalf("the new layout of P: %v, %v (the old field keeps its slot)", p.Fields[0].Name, p.Fields[1].Name)
	}
	rl := vm.NewRelink(old, prog)
	if !rl.Changed(old.FuncByName("g")) || !rl.Changed(old.FuncByName("f")) || rl.Changed(old.Main) {
		t.Fatal("Changed: g and f changed, main did not")
	}
	m2 := vm.NewMachine(prog, nil, nil, nil)
	c := vm.NewCopier(m2, 0)
	c.Relink = rl
	cp := c.Thread(th)
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	g, f, main := cp.Frame(0), cp.Frame(1), cp.Frame(2)
	if g.Fn != prog.FuncByName("g") || !f.Fn.Obsolete || f.Fn.Name != "f" || main.Fn != prog.Main {
		t.Fatalf("frames after the relink: %s (obsolete %v), %s (obsolete %v), %s", g.Fn, g.Fn.Obsolete, f.Fn, f.Fn.Obsolete, main.Fn)
	}
	if f.Fn.Funcs[0] != prog.FuncByName("g") {
		t.Errorf("the old f calls %p, want the new g %p", f.Fn.Funcs[0], prog.FuncByName("g"))
	}
	if len(rl.Fates) != 2 || rl.Fates[0].Func != "f" || rl.Fates[0].How != vm.FateOld || rl.Fates[1].Func != "g" || rl.Fates[1].How != vm.FateNew {
		t.Errorf("fates: %+v", rl.Fates)
	}
	if len(rl.Grown) != 1 || rl.Grown[0].Class != prog.ClassByName("P") || len(rl.Grown[0].Fields) != 2 {
		t.Fatalf("grown objects: %+v", rl.Grown)
	}
	for !cp.Done() {
		cp.Run(1000)
	}
	// f(p, 5) on its old code with the new g from g(2): 1 + 2 + 12 + 13 + 14;
	// then the new f(p, 1): 2 * g(0) = 20
	if r := cp.Result.I(); r != 4220 {
		t.Errorf("result %d, want 4220", r)
	}
	if a := rl.Grown[0].Fields[0].I(); a != 20 {
		t.Errorf("p.a = %d, want 20", a)
	}
	// the original thread, on the old program, is untouched
	for !th.Done() {
		th.Run(1000)
	}
	if r := th.Result.I(); r != 1501 {
		t.Errorf("the original's result %d, want 1501", r)
	}
}

// TestSameCode: a function compiled twice from the same text is the same
// code, wherever it sits in the file; one whose body changed is not.
func TestSameCode(t *testing.T) {
	a := compileSrc(t, relinkOld)
	b := compileSrc(t, "// moved down a line\n"+relinkOld)
	n := compileSrc(t, relinkNew)
	if !vm.SameCode(a.FuncByName("f"), b.FuncByName("f")) || vm.SameCode(a.FuncByName("f"), n.FuncByName("f")) {
		t.Error("SameCode")
	}
	if got := vm.Signature(a.FuncByName("f")); got != "f(P, int)int" {
		t.Errorf("Signature: %q", got)
	}
}
