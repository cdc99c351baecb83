package vm

import (
	"testing"
)

// heapOf builds a List of n objects of a three-field class (an int, a
// string and a reference to the previous object), plus a Dict from
// string keys to them, and a thread whose registers hold both.
func heapOf(m *Machine, n int) *Thread {
	c := &Class{Name: "Node", Fields: []*Field{{Name: "v", Type: Int}, {Name: "s", Type: String}, {Name: "prev"}}}
	l := &List{Type: ListOf(ObjectT)}
	d := NewDict(DictOf(String, ObjectT))
	var prev *Object
	for i := range n {
		o := &Object{Class: c, Fields: []Value{IntV(int64(i)), StrV("node"), RefV(prev)}}
		l.Data = append(l.Data, RefV(o))
		if i%10 == 0 {
			d.Set(StrV(string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676%26))), RefV(o))
		}
		prev = o
	}
	t := &Thread{M: m}
	t.stack = t.stack0[:3]
	t.stack[1], t.stack[2] = RefV(l), RefV(d)
	return t
}

// TestCopyKeepsSharing: the copy of a graph has the same shape — one
// copy per object, shared references shared, cycles closed — and shares
// nothing with the original; a Frozen copy (a checkpoint's, made of
// large blocks) too, and a copy of it again.
func TestCopyKeepsSharing(t *testing.T) {
	t.Run("copy", func(t *testing.T) { testCopyKeepsSharing(t, false, false, false) })
	t.Run("frozen", func(t *testing.T) { testCopyKeepsSharing(t, true, false, false) })
	t.Run("copy of frozen", func(t *testing.T) { testCopyKeepsSharing(t, true, true, false) })
	t.Run("copy of frozen by its blocks", func(t *testing.T) { testCopyKeepsSharing(t, true, true, true) })
}

func testCopyKeepsSharing(t *testing.T, frozen, again, blocks bool) {
	m := NewMachine(NewProgram(), nil, nil, nil)
	th := heapOf(m, 100)
	l := th.stack[1].R.(*List)
	last := l.Data[99].R.(*Object)
	l.Data = append(l.Data, RefV(last)) // the same object twice
	first := l.Data[0].R.(*Object)
	first.Fields[2] = RefV(last) // a cycle
	id := first.ID()
	m2 := NewMachine(NewProgram(), nil, nil, nil)
	c := NewCopier(m2, 0)
	c.Frozen = frozen
	cp := c.Thread(th)
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
	var outside *Object // an object of the frozen copy not carved from its blocks
	if again {
		ix := c.Slabs()
		if blocks {
			if ix == nil || ix.Objects < 100 {
				t.Fatalf("the frozen copy's blocks: %+v", ix)
			}
			// the copy's list also refers, twice, to an object made
			// outside its blocks (found by address instead)
			outside = &Object{Class: first.Class, Fields: []Value{IntV(7), StrV("out"), {}}}
			fl := cp.stack[1].R.(*List)
			fl.Data = append(fl.Data, RefV(outside), RefV(outside))
			outside.Fields[2] = fl.Data[0] // (back into the blocks)
		}
		c = NewCopier(m2, 0)
		if blocks {
			c.FromSlabs(ix)
		}
		cp = c.Thread(cp)
		if c.Err() != nil {
			t.Fatal(c.Err())
		}
	}
	if &cp.stack[0] != &cp.stack0[0] || cp.M != m2 {
		t.Fatal("the copy's registers are not its own")
	}
	l2 := cp.stack[1].R.(*List)
	if outside != nil {
		if len(l2.Data) != 103 {
			t.Fatalf("list copy of %d elements", len(l2.Data))
		}
		o2 := l2.Data[101].R.(*Object)
		if o2 == outside || l2.Data[102].R != o2 || o2.Fields[0].I() != 7 || o2.Fields[2].R != l2.Data[0].R {
			t.Fatal("the object from outside the blocks is not copied once, with its references")
		}
		l2.Data = l2.Data[:101]
	}
	if l2 == l || len(l2.Data) != 101 {
		t.Fatalf("list copy %p of %p, %d elements", l2, l, len(l2.Data))
	}
	if l2.Data[99].R != l2.Data[100].R {
		t.Fatal("one object became two")
	}
	f2 := l2.Data[0].R.(*Object)
	if f2 == first || f2.Fields[2].R != l2.Data[100].R {
		t.Fatal("the cycle is not closed in the copy")
	}
	if f2.ID() != id {
		t.Fatal("the copy has another identity number")
	}
	for i := 1; i < 100; i++ {
		if l2.Data[i].R.(*Object).Fields[2].R != l2.Data[i-1].R {
			t.Fatalf("prev of %d", i)
		}
	}
	f2.Fields[0] = IntV(-1)
	if first.Fields[0].I() == -1 {
		t.Fatal("the copy shares fields with the original")
	}
	d2 := cp.stack[2].R.(*Dict)
	if v, ok := d2.Get(StrV("aaa")); !ok || v.R != l2.Data[0].R {
		t.Fatalf("dict copy lookup: %v %v", v, ok)
	}
}

// BenchmarkCopyHeap copies a thread whose registers reach 100,000
// objects (a List of them, a Dict of a tenth of them) as a checkpoint
// does (Frozen: the copy is never run, only copied again): the cost of a
// checkpoint per object of the program's heap.
//
//	go test ./vm -run '^$' -bench CopyHeap
func BenchmarkCopyHeap(b *testing.B) { benchCopyHeap(b, true) }

// BenchmarkCopyHeapRestore is BenchmarkCopyHeap for a copy that runs,
// of a live heap (a copy of a paused run, a reload's).
func BenchmarkCopyHeapRestore(b *testing.B) { benchCopyHeap(b, false) }

// BenchmarkRestoreCheckpoint copies a checkpoint's Frozen copy of the
// heap of BenchmarkCopyHeap into a copy that runs, as going back does:
// the copies found by the objects' positions in the checkpoint's blocks
// (Copier.FromSlabs) and, beside it, by their addresses (a hash table).
//
//	go test ./vm -run '^$' -bench RestoreCheckpoint
func BenchmarkRestoreCheckpoint(b *testing.B) {
	const n = 100_000
	m := NewMachine(NewProgram(), nil, nil, nil)
	c := NewCopier(NewMachine(m.Prog, nil, nil, nil), n)
	c.Frozen = true
	frozen := c.Thread(heapOf(m, n))
	ix := c.Slabs()
	for _, blocks := range []bool{true, false} {
		name := "by-address"
		if blocks {
			name = "by-blocks"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				hint := n
				if blocks {
					hint = 0
				}
				c := NewCopier(NewMachine(m.Prog, nil, nil, nil), hint)
				if blocks {
					c.FromSlabs(ix)
				}
				c.Thread(frozen)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/object")
		})
	}
}

func benchCopyHeap(b *testing.B, frozen bool) {
	const n = 100_000
	m := NewMachine(NewProgram(), nil, nil, nil)
	th := heapOf(m, n)
	var bytes int64
	for b.Loop() {
		c := NewCopier(NewMachine(m.Prog, nil, nil, nil), n)
		c.Frozen = frozen
		c.Thread(th)
		bytes = c.Bytes
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/object")
	b.ReportMetric(float64(bytes)/n, "B/object")
}
