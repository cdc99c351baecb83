package vm

// listMethods returns the methods of List<T>. The receiver is args[0] (a
// *List; T is its Type.Elem). Elements are stored as given: struct copies
// are the compiler's business (it emits COPY), as for l[i] and l[i] = v.
func listMethods() []*Native {
	m := func(name, sig string, fn func(t *Thread, l *List, a []Value) (Value, error)) *Native {
		n := libFn("List."+name, sig, func(t *Thread, a []Value) (Value, error) {
			l, ok := a[0].R.(*List)
			if !ok || l == nil {
				return Value{}, Throwf("NullPointerException", "List.%s called on null", name)
			}
			return fn(t, l, a)
		})
		n.Recv, n.Flags = RecvReads, ReadOnly
		return n
	}
	length := func(t *Thread, l *List, a []Value) (Value, error) { return IntV(int64(len(l.Data))), nil }
	return []*Native{
		writes(m("add", "void add(T x)", func(t *Thread, l *List, a []Value) (Value, error) {
			if t.M != nil && t.M.MaxHeap > 0 && int64(len(l.Data)+1)*24 > t.M.MaxHeap {
				return Value{}, Throwf("OutOfMemoryException", "a List of %d elements exceeds the heap limit", len(l.Data)+1)
			}
			if len(l.Data) == cap(l.Data) {
				if exc := t.chargeGrowth(0, grownCap(cap(l.Data)), "List.add"); exc != nil {
					return Value{}, &Throw{Obj: exc}
				}
			}
			l.Data = append(l.Data, a[1])
			return Value{}, nil
		})),
		m("get", "T get(int i)", func(t *Thread, l *List, a []Value) (Value, error) {
			i, err := libListIndex("get", l, a[1])
			if err != nil {
				return Value{}, err
			}
			return l.Data[i], nil
		}),
		writes(m("set", "void set(int i, T x)", func(t *Thread, l *List, a []Value) (Value, error) {
			i, err := libListIndex("set", l, a[1])
			if err != nil {
				return Value{}, err
			}
			l.Data[i] = a[2]
			return Value{}, nil
		})),
		m("length", "int length()", length),
		m("count", "int count()", length),
		writes(m("removeAt", "void removeAt(int i)", func(t *Thread, l *List, a []Value) (Value, error) {
			i, err := libListIndex("removeAt", l, a[1])
			if err != nil {
				return Value{}, err
			}
			copy(l.Data[i:], l.Data[i+1:])
			l.Data[len(l.Data)-1] = Value{} // drop the reference for the GC
			l.Data = l.Data[:len(l.Data)-1]
			return Value{}, nil
		})),
		m("indexOf", "int indexOf(T x)", func(t *Thread, l *List, a []Value) (Value, error) {
			return IntV(int64(libListFind(l, a[1]))), nil
		}),
		m("contains", "bool contains(T x)", func(t *Thread, l *List, a []Value) (Value, error) {
			return BoolV(libListFind(l, a[1]) >= 0), nil
		}),
		writes(m("clear", "void clear()", func(t *Thread, l *List, a []Value) (Value, error) {
			clear(l.Data)
			l.Data = l.Data[:0]
			return Value{}, nil
		})),
		formats(m("toString", "string toString()", func(t *Thread, l *List, a []Value) (Value, error) {
			return libFormatRecv(t, a[0], l.Type)
		})),
	}
}

// libListIndex checks the int index v against l's length.
func libListIndex(method string, l *List, v Value) (int, error) {
	i := int64(v.N)
	if i < 0 || i >= int64(len(l.Data)) {
		return 0, Throwf("IndexOutOfBoundsException", "List.%s: index %d out of range [0, %d)", method, i, len(l.Data))
	}
	return int(i), nil
}

// libListFind returns the index of the first element of l equal to x (see
// valuesEqual), or -1.
func libListFind(l *List, x Value) int {
	var elem *Type
	if l.Type != nil {
		elem = l.Type.Elem
	}
	for i, e := range l.Data {
		if valuesEqual(e, x, elem) {
			return i
		}
	}
	return -1
}

// libFormatRecv renders a collection receiver with its type, as string
// conversion does.
func libFormatRecv(t *Thread, v Value, typ *Type) (Value, error) {
	if typ == nil {
		typ = ObjectT
	}
	label := "toString"
	switch v.R.(type) {
	case *List:
		label = "List.toString"
	case *Dict:
		label = "Dict.toString"
	case *Array:
		label = "array.toString"
	}
	return t.formatValue(v, typ, label)
}

