package explore

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/race"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
)

// clockStep is the virtual time that passes at every dispatch of an
// explored run, so that a thread spinning on a condition a sleeper will
// set sees the sleeper wake.
const clockStep = 100 * time.Microsecond

// A failure is what went wrong in one run.
type failure struct {
	kind, place string
	message     string // the report: the deadlock, the exception, the difference
}

func (f *failure) key() string { return f.kind + "\x00" + f.place }

// A runner runs the program under one schedule after another.
type runner struct {
	cfg      *Config
	ctl      controller
	out, err bytes.Buffer
	thrown   *vm.Thread // the first thread that ended with an uncaught exception
	s        *sched.Scheduler
	race     *race.Detector // with Config.Race
}

func newRunner(cfg *Config) *runner {
	r := &runner{cfg: cfg, ctl: controller{quota: cfg.Quota, bound: cfg.StepBound, fair: cfg.fair}}
	if cfg.StateCache && cfg.Strategy == DFS && cacheable(cfg) {
		r.ctl.hashing, r.ctl.seed = true, maphash.MakeSeed()
		r.ctl.extra = r.stateHash
	}
	return r
}

// stateHash writes the runner's part of the state: the first thread that
// ended with an exception nobody sees (the failure it makes) and, with
// an expected output, the output so far.
func (r *runner) stateHash(h *maphash.Hash) {
	var id [8]byte
	if r.thrown != nil {
		putU64(id[:], uint64(r.thrown.ID))
	}
	h.Write(id[:])
	if r.cfg.Expect != nil {
		h.Write(r.out.Bytes())
	}
}

// cacheable reports whether the state of a run of cfg's program is what
// sched.StateHasher sees: no race detector (whose clocks are state too),
// and no native whose result depends on what is outside the program
// (files, the random generator).
func cacheable(cfg *Config) bool {
	if cfg.Race {
		return false
	}
	for _, fn := range cfg.Prog.Funcs {
		for _, nc := range fn.NCalls {
			if nc.Native.Is(vm.OutsideState) {
				return false
			}
		}
	}
	return true
}

// run runs the program once with ch choosing and returns what failed, or
// nil. If w is not nil the run is recorded to it.
func (r *runner) run(ch chooser, w io.Writer) (*failure, error) {
	r.ctl.reset(ch)
	r.out.Reset()
	r.err.Reset()
	r.thrown = nil
	prog := r.cfg.Prog
	clock := &sched.VirtualClock{Step: clockStep}
	var rec *record.Recorder
	if w != nil {
		rec = record.NewRecorder(record.Header{Path: r.cfg.Path, Source: r.cfg.Source, Hash: r.cfg.programHash(),
			Quota: r.cfg.Quota, MaxFrames: r.cfg.MaxFrames, MaxHeap: r.cfg.MaxHeap, Args: r.cfg.Args, Scheduled: true,
			Shared: r.cfg.Granularity == "shared", Race: r.cfg.Race})
		rec.SetClock(clock) // (the recorder's clock logs the virtual one's readings)
	}
	cfg := sched.RunConfig{Limits: sched.Limits{Quota: r.cfg.Quota, MaxFrames: r.cfg.MaxFrames, MaxHeap: r.cfg.MaxHeap},
		Policy: r.cfg.FS, Stdin: strings.NewReader(""), Stdout: &r.out, Stderr: &r.err, Clock: clock,
		Strategy: &r.ctl, OnEvent: r.onEvent, Sites: r.cfg.FailOnLeak}
	if rec != nil {
		cfg.Tap = rec.To(w)
	}
	r.race = nil
	if r.cfg.Race {
		r.race = race.New(nil)
		cfg.Race, cfg.Hook = r.race, r.race
	}
	if r.cfg.Granularity == "shared" {
		cfg.Hook = sharedHook{r.race}
	}
	run, err := sched.Boot(prog, cfg)
	if err != nil {
		return nil, err
	}
	s, main := run.Sched, run.Main
	r.s, r.ctl.s = s, s
	code := s.Run()
	r.ctl.finish()
	if rec != nil {
		if err := rec.Finish(code); err != nil {
			return nil, err
		}
	}
	return r.classify(main, code), nil
}

// onEvent notes the first thread other than main that ends with an
// exception nobody can see (no future holds it).
func (r *runner) onEvent(ev sched.Event) {
	if ev.Kind != sched.EventExit || r.thrown != nil {
		return
	}
	if t := ev.Thread; t.Uncaught != nil && t != r.s.Main() && r.s.FutureOf(t) == nil {
		r.thrown = t
	}
}

