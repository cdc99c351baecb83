package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nlangdbg/nlangdbg/inspect"
	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

func init() {
	commands = append(commands, &command{
		name:    "run",
		usage:   "[--listen ADDR [--allow-remote] [--token-file FILE] [--accept-multiclient] [--record-for-debug]] [--record FILE] [--dump-on-crash FILE] [--race] [--leaks] [--carriers N] [--quota N] [--seed S] [--max-frames N] [--max-heap SIZE] [--allow-read DIR] [--allow-write DIR] [--deny-fs] PROG.n [ARGS]",
		summary: "compile and run a program",
		help: `
Compiles PROG.n and runs it. The program's stdout and stderr are the
process's; the exit code is main's return value (1 after an uncaught
exception, 2 after a deadlock, 1 for a compile error).

Flags:
  --carriers N     run virtual threads in parallel on N carriers (Go
                   goroutines, each with its own run queue; default 1, the
                   deterministic one: with N > 1 the interleaving, and so
                   the output of a racy program, may change from run to run)
  --quota N        reductions per dispatch before a thread is preempted
                   (one per function entry and loop back-edge; default 4000)
  --seed S         scheduler seed: 0 (default) is FIFO; any other value picks
                   runnable threads pseudo-randomly, the same way every run
  --max-frames N   call depth limit; deeper calls throw StackOverflowException
                   (default 1100000, at most 100000000)
  --max-heap SIZE  heap the program may hold (bytes, or with a unit: 100MB,
                   512MiB, 4GiB); an allocation that would cross it throws
                   OutOfMemoryException (default 4GiB, at least 1MiB)
  --allow-read DIR restrict reading files to DIR (repeatable; comma-separated
                   lists too); with any of these three flags, file access
                   outside the directories given throws IOException
  --allow-write DIR
                   restrict writing (create, truncate, append, makeDirs,
                   remove) to DIR (repeatable)
  --deny-fs        no file access at all

  --record FILE    record the run to FILE (one carrier only): its input,
                   clock readings and file-system results, checked by
                   nlangdbg replay FILE (see docs/recording.md)
  --dump-on-crash FILE
                   if the run ends with an uncaught exception or a
                   deadlock, write a dump to FILE (one carrier only):
                   nlangdbg debug --core FILE opens it at the crash
  --race           detect data races (one carrier): each is reported on
                   stderr as it happens, with both threads and stacks, and
                   a run that would exit 0 exits 66 (see docs/explore.md);
                   with --record, the recording replays with the detector
  --leaks          when the program ends, report the threads left parked on
                   what no thread that can still run reaches (a channel, a
                   lock, a semaphore, a future, a join): each with what it
                   waits on, where that was made, who spawned it where and
                   its stack, on stderr; the exit code is the program's. Not
                   with --listen (the debugger's leaks command does it live),
                   --record, --race or --dump-on-crash
  --listen ADDR    run the program normally and serve DAP at ADDR
                   (host:port; a bare port means loopback, port 0 picks a
                   free one; the address is printed on stderr). A debugger
                   attaches with the attach request (nlangdbg attach ADDR),
                   which pauses the program; when it disconnects, its
                   breakpoints go and the program runs on. The program's
                   exit ends the process with its exit code.
  --record-for-debug  with --listen (one carrier): record the run in memory
                   so that an attached debugger can go back (stepBack,
                   reverseContinue); costs what a debug session's
                   recording costs. Without it, going back is refused.
` + serverFlagsHelp + `

Flags go before PROG.n: whatever follows it is ARGS. NLang's main takes
no parameters, so ARGS reach no program; they are accepted for
compatibility with scripts, and a known flag among them gets a warning.`,
		run: runCmd,
	})
	commands = append(commands, &command{
		name:    "disasm",
		usage:   "PROG.n",
		summary: "print the bytecode of a program",
		help: `
Compiles PROG.n and prints every function's bytecode: pc, source line at
statement starts, instruction and operands, then its exception handlers
and local-variable table (name, type, register, live pc range).`,
		run: disasmCmd,
	})
}

// runOptions configure one run of a program.
type runOptions struct {
	Carriers  int
	Quota     int
	Seed      int64
	MaxFrames int
	MaxHeap   int64
	// AllowRead, AllowWrite and DenyFS restrict file access (vm.FSPolicy).
	AllowRead, AllowWrite []string
	DenyFS                bool
	// Race runs the race detector (run --race), writing its reports to
	// the process's stderr.
	Race bool
	// Leaks reports the leaked threads when the program ends (run
	// --leaks; leaks.go).
	Leaks bool
}

