package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/go-dap"
	"github.com/peterh/liner"

	dapserver "github.com/nlangdbg/nlangdbg/dap"
	"github.com/nlangdbg/nlangdbg/dap/api"
)

func init() {
	commands = append(commands, &command{
		name:    "debug",
		usage:   "[--race] [--stdin FILE] [--carriers N] [--quota N] [--seed S] [--max-frames N] [--max-heap SIZE] PROG.n [ARGS] | --replay REC | --core DUMP",
		summary: "debug a program in the terminal",
		help: `
Compiles PROG.n, starts it stopped at entry and opens the debugger REPL
(type "help" there). The REPL is a DAP client of nlangdbg's own DAP server,
running in-process; its commands also work in a DAP client's debug console
(prefix the debugger-only ones with ':').

Flags are those of "nlangdbg run" (see "nlangdbg help run") but --listen,
--record and --dump-on-crash, checked the same way; they go before PROG.n.
--race runs the race detector: a race stops the program with its report
(the other access, its thread and stack).

The program shares the terminal, as under gdb: while it runs, what is
typed goes to its input (Ctrl-D ends it), and the lines it has not read
when it stops are the next commands. --stdin FILE gives it FILE instead
(as "run < FILE" does in the REPL). Under attach the program's input is
its own process's: a line typed while it runs waits for the prompt.

History is kept in the user's config directory (nlangdbg/history); Tab
completes commands, file names, file:line and function names; an empty
line repeats the last command; Ctrl-C pauses a running program (and at the
prompt clears the line); Ctrl-D quits.

With one carrier (the default) the session records its run, so that it
can go back: rewind, rev next/step/stepout/continue, checkpoint, restart N
(see docs/recording.md). --replay REC debugs a recording made with
nlangdbg run --record: the recorded program, options and inputs.
--core DUMP opens a dump (nlangdbg run --dump-on-crash, the REPL's dump)
stopped at its moment: the crash, or where dump was typed.`,
		run: debugCmd,
	})
	commands = append(commands, &command{
		name:    "attach",
		usage:   "[--token-file FILE] ADDR",
		summary: "debug a program started with run --listen",
		help: `
Connects the debugger REPL to a program started with
"nlangdbg run --listen ADDR PROG.n". The program stops when the REPL
connects; "detach" leaves it running, "quit" asks whether to kill it.
ADDR is host:port (a bare port means loopback) or unix:PATH.

Flags:
  --token-file FILE  send the token in FILE, for a server started with
                     --token-file`,
		run: attachCmd,
	})
}

func debugCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var opts runOptions
	fs := newFlagSet("debug", stderr)
	opts.flags(fs)
	replay := fs.String("replay", "", "debug this recording (run --record) instead of a program")
	core := fs.String("core", "", "open this dump (run --dump-on-crash, the REPL's dump) at its moment")
	fs.BoolVar(&opts.Race, "race", false, "detect data races (one carrier): a race stops the program with its report")
	stdinPath := fs.String("stdin", "", "the program reads this file as its input (as run < FILE; default: the terminal)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *replay != "" || *core != "" {
		heap := int64(0) // the recording's, unless --max-heap is given
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "max-heap" {
				heap = opts.MaxHeap
			}
		})
		if *replay != "" {
			return debugReplay(*replay, fs.NArg(), false, heap, stdin, stdout, stderr)
		}
		return debugReplay(*core, fs.NArg(), true, heap, stdin, stdout, stderr)
	}
	if fs.NArg() < 1 {
		fmt.Fprintln(stderr, "nlangdbg debug: missing program file")
		return 2
	}
	if !opts.check("debug", stderr) {
		return 2
	}
	if opts.Race && opts.Carriers > 1 {
		fmt.Fprintln(stderr, "nlangdbg debug: --race runs on one carrier")
		return 2
	}
	warnLateFlags("debug", fs, fs.Args()[1:], stderr)
	prog, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	launch := opts.launchArgs(prog, fs.Args()[1:])
	srv := &dapserver.Server{}
	var termIn *termInput
	switch {
	case *stdinPath != "":
		abs, err := filepath.Abs(*stdinPath)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		launch["stdin"] = abs
	case isTerminal(os.Stdin):
		// the program shares the terminal, as under gdb (termin.go)
		termIn = newTermInput()
		srv.Stdin = termIn
	}
	c1, c2 := net.Pipe()
	go srv.ServeConn(c2)
	client := newDAPClient(c1, c1)
	r := newREPL(client, stdout)
	r.program = prog
	r.termIn = termIn
	return runTerminal(r, launch, false, stdin, stdout, stderr)
}

