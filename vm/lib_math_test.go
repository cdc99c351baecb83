package vm

import (
	"math"
	"testing"
)

func TestMathDoubleFuncs(t *testing.T) {
	th, _, _ := libThread("")
	unary := []struct {
		name string
		x    float64
		want float64
	}{
		{"sin", math.Pi / 2, 1},
		{"cos", 0, 1},
		{"tan", math.Pi / 4, math.Tan(math.Pi / 4)},
		{"asin", 1, math.Pi / 2},
		{"acos", 1, 0},
		{"atan", 1, math.Pi / 4},
		{"sqrt", 2, math.Sqrt2},
		{"exp", 1, math.E},
		{"log", math.E, 1},
		{"absf", -2.5, 2.5},
	}
	for _, tc := range unary {
		got := mustLib(t, th, "math", "double "+tc.name+"(double x)", FloatV(tc.x)).F()
		if got != tc.want {
			t.Errorf("%s(%v) = %v, want %v", tc.name, tc.x, got, tc.want)
		}
	}
	if got := mustLib(t, th, "math", "double atan2(double y, double x)", FloatV(1), FloatV(-1)).F(); got != 3*math.Pi/4 {
		t.Errorf("atan2(1, -1) = %v", got)
	}
	if got := mustLib(t, th, "math", "double pow(double x, double y)", FloatV(2), FloatV(10)).F(); got != 1024 {
		t.Errorf("pow(2, 10) = %v", got)
	}
	// Domain errors give NaN, as in C.
	if got := mustLib(t, th, "math", "double sqrt(double x)", FloatV(-1)).F(); !math.IsNaN(got) {
		t.Errorf("sqrt(-1) = %v, want NaN", got)
	}
	if got := mustLib(t, th, "math", "double minf(double a, double b)", FloatV(1.5), FloatV(-2)).F(); got != -2 {
		t.Errorf("minf = %v", got)
	}
	if got := mustLib(t, th, "math", "double maxf(double a, double b)", FloatV(1.5), FloatV(-2)).F(); got != 1.5 {
		t.Errorf("maxf = %v", got)
	}
}

func TestMathIntFuncs(t *testing.T) {
	th, _, _ := libThread("")
	ints := []struct {
		sig  string
		args []int64
		want int64
	}{
		{"int absi(int x)", []int64{-7}, 7},
		{"int absi(int x)", []int64{math.MaxInt32}, math.MaxInt32},
		{"int mini(int a, int b)", []int64{-3, 2}, -3},
		{"int maxi(int a, int b)", []int64{-3, 2}, 2},
		{"int clampi(int v, int lo, int hi)", []int64{15, 0, 10}, 10},
		{"int clampi(int v, int lo, int hi)", []int64{-5, 0, 10}, 0},
		{"int clampi(int v, int lo, int hi)", []int64{5, 0, 10}, 5},
		{"int clampi(int v, int lo, int hi)", []int64{5, 3, 3}, 3},
	}
	for _, tc := range ints {
		args := make([]Value, len(tc.args))
		for i, a := range tc.args {
			args[i] = IntV(a)
		}
		if got := mustLib(t, th, "math", tc.sig, args...).I(); got != tc.want {
			t.Errorf("%s %v = %d, want %d", tc.sig, tc.args, got, tc.want)
		}
	}
	_, err := callLib(t, th, "math", "int absi(int x)", IntV(math.MinInt32))
	wantLibThrow(t, err, "Exception", "math.absi", "-2147483648")
	_, err = callLib(t, th, "math", "int clampi(int v, int lo, int hi)", IntV(1), IntV(5), IntV(3))
	wantLibThrow(t, err, "Exception", "math.clampi: low 5 is greater than high 3")
}

func TestMathClampf(t *testing.T) {
	th, _, _ := libThread("")
	sig := "double clampf(double v, double lo, double hi)"
	for _, tc := range [][4]float64{{0.5, 0, 1, 0.5}, {-1, 0, 1, 0}, {2, 0, 1, 1}} {
		if got := mustLib(t, th, "math", sig, FloatV(tc[0]), FloatV(tc[1]), FloatV(tc[2])).F(); got != tc[3] {
			t.Errorf("clampf%v = %v", tc[:3], got)
		}
	}
	_, err := callLib(t, th, "math", sig, FloatV(0), FloatV(1.5), FloatV(0.5))
	wantLibThrow(t, err, "Exception", "math.clampf: low 1.5 is greater than high 0.5")
}

