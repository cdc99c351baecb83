package vm

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"weak"
)

// stdLib is the library under test, shared by the lib_*_test files.
var stdLib = StdLib()

// libThread returns a bare thread on a fresh machine reading stdin, and
// the machine's stdout and stderr.
func libThread(stdin string) (*Thread, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	m := NewMachine(NewProgram(), strings.NewReader(stdin), &out, &errb)
	return &Thread{M: m}, &out, &errb
}

// libNative returns the native of owner (a package or a method receiver
// kind) with exactly the signature sig.
func libNative(tb testing.TB, owner, sig string) *Native {
	tb.Helper()
	list := stdLib.Methods[owner]
	if p, ok := stdLib.Packages[owner]; ok {
		list = p.Funcs
	}
	for _, n := range list {
		if n.Sig == sig {
			return n
		}
	}
	tb.Fatalf("no native %q in %s", sig, owner)
	return nil
}

// callLib calls the native of owner with signature sig.
func callLib(tb testing.TB, t *Thread, owner, sig string, args ...Value) (Value, error) {
	tb.Helper()
	return libNative(tb, owner, sig).Fn(t, args)
}

// mustLib calls a native that must succeed.
func mustLib(tb testing.TB, t *Thread, owner, sig string, args ...Value) Value {
	tb.Helper()
	v, err := callLib(tb, t, owner, sig, args...)
	if err != nil {
		tb.Fatalf("%s %s: unexpected error %v", owner, sig, err)
	}
	return v
}

// wantLibThrow checks that err is a *Throw of class whose message contains
// every one of parts.
func wantLibThrow(tb testing.TB, err error, class string, parts ...string) {
	tb.Helper()
	var th *Throw
	if !errors.As(err, &th) {
		tb.Fatalf("got error %v, want a %s", err, class)
	}
	if th.Class != class {
		tb.Fatalf("got %s (%q), want %s", th.Class, th.Msg, class)
	}
	for _, p := range parts {
		if !strings.Contains(th.Msg, p) {
			tb.Errorf("message %q does not contain %q", th.Msg, p)
		}
	}
}

// libFormat renders v of type typ on th or fails the test.
func libFormat(tb testing.TB, th *Thread, v Value, typ *Type) string {
	tb.Helper()
	s, err := th.Format(v, typ)
	if err != nil {
		tb.Fatalf("format: %v", err)
	}
	return s
}

func TestStdLibRegistry(t *testing.T) {
	owners := map[string][]*Native{}
	for name, p := range stdLib.Packages {
		if p.Name != name {
			t.Errorf("package %q has Name %q", name, p.Name)
		}
		owners[name] = p.Funcs
	}
	for kind, ms := range stdLib.Methods {
		owners[kind] = ms
	}
	for _, o := range []string{"io", "math", "fs", "string", "List", "Dict", "array"} {
		if len(owners[o]) == 0 {
			t.Errorf("StdLib has nothing for %s", o)
		}
	}
	for owner, list := range owners {
		seen := map[string]bool{}
		for _, n := range list {
			short := strings.TrimPrefix(n.Name, owner+".")
			if short == n.Name || n.Fn == nil {
				t.Errorf("%s: bad native %+v", owner, n)
				continue
			}
			if !strings.Contains(n.Sig, " "+short+"(") || !strings.HasSuffix(n.Sig, ")") {
				t.Errorf("%s: signature %q does not declare %s", n.Name, n.Sig, short)
			}
			if seen[n.Sig] {
				t.Errorf("%s: duplicate signature %q", owner, n.Sig)
			}
			seen[n.Sig] = true
		}
	}
	for _, n := range stdLib.Packages["io"].Funcs {
		// stdin reads park; the file natives run on (pin) the carrier
		files := strings.HasSuffix(n.Name, "File")
		if n.Pinned != files {
			t.Errorf("%s: Pinned = %v, want %v", n.Name, n.Pinned, files)
		}
	}
	// StdLib returns independent libraries.
	a, b := StdLib(), StdLib()
	a.Merge(b)
	if len(b.Packages["io"].Funcs) == len(a.Packages["io"].Funcs) {
		t.Errorf("merging into one StdLib changed another")
	}
}

func TestMT19937Sequence(t *testing.T) {
	var r mt19937
	r.seed(mtDefaultSeed)
	want := []uint32{3499211612, 581869302, 3890346734, 3586334585, 545404204}
	for i, w := range want {
		if got := r.next(); got != w {
			t.Fatalf("output %d = %d, want %d", i, got, w)
		}
	}
	// The C++ standard requires the 10000th output of a
	// default-constructed mt19937 to be 4123659995.
	r.seed(mtDefaultSeed)
	var v uint32
	for i := 0; i < 10000; i++ {
		v = r.next()
	}
	if v != 4123659995 {
		t.Errorf("10000th output = %d, want 4123659995", v)
	}
}

