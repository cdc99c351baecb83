package inspect

// This file holds the checks every front end (run, debug, run --listen,
// the DAP launch request) applies to a program and its limits, so that
// they accept the same values and refuse the others with the same words.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// Bounds of the run limits (sched.Limits).
const (
	MaxCarriers  = sched.MaxCarriers
	MaxQuota     = sched.MaxQuota
	MaxMaxFrames = sched.MaxMaxFrames
	MinMaxHeap   = sched.MinMaxHeap
	MaxMaxHeap   = sched.MaxMaxHeap
	// MaxSourceSize is the largest source file a program may have.
	MaxSourceSize = vm.MaxSourceSize
)

// Limits bound one run of a program (sched.Limits).
type Limits = sched.Limits

// DefaultLimits are the limits of a run that sets none.
func DefaultLimits() Limits { return sched.DefaultLimits() }

// limits returns the configuration's limits, with defaults for the
// fields left 0.
func (cfg *Config) limits() Limits {
	return Limits{Quota: cfg.Quota, Carriers: cfg.Carriers, MaxFrames: cfg.MaxFrames, MaxHeap: cfg.MaxHeap}.WithDefaults()
}

// ParseSize parses a byte count: digits with an optional unit, KB MB GB
// TB (powers of 1000) or KiB MiB GiB TiB (powers of 1024); "B" alone and
// lower case are accepted too ("100MB", "64mib", "4096").
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	units := []struct {
		suffix string
		mult   int64
	}{
		{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40},
		{"b", 1},
	}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size (a whole number of bytes, optionally with a unit: KB, MB, GB, KiB, MiB, GiB)", s)
	}
	if n > 0 && n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * mult, nil
}

// FormatSize renders a byte count with a unit when it is a whole number
// of one ("1MiB", "100MB", "1500 bytes"), as the heap messages do.
func FormatSize(n int64) string { return vm.FormatBytes(n) }

// ErrNotRegular is wrapped by ReadSource for a path that is not a
// regular file (a directory, device, FIFO or socket).
var ErrNotRegular = vm.ErrNotRegular

// ErrTooLarge is wrapped by ReadSource for a file over MaxSourceSize.
var ErrTooLarge = vm.ErrFileTooLarge

// ReadSource reads a program's source file. It refuses, with an
// *os.PathError, anything but a regular file of at most MaxSourceSize
// bytes (vm.ReadRegularFile): a device (/dev/zero), a FIFO (which would
// block the reader) or a directory gets a clear error at once, and a file
// that grows while it is read is cut off.
func ReadSource(path string) ([]byte, error) {
	return vm.ReadRegularFile(path, MaxSourceSize, "a program must be a .n source file")
}

// CheckPermissions validates file permissions as Launch applies them
// (see vm.NewFSPolicy): the directories must exist, and denyFS excludes
// the others.
func CheckPermissions(allowRead, allowWrite []string, denyFS bool, cwd string) error {
	_, err := vm.NewFSPolicy(allowRead, allowWrite, denyFS, cwd)
	return err
}
