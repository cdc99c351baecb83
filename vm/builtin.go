package vm

import _ "embed"

//go:embed prelude.n
var preludeSource string

// BuiltinLib returns the part of the library every program needs: the
// prelude (Object and the exception classes) and its natives.
func BuiltinLib() *Library {
	l := NewLibrary()
	l.Sources["prelude"] = preludeSource
	for _, n := range []*Native{
		{Name: "__same", Sig: "bool __same(Object a, Object b)", Flags: ReadOnly, Fn: func(t *Thread, args []Value) (Value, error) {
			return BoolV(refEqual(args[0], args[1])), nil
		}},
		{Name: "__hash", Sig: "int __hash(Object a)", Flags: ReadOnly, Fn: func(t *Thread, args []Value) (Value, error) {
			return IntV(int64(int32(HashValue(t.M, args[0])))), nil
		}},
		{Name: "__defaultToString", Sig: "string __defaultToString(Object a)", Fn: func(t *Thread, args []Value) (Value, error) {
			if o, ok := args[0].R.(*Object); ok {
				return StrV(DefaultToString(t.M, o)), nil
			}
			return t.formatValue(args[0], ObjectT, "Object.toString")
		}},
		{Name: "__exceptionToString", Sig: "string __exceptionToString(Exception e)", Flags: ReadOnly, Fn: func(t *Thread, args []Value) (Value, error) {
			if o, ok := args[0].R.(*Object); ok {
				return StrV(ExceptionString(o)), nil
			}
			return StrV("null"), nil
		}},
		{Name: "__chars", Sig: "char[] __chars(string s)", Flags: ReadOnly, Fn: func(t *Thread, args []Value) (Value, error) {
			s := args[0].S()
			a := &Array{Type: ArrayOf(Char), id: t.M.seqIDs.Add(1)}
			for _, r := range s {
				a.Data = append(a.Data, Value{N: uint64(r)})
			}
			return RefV(a), nil
		}},
		{Name: "__dictKeys", Sig: "", Flags: ReadOnly, Fn: func(t *Thread, args []Value) (Value, error) {
			d, ok := args[0].R.(*Dict)
			if !ok {
				return Value{}, Throwf("NullPointerException", "foreach over a null Dict")
			}
			l := &List{Type: ListOf(d.Type.Key), Data: append([]Value(nil), d.Keys...), id: t.M.seqIDs.Add(1)}
			return RefV(l), nil
		}},
	} {
		l.Natives[n.Name] = n
	}
	return l
}
