package compile

import (
	"strings"
	"testing"
)

// convContexts lists every context where a value meets the type it must
// have. Each program puts the expression EXPR where a float is expected;
// x is an int, d a double, and h a Holder. (Arguments of thread.spawn,
// whose library lives in sched, are checked by the scripts
// testdata/run/lang/conv_contexts*.n.)
var convContexts = []struct {
	name string
	src  string // the statements of main, or a declaration with DECL
}{
	{"local initialiser", `float v = EXPR;`},
	{"assignment to a local", `float v = 0.5f; v = EXPR;`},
	{"compound assignment", `float v = 0.5f; v += EXPR;`}, // see arithmetic below
	{"const initialiser", `const float v = EXPR;`},
	{"field initialiser", `DECL class F { int x = 3; double d = 0.5; public float v = EXPR; }`},
	{"assignment to a field", `h.v = EXPR;`},
	{"assignment to a bare field in a method", `DECL class M { float v; void set(int x, double d) { v = EXPR; } }`},
	{"array element", `float[] a = new float[1]; a[0] = EXPR;`},
	{"List element", `List<float> l = [0.5]; l[0] = EXPR;`},
	{"Dict value", `Dict<string, float> m = {}; m["k"] = EXPR;`},
	{"Dict key", `Dict<float, int> m = {}; m[EXPR] = 1;`},
	{"Dict key read", `Dict<float, int> m = {}; m.set(0.5, 1); int r = m[EXPR];`},
	{"user function argument", `takes(EXPR);`},
	{"named argument", `named(p = EXPR);`},
	{"method argument", `h.put(EXPR);`},
	{"constructor argument", `Holder k = new Holder(EXPR);`},
	{"constructor argument without new", `Holder k = Holder(EXPR);`},
	{"function value argument", `Func<void, float> f = takes; f(EXPR);`},
	{"List<float>.add", `List<float> l = {}; l.add(EXPR);`},
	{"List<float>.set", `List<float> l = [0.5]; l.set(0, EXPR);`},
	{"Dict<float, int>.set", `Dict<float, int> m = {}; m.set(EXPR, 42);`},
	{"ByteStream.writeFloat", `ByteStream s = new ByteStream(); s.writeFloat(EXPR);`},
	{"default parameter value", `DECL void withDefault(int x, double d, float p = EXPR) { }`},
	{"return", `DECL float give(int x, double d) { return EXPR; }`},
	{"array initialiser", `float[] a = [0.5, EXPR];`},
	{"List initialiser", `List<float> l = new List<float>{EXPR};`},
	{"List literal", `List<float> l = [EXPR];`},
	{"Dict initialiser", `Dict<string, float> m = new Dict<string, float>{"k": EXPR};`},
	{"object initialiser", `Holder k = new Holder{v: EXPR};`},
	{"struct initialiser", `P p = new P{w: EXPR};`},
}

// convProgram builds the program of one context with expr in place.
func convProgram(src, expr string) string {
	decl := ""
	if rest, ok := strings.CutPrefix(src, "DECL "); ok {
		decl, src = rest, ""
	}
	prog := `struct P { float w; }
class Holder {
    public float v;
    public int Holder(float start = 0.5f) { v = start; return 0; }
    public void put(float p) { v = p; }
}
void takes(float p) { }
void named(int a = 1, float p = 0.5f) { }
` + decl + `
int main() {
    int x = 3;
    double d = 0.5;
    Holder h = new Holder();
    ` + src + `
    return 0;
}`
	return strings.ReplaceAll(prog, "EXPR", expr)
}

// TestConversionContexts checks that every context applies the one
// conversion rule: the same expressions convert to float, or fail with
// the same error, wherever they meet a float.
func TestConversionContexts(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want string // "" compiles; else a substring of the one error
	}{
		{"1.5", ""},
		{"-0.25", ""},
		{"x + 0.5", ""},
		{"(x * 2 - 0.5) / 4", ""},
		{"1.5f", ""},
		{"x", ""},   // int to float (a warning)
		{"300", ""}, // an integer literal is exactly a float
		{"0.1", "a floating constant here must be exactly a float"},
		{"x + 0.1", "a floating constant here must be exactly a float"},
		{"d", "without a cast (use as float)"},
		{"d * 0.5", "without a cast (use as float)"},
		{"0.5 + d", "without a cast (use as float)"},
		{`"1.5"`, "cannot use string as float"},
		{"true", "cannot use bool as float"},
		{"null", "cannot use null as float"},
	} {
		for _, ctx := range convContexts {
			src := convProgram(ctx.src, tc.expr)
			errs := compileErrors(t, src)
			want := tc.want
			if strings.Contains(ctx.src, "+=") && (tc.expr == "true" || tc.expr == "null") {
				// v += e is v = v + e: the addition fails first
				want = "invalid operation: float + "
			}
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("%s, %s: unexpected errors %q\n%s", ctx.name, tc.expr, errs, src)
			case want != "" && len(errs) != 1:
				t.Errorf("%s, %s: got errors %q, want one containing %q\n%s", ctx.name, tc.expr, errs, want, src)
			case want != "" && !strings.Contains(errs[0], want):
				t.Errorf("%s, %s: got error %q, want one containing %q", ctx.name, tc.expr, errs[0], want)
			}
		}
	}
}