// launchArgs returns the DAP launch arguments of a debug session of the
// program at path with the options (debug PROG.n): the same limits and
// permissions a run of them has.
func (o *runOptions) launchArgs(path string, args []string) map[string]any {
	return map[string]any{"program": path, "args": args, "stopOnEntry": true,
		"quota": o.Quota, "seed": o.Seed, "carriers": o.Carriers,
		"maxFrames": o.MaxFrames, "maxHeap": o.MaxHeap,
		"allowRead": o.AllowRead, "allowWrite": o.AllowWrite, "denyFs": o.DenyFS, "race": o.Race}
}

func attachCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("attach", stderr)
	tokenFile := fs.String("token-file", "", "file holding the server's token")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "nlangdbg attach: want the address of a program started with run --listen")
		return 2
	}
	attach := map[string]any{}
	if *tokenFile != "" {
		tok, err := dapserver.ReadTokenFile(*tokenFile)
		if err != nil {
			fmt.Fprintf(stderr, "nlangdbg attach: %v\n", err)
			return 1
		}
		attach["token"] = tok
	}
	network, address := dapserver.ListenAddr(fs.Arg(0))
	conn, err := net.Dial(network, address)
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg attach: %v\n", err)
		return 1
	}
	defer conn.Close()
	r := newREPL(newDAPClient(conn, conn), stdout)
	return runTerminal(r, attach, true, stdin, stdout, stderr)
}

// historyFile is where the REPL keeps its history.
func historyFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "nlangdbg", "history")
}

// runTerminal starts the session and runs the REPL on a liner terminal
// until quit, detach, Ctrl-D or the end of the program's input.
func runTerminal(r *repl, launch map[string]any, attach bool, stdin io.Reader, stdout, stderr io.Writer) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	go func() {
		for range sig {
			select {
			case r.interrupt <- struct{}{}:
			default:
			}
		}
	}()
	cooked, cookedErr := liner.TerminalMode() // (before liner makes it raw)
	if err := r.start(launch, attach); err != nil {
		var re *requestError
		if errors.As(err, &re) && re.ID == api.ErrCompile {
			// as run prints it: paths as the user would type them
			fmt.Fprint(stderr, relativeReport(re.Msg))
			fmt.Fprintln(stderr, "Compilation failed.")
			return 1
		}
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	line := liner.NewLiner()
	defer line.Close()
	if raw, err := liner.TerminalMode(); err == nil && cookedErr == nil && isTerminal(os.Stdin) {
		// while the program runs, the terminal is its (termin_unix.go)
		r.typed = make(chan typedLine, 64)
		r.running = terminalRunning(r, cooked, raw)
	}
	line.SetCtrlCAborts(true)
	line.SetTabCompletionStyle(liner.TabPrints)
	line.SetWordCompleter(r.completeWord)
	hist := historyFile()
	if f, err := os.Open(hist); err == nil {
		line.ReadHistory(f)
		f.Close()
	}
	defer func() {
		if hist == "" {
			return
		}
		os.MkdirAll(filepath.Dir(hist), 0o755)
		if f, err := os.Create(hist); err == nil {
			line.WriteHistory(f)
			f.Close()
		}
	}()
	ask = func(r *repl, question string) (string, error) { return line.Prompt(question) }
	for {
		// what was typed while the program ran, and it did not read, is
		// the next command (as in gdb)
		if ahead := r.takeTypeahead(); len(ahead) > 0 {
			quit := false
			for _, in := range ahead {
				in = strings.TrimRight(in, "\r\n")
				fmt.Fprintf(stdout, "(nlangdbg) %s\n", in)
				if strings.TrimSpace(in) != "" {
					line.AppendHistory(in)
				}
				if err := r.Exec(in); errors.Is(err, errQuit) {
					quit = true
					break
				} else if err != nil {
					fmt.Fprintf(stdout, "error: %v\n", err)
				}
			}
			if quit {
				break
			}
			continue
		}
		// while threads are held and others run (non-stop), what they
		// print is shown above the prompt (replnonstop.go)
		stopAbove := r.whilePrompting(redrawPrompt)
		in, err := line.Prompt(r.prompt())
		stopAbove()
		if errors.Is(err, liner.ErrPromptAborted) {
			continue // Ctrl-C at the prompt clears the line
		}
		if err != nil { // Ctrl-D or end of input: leave (an attached program runs on)
			fmt.Fprintln(stdout)
			r.leave()
			break
		}
		if strings.TrimSpace(in) != "" {
			line.AppendHistory(in)
		}
		r.drainEvents()
		if err := r.Exec(in); err != nil {
			if errors.Is(err, errQuit) {
				break
			}
			fmt.Fprintf(stdout, "error: %v\n", err)
		}
	}
	return r.code
}

