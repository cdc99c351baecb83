package syntax

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	// Each src is wrapped in a function body when it has no top-level
	// keyword of its own; want lists every error of the file.
	tests := []struct{ src, want string }{
		// statements
		{"void f() { x++; }", "1:13: '++' is not an NLang operator (use x += 1)"},
		{"void f() { x--; }", "1:13: '--' is not an NLang operator (use x -= 1)"},
		{"void f() { ++x; }", "1:12: '++' is not an NLang operator (use x += 1)"},
		{"void f() { for (i = 0; i < n; i++) { } }", "1:32: '++' is not an NLang operator (use x += 1)"},
		{"void f() { a[i] += 1; }", "1:17: compound assignment to an element is not allowed (use a[i] = a[i] + x)"},
		{"void f() { a[i] *= 2; }", "1:17: compound assignment to an element is not allowed (use a[i] = a[i] * x)"},
		{"void f() { x &= 1; }", "1:14: '&=' is not an NLang operator (there are no bitwise operators)"},
		{"void f() { x |= 1; }", "1:14: '|=' is not an NLang operator (there are no bitwise operators)"},
		{"void f() { x ~= 1; }", "1:14: '~=' is not an NLang operator (there are no bitwise operators)"},
		{"void f() { x = a & b; }", "1:18: '&' is not an NLang operator (use && for logical and; there are no bitwise operators)"},
		{"void f() { x; }", "1:12: expression is not a statement"},
		{"void f() { x + 1; }", "1:12: expression is not a statement"},
		{"void f() { new C(); }", "1:12: expression is not a statement"},
		{"void f() { f() = 3; }", "1:12: cannot assign to this expression (want a variable, field or element)"},
		{"void f() { 1 = 3; }", "1:12: cannot assign to this expression (want a variable, field or element)"},
		{"void f() { if (a) int x = 1; }", "1:19: a declaration cannot be the body of if (use a block)"},
		{"void f() { while (a) List<int> l; }", "1:22: a declaration cannot be the body of while (use a block)"},
		{"void f() { for (;;) X y; }", "1:21: a declaration cannot be the body of for (use a block)"},
		{"void f() { foreach (int x in y) int z; }", "1:33: a declaration cannot be the body of foreach (use a block)"},
		{"void f() { if (a) f(); else const int y = 2; }", "1:29: a declaration cannot be the body of else (use a block)"},
		{"void f() { do int x; while (a); }", "1:15: a declaration cannot be the body of do (use a block)"},
		{"void f() { for (int i = 0; i < 3; int j = 0) { } }", "1:35: a declaration is not allowed in the step of a for loop"},
		{"void f() { try { } }", "1:12: try without catch or finally"},
		{"void f() { int x = 1 }", "1:22: expected ';', got '}'"},
		{"void f() {\n int x = 1\n int y = 2;\n}", "3:2: expected ';', got keyword 'int'"},
		{"void f() { return 1 2; }", `1:21: expected ';', got integer literal 2`},
		{"void f() { if (x = 1) { } }", "1:18: assignment is a statement, not an expression (did you mean ==?)"},
		{"void f() { while (x = 1) { } }", "1:21: assignment is a statement, not an expression (did you mean ==?)"},
		{"void f() { switch (x) { f(); case 1: } }", `1:25: expected 'case', 'default' or '}', got identifier "f"`},
		{"void f() { switch (x) { default: a(); default: b(); } }", "1:39: multiple defaults in switch (first at 1:25)"},
		{"void f() { switch (x) { case 1 f(); } }", `1:32: expected ':', got identifier "f"`},
		{"void f() { switch (x) { case 1 f(); case 2: g(); } h(); }", `1:32: expected ':', got identifier "f"`},
		{"void f() { switch (x) { default f(); case 2: g(); } }", `1:33: expected ':', got identifier "f"`},
		{"void f() { else { } }", "1:12: 'else' without 'if'"},
		{"void f() { catch (E e) { } }", "1:12: 'catch' without 'try'"},
		{"void f() { finally { } }", "1:12: 'finally' without 'try'"},
		{"void f() { case 1: }", "1:12: 'case' outside a switch"},
		{"void f() { class X {} }", "1:12: 'class' is not allowed inside a function body"},
		{"void f() { super.x(); }", "1:12: 'super' is only allowed as a constructor call super(args);"},
		{"void f() { int[] a = []; }", "1:22: the empty array literal [] is not allowed (use new T[0] or new List<T>{})"},
		{"void f() { throw }", "1:18: expected expression, got '}'"},
		{"void f() { g(; h(); }", "1:14: expected expression, got ';'"},
		{"void f() { x = y >> 1; }", "1:18: '>>' is not an NLang operator (there are no shift operators)"},
		{"void f() { List<int x; }", `1:21: expected '>' or ',' in type arguments, got identifier "x"`},
		{"void f() { List<out int> x; }", "1:17: 'out' is only allowed in Func type arguments"},
		{"void f() { foreach (x in xs) { } }", "1:23: expected identifier, got keyword 'in'"},
		{"void f() { catch_(); }", ""},
		{"void f() {", "1:11: expected '}', got end of file"},
		{"void f() { x = \"${a.b}\"; }", "1:17: interpolation takes a single identifier: ${a.b}"},
		{"void f() { x = \"${}\"; }", "1:17: interpolation takes a single identifier: ${}"},
		// declarations
		{`import "file.n";`, "1:8: import of a file name is no longer supported (write import name; without quotes)"},
		{"import a.;", "1:10: expected identifier, got ';'"},
		{"using = int;", "1:7: expected identifier, got '='"},
		{"int x = 5;", "1:5: global variables are not supported (use a local variable or a class field)"},
		{"int g;", "1:5: global variables are not supported (use a local variable or a class field)"},
		{"static class A { }", "1:1: modifiers other than an access modifier are not allowed on a class"},
		{"class A { class B { } }", "1:11: nested class declarations are not supported"},
		{"struct S { int x; int f() { return 0; } }", "1:23: struct S cannot have methods (use a class)"},
		{"enum E { A; int x; }", "1:17: enum E cannot have fields"},
		{"enum E { A B }", `1:12: expected enum member, ';' or '}', got identifier "B"`},
		{"public public void f() { }", "1:8: multiple access modifiers (public and public)"},
		{"public private void f() { }", "1:8: multiple access modifiers (public and private)"},
		{"static static void f() { }", "1:8: duplicate modifier 'static'"},
		{"void f(int a, ) { }", "1:15: expected type, got ')'"},
		{"void f() ( }", "1:10: expected '{' or ';' after the parameters of f, got '('"},
		{"class A { int x y; int z; }", `1:17: expected ';', got identifier "y"`},
		{"class A : { }", "1:11: expected identifier, got '{'"},
		{"}", "1:1: unexpected '}' at top level"},
		{"x", "1:2: expected identifier, got end of file"},
		{"5;", "1:1: expected declaration, got integer literal 5"},
		{"main() { }", "1:1: missing result type before main (use void if it returns nothing)"},
		{"class A { run() { } int x; }", "1:11: missing result type before run (use void if it returns nothing; a constructor is named A)"},
		{"void f() { x = \"a very long string literal indeed\" \"é\"; }", `1:52: expected ';', got string literal "é"`},
		{"void f() { x = 1 \"ééééééééééééééééé\"; }", `1:18: expected ';', got string literal "ééééééééé…`},
		// lexical errors reach the parser's list
		{"void f() { x = 'ab'; }", "1:16: char literal has more than one character (use double quotes for a string)"},
		{"void f() { x = \"a\\qb\"; }", `1:18: unknown escape sequence \q`},
		{"void f() {\n x = \"ab;\n y = 1;\n}", "2:6: newline in string literal"},
		{"void f() { x = 1 @ 2; }", "1:18: invalid character U+0040 '@'; 1:20: expected ';', got integer literal 2"},
	}
	for _, tt := range tests {
		_, err := Parse("t.n", []byte(tt.src))
		if got := errStrings(err); got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestMultipleErrors(t *testing.T) {
	src := `import io;
class A {
    int x y;
    public int ok() { return 1; }
    void f( { }
}
int main() {
    int a = 1
    a++;
    b[0] += 2;
    if (a = 2) { g(); }
    io.print("${a+1}");
    while (true) { h(;
    }
    return 0;
}
void tail() { x = ; }
`
	f, err := Parse("m.n", []byte(src))
	want := strings.Join([]string{
		`3:11: expected ';', got identifier "y"`,
		"5:13: expected type, got '{'",
		"9:5: expected ';', got identifier \"a\"",
		"9:6: '++' is not an NLang operator (use x += 1)",
		"10:10: compound assignment to an element is not allowed (use a[i] = a[i] + x)",
		"11:11: assignment is a statement, not an expression (did you mean ==?)",
		"12:15: interpolation takes a single identifier: ${a+1}",
		"13:22: expected expression, got ';'",
		"17:19: expected expression, got ';'",
	}, "; ")
	if got := errStrings(err); got != want {
		t.Errorf("got\n%s\nwant\n%s", strings.ReplaceAll(got, "; ", "\n"), strings.ReplaceAll(want, "; ", "\n"))
	}
	// recovery keeps everything it could parse
	wantDump := `(import io)
(class A (field int x) (func public int ok () (block (return 1))))
(func int main () (block (var int (= a 1)) (+= (index b 0) 2) (call (. io print) "") (while true (block)) (return 0)))
(func void tail () (block))`
	if got := DumpFile(f); got != wantDump {
		t.Errorf("got\n%s\nwant\n%s", got, wantDump)
	}
}

func TestTooManyErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("void f() {\n")
	for i := 0; i < 200; i++ {
		b.WriteString("x;\n")
	}
	b.WriteString("}\n")
	_, err := Parse("many.n", []byte(b.String()))
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("got %v", err)
	}
	if len(list) != maxErrors+1 {
		t.Fatalf("got %d errors, want %d", len(list), maxErrors+1)
	}
	if last := list[len(list)-1]; last.Msg != "too many errors" {
		t.Errorf("last error %q", last.Msg)
	}
	if first := list[0]; first.Pos != (Pos{2, 1}) {
		t.Errorf("first error at %v", first.Pos)
	}
}

