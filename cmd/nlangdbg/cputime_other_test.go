//go:build !unix

package main

import "time"

// cpuTime is not measured here: BenchmarkRecordOverhead reports wall
// time only.
func cpuTime() time.Duration { return 0 }
