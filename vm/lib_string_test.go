package vm

import (
	"math"
	"testing"
)

// libStrCall calls the string method with signature sig on receiver s.
func libStrCall(tb testing.TB, sig, s string, args ...Value) (Value, error) {
	tb.Helper()
	th, _, _ := libThread("")
	return callLib(tb, th, "string", sig, append([]Value{StrV(s)}, args...)...)
}

func libMustStr(tb testing.TB, sig, s string, args ...Value) Value {
	tb.Helper()
	v, err := libStrCall(tb, sig, s, args...)
	if err != nil {
		tb.Fatalf("%q.%s: %v", s, sig, err)
	}
	return v
}

func TestStringBasics(t *testing.T) {
	if got := libMustStr(t, "int length()", "héllo").I(); got != 6 {
		t.Errorf("length = %d, want 6 (bytes)", got)
	}
	th, _, _ := libThread("")
	if got := mustLib(t, th, "string", "int length()", Value{}).I(); got != 0 {
		t.Errorf("null length = %d", got)
	}
	strs := []struct {
		sig, recv string
		args      []Value
		want      string
	}{
		{"string substring(int start)", "hello", []Value{IntV(2)}, "llo"},
		{"string substring(int start)", "hello", []Value{IntV(5)}, ""},
		{"string substring(int start, int end)", "hello", []Value{IntV(1), IntV(3)}, "el"},
		{"string substring(int start, int end)", "hello", []Value{IntV(0), IntV(0)}, ""},
		{"string toUpper()", "abc-Zé", nil, "ABC-Zé"},
		{"string toLower()", "ABC-zÉ", nil, "abc-zÉ"},
		{"string toUpper()", "123", nil, "123"},
		{"string trim()", " \t\r\n x y \v\f", nil, "x y"},
		{"string trim()", "   ", nil, ""},
		{"string replace(string old, string repl)", "aaa", []Value{StrV("aa"), StrV("ba")}, "baa"},
		{"string replace(string old, string repl)", "a.b.c", []Value{StrV("."), StrV("")}, "abc"},
		{"string replace(string old, string repl)", "abc", []Value{StrV("x"), StrV("y")}, "abc"},
		{"string toString()", "same", nil, "same"},
	}
	for _, tc := range strs {
		if got := libMustStr(t, tc.sig, tc.recv, tc.args...).S(); got != tc.want {
			t.Errorf("%q.%s%v = %q, want %q", tc.recv, tc.sig, tc.args, got, tc.want)
		}
	}
	bools := []struct {
		sig, recv, arg string
		want           bool
	}{
		{"bool startsWith(string s)", "hello", "he", true},
		{"bool startsWith(string s)", "hello", "lo", false},
		{"bool startsWith(string s)", "hello", "", true},
		{"bool endsWith(string s)", "hello", "lo", true},
		{"bool endsWith(string s)", "lo", "hello", false},
		{"bool contains(string s)", "hello", "ell", true},
		{"bool contains(string s)", "hello", "xyz", false},
		{"bool equals(string s)", "a", "a", true},
		{"bool equals(string s)", "a", "b", false},
		{"bool equals(string s)", "", "", true},
	}
	for _, tc := range bools {
		if got := libMustStr(t, tc.sig, tc.recv, StrV(tc.arg)).B(); got != tc.want {
			t.Errorf("%q.%s(%q) = %v", tc.recv, tc.sig, tc.arg, got)
		}
	}
	for _, tc := range []struct {
		recv, arg string
		want      int64
	}{{"hello", "l", 2}, {"hello", "z", -1}, {"hello", "", 0}, {"中文", "文", 3}} {
		if got := libMustStr(t, "int indexOf(string s)", tc.recv, StrV(tc.arg)).I(); got != tc.want {
			t.Errorf("%q.indexOf(%q) = %d, want %d", tc.recv, tc.arg, got, tc.want)
		}
	}
}

func TestStringSubstringErrors(t *testing.T) {
	for _, r := range [][2]int64{{-1, 2}, {3, 2}, {0, 6}, {6, 6}} {
		_, err := libStrCall(t, "string substring(int start, int end)", "hello", IntV(r[0]), IntV(r[1]))
		wantLibThrow(t, err, "IndexOutOfBoundsException", "string.substring", "length 5")
	}
	_, err := libStrCall(t, "string substring(int start)", "hello", IntV(9))
	wantLibThrow(t, err, "IndexOutOfBoundsException", "range [9, 5) out of bounds for length 5")
}

func TestStringSplit(t *testing.T) {
	th, _, _ := libThread("")
	tests := []struct{ s, sep, want string }{
		{"a,b,c", ",", `["a", "b", "c"]`},
		{"a,,b", ",", `["a", "", "b"]`},
		{",a,", ",", `["", "a", ""]`},
		{"", ",", `[""]`},
		{"abc", ",", `["abc"]`},
		{"a::b::c", "::", `["a", "b", "c"]`},
		{"中,文", ",", `["中", "文"]`},
	}
	for _, tc := range tests {
		v := libMustStr(t, "List<string> split(string sep)", tc.s, StrV(tc.sep))
		l := v.R.(*List)
		if l.Type != ListOf(String) {
			t.Errorf("split type = %v", l.Type)
		}
		if got := libFormat(t, th, v, l.Type); got != tc.want {
			t.Errorf("%q.split(%q) = %s, want %s", tc.s, tc.sep, got, tc.want)
		}
	}
	_, err := libStrCall(t, "List<string> split(string sep)", "abc", StrV(""))
	wantLibThrow(t, err, "Exception", "string.split: the separator must not be empty")
	_, err = libStrCall(t, "string replace(string old, string repl)", "abc", StrV(""), StrV("x"))
	wantLibThrow(t, err, "Exception", "string.replace")
}