func TestPathologicalInputs(t *testing.T) {
	inputs := []string{
		"void f() { x = " + strings.Repeat("(", 20000) + "1; }",
		"void f() { x = " + strings.Repeat("-", 20000) + "1; }",
		"void f() " + strings.Repeat("{", 20000),
		"void f() { " + strings.Repeat("if (a) ", 10000) + "f(); }",
		"void f() { List" + strings.Repeat("<List", 10000) + " x; }",
		"void f() { x = " + strings.Repeat("[", 10000) + "; }",
		"void f() { x = " + strings.Repeat("{", 10000) + "; }",
		"void f() { x = f" + strings.Repeat("(g", 10000) + "; }",
		strings.Repeat("}", 10000),
		strings.Repeat("class A { ", 5000),
		strings.Repeat("\xff", 1000),
		"void f() { x = \"" + strings.Repeat("${a}", 20000) + "\"; }",
	}
	for i, src := range inputs {
		_, err := Parse("p.n", []byte(src))
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Errorf("input %d: %v", i, err)
		}
		_, err = ParseExpr("p.n", []byte(src))
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Errorf("input %d (expr): %v", i, err)
		}
	}
	_, err := Parse("p.n", []byte(inputs[0]))
	if !strings.Contains(errStrings(err), "program is nested too deeply") {
		t.Errorf("deep nesting: %v", err)
	}
}

