package compile

import (
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
)

// recompile compiles src as a program replacing prior; it returns the
// program or the errors, one per line.
func recompile(t *testing.T, prior *vm.Program, src string) (*vm.Program, string) {
	t.Helper()
	prog, err := CompileFile("t.n", []byte(src+"\nint main() { return 0; }\n"), Options{Lib: vm.StdLib(), Prior: &Prior{Program: prior}})
	if err != nil {
		return nil, err.Error()
	}
	return prog, ""
}

const layoutOld = `class B {
    public int x;
    public virtual int v() { return 1; }
}
class C : B {
    public int y;
    public virtual int w() { return 2; }
}
class Leaf {
    public int a;
    public int c;
    public virtual int p() { return 3; }
}`

func TestReloadLayout(t *testing.T) {
	old := compileTest(t, layoutOld)
	// a field and a virtual method declared first in a leaf class: the
	// old ones keep their slots, the new ones come after
	prog, errs := recompile(t, old, strings.Replace(layoutOld, "class Leaf {\n", "class Leaf {\n    public int b;\n    public virtual int q() { return 4; }\n", 1))
	if errs != "" {
		t.Fatal(errs)
	}
	leaf := prog.ClassByName("Leaf")
	var names []string
	for i, f := range leaf.Fields {
		names = append(names, f.Name)
		if f.Index != i {
			t.Errorf("field %s at %d has index %d", f.Name, i, f.Index)
		}
	}
	if strings.Join(names, ",") != "a,c,b" {
		t.Errorf("fields of Leaf: %v", names)
	}
	ov, nv := old.ClassByName("Leaf").VTable, leaf.VTable
	for i, f := range ov {
		if nv[i].Short != f.Short || nv[i].VIndex != i {
			t.Errorf("slot %d: %s (index %d), want %s", i, nv[i].Short, nv[i].VIndex, f.Short)
		}
	}
	if last := nv[len(nv)-1]; last.Short != "q" || last.VIndex != len(nv)-1 {
		t.Errorf("the new virtual method: %s at %d", last.Short, last.VIndex)
	}
	// a field removed from C (and one added to B) is refused
	if _, errs := recompile(t, old, strings.Replace(strings.Replace(layoutOld, "public int x;", "public int x;\n    public int z;", 1), "    public int y;\n", "", 1)); !strings.Contains(errs, "field y of C was removed") {
		t.Errorf("C losing y: %q", errs)
	}
}

func TestReloadRefusals(t *testing.T) {
	old := compileTest(t, layoutOld)
	for _, tc := range []struct{ from, to, want string }{
		{"public int x;", "public int x;\n    public int z;", "t.n:3:16: cannot reload: field z was added to B, which C extends"},
		{"public virtual int v() { return 1; }", "public virtual int v() { return 1; }\n    public virtual int u() { return 5; }", "t.n:4:24: cannot reload: virtual method u was added to B, which C extends"},
		{"public virtual int p() { return 3; }", "public int p() { return 3; }", "cannot reload: virtual method Leaf.p was removed or is no longer virtual"},
		{"class C : B {", "class C {", "t.n:5:1: cannot reload: the base class of C changed (it was B, it is Object)"},
		{"class Leaf {", "struct Leaf {", "t.n:9:1: cannot reload: Leaf was a class and is now a struct"},
	} {
		src := strings.Replace(layoutOld, tc.from, tc.to, 1)
		if tc.to == "struct Leaf {" {
			src = strings.Replace(src, "    public virtual int p() { return 3; }\n", "", 1)
		}
		if _, errs := recompile(t, old, src); !strings.Contains(errs, tc.want) {
			t.Errorf("%q → %q: %q, want %q", tc.from, tc.to, errs, tc.want)
		}
	}
}

func TestArgCopies(t *testing.T) {
	prog := compileTest(t, "int f(int a, int b) { a = a + b; return a; }\nint g(int a) { return a; }")
	if got := prog.FuncByName("f").ArgCopies; len(got) != 2 || got[0] < 2 || got[1] != -1 {
		t.Errorf("f assigns a: ArgCopies %v", got)
	}
	if got := prog.FuncByName("g").ArgCopies; got != nil {
		t.Errorf("g assigns nothing: ArgCopies %v", got)
	}
}
