package vm

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestIOPrint(t *testing.T) {
	th, out, errb := libThread("")
	mustLib(t, th, "io", "void print(string x)", StrV("hello"))
	mustLib(t, th, "io", "void write(string x)", StrV("a"))
	mustLib(t, th, "io", "void write(string x)", Value{}) // null prints as ""
	mustLib(t, th, "io", "void print(string x)", StrV("中"))
	mustLib(t, th, "io", "void eprint(string x)", StrV("oops"))
	if got, want := out.String(), "hello\na中\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	if got, want := errb.String(), "oops\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
	// A machine without writers does not crash.
	bare := &Thread{M: &Machine{}}
	mustLib(t, bare, "io", "void print(string x)", StrV("x"))
}

func TestIOReadLine(t *testing.T) {
	th, _, _ := libThread("one\r\ntwo\n\nlast")
	for _, want := range []string{"one", "two", "", "last", "", ""} {
		if got := mustLib(t, th, "io", "string readLine()").S(); got != want {
			t.Errorf("readLine = %q, want %q", got, want)
		}
	}
}

func TestIOHasInput(t *testing.T) {
	th, _, _ := libThread("x\n")
	if !mustLib(t, th, "io", "bool hasInput()").B() {
		t.Error("hasInput = false before reading")
	}
	mustLib(t, th, "io", "string readLine()")
	if mustLib(t, th, "io", "bool hasInput()").B() {
		t.Error("hasInput = true at end of input")
	}
	// No stdin at all reads as empty.
	bare := &Thread{M: &Machine{}}
	if mustLib(t, bare, "io", "bool hasInput()").B() {
		t.Error("hasInput = true without stdin")
	}
}

func TestIOReadToken(t *testing.T) {
	th, _, _ := libThread("  alpha\tbeta\r\n\n gamma")
	for _, want := range []string{"alpha", "beta", "gamma"} {
		if got := mustLib(t, th, "io", "string readToken()").S(); got != want {
			t.Errorf("readToken = %q, want %q", got, want)
		}
	}
	_, err := callLib(t, th, "io", "string readToken()")
	wantLibThrow(t, err, "IOException", "io.readToken", "end of input")
}

func TestIOReadTokenThenLine(t *testing.T) {
	// A token read leaves the rest of its line for readLine.
	th, _, _ := libThread("42 rest of line\n7\nnext\n")
	if got := mustLib(t, th, "io", "int readInt()").I(); got != 42 {
		t.Fatalf("readInt = %d", got)
	}
	if got := mustLib(t, th, "io", "string readLine()").S(); got != " rest of line" {
		t.Errorf("readLine after readInt = %q", got)
	}
	if got := mustLib(t, th, "io", "int readInt()").I(); got != 7 {
		t.Fatalf("readInt = %d", got)
	}
	if got := mustLib(t, th, "io", "string readLine()").S(); got != "" {
		t.Errorf("readLine at the end of a token's line = %q, want \"\"", got)
	}
	if got := mustLib(t, th, "io", "string readLine()").S(); got != "next" {
		t.Errorf("readLine = %q, want next", got)
	}
}

func TestIOReadNumbers(t *testing.T) {
	th, _, _ := libThread("-17 9000000000 1.5 2.25e2 true false +3")
	if got := mustLib(t, th, "io", "int readInt()").I(); got != -17 {
		t.Errorf("readInt = %d", got)
	}
	if got := mustLib(t, th, "io", "long readLong()").I(); got != 9000000000 {
		t.Errorf("readLong = %d", got)
	}
	if got := mustLib(t, th, "io", "float readFloat()").F(); got != 1.5 {
		t.Errorf("readFloat = %v", got)
	}
	if got := mustLib(t, th, "io", "double readDouble()").F(); got != 225 {
		t.Errorf("readDouble = %v", got)
	}
	if got := mustLib(t, th, "io", "bool readBool()"); got.N != 1 {
		t.Errorf("readBool = %v", got)
	}
	if got := mustLib(t, th, "io", "bool readBool()"); got.N != 0 {
		t.Errorf("readBool = %v", got)
	}
	if got := mustLib(t, th, "io", "int readInt()").I(); got != 3 {
		t.Errorf("readInt(+3) = %d", got)
	}
	_, err := callLib(t, th, "io", "double readDouble()")
	wantLibThrow(t, err, "IOException", "io.readDouble", "end of input")
}

func TestIOReadFloatRounds(t *testing.T) {
	th, _, _ := libThread("0.1")
	if got := mustLib(t, th, "io", "float readFloat()").F(); got != float64(float32(0.1)) || got == 0.1 {
		t.Errorf("readFloat(0.1) = %v, want the float32 value", got)
	}
}