func TestInternalErrorRecovered(t *testing.T) {
	p := &parser{file: "x.n"}
	var err error
	func() {
		defer p.finish(&err)
		p.init([]byte("int x"))
		var m map[string]int
		m["boom"] = 1 // a stray runtime panic
	}()
	if got := errStrings(err); got != "1:1: internal error: assignment to entry in nil map" {
		t.Errorf("got %q", got)
	}
}

func TestErrorFormatting(t *testing.T) {
	e := &Error{File: "a.n", Pos: Pos{3, 7}, Msg: "boom"}
	if got := e.Error(); got != "a.n:3:7: boom" {
		t.Errorf("got %q", got)
	}
	if got := (&Error{Pos: Pos{1, 2}, Msg: "m"}).Error(); got != "1:2: m" {
		t.Errorf("got %q", got)
	}
	if got := (&Error{File: "f.n", Msg: "m"}).Error(); got != "f.n: m" {
		t.Errorf("got %q", got)
	}
	var l ErrorList
	if l.Err() != nil {
		t.Error("empty list: Err() != nil")
	}
	l.Add("b.n", Pos{1, 1}, "third")
	l.Add("a.n", Pos{2, 1}, "second")
	l.Add("a.n", Pos{1, 5}, "first")
	l.Add("a.n", Pos{1, 5}, "first")
	l.RemoveDuplicates()
	if !sort.IsSorted(l) || len(l) != 3 {
		t.Errorf("not sorted/deduplicated: %v", l)
	}
	want := "a.n:1:5: first\na.n:2:1: second\nb.n:1:1: third"
	if got := l.Err().Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	l.Add("a.n", Pos{2, 9}, "same line")
	l.RemoveMultiples()
	if got := l.Error(); got != want {
		t.Errorf("RemoveMultiples: got %q, want %q", got, want)
	}
	var asList ErrorList
	if !errors.As(fmt.Errorf("wrapped: %w", l.Err()), &asList) || len(asList) != 3 {
		t.Error("errors.As on a wrapped ErrorList failed")
	}
}