// relativeReport writes the paths a compile report starts its lines
// with relative to the current directory, when they are under it.
func relativeReport(report string) string {
	wd, err := os.Getwd()
	if err != nil {
		return report
	}
	lines := strings.SplitAfter(report, "\n")
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, wd+string(filepath.Separator)); ok {
			lines[i] = rest
		}
	}
	return strings.Join(lines, "")
}

// completeWord offers completions for the word at pos: the text before
// it (head), the candidates for the word, and the text after pos (tail),
// as liner's word completer wants them. Tab then lists words, not lines.
func (r *repl) completeWord(line string, pos int) (head string, words []string, tail string) {
	r.aboveMu.Lock() // (events handled while the prompt waits: whilePrompting)
	defer r.aboveMu.Unlock()
	pos = min(max(pos, 0), len(line))
	head, words = r.completions(line[:pos])
	return head, words, line[pos:]
}

// completions returns the candidates for the last word of line and the
// text before that word.
func (r *repl) completions(line string) (string, []string) {
	if !strings.Contains(line, " ") {
		var out []string
		for _, c := range replCmds {
			for _, n := range append([]string{c.name}, c.aliases...) {
				if strings.HasPrefix(n, line) {
					out = append(out, n+" ")
				}
			}
		}
		sort.Strings(out)
		return "", out
	}
	name, rest, _ := strings.Cut(line, " ")
	cmd := lookupCmd(name)
	if cmd == nil {
		return line, nil
	}
	words := strings.Fields(rest)
	prefix := ""
	if len(words) > 0 && !strings.HasSuffix(rest, " ") {
		prefix = words[len(words)-1]
	}
	if cmd.complete == "expr" {
		// the name being typed at the end of an expression: "a + co"
		i := len(rest)
		for i > 0 && isIdentByte(rest[i-1]) {
			i--
		}
		prefix = rest[i:]
	}
	head := line[:len(line)-len(prefix)]
	var cands []string
	switch cmd.complete {
	case "location":
		cands = append(cands, r.functions()...)
		cands = append(cands, r.sourceFiles()...)
		if strings.Contains(prefix, ":") {
			cands = append(cands, r.lineCompletions(prefix)...)
		}
		if cmd.name == "break" {
			cands = append(cands, "safepoint", "sched")
		}
	case "thread":
		if ths, err := r.threads(); err == nil {
			for _, t := range ths {
				cands = append(cands, fmt.Sprint(t.Id))
			}
		}
	case "sched":
		if len(words) == 0 || len(words) == 1 && prefix != "" {
			cands = []string{"step", "next", "quota", "graph"}
		}
	case "info":
		if len(words) == 0 || len(words) == 1 && prefix != "" {
			cands = infoCmds
		}
	case "expr":
		if !strings.HasSuffix(strings.TrimRight(rest[:len(rest)-len(prefix)], " "), ".") {
			cands = r.frameNames()
		}
	}
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return head, out
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// frameNames lists the names an expression can use in the selected
// frame: its locals and arguments, this, and the fields of this.
func (r *repl) frameNames() []string {
	id := r.frameID()
	if id == 0 {
		return nil
	}
	resp, err := r.c.call(&dap.ScopesRequest{Request: request("scopes"), Arguments: dap.ScopesArguments{FrameId: id}})
	if err != nil {
		return nil
	}
	var out []string
	for _, sc := range resp.(*dap.ScopesResponse).Body.Scopes {
		vars, err := r.variables(sc.VariablesReference)
		if err != nil {
			continue
		}
		if sc.Name == "this" {
			out = append(out, "this")
		}
		for _, v := range vars {
			if v.Name != "" && isIdentByte(v.Name[0]) && !strings.Contains(v.Name, " ") {
				out = append(out, v.Name)
			}
		}
	}
	return out
}

// sourceFiles lists the .n files next to the program and in the current
// directory, as "file.n:" (ready for a line number).
func (r *repl) sourceFiles() []string {
	seen := map[string]bool{}
	var out []string
	for _, dir := range []string{".", filepath.Dir(r.program)} {
		ms, _ := filepath.Glob(filepath.Join(dir, "*.n"))
		for _, m := range ms {
			b := filepath.Base(m) + ":"
			if !seen[b] {
				seen[b] = true
				out = append(out, b)
			}
		}
	}
	return out
}

// lineCompletions offers file:line for the lines of file that hold code
// (non-blank, not comment-only).
func (r *repl) lineCompletions(prefix string) []string {
	file, _, _ := strings.Cut(prefix, ":")
	lines := r.sourceLines(r.resolveFile(file))
	var out []string
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		out = append(out, fmt.Sprintf("%s:%d", file, i+1))
	}
	return out
}
