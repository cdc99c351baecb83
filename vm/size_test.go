package vm

import (
	"testing"
	"unsafe"
)

// TestThreadSize guards the size of a parked thread: a Thread with its
// first frames and registers inline is one 448-byte allocation (Go's
// size class); a field that pushes it past that costs 32 bytes per
// thread, a million threads 32 MB (put what few threads need in
// threadCold).
func TestThreadSize(t *testing.T) {
	if n := unsafe.Sizeof(Thread{}); n > 448 {
		t.Errorf("Thread is %d bytes, want at most 448 (put small fields together at the end)", n)
	}
}