// dictMethods returns the methods of Dict<K,V>. The receiver is args[0]
// (a *Dict). Keys compare by value for primitives and strings, by
// identity otherwise (see Dict).
func dictMethods() []*Native {
	m := func(name, sig string, fn func(t *Thread, d *Dict, a []Value) (Value, error)) *Native {
		n := libFn("Dict."+name, sig, func(t *Thread, a []Value) (Value, error) {
			d, ok := a[0].R.(*Dict)
			if !ok || d == nil {
				return Value{}, Throwf("NullPointerException", "Dict.%s called on null", name)
			}
			return fn(t, d, a)
		})
		n.Recv, n.Flags = RecvReads, ReadOnly
		return n
	}
	return []*Native{
		writes(m("set", "void set(K k, V v)", func(t *Thread, d *Dict, a []Value) (Value, error) {
			defer lockDict(t, d)()
			// A full Dict grows its key and value slices and its index at
			// once (the old ones stay until the next collection): charge
			// the new capacity when it comes, and a share per entry.
			n := int64(dictEntry)
			if len(d.Keys) == cap(d.Keys) {
				n += int64(grownCap(cap(d.Keys))) * dictEntry
			}
			if err := t.ChargeHeap(n, "Dict.set"); err != nil {
				return Value{}, err
			}
			d.Set(a[1], a[2])
			return Value{}, nil
		})),
		m("get", "V get(K k)", func(t *Thread, d *Dict, a []Value) (Value, error) {
			unlock := lockDict(t, d)
			v, ok := d.Get(a[1])
			unlock() // formatting the key below may run user code
			if ok {
				return v, nil
			}
			// The key's text may need its toString: the formatter
			// raises the exception once it has the text.
			f := &formatter{label: "Dict.get", notFound: true}
			if f.put(a[1], d.Type.Key, false, 0) {
				return Value{}, f.call(t)
			}
			_, err := f.walk(t)
			return Value{}, err
		}),
		m("containsKey", "bool containsKey(K k)", func(t *Thread, d *Dict, a []Value) (Value, error) {
			defer lockDict(t, d)()
			_, ok := d.Get(a[1])
			return BoolV(ok), nil
		}),
		writes(m("remove", "int remove(K k)", func(t *Thread, d *Dict, a []Value) (Value, error) {
			defer lockDict(t, d)()
			if d.Remove(a[1]) {
				return IntV(1), nil
			}
			return IntV(0), nil
		})),
		writes(m("clear", "void clear()", func(t *Thread, d *Dict, a []Value) (Value, error) {
			defer lockDict(t, d)()
			d.Clear()
			return Value{}, nil
		})),
		m("count", "int count()", func(t *Thread, d *Dict, a []Value) (Value, error) {
			defer lockDict(t, d)()
			return IntV(int64(d.Len())), nil
		}),
		m("keys", "List<K> keys()", func(t *Thread, d *Dict, a []Value) (Value, error) {
			defer lockDict(t, d)()
			if err := t.ChargeHeap(objectSize+int64(d.Len())*valueSize, "Dict.keys"); err != nil {
				return Value{}, err
			}
			l := &List{Type: ListOf(d.Type.Key), Data: make([]Value, len(d.Keys)), id: t.M.seqIDs.Add(1)}
			copy(l.Data, d.Keys)
			return RefV(l), nil
		}),
		formats(m("toString", "string toString()", func(t *Thread, d *Dict, a []Value) (Value, error) {
			return libFormatRecv(t, a[0], d.Type)
		})),
	}
}

// lockDict locks d if t's machine runs threads in parallel, and returns
// the unlock. Dict operations never call user code, so holding the lock
// cannot deadlock.
func lockDict(t *Thread, d *Dict) func() {
	if t.M == nil || !t.M.Parallel {
		return noUnlock
	}
	d.Mu.Lock()
	return d.Mu.Unlock
}

func noUnlock() {}

// arrayMethods returns the methods of arrays (T[]). The receiver is
// args[0] (an *Array).
func arrayMethods() []*Native {
	m := func(name, sig string, fn func(t *Thread, arr *Array, a []Value) (Value, error)) *Native {
		n := libFn("array."+name, sig, func(t *Thread, a []Value) (Value, error) {
			arr, ok := a[0].R.(*Array)
			if !ok || arr == nil {
				return Value{}, Throwf("NullPointerException", "array.%s called on null", name)
			}
			return fn(t, arr, a)
		})
		n.Flags = ReadOnly
		return n
	}
	return []*Native{
		m("length", "int length()", func(t *Thread, arr *Array, a []Value) (Value, error) {
			return IntV(int64(len(arr.Data))), nil
		}),
		formats(m("toString", "string toString()", func(t *Thread, arr *Array, a []Value) (Value, error) {
			return libFormatRecv(t, a[0], arr.Type)
		})),
	}
}

// grownCap estimates the capacity append gives a full slice of
// capacity c (Go doubles small slices and grows large ones by about a
// quarter).
func grownCap(c int) int {
	if c < 256 {
		return max(2*c, 4)
	}
	return c + (c+3*256)/4
}

// writes marks a collection method that changes its receiver.
func writes(n *Native) *Native {
	n.Recv, n.Flags = RecvWrites, n.Flags&^ReadOnly
	return n
}

// formats marks a method that formats its receiver's elements.
func formats(n *Native) *Native {
	n.Flags |= Formats
	return n
}
