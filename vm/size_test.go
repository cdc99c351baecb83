package vm

import (
	"testing"
	"unsafe"
)

// TestThreadSize guards the size of a parked thread: a Thread with its
// first frames and registers inline is one 512-byte allocation (Go's
// size class); a field that pushes it past that costs 64 bytes per
// thread, a million threads 64 MB.
func TestThreadSize(t *testing.T) {
	if n := unsafe.Sizeof(Thread{}); n > 512 {
		t.Errorf("Thread is %d bytes, want at most 512 (put small fields together at the end)", n)
	}
}