func TestStdMachineState(t *testing.T) {
	t1, _, _ := libThread("")
	t2, _, _ := libThread("")
	if libStateOf(t1.M) != libStateOf(t1.M) {
		t.Fatal("stateOf is not stable for one machine")
	}
	if libStateOf(t1.M) == libStateOf(t2.M) {
		t.Fatal("two machines share a state")
	}
	// A collected machine's state is removed.
	m := NewMachine(NewProgram(), nil, nil, nil)
	libStateOf(m)
	key := weak.Make(m)
	m = nil
	for i := 0; i < 20; i++ {
		runtime.GC()
		if _, ok := libMachineStates.Load(key); !ok {
			return
		}
	}
	t.Errorf("the state of a collected machine is still stored")
}

func TestStdValuesEqual(t *testing.T) {
	p := &Class{Name: "P", IsStruct: true}
	p.Fields = []*Field{{Name: "x", Type: Int, Index: 0, Owner: p}, {Name: "s", Type: String, Index: 1, Owner: p}}
	obj := &Object{Class: &Class{Name: "C"}}
	mk := func(x int64, s string) Value { return RefV(&Object{Class: p, Fields: []Value{IntV(x), StrV(s)}}) }
	nan := FloatV(math.NaN())
	tests := []struct {
		a, b Value
		t    *Type
		want bool
	}{
		{StrV("ab"), StrV("ab"), String, true},
		{Value{}, StrV(""), String, true},
		{StrV("a"), StrV("b"), String, false},
		{IntV(-1), IntV(-1), Int, true},
		{IntV(1), IntV(2), Int, false},
		{FloatV(0), FloatV(math.Copysign(0, -1)), Double, true},
		{nan, nan, Double, false},
		{BoolV(true), BoolV(true), Bool, true},
		{mk(1, "a"), mk(1, "a"), ClassType(p), true},
		{mk(1, "a"), mk(1, "b"), ClassType(p), false},
		{mk(1, "a"), Value{}, ClassType(p), false},
		{RefV(obj), RefV(obj), ObjectT, true},
		{RefV(obj), RefV(&Object{Class: obj.Class}), ObjectT, false},
		{Value{R: Int, N: 3}, Value{R: Int, N: 3}, ObjectT, true},
		{StrV("x"), StrV("x"), ObjectT, true},
		{Value{}, Value{}, ObjectT, true},
		{IntV(1), IntV(1), nil, true},
	}
	for i, tc := range tests {
		if got := valuesEqual(tc.a, tc.b, tc.t); got != tc.want {
			t.Errorf("%d: valuesEqual(%v, %v, %v) = %v, want %v", i, tc.a, tc.b, tc.t, got, tc.want)
		}
	}
}

func TestStdParsers(t *testing.T) {
	good := map[string]bool{"0": true, "1.5": true, "-1.5": true, "+2": true, ".5": true, "5.": true,
		"1e5": true, "1E-5": true, "2.5e+3": true}
	bad := []string{"", ".", "e5", "1e", "1e+", "1.5.2", " 1", "1 ", "inf", "nan", "0x1p3", "1_0", "--1", "+"}
	for s := range good {
		if !isDecimalFloat(s) {
			t.Errorf("isDecimalFloat(%q) = false", s)
		}
	}
	for _, s := range bad {
		if isDecimalFloat(s) {
			t.Errorf("isDecimalFloat(%q) = true", s)
		}
	}
	if _, ok := parseFloatStrict("1e400", 64); ok {
		t.Error("1e400 accepted as double")
	}
	if _, ok := parseFloatStrict("1e39", 32); ok {
		t.Error("1e39 accepted as float")
	}
	if f, ok := parseFloatStrict("0.1", 32); !ok || f != float64(float32(0.1)) {
		t.Errorf("float 0.1 = %v, %v", f, ok)
	}
	if r, ok := parseCharStrict("中"); !ok || r != '中' {
		t.Errorf("parseCharStrict(中) = %v, %v", r, ok)
	}
	for _, s := range []string{"", "ab", "\xff", "\xe4\xb8"} {
		if _, ok := parseCharStrict(s); ok {
			t.Errorf("parseCharStrict(%q) accepted", s)
		}
	}
	if r, ok := parseCharStrict("\uFFFD"); !ok || r != 0xFFFD {
		t.Errorf("a real U+FFFD was rejected")
	}
}
