package vm

import "math"

// mathFuncs returns the natives of package math. Floating parameters and
// results are double (NLang 0.7 literals are double). Domain errors of the
// transcendental functions (sqrt(-1), log(0)) yield NaN or infinities as
// in C; argument errors (clamp bounds, randomi range, an int result out of
// range) raise a plain Exception.
//
// The PRNG is a per-machine mt19937 (see libMachineState), seeded with 5489
// like a default-constructed std::mt19937: random() = (next()>>8) / 2^24,
// randomi(min, max) = min + next() % (max-min+1).
func mathFuncs() []*Native {
	unary := func(name string, f func(float64) float64) *Native {
		return libFn("math."+name, "double "+name+"(double x)", func(t *Thread, a []Value) (Value, error) {
			return FloatV(f(a[0].F())), nil
		})
	}
	binary := func(name, sig string, f func(x, y float64) float64) *Native {
		return libFn("math."+name, sig, func(t *Thread, a []Value) (Value, error) {
			return FloatV(f(a[0].F(), a[1].F())), nil
		})
	}
	toInt := func(name string, f func(float64) float64) *Native {
		return libFn("math."+name, "int "+name+"(double x)", func(t *Thread, a []Value) (Value, error) {
			x := a[0].F()
			r := f(x)
			if !(r >= math.MinInt32 && r <= math.MaxInt32) {
				return Value{}, Throwf("Exception", "math.%s: %s is outside the int range", name, FormatFloat(x, 64))
			}
			return IntV(int64(r)), nil
		})
	}
	// the generator's natives: its state is outside the state hash
	rng := func(n *Native) *Native {
		n.Flags = OutsideState
		return n
	}
	ns := []*Native{
		unary("sin", math.Sin),
		unary("cos", math.Cos),
		unary("tan", math.Tan),
		unary("asin", math.Asin),
		unary("acos", math.Acos),
		unary("atan", math.Atan),
		binary("atan2", "double atan2(double y, double x)", math.Atan2),
		unary("sqrt", math.Sqrt),
		binary("pow", "double pow(double x, double y)", math.Pow),
		unary("exp", math.Exp),
		unary("log", math.Log),
		libFn("math.absi", "int absi(int x)", func(t *Thread, a []Value) (Value, error) {
			x := int32(a[0].I())
			if x == math.MinInt32 {
				return Value{}, Throwf("Exception", "math.absi: the absolute value of -2147483648 is outside the int range")
			}
			if x < 0 {
				x = -x
			}
			return IntV(int64(x)), nil
		}),
		unary("absf", math.Abs),
		libFn("math.mini", "int mini(int a, int b)", func(t *Thread, a []Value) (Value, error) {
			return IntV(min(int64(int32(a[0].I())), int64(int32(a[1].I())))), nil
		}),
		libFn("math.maxi", "int maxi(int a, int b)", func(t *Thread, a []Value) (Value, error) {
			return IntV(max(int64(int32(a[0].I())), int64(int32(a[1].I())))), nil
		}),
		binary("minf", "double minf(double a, double b)", func(x, y float64) float64 {
			if x < y {
				return x
			}
			return y
		}),
		binary("maxf", "double maxf(double a, double b)", func(x, y float64) float64 {
			if x > y {
				return x
			}
			return y
		}),
		libFn("math.clampi", "int clampi(int v, int lo, int hi)", func(t *Thread, a []Value) (Value, error) {
			v, lo, hi := int64(int32(a[0].I())), int64(int32(a[1].I())), int64(int32(a[2].I()))
			if lo > hi {
				return Value{}, Throwf("Exception", "math.clampi: low %d is greater than high %d", lo, hi)
			}
			return IntV(min(max(v, lo), hi)), nil
		}),
		libFn("math.clampf", "double clampf(double v, double lo, double hi)", func(t *Thread, a []Value) (Value, error) {
			v, lo, hi := a[0].F(), a[1].F(), a[2].F()
			if lo > hi {
				return Value{}, Throwf("Exception", "math.clampf: low %s is greater than high %s", FormatFloat(lo, 64), FormatFloat(hi, 64))
			}
			switch {
			case v < lo:
				v = lo
			case v > hi:
				v = hi
			}
			return FloatV(v), nil
		}),
		toInt("floor", math.Floor),
		toInt("ceil", math.Ceil),
		toInt("round", math.Round), // half away from zero
		rng(libFn("math.random", "double random()", func(t *Thread, a []Value) (Value, error) {
			return FloatV(float64(nextRandom(t.M)>>8) / (1 << 24)), nil
		})),
		rng(libFn("math.srand", "void srand(int seed)", func(t *Thread, a []Value) (Value, error) {
			st := libStateOf(t.M)
			st.rngMu.Lock()
			st.rng.seed(uint32(a[0].I()))
			st.rngMu.Unlock()
			return Value{}, nil
		})),
		rng(libFn("math.randomi", "int randomi(int min, int max)", func(t *Thread, a []Value) (Value, error) {
			lo, hi := int64(int32(a[0].I())), int64(int32(a[1].I()))
			if lo > hi {
				return Value{}, Throwf("Exception", "math.randomi: min %d is greater than max %d", lo, hi)
			}
			span := uint64(hi-lo) + 1 // up to 2^32: no overflow in 64 bits
			return IntV(lo + int64(uint64(nextRandom(t.M))%span)), nil
		})),
	}
	for _, n := range ns {
		if !n.Is(OutsideState) {
			n.Flags |= ReadOnly // a function of its arguments
		}
	}
	return ns
}

// nextRandom draws the next output of m's generator.
func nextRandom(m *Machine) uint32 {
	st := libStateOf(m)
	st.rngMu.Lock()
	defer st.rngMu.Unlock()
	return st.rng.next()
}
