package vm

// This file bounds the heap a program holds (Machine.MaxHeap).
//
// Every allocation site charges the bytes it allocates to the machine.
// Charges only set the pace of measurement: once heapCheckEvery bytes are
// charged (or at once, for a large allocation), the machine measures the
// Go heap. Below the limit nothing happens; at or above it,
// a garbage collection finds what is really live, and if that plus the
// allocation to come still crosses the limit, the allocation throws
// OutOfMemoryException instead of happening. So garbage never counts, an
// allocation the sites do not charge (a frame, a native's scratch) is
// still caught at the next measurement, and the heap never grows more
// than about heapCheckEvery past the limit.
//
// The measure is the process's heap: the program's objects plus the
// runtime's and the compiled program's (a few MiB).

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// heapCheckEvery is how many bytes a thread charges between two
// measurements of the heap.
const heapCheckEvery = 256 << 10

// Sizes charged for allocations of the VM's own structures.
const (
	valueSize  = 24 // a Value (N and R)
	objectSize = 64 // an Object header and its slice
	dictEntry  = 3*valueSize + 48
	frameSize  = 24 // a Frame
)

// ThreadCharge is what a new virtual thread with its first frames is
// charged.
const ThreadCharge = 1024

// heapMeter measures the heap for one machine.
type heapMeter struct {
	charged atomic.Int64 // bytes charged since the heap was last measured
	budgets sync.Map     // *Thread → *heapBudget
	mu      sync.Mutex   // guards sample
	sample  []metrics.Sample
	// excluded is heap the machine's host holds for itself (the
	// debugger's copies of the execution), not counted against MaxHeap.
	excluded atomic.Int64
}

// ExcludeHeap tells the machine that n bytes of the process's heap are
// its host's (the debugger's checkpoints), not the program's: the heap
// limit does not count them.
func (m *Machine) ExcludeHeap(n int64) { m.heap.excluded.Store(n) }

var heapSample = "/memory/classes/heap/objects:bytes"

// inUse returns the bytes of heap objects, live or not yet swept.
func (h *heapMeter) inUse() int64 {
	if h.sample == nil {
		h.sample = []metrics.Sample{{Name: heapSample}}
	}
	metrics.Read(h.sample)
	if h.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(h.sample[0].Value.Uint64()) - h.excluded.Load()
}

// heapExceeded reports whether n more bytes would cross the limit:
// measured, and if needed after a collection.
func (m *Machine) heapExceeded(n int64) bool {
	m.heap.mu.Lock()
	defer m.heap.mu.Unlock()
	if m.heap.inUse()+n <= m.MaxHeap {
		return false
	}
	runtime.GC()
	return m.heap.inUse()+n > m.MaxHeap
}

// heapBudget bounds what one thread may allocate in all (an
// evaluation's budget).
type heapBudget struct {
	limit, total int64
}

// SetHeapBudget bounds the bytes the thread may allocate from now on, in
// all: past n, allocations throw OutOfMemoryException (the debugger's
// evaluations, whose step limit does not bound memory). 0 removes it.
// Only a NoDebug thread (the debugger's own) may have a budget.
func (t *Thread) SetHeapBudget(n int64) {
	if n <= 0 {
		t.M.heap.budgets.Delete(t)
		return
	}
	t.M.heap.budgets.Store(t, &heapBudget{limit: n})
}

// chargeHeap accounts n bytes the thread is about to allocate. It returns
// an OutOfMemoryException to throw instead when the allocation would
// cross the machine's heap limit or the thread's budget. The fast path
// (one atomic add) inlines into the interpreter.
func (t *Thread) chargeHeap(n int64, what string) *Object {
	m := t.M
	if m == nil {
		return nil
	}
	if m.heap.charged.Add(n) < heapCheckEvery && !t.NoDebug {
		return nil
	}
	return t.chargeHeapSlow(n, what)
}

func (t *Thread) chargeHeapSlow(n int64, what string) *Object {
	m := t.M
	if t.NoDebug {
		if v, ok := m.heap.budgets.Load(t); ok {
			b := v.(*heapBudget)
			b.total += n
			if b.total > b.limit {
				return m.NewException("OutOfMemoryException", fmt.Sprintf("%s: the evaluation allocated more than its budget of %s", what, FormatBytes(b.limit)))
			}
		}
		if m.heap.charged.Load() < heapCheckEvery {
			return nil
		}
	}
	m.heap.charged.Store(0)
	if m.MaxHeap <= 0 {
		return nil
	}
	if n > m.MaxHeap || m.heapExceeded(n) {
		return m.NewException("OutOfMemoryException", fmt.Sprintf("%s: the heap limit of %s is reached", what, FormatBytes(m.MaxHeap)))
	}
	return nil
}

// ChargeHeap is chargeHeap for natives: the error is the exception to
// return.
func (t *Thread) ChargeHeap(n int64, what string) error {
	if exc := t.chargeHeap(n, what); exc != nil {
		return &Throw{Obj: exc}
	}
	return nil
}

// chargeGrowth charges the growth of a slice from capacity before to
// capacity after (elements of valueSize bytes).
func (t *Thread) chargeGrowth(before, after int, what string) *Object {
	if after <= before {
		return nil
	}
	return t.chargeHeap(int64(after-before)*valueSize, what)
}

// FormatBytes renders a byte count with the largest unit it is a whole
// number of: binary (MiB) first, then decimal (MB), else bytes ("100MB",
// "4GiB", "1500 bytes").
func FormatBytes(n int64) string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KiB", 1 << 10}, {"KB", 1e3}} {
		if n >= u.mult && n%u.mult == 0 {
			return fmt.Sprintf("%d%s", n/u.mult, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