func (o *runOptions) flags(fs *flag.FlagSet) {
	fs.IntVar(&o.Carriers, "carriers", 1, "carriers running threads in parallel")
	fs.IntVar(&o.Quota, "quota", sched.DefaultQuota, "reductions per dispatch")
	fs.Int64Var(&o.Seed, "seed", 0, "scheduler seed (0: FIFO)")
	fs.IntVar(&o.MaxFrames, "max-frames", vm.DefaultMaxFrames, "call depth limit")
	o.MaxHeap = vm.DefaultMaxHeap
	fs.Var((*sizeFlag)(&o.MaxHeap), "max-heap", "heap limit (bytes, or 100MB, 512MiB, 4GiB)")
	fs.Var((*listFlag)(&o.AllowRead), "allow-read", "directory the program may read (repeatable)")
	fs.Var((*listFlag)(&o.AllowWrite), "allow-write", "directory the program may write (repeatable)")
	fs.BoolVar(&o.DenyFS, "deny-fs", false, "no file access")
}

// listFlag is a repeatable flag; a comma also separates values.
type listFlag []string

func (f *listFlag) String() string { return strings.Join(*f, ",") }

func (f *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v != "" {
			*f = append(*f, v)
		}
	}
	return nil
}

// limits returns the options' run limits (0 means a default only for
// options that were never set, as in tests).
func (o *runOptions) limits() inspect.Limits {
	l := inspect.Limits{Quota: o.Quota, Carriers: o.Carriers, MaxFrames: o.MaxFrames, MaxHeap: o.MaxHeap}
	return l
}

// runConfig returns what every run of the options is built from
// (sched.Boot): their limits, seed and file permissions, with the
// program's input and output. Every front end that builds a run from
// runOptions goes through it, so none can forget one of them.
func (o *runOptions) runConfig(stdin io.Reader, stdout, stderr io.Writer) sched.RunConfig {
	return sched.RunConfig{Limits: o.limits(), Seed: o.Seed,
		FS:    sched.Permissions{AllowRead: o.AllowRead, AllowWrite: o.AllowWrite, DenyFS: o.DenyFS},
		Stdin: stdin, Stdout: stdout, Stderr: stderr, Sites: o.Leaks}
}

// boot builds a run of prog with cfg, printing why it cannot to stderr
// (nil then).
func boot(prog *vm.Program, cfg sched.RunConfig, stderr io.Writer) *sched.Run {
	r, err := sched.Boot(prog, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg: %v\n", err)
		return nil
	}
	return r
}

// check validates the options as every front end does, printing the
// problem for command c.
func (o *runOptions) check(c string, stderr io.Writer) bool {
	if err := o.limits().Check(); err != nil {
		fmt.Fprintf(stderr, "nlangdbg %s: %v\n", c, err)
		return false
	}
	if _, err := vm.NewFSPolicy(o.AllowRead, o.AllowWrite, o.DenyFS, ""); err != nil {
		fmt.Fprintf(stderr, "nlangdbg %s: %v\n", c, err)
		return false
	}
	return true
}

// sizeFlag is a byte count flag that takes units (see inspect.ParseSize).
type sizeFlag int64

func (f *sizeFlag) String() string { return inspect.FormatSize(int64(*f)) }

func (f *sizeFlag) Set(s string) error {
	n, err := inspect.ParseSize(s)
	if err != nil {
		return err
	}
	*f = sizeFlag(n)
	return nil
}

// warnLateFlags warns about known flags after the program file: they
// are program arguments, not options (the usual mistake of
// "nlangdbg run prog.n --quota 5").
func warnLateFlags(c string, fs *flag.FlagSet, args []string, stderr io.Writer) {
	for _, a := range args {
		if a == "--" {
			return
		}
		name := strings.TrimLeft(a, "-")
		if i := strings.IndexByte(name, '='); i >= 0 {
			name = name[:i]
		}
		if strings.HasPrefix(a, "-") && name != "" && fs.Lookup(name) != nil {
			fmt.Fprintf(stderr, "nlangdbg %s: warning: %s comes after the program file, so it is a program argument, not a flag (put flags before PROG.n)\n", c, a)
		}
	}
}

