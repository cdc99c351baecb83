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

// TestThreadName: a numbered thread nobody named is "thread-ID", made
// when asked for; a name given (even "") is kept; an unnumbered thread
// has no default.
func TestThreadName(t *testing.T) {
	th := &Thread{ID: 42}
	if got := th.Name(); got != "thread-42" || th.Named() {
		t.Errorf("default name %q (named %v), want thread-42", got, th.Named())
	}
	th.SetName("worker")
	if got := th.Name(); got != "worker" {
		t.Errorf("name %q, want worker", got)
	}
	th.SetName("")
	if got := th.Name(); got != "" || !th.Named() {
		t.Errorf("name %q after SetName(\"\"), want \"\"", got)
	}
	if got := (&Thread{}).Name(); got != "" {
		t.Errorf("unnumbered thread named %q", got)
	}
	if got := DefaultThreadName(1234567890123); got != "thread-1234567890123" {
		t.Errorf("DefaultThreadName: %q", got)
	}
}