func TestStringConversions(t *testing.T) {
	ok := []struct {
		sig, s string
		want   Value
	}{
		{"int toInt()", "42", IntV(42)},
		{"int toInt()", "-42", IntV(-42)},
		{"int toInt()", "+7", IntV(7)},
		{"int toInt()", "007", IntV(7)},
		{"int toInt()", "2147483647", IntV(math.MaxInt32)},
		{"int toInt()", "-2147483648", IntV(math.MinInt32)},
		{"long toLong()", "9223372036854775807", IntV(math.MaxInt64)},
		{"long toLong()", "-5", IntV(-5)},
		{"double toDouble()", "1.5", FloatV(1.5)},
		{"double toDouble()", "-2.5e-3", FloatV(-2.5e-3)},
		{"double toDouble()", "3", FloatV(3)},
		{"float toFloat()", "0.1", FloatV(float64(float32(0.1)))},
		{"bool toBool()", "true", BoolV(true)},
		{"bool toBool()", "false", BoolV(false)},
		{"char toChar()", "66", Value{N: 'B'}},
		{"char toChar()", "20013", Value{N: '中'}},
		{"char toChar()", "128512", Value{N: 0x1F600}},
		{"char toChar()", "0", Value{N: 0}},
	}
	for _, tc := range ok {
		if got := libMustStr(t, tc.sig, tc.s); got != tc.want {
			t.Errorf("%q.%s = %#v, want %#v", tc.s, tc.sig, got, tc.want)
		}
	}
	bad := []struct{ sig, s, msg string }{
		{"int toInt()", "", `string.toInt: "" is not a valid int`},
		{"int toInt()", " 1", `" 1"`},
		{"int toInt()", "1 ", `"1 "`},
		{"int toInt()", "1.0", `"1.0"`},
		{"int toInt()", "0x10", `"0x10"`},
		{"int toInt()", "1_000", `"1_000"`},
		{"int toInt()", "2147483648", `"2147483648" is not a valid int`},
		{"int toInt()", "abc", `"abc"`},
		{"int toInt()", "-", `"-"`},
		{"long toLong()", "9223372036854775808", `string.toLong: "9223372036854775808" is not a valid long`},
		{"double toDouble()", "1e400", `string.toDouble: "1e400" is not a valid double`},
		{"double toDouble()", "nan", `"nan"`},
		{"double toDouble()", "inf", `"inf"`},
		{"double toDouble()", "1.2.3", `"1.2.3"`},
		{"float toFloat()", "1e39", `string.toFloat: "1e39" is not a valid float`},
		{"bool toBool()", "TRUE", `string.toBool: "TRUE" is not a valid bool`},
		{"bool toBool()", "1", `"1"`},
		{"char toChar()", "ab", `string.toChar: "ab" is not a valid char`},
		{"char toChar()", "", `"" is not a valid char`},
		{"char toChar()", "\xff", `"\xff"`},
		{"char toChar()", "a", `string.toChar: "a" is not a valid char (want the decimal code point`},
		{"char toChar()", "-1", `"-1" is not a valid char`},
		{"char toChar()", "55296", `"55296" is not a valid char`},
		{"char toChar()", "1114112", `"1114112" is not a valid char`},
	}
	for _, tc := range bad {
		_, err := libStrCall(t, tc.sig, tc.s)
		wantLibThrow(t, err, "Exception", tc.msg)
	}
}

func TestStringUTF8(t *testing.T) {
	s := "a中😀b"
	if got := libMustStr(t, "int charCount()", s).I(); got != 4 {
		t.Errorf("charCount = %d, want 4", got)
	}
	if got := libMustStr(t, "int charCount()", "").I(); got != 0 {
		t.Errorf("empty charCount = %d", got)
	}
	for idx, want := range map[int64]rune{0: 'a', 1: '中', 4: '😀', 8: 'b'} {
		if got := rune(libMustStr(t, "char charAt(int byteIdx)", s, IntV(idx)).N); got != want {
			t.Errorf("charAt(%d) = %q, want %q", idx, got, want)
		}
	}
	_, err := libStrCall(t, "char charAt(int byteIdx)", s, IntV(2))
	wantLibThrow(t, err, "Exception", "string.charAt: byte 2", "inside a character")
	_, err = libStrCall(t, "char charAt(int byteIdx)", "x\xffy", IntV(1))
	wantLibThrow(t, err, "Exception", "not valid UTF-8")
	for _, i := range []int64{-1, 9} {
		_, err = libStrCall(t, "char charAt(int byteIdx)", s, IntV(i))
		wantLibThrow(t, err, "IndexOutOfBoundsException", "string.charAt", "out of range [0, 9)")
	}
}

func TestStringHashCode(t *testing.T) {
	h := libMustStr(t, "int getHashCode()", "hello").I()
	if want := int64(int32(HashValue(nil, StrV("hello")))); h != want {
		t.Errorf("getHashCode = %d, want %d", h, want)
	}
	if h < math.MinInt32 || h > math.MaxInt32 {
		t.Errorf("hash %d is not an int", h)
	}
	th, _, _ := libThread("")
	null := mustLib(t, th, "string", "int getHashCode()", Value{}).I()
	if empty := libMustStr(t, "int getHashCode()", "").I(); null != empty {
		t.Errorf("null hash %d != empty-string hash %d", null, empty)
	}
}
