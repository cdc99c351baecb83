package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

	dapserver "github.com/nlangdbg/nlangdbg/dap"
	"github.com/nlangdbg/nlangdbg/inspect"
	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
)

func init() {
	commands = append(commands, &command{
		name:    "replay",
		usage:   "[--race] [--max-heap SIZE] [--max-steps N] REC [PROG.n]",
		summary: "re-execute a recording made with run --record",
		help: `
Re-executes the run recorded in REC (nlangdbg run --record REC PROG.n):
the same program (its source is in the recording), quota, seed and
limits, with the recorded standard input, clock readings and file-system
results instead of the real ones (the file system is not touched). The
program's stdout and stderr are written again and checked, write by
write, against the recorded ones, and so is every quantum the scheduler
runs; the exit code is the recorded run's.

If the replay does anything the recorded run did not, it stops at the
first event that differs, says which on stderr and exits 1. A recording
made by another build of nlangdbg (one that compiles the program to other
bytecode) is refused, as is one of another program when PROG.n is given.

--race runs the race detector as run --race does: each race is reported
on stderr (not checked against the recording), and a replay that would
exit 0 exits 66 if it found one. A recording made with the detector on
(run --race --record, explore --race) replays with it without the flag.

A recording is not trusted more than a command line: its quota and limits
are checked against the bounds of run's flags, and it must be a regular
file of at most 1GiB. --max-heap SIZE replaces the recording's heap limit;
--max-steps N stops the replay (exit 1, with a message) at the end of the
quantum that takes it past N reductions.
See docs/recording.md.`,
		run: replayCmd,
	})
}

// recordProgram is run --record: it runs a program like runProgram and
// writes the recording to recPath.
func recordProgram(path string, src []byte, args []string, opts runOptions, recPath string, stdin io.Reader, stdout, stderr io.Writer) int {
	if opts.Carriers > 1 {
		fmt.Fprintf(stderr, "nlangdbg run: --record needs one carrier, got --carriers %d (with several the interleaving is not a function of the inputs a recording logs)\n", opts.Carriers)
		return 2
	}
	prog := compileProgram(path, src, stderr)
	if prog == nil {
		return 1
	}
	f, err := os.Create(recPath)
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg: %v\n", err)
		return 1
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	code, err := recordRun(prog, path, src, args, opts, bw, stdin, stdout, stderr)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg run: writing the recording: %v\n", err)
		return 1
	}
	return exitStatus(code)
}

// recordRun runs prog (compiled from src at path) with one carrier,
// writing the recording to w, and returns main's exit code and the first
// error writing the recording.
func recordRun(prog *vm.Program, path string, src []byte, args []string, opts runOptions, w io.Writer, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	hdr := record.Header{Path: path, Source: src, Hash: record.ProgramHash(prog), Quota: opts.Quota,
		Seed: opts.Seed, MaxFrames: opts.MaxFrames, MaxHeap: opts.MaxHeap, Args: args, Race: opts.Race}
	rec := record.NewRecorder(hdr)
	cfg := opts.runConfig(stdin, stdout, stderr) // a recorded run has the permissions a plain one has
	cfg.Tap = rec.To(w)
	d := withRace(opts.Race, prog, &cfg, stderr) // the reports are not part of the recording
	r, err := sched.Boot(prog, cfg)
	if err != nil {
		return 1, err
	}
	code := r.Sched.Run()
	return raceStatus(d, code), rec.Finish(code) // the recording keeps main's code
}

// recordedConfig returns the run configuration of a recording with
// header h: its limits and seed, replayed through rp (the file system is
// not touched: its results come from the recording).
func recordedConfig(h record.Header, rp *record.Replayer, stdout, stderr io.Writer) sched.RunConfig {
	return sched.RunConfig{Limits: sched.Limits{Quota: h.Quota, MaxFrames: h.MaxFrames, MaxHeap: h.MaxHeap},
		Seed: h.Seed, Stdout: stdout, Stderr: stderr, Tap: rp}
}

func replayCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("replay", stderr)
	race := fs.Bool("race", false, "run the race detector (see run --race)")
	var ro replayOptions
	ro.flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fmt.Fprintln(stderr, "nlangdbg replay: want a recording and at most one program file (usage: nlangdbg replay REC [PROG.n])")
		return 2
	}
	if err := ro.check(); err != nil {
		fmt.Fprintf(stderr, "nlangdbg replay: %v\n", err)
		return 2
	}
	out := stdout
	var bw *bufio.Writer
	if f, ok := stdout.(*os.File); ok && !isTerminal(f) {
		bw = bufio.NewWriterSize(stdout, 64<<10)
		out = bw
	}
	code := replayFile(fs.Arg(0), fs.Arg(1), *race, ro, out, &flushWriter{w: stderr, flush: bw})
	if bw != nil {
		bw.Flush()
	}
	return code
}

// replayOptions are what a user may set over a recording's own options:
// a heap limit (a recording's is checked against the flags' bounds, and
// may still be more than this machine should give) and a step cap.
type replayOptions struct {
	MaxHeap  int64 // 0: the recording's
	MaxSteps int64 // reductions after which the replay stops; 0: no cap
}

func (o *replayOptions) flags(fs *flag.FlagSet) {
	fs.Var((*sizeFlag)(&o.MaxHeap), "max-heap", "heap limit instead of the recording's (bytes, or 100MB, 512MiB, 4GiB)")
	fs.Int64Var(&o.MaxSteps, "max-steps", 0, "stop the replay after this many reductions (0: no cap)")
}

// check checks the options against the bounds of run's flags.
func (o replayOptions) check() error {
	if o.MaxSteps < 0 {
		return fmt.Errorf("max-steps must not be negative, got %d", o.MaxSteps)
	}
	if o.MaxHeap != 0 {
		l := inspect.DefaultLimits()
		l.MaxHeap = o.MaxHeap
		return l.Check()
	}
	return nil
}

// apply puts the options over the configuration of a replay through rp
// (recordedConfig): the user's heap limit over the recording's, the step
// cap.
func (o replayOptions) apply(cfg *sched.RunConfig, rp *record.Replayer) {
	if o.MaxHeap > 0 {
		cfg.MaxHeap = o.MaxHeap
	}
	rp.SetMaxSteps(o.MaxSteps)
}

// replayFile replays the recording recPath (of the program progPath, if
// not "") and returns the exit code.
func replayFile(recPath, progPath string, race bool, ro replayOptions, stdout, stderr io.Writer) int {
	rec, err := record.ReadFile(recPath)
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg replay: %v\n", err)
		return 1
	}
	prog, msg := loadRecorded(rec, recPath, progPath, stderr)
	if prog == nil {
		fmt.Fprintf(stderr, "nlangdbg replay: %s\n", msg)
		return 1
	}
	code, div := replayRun(prog, rec, race || rec.Header.Race, ro, stdout, stderr)
	if div != nil {
		fmt.Fprintf(stderr, "nlangdbg replay: %s: %v\n", recPath, div)
		return 1
	}
	return exitStatus(code)
}

// replayRun replays rec with prog and returns the exit code and the
// first divergence, if any. With race, the race detector runs and writes
// its reports to stderr (they are not checked against the recording).
func replayRun(prog *vm.Program, rec *record.Recording, race bool, ro replayOptions, stdout, stderr io.Writer) (int, *record.Divergence) {
	h := rec.Header
	rp := record.NewReplayer(rec)
	cfg := recordedConfig(h, rp, stdout, stderr)
	ro.apply(&cfg, rp)
	d := withRace(race, prog, &cfg, stderr)
	r, err := sched.Boot(prog, cfg)
	if err != nil {
		return 1, &record.Divergence{Want: "a run the recording's header describes", Got: err.Error()}
	}
	code := r.Sched.Run()
	div := rp.Finish(code) // against the recorded exit code
	return raceStatus(d, code), div
}