func TestIOReadMalformed(t *testing.T) {
	tests := []struct{ sig, in, msg string }{
		{"int readInt()", "12x", `io.readInt: "12x" is not a valid int`},
		{"int readInt()", "3000000000", `"3000000000"`},
		{"long readLong()", "1.0", `io.readLong: "1.0"`},
		{"float readFloat()", "1e39", `io.readFloat: "1e39" is not a valid float`},
		{"double readDouble()", "abc", `io.readDouble: "abc" is not a valid double`},
		{"bool readBool()", "True", `io.readBool: "True" is not a valid bool`},
	}
	for _, tc := range tests {
		th, _, _ := libThread(tc.in)
		_, err := callLib(t, th, "io", tc.sig)
		wantLibThrow(t, err, "Exception", tc.msg)
	}
}

func TestIOReadChar(t *testing.T) {
	th, _, _ := libThread(" a中\n\tb\xff")
	for _, want := range []rune{'a', '中', 'b'} {
		if got := rune(mustLib(t, th, "io", "char readChar()").N); got != want {
			t.Errorf("readChar = %q, want %q", got, want)
		}
	}
	_, err := callLib(t, th, "io", "char readChar()")
	wantLibThrow(t, err, "IOException", "invalid UTF-8", "0xff")
	th, _, _ = libThread("  \n")
	_, err = callLib(t, th, "io", "char readChar()")
	wantLibThrow(t, err, "IOException", "io.readChar: end of input")
}

func TestIOFiles(t *testing.T) {
	th, _, _ := libThread("")
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	mustLib(t, th, "io", "void writeFile(string path, string s)", StrV(p), StrV("one\n"))
	mustLib(t, th, "io", "void appendFile(string path, string s)", StrV(p), StrV("two\n"))
	if got := mustLib(t, th, "io", "string readFile(string path)", StrV(p)).S(); got != "one\ntwo\n" {
		t.Errorf("readFile = %q", got)
	}
	mustLib(t, th, "io", "void writeFile(string path, string s)", StrV(p), StrV("new"))
	if got := mustLib(t, th, "io", "string readFile(string path)", StrV(p)).S(); got != "new" {
		t.Errorf("readFile after truncating write = %q", got)
	}
	q := filepath.Join(dir, "appended.txt")
	mustLib(t, th, "io", "void appendFile(string path, string s)", StrV(q), StrV("x"))
	if got := mustLib(t, th, "io", "string readFile(string path)", StrV(q)).S(); got != "x" {
		t.Errorf("appendFile to a new file: %q", got)
	}
	empty := filepath.Join(dir, "empty")
	mustLib(t, th, "io", "void writeFile(string path, string s)", StrV(empty), Value{})
	if got := mustLib(t, th, "io", "string readFile(string path)", StrV(empty)).S(); got != "" {
		t.Errorf("empty file read %q", got)
	}
}

func TestIOFileErrors(t *testing.T) {
	th, _, _ := libThread("")
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.txt")
	_, err := callLib(t, th, "io", "string readFile(string path)", StrV(missing))
	wantLibThrow(t, err, "IOException", "io.readFile: cannot open", missing, "no such file")
	_, err = callLib(t, th, "io", "string readFile(string path)", StrV(dir))
	wantLibThrow(t, err, "IOException", "io.readFile", "is a directory")
	_, err = callLib(t, th, "io", "void writeFile(string path, string s)", StrV(filepath.Join(missing, "x")), StrV("s"))
	wantLibThrow(t, err, "IOException", "io.writeFile: cannot open")
	_, err = callLib(t, th, "io", "void appendFile(string path, string s)", StrV(dir), StrV("s"))
	wantLibThrow(t, err, "IOException", "io.appendFile: cannot open")

	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxReadFile + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = callLib(t, th, "io", "string readFile(string path)", StrV(big))
	wantLibThrow(t, err, "IOException", "larger than 16 MiB")
	if err := os.Truncate(big, maxReadFile); err != nil {
		t.Fatal(err)
	}
	if v := mustLib(t, th, "io", "string readFile(string path)", StrV(big)); len(v.S()) != maxReadFile {
		t.Errorf("a 16 MiB file read %d bytes", len(v.S()))
	}
}

func TestIOReadIntBounds(t *testing.T) {
	th, _, _ := libThread("2147483647 -2147483648")
	if got := mustLib(t, th, "io", "int readInt()").I(); got != math.MaxInt32 {
		t.Errorf("readInt = %d", got)
	}
	if got := mustLib(t, th, "io", "int readInt()").I(); got != math.MinInt32 {
		t.Errorf("readInt = %d", got)
	}
}