// newFlagSet returns a flag set for command c that prints its help on -h.
func newFlagSet(c string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(c, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { commandHelp(stderr, findCommand(c)) }
	return fs
}

func runCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var opts runOptions
	fs := newFlagSet("run", stderr)
	opts.flags(fs)
	listen := fs.String("listen", "", "serve DAP at this address")
	recPath := fs.String("record", "", "record the run to this file (see replay)")
	raceOn := fs.Bool("race", false, "detect data races (one carrier; see docs/explore.md)")
	fs.BoolVar(&opts.Leaks, "leaks", false, "report the leaked threads when the program ends")
	recordForDebug := fs.Bool("record-for-debug", false, "with --listen: record the run so that an attached debugger can go back")
	var sf serverFlags
	sf.flags(fs)
	dumpPath := fs.String("dump-on-crash", "", "if the run crashes, write a dump to this file (see debug --core)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() < 1 {
		fmt.Fprintln(stderr, "nlangdbg run: missing program file (usage: nlangdbg run [flags] PROG.n)")
		return 2
	}
	if !opts.check("run", stderr) {
		return 2
	}
	warnLateFlags("run", fs, fs.Args()[1:], stderr)
	if *listen == "" && (sf.allowRemote || sf.multiclient || sf.tokenFile != "") {
		fmt.Fprintln(stderr, "nlangdbg run: --allow-remote, --token-file and --accept-multiclient need --listen")
		return 2
	}
	if *recordForDebug && (*listen == "" || opts.Carriers > 1) {
		fmt.Fprintln(stderr, "nlangdbg run: --record-for-debug needs --listen and one carrier")
		return 2
	}
	if *raceOn && (opts.Carriers > 1 || *listen != "" || *dumpPath != "") {
		fmt.Fprintln(stderr, "nlangdbg run: --race runs on one carrier, without --listen or --dump-on-crash")
		return 2
	}
	opts.Race = *raceOn
	if opts.Leaks && (*listen != "" || *recPath != "" || *raceOn || *dumpPath != "") {
		fmt.Fprintln(stderr, "nlangdbg run: --leaks goes without --listen, --record, --race and --dump-on-crash (under --listen, the debugger's leaks command lists them live)")
		return 2
	}
	if *listen != "" {
		return runListen(*listen, sf, fs.Arg(0), fs.Args()[1:], opts, *recordForDebug, stdin, stdout, stderr)
	}
	path := fs.Arg(0)
	src, err := inspect.ReadSource(path)
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg: %v\n", err)
		return 1
	}
	out := stdout
	var bw *bufio.Writer
	if f, ok := stdout.(*os.File); ok && !isTerminal(f) {
		bw = bufio.NewWriterSize(stdout, 64<<10)
		out = bw
	}
	var code int
	if *dumpPath != "" {
		code = dumpOnCrash(path, src, fs.Args()[1:], opts, *recPath, *dumpPath, stdin, out, &flushWriter{w: stderr, flush: bw})
	} else if *raceOn && *recPath == "" {
		code = raceProgram(path, src, opts, stdin, out, &flushWriter{w: stderr, flush: bw})
	} else if *recPath != "" {
		code = recordProgram(path, src, fs.Args()[1:], opts, *recPath, stdin, out, &flushWriter{w: stderr, flush: bw})
	} else {
		code = runProgram(path, src, opts, stdin, out, &flushWriter{w: stderr, flush: bw})
	}
	if bw != nil {
		bw.Flush()
	}
	return code
}

// flushWriter flushes a buffered stdout before each write to stderr, so
// that the two streams keep their order on a terminal.
type flushWriter struct {
	w     io.Writer
	flush *bufio.Writer
}

func (f *flushWriter) Write(p []byte) (int, error) {
	if f.flush != nil {
		f.flush.Flush()
	}
	return f.w.Write(p)
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// compileProgram compiles path, printing errors to stderr.
func compileProgram(path string, src []byte, stderr io.Writer) *vm.Program {
	prog, err := compile.CompileFile(path, src, compile.Options{Lib: inspect.Library(), ReadFile: inspect.ReadSource})
	if err != nil {
		fmt.Fprint(stderr, inspect.FormatCompileError(path, src, err))
		fmt.Fprintln(stderr, "Compilation failed.")
		return nil
	}
	return prog
}

// runProgram compiles and runs a program and returns its exit code.
func runProgram(path string, src []byte, opts runOptions, stdin io.Reader, stdout, stderr io.Writer) int {
	prog := compileProgram(path, src, stderr)
	if prog == nil {
		return 1
	}
	r := boot(prog, opts.runConfig(stdin, stdout, stderr), stderr)
	if r == nil {
		return 2
	}
	code := r.Sched.Run()
	if opts.Leaks {
		reportLeaks(r.Sched, stderr) // leaks.go
	}
	return exitStatus(code)
}

// exitStatus is what a POSIX parent sees of main's return value: its low
// 8 bits (main returning 300 exits with 44, -1 with 255).
func exitStatus(code int) int { return code & 0xFF }

func disasmCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("disasm", stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "nlangdbg disasm: want one program file")
		return 2
	}
	src, err := inspect.ReadSource(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg: %v\n", err)
		return 1
	}
	prog := compileProgram(fs.Arg(0), src, stderr)
	if prog == nil {
		return 1
	}
	var user []*vm.Funcode
	for _, f := range prog.Funcs {
		if f.File == fs.Arg(0) || prog.Files[f.File] != nil {
			user = append(user, f)
		}
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	for i, f := range user {
		if i > 0 {
			fmt.Fprintln(w)
		}
		vm.DisassembleFunc(w, f)
	}
	return 0
}
