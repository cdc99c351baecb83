package sched

import (
	"fmt"

	"github.com/nlangdbg/nlangdbg/vm"
)

// This file is the one table of the limits a run accepts: the command
// line's flags, the DAP launch arguments and a recording's header are
// checked against it (Limits.Check), so that they accept the same values
// and refuse the others with the same words.

// Bounds of the run limits.
const (
	// MaxCarriers is the most carriers a program may run on. More
	// carriers than cores only add stop-the-world work.
	MaxCarriers = 256
	// MaxQuota is the largest reduction budget per dispatch.
	MaxQuota = 1 << 30
	// MaxMaxFrames is the largest call depth limit.
	MaxMaxFrames = 100_000_000
	// MinMaxHeap is the smallest heap limit: the compiled program and the
	// runtime's own data need some room.
	MinMaxHeap = 1 << 20
	// MaxMaxHeap is the largest heap limit (1 TiB).
	MaxMaxHeap = 1 << 40
)

// Limits bound one run of a program. Every field must be set (a front
// end fills the defaults in for options the user did not give).
type Limits struct {
	Quota     int   // reductions per dispatch
	Carriers  int   // carriers running threads in parallel
	MaxFrames int   // call depth
	MaxHeap   int64 // bytes of heap the program may hold
}

// DefaultLimits are the limits of a run that sets none.
func DefaultLimits() Limits {
	return Limits{Quota: DefaultQuota, Carriers: 1, MaxFrames: vm.DefaultMaxFrames, MaxHeap: vm.DefaultMaxHeap}
}

// Check returns an error naming the first limit out of its bounds. Its
// message is the same for every front end, which prefixes its own context
// ("nlangdbg run: ", "launch: ", a recording's name).
func (l Limits) Check() error {
	switch {
	case l.Quota < 1 || l.Quota > MaxQuota:
		return fmt.Errorf("quota must be between 1 and %d, got %d", MaxQuota, l.Quota)
	case l.Carriers < 1 || l.Carriers > MaxCarriers:
		return fmt.Errorf("carriers must be between 1 and %d, got %d", MaxCarriers, l.Carriers)
	case l.MaxFrames < 1 || l.MaxFrames > MaxMaxFrames:
		return fmt.Errorf("max-frames must be between 1 and %d, got %d", MaxMaxFrames, l.MaxFrames)
	case l.MaxHeap < MinMaxHeap || l.MaxHeap > MaxMaxHeap:
		return fmt.Errorf("max-heap must be between %s and %s, got %d", vm.FormatBytes(MinMaxHeap), vm.FormatBytes(MaxMaxHeap), l.MaxHeap)
	}
	return nil
}
