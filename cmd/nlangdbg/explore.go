package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/nlangdbg/nlangdbg/inspect"
	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/explore"
	"github.com/nlangdbg/nlangdbg/vm"
)

func init() {
	commands = append(commands, &command{
		name:    "explore",
		usage:   "[flags] PROG.n [ARGS] | merge [--json] DIR...",
		summary: "run a program under many schedules to find concurrency bugs",
		help: `
Runs PROG.n under many schedules on one carrier and reports what fails in
any of them: a deadlock, an uncaught exception in any thread, an assert
that fails, a nonzero exit code, a run that does not end within
--max-steps scheduling points (livelock), and with --expect-output FILE
output that differs from FILE. A thread may be preempted at every
safepoint (function entry, loop back-edge) and after every
synchronisation operation (spawn, join, channel, future, lock,
semaphore, atomic, sleep), and before every read and write of a field,
an array or List element, a List or a Dict (--granularity shared, the
default; --granularity sync leaves the accesses out: fewer points, but a
lost update inside one statement is then out of reach).

Strategies (--strategy): pct (the default) draws --depth - 1 priority
change points at random: a bug that needs D ordering constraints is
found by one schedule with probability at least 1/(n k^(D-1)) for n
threads and k scheduling points; random is a seeded random walk; dfs
runs every schedule with at most --depth preemptions, depth first, and
says when it has run them all; with --state-cache it hashes the program's
state at every scheduling point and skips the schedules that branch after
a state it has explored from already (fewer schedules, each dearer: it
pays from --depth 3).

Each distinct failure (kind and place) is reported once, with the number
of schedules it took; its schedule is shrunk to the fewest preemptions
and saved as DIR/failure-K.replay (--out DIR), which "nlangdbg replay"
reproduces. DIR/result.json holds the result; --json prints it.

--race runs every schedule with the race detector (see run --race): a
data race is a failure.

--fail-on-leak makes a run that ends with leaked threads a failure: threads
left parked on what no thread that can run reaches (see run --leaks), each
reported with what it waits on and where it was spawned.

--jobs J runs J workers in parallel; --shard I/K runs shard I (from 0) of
K disjoint shards, and "nlangdbg explore merge DIR..." combines the
results of the shards' --out directories.

--max-frames, --max-heap, --allow-read, --allow-write and --deny-fs limit
every run as they limit run's (the file system is real: every schedule
reads and writes it).

Exit status: 0 when nothing was found, 3 when a failure was, 1 on errors.
See docs/explore.md.`,
		run: exploreCmd,
	})
}

func exploreCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return exploreMerge(args[1:], stdout, stderr)
	}
	fs := newFlagSet("explore", stderr)
	cfg := explore.Config{}
	fs.IntVar(&cfg.Schedules, "schedules", 1000, "schedules to run (all shards together)")
	fs.StringVar(&cfg.Strategy, "strategy", explore.PCT, "pct, random or dfs")
	fs.IntVar(&cfg.Depth, "depth", 0, "PCT's bug depth (default 3) or DFS's preemption bound (default 2)")
	fs.Int64Var(&cfg.Seed, "seed", 0, "seed of pct and random")
	fs.IntVar(&cfg.Jobs, "jobs", 1, "workers in parallel")
	shard := fs.String("shard", "", "run shard I of K (I/K, I from 0)")
	out := fs.String("out", "explore-out", "directory for failure-K.replay and result.json")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	expect := fs.String("expect-output", "", "a file holding the expected stdout")
	fs.Int64Var(&cfg.StepBound, "max-steps", 1_000_000, "scheduling points after which a run is a livelock")
	fs.IntVar(&cfg.Quota, "quota", sched.DefaultQuota, "reductions per quantum at most")
	fs.IntVar(&cfg.MaxFrames, "max-frames", vm.DefaultMaxFrames, "call depth limit")
	cfg.MaxHeap = vm.DefaultMaxHeap
	fs.Var((*sizeFlag)(&cfg.MaxHeap), "max-heap", "heap limit (bytes, or 100MB, 512MiB, 4GiB)")
	var allowRead, allowWrite []string
	fs.Var((*listFlag)(&allowRead), "allow-read", "directory the program may read (repeatable)")
	fs.Var((*listFlag)(&allowWrite), "allow-write", "directory the program may write (repeatable)")
	denyFS := fs.Bool("deny-fs", false, "no file access")
	fs.BoolVar(&cfg.Race, "race", false, "detect data races in every schedule")
	fs.BoolVar(&cfg.FailOnLeak, "fail-on-leak", false, "a run that ends with leaked threads is a failure")
	fs.BoolVar(&cfg.StateCache, "state-cache", false, "dfs: skip the schedules that branch after a state already explored (pays from --depth 3)")
	fs.StringVar(&cfg.Granularity, "granularity", "shared", "scheduling points: shared (safepoints, synchronisation operations and every shared access) or sync (not the accesses)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "nlangdbg explore: "+format+"\n", a...)
		return 1
	}
	if fs.NArg() < 1 {
		return fail("want a program file (usage: nlangdbg explore [flags] PROG.n [ARGS])")
	}
	if *shard != "" {
		i, k, ok := parseShard(*shard)
		if !ok {
			return fail("--shard %q: want I/K with 0 <= I < K", *shard)
		}
		cfg.Shard, cfg.Shards = i, k
	}
	if cfg.StateCache && cfg.Strategy != explore.DFS {
		return fail("--state-cache needs --strategy dfs")
	}
	if cfg.Schedules < 1 || cfg.Jobs < 1 || cfg.Depth < 0 {
		return fail("--schedules and --jobs must be at least 1, --depth not negative")
	}
	if err := (sched.Limits{Quota: cfg.Quota, Carriers: 1, MaxFrames: cfg.MaxFrames, MaxHeap: cfg.MaxHeap}).Check(); err != nil {
		return fail("%v", err)
	}
	policy, err := vm.NewFSPolicy(allowRead, allowWrite, *denyFS, "")
	if err != nil {
		return fail("%v", err)
	}
	cfg.FS = policy
	if *expect != "" {
		b, err := vm.ReadRegularFile(*expect, explore.MaxExpectSize, "--expect-output takes a file holding the expected output")
		if err != nil {
			return fail("%v", err)
		}
		cfg.Expect = b
	}
	warnLateFlags("explore", fs, fs.Args()[1:], stderr)
	path := fs.Arg(0)
	src, err := inspect.ReadSource(path)
	if err != nil {
		return fail("%v", err)
	}
	cfg.Path, cfg.Source, cfg.Args = path, src, fs.Args()[1:]
	if cfg.Prog = compileProgram(path, src, stderr); cfg.Prog == nil {
		return 1
	}
	if err := cfg.Check(); err != nil {
		return fail("%v", err)
	}
	if err := explore.CheckOut(*out); err != nil { // before hours of exploration, not after
		return fail("--out %s: %v", *out, err)
	}
	var prog explore.Progress
	stopProgress := showProgress(stderr, &prog, cfg.Schedules, cfg.Shards)
	res, err := explore.Explore(cfg, &prog)
	stopProgress()
	if err != nil {
		return fail("%v", err)
	}
	if err := explore.Save(cfg, res, *out); err != nil {
		return fail("saving the results: %v", err)
	}
	if *asJSON {
		printJSON(stdout, res)
	} else {
		printSummary(stdout, res, 0)
	}
	if res.Failed() {
		return 3
	}
	return 0
}

// parseShard parses "I/K".
func parseShard(s string) (int, int, bool) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	k, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || k < 1 || i < 0 || i >= k {
		return 0, 0, false
	}
	return i, k, true
}

// showProgress writes a progress line to w while an exploration runs, if
// w is a terminal; the returned function stops it and clears the line.
func showProgress(w io.Writer, p *explore.Progress, total, shards int) func() {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return func() {}
	}
	shards = max(1, shards)
	total = (total + shards - 1) / shards
	done := make(chan struct{})
	stopped := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(stopped)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(f, "\r\033[K")
				return
			case <-tick.C:
				n := p.Done.Load()
				rate := float64(n) / time.Since(start).Seconds()
				fmt.Fprintf(f, "\r\033[Kexplore: %d/%d schedules, %.0f/s, %d failures", n, total, rate, p.Failures.Load())
			}
		}
	}()
	return func() { close(done); <-stopped }
}

func printJSON(w io.Writer, res *explore.Result) {
	b, _ := json.MarshalIndent(res, "", "  ")
	fmt.Fprintf(w, "%s\n", jsonPrintable(b))
}

