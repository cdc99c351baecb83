package compile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// compileErrors compiles src as t.n and returns its diagnostics rendered
// "line:col: message", in the order reported. A panic fails the test.
func compileErrors(tb testing.TB, src string) (errs []string) {
	tb.Helper()
	defer func() {
		if r := recover(); r != nil {
			tb.Fatalf("CompileFile panicked: %v\n%s", r, src)
		}
	}()
	_, err := CompileFile("t.n", []byte(src), Options{Lib: vm.StdLib(), ReadFile: noFiles})
	if err == nil {
		return nil
	}
	var list syntax.ErrorList
	if !errors.As(err, &list) {
		tb.Fatalf("CompileFile returned %T (%v), want a syntax.ErrorList", err, err)
	}
	for _, e := range list {
		if e.File != "t.n" {
			tb.Errorf("error %v is not in t.n", e)
		}
		errs = append(errs, fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg))
	}
	return errs
}

// noFiles is an Options.ReadFile that finds no imported files.
func noFiles(path string) ([]byte, error) { return nil, os.ErrNotExist }

// TestCompileErrors checks the type checker's diagnostics: each program
// must report errors matching every expected "line:col: message"
// substring, and nothing else.
func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"undefined variable", `import io;
int main() {
    int count = 1;
    io.print(cont);
    return 0;
}`, []string{"4:14: undefined: cont (did you mean count?)"}},
		{"undefined function", `int foo() { return 1; }
int main() {
    return fo();
}`, []string{"3:12: undefined: fo (did you mean foo?)"}},
		{"undefined type", `int main() {
    strin s = "a";
    return 0;
}`, []string{"2:5: undefined type strin (did you mean string?)"}},
		{"type mismatch", `int main() {
    int x = "a";
    return x;
}`, []string{"2:13: cannot use string as int"}},
		{"double to int needs as", `int main() {
    int x = 1.5;
    return x;
}`, []string{"2:13: cannot use double as int without a cast (use as int)"}},
		{"narrowing without as", `int main() {
    long l = 5;
    int i = l;
    double d = 2.5;
    float f = d;
    return i;
}`, []string{
			"3:13: cannot use long as int without a cast (use as int)",
			"5:15: cannot use double as float without a cast (use as float)",
		}},
		{"literal overflow", `int main() {
    byte b = 1000;
    short s = 40000;
    return 0;
}`, []string{"2:14: constant 1000 overflows byte", "3:15: constant 40000 overflows short"}},
		{"literal out of range", `int main() {
    long x = -9223372036854775809;
    ulong u = 99999999999999999999;
    return 0;
}`, []string{
			"2:15: integer literal -9223372036854775809 does not fit in long",
			"3:15: integer literal 99999999999999999999 does not fit in ulong",
		}},
		{"non-bool conditions", `int main() {
    if (1) {
        return 1;
    }
    while ("s") {
    }
    assert(2);
    bool b = !5;
    return 0;
}`, []string{
			"2:9: condition must be bool, got int",
			"5:12: condition must be bool, got string",
			"7:12: condition must be bool, got int",
			"8:14: operator ! needs a bool, got int",
		}},
		{"wrong argument count", `int f(int a) { return a; }
class C {
    public int C(int a) { return 0; }
}
int main() {
    C c = new C();
    return f(1, 2);
}`, []string{
			"6:11: wrong number of arguments in call to C: got 0, want 1",
			"7:13: wrong number of arguments in call to f: got 2, want 1",
		}},
		{"argument type", `int f(int a) { return a; }
int main() {
    return f("x");
}`, []string{"3:14: cannot use string as int in argument 1 of f"}},
		{"named and out arguments", `int f(int a) { return a; }
void g(out int x) { x = 1; }
int main() {
    int a = 0;
    g(a);
    g(out 5);
    return f(b = 1);
}`, []string{
			"5:7: argument 1 of g must be passed as out",
			"6:11: out argument must be a local variable",
			"7:14: f has no parameter named b",
		}},
		{"no matching overload", `int g(int a) { return a; }
int g(double a) { return 1; }
int main() {
    return g("s");
}`, []string{"4:13: no overload of g matches (string)"}},
		{"ambiguous overload", `int g(int a, double b) { return 1; }
int g(double a, int b) { return 2; }
int main() {
    return g(1, 1);
}`, []string{"4:13: ambiguous call of overloaded g"}},
		{"no such method or field", `class P { public int x; }
int main() {
    P p = new P();
    p.foo();
    p.z = 1;
    string s = "a";
    s.nope();
    return p.y;
}`, []string{
			"4:7: P has no method foo",
			"5:7: P has no field z",
			"7:7: string has no method nope",
			"8:14: P has no method y",
		}},
		{"struct members", `struct S { int x; }
int main() {
    S s;
    s.m();
    int y = s.q;
    S t = new S(1);
    return 0;
}`, []string{
			"4:7: structs have no methods (S.m)",
			"5:15: S has no field q",
			"6:11: struct S has no constructor (use new S{field: value})",
		}},
		{"break and continue outside a loop", `int main() {
    break;
    continue;
    switch (1) {
    case 1:
        continue;
    }
    return 0;
}`, []string{
			"2:5: break outside a loop or switch",
			"3:5: continue outside a loop",
			"6:9: continue outside a loop",
		}},
		{"return in finally", `int main() {
    try {
    } finally {
        return 1;
    }
    return 0;
}`, []string{"4:9: return is not allowed inside a finally block"}},
		{"break and throw in finally", `int main() {
    while (true) {
        try {
        } finally {
            break;
        }
    }
    try {
    } finally {
        throw new Exception("x");
    }
    return 0;
}`, []string{
			"5:13: break is not allowed inside a finally block",
			"10:9: throw is not allowed inside a finally block",
		}},
		{"return values", `int f() {
    return;
}
void g() {
    return 1;
}
int main() { return 0; }`, []string{
			"2:5: missing return value (want int)",
			"5:12: void function g cannot return a value",
		}},
		{"rethrow outside catch", `int main() {
    throw;
}`, []string{"2:5: rethrow (throw;) outside a catch block"}},
		{"throw a non-exception", `class P {}
int main() {
    throw 5;
    throw new P();
}`, []string{
			"3:11: cannot throw a value of type int (want an Exception)",
			"4:11: cannot throw a value of type P (want an Exception)",
		}},
		{"interface not implemented", `interface I {
    public int m();
}
class C implements I {
}
int main() { return 0; }`, []string{"4:20: class C does not implement I.m"}},
		{"not an interface", `class A {}
class B implements A {}
class D : Nope {}
int main() { return 0; }`, []string{
			"2:20: A is not an interface",
			"3:11: undefined base class Nope",
		}},
		{"inheritance cycle", `class A : B {}
class B : A {}
int main() { return 0; }`, []string{"1:11: inheritance cycle through A"}},
		{"override with another result", `class A { public virtual int m() { return 1; } }
class B : A { public string m() { return "x"; } }
int main() { return 0; }`, []string{"2:29: B.m overrides A.m with a different result type (got string, want int)"}},
		{"redeclared variable", `int main() {
    int x = 1;
    int x = 2;
    {
        int x = 3;
    }
    return x;
}`, []string{
			"3:9: x redeclared in this scope",
			"5:13: x redeclared (it shadows a variable of an enclosing block)",
		}},
		{"for variable is function-scoped", `int main() {
    for (int i = 0; i < 3; i += 1) {
    }
    int i = 5;
    return i;
}`, []string{"4:9: i redeclared in this scope"}},
		{"redeclared function", `int f() { return 1; }
int f() { return 2; }
int main() { return 0; }`, []string{"2:5: function f redeclared with the same parameters"}},
		{"redeclared method and parameter", `class P {
    public int m() { return 1; }
    public int m() { return 2; }
}
int f(int a, int a) { return a; }
int main() { return 0; }`, []string{
			"3:16: method P.m redeclared with the same parameters",
			"5:14: duplicate parameter a",
		}},
		{"redeclared class", `class C {}
class C {}
int main() { return 0; }`, []string{"2:1: C redeclared (first declared at t.n:1)"}},
		{"missing import", `int main() {
    io.print("x");
    thread.spawn(main);
    return 0;
}`, []string{
			"2:5: Package 'io' is not imported (add import io;)",
			"3:5: Package 'thread' is not imported (add import thread;)",
		}},
		{"no such package function", `import io;
int main() {
    io.prnt("x");
    return 0;
}`, []string{"3:8: package io has no function prnt"}},
		{"jagged array", `int main() {
    int[][] a;
    return 0;
}`, []string{"2:5: jagged arrays int[][] are not supported"}},
		{"user generics", `class Box<T> { public T v; }
int main() { return 0; }`, []string{"1:10: expected '{', got '<'"}},
		{"type argument count", `int main() {
    List<int, int> l;
    Dict<int> d;
    return 0;
}`, []string{
			"2:5: List takes 1 type arguments, got 2",
			"3:5: Dict takes 2 type arguments, got 1",
		}},
		{"mismatched comparisons", `int main() {
    string s = "a";
    if (s == 1) {
    }
    int x = 0;
    if (x < "a") {
    }
    char c = 'a';
    if (c == 1) {
    }
    return 0;
}`, []string{
			"3:11: invalid comparison: mismatched types string and int",
			"6:11: invalid comparison: mismatched types int and string",
			"9:11: invalid comparison: char compares only with char, got char and int",
		}},
		{"invalid operands", `int main() {
    int x = true + 1;
    bool b = -true;
    return 0;
}`, []string{
			"2:18: invalid operation: bool + int",
			"3:14: operator - needs a number, got bool",
		}},
		{"impossible casts", `class A {}
class B {}
int main() {
    int i = 5;
    long l = i as long;
    int j = i as int;
    A a = new A();
    B b = a as B;
    string s = "5";
    int k = s as int;
    return 0;
}`, []string{
			"8:13: impossible cast from A to B",
			"10:15: cannot cast string to int",
		}},
		{"unboxing needs as", `int main() {
    Object o = 1;
    int x = o;
    int n = null;
    return 0;
}`, []string{
			"3:13: cannot use Object as int (use as int)",
			"4:13: cannot use null as int",
		}},
		{"this outside a method", `int f() {
    return this.x;
}
int main() { return 0; }`, []string{"2:12: this outside a method"}},
		{"const", `int main() {
    const int N = 3;
    N = 4;
    N += 1;
    const int M;
    return N;
}`, []string{
			"3:5: cannot assign to const N",
			"4:5: cannot assign to const N",
			"5:15: const M needs a value",
		}},
		{"duplicate default", `int main() {
    int x = 1;
    switch (x) {
    default:
        x = 2;
    default:
        x = 3;
    }
    return x;
}`, []string{"6:5: multiple defaults in switch (first at 4:5)"}},
		{"switch on a class", `class P {}
int main() {
    P p = new P();
    switch (p) {
    }
    return 0;
}`, []string{"4:13: cannot switch on a value of type P"}},
		{"static call", `class P { public int m() { return 1; } }
int main() {
    return P.m();
}`, []string{"3:12: P is a type: static calls are not supported (call a method on an instance)"}},
		{"indexing and iterating", `int main() {
    int x = 1;
    int y = x[0];
    foreach (int c in 5) {
    }
    string s = "a";
    s[0] = 1;
    return 0;
}`, []string{
			"3:14: cannot index a value of type int",
			"4:23: cannot iterate over int",
			"7:6: cannot assign to a character of a string (strings are immutable)",
		}},
		// the parser rejects these, before any type checking
		{"compound assignment to an element", `int main() {
    int[] a = new int[2];
    a[0] += 1;
    return 0;
}`, []string{"3:10: compound assignment to an element is not allowed (use a[i] = a[i] + x)"}},
		{"expression statement", `int main() {
    int y = 1;
    y + 1;
    return 0;
}`, []string{"3:5: expression is not a statement"}},
		{"not values", `class P {}
int main() {
    int x = P;
    int y = 1;
    y(2);
    y.z = 2;
    return 0;
}`, []string{
			"3:13: type P is not an expression",
			"5:6: cannot call a value of type int",
			"6:7: cannot assign to z of int",
		}},
		{"main", `int f() { return 0; }`, []string{"1:1: no main function (want int main())"}},
		{"main signature", `int main(int a) { return 0; }`, []string{"1:5: main must be declared int main()"}},
		{"super", `class A { public int A(int x) { return 0; } }
class B : A { public int B() { super("s"); return 0; } }
class P { public int P() { super(1); return 0; } }
int main() {
    super();
    return 0;
}`, []string{
			"2:38: cannot use string as int in argument 1 of A",
			"3:28: P has no base class constructor taking arguments",
			"5:5: super(...) is only allowed in a constructor",
		}},
		{"enum value", `enum F { A = -1 }
int main() {
    int x = "a";
    return 0;
}`, []string{
			"1:10: enum value -1 of A out of range (want 0..2147483647)",
		}},
		{"enum members", `enum E { X, Y }
int main() {
    E e = E.Z;
    E f = 1;
    return 0;
}`, []string{
			"3:13: enum E has no member Z",
			"4:11: cannot use int as E",
		}},
		{"recursive struct", `struct S { S inner; }
int main() { return 0; }`, []string{"1:14: struct S cannot contain itself"}},
		{"impossible constructions", `interface I { public int m(); }
int main() {
    I i = new I();
    List<int> l = new List<int>(3);
    return 0;
}`, []string{
			"3:11: cannot create an instance of interface I",
			"4:19: List constructor takes no arguments",
		}},
		{"void variable", `int main() {
    void v;
    return 0;
}`, []string{"2:5: variable cannot have type void"}},
		{"type alias cycle", `using T = T;
int main() { T x; return 0; }`, []string{"1:11: type alias cycle: T = T"}},
		{"initializers", `int main() {
    int[] a = [1, "x"];
    Dict<string, int> d = {"a": "b"};
    foreach (string s in [1, 2]) {
    }
    return 0;
}`, []string{
			"2:19: cannot use string as int",
			"3:33: cannot use string as int",
			"4:26: cannot infer the type of [...] here (it needs an array or List target)",
		}},
		{"function values", `int main() {
    Func<int> f = main;
    int y = f(1);
    string s = "a";
    int n = s.length;
    return 0;
}`, []string{
			"3:14: wrong number of arguments in call to function value: got 1, want 0",
			"5:13: cannot use Func<int> as int",
		}},
		{"string plus the null literal", `int main() {
    string a = "x" + null;
    string b = null + "y";
    string c = "z";
    c += null;
    string ok = c + a;
    return 0;
}`, []string{
			"2:22: invalid operation: string + null",
			"3:16: invalid operation: string + null",
			"5:10: invalid operation: string + null",
		}},
		{"named argument before positional", `int f(int a, int b = 2) { return a + b; }
class C { public int m(int a, int b) { return a; } }
int main() {
    int x = f(b = 2, 1);
    C c = new C();
    int y = c.m(b = 1, 2);
    int z = f(1, b = 3);
    return 0;
}`, []string{
			"4:22: positional argument after named argument b (named arguments come last)",
			"6:24: positional argument after named argument b (named arguments come last)",
		}},
		{"an argument given twice", `int f(int a, int b = 1) { return a + b; }
int main() {
    int x = f(1, a = 2);
    int y = f(a = 1, a = 2);
    return 0;
}`, []string{
			"3:18: argument a of f is given twice (it is argument 1, passed by position)",
			"4:22: argument a is given twice",
		}},
		{"defaults checked where declared", `class K {
    int x;
    int f(int a = this.y) { return a; }
    int g(int a = x, int b = a + 1) { return b; }
}
int h(int a = this.x, int b = c, int c = 1) { return a; }
int main() { return 0; }`, []string{
			"3:24: K has no method y",
			"6:15: this outside a method",
			"6:31: default value of parameter b uses parameter c, which does not come before it (a default may use only earlier parameters)",
		}},
		{"field initialisers of an unused class", `class U {
    float f = 0.1;
    byte b = 300;
}
int main() { return 0; }`, []string{
			"2:15: cannot use double as float: a floating constant here must be exactly a float",
			"3:14: constant 300 overflows byte",
		}},
		{"the argument that does not convert is named", `int f(int a, bool b, string c) { return a; }
int main() {
    int x = f(1, "x", "y");
    int y = f(1, true, 2);
    int z = f(1, c = "s", b = 3);
    return 0;
}`, []string{
			"3:18: cannot use string as bool in argument 2 of f",
			"5:31: cannot use int as bool in argument 2 of f",
		}},
		{"overflowing argument constants", `void b(byte v) { }
void u(uint v) { }
int main() {
    b(300);
    u(-1);
    b(-129);
    return 0;
}`, []string{
			"4:7: constant 300 overflows byte in argument 1 of b",
			"5:7: constant -1 overflows uint in argument 1 of u",
			"6:7: constant -129 overflows byte in argument 1 of b",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := compileErrors(t, tc.src)
			if len(got) == 0 {
				t.Fatalf("compiled without errors, want %q", tc.want)
			}
			for _, w := range tc.want {
				found := false
				for _, g := range got {
					found = found || strings.Contains(g, w)
				}
				if !found {
					t.Errorf("missing error %q", w)
				}
			}
			for _, g := range got {
				expected := false
				for _, w := range tc.want {
					expected = expected || strings.Contains(g, w)
				}
				if !expected {
					t.Errorf("unexpected error %q", g)
				}
			}
			if t.Failed() {
				t.Logf("got:\n%s", strings.Join(got, "\n"))
			}
		})
	}
}

