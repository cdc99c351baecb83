package vm

import (
	"strings"
	"sync"
)

// Kind classifies a Type.
type Kind uint8

// Type kinds. The numeric kinds are ordered so that the integer kinds are
// contiguous.
const (
	KVoid Kind = iota
	KBool
	KByte
	KUbyte
	KShort
	KUshort
	KInt
	KUint
	KLong
	KUlong
	KFloat
	KDouble
	KChar
	KString
	KNull      // the type of the literal null
	KObject    // Object, the root class (boxes primitives)
	KClass     // a user or built-in class (Class set)
	KInterface // an interface (Class set)
	KStruct    // a struct (Class set)
	KEnum      // an enum (Class set)
	KArray     // Elem[]
	KList      // List<Elem>
	KDict      // Dict<Key, Elem>
	KFunc      // Func<Result, Params...>
	KHost      // a host type such as Channel<T> (Host set, Args)
)

// Type describes a static NLang type. Types are interned: two equal types
// are the same pointer, so == compares types.
type Type struct {
	Kind   Kind
	Elem   *Type     // KArray, KList: element; KDict: value
	Key    *Type     // KDict: key
	Class  *Class    // KClass, KInterface, KStruct, KEnum
	Host   *HostType // KHost
	Args   []*Type   // KHost: type arguments; KFunc: parameters
	Out    []bool    // KFunc: out parameters
	Result *Type     // KFunc: result
	name   string    // cached String()
}

// Predeclared types.
var (
	Void    = &Type{Kind: KVoid, name: "void"}
	Bool    = &Type{Kind: KBool, name: "bool"}
	Byte    = &Type{Kind: KByte, name: "byte"}
	Ubyte   = &Type{Kind: KUbyte, name: "ubyte"}
	Short   = &Type{Kind: KShort, name: "short"}
	Ushort  = &Type{Kind: KUshort, name: "ushort"}
	Int     = &Type{Kind: KInt, name: "int"}
	Uint    = &Type{Kind: KUint, name: "uint"}
	Long    = &Type{Kind: KLong, name: "long"}
	Ulong   = &Type{Kind: KUlong, name: "ulong"}
	Float   = &Type{Kind: KFloat, name: "float"}
	Double  = &Type{Kind: KDouble, name: "double"}
	Char    = &Type{Kind: KChar, name: "char"}
	String  = &Type{Kind: KString, name: "string"}
	Null    = &Type{Kind: KNull, name: "null"}
	ObjectT = &Type{Kind: KObject, name: "Object"}
)

// PrimitiveByName maps keyword type names to their types.
var PrimitiveByName = map[string]*Type{
	"void": Void, "bool": Bool, "byte": Byte, "ubyte": Ubyte, "short": Short,
	"ushort": Ushort, "int": Int, "uint": Uint, "long": Long, "ulong": Ulong,
	"float": Float, "double": Double, "char": Char, "string": String,
}

// IsInteger reports whether t is one of the eight integer types.
func (t *Type) IsInteger() bool { return t.Kind >= KByte && t.Kind <= KUlong }

// IsSigned reports whether t is a signed integer type.
func (t *Type) IsSigned() bool {
	switch t.Kind {
	case KByte, KShort, KInt, KLong:
		return true
	}
	return false
}

// IsFloat reports whether t is float or double.
func (t *Type) IsFloat() bool { return t.Kind == KFloat || t.Kind == KDouble }

// IsNumeric reports whether t is an integer or floating type.
func (t *Type) IsNumeric() bool { return t.IsInteger() || t.IsFloat() }

// IsScalar reports whether values of t live in Value.N only (no reference).
func (t *Type) IsScalar() bool {
	return t.Kind >= KBool && t.Kind <= KChar || t.Kind == KEnum
}

// IsRef reports whether t is a reference type (may hold null).
func (t *Type) IsRef() bool {
	switch t.Kind {
	case KNull, KObject, KClass, KInterface, KArray, KList, KDict, KFunc, KHost:
		return true
	}
	return false
}

// Bits returns the width of an integer type.
func (t *Type) Bits() int {
	switch t.Kind {
	case KByte, KUbyte:
		return 8
	case KShort, KUshort:
		return 16
	case KInt, KUint:
		return 32
	case KLong, KUlong:
		return 64
	}
	return 0
}

