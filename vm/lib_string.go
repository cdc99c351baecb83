package vm

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// stringMethods returns the methods of string. The receiver is args[0]; a
// null string behaves as "". Offsets and lengths count bytes of the UTF-8
// text (charAt decodes the code point starting at a byte offset, and
// charCount counts code points). Case conversion is ASCII-only and trim
// removes ASCII whitespace, as in the reference. The converters (toInt…
// toChar) are strict: the whole text must be the value, else a plain
// Exception is raised; toChar, like toInt, reads a decimal number (the
// code point).
func stringMethods() []*Native {
	m := func(name, sig string, fn func(s string, a []Value) (Value, error)) *Native {
		return libFn("string."+name, sig, func(t *Thread, a []Value) (Value, error) {
			v, err := fn(a[0].S(), a)
			if err == nil {
				err = chargeResult(t, v, "string."+name)
				t.M.NumberSeq(v.R) // (split's List)
			}
			return v, err
		})
	}
	conv := func(name string, typ *Type) *Native {
		return m(name, typ.String()+" "+name+"()", func(s string, a []Value) (Value, error) {
			v, ok := parseScalar(s, typ)
			if !ok {
				return Value{}, libParseError("string."+name, s, typ)
			}
			return v, nil
		})
	}
	return withFlags(ReadOnly, []*Native{ // strings do not change
		m("length", "int length()", func(s string, a []Value) (Value, error) {
			return IntV(int64(len(s))), nil
		}),
		m("substring", "string substring(int start)", func(s string, a []Value) (Value, error) {
			return libSubstring(s, a[1].I(), int64(len(s)))
		}),
		m("substring", "string substring(int start, int end)", func(s string, a []Value) (Value, error) {
			return libSubstring(s, a[1].I(), a[2].I())
		}),
		m("indexOf", "int indexOf(string s)", func(s string, a []Value) (Value, error) {
			return IntV(int64(strings.Index(s, a[1].S()))), nil
		}),
		m("startsWith", "bool startsWith(string s)", func(s string, a []Value) (Value, error) {
			return BoolV(strings.HasPrefix(s, a[1].S())), nil
		}),
		m("endsWith", "bool endsWith(string s)", func(s string, a []Value) (Value, error) {
			return BoolV(strings.HasSuffix(s, a[1].S())), nil
		}),
		m("contains", "bool contains(string s)", func(s string, a []Value) (Value, error) {
			return BoolV(strings.Contains(s, a[1].S())), nil
		}),
		m("toUpper", "string toUpper()", func(s string, a []Value) (Value, error) {
			return StrV(libMapASCII(s, 'a', 'z', 'A'-'a')), nil
		}),
		m("toLower", "string toLower()", func(s string, a []Value) (Value, error) {
			return StrV(libMapASCII(s, 'A', 'Z', 'a'-'A')), nil
		}),
		m("trim", "string trim()", func(s string, a []Value) (Value, error) {
			return StrV(strings.Trim(s, " \t\n\r\f\v")), nil
		}),
		m("split", "List<string> split(string sep)", func(s string, a []Value) (Value, error) {
			sep := a[1].S()
			if sep == "" {
				return Value{}, Throwf("Exception", "string.split: the separator must not be empty")
			}
			parts := strings.Split(s, sep)
			l := &List{Type: ListOf(String), Data: make([]Value, len(parts))}
			for i, p := range parts {
				l.Data[i] = StrV(p)
			}
			return RefV(l), nil
		}),
		libFn("string.replace", "string replace(string old, string repl)", func(t *Thread, a []Value) (Value, error) {
			s, old, repl := a[0].S(), a[1].S(), a[2].S()
			if old == "" {
				return Value{}, Throwf("Exception", "string.replace: the text to replace must not be empty")
			}
			// The result can be far larger than s: charge it first.
			size := int64(len(s)) + int64(strings.Count(s, old))*int64(len(repl)-len(old))
			if err := t.ChargeHeap(max(size, 0), "string.replace"); err != nil {
				return Value{}, err
			}
			return StrV(strings.ReplaceAll(s, old, repl)), nil
		}),
		conv("toInt", Int),
		conv("toLong", Long),
		conv("toFloat", Float),
		conv("toDouble", Double),
		conv("toBool", Bool),
		// toChar parses a code point written in decimal, as toInt
		// parses an int: "66".toChar() is 'B'.
		m("toChar", "char toChar()", func(s string, a []Value) (Value, error) {
			n, ok := parseIntStrict(s, 32)
			if !ok || n < 0 || n > utf8.MaxRune || n >= 0xD800 && n <= 0xDFFF {
				return Value{}, Throwf("Exception", "string.toChar: %s is not a valid char (want the decimal code point of a Unicode character, such as \"66\" for 'B')", strconv.Quote(s))
			}
			return Value{N: uint64(n)}, nil
		}),
		m("charAt", "char charAt(int byteIdx)", func(s string, a []Value) (Value, error) {
			i := a[1].I()
			if i < 0 || i >= int64(len(s)) {
				return Value{}, Throwf("IndexOutOfBoundsException", "string.charAt: index %d out of range [0, %d)", i, len(s))
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				what := "is not valid UTF-8"
				if !utf8.RuneStart(s[i]) {
					what = "is inside a character"
				}
				return Value{}, Throwf("Exception", "string.charAt: byte %d (0x%02x) %s", i, s[i], what)
			}
			return Value{N: uint64(r)}, nil
		}),
		m("charCount", "int charCount()", func(s string, a []Value) (Value, error) {
			return IntV(int64(utf8.RuneCountInString(s))), nil
		}),
		m("equals", "bool equals(string s)", func(s string, a []Value) (Value, error) {
			return BoolV(s == a[1].S()), nil
		}),
		m("getHashCode", "int getHashCode()", func(s string, a []Value) (Value, error) {
			return IntV(int64(int32(HashValue(nil, StrV(s))))), nil
		}),
		m("toString", "string toString()", func(s string, a []Value) (Value, error) {
			return StrV(s), nil
		}),
	}...)
}

// libSubstring returns s[start:end] or raises IndexOutOfBoundsException
// unless 0 <= start <= end <= len(s).
func libSubstring(s string, start, end int64) (Value, error) {
	if start < 0 || end < start || end > int64(len(s)) {
		return Value{}, Throwf("IndexOutOfBoundsException", "string.substring: range [%d, %d) out of bounds for length %d", start, end, len(s))
	}
	return StrV(s[start:end]), nil
}

// libMapASCII adds delta to every byte of s in [lo, hi].
func libMapASCII(s string, lo, hi byte, delta int) string {
	i := 0
	for i < len(s) && (s[i] < lo || s[i] > hi) {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if b[i] >= lo && b[i] <= hi {
			b[i] = byte(int(b[i]) + delta)
		}
	}
	return string(b)
}

// chargeResult charges the heap for a string or List a string method
// made (after the fact: such results are at most a few times their
// receiver; the heap limit catches the rest at its next measurement).
func chargeResult(t *Thread, v Value, what string) error {
	switch r := v.R.(type) {
	case string:
		return t.ChargeHeap(int64(len(r)), what)
	case *List:
		return t.ChargeHeap(objectSize+int64(len(r.Data))*(valueSize+16), what)
	}
	return nil
}
