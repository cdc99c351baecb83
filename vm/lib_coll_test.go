package vm

import (
	"math"
	"testing"
)

// libIntList returns a List<int> holding xs.
func libIntList(xs ...int64) *List {
	l := &List{Type: ListOf(Int)}
	for _, x := range xs {
		l.Data = append(l.Data, IntV(x))
	}
	return l
}

func TestListMethods(t *testing.T) {
	th, _, _ := libThread("")
	l := libIntList()
	lv := RefV(l)
	call := func(sig string, args ...Value) Value {
		t.Helper()
		return mustLib(t, th, "List", sig, append([]Value{lv}, args...)...)
	}
	for _, x := range []int64{10, 20, 30, 20} {
		call("void add(T x)", IntV(x))
	}
	if got := call("int length()").I(); got != 4 {
		t.Errorf("length = %d", got)
	}
	if got := call("int count()").I(); got != 4 {
		t.Errorf("count = %d", got)
	}
	if got := call("T get(int i)", IntV(1)).I(); got != 20 {
		t.Errorf("get(1) = %d", got)
	}
	call("void set(int i, T x)", IntV(0), IntV(-5))
	if got := call("int indexOf(T x)", IntV(20)).I(); got != 1 {
		t.Errorf("indexOf(20) = %d, want the first match", got)
	}
	if got := call("int indexOf(T x)", IntV(99)).I(); got != -1 {
		t.Errorf("indexOf(99) = %d", got)
	}
	if !call("bool contains(T x)", IntV(-5)).B() || call("bool contains(T x)", IntV(10)).B() {
		t.Error("contains is wrong after set")
	}
	call("void removeAt(int i)", IntV(1))
	if got := call("string toString()").S(); got != "[-5, 30, 20]" {
		t.Errorf("toString after removeAt = %s", got)
	}
	call("void removeAt(int i)", IntV(2))
	if got := call("string toString()").S(); got != "[-5, 30]" {
		t.Errorf("toString after removing the last = %s", got)
	}
	call("void clear()")
	if got := call("int length()").I(); got != 0 || call("string toString()").S() != "[]" {
		t.Errorf("length after clear = %d", got)
	}
	call("void add(T x)", IntV(1))
	if got := call("string toString()").S(); got != "[1]" {
		t.Errorf("add after clear: %s", got)
	}
}

func TestListIndexErrors(t *testing.T) {
	th, _, _ := libThread("")
	lv := RefV(libIntList(1, 2, 3))
	for _, i := range []int64{-1, 3, math.MaxInt32} {
		_, err := callLib(t, th, "List", "T get(int i)", lv, IntV(i))
		wantLibThrow(t, err, "IndexOutOfBoundsException", "List.get: index", "out of range [0, 3)")
		_, err = callLib(t, th, "List", "void set(int i, T x)", lv, IntV(i), IntV(0))
		wantLibThrow(t, err, "IndexOutOfBoundsException", "List.set")
		_, err = callLib(t, th, "List", "void removeAt(int i)", lv, IntV(i))
		wantLibThrow(t, err, "IndexOutOfBoundsException", "List.removeAt")
	}
	_, err := callLib(t, th, "List", "T get(int i)", lv, IntV(-1))
	wantLibThrow(t, err, "IndexOutOfBoundsException", "index -1 out of range [0, 3)")
}

func TestListNullReceiver(t *testing.T) {
	th, _, _ := libThread("")
	for _, n := range stdLib.Methods["List"] {
		args := []Value{{}, {}, {}}
		if _, err := n.Fn(th, args); err == nil {
			t.Errorf("%s on null: no error", n.Sig)
		} else {
			wantLibThrow(t, err, "NullPointerException", n.Name)
		}
	}
	for _, kind := range []string{"Dict", "array"} {
		for _, n := range stdLib.Methods[kind] {
			_, err := n.Fn(th, []Value{{}, {}, {}})
			wantLibThrow(t, err, "NullPointerException", n.Name)
		}
	}
}

func TestListElementEquality(t *testing.T) {
	th, _, _ := libThread("")
	find := func(l *List, x Value) int64 {
		t.Helper()
		return mustLib(t, th, "List", "int indexOf(T x)", RefV(l), x).I()
	}
	// Strings compare by content, null as "".
	ls := &List{Type: ListOf(String), Data: []Value{StrV("a"), Value{}, StrV(string([]byte("bc")))}}
	if find(ls, StrV("bc")) != 2 || find(ls, StrV("")) != 1 || find(ls, StrV("z")) != -1 {
		t.Error("List<string> indexOf by content failed")
	}
	// Doubles compare by value.
	ld := &List{Type: ListOf(Double), Data: []Value{FloatV(math.NaN()), FloatV(math.Copysign(0, -1))}}
	if find(ld, FloatV(0)) != 1 || find(ld, FloatV(math.NaN())) != -1 {
		t.Error("List<double> indexOf by value failed")
	}
	// Class objects compare by identity.
	c := &Class{Name: "C"}
	o1, o2 := &Object{Class: c}, &Object{Class: c}
	lo := &List{Type: ListOf(ClassType(c)), Data: []Value{RefV(o1), {}}}
	if find(lo, RefV(o1)) != 0 || find(lo, RefV(o2)) != -1 || find(lo, Value{}) != 1 {
		t.Error("List<C> indexOf by identity failed")
	}
	if !mustLib(t, th, "List", "bool contains(T x)", RefV(lo), RefV(o1)).B() {
		t.Error("contains(o1) = false")
	}
	// Structs compare field by field.
	p := &Class{Name: "P", IsStruct: true}
	p.Fields = []*Field{{Name: "x", Type: Int, Owner: p}}
	pt := ClassType(p)
	lp := &List{Type: ListOf(pt), Data: []Value{RefV(&Object{Class: p, Fields: []Value{IntV(1)}}), RefV(&Object{Class: p, Fields: []Value{IntV(2)}})}}
	if find(lp, RefV(&Object{Class: p, Fields: []Value{IntV(2)}})) != 1 {
		t.Error("List<P> indexOf by fields failed")
	}
}

