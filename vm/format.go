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

// format renders v of static type typ as NLang's string conversion does.
// Where a class object's toString must run, it returns ErrCall after
// CallThen: the interpreter runs the method as an ordinary activation
// and resumes the walk with its result (see formatter). label names the
// continuation frame.
func (t *Thread) format(v Value, typ *Type, label string) (string, error) {
	if typ.IsScalar() {
		return FormatScalar(v.N, typ), nil
	}
	if s, ok := v.R.(string); ok {
		return s, nil
	}
	f := &formatter{label: label, m: t.M}
	if f.put(v, typ, false, 0) {
		return "", f.call(t)
	}
	return f.walk(t)
}

// Format renders v of static type typ as string conversion does, but
// without running user code: an object whose class overrides toString
// shows as Class@id. For hosts (tests, tools); the interpreter runs the
// overrides (see format).
func (t *Thread) Format(v Value, typ *Type) (string, error) {
	f := &formatter{noCall: true}
	f.put(v, typ, false, 0)
	return f.walk(t)
}

// formatValue is format for natives: the string as a Value, or ErrCall
// (the native returns it as it is, and gets the string as its result).
func (t *Thread) formatValue(v Value, typ *Type, label string) (Value, error) {
	s, err := t.format(v, typ, label)
	if err != nil {
		return Value{}, err
	}
	return StrV(s), nil
}

// A formatter renders a value as string conversion does. It is a
// resumable walker, so that user toString methods run as activations of
// the thread, not as Go recursion: its state is plain data (the text so
// far and a stack of positions in the sequences, dictionaries and structs
// being rendered), and where an object's toString must run it asks for
// the call (CallThen) and is resumed, as a Continuation, with the
// string the call returned.
type formatter struct {
	b     []byte
	stack []fmtPos
	label string
	// pending is the object whose toString the walk waits for.
	pending *Object
	method  *Funcode
	// noCall renders objects as Class@id instead of calling toString
	// (for the debugger: the ids it shows, Object.ID).
	noCall bool
	// m is the machine of the program's formatting (nil for noCall).
	m *Machine
	// notFound, if set, makes the result a "key not found" exception
	// whose message ends with the text (Dict.get).
	notFound bool
}

// fmtPos is a position in a container being rendered.
type fmtPos struct {
	kind      fmtKind
	vals      []Value  // elements; dictionary values; struct fields
	keys      []Value  // dictionary keys
	fields    []*Field // struct fields
	elem, key *Type
	i         int // the next element (dictionaries: key then value)
	depth     int
}

type fmtKind uint8

const (
	fmtSeq fmtKind = iota
	fmtDict
	fmtStruct
)

// maxFormatDepth bounds nesting: deeper containers print "...".
const maxFormatDepth = 64

// put renders v of static type typ: directly, or by pushing a position
// for a container. It reports true when an object's toString must run
// first (f.pending, f.method).
func (f *formatter) put(v Value, typ *Type, quote bool, depth int) bool {
	if typ.IsScalar() {
		s := FormatScalar(v.N, typ)
		if quote && typ.Kind == KChar {
			s = "'" + s + "'"
		}
		f.b = append(f.b, s...)
		return false
	}
	if depth > maxFormatDepth {
		f.b = append(f.b, "..."...)
		return false
	}
	switch x := v.R.(type) {
	case nil:
		if typ.Kind == KString {
			if quote {
				f.b = append(f.b, `""`...)
			}
			return false
		}
		f.b = append(f.b, "null"...)
	case string:
		if quote {
			f.b = strconv.AppendQuote(f.b, x)
		} else {
			f.b = append(f.b, x...)
		}
	case *Type: // boxed primitive
		return f.put(Value{N: v.N}, x, quote, depth)
	case *Array:
		f.b = append(f.b, '[')
		f.stack = append(f.stack, fmtPos{kind: fmtSeq, vals: x.Data, elem: x.Type.Elem, depth: depth})
	case *List:
		f.b = append(f.b, '[')
		f.stack = append(f.stack, fmtPos{kind: fmtSeq, vals: x.Data, elem: x.Type.Elem, depth: depth})
	case *Dict:
		f.b = append(f.b, '{')
		f.stack = append(f.stack, fmtPos{kind: fmtDict, keys: x.Keys, vals: x.Vals, key: x.Type.Key, elem: x.Type.Elem, depth: depth})
	case *FuncVal:
		switch {
		case x.Bound:
			name := x.Name
			if x.Fn != nil {
				name = x.Fn.Short
			} else if x.Native != nil {
				name = x.Native.Name
			}
			f.b = append(f.b, "method "+name...)
		case x.Fn != nil:
			f.b = append(f.b, "func "+fileStem(x.Fn.File)+"."+x.Fn.Name...)
		case x.Native != nil:
			f.b = append(f.b, "func "+x.Native.Name...)
		}
	case *Object:
		if x.Class.IsStruct {
			f.b = append(f.b, x.Class.Name+"{"...)
			f.stack = append(f.stack, fmtPos{kind: fmtStruct, vals: x.Fields, fields: x.Class.Fields, depth: depth})
			return false
		}
		m := x.Class.FindMethod("toString", 0)
		switch {
		case m == nil || f.noCall:
			f.b = append(f.b, DefaultToString(f.m, x)...)
		case m.File == preludeFile && m.Class != nil && m.Class.Name == "Exception":
			f.b = append(f.b, ExceptionString(x)...)
		case m.File == preludeFile:
			f.b = append(f.b, DefaultToString(f.m, x)...)
		default:
			f.pending, f.method = x, m
			return true
		}
	default:
		switch {
		case typ.Kind == KHost && typ.Host.Format != nil:
			f.b = append(f.b, typ.Host.Format(x)...)
		default:
			if h, ok := x.(interface{ String() string }); ok {
				f.b = append(f.b, h.String()...)
			} else {
				f.b = fmt.Appendf(f.b, "%v", x)
			}
		}
	}
	return false
}

