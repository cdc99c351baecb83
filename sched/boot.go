package sched

import (
	"errors"
	"fmt"
	"io"

	"github.com/nlangdbg/nlangdbg/vm"
)

// This file is the one way to build a run: a machine and its scheduler,
// with every option applied in one place and one order. Every front end
// (run, its --record, --race and --dump-on-crash forms, debug, replay,
// trace, explore, run --listen, the DAP launch request) and every
// re-execution of the debugger's time travel calls Boot, so that a limit
// or a permission cannot be applied by one and forgotten by another.

// Bounds of the run limits: every front end accepts the same values and
// refuses the others with the same words (Limits.Check).
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

// Limits bound one run of a program. A field left 0 takes its default
// (DefaultLimits).
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

// WithDefaults returns l with the fields left 0 set to their defaults.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.Quota != 0 {
		d.Quota = l.Quota
	}
	if l.Carriers != 0 {
		d.Carriers = l.Carriers
	}
	if l.MaxFrames != 0 {
		d.MaxFrames = l.MaxFrames
	}
	if l.MaxHeap != 0 {
		d.MaxHeap = l.MaxHeap
	}
	return d
}

// Check returns an error naming the first limit out of its bounds (0
// included: a front end checks the values the user gave, and Boot checks
// them with the defaults filled in). Its message is the same for every
// front end, which prefixes its own context ("nlangdbg run: ", "launch:
// ").
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

// Permissions restrict a program's file access (the io and fs natives and
// FileStream): with none set, none is restricted. See vm.NewFSPolicy.
type Permissions struct {
	AllowRead, AllowWrite []string // directories the program may read, write
	DenyFS                bool     // no file access at all
	Cwd                   string   // the directory relative paths are taken from ("": the process's)
}

// Restricted reports whether p restricts anything.
func (p Permissions) Restricted() bool {
	return p.DenyFS || len(p.AllowRead) > 0 || len(p.AllowWrite) > 0
}

// Policy resolves p (the directories must exist).
func (p Permissions) Policy() (*vm.FSPolicy, error) {
	return vm.NewFSPolicy(p.AllowRead, p.AllowWrite, p.DenyFS, p.Cwd)
}

// A Tap is what a recording or a replay puts around a run (package
// sched/record implements it: Recorder, Replayer, Journal): it sees the
// program's output, gives the clock, and is started on the machine and
// scheduler once they are built.
type Tap interface {
	Stdout(w io.Writer) io.Writer
	Stderr(w io.Writer) io.Writer
	Clock() Clock
	Start(m *vm.Machine, s *Scheduler) error
}

// RunConfig is everything a run is built from (Boot). Its zero value, but
// for the program, is a plain run: default limits, no file restriction,
// no input, output discarded, the wall clock, FIFO order.
type RunConfig struct {
	Limits
	Seed int64 // scheduler seed (Options.Seed)
	// FS restricts file access. Policy, if set, is FS already resolved
	// (a re-execution reuses its session's): Boot then ignores FS.
	FS     Permissions
	Policy *vm.FSPolicy

	Stdin          io.Reader // nil: no input
	Stdout, Stderr io.Writer // nil: discarded

	// Clock is the time source (nil: the wall clock); a Tap's clock
	// replaces it.
	Clock Clock
	// Tap records or replays the run (one carrier).
	Tap Tap
	// Race, if set, hears the run's happens-before edges (one carrier);
	// the program must have been instrumented for it.
	Race RaceHook
	// Hook is the machine's debug hook (a race detector, the debugger's).
	Hook vm.DebugHook
	// Strategy chooses the thread of each dispatch (one carrier).
	Strategy Strategy
	// Checkpointer is called at the end of every full quantum (one
	// carrier), where it may take a snapshot.
	Checkpointer Checkpointer
	// OnEvent receives the scheduler's events (Scheduler.OnEvent).
	OnEvent func(Event)
	// DebugLog receives the Go stacks of internal errors (vm.Machine).
	DebugLog io.Writer
	// HostHeap is the bytes of the process's heap that are the host's
	// (the debugger's checkpoints), not the program's: the heap limit
	// does not count them (vm.Machine.ExcludeHeap).
	HostHeap int64

	// From, if set, is a snapshot the run goes on from instead of
	// starting main: the machine is a copy of its execution.
	From *Snapshot
	// NoSpare restores From anew even if a copy of it was restored ahead
	// (Snapshot.Prepare), which is left to the next run.
	NoSpare bool
	// Paused leaves the scheduler paused before its first dispatch
	// (Resume starts it).
	Paused bool
	// Sites records where each thread is spawned and by whom, and where
	// each channel, lock and semaphore is made (Scheduler.SetSites): for
	// a debugger's views and leak reports. A run built From a snapshot
	// records them if either says so.
	Sites bool
}