func TestListToString(t *testing.T) {
	th, _, _ := libThread("")
	tests := []struct {
		l    *List
		want string
	}{
		{&List{Type: ListOf(String), Data: []Value{StrV("hi"), StrV("z\"z")}}, `["hi", "z\"z"]`},
		{&List{Type: ListOf(Double), Data: []Value{FloatV(0.1), FloatV(2)}}, `[0.1, 2]`},
		{&List{Type: ListOf(Bool), Data: []Value{BoolV(true)}}, `[true]`},
		{&List{Type: ListOf(Char), Data: []Value{{N: 'x'}}}, `['x']`},
		{&List{Type: ListOf(ListOf(Int)), Data: []Value{RefV(libIntList(1, 2)), {}}}, `[[1, 2], null]`},
	}
	for _, tc := range tests {
		if got := mustLib(t, th, "List", "string toString()", RefV(tc.l)).S(); got != tc.want {
			t.Errorf("toString = %s, want %s", got, tc.want)
		}
	}
}

func TestDictMethods(t *testing.T) {
	th, _, _ := libThread("")
	d := NewDict(DictOf(String, Int))
	dv := RefV(d)
	call := func(sig string, args ...Value) Value {
		t.Helper()
		return mustLib(t, th, "Dict", sig, append([]Value{dv}, args...)...)
	}
	call("void set(K k, V v)", StrV("b"), IntV(2))
	call("void set(K k, V v)", StrV("a"), IntV(1))
	call("void set(K k, V v)", StrV("b"), IntV(20)) // keeps its position
	if got := call("int count()").I(); got != 2 {
		t.Errorf("count = %d", got)
	}
	if got := call("V get(K k)", StrV("b")).I(); got != 20 {
		t.Errorf("get(b) = %d", got)
	}
	if !call("bool containsKey(K k)", StrV("a")).B() || call("bool containsKey(K k)", StrV("zz")).B() {
		t.Error("containsKey is wrong")
	}
	if got := call("string toString()").S(); got != `{"b": 20, "a": 1}` {
		t.Errorf("toString = %s", got)
	}
	keys := call("List<K> keys()")
	kl := keys.R.(*List)
	if kl.Type != ListOf(String) || libFormat(t, th, keys, kl.Type) != `["b", "a"]` {
		t.Errorf("keys = %v %s", kl.Type, libFormat(t, th, keys, kl.Type))
	}
	// keys() is a copy.
	kl.Data[0] = StrV("changed")
	if got := call("V get(K k)", StrV("b")).I(); got != 20 {
		t.Errorf("keys() aliases the dictionary")
	}
	_, err := callLib(t, th, "Dict", "V get(K k)", dv, StrV("nope"))
	wantLibThrow(t, err, "Exception", "key not found: nope")
	if got := call("int remove(K k)", StrV("b")).I(); got != 1 {
		t.Errorf("remove(b) = %d", got)
	}
	if got := call("int remove(K k)", StrV("b")).I(); got != 0 {
		t.Errorf("remove(b) again = %d", got)
	}
	if got := call("string toString()").S(); got != `{"a": 1}` {
		t.Errorf("toString after remove = %s", got)
	}
	call("void clear()")
	if got := call("int count()").I(); got != 0 || call("string toString()").S() != "{}" {
		t.Errorf("count after clear = %d", got)
	}
	if got := call("List<K> keys()").R.(*List); len(got.Data) != 0 {
		t.Errorf("keys after clear = %v", got.Data)
	}
}

func TestDictIntKeys(t *testing.T) {
	th, _, _ := libThread("")
	d := NewDict(DictOf(Int, String))
	dv := RefV(d)
	mustLib(t, th, "Dict", "void set(K k, V v)", dv, IntV(-3), StrV("minus"))
	if got := mustLib(t, th, "Dict", "V get(K k)", dv, IntV(-3)).S(); got != "minus" {
		t.Errorf("get(-3) = %q", got)
	}
	_, err := callLib(t, th, "Dict", "V get(K k)", dv, IntV(7))
	wantLibThrow(t, err, "Exception", "key not found: 7")
	if got := mustLib(t, th, "Dict", "string toString()", dv).S(); got != `{-3: "minus"}` {
		t.Errorf("toString = %s", got)
	}
	kl := mustLib(t, th, "Dict", "List<K> keys()", dv).R.(*List)
	if kl.Type != ListOf(Int) || kl.Data[0].I() != -3 {
		t.Errorf("keys = %v %v", kl.Type, kl.Data)
	}
}

func TestArrayMethods(t *testing.T) {
	th, _, _ := libThread("")
	a := &Array{Type: ArrayOf(String), Data: []Value{StrV("hi"), StrV("zz")}}
	if got := mustLib(t, th, "array", "int length()", RefV(a)).I(); got != 2 {
		t.Errorf("length = %d", got)
	}
	if got := mustLib(t, th, "array", "string toString()", RefV(a)).S(); got != `["hi", "zz"]` {
		t.Errorf("toString = %s", got)
	}
	empty := &Array{Type: ArrayOf(Int)}
	if got := mustLib(t, th, "array", "string toString()", RefV(empty)).S(); got != "[]" {
		t.Errorf("empty toString = %s", got)
	}
	if got := mustLib(t, th, "array", "int length()", RefV(empty)).I(); got != 0 {
		t.Errorf("empty length = %d", got)
	}
}