// preludeFile is the file name of the prelude's functions.
const preludeFile = "<prelude>"

// walk renders the rest of the containers on the stack. It returns the
// text, or ErrCall when an object's toString must run first.
func (f *formatter) walk(t *Thread) (string, error) {
	for len(f.stack) > 0 {
		p := &f.stack[len(f.stack)-1]
		var call bool
		switch p.kind {
		case fmtSeq:
			if p.i >= len(p.vals) {
				f.b = append(f.b, ']')
				f.stack = f.stack[:len(f.stack)-1]
				continue
			}
			if p.i > 0 {
				f.b = append(f.b, ", "...)
			}
			v, elem, depth := p.vals[p.i], p.elem, p.depth+1
			p.i++
			call = f.put(v, elem, true, depth)
		case fmtDict:
			n := min(len(p.keys), len(p.vals))
			if p.i >= 2*n {
				f.b = append(f.b, '}')
				f.stack = f.stack[:len(f.stack)-1]
				continue
			}
			k, depth := p.i/2, p.depth+1
			if p.i%2 == 0 {
				if k > 0 {
					f.b = append(f.b, ", "...)
				}
				v, key := p.keys[k], p.key
				p.i++
				call = f.put(v, key, true, depth)
			} else {
				f.b = append(f.b, ": "...)
				v, elem := p.vals[k], p.elem
				p.i++
				call = f.put(v, elem, true, depth)
			}
		case fmtStruct:
			n := min(len(p.fields), len(p.vals))
			if p.i >= n {
				f.b = append(f.b, '}')
				f.stack = f.stack[:len(f.stack)-1]
				continue
			}
			if p.i > 0 {
				f.b = append(f.b, ", "...)
			}
			fd, v, depth := p.fields[p.i], p.vals[p.i], p.depth+1
			p.i++
			f.b = append(f.b, fd.Name+": "...)
			call = f.put(v, fd.Type, true, depth)
		}
		if call {
			return "", f.call(t)
		}
	}
	if f.notFound {
		return "", Throwf("Exception", "key not found: %s", f.b)
	}
	return string(f.b), nil
}

// call asks for the pending toString, to be resumed with its result.
func (f *formatter) call(t *Thread) error {
	o, m := f.pending, f.method
	f.pending, f.method = nil, nil
	return t.CallThen(m, []Value{RefV(o)}, f.label, f)
}

// Resume implements Continuation: it appends the string the toString
// returned and goes on with the walk.
func (f *formatter) Resume(t *Thread, result Value) (Value, error) {
	f.b = append(f.b, result.S()...) // a null string adds nothing, as before
	s, err := f.walk(t)
	if err != nil {
		return Value{}, err
	}
	return StrV(s), nil
}

// DefaultToString is Object.toString: "ClassName@hexid", with the
// program's identity number of o in m (Machine.ObjectID); with m nil, the
// number a debugger shows (Object.ID).
func DefaultToString(m *Machine, o *Object) string {
	id := int64(0)
	if m != nil {
		id = m.ObjectID(o)
	} else {
		id = o.ID()
	}
	return fmt.Sprintf("%s@%x", o.Class.Name, id)
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
	c := allocObject(len(o.Fields))
	c.Class = o.Class
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
	a := &Array{Type: at, Data: make([]Value, n), id: m.seqIDs.Add(1)}
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
		return t.formatValue(recv, ObjectT, "Object.toString")
	case "equals":
		if len(args) < 2 {
			break
		}
		return BoolV(refEqual(recv, args[1])), nil
	case "getHashCode":
		return IntV(int64(int32(HashValue(t.M, recv)))), nil
	}
	return Value{}, Throwf("Exception", "no method %s on %s", name, dynTypeName(recv))
}

// HashValue hashes a value: strings by content (FNV-1a), boxed primitives
// by bits, objects by their identity in m (Machine.ObjectID).
func HashValue(m *Machine, v Value) uint32 {
	switch x := v.R.(type) {
	case string:
		h := uint32(2166136261)
		for i := 0; i < len(x); i++ {
			h ^= uint32(x[i])
			h *= 16777619
		}
		return h
	case *Object:
		return uint32(m.ObjectID(x))
	case nil:
		return uint32(v.N ^ v.N>>32)
	case *Type:
		return uint32(v.N ^ v.N>>32)
	}
	return 0
}

// fileStem is the name of a source file without its folder and its .n
// extension: a function value prints as func STEM.NAME.
func fileStem(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		path = path[i+1:]
	}
	return strings.TrimSuffix(path, ".n")
}