// loadRecorded compiles the program of a recording (the source it holds,
// or progPath's if given) and checks that it compiles to the recorded
// program; else it returns nil and why.
func loadRecorded(rec *record.Recording, recPath, progPath string, stderr io.Writer) (*vm.Program, string) {
	h := rec.Header
	path, src := h.Path, h.Source
	if progPath != "" {
		b, err := inspect.ReadSource(progPath)
		if err != nil {
			return nil, err.Error()
		}
		path, src = progPath, b
	}
	prog := compileProgram(path, src, stderr)
	if prog == nil {
		return nil, fmt.Sprintf("%s does not compile", path)
	}
	if record.ProgramHash(prog) != h.Hash {
		if progPath != "" && samePath(progPath, h.Path) {
			return nil, fmt.Sprintf("%s changed since %s was recorded; refusing to replay it (without PROG.n, replay runs the source the recording holds)", progPath, recPath)
		}
		if progPath != "" {
			return nil, fmt.Sprintf("%s is a recording of another program (%s), not of %s; refusing to replay it", recPath, h.Path, progPath)
		}
		return nil, fmt.Sprintf("%s was recorded by another build of nlangdbg, which compiles %s differently; refusing to replay it", recPath, h.Path)
	}
	return prog, ""
}

// debugReplay is debug --replay REC (and --core DUMP, if core): the REPL
// on a recording.
func debugReplay(recPath string, nargs int, core bool, maxHeap int64, stdin io.Reader, stdout, stderr io.Writer) int {
	if nargs > 0 {
		fmt.Fprintln(stderr, "nlangdbg debug: --replay and --core take no program file (the recording holds it)")
		return 2
	}
	abs, err := filepath.Abs(recPath)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	rec, err := record.ReadFile(abs)
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg debug: %v\n", err)
		return 1
	}
	if core && rec.Core == nil {
		fmt.Fprintf(stderr, "nlangdbg debug: %s is a recording, not a dump (open it with --replay)\n", recPath)
		return 1
	}
	c1, c2 := net.Pipe()
	srv := &dapserver.Server{}
	go srv.ServeConn(c2)
	r := newREPL(newDAPClient(c1, c1), stdout)
	r.program = rec.Header.Path
	launch := map[string]any{"replay": abs, "stopOnEntry": true}
	if maxHeap > 0 {
		launch["maxHeap"] = maxHeap // over the recording's
	}
	return runTerminal(r, launch, false, stdin, stdout, stderr)
}

// dumpOnCrash is run --dump-on-crash: it runs a program recording it in
// memory, and writes the recording with the crash as its moment to
// dumpPath if the run ends with an uncaught exception in main or a
// deadlock (and to recPath, if given, in any case).
func dumpOnCrash(path string, src []byte, args []string, opts runOptions, recPath, dumpPath string, stdin io.Reader, stdout, stderr io.Writer) int {
	if opts.Carriers > 1 {
		fmt.Fprintf(stderr, "nlangdbg run: --dump-on-crash needs one carrier, got --carriers %d\n", opts.Carriers)
		return 2
	}
	prog := compileProgram(path, src, stderr)
	if prog == nil {
		return 1
	}
	hdr := record.Header{Path: path, Source: src, Hash: record.ProgramHash(prog), Quota: opts.Quota,
		Seed: opts.Seed, MaxFrames: opts.MaxFrames, MaxHeap: opts.MaxHeap, Args: args}
	rec := record.NewRecorder(hdr)
	var buf bytes.Buffer
	cfg := opts.runConfig(stdin, stdout, stderr) // the permissions of a plain run
	cfg.Tap = rec.To(&buf)
	deadlock := false
	cfg.OnEvent = func(ev sched.Event) {
		if ev.Kind == sched.EventDeadlock {
			deadlock = true
		}
	}
	r, err := sched.Boot(prog, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg run: %v\n", err)
		return 2
	}
	code := r.Sched.Run()
	crashed := deadlock || r.Main.Uncaught != nil
	if crashed {
		rec.MarkCore(&record.Core{AtEnd: true})
	}
	if err := rec.Finish(code); err != nil {
		fmt.Fprintf(stderr, "nlangdbg run: %v\n", err)
		return 1
	}
	write := func(p string) bool {
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "nlangdbg run: %v\n", err)
			return false
		}
		return true
	}
	if recPath != "" && !write(recPath) {
		return 1
	}
	if crashed {
		if !write(dumpPath) {
			return 1
		}
		fmt.Fprintf(stderr, "nlangdbg: the crash is in %s (nlangdbg debug --core %s)\n", dumpPath, dumpPath)
	}
	return exitStatus(code)
}
