package vm

import "unsafe"

// Allocating objects. An object of up to eight fields is one allocation:
// its Fields slice points into an array that follows the Object in the
// same block (the block lives as long as the Object does). That halves
// the allocations of NEW and of copying a heap, and the block is no
// larger than the two were (Go's size classes).

type (
	object1 struct {
		o Object
		f [1]Value
	}
	object2 struct {
		o Object
		f [2]Value
	}
	object3 struct {
		o Object
		f [3]Value
	}
	object4 struct {
		o Object
		f [4]Value
	}
	object5 struct {
		o Object
		f [5]Value
	}
	object6 struct {
		o Object
		f [6]Value
	}
	object7 struct {
		o Object
		f [7]Value
	}
	object8 struct {
		o Object
		f [8]Value
	}
)

// allocObject returns a new zeroed object with n fields (Class and id
// unset).
func allocObject(n int) *Object {
	switch n {
	case 0:
		return &Object{}
	case 1:
		x := new(object1)
		x.o.Fields = x.f[:]
		return &x.o
	case 2:
		x := new(object2)
		x.o.Fields = x.f[:]
		return &x.o
	case 3:
		x := new(object3)
		x.o.Fields = x.f[:]
		return &x.o
	case 4:
		x := new(object4)
		x.o.Fields = x.f[:]
		return &x.o
	case 5:
		x := new(object5)
		x.o.Fields = x.f[:]
		return &x.o
	case 6:
		x := new(object6)
		x.o.Fields = x.f[:]
		return &x.o
	case 7:
		x := new(object7)
		x.o.Fields = x.f[:]
		return &x.o
	case 8:
		x := new(object8)
		x.o.Fields = x.f[:]
		return &x.o
	}
	return &Object{Fields: make([]Value, n)}
}

// ptrMap maps the address of an original object to the address of its
// copy (Copier.memo's common case, without a Go map's generality): open
// addressing with linear probing over a power-of-two table of pairs.
type ptrMap struct {
	pairs []ptrPair
	n     int  // entries
	shift uint // 64 - log2(len(pairs))
}

type ptrPair struct{ k, v unsafe.Pointer }

func (m *ptrMap) init(hint int) {
	size := 16
	for size < 2*hint {
		size *= 2
	}
	m.pairs = make([]ptrPair, size)
	m.shift = uint(64 - bitsLen(size-1))
	m.n = 0
}

func bitsLen(x int) int {
	n := 0
	for ; x > 0; x >>= 1 {
		n++
	}
	return n
}

// slot returns the index of k's pair, or of the empty pair where it
// goes.
func (m *ptrMap) slot(k unsafe.Pointer) int {
	mask := len(m.pairs) - 1
	i := int((uint64(uintptr(k)) * 0x9E3779B97F4A7C15) >> m.shift)
	for {
		p := m.pairs[i].k
		if p == k || p == nil {
			return i
		}
		i = (i + 1) & mask
	}
}

// get returns the copy of k, or nil.
func (m *ptrMap) get(k unsafe.Pointer) unsafe.Pointer {
	if m.pairs == nil {
		return nil
	}
	return m.pairs[m.slot(k)].v
}

// put records that k's copy is v.
func (m *ptrMap) put(k, v unsafe.Pointer) {
	if m.pairs == nil || 2*(m.n+1) > len(m.pairs) {
		m.grow()
	}
	i := m.slot(k)
	if m.pairs[i].k == nil {
		m.n++
	}
	m.pairs[i] = ptrPair{k, v}
}

func (m *ptrMap) grow() {
	old := m.pairs
	m.init(max(m.n+1, len(old)))
	for _, p := range old {
		if p.k != nil {
			m.pairs[m.slot(p.k)] = p
			m.n++
		}
	}
}
