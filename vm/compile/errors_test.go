package compile

import (
	"errors"
	"fmt"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

var dumpCases = []string{
`class Box { public int v; }
void f(Box<int> b) {}
int main() { return 0; }`,
`class Box { public int v; }
class H { public Box<int> b; }
int main() { return 0; }`,
`class Box { public int v; }
int main() {
    List<Box<int>> l;
    return 0;
}`,
`int main() {
    try {
    } catch (Foo e) {
    }
    return 0;
}`,
`int main() {
    try {
    } catch (Exception e) {
        throw;
    } finally {
        break;
    }
    return 0;
}`,
`int main() {
    try {
        return 1;
    }
    return 0;
}`,
`struct S { int x; }
int main() {
    S s;
    s.x = "a";
    int y = s.q;
    return 0;
}`,
`class P { public int x; }
int main() {
    P p = new P();
    int q = undefinedA;
    int r = undefinedB;
    string s = 1 + p;
    return 0;
}`,
`int main() {
    int[] a = [1, "x"];
    List<int> l = ["a"];
    return 0;
}`,
`int main() {
    foreach (string s in [1, 2]) {}
    return 0;
}`,
`int main() {
    int[] a = new int[2];
    foreach (string s in a) {}
    return 0;
}`,
`int main() {
    Object o = 1;
    int x = o;
    return 0;
}`,
`class A {}
int main() {
    A a = new A();
    a.x();
    a = null;
    int n = null;
    return 0;
}`,
`int main() {
    int x = -9223372036854775809;
    ulong u = 99999999999999999999;
    return 0;
}`,
`enum E { A = -1 }
int main() { return 0; }`,
`using T = T;
int main() { T x; return 0; }`,
`int main() {
    Func<int> f = main;
    int y = f(1);
    return 0;
}`,
`int main() {
    thread.spawn(main);
    return 0;
}`,
`class P {
    public int P() { super(1); return 0; }
}
int main() { return 0; }`,
`class A { public int A(int x) { return 0; } }
class B : A { public int B() { super("s"); return 0; } }
int main() { return 0; }`,
`int main() {
    List<int> l = {};
    Dict<string, int> d = {"a": "b"};
    return 0;
}`,
`int main() {
    string s = "abc";
    s.nope();
    int n = s.length;
    return 0;
}`,
`void f(out int x) { x = 1; }
int main() {
    int a = 0;
    f(a);
    f(out 5);
    return 0;
}`,
`int main() {
    double d = 1.0;
    int i = -d;
    bool b = -true;
    return 0;
}`,
`enum E { A, B }
int main() {
    E e = E.A;
    int i = e;
    E f = 1;
    return 0;
}`,
`struct S { int x; }
int main() {
    S s = new S(1);
    return 0;
}`,
`int main() {
    int x = 1;
    x.y = 2;
    return 0;
}`,
}

func TestDumpErrors(t *testing.T) {
	for i, src := range dumpCases {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("PANIC %v", r)
				}
			}()
			_, err = CompileFile("t.n", []byte(src), Options{Lib: vm.StdLib()})
		}()
		var el syntax.ErrorList
		if !errors.As(err, &el) {
			t.Logf("case %d: err=%v", i, err)
			continue
		}
		s := ""
		for _, e := range el {
			s += fmt.Sprintf("\n    %d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg)
		}
		t.Logf("case %d:%s", i, s)
	}
}