// TestCompileErrorsFormat checks the full text of an error: file, line,
// column, message.
func TestCompileErrorsFormat(t *testing.T) {
	_, err := CompileFile("dir/prog.n", []byte("int main() {\n    return x;\n}\n"), Options{Lib: vm.StdLib()})
	if err == nil {
		t.Fatal("compiled without errors")
	}
	if got, want := err.Error(), "dir/prog.n:2:12: undefined: x"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var list syntax.ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		t.Fatalf("got %#v, want one *syntax.Error in a syntax.ErrorList", err)
	}
	if e := list[0]; e.File != "dir/prog.n" || e.Pos != (syntax.Pos{Line: 2, Col: 12}) || e.Msg != "undefined: x" {
		t.Errorf("got %+v", *e)
	}
}

// TestCompileErrorsAllReported checks that independent errors anywhere in
// a file are reported together and sorted by position, although the
// compiler finds them in another order (a class's methods are compiled
// before the top-level functions declared above it).
func TestCompileErrorsAllReported(t *testing.T) {
	src := `int f(int x) {
    if (x) {
        return 1;
    }
    return 0;
}
class C {
    public int m() {
        return undefinedInMethod;
    }
}
int main() {
    string s = 5 - "a";
    int a = "text";
    bool b = true;
    int c = undefinedName + 1;
    return f(1);
}
int g() {
    return;
}
`
	got := compileErrors(t, src)
	want := []string{
		"2:9: condition must be bool, got int",
		"9:16: undefined: undefinedInMethod",
		"13:18: invalid operation: int - string",
		"14:13: cannot use string as int",
		"16:13: undefined: undefinedName",
		"20:5: missing return value (want int)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\n\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCompileErrorsLimit checks that a file with very many errors stops
// at a bounded number of diagnostics.
func TestCompileErrorsLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("int main() {\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "    int v%d = \"s\";\n", i)
	}
	b.WriteString("    return 0;\n}\n")
	got := compileErrors(t, b.String())
	if len(got) == 0 || len(got) > 100 {
		t.Errorf("got %d errors, want between 1 and 100", len(got))
	}
	if len(got) > 0 && got[0] != "2:14: cannot use string as int" {
		t.Errorf("first error %q", got[0])
	}
}

// TestCompileNoPanic compiles mutilated versions of every script of
// testdata/run (with one line removed, or cut after a line),
// which makes plenty of undefined names, type errors and parse errors.
// CompileFile must never panic; compileErrors fails the test if it does.
func TestCompileNoPanic(t *testing.T) {
	files, err := filepath.Glob("../../testdata/run/*/*.n")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		for i := range lines {
			if strings.TrimSpace(lines[i]) == "" || strings.HasPrefix(strings.TrimSpace(lines[i]), "//") {
				continue
			}
			if i%9 == 0 {
				compileErrors(t, strings.Join(lines[:i], "")+strings.Join(lines[i+1:], ""))
				n++
			}
			if i%17 == 0 {
				compileErrors(t, strings.Join(lines[:i], ""))
				n++
			}
		}
	}
	t.Logf("%d programs compiled", n)
}
