//go:build unix

package testmode

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user and system, all threads) the process
// has used: what a benchmark reports beside the wall time, which on a
// loaded machine is mostly waiting for a core.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