// ErrOneCarrier is returned by Boot for an option that needs one carrier
// (a recording, a race detector, a strategy, checkpoints) with several.
var ErrOneCarrier = errors.New("needs one carrier")

// Run is a machine and its scheduler, as Boot built them.
type Run struct {
	M     *vm.Machine
	Sched *Scheduler
	// Main is the program's first thread (of a run built From a
	// snapshot: its copy, nil if main had ended there).
	Main *vm.Thread
	// Spare says that the run is the snapshot's copy restored ahead
	// (Snapshot.Prepare).
	Spare bool
}

// Boot builds a run of prog as cfg says, in this order: the limits are
// checked and the file permissions resolved (an error names the first
// problem); the machine is made with its limits, permissions, debug hook
// and the Tap's writers; the scheduler (or the snapshot's copy) with its
// quota, seed, carriers and clock; then the race hook, the Tap, the
// strategy, the checkpointer and OnEvent are installed, and main is
// started (paused if cfg.Paused). Call Run or Dispatch on the scheduler
// to run it.
func Boot(prog *vm.Program, cfg RunConfig) (*Run, error) {
	lim := cfg.Limits.WithDefaults()
	if err := lim.Check(); err != nil {
		return nil, err
	}
	if lim.Carriers > 1 && (cfg.Tap != nil || cfg.Race != nil || cfg.Strategy != nil || cfg.Checkpointer != nil) {
		return nil, fmt.Errorf("%w: a recording, a replay, the race detector, a schedule strategy and checkpoints run on one carrier, not %d", ErrOneCarrier, lim.Carriers)
	}
	policy := cfg.Policy
	if policy == nil && cfg.FS.Restricted() {
		var err error
		if policy, err = cfg.FS.Policy(); err != nil {
			return nil, err
		}
	}
	stdout, stderr := cfg.Stdout, cfg.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	clock := cfg.Clock
	if cfg.Tap != nil {
		stdout, stderr, clock = cfg.Tap.Stdout(stdout), cfg.Tap.Stderr(stderr), cfg.Tap.Clock()
	}
	var m *vm.Machine
	var s *Scheduler
	if cfg.From != nil && !cfg.NoSpare {
		// a copy restored ahead (Snapshot.Prepare), on its own machine:
		// it gets the writers, input and clock a new one would have
		if s = cfg.From.takeSpare(); s != nil && s.m.Prog == prog && len(s.carriers) == 1 {
			m = s.m
			m.Stdout, m.Stderr = stdout, stderr
			m.SetInputSource(cfg.Stdin)
			s.setClock(clock)
		} else {
			s = nil
		}
	}
	if m == nil {
		m = vm.NewMachine(prog, cfg.Stdin, stdout, stderr)
	}
	m.MaxFrames = lim.MaxFrames
	m.MaxHeap = lim.MaxHeap
	m.FS = policy
	m.DebugLog = cfg.DebugLog
	m.ExcludeHeap(cfg.HostHeap)
	m.Hook = cfg.Hook // before the scheduler: several carriers serialise it
	r := &Run{M: m}
	switch {
	case s != nil:
		r.Main, r.Spare = s.Main(), true
	case cfg.From != nil:
		var err error
		if s, err = cfg.From.Restore(m, clock); err != nil {
			return nil, err
		}
		r.Main = s.Main()
	default:
		s = New(m, Options{Quota: lim.Quota, Seed: cfg.Seed, Carriers: lim.Carriers, Clock: clock})
	}
	r.Sched = s
	if cfg.Sites {
		s.sites = true // (nothing runs yet)
	}
	if cfg.Race != nil {
		if err := s.SetRaceHook(cfg.Race); err != nil {
			return nil, err
		}
	}
	if cfg.Tap != nil {
		// after the race hook: the access points see the detector first
		if err := cfg.Tap.Start(m, s); err != nil {
			return nil, err
		}
	}
	if cfg.Strategy != nil {
		if err := s.SetStrategy(cfg.Strategy); err != nil {
			return nil, err
		}
	}
	if cfg.Checkpointer != nil {
		s.SetCheckpointer(cfg.Checkpointer)
	}
	s.OnEvent = cfg.OnEvent
	if cfg.Paused {
		s.Pause()
	}
	if cfg.From == nil {
		r.Main = m.NewCallThread(prog.Main, nil)
		s.Start(r.Main)
	}
	return r, nil
}