// classify says what failed in the run that just ended with code.
func (r *runner) classify(main *vm.Thread, code int) *failure {
	if r.race != nil {
		if rs := r.race.Races(); len(rs) > 0 {
			return &failure{kind: "data race", place: raceName(rs[0].Key), message: rs[0].Report}
		}
	}
	switch {
	case r.ctl.stopped:
		return &failure{kind: "livelock", message: fmt.Sprintf("the run did not end within %d scheduling points (--max-steps)", r.cfg.StepBound)}
	case main.State != vm.Dead:
		return r.deadlock()
	case main.Uncaught != nil:
		return uncaught(main, r.err.String())
	case r.thrown != nil:
		return uncaught(r.thrown, vm.ThreadExceptionText(r.thrown))
	case code != 0:
		return &failure{kind: fmt.Sprintf("exit code %d", code), message: fmt.Sprintf("main returned %d\n%s", code, r.err.String())}
	case r.cfg.Expect != nil && !bytes.Equal(r.out.Bytes(), r.cfg.Expect):
		return outputDiff(r.cfg.Expect, r.out.Bytes())
	case r.cfg.FailOnLeak:
		return r.leaked()
	}
	return nil
}

// leaked describes the threads the run leaked (nil: none) by where each
// waits.
func (r *runner) leaked() *failure {
	ls, err := r.s.Leaks()
	if err != nil {
		return &failure{kind: "leaked threads", place: "?", message: err.Error()}
	}
	if len(ls) == 0 {
		return nil
	}
	var places []string
	for _, l := range ls {
		what, _, _ := strings.Cut(l.Thread.WaitReason, " ")
		places = append(places, what+" at "+topFrame(l.Thread.CallStack()))
	}
	slices.Sort(places)
	places = slices.Compact(places)
	return &failure{kind: "leaked threads", place: strings.Join(places, ", "), message: r.s.LeakReport(ls)}
}

// deadlock describes a deadlock by where each blocked thread waits.
func (r *runner) deadlock() *failure {
	var places []string
	for _, t := range r.s.Threads() {
		if t.State == vm.Dead {
			continue
		}
		what, _, _ := strings.Cut(t.WaitReason, " ")
		places = append(places, what+" at "+topFrame(t.CallStack()))
	}
	slices.Sort(places)
	return &failure{kind: "deadlock", place: strings.Join(places, ", "), message: r.err.String()}
}

// uncaught describes the exception that ended t.
func uncaught(t *vm.Thread, text string) *failure {
	exc := t.Uncaught
	kind := "uncaught " + exc.Class.Name
	if exc.Class.Name == "AssertionException" {
		kind = "assertion failure"
	}
	return &failure{kind: kind, place: topFrame(vm.ExceptionTrace(exc)), message: fmt.Sprintf("in thread %d %q: %s", t.ID, t.Name, text)}
}

// topFrame names the innermost NLang frame of a stack: "f (file:line)".
func topFrame(st []vm.CallFrame) string {
	for _, f := range st {
		if f.File != vm.NativeFile {
			return fmt.Sprintf("%s (%s:%d)", f.Func, filepath.Base(f.File), f.Line)
		}
	}
	if len(st) > 0 {
		return st[0].Func
	}
	return "?"
}

// outputDiff describes the first line where got differs from want.
func outputDiff(want, got []byte) *failure {
	wl, gl := strings.SplitAfter(string(want), "\n"), strings.SplitAfter(string(got), "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	line := func(ls []string) string {
		if i >= len(ls) || ls[i] == "" {
			return "(end of output)"
		}
		return fmt.Sprintf("%q", strings.TrimSuffix(ls[i], "\n"))
	}
	return &failure{kind: "output differs", place: fmt.Sprintf("line %d", i+1),
		message: fmt.Sprintf("line %d: want %s, got %s", i+1, line(wl), line(gl))}
}

// raceName turns a race's key (the location and the two places, NUL
// separated) into a place: "Counter.n: add (x.n:19), add (x.n:19)".
func raceName(key string) string {
	parts := strings.Split(key, "\x00")
	return parts[0] + ": " + strings.Join(parts[1:], ", ")
}

// programHash is the hash recordings of the program hold.
func (c *Config) programHash() string {
	if c.hash == "" {
		c.hash = record.ProgramHash(c.Prog)
	}
	return c.hash
}

// sharedHook is the debug hook of a run at --granularity shared: the race
// detector, if any, sees the access, then the access is a scheduling
// point.
type sharedHook struct{ race *race.Detector }

func (h sharedHook) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	if h.race != nil {
		h.race.OnTrap(t, fn, pc)
	}
	return sched.AccessPoints{}.OnTrap(t, fn, pc)
}
