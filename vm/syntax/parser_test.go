package syntax

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// errStrings renders err's errors as "line:col: msg", "; "-separated.
func errStrings(err error) string {
	if err == nil {
		return ""
	}
	var list ErrorList
	if !errors.As(err, &list) {
		return "not an ErrorList: " + err.Error()
	}
	var s []string
	for _, e := range list {
		s = append(s, fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg))
	}
	return strings.Join(s, "; ")
}

func TestParseExpr(t *testing.T) {
	tests := []struct{ src, want string }{
		// literals and primaries
		{"x", "x"},
		{"42", "42"},
		{"0xFF", "0xFF"},
		{"99999999999999999999", "99999999999999999999!overflow"},
		{"1.5f", "1.5f"},
		{"'c'", "'c'"},
		{`"hi"`, `"hi"`},
		{"true", "true"},
		{"false", "false"},
		{"null", "null"},
		{"this", "this"},
		{"(x)", "x"},
		{"[1, 2, 3]", "(array 1 2 3)"},
		{"[x]", "(array x)"},
		{"[1, 2,]", "(array 1 2)"},
		{"{}", "(init)"},
		{"{1, 2}", "(init 1 2)"},
		{`{x: 1, "k": 2}`, `(init (: x 1) (: "k" 2))`},
		// precedence
		{"a || b && c", "(|| a (&& b c))"},
		{"a && b || c", "(|| (&& a b) c)"},
		{"a == b && c != d", "(&& (== a b) (!= c d))"},
		{"a < b == c >= d", "(== (< a b) (>= c d))"},
		{"a <= b + c", "(<= a (+ b c))"},
		{"a > b - c", "(> a (- b c))"},
		{"a + b * c", "(+ a (* b c))"},
		{"a * b + c", "(+ (* a b) c)"},
		{"a - b - c", "(- (- a b) c)"},
		{"a / b % c * d", "(* (% (/ a b) c) d)"},
		{"(a + b) * c", "(* (+ a b) c)"},
		{"-a * b", "(* (- a) b)"},
		{"!a && b", "(&& (! a) b)"},
		{"- -a", "(- (- a))"},
		{"!!a", "(! (! a))"},
		{"-5", "(- 5)"},
		// as
		{"x as int", "(as x int)"},
		{"-x as int", "(- (as x int))"},
		{"a + b as long", "(+ a (as b long))"},
		{"a.b as Sub", "(as (. a b) Sub)"},
		{"o as List<int>", "(as o List<int>)"},
		{"o as int[]", "(as o int[])"},
		{"x as int as char", "(as (as x int) char)"},
		{"a as Foo < b", "(< (as a Foo) b)"},
		// postfix
		{"a.b.c", "(. (. a b) c)"},
		{"f()", "(call f)"},
		{"f(1, x)", "(call f 1 x)"},
		{"o.m(1)(2)", "(call (call (. o m) 1) 2)"},
		{"a[i][j]", "(index (index a i) j)"},
		{"a[i].f(x)[0]", "(index (call (. (index a i) f) x) 0)"},
		{"f(b = 7, a = 5)", "(call f (= b 7) (= a 5))"},
		{"f(1, out x, y == 2)", "(call f 1 (out x) (== y 2))"},
		{"c.tryRecv(out v)", "(call (. c tryRecv) (out v))"},
		{"this.x", "(. this x)"},
		{`"abc".length()`, `(call (. "abc" length))`},
		{"Producer()", "(call Producer)"},
		// new
		{"new C(1, 2)", "(new C (args 1 2))"},
		{"new C()", "(new C (args))"},
		{"new List<int>()", "(new List<int> (args))"},
		{"new Channel<int>(5)", "(new Channel<int> (args 5))"},
		{"new int[n]", "(new int (len n))"},
		{"new int[n][]", "(new int[] (len n))"},
		{"new List<int>[3]", "(new List<int> (len 3))"},
		{"new Point{x: 1, y: 2}", "(new Point (init (: x 1) (: y 2)))"},
		{"new List<int>{1, 2}", "(new List<int> (init 1 2))"},
		{"new List<int>{}", "(new List<int> (init))"},
		{`new Dict<string, int>{"a": 1, "b": 2}`, `(new Dict<string, int> (init (: "a" 1) (: "b" 2)))`},
		{"new int[]{1, 2}", "(new int[] (init 1 2))"},
		{"new Dict<string, List<int>>()", "(new Dict<string, List<int>> (args))"},
		{"new C(1).m()", "(call (. (new C (args 1)) m))"},
		{"new Func<void, out int>[2]", "(new Func<void, out int> (len 2))"},
		// interpolation
		{`"${a}"`, `(+ "" a)`},
		{`"${a}${b}"`, `(+ (+ "" a) b)`},
		{`"x=${x}!"`, `(+ (+ "x=" x) "!")`},
		{`"a ${b} c ${d}"`, `(+ (+ (+ "a " b) " c ") d)`},
		{`"$${x} costs $$5 or $"`, `"${x} costs $5 or $"`},
		{`"$$${x}"`, `(+ "$" x)`},
		{`"no interpolation"`, `"no interpolation"`},
	}
	for _, tt := range tests {
		x, err := ParseExpr("e.n", []byte(tt.src))
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.src, err)
			continue
		}
		if got := Dump(x); got != tt.want {
			t.Errorf("ParseExpr(%q):\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestParseExprErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", "1:1: expected expression, got end of file"},
		{"a b", `1:3: unexpected identifier "b" after expression`},
		{"a +", "1:4: expected expression, got end of file"},
		{"(a", "1:3: expected ')', got end of file"},
		{"a & b", "1:3: '&' is not an NLang operator (use && for logical and; there are no bitwise operators)"},
		{"a | b", "1:3: '|' is not an NLang operator (use || for logical or; there are no bitwise operators)"},
		{"a ^ b", "1:3: '^' is not an NLang operator (there are no bitwise operators)"},
		{"~a", "1:1: '~' is not an NLang operator (there are no bitwise operators)"},
		{"a << 2", "1:3: '<<' is not an NLang operator (there are no shift operators)"},
		{"a >> 2", "1:3: '>>' is not an NLang operator (there are no shift operators)"},
		{"x++", "1:2: '++' is not an NLang operator (use x += 1)"},
		{"--x", "1:1: '--' is not an NLang operator (use x -= 1)"},
		{"[]", "1:1: the empty array literal [] is not allowed (use new T[0] or new List<T>{})"},
		{"new C", "1:6: expected '(', '[' or '{' after new C, got end of file"},
		{"new int[]", "1:10: expected array length new int[n] or initializer new int[]{…}, got end of file"},
		{"new 5", "1:5: expected type, got integer literal 5"},
		{"super.f()", "1:1: 'super' is only allowed as a constructor call super(args);"},
		{"a.5", "1:2: unexpected floating literal .5 after expression"},
		{"a.if", "1:3: expected identifier, got keyword 'if'"},
		{"int", "1:1: expected expression, got keyword 'int'"},
		{`"${a+b}" + x`, "1:2: interpolation takes a single identifier: ${a+b}"},
		{"List<int>", "1:6: expected expression, got keyword 'int'"},
	}
	for _, tt := range tests {
		_, err := ParseExpr("e.n", []byte(tt.src))
		if got := errStrings(err); got != tt.want {
			t.Errorf("ParseExpr(%q):\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

// parseBody parses stmts as the body of a function and dumps each
// statement, "\n"-separated.
func parseBody(t *testing.T, stmts string) (string, error) {
	t.Helper()
	src := "void f() {\n" + stmts + "\n}\n"
	f, err := Parse("s.n", []byte(src))
	if len(f.Decls) != 1 {
		return "", err
	}
	fn, ok := f.Decls[0].(*FuncDecl)
	if !ok || fn.Body == nil {
		return "", err
	}
	var s []string
	for _, st := range fn.Body.Stmts {
		s = append(s, Dump(st))
	}
	return strings.Join(s, "\n"), err
}

func TestParseStmts(t *testing.T) {
	tests := []struct{ src, want string }{
		{"{ }", "(block)"},
		{"{ f(); { g(); } }", "(block (call f) (block (call g)))"},
		{";", ";"},
		// declarations
		{"int x;", "(var int x)"},
		{"int a, b = 2, c;", "(var int a (= b 2) c)"},
		{"const int N = 3;", "(const int (= N 3))"},
		{"string s = \"x\";", `(var string (= s "x"))`},
		{"Point p = new Point{x: 1};", "(var Point (= p (new Point (init (: x 1)))))"},
		{"Point[] ps = [a, b];", "(var Point[] (= ps (array a b)))"},
		{"int[][] m;", "(var int[][] m)"},
		{"List<int> l = [1, 2];", "(var List<int> (= l (array 1 2)))"},
		{"List<List<int>> ll;", "(var List<List<int>> ll)"},
		{"Dict<string, List<int>> d = {};", "(var Dict<string, List<int>> (= d (init)))"},
		{"Channel<int> c = {};", "(var Channel<int> (= c (init)))"},
		{"Future<string> fu = thread.spawn(work);", "(var Future<string> (= fu (call (. thread spawn) work)))"},
		{"Func<int, out int> g = bar;", "(var Func<int, out int> (= g bar))"},
		{"func<void> g = bar;", "(var func<void> (= g bar))"},
		{"Thread th = thread.spawn(p.run);", "(var Thread (= th (call (. thread spawn) (. p run))))"},
		{"Producer p = Producer();", "(var Producer (= p (call Producer)))"},
		// assignments and calls
		{"x = 1;", "(= x 1)"},
		{"x += 1; x -= 2; x *= 3; x /= 4; x %= 5;", "(+= x 1)\n(-= x 2)\n(*= x 3)\n(/= x 4)\n(%= x 5)"},
		{"o.f = e;", "(= (. o f) e)"},
		{"o.f += e;", "(+= (. o f) e)"},
		{"a[i] = e;", "(= (index a i) e)"},
		{"a[i][j] = e;", "(= (index (index a i) j) e)"},
		{"f();", "(call f)"},
		{"o.m(1).n();", "(call (. (call (. o m) 1) n))"},
		{"io.print(\"x\");", `(call (. io print) "x")`},
		{"List<int> x = new List<int>(); x.add(1);", "(var List<int> (= x (new List<int> (args))))\n(call (. x add) 1)"},
		// control flow
		{"if (a) f();", "(if a (call f) _)"},
		{"if (a) f(); else g();", "(if a (call f) (call g))"},
		{"if (a) if (b) f(); else g();", "(if a (if b (call f) (call g)) _)"},
		{"if (a) { } else if (b) { } else { }", "(if a (block) (if b (block) (block)))"},
		{"if (a) f(); elseif (b) g();", "(if a (call f) (if b (call g) _))"},
		{"while (i < n) i = i + 1;", "(while (< i n) (= i (+ i 1)))"},
		{"do { f(); } while (x);", "(do (block (call f)) x)"},
		{"for (int i = 0; i < n; i = i + 1) f(i);", "(for (var int (= i 0)) (< i n) (= i (+ i 1)) (call f i))"},
		{"for (int i = 0, j = 1; ; ) { }", "(for (var int (= i 0) (= j 1)) _ _ (block))"},
		{"for (;;) { break; }", "(for _ _ _ (block break))"},
		{"for (i = 0; i < 3; i += 1) { continue; }", "(for (= i 0) (< i 3) (+= i 1) (block continue))"},
		{"for (init(); ok(); step()) ;", "(for (call init) (call ok) (call step) ;)"},
		{"foreach (int x in xs) sum += x;", "(foreach int x xs (+= sum x))"},
		{"foreach (List<int> x in m.values()) { }", "(foreach List<int> x (call (. m values)) (block))"},
		{"switch (x) { case 1: f(); case 2, 3: g(); h(); break; default: k(); }",
			"(switch x (case (1) (call f)) (case (2 3) (call g) (call h) break) (default (call k)))"},
		{"switch (s) { }", "(switch s)"},
		{"switch (c) { case Color.Red: case Color.Blue: { f(); } }",
			"(switch c (case ((. Color Red))) (case ((. Color Blue)) (block (call f))))"},
		{"return;", "(return)"},
		{"return x + 1;", "(return (+ x 1))"},
		{"return {};", "(return (init))"},
		{"return [1, 2];", "(return (array 1 2))"},
		{"try { f(); } catch (Exception e) { g(); }", "(try (block (call f)) (catch Exception e (block (call g))))"},
		{"try { } catch (A a) { } catch (B b) { } finally { h(); }", "(try (block) (catch A a (block)) (catch B b (block)) (finally (block (call h))))"},
		{"try { } finally { }", "(try (block) (finally (block)))"},
		{"throw new Exception(\"x\");", `(throw (new Exception (args "x")))`},
		{"throw;", "(throw)"},
		{"assert(x > 0);", "(assert (> x 0))"},
		{"super(a, b);", "(super a b)"},
		{"super();", "(super)"},
	}
	for _, tt := range tests {
		got, err := parseBody(t, tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestParseDecls(t *testing.T) {
	tests := []struct{ src, want string }{
		{"import io;", "(import io)"},
		{"import a.b.c; import utils.*;", "(import a.b.c)\n(import utils.*)"},
		{"using Grid = Dict<string, List<int[]>>;", "(using Grid Dict<string, List<int[]>>)"},
		{"int main() { return 0; }", "(func int main () (block (return 0)))"},
		{"public int main() { }", "(func public int main () (block))"},
		{"void f(int a, out int b, string c = \"x\", double d = a * 2) { }",
			`(func void f ((int a) (out int b) (string c = "x") (double d = (* a 2))) (block))`},
		{"native int host(int x);", "(func native int host ((int x)) ;)"},
		{"static virtual int[] f() { }", "(func static virtual int[] f () (block))"},
		{"List<int> f(Func<int, int> g) { }", "(func List<int> f ((Func<int, int> g)) (block))"},
		{"class A { }", "(class A)"},
		{"class D : B implements I1, I2 { }", "(class D : B implements I1,I2)"},
		{"class C implements I { }", "(class C implements I)"},
		{`class P {
			int x;
			public int y = 2, z;
			static const int N = 1;
			public int P(int x, int y) { this.x = x; return 0; }
			P() { }
			public P(int v) { super(v); }
			public virtual string toString() { return ""; }
		}`, "(class P (field int x) (field public int y 2) (field public int z) (field static const int N 1) " +
			"(func public int P ((int x) (int y)) (block (= (. this x) x) (return 0))) (func P () (block)) " +
			"(func public P ((int v)) (block (super v))) (func public virtual string toString () (block (return \"\"))))"},
		{"interface I { public int area(); public void draw(out int n); }",
			"(interface I (func public int area () ;) (func public void draw ((out int n)) ;))"},
		{"struct S { int x; int y; }", "(struct S (field int x) (field int y))"},
		{"struct S { public int x, y; Point p; }", "(struct S (field public int x) (field public int y) (field Point p))"},
		{"enum E { A, B = 5, C }", "(enum E A (= B 5) C)"},
		{"enum E { A, }", "(enum E A)"},
		{"enum E { }", "(enum E)"},
		{"enum P { A = 1, B = 2; public int w(int m) { return this * m; } }",
			"(enum P (= A 1) (= B 2) (func public int w ((int m)) (block (return (* this m)))))"},
		{"public class A { } ;", "(class A)"},
		{"class C { List<Func<out int>> a, b; }", "(class C (field List<Func<out int>> a) (field List<Func<out int>> b))"},
	}
	for _, tt := range tests {
		f, err := Parse("d.n", []byte(tt.src))
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got := DumpFile(f); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestParseSeedExample(t *testing.T) {
	src := `import thread; import io;
class Producer {
    public Channel<int> feed;
    public void run() {
        for (int i = 1; i <= 10; i = i + 1) { feed.send(i); }
        feed.close();
    }
}
int main() {
    Producer p = Producer();
    Channel<int> c = {};
    p.feed = c;
    Thread producer = thread.spawn(p.run);
    int sum = 0;
    while (true) {
        try { sum = sum + c.recv(); }          // empty channel parks, the carrier is free
        catch (ChannelClosedException e) { break; }   // close is a broadcast stop signal
    }
    thread.join(producer);
    io.print("consumer: summed 1..10 to ${sum}");
    return 0;
}
`
	f, err := Parse("seed.n", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := `(import thread)
(import io)
(class Producer (field public Channel<int> feed) (func public void run () (block (for (var int (= i 1)) (<= i 10) (= i (+ i 1)) (block (call (. feed send) i))) (call (. feed close)))))
(func int main () (block (var Producer (= p (call Producer))) (var Channel<int> (= c (init))) (= (. p feed) c) (var Thread (= producer (call (. thread spawn) (. p run)))) (var int (= sum 0)) (while true (block (try (block (= sum (+ sum (call (. c recv))))) (catch ChannelClosedException e (block break))))) (call (. thread join) producer) (call (. io print) (+ "consumer: summed 1..10 to " sum)) (return 0)))`
	if got := DumpFile(f); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestShrSplit(t *testing.T) {
	tests := []struct{ src, want string }{
		{"List<List<int>> x;", "(var List<List<int>> x)"},
		{"Dict<string, List<int>> x;", "(var Dict<string, List<int>> x)"},
		{"List<List<List<int>>> x;", "(var List<List<List<int>>> x)"},
		{"List<Dict<int, List<int>>> x;", "(var List<Dict<int, List<int>>> x)"},
		{"List<List<int>>[] x = new List<List<int>>[2];", "(var List<List<int>>[] (= x (new List<List<int>> (len 2))))"},
		{"Func<List<int>, Func<int, int>> f;", "(var Func<List<int>, Func<int, int>> f)"},
	}
	for _, tt := range tests {
		got, err := parseBody(t, tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
	// the second '>' of a split '>>' has the column of the second character
	f, _ := Parse("s.n", []byte("void f() { List<List<int>> x = y >> 1; }"))
	d := f.Decls[0].(*FuncDecl).Body.Stmts
	if len(d) != 0 {
		t.Errorf("a '>>' outside type arguments must be an error, got %s", Dump(d[0]))
	}
}

func TestInterpolationPositions(t *testing.T) {
	src := "void f() {\n\tio.print(\"a\\t${name} ${x}\");\n}"
	f, err := Parse("i.n", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	call := f.Decls[0].(*FuncDecl).Body.Stmts[0].(*ExprStmt).X.(*Call)
	x := call.Args[0].X
	if got, want := Dump(x), `(+ (+ (+ "a\t" name) " ") x)`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	outer := x.(*Binary)
	if outer.Pos != (Pos{2, 11}) || outer.Op != PLUS {
		t.Errorf("binary pos %v op %v, want 2:11 +", outer.Pos, outer.Op)
	}
	if id := outer.Y.(*Ident); id.Pos != (Pos{2, 25}) {
		t.Errorf("x at %v, want 2:25", id.Pos)
	}
	inner := outer.X.(*Binary).X.(*Binary)
	if id := inner.Y.(*Ident); id.Pos != (Pos{2, 17}) {
		t.Errorf("name at %v, want 2:17", id.Pos)
	}
	if s := inner.X.(*StringLit); s.Pos != (Pos{2, 11}) {
		t.Errorf("literal at %v, want 2:11", s.Pos)
	}
	// a leading identifier gets "" prepended at the string's position
	e, _ := ParseExpr("i.n", []byte(`  "${a}"`))
	b := e.(*Binary)
	if s := b.X.(*StringLit); s.Value != "" || s.Pos != (Pos{1, 3}) || b.Y.(*Ident).Pos != (Pos{1, 6}) {
		t.Errorf("got %s at %v/%v", Dump(e), s.Pos, b.Y.(*Ident).Pos)
	}
}

func TestPositions(t *testing.T) {
	src := `class A : B implements I {
  public int x, y;
  int m(out int p) {
    a.b[i] += 1;
    return -x;
  }
}`
	f, _ := Parse("p.n", []byte(src))
	c := f.Decls[0].(*ClassDecl)
	m := c.Methods[0]
	stmts := m.Body.Stmts
	assign := stmts[0].(*Assign)
	ret := stmts[1].(*Return)
	idx := assign.LHS.(*Index)
	checks := []struct {
		what string
		got  Pos
		want Pos
	}{
		{"class", c.Pos, Pos{1, 1}},
		{"base", c.BasePos, Pos{1, 11}},
		{"implements", c.ImplPos[0], Pos{1, 24}},
		{"field x", c.Fields[0].Pos, Pos{2, 14}},
		{"field y", c.Fields[1].Pos, Pos{2, 17}},
		{"field type", c.Fields[0].Type.Pos, Pos{2, 10}},
		{"method", m.Pos, Pos{3, 3}},
		{"method name", m.NamePos, Pos{3, 7}},
		{"param", m.Params[0].Pos, Pos{3, 9}},
		{"param type", m.Params[0].Type.Pos, Pos{3, 13}},
		{"body", m.Body.Pos, Pos{3, 20}},
		{"body end", m.Body.End, Pos{6, 3}},
		{"assign op", assign.Pos, Pos{4, 12}},
		{"assign start", assign.Start(), Pos{4, 5}},
		{"index lbrack", idx.Lbrack, Pos{4, 8}},
		{"member name", idx.X.(*Member).NamePos, Pos{4, 7}},
		{"return", ret.Pos, Pos{5, 5}},
		{"unary", ret.X.Start(), Pos{5, 12}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
	call, _ := ParseExpr("c.n", []byte("f (a, b) "))
	if cl := call.(*Call); cl.Lparen != (Pos{1, 3}) || cl.Rparen != (Pos{1, 8}) {
		t.Errorf("call parens at %v %v", cl.Lparen, cl.Rparen)
	}
}

func TestFieldTypesAreNotShared(t *testing.T) {
	f, err := Parse("c.n", []byte("class C { Dict<string, int[]> a, b; }"))
	if err != nil {
		t.Fatal(err)
	}
	fs := f.Decls[0].(*ClassDecl).Fields
	if fs[0].Type == fs[1].Type || fs[0].Type.Args[1] == fs[1].Type.Args[1] {
		t.Error("fields of one declaration share a *TypeExpr")
	}
	if fs[0].Type.String() != fs[1].Type.String() || len(fs[1].Type.ArgOut) != 2 {
		t.Errorf("clone differs: %v vs %v", fs[0].Type, fs[1].Type)
	}
}
