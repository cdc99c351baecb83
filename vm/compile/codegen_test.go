package compile

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
)

// compileTest compiles src (a program without main: a trivial one is
// appended) as file t.n and fails the test on any error.
func compileTest(tb testing.TB, src string) *vm.Program {
	tb.Helper()
	prog, err := CompileFile("t.n", []byte(src+"\nint main() { return 0; }\n"), Options{Lib: vm.StdLib()})
	if err != nil {
		tb.Fatalf("compile: %v\n%s", err, src)
	}
	return prog
}

// funcNamed returns the compiled function name ("f", "C.m") of prog.
func funcNamed(tb testing.TB, prog *vm.Program, name string) *vm.Funcode {
	tb.Helper()
	fn := prog.FuncByName(name)
	if fn == nil {
		tb.Fatalf("no function %s", name)
	}
	return fn
}

// listing renders fn with vm.DisassembleFunc in a form that is easy to
// write in a test: the header and the source-line column are dropped,
// runs of spaces become one, so an instruction reads "pc op operands ;
// comment" and a table entry "handler [0, 1) -> 4 any in r1" or
// "local int i r0 [1, 6)".
func listing(fn *vm.Funcode) string {
	var buf bytes.Buffer
	vm.DisassembleFunc(&buf, fn)
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	var out []string
	for _, l := range lines[1:] { // lines[0] is the header
		if !strings.HasPrefix(l, "  handler") && !strings.HasPrefix(l, "  local") {
			l = l[7:] // "  " + 4-column source line + " "
		}
		out = append(out, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(out, "\n")
}

// dropLocals removes the local-variable lines of a listing.
func dropLocals(listing string) string {
	var out []string
	for _, l := range strings.Split(listing, "\n") {
		if !strings.HasPrefix(l, "local ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// trimListing removes the indentation of an expected listing.
func trimListing(s string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		out = append(out, strings.TrimSpace(l))
	}
	return strings.Join(out, "\n")
}

func TestCodegen(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		fn   string // the function whose listing is checked
		want string
		// noLocals leaves the local-variable table out of the comparison
		noLocals bool
	}{
		{
			// the loop condition is one fused compare-with-constant; the
			// back-edge is the LOOP safepoint
			name: "fused while loop",
			src: `int sum() {
    int i = 0;
    int s = 0;
    while (i < 10) {
        s += i;
        i += 1;
    }
    return s;
}`,
			fn: "sum",
			want: `
				0 loadi r0, 0
				1 loadi r1, 0
				2 jnltik r0, 10, 6
				3 addi r1, r1, r0
				4 addik r0, r0, 1
				5 loopltik r0, 10, 3
				6 ret r1
				7 loadnil r2
				8 ret r2
				local int i r0 [1, 9)
				local int s r1 [2, 9)`,
		},
		{
			// a long accumulator adds an int without a conversion
			name: "long accumulator",
			src: `long sum(int n) {
    long s = 0;
    for (int i = 0; i < n; i += 1) {
        s += i;
    }
    return s;
}`,
			fn: "sum",
			want: `
				0 loadi r1, 0
				1 loadi r2, 0
				2 jnlti r2, r0, 6
				3 addl r1, r1, r2
				4 addik r2, r2, 1
				5 looplti r2, r0, 3
				6 ret r1
				7 loadnil r3
				8 ret r3
				local int n r0 [0, 9)
				local long s r1 [1, 9)
				local int i r2 [2, 9)`,
		},
		{
			// x > 0 compares with the constant on the left: jngtik;
			// <= of two registers: jnlei; doubles: jnltd
			name: "other fused conditions",
			src: `int down(int n) {
    while (n > 0) {
        n -= 1;
    }
    for (int i = 0; i <= n; i += 1) {
    }
    double d = 0.5;
    while (d < 2.5) {
        d += 1.0;
    }
    return n;
}`,
			fn: "down",
			want: `
				0 move r1, r0
				1 jngtik r0, 0, 4
				2 addik r0, r0, -1
				3 loopgtik r0, 0, 2
				4 loadi r2, 0
				5 jnlei r2, r0, 8
				6 addik r2, r2, 1
				7 looplei r2, r0, 6
				8 loadk r3, k0 ; 4602678819172646912 / 0.5
				9 loadk r4, k1 ; 4612811918334230528 / 2.5
				10 jnltd r3, r4, 16
				11 loadk r4, k2 ; 4607182418800017408 / 1
				12 addd r3, r3, r4
				13 loadk r5, k1 ; 4612811918334230528 / 2.5
				14 jnltd r3, r5, 16
				15 loop 11
				16 ret r0
				17 loadnil r5
				18 ret r5
				local int n r0 [0, 19)
				local int i r2 [5, 19)
				local double d r3 [9, 19)`,
		},
		{
			// x + k and x - k with a small constant: one instruction;
			// long operands use the long form
			name: "add immediate",
			src: `long f(int x, long y) {
    int a = x + 1;
    int b = x - 3;
    return y + 1;
}`,
			fn: "f",
			want: `
				0 addik r2, r0, 1
				1 addik r3, r0, -3
				2 addlk r4, r1, 1
				3 ret r4
				4 loadnil r5
				5 ret r5
				local int x r0 [0, 6)
				local long y r1 [0, 6)
				local int a r2 [1, 6)
				local int b r3 [2, 6)`,
		},
		{
			// int → double is a CONV; the operation is typed (muld)
			name: "int to double widening",
			src: `double f(int x) {
    double d = x;
    return d * x;
}`,
			fn: "f",
			want: `
				0 conv r1, r0 ; int -> double
				1 conv r2, r0 ; int -> double
				2 muld r2, r1, r2
				3 ret r2
				4 loadnil r3
				5 ret r3
				local int x r0 [0, 6)
				local double d r1 [1, 6)`,
		},
		{
			// integer widening needs no code; narrowing with as is a CONV
			name: "integer widening and narrowing",
			src: `int f(byte b) {
    long l = b;
    return l as int;
}`,
			fn: "f",
			want: `
				0 move r1, r0
				1 conv r2, r1 ; long -> int
				2 ret r2
				3 loadnil r3
				4 ret r3
				local byte b r0 [0, 5)
				local long l r1 [1, 5)`,
		},
		{
			// a scalar operand is converted with TOSTR; a class operand
			// calls its toString virtually, null giving "null"
			name: "string concatenation",
			src: `class Node {
}
string f(int x, Node n) {
    return "x=" + x + n;
}`,
			fn: "f",
			want: `
				0 loadk r2, k0 ; "x="
				1 tostr r3, r0 ; int
				2 concat r2, r2, r3
				3 move r4, r1
				4 isnull r5, r4
				5 jf r5, 8
				6 loadk r3, k1 ; "null"
				7 jmp 9
				8 callv r4, v2, r3 ; virtual
				9 concat r2, r2, r3
				10 ret r2
				11 loadnil r3
				12 ret r3
				local int x r0 [0, 13)
				local Node n r1 [0, 13)`,
		},
		{
			// a virtual method: CALLV through the vtable; a plain method:
			// CALL; an interface method: CALLI by name; a native: CALLN
			name: "calls",
			src: `import io;
interface Shape {
    public int area();
}
class Base implements Shape {
    public virtual int v() { return 1; }
    public int plain() { return 2; }
    public int area() { return 3; }
}
int top(int a) { return a; }
void calls(Base b, Shape s) {
    int x = b.v();
    int y = b.plain();
    int z = s.area();
    io.print(top(x));
}`,
			fn: "calls",
			want: `
				0 move r2, r0
				1 callv r2, v3, r3 ; virtual
				2 move r2, r3
				3 move r3, r0
				4 call r3, r4 ; Base.plain
				5 move r3, r4
				6 move r4, r1
				7 calli r4, r5 ; area
				8 move r4, r5
				9 move r6, r2
				10 call r6, r5 ; top
				11 tostr r5, r5 ; int
				12 calln r5, r7 ; io.print
				13 retv
				local Base b r0 [0, 14)
				local Shape s r1 [0, 14)
				local int x r2 [3, 14)
				local int y r3 [6, 14)
				local int z r4 [9, 14)`,
		},
		{
			// the finally block is inlined on the normal path and in a
			// catch-all handler that rethrows
			name: "try finally",
			src: `import io;
int f(int a) {
    try {
        a = a + 1;
    } finally {
        io.print("f");
    }
    return a;
}`,
			fn: "f",
			want: `
				0 move r1, r0
				1 addik r0, r0, 1
				2 loadk r3, k0 ; "f"
				3 calln r3, r4 ; io.print
				4 jmp 8
				5 loadk r5, k0 ; "f"
				6 calln r5, r6 ; io.print
				7 rethrow r2
				8 ret r0
				9 loadnil r7
				10 ret r7
				handler [1, 2) -> 5 any in r2
				local int a r0 [0, 11)`,
		},
		{
			// the catch clause guards the try body; finally guards the
			// body and the catch body, and is inlined three times
			name: "try catch finally",
			src: `int f(int a) {
    try {
        a = 10 / a;
    } catch (DivByZeroException e) {
        a = -1;
    } finally {
        a += 100;
    }
    return a;
}`,
			fn: "f",
			want: `
				0 move r1, r0
				1 loadi r4, 10
				2 divi r0, r4, r0
				3 addik r0, r0, 100
				4 jmp 11
				5 move r5, r3
				6 loadi r0, -1
				7 addik r0, r0, 100
				8 jmp 11
				9 addik r0, r0, 100
				10 rethrow r2
				11 ret r0
				12 loadnil r5
				13 ret r5
				handler [1, 3) -> 5 DivByZeroException in r3
				handler [1, 3) -> 9 any in r2
				handler [5, 7) -> 9 any in r2`,
			noLocals: true, // the catch variable's live range is not pinned here
		},
		{
			// break out of a try runs its finally first; the inlined
			// copies are outside the protected ranges
			// the break keeps a pc of its own (the nop) for its line
			name: "break through finally",
			src: `int f(int n) {
    int s = 0;
    while (s < n) {
        try {
            if (s == 3) {
                break;
            }
            s += 1;
        } finally {
            s += 10;
        }
    }
    return s;
}`,
			fn: "f",
			want: `
				0 loadi r1, 0
				1 jnlti r1, r0, 14
				2 loadi r3, 3
				3 eq r4, r1, r3
				4 jf r4, 8
				5 nop
				6 addik r1, r1, 10
				7 jmp 14
				8 addik r1, r1, 1
				9 addik r1, r1, 10
				10 jmp 13
				11 addik r1, r1, 10
				12 rethrow r2
				13 looplti r1, r0, 2
				14 ret r1
				15 loadnil r3
				16 ret r3
				handler [2, 6) -> 11 any in r2
				handler [8, 9) -> 11 any in r2
				local int n r0 [0, 17)
				local int s r1 [1, 17)`,
		},
		{
			// a block-scoped local lives from its initialization to the
			// end of its block; its register is reused after the block
			name: "block-scoped local",
			src: `int f(int a) {
    if (a > 0) {
        int b = a * 2;
        a = b;
    }
    int c = a;
    return c;
}`,
			fn: "f",
			want: `
				0 move r1, r0
				1 jngtik r0, 0, 5
				2 loadi r2, 2
				3 muli r2, r0, r2
				4 move r0, r2
				5 move r2, r0
				6 ret r2
				7 loadnil r3
				8 ret r3
				local int a r0 [0, 9)
				local int b r2 [4, 5)
				local int c r2 [6, 9)`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fn := funcNamed(t, compileTest(t, tc.src), tc.fn)
			got := listing(fn)
			if tc.noLocals {
				got = dropLocals(got)
			}
			if want := trimListing(tc.want); got != want {
				t.Errorf("listing of %s:\n%s\n\nwant:\n%s", tc.fn, got, want)
			}
		})
	}
}

// TestCodegenCollections checks that a List literal is a NEWLIST whose
// length rides in the following NOP, and a Dict subscript a CALLN.
func TestCodegenCollections(t *testing.T) {
	fn := funcNamed(t, compileTest(t, `int f(Dict<string, int> d) {
    List<int> l = [4, 5];
    return l[1] + d["k"];
}`), "f")
	want := trimListing(`
		0 loadi r1, 4
		1 loadi r2, 5
		2 newlist r3, r1 ; List<int>
		3 nop 2
		4 move r1, r3
		5 loadi r2, 1
		6 lget r3, r1, r2
		7 move r4, r0
		8 loadk r5, k0 ; "k"
		9 calln r4, r6 ; Dict.get
		10 addi r2, r3, r6
		11 ret r2
		12 loadnil r3
		13 ret r3
		local Dict<string, int> d r0 [0, 14)
		local List<int> l r1 [5, 14)`)
	if got := listing(fn); got != want {
		t.Errorf("listing:\n%s\n\nwant:\n%s", got, want)
	}
}

// TestLineTable checks that each statement starts a line-table entry
// marked Stmt at the statement's position, and that Pos maps every pc
// to the entry that covers it.
func TestLineTable(t *testing.T) {
	src := `int f(int a) {
    int b = a + 1;
    if (b > 2) {
        b = b * 2;
    }
    while (b < 100) {
        b += a;
    }
    return b;
}`
	fn := funcNamed(t, compileTest(t, src), "f")
	var stmts []string
	for _, e := range fn.Lines {
		if e.Stmt {
			stmts = append(stmts, fmt.Sprintf("pc %d at %d:%d", e.PC, e.Line, e.Col))
		}
	}
	want := []string{
		"pc 0 at 2:9",  // int b = …: the declared name
		"pc 1 at 3:5",  // if: one fused compare-and-branch
		"pc 2 at 4:9",  // b = b * 2
		"pc 4 at 6:12", // the loop's entry test
		"pc 5 at 7:9",  // b += a
		"pc 6 at 6:12", // the test at the bottom (a rotated loop's back-edge)
		"pc 7 at 9:5",  // return b
		"pc 8 at 10:1", // the closing brace: falling off the end
	}
	if got := strings.Join(stmts, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("statement starts:\n%s\n\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	// entries are sorted by pc and start at pc 0
	for i, e := range fn.Lines {
		if i > 0 && e.PC <= fn.Lines[i-1].PC {
			t.Errorf("line entry %d (pc %d) is not after entry %d (pc %d)", i, e.PC, i-1, fn.Lines[i-1].PC)
		}
	}
	// Pos: an instruction inside a statement reports the statement's line
	for _, tc := range []struct {
		pc        int32
		line, col int32
	}{
		{0, 2, 9}, {1, 3, 5}, {2, 4, 9}, {3, 4, 9}, {4, 6, 12},
		{5, 7, 9}, {6, 6, 12}, // the back-edge tests the condition
		{7, 9, 5},
	} {
		if line, col := fn.Pos(tc.pc); line != tc.line || col != tc.col {
			t.Errorf("Pos(%d) = %d:%d, want %d:%d", tc.pc, line, col, tc.line, tc.col)
		}
	}
	if fn.Line != 1 || fn.EndLine != 10 {
		t.Errorf("f declared at lines %d-%d, want 1-10", fn.Line, fn.EndLine)
	}
}

// TestLineTableCallColumns checks the non-statement entries that place a
// call (for backtraces) at its callee's name.
func TestLineTableCallColumns(t *testing.T) {
	src := `import io;
class P { public int v; }
int f(P p) {
    io.print("a" +
        p.v);
    return 0;
}`
	fn := funcNamed(t, compileTest(t, src), "f")
	var getf, calln int32 = -1, -1
	for pc := range fn.Code {
		switch fn.Code[pc].Op {
		case vm.GETF:
			getf = int32(pc)
		case vm.CALLN:
			calln = int32(pc)
		}
	}
	if getf < 0 || calln < 0 {
		t.Fatalf("no getf or calln in\n%s", listing(fn))
	}
	if line, col := fn.Pos(getf); line != 5 || col != 11 {
		t.Errorf("getf at %d:%d, want 5:11 (the field name)", line, col)
	}
	if line, col := fn.Pos(calln); line != 4 || col != 8 {
		t.Errorf("calln at %d:%d, want 4:8 (the function name)", line, col)
	}
}