func TestMathRounding(t *testing.T) {
	th, _, _ := libThread("")
	tests := []struct {
		x                  float64
		floor, ceil, round int64
	}{
		{2.5, 2, 3, 3},
		{-2.5, -3, -2, -3}, // half away from zero
		{2.4, 2, 3, 2},
		{-0.4, -1, 0, 0},
		{7, 7, 7, 7},
	}
	for _, tc := range tests {
		x := FloatV(tc.x)
		if got := mustLib(t, th, "math", "int floor(double x)", x).I(); got != tc.floor {
			t.Errorf("floor(%v) = %d", tc.x, got)
		}
		if got := mustLib(t, th, "math", "int ceil(double x)", x).I(); got != tc.ceil {
			t.Errorf("ceil(%v) = %d", tc.x, got)
		}
		if got := mustLib(t, th, "math", "int round(double x)", x).I(); got != tc.round {
			t.Errorf("round(%v) = %d", tc.x, got)
		}
	}
	for _, x := range []float64{3e9, -3e9, math.NaN(), math.Inf(1)} {
		_, err := callLib(t, th, "math", "int round(double x)", FloatV(x))
		wantLibThrow(t, err, "Exception", "math.round", "outside the int range")
	}
	_, err := callLib(t, th, "math", "int floor(double x)", FloatV(-2147483648.5))
	wantLibThrow(t, err, "Exception", "math.floor: -2147483648.5 is outside the int range")
	if got := mustLib(t, th, "math", "int ceil(double x)", FloatV(-2147483648.5)).I(); got != math.MinInt32 {
		t.Errorf("ceil(-2147483648.5) = %d", got)
	}
}

func TestMathRandom(t *testing.T) {
	th, _, _ := libThread("")
	want := []uint32{3499211612, 581869302, 3890346734}
	for _, w := range want {
		got := mustLib(t, th, "math", "double random()").F()
		if exp := float64(w>>8) / (1 << 24); got != exp {
			t.Errorf("random() = %v, want %v", got, exp)
		}
		if got < 0 || got >= 1 {
			t.Errorf("random() = %v, outside [0, 1)", got)
		}
	}
	// srand restarts the sequence; randomi = min + next % span.
	mustLib(t, th, "math", "void srand(int seed)", IntV(5489))
	for _, w := range []uint32{3499211612, 581869302, 3890346734, 3586334585} {
		got := mustLib(t, th, "math", "int randomi(int min, int max)", IntV(-10), IntV(10)).I()
		if exp := -10 + int64(w%21); got != exp {
			t.Errorf("randomi(-10, 10) = %d, want %d", got, exp)
		}
	}
	// Each machine has its own generator.
	other, _, _ := libThread("")
	if got := mustLib(t, other, "math", "double random()").F(); got != float64(3499211612>>8)/(1<<24) {
		t.Errorf("a fresh machine's first random() = %v", got)
	}
	// A negative seed is taken modulo 2^32, as std::mt19937::seed does.
	mustLib(t, th, "math", "void srand(int seed)", IntV(-1))
	var r mt19937
	r.seed(math.MaxUint32)
	if got, want := mustLib(t, th, "math", "int randomi(int min, int max)", IntV(0), IntV(1000)).I(), int64(r.next()%1001); got != want {
		t.Errorf("after srand(-1): randomi = %d, want %d", got, want)
	}
}

func TestMathRandomiRanges(t *testing.T) {
	th, _, _ := libThread("")
	sig := "int randomi(int min, int max)"
	if got := mustLib(t, th, "math", sig, IntV(4), IntV(4)).I(); got != 4 {
		t.Errorf("randomi(4, 4) = %d", got)
	}
	for i := 0; i < 100; i++ {
		got := mustLib(t, th, "math", sig, IntV(math.MinInt32), IntV(math.MaxInt32)).I()
		if got < math.MinInt32 || got > math.MaxInt32 {
			t.Fatalf("full-range randomi = %d", got)
		}
		if got := mustLib(t, th, "math", sig, IntV(1), IntV(6)).I(); got < 1 || got > 6 {
			t.Fatalf("randomi(1, 6) = %d", got)
		}
	}
	_, err := callLib(t, th, "math", sig, IntV(5), IntV(1))
	wantLibThrow(t, err, "Exception", "math.randomi: min 5 is greater than max 1")
}
