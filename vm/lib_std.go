package vm

import (
	"runtime"
	"strconv"
	"sync"
	"unicode/utf8"
	"weak"
)

// StdLib returns the native standard library: the packages io, math and
// fs, and the methods of the built-in types string, List, Dict and arrays.
// Each call returns a fresh Library that the caller may merge into others.
//
// The natives keep no global state except the per-machine state described
// at libMachineState (the PRNG and the stdin lock).
func StdLib() *Library {
	l := NewLibrary()
	l.Packages["io"] = &Package{Name: "io", Funcs: ioFuncs()}
	l.Packages["math"] = &Package{Name: "math", Funcs: mathFuncs()}
	l.Packages["fs"] = &Package{Name: "fs", Funcs: withFlags(OutsideState, fsFuncs()...)}
	l.Methods["string"] = stringMethods()
	l.Methods["List"] = listMethods()
	l.Methods["Dict"] = dictMethods()
	l.Methods["array"] = arrayMethods()
	l.HostTypes["ByteStream"] = byteStreamHost
	l.HostTypes["FileStream"] = fileStreamHost
	return l
}

// libFn returns a native with its qualified name, NLang signature and body.
func libFn(name, sig string, fn NativeFunc) *Native {
	return &Native{Name: name, Sig: sig, Fn: fn}
}

// libPinnedFn returns a native that may block its carrier (file I/O).
// Its result depends on the file system: it goes through the machine's
// Outside (see outsideFn).
func libPinnedFn(name, sig string, fn NativeFunc) *Native {
	return &Native{Name: name, Sig: sig, Fn: outsideFn(name, fn), Pinned: true, Flags: OutsideState}
}

// libMachineState is the library state that belongs to one Machine: the
// math PRNG.
//
// Machine has no field for it, so it lives in libMachineStates, keyed by a
// weak pointer to the machine: the entry does not keep the machine alive
// and a cleanup removes it once the machine is collected. (A field
// `Machine.Lib any` would make this map unnecessary.)
type libMachineState struct {
	rngMu sync.Mutex
	rng   mt19937 // guarded by rngMu
}

// libMachineStates maps weak.Pointer[Machine] to *libMachineState.
var libMachineStates sync.Map

// libStateOf returns the library state of m, creating it on first use.
func libStateOf(m *Machine) *libMachineState {
	key := weak.Make(m)
	if s, ok := libMachineStates.Load(key); ok {
		return s.(*libMachineState)
	}
	s := &libMachineState{}
	s.rng.seed(mtDefaultSeed)
	actual, loaded := libMachineStates.LoadOrStore(key, s)
	if !loaded {
		runtime.AddCleanup(m, func(k weak.Pointer[Machine]) { libMachineStates.Delete(k) }, key)
	}
	return actual.(*libMachineState)
}

// mt19937 is the 32-bit Mersenne Twister, bit-compatible with C++'s
// std::mt19937 (which the reference implementation uses).
type mt19937 struct {
	mt  [mtN]uint32
	idx int
}

const (
	mtN           = 624
	mtM           = 397
	mtDefaultSeed = 5489
)

// seed initialises the generator as std::mt19937::seed does.
func (r *mt19937) seed(s uint32) {
	r.mt[0] = s
	for i := 1; i < mtN; i++ {
		p := r.mt[i-1]
		r.mt[i] = 1812433253*(p^(p>>30)) + uint32(i)
	}
	r.idx = mtN
}

// next returns the next 32-bit output.
func (r *mt19937) next() uint32 {
	if r.idx >= mtN {
		r.twist()
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// twist regenerates the whole state block.
func (r *mt19937) twist() {
	for i := 0; i < mtN; i++ {
		y := r.mt[i]&0x80000000 | r.mt[(i+1)%mtN]&0x7fffffff
		v := r.mt[(i+mtM)%mtN] ^ y>>1
		if y&1 != 0 {
			v ^= 0x9908b0df
		}
		r.mt[i] = v
	}
	r.idx = 0
}

// valuesEqual reports whether a and b, two values of type t, are equal as
// List.indexOf and List.contains compare elements: strings by content,
// floating values by numeric value (so 0.0 == -0.0 and NaN matches
// nothing), other scalars by their bits, structs field by field, and
// references by identity (boxed primitives by value, function values by
// target and receiver, as ==).
func valuesEqual(a, b Value, t *Type) bool {
	if t == nil {
		return refEqual(a, b)
	}
	switch {
	case t.Kind == KString:
		return a.S() == b.S()
	case t.IsFloat():
		return a.F() == b.F()
	case t.IsScalar():
		return a.N == b.N
	case t.Kind == KStruct:
		x, _ := a.R.(*Object)
		y, _ := b.R.(*Object)
		if x == y {
			return true
		}
		if x == nil || y == nil || x.Class != y.Class {
			return false
		}
		for i, f := range x.Class.Fields {
			if !valuesEqual(x.Fields[i], y.Fields[i], f.Type) {
				return false
			}
		}
		return true
	}
	return refEqual(a, b)
}

// The strict parsers below back string.toInt…toChar and io.readInt….
// They accept the whole text or nothing: no surrounding whitespace, no
// underscores, no base prefixes, no inf/nan, nothing out of range.

// parseIntStrict parses s as a base-10 integer of the given width with an
// optional sign.
func parseIntStrict(s string, bits int) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, bits)
	return n, err == nil
}

// parseFloatStrict parses s as a decimal floating value: an optional sign,
// digits with an optional fraction (".5" and "5." are accepted), an
// optional exponent. bits is 32 for float (the result is rounded to
// float32) or 64 for double. Values that overflow are rejected.
func parseFloatStrict(s string, bits int) (float64, bool) {
	if !isDecimalFloat(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		return 0, false
	}
	if bits == 32 {
		f = float64(float32(f))
	}
	return f, true
}

// isDecimalFloat reports whether s matches
// [+-]? (digits ('.' digits?)? | '.' digits) ([eE] [+-]? digits)?.
func isDecimalFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDecDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDecDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && isDecDigit(s[i]) {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

func isDecDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseBoolStrict accepts exactly "true" or "false".
func parseBoolStrict(s string) (bool, bool) {
	switch s {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// parseCharStrict accepts a string of exactly one valid UTF-8 code point.
func parseCharStrict(s string) (rune, bool) {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || n != len(s) || r == utf8.RuneError && n == 1 {
		return 0, false
	}
	return r, true
}

// parseScalar parses s strictly as a value of the scalar type t (int,
// long, float, double, bool or char), returning its encoding.
func parseScalar(s string, t *Type) (Value, bool) {
	switch t.Kind {
	case KInt:
		n, ok := parseIntStrict(s, 32)
		return IntV(n), ok
	case KLong:
		n, ok := parseIntStrict(s, 64)
		return IntV(n), ok
	case KFloat:
		f, ok := parseFloatStrict(s, 32)
		return FloatV(f), ok
	case KDouble:
		f, ok := parseFloatStrict(s, 64)
		return FloatV(f), ok
	case KBool:
		b, ok := parseBoolStrict(s)
		return BoolV(b), ok
	case KChar:
		r, ok := parseCharStrict(s)
		return Value{N: uint64(r)}, ok
	}
	return Value{}, false
}

// libParseError is the plain Exception raised for malformed text.
func libParseError(fn, s string, t *Type) *Throw {
	return Throwf("Exception", "%s: %s is not a valid %s", fn, strconv.Quote(s), t)
}
