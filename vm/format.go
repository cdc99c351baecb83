package vm

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FormatFloat renders a double the shortest way that reads back exactly,
// choosing plain or exponent notation by length (as C++ std::to_chars).
func FormatFloat(f float64, bits int) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		switch {
		case math.IsNaN(f):
			return "nan"
		case f > 0:
			return "inf"
		}
		return "-inf"
	}
	p := strconv.FormatFloat(f, 'f', -1, bits)
	e := strconv.FormatFloat(f, 'e', -1, bits)
	if len(e) < len(p) {
		return e
	}
	return p
}

// FormatScalar renders the scalar bits v of type t.
func FormatScalar(v uint64, t *Type) string {
	switch t.Kind {
	case KBool:
		if v != 0 {
			return "true"
		}
		return "false"
	case KByte, KShort, KInt, KLong:
		return strconv.FormatInt(int64(v), 10)
	case KUbyte, KUshort, KUint, KUlong:
		return strconv.FormatUint(v, 10)
	case KFloat:
		return FormatFloat(math.Float64frombits(v), 32)
	case KDouble:
		return FormatFloat(math.Float64frombits(v), 64)
	case KChar:
		return string(rune(v))
	case KEnum:
		if name, ok := t.Class.EnumNames[int64(v)]; ok {
			return name
		}
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatUint(v, 10)
}

// format renders v of static type typ as NLang's string conversion does,
// calling user toString methods where a class overrides it.
func (t *Thread) format(v Value, typ *Type) (string, error) {
	var b strings.Builder
	err := t.formatTo(&b, v, typ, false, 0)
	return b.String(), err
}

// Format renders v of static type typ for printing; class objects are
// rendered with their toString method (run as a nested call).
func (t *Thread) Format(v Value, typ *Type) (string, error) { return t.format(v, typ) }

func (t *Thread) formatTo(b *strings.Builder, v Value, typ *Type, quote bool, depth int) error {
	if typ.IsScalar() {
		s := FormatScalar(v.N, typ)
		if quote && typ.Kind == KChar {
			s = "'" + s + "'"
		}
		b.WriteString(s)
		return nil
	}
	if depth > 64 {
		b.WriteString("...")
		return nil
	}
	switch x := v.R.(type) {
	case nil:
		if typ.Kind == KString {
			if quote {
				b.WriteString(`""`)
			}
			return nil
		}
		b.WriteString("null")
	case string:
		if quote {
			b.WriteString(strconv.Quote(x))
		} else {
			b.WriteString(x)
		}
	case *Type: // boxed primitive
		return t.formatTo(b, Value{N: v.N}, x, quote, depth)
	case *Array:
		return t.formatSeq(b, x.Data, x.Type.Elem, depth)
	case *List:
		return t.formatSeq(b, x.Data, x.Type.Elem, depth)
	case *Dict:
		b.WriteByte('{')
		for i := range x.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := t.formatTo(b, x.Keys[i], x.Type.Key, true, depth+1); err != nil {
				return err
			}
			b.WriteString(": ")
			if err := t.formatTo(b, x.Vals[i], x.Type.Elem, true, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case *FuncVal:
		switch {
		case x.Bound:
			name := x.Name
			if x.Fn != nil {
				name = x.Fn.Short
			} else if x.Native != nil {
				name = x.Native.Name
			}
			b.WriteString("method " + name)
		case x.Fn != nil:
			b.WriteString("func <module>." + x.Fn.Name)
		case x.Native != nil:
			b.WriteString("func " + x.Native.Name)
		}
	case *Object:
		if x.Class.IsStruct {
			return t.formatStruct(b, x, depth)
		}
		s, err := t.callToString(x)
		if err != nil {
			return err
		}
		b.WriteString(s)
	default:
		if typ.Kind == KHost && typ.Host.Format != nil {
			b.WriteString(typ.Host.Format(x))
		} else if h, ok := x.(interface{ String() string }); ok {
			b.WriteString(h.String())
		} else {
			fmt.Fprintf(b, "%v", x)
		}
	}
	return nil
}

func (t *Thread) formatSeq(b *strings.Builder, data []Value, elem *Type, depth int) error {
	b.WriteByte('[')
	for i, e := range data {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := t.formatTo(b, e, elem, true, depth+1); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

func (t *Thread) formatStruct(b *strings.Builder, o *Object, depth int) error {
	b.WriteString(o.Class.Name + "{")
	for i, f := range o.Class.Fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name + ": ")
		if err := t.formatTo(b, o.Fields[i], f.Type, true, depth+1); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// callToString runs o's toString method.
func (t *Thread) callToString(o *Object) (string, error) {
	m := o.Class.FindMethod("toString", 0)
	if m == nil {
		return DefaultToString(o), nil
	}
	v, err := t.Call(m, []Value{RefV(o)})
	if err != nil {
		return "", err
	}
	return v.S(), nil
}

// DefaultToString is Object.toString: "ClassName@hexid".
func DefaultToString(o *Object) string {
	return fmt.Sprintf("%s@%x", o.Class.Name, o.ID())
}

// dynTypeName names the dynamic type of a reference value.
func dynTypeName(v Value) string {
	switch x := v.R.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case *Type:
		return x.String()
	case *Object:
		return x.Class.Name
	case *Array:
		return x.Type.String()
	case *List:
		return x.Type.String()
	case *Dict:
		return x.Type.String()
	case *FuncVal:
		return x.Type.String()
	}
	return fmt.Sprintf("%T", v.R)
}

// IsInstance reports whether the non-null reference v is a value of type
// want (class/interface subtyping; other types by identity of their type).
func IsInstance(v Value, want *Type) bool {
	switch x := v.R.(type) {
	case *Object:
		switch want.Kind {
		case KObject:
			return true
		case KClass, KInterface, KStruct:
			return x.Class.IsSubclassOf(want.Class)
		}
		return false
	case string:
		return want.Kind == KString || want.Kind == KObject
	case *Array:
		return want == x.Type || want.Kind == KObject
	case *List:
		return want == x.Type || want.Kind == KObject
	case *Dict:
		return want == x.Type || want.Kind == KObject
	case *FuncVal:
		return want.Kind == KFunc || want.Kind == KObject
	case *Type:
		return want == x || want.Kind == KObject
	}
	return want.Kind == KObject || want.Kind == KHost
}

// CopyStruct deep-copies a struct value (nested structs are copied, other
// references shared).
func CopyStruct(o *Object) *Object {
	c := &Object{Class: o.Class, Fields: make([]Value, len(o.Fields))}
	copy(c.Fields, o.Fields)
	for i, f := range o.Class.Fields {
		if f.Type.Kind == KStruct {
			if s, ok := o.Fields[i].R.(*Object); ok {
				c.Fields[i] = RefV(CopyStruct(s))
			}
		}
	}
	return c
}

// NewArray allocates an array of type at (an array type) with n zeroed
// elements (struct elements hold fresh zero structs).
func (m *Machine) NewArray(at *Type, n int) *Array {
	a := &Array{Type: at, Data: make([]Value, n)}
	if at.Elem.Kind == KStruct {
		for i := range a.Data {
			a.Data[i] = RefV(m.NewObject(at.Elem.Class))
		}
	}
	return a
}

// ZeroValue returns the zero value of type typ (a fresh struct for struct
// types).
func (m *Machine) ZeroValue(typ *Type) Value {
	if typ.Kind == KStruct {
		return RefV(m.NewObject(typ.Class))
	}
	return Value{}
}

// objectMethod implements equals, getHashCode and toString on values that
// are not class objects (strings, boxed primitives, collections).
// args[0] is the receiver.
func (t *Thread) objectMethod(name string, args []Value) (Value, error) {
	recv := args[0]
	switch name {
	case "toString":
		s, err := t.format(recv, ObjectT)
		return StrV(s), err
	case "equals":
		if len(args) < 2 {
			break
		}
		return BoolV(refEqual(recv, args[1])), nil
	case "getHashCode":
		return IntV(int64(int32(HashValue(recv)))), nil
	}
	return Value{}, Throwf("Exception", "no method %s on %s", name, dynTypeName(recv))
}

// HashValue hashes a value: strings by content (FNV-1a), boxed primitives
// by bits, objects by identity.
func HashValue(v Value) uint32 {
	switch x := v.R.(type) {
	case string:
		h := uint32(2166136261)
		for i := 0; i < len(x); i++ {
			h ^= uint32(x[i])
			h *= 16777619
		}
		return h
	case *Object:
		return uint32(x.ID())
	case nil:
		return uint32(v.N ^ v.N>>32)
	case *Type:
		return uint32(v.N ^ v.N>>32)
	}
	return 0
}