// jsonPrintable escapes in JSON text what encoding/json leaves as it is
// and a terminal would act on: DEL, the C1 controls (U+009B starts an
// escape sequence on some terminals) and the controls of text direction.
// They can only be inside strings, where \uXXXX means the same.
func jsonPrintable(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r != '\n' && unprintable(r) {
			if out == nil {
				out = append([]byte(nil), b[:i]...)
			}
			out = fmt.Appendf(out, "\\u%04x", r)
		} else if out != nil {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	if out == nil {
		return b
	}
	return out
}

// printable returns s with what a terminal would act on rather than
// show — control characters (escape sequences start with one; a tab
// stays), invalid UTF-8, the Unicode controls of text direction — written
// as Go escapes (\x1b, \u202e). The strings of a result may come from a
// file (explore merge) or from the program's own messages.
func printable(s string) string {
	ok := utf8.ValidString(s)
	for _, r := range s {
		ok = ok && !unprintable(r)
	}
	if ok {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				fmt.Fprintf(&b, "\\x%02x", s[i])
				continue
			}
			b.WriteRune(r)
		case r < 0x80 && unprintable(r):
			fmt.Fprintf(&b, "\\x%02x", r)
		case unprintable(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unprintable reports whether printable escapes r.
func unprintable(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// tabless is printable for a cell of a table: a tab is escaped too.
func tabless(s string) string { return strings.ReplaceAll(printable(s), "\t", `\t`) }

// printSummary writes the result as a table and each failure's report;
// merged is the number of shards a merged result was made of (0: one
// run). Every string of the result goes through printable.
func printSummary(w io.Writer, res *explore.Result, merged int) {
	rate := ""
	if res.Seconds > 0 {
		rate = fmt.Sprintf(" (%.0f/s)", float64(res.Schedules)/res.Seconds)
	}
	shard := ""
	switch {
	case merged > 0:
		shard = fmt.Sprintf(", %d of %d shards merged", merged, res.Shards)
	case res.Shards > 1:
		shard = fmt.Sprintf(", shard %d/%d", res.Shard, res.Shards)
	}
	gran := ""
	if res.Granularity == "sync" {
		gran = ", granularity sync" // shared is the default
	}
	fmt.Fprintf(w, "explore %s: %d schedules (%s, depth %d, seed %d%s%s) in %.2f s%s: ",
		printable(res.Program), res.Schedules, printable(res.Strategy), res.Depth, res.Seed, gran, shard, res.Seconds, rate)
	switch n := len(res.Failures); {
	case n == 0:
		fmt.Fprintln(w, "no failure")
	case n == 1:
		fmt.Fprintln(w, "1 failure")
	default:
		fmt.Fprintf(w, "%d failures\n", n)
	}
	if res.Complete {
		fmt.Fprintf(w, "every schedule with at most %s was run\n", plural(res.Depth, "preemption"))
	}
	if len(res.Failures) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tfailure\tplace\tschedules\thits\tpreemptions\treplay")
	for k, f := range res.Failures {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d (found with %d)\t%s\n", k+1, tabless(f.Kind), tabless(f.Place), f.Schedule+1, f.Hits,
			f.Shrunk, f.Preemptions, tabless(f.Replay))
	}
	tw.Flush()
	for k, f := range res.Failures {
		fmt.Fprintf(w, "\nfailure %d: %s", k+1, printable(f.Kind))
		if f.Place != "" {
			fmt.Fprintf(w, " at %s", printable(f.Place))
		}
		fmt.Fprintln(w)
		if msg := strings.TrimRight(f.Message, "\n"); msg != "" {
			for _, l := range strings.Split(msg, "\n") {
				if l == "" {
					fmt.Fprintln(w)
				} else {
					fmt.Fprintf(w, "  %s\n", printable(l))
				}
			}
		}
		if f.Replay != "" {
			fmt.Fprintf(w, "  reproduce: nlangdbg replay %s\n", printable(f.Replay))
		}
	}
}

// exploreMerge is "explore merge DIR...".
func exploreMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("explore", stderr)
	asJSON := fs.Bool("json", false, "print the merged result as JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "nlangdbg explore merge: want the --out directories of the shards")
		return 1
	}
	var rs []*explore.Result
	for _, dir := range fs.Args() {
		r, err := explore.ReadResult(filepath.Join(dir, "result.json"))
		if err != nil {
			fmt.Fprintf(stderr, "nlangdbg explore merge: %v\n", err)
			return 1
		}
		rs = append(rs, r)
	}
	res, err := explore.Merge(rs)
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg explore merge: %v\n", err)
		return 1
	}
	if n := len(rs); n != res.Shards {
		fmt.Fprintf(stderr, "nlangdbg explore merge: warning: %d of %d shards\n", n, res.Shards)
	}
	if *asJSON {
		printJSON(stdout, res)
	} else {
		printSummary(stdout, res, len(rs))
	}
	if res.Failed() {
		return 3
	}
	return 0
}

// plural is "1 thing" or "N things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