func TestFormatErrors(t *testing.T) {
	src := "int main() {\n\tint x = 1\n\tio.print(\"é ${a+b}\");\n  y++;\n}"
	_, err := Parse("main.n", []byte(src))
	want := "main.n:3:2: expected ';', got identifier \"io\"\n" +
		"\tio.print(\"é ${a+b}\");\n" +
		"\t^\n" +
		"main.n:3:15: interpolation takes a single identifier: ${a+b}\n" +
		"\tio.print(\"é ${a+b}\");\n" +
		"\t            ^\n" +
		"main.n:4:4: '++' is not an NLang operator (use x += 1)\n" +
		"  y++;\n" +
		"   ^\n"
	if got := FormatErrors(err, []byte(src)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// a position on the empty last line, a position past the end of its
	// line, and a single *Error
	src2 := "void f() {\r\n  g()\r\n"
	_, err = Parse("crlf.n", []byte(src2))
	want = "crlf.n:3:1: expected ';', got end of file\n\n^\n" +
		"crlf.n:3:1: expected '}', got end of file\n\n^\n"
	if got := FormatErrors(err, []byte(src2)); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	e := &Error{File: "x.n", Pos: Pos{1, 6}, Msg: "at the end"}
	if got, want := FormatErrors(e, []byte("abc\n")), "x.n:1:6: at the end\nabc\n     ^\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := FormatErrors(errors.New("plain"), nil); got != "plain\n" {
		t.Errorf("got %q", got)
	}
	if got := FormatErrors(nil, nil); got != "" {
		t.Errorf("got %q", got)
	}
	// a leading BOM does not shift the caret
	_, err = Parse("bom.n", []byte("\uFEFFint @"))
	if got, want := FormatErrors(err, []byte("\uFEFFint @")), "bom.n:1:5: invalid character U+0040 '@'\nint @\n    ^\nbom.n:1:6: expected identifier, got end of file\nint @\n     ^\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"import io;\nint main() { io.print(\"hi ${x}\"); return 0; }",
		"class A : B implements I { public int x = 1; public int A(int v) { super(v); return 0; } virtual string s() { return \"\"; } }",
		"interface I { public int area(); }\nstruct S { int x; int y; }\nenum E { A, B = 5; public int w() { return this; } }",
		"void f() { List<List<int>> l = new List<List<int>>{}; Dict<string, int> d = {\"a\": 1}; for (int i = 0; i < 3; i = i + 1) { l[i] = [1, 2]; } }",
		"void f() { switch (x) { case 1, 2: break; default: f(); } try { throw; } catch (E e) { } finally { } foreach (char c in s) { } do { } while (a && !b || c as bool); }",
		"void f() { x++; a[i] += 1; if (x = 1) int y; \"${a+b}\"; '\\q'; 0x; }",
		"using G = Func<void, out int>; native int h(); void g(int a = 1, out int b) { h(b = 2, out c); }",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("fuzz.n", src)
		if file == nil {
			t.Fatal("Parse returned a nil file")
		}
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("Parse: %v", err)
		}
		_ = DumpFile(file)
		_ = FormatErrors(err, src)
		x, err := ParseExpr("fuzz.n", src)
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("ParseExpr: %v", err)
		}
		if err == nil {
			_ = Dump(x)
		}
	})
}