// String returns the type as written in NLang.
func (t *Type) String() string {
	if t == nil {
		return "<nil>"
	}
	if t.name != "" {
		return t.name
	}
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *Type) write(b *strings.Builder) {
	if t.name != "" {
		b.WriteString(t.name)
		return
	}
	switch t.Kind {
	case KClass, KInterface, KStruct, KEnum:
		b.WriteString(t.Class.Name)
	case KArray:
		t.Elem.write(b)
		b.WriteString("[]")
	case KList:
		b.WriteString("List<")
		t.Elem.write(b)
		b.WriteString(">")
	case KDict:
		b.WriteString("Dict<")
		t.Key.write(b)
		b.WriteString(", ")
		t.Elem.write(b)
		b.WriteString(">")
	case KFunc:
		b.WriteString("Func<")
		t.Result.write(b)
		for i, p := range t.Args {
			b.WriteString(", ")
			if t.Out[i] {
				b.WriteString("out ")
			}
			p.write(b)
		}
		b.WriteString(">")
	case KHost:
		b.WriteString(t.Host.Name)
		if len(t.Args) > 0 {
			b.WriteString("<")
			for i, a := range t.Args {
				if i > 0 {
					b.WriteString(", ")
				}
				a.write(b)
			}
			b.WriteString(">")
		}
	default:
		b.WriteString("?")
	}
}

// The type table interns composite types.
var (
	typeMu    sync.Mutex
	typeTable = map[string]*Type{}
)

func intern(key string, mk func() *Type) *Type {
	typeMu.Lock()
	defer typeMu.Unlock()
	if t, ok := typeTable[key]; ok {
		return t
	}
	t := mk()
	typeTable[key] = t
	return t
}

func typeKey(t *Type) string {
	switch t.Kind {
	case KClass, KInterface, KStruct, KEnum:
		return t.Class.key()
	case KHost:
		s := "H" + t.Host.Name + "<"
		for _, a := range t.Args {
			s += typeKey(a) + ","
		}
		return s + ">"
	}
	if t.name != "" {
		return t.name
	}
	switch t.Kind {
	case KArray:
		return typeKey(t.Elem) + "[]"
	case KList:
		return "L<" + typeKey(t.Elem) + ">"
	case KDict:
		return "D<" + typeKey(t.Key) + "," + typeKey(t.Elem) + ">"
	case KFunc:
		s := "F<" + typeKey(t.Result)
		for i, a := range t.Args {
			s += ","
			if t.Out[i] {
				s += "out "
			}
			s += typeKey(a)
		}
		return s + ">"
	}
	return "?"
}

// ArrayOf returns the type elem[].
func ArrayOf(elem *Type) *Type {
	return intern(typeKey(elem)+"[]", func() *Type { return &Type{Kind: KArray, Elem: elem} })
}

// ListOf returns List<elem>.
func ListOf(elem *Type) *Type {
	return intern("L<"+typeKey(elem)+">", func() *Type { return &Type{Kind: KList, Elem: elem} })
}

// DictOf returns Dict<key, val>.
func DictOf(key, val *Type) *Type {
	return intern("D<"+typeKey(key)+","+typeKey(val)+">", func() *Type { return &Type{Kind: KDict, Key: key, Elem: val} })
}

// FuncOf returns Func<result, params...>. out may be nil.
func FuncOf(result *Type, params []*Type, out []bool) *Type {
	if out == nil {
		out = make([]bool, len(params))
	}
	t := &Type{Kind: KFunc, Result: result, Args: params, Out: out}
	return intern(typeKey(t), func() *Type { return t })
}

// HostOf returns the host type h instantiated with args.
func HostOf(h *HostType, args []*Type) *Type {
	t := &Type{Kind: KHost, Host: h, Args: args}
	return intern(typeKey(t), func() *Type { return t })
}

// ClassType returns the type of values of class c.
func ClassType(c *Class) *Type {
	if c.typ != nil {
		return c.typ
	}
	k := KClass
	switch {
	case c.IsInterface:
		k = KInterface
	case c.IsStruct:
		k = KStruct
	case c.IsEnum:
		k = KEnum
	}
	c.typ = &Type{Kind: k, Class: c}
	return c.typ
}
