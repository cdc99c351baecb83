package main

import "testing"

// BenchmarkAlloc3M allocates 3M objects and 3M two-element Lists that
// die at once: what heap accounting (vm/heap.go) costs an allocating
// program under the default limit.
//
//	go test ./cmd/nlangdbg -run '^$' -bench Alloc3M -count 5
func BenchmarkAlloc3M(b *testing.B) {
	prog := benchProgram(b, "../../testdata/bench/alloc.n")
	for b.Loop() {
		runBench(b, prog)
	}
}
