//go:build !unix

package testmode

import "time"

// CPUTime is not measured here: benchmarks report wall time only.
func CPUTime() time.Duration { return 0 }
