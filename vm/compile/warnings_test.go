package compile_test

import (
	"reflect"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// TestLossyConversionWarnings checks the warnings for implicit
// conversions that may lose precision (the program still compiles).
func TestLossyConversionWarnings(t *testing.T) {
	src := `int main() {
    int i = 1;
    long l = 2;
    short s = 3;
    float a = i;
    double b = l;
    float c = s;
    double d = i;
    float e = 16777216;
    float f = 16777217;
    return 0;
}`
	prog, err := compile.CompileFile("w.n", []byte(src), compile.Options{Lib: vm.StdLib()})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"w.n:5:15: warning: implicit conversion from int to float may lose precision",
		"w.n:6:16: warning: implicit conversion from long to double may lose precision",
		"w.n:10:15: warning: implicit conversion from int to float may lose precision",
	}
	if !reflect.DeepEqual(prog.Warnings, want) {
		t.Errorf("warnings:\n%q\nwant:\n%q", prog.Warnings, want)
	}
}