// TestConversionContextsIntegers checks constant fitting of integer
// literals in the same contexts, with byte as the expected type.
func TestConversionContextsIntegers(t *testing.T) {
	for _, ctx := range convContexts {
		switch {
		case strings.Contains(ctx.src, "ByteStream") || strings.Contains(ctx.src, "Dict<float"):
			continue // these targets are float by their library signature
		case strings.Contains(ctx.src, "+="):
			continue // byte v += 1 is v = v + 1, an int: see TestCompileErrors
		}
		for _, tc := range []struct {
			expr, want string
		}{
			{"100", ""},
			{"-128", ""},
			{"300", "overflows byte"},
			{"x", "cannot use int as byte"},
		} {
			prog := strings.NewReplacer("float", "byte", "0.5f", "1", "0.5", "1").Replace(convProgram(ctx.src, "EXPR"))
			prog = strings.ReplaceAll(prog, "double d = 1;", "double d = 0.5;")
			prog = strings.ReplaceAll(prog, "EXPR", tc.expr)
			errs := compileErrors(t, prog)
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("%s, %s: unexpected errors %q\n%s", ctx.name, tc.expr, errs, prog)
			case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], tc.want)):
				t.Errorf("%s, %s: got errors %q, want one containing %q\n%s", ctx.name, tc.expr, errs, tc.want, prog)
			}
		}
	}
}

// TestConversionOverloads checks that a fitted constant costs more than
// an exact match, so overloads on float and double stay unambiguous.
func TestConversionOverloads(t *testing.T) {
	for _, tc := range []struct {
		call string
		want string // "" compiles
	}{
		{"pick(1.5)", ""},
		{"pick(1.5f)", ""},
		{"pick(x + 0.5)", ""},
		{"pick(f)", ""},
		{"pick(f * 0.5)", ""},
		{"only(1.5)", ""},
		{"only(0.1)", "exactly a float"},
	} {
		src := `string pick(float v) { return "float"; }
string pick(double v) { return "double"; }
string only(float v) { return "float"; }
int main() {
    int x = 1;
    float f = 0.5f;
    string s = ` + tc.call + `;
    return 0;
}`
		errs := compileErrors(t, src)
		switch {
		case tc.want == "" && len(errs) > 0:
			t.Errorf("%s: unexpected errors %q", tc.call, errs)
		case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], tc.want)):
			t.Errorf("%s: got errors %q, want one containing %q", tc.call, errs, tc.want)
		}
	}
}

// TestDefaultErrorOnce checks that an error in a default value is
// reported once, where it is declared, although each call compiles the
// default again (the caller's locals are not suggested).
func TestDefaultErrorOnce(t *testing.T) {
	errs := compileErrors(t, `int f(int a = bb) { return a; }
int main() {
    int b = 1;
    int x = f();
    return f();
}`)
	want := []string{"1:15: undefined: bb"}
	if strings.Join(errs, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors %q, want %q", errs, want)
	}
}

// TestConversionForeach checks the one context without an expression:
// the loop variable of foreach receives each element by the same rule.
func TestConversionForeach(t *testing.T) {
	for _, tc := range []struct {
		decl, loop, want string
	}{
		{"List<float> xs = [1.5];", "float v", ""},
		{"List<int> xs = [1];", "float v", ""},
		{"byte[] xs = [1];", "long v", ""},
		{"List<string> xs = [\"a\"];", "Object v", ""},
		{"List<double> xs = [1.5];", "float v", "cannot iterate double as float"},
		{"List<long> xs = [1];", "int v", "cannot iterate long as int"},
		{"List<Object> xs = [1];", "int v", "cannot iterate Object as int"},
	} {
		src := "int main() {\n    " + tc.decl + "\n    foreach (" + tc.loop + " in xs) { }\n    return 0;\n}"
		errs := compileErrors(t, src)
		switch {
		case tc.want == "" && len(errs) > 0:
			t.Errorf("%s %s: unexpected errors %q", tc.decl, tc.loop, errs)
		case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], tc.want)):
			t.Errorf("%s %s: got errors %q, want one containing %q", tc.decl, tc.loop, errs, tc.want)
		}
	}
}
