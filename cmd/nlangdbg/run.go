package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/nlangdbg/nlangdbg/inspect"
	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

func init() {
	commands = append(commands, &command{
		name:    "run",
		usage:   "[--listen ADDR] [--record FILE] [--dump-on-crash FILE] [--carriers N] [--quota N] [--seed S] [--max-frames N] [--max-heap BYTES] PROG.n [ARGS]",
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
                   (default 1100000)
  --max-heap BYTES largest allocation; larger ones throw OutOfMemoryException
                   (default 4 GiB)

  --record FILE    record the run to FILE (one carrier only): its input,
                   clock readings and file-system results, checked by
                   nlangdbg replay FILE (see docs/recording.md)
  --dump-on-crash FILE
                   if the run ends with an uncaught exception or a
                   deadlock, write a dump to FILE (one carrier only):
                   nlangdbg debug --core FILE opens it at the crash
  --listen ADDR    run the program normally and serve DAP at ADDR
                   (host:port; a bare port means loopback, port 0 picks a
                   free one; the address is printed on stderr). A debugger
                   attaches with the attach request (nlangdbg attach ADDR),
                   which pauses the program; when it disconnects, its
                   breakpoints go and the program runs on. The program's
                   exit ends the process with its exit code.

ARGS are accepted for compatibility; NLang's main takes no parameters.`,
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
}

func (o *runOptions) flags(fs *flag.FlagSet) {
	fs.IntVar(&o.Carriers, "carriers", 1, "carriers running threads in parallel")
	fs.IntVar(&o.Quota, "quota", sched.DefaultQuota, "reductions per dispatch")
	fs.Int64Var(&o.Seed, "seed", 0, "scheduler seed (0: FIFO)")
	fs.IntVar(&o.MaxFrames, "max-frames", vm.DefaultMaxFrames, "call depth limit")
	fs.Int64Var(&o.MaxHeap, "max-heap", vm.DefaultMaxHeap, "largest allocation in bytes")
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
	if opts.Carriers < 1 {
		fmt.Fprintf(stderr, "nlangdbg run: --carriers must be at least 1, got %d\n", opts.Carriers)
		return 2
	}
	if *listen != "" {
		return runListen(*listen, fs.Arg(0), fs.Args()[1:], opts, stdin, stdout, stderr)
	}
	path := fs.Arg(0)
	src, err := os.ReadFile(path)
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
	prog, err := compile.CompileFile(path, src, compile.Options{Lib: inspect.Library()})
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
	m := vm.NewMachine(prog, stdin, stdout, stderr)
	if opts.MaxFrames > 0 {
		m.MaxFrames = opts.MaxFrames
	}
	if opts.MaxHeap > 0 {
		m.MaxHeap = opts.MaxHeap
	}
	s := sched.New(m, sched.Options{Quota: opts.Quota, Seed: opts.Seed, Carriers: opts.Carriers})
	s.Start(m.NewCallThread(prog.Main, nil))
	return exitStatus(s.Run())
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
	src, err := os.ReadFile(fs.Arg(0))
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
