package vm

import "unsafe"

// concatMin is the length from which concatenations go through the
// thread's builder.
const concatMin = 64

// concat returns a + b. A program that grows a string in a loop
// (s = s + piece) would copy the whole string at each step; instead each
// thread keeps the buffer behind the last long string it built, with room
// to grow, and appends in place when a is exactly that string. Bytes of a
// string never change: an append only writes past the end of every string
// that shares the buffer, and only when a is the longest of them.
func (t *Thread) concat(a, b string) string {
	if b == "" {
		return a
	}
	if a == "" {
		return b
	}
	if len(a) < concatMin {
		return a + b
	}
	tc := t.cx() // (the buffer is kept out of the Thread: it stays small)
	cb := tc.concatBuf
	if len(cb) == len(a) && unsafe.SliceData(cb) == unsafe.StringData(a) && cap(cb)-len(cb) >= len(b) {
		cb = append(cb, b...) // in place: no reallocation
		tc.concatBuf = cb
		return unsafe.String(unsafe.SliceData(cb), len(cb))
	}
	n := len(a) + len(b)
	cb = make([]byte, n, 2*n)
	copy(cb, a)
	copy(cb[len(a):], b)
	tc.concatBuf = cb
	return unsafe.String(unsafe.SliceData(cb), n)
}

// concatCost returns the bytes concat(a, b) allocates.
func (t *Thread) concatCost(a, b string) int64 {
	switch {
	case b == "" || a == "":
		return 0
	case len(a) < concatMin:
		return int64(len(a) + len(b))
	}
	var cb []byte
	if t.cold != nil {
		cb = t.cold.concatBuf
	}
	if len(cb) == len(a) && unsafe.SliceData(cb) == unsafe.StringData(a) && cap(cb)-len(cb) >= len(b) {
		return 0
	}
	return 2 * int64(len(a)+len(b))
}
