// Command bench runs the same workloads in NLang (nlangdbg's VM and
// scheduler), gopher-lua, goja, starlark-go and native Go, side by side in
// one run, and prints a table of medians and ratios and whether each of
// the targets is met:
//
//	cd bench && go run .                 # every workload, 5 runs each
//	go run . -n 9 -only fib,loop         # some workloads, more runs
//	go run . -impl nlang,lua             # some implementations
//	go run . -only debugger              # only the debugger's figures
//	go run . -run nlang/loop -cpuprofile loop.pprof   # one run, profiled
//
// Every run is a child process (this binary re-executed with -run), so
// that no two runs share a heap, and the runs are interleaved: round r
// runs every workload once in every implementation, in an order rotated
// each round, before round r+1 starts.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"
)

func main() {
	var (
		n          = flag.Int("n", 5, "runs of each workload in each implementation (the median is reported)")
		only       = flag.String("only", "", "comma-separated workloads to run (default all: fib,loop,objects,strings,pingpong,park)")
		implList   = flag.String("impl", "", "comma-separated implementations (default all: nlang,lua,goja,starlark,go,go1)")
		timeout    = flag.Duration("timeout", 3*time.Minute, "limit for one run")
		debugger   = flag.Bool("debugger", true, "also measure the debugger's hot paths over stdio (next, log points, conditions, threads); -only debugger measures only them")
		dbgBins    = flag.String("nlangdbg", "", "comma-separated nlangdbg binaries to take the debugger's figures of, in turn in each round (default: one built from ../)")
		budget     = flag.Duration("budget", 15*time.Second, "a peer's cell (workload × implementation) whose runs have taken this long in all is not run again: its median is of fewer runs (at least one)")
		profileDir = flag.String("profile", "", "write a CPU profile of every NLang run to DIR/WORKLOAD.pprof (the last run's stays)")
		verbose    = flag.Bool("v", false, "also print every run's time")
		useCPU     = flag.Bool("cpu", false, "tabulate the process's CPU time (user+system, all threads) in the timed run instead of the wall-clock time")
		runSpec    = flag.String("run", "", "run IMPL/WORKLOAD once in this process and print its result as JSON (what the children do)")
		cpuprofile = flag.String("cpuprofile", "", "with -run: write a CPU profile of the timed run(s) to FILE")
		repeat     = flag.Int("repeat", 1, "with -run: time this many runs in a row (for a longer profile) and report the last")
		pgo        = flag.String("pgo", "", "write a profile of NLang's workloads for profile-guided optimization to FILE (see README) and exit")
	)
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run . [-n N] [-only W,...] [-impl I,...] [-v]\n       go run . -run IMPL/WORKLOAD [-cpuprofile FILE]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *runSpec != "" {
		os.Exit(child(*runSpec, *cpuprofile, *repeat))
	}
	if *pgo != "" {
		if err := writePGO(*pgo); err != nil {
			fatal(err)
		}
		return
	}
	dbgOnly := *only == "debugger"
	if dbgOnly {
		*only, *debugger = "", true
	}
	ws, err := pick(*only, workloads, findWorkload)
	if err != nil {
		fatal(err)
	}
	is, err := pick(*implList, impls, findImpl)
	if err != nil {
		fatal(err)
	}
	if *n < 1 {
		fatal(fmt.Errorf("-n %d: need at least one run", *n))
	}
	if *useCPU {
		timeOf = func(r result) float64 { return r.CPUMS }
	}
	if *profileDir != "" {
		if err := os.MkdirAll(*profileDir, 0o755); err != nil {
			fatal(err)
		}
	}
	code := 0
	if !dbgOnly {
		code = parent(ws, is, *n, *timeout, *budget, *profileDir, *verbose)
	}
	if *debugger {
		fmt.Fprintln(os.Stderr, "debugger figures over stdio ...")
		var bins []string
		if *dbgBins != "" {
			bins = strings.Split(*dbgBins, ",")
		}
		rounds := min(*n, 3)
		if dbgOnly {
			rounds = *n
		}
		figs, err := measureDebugger(rounds, bins)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: debugger:", err)
			code = 1
		}
		for _, f := range figs {
			reportDebugger(os.Stdout, f, len(bins) > 0)
		}
	}
	os.Exit(code)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(2)
}

// pick returns the named elements of all (all of them for "").
func pick[T any](list string, all []T, find func(string) T) ([]T, error) {
	if list == "" {
		return all, nil
	}
	var out []T
	for _, name := range strings.Split(list, ",") {
		x := find(strings.TrimSpace(name))
		var zero T
		if any(x) == any(zero) {
			return nil, fmt.Errorf("unknown name %q", name)
		}
		out = append(out, x)
	}
	return out, nil
}

// child runs one workload in one implementation and prints the result.
func child(spec, cpuprofile string, repeat int) int {
	iname, wname, _ := strings.Cut(spec, "/")
	im, w := findImpl(iname), findWorkload(wname)
	if im == nil || w == nil {
		fmt.Fprintf(os.Stderr, "bench: -run %q: want IMPL/WORKLOAD\n", spec)
		return 2
	}
	if !im.runs(w) {
		fmt.Fprintf(os.Stderr, "bench: %s has no version of %s\n", im.title, w.name)
		return 2
	}
	r, err := measure(im, w, cpuprofile, repeat)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %s: %v\n", spec, err)
		return 1
	}
	json.NewEncoder(os.Stdout).Encode(r)
	return 0
}

// measure prepares w (untimed), then times one run. For a parked-threads
// workload it also reports the live heap plus goroutine stacks that the
// run added, after a collection, divided by the number of threads.
func measure(im *impl, w *workload, cpuprofile string, repeat int) (result, error) {
	run, err := im.prepare(w)
	if err != nil {
		return result{}, err
	}
	if repeat > 1 {
		// Earlier runs, for a profile (a run's own garbage is collected
		// before the next): only the last is reported.
		if cpuprofile != "" {
			f, err := os.Create(cpuprofile)
			if err != nil {
				return result{}, err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return result{}, err
			}
			defer pprof.StopCPUProfile()
			cpuprofile = ""
		}
		for i := 1; i < repeat; i++ {
			var buf bytes.Buffer
			keep, err := run(&buf)
			if err != nil {
				return result{}, err
			}
			runtime.KeepAlive(keep)
			keep = nil
			runtime.GC()
		}
	}
	var out bytes.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rss0 := procStatus("VmRSS")
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return result{}, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return result{}, err
		}
	}
	cpu0 := cpuTime()
	start := time.Now()
	keep, err := run(&out)
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	if cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return result{}, err
	}
	r := result{MS: ms(elapsed), CPUMS: ms(cpu), Out: strings.TrimSpace(out.String())}
	if w.parked > 0 {
		runtime.GC()
		runtime.ReadMemStats(&after)
		grown := int64(after.HeapAlloc+after.StackInuse) - int64(before.HeapAlloc+before.StackInuse)
		r.PerThread = float64(grown) / float64(w.parked)
		if hwm := procStatus("VmHWM"); hwm > 0 && rss0 > 0 {
			r.PeakRSS = float64(hwm-rss0) / float64(w.parked)
		}
		if c, ok := keep.(parkCounter); ok {
			r.Parked = c.Parked()
		}
	}
	runtime.KeepAlive(keep)
	return r, nil
}

// A cell is the runs of one workload in one implementation.
type cell struct {
	runs   []result
	spent  time.Duration // in timed runs
	failed string        // why a run failed, if one did
}

func (c *cell) median(f func(result) float64) float64 {
	if c == nil || len(c.runs) == 0 || c.failed != "" {
		return 0
	}
	xs := make([]float64, len(c.runs))
	for i, r := range c.runs {
		xs[i] = f(r)
	}
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

// timeOf is the time a table shows: wall-clock (default) or CPU (-cpu).
var timeOf = func(r result) float64 { return r.MS }

func (c *cell) ms() float64        { return c.median(timeOf) }
func (c *cell) perThread() float64 { return c.median(func(r result) float64 { return r.PerThread }) }
func (c *cell) peakRSS() float64   { return c.median(func(r result) float64 { return r.PeakRSS }) }

// procStatus reads a size field of /proc/self/status ("VmRSS",
// "VmHWM") in bytes; 0 where there is none (not Linux).
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}

type key struct{ impl, workload string }

func parent(ws []*workload, is []*impl, n int, timeout, budget time.Duration, profileDir string, verbose bool) int {
	exe, err := os.Executable()
	if err != nil {
		fatal(err)
	}
	dir, err := os.MkdirTemp("", "nlangdbg-bench-peers")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(dir)
	is, notes := setupExternals(is, dir)
	for _, n := range notes {
		fmt.Fprintln(os.Stderr, "bench:", n)
	}
	cells := map[key]*cell{}
	began := time.Now()
	loadBefore := loadavg()
	for round := 0; round < n; round++ {
		for _, w := range ws {
			var order []*impl
			for _, im := range is {
				if im.runs(w) {
					order = append(order, im)
				}
			}
			if len(order) == 0 {
				continue
			}
			// Rotate, so that no implementation always runs right after
			// the same one.
			k := round % len(order)
			order = append(order[k:], order[:k]...)
			for _, im := range order {
				c := cells[key{im.name, w.name}]
				if c == nil {
					c = &cell{}
					cells[key{im.name, w.name}] = c
				}
				// NLang's cells, which the targets are about, always get
				// all their runs.
				if c.failed != "" || (c.spent >= budget && im.name != "nlang") {
					continue
				}
				prof := ""
				if profileDir != "" && im.name == "nlang" {
					prof = profileDir + "/" + w.name + ".pprof"
				}
				var r result
				var err error
				if im.external != nil {
					r, err = runExternal(im, w, dir, timeout)
				} else {
					r, err = runChild(exe, im, w, timeout, prof)
				}
				if err == nil && r.Out != w.want {
					err = fmt.Errorf("printed %q, want %q", r.Out, w.want)
				}
				if err == nil && w.parked > 0 && r.Parked != 0 && r.Parked < w.parked {
					err = fmt.Errorf("%d threads parked, want %d", r.Parked, w.parked)
				}
				if err != nil {
					c.failed = err.Error()
					fmt.Fprintf(os.Stderr, "[%d/%d] %-8s %-9s FAILED: %v\n", round+1, n, w.name, im.name, err)
					continue
				}
				c.runs = append(c.runs, r)
				c.spent += time.Duration(r.MS * float64(time.Millisecond))
				fmt.Fprintf(os.Stderr, "[%d/%d] %-8s %-9s %s\n", round+1, n, w.name, im.name, r)
			}
		}
	}
	took := time.Since(began)
	fmt.Fprintf(os.Stderr, "%d rounds in %.0f s\n\n", n, took.Seconds())
	fmt.Fprintf(os.Stdout, "%d rounds in %.0f s; load average before %s, after %s\n",
		n, took.Seconds(), loadBefore, loadavg())
	for _, n := range notes {
		fmt.Fprintf(os.Stdout, "\n%s\n", n)
	}
	return report(os.Stdout, ws, is, cells, n, verbose)
}

func runChild(exe string, im *impl, w *workload, timeout time.Duration, prof string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := []string{"-run", im.name + "/" + w.name}
	if prof != "" {
		args = append(args, "-cpuprofile", prof)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), im.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return result{}, fmt.Errorf("over the %v limit", timeout)
		}
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return result{}, fmt.Errorf("%v: %s", err, msg)
	}
	var r result
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return result{}, fmt.Errorf("bad child output %q: %v", stdout.String(), err)
	}
	var pr procResult
	procTimes(cmd.ProcessState, &pr)
	r.ProcMS, r.ProcCPUMS = ms(wall), ms(pr.cpu)
	return r, nil
}

// report prints the tables (Markdown) and the targets; it returns 1 if a
// run failed.
func report(out io.Writer, ws []*workload, all []*impl, cells map[key]*cell, n int, verbose bool) int {
	// The in-process peers' tables first; the whole processes after.
	var is, procs []*impl
	for _, im := range all {
		if im.external != nil {
			procs = append(procs, im)
		} else {
			is = append(is, im)
		}
	}
	get := func(name string, w *workload) *cell { return cells[key{name, w.name}] }
	has := func(name string) bool {
		return slices.ContainsFunc(all, func(im *impl) bool { return im.name == name })
	}
	fmt.Fprintf(out, "%s, %s %s/%s, %d CPUs (%s), medians of %d runs\n\n",
		time.Now().Format("2006-01-02 15:04 MST"), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuModel(), n)

	// Times.
	what := "Time"
	if timeOf(result{MS: 1}) == 0 {
		what = "CPU time (user+system, all threads of the process)"
	}
	fmt.Fprintf(out, "%s, ms (in brackets: the ratio to gopher-lua)\n", what)
	fmt.Fprintln(out)
	header(out, "workload", is)
	failed, short := 0, false
	for _, w := range ws {
		row := []string{w.title}
		base := get("lua", w).ms()
		for _, im := range is {
			c := get(im.name, w)
			switch {
			case !im.runs(w):
				row = append(row, map[bool]string{true: "n/a", false: "—"}[im.noThreads])
			case c == nil:
				row = append(row, "")
			case c.failed != "":
				row = append(row, "failed")
				failed++
			default:
				s := num(c.ms())
				if base > 0 && im.name != "lua" {
					s += fmt.Sprintf(" (%s×)", ratio(c.ms()/base))
				}
				if len(c.runs) < n {
					s += fmt.Sprintf(" [%d]", len(c.runs))
					short = true
				}
				row = append(row, s)
			}
		}
		line(out, row)
	}
	fmt.Fprintln(out)
	if short {
		fmt.Fprintf(out, "[k]: the median of k runs, not %d: the cell's runs reached the -budget.\n\n", n)
	}

	// Thread workloads against Go.
	var tws []*workload
	for _, w := range ws {
		if w.threads {
			tws = append(tws, w)
		}
	}
	if len(tws) > 0 && (has("go") || has("go1")) {
		fmt.Fprintln(out, "Thread workloads: time as a ratio to Go's (GOMAXPROCS default / 1)")
		fmt.Fprintln(out)
		var peers []*impl
		for _, im := range is {
			if !im.noThreads && im.name != "go" && im.name != "go1" {
				peers = append(peers, im)
			}
		}
		header(out, "workload", peers)
		for _, w := range tws {
			row := []string{w.title}
			g, g1 := get("go", w).ms(), get("go1", w).ms()
			for _, im := range peers {
				t := get(im.name, w).ms()
				if t == 0 {
					row = append(row, "")
					continue
				}
				row = append(row, ratioOf(t, g)+" / "+ratioOf(t, g1))
			}
			line(out, row)
		}
		fmt.Fprintln(out)
	}

	// Parked threads, and how the cost of one scales with their number.
	var parks []*workload
	for _, w := range ws {
		if w.parked > 0 {
			parks = append(parks, w)
		}
	}
	if len(parks) > 0 {
		fmt.Fprintf(out, "Parked threads: bytes per thread (live heap + goroutine stacks after GC; peak RSS), spawn time per thread\n\n")
		line(out, []string{"threads", "impl", "B/thread", "peak RSS B/thread", "spawn ms", "ns/thread"})
		line(out, []string{"---", "---", "---:", "---:", "---:", "---:"})
		for _, w := range parks {
			for _, im := range all {
				c := get(im.name, w)
				if !im.runs(w) || c == nil || c.ms() == 0 {
					continue
				}
				heap := "—" // a process peer's heap is not measured, only its peak RSS
				if c.perThread() != 0 {
					heap = fmt.Sprintf("%.0f", c.perThread())
				}
				title := im.title
				if im.external != nil {
					title += " (whole process)"
				}
				line(out, []string{w.title, title, heap, fmt.Sprintf("%.0f", c.peakRSS()),
					num(c.ms()), fmt.Sprintf("%.0f", c.ms()*1e6/float64(w.parked))})
			}
		}
		fmt.Fprintln(out)
	}

	reportProcesses(out, ws, procs, cells)

	if verbose {
		fmt.Fprintln(out, "Every run in order, ms: wall/CPU (whole processes for the process peers)")
		fmt.Fprintln(out)
		for _, w := range ws {
			for _, im := range all {
				c := get(im.name, w)
				if c == nil || len(c.runs) == 0 {
					continue
				}
				var xs []string
				for _, r := range c.runs {
					xs = append(xs, num(r.MS)+"/"+num(r.CPUMS))
				}
				fmt.Fprintf(out, "    %-8s %-9s %s\n", w.name, im.name, strings.Join(xs, " "))
			}
		}
		fmt.Fprintln(out)
	}

	// Targets.
	fmt.Fprintln(out, "Targets")
	fmt.Fprintln(out)
	nl := func(w string) *cell { return cells[key{"nlang", w}] }
	lua := func(w string) *cell { return cells[key{"lua", w}] }
	judged := 0
	target := func(what string, got, limit float64, unit string) {
		if got == 0 || limit == 0 {
			return
		}
		judged++
		verdict := "met"
		if got > limit {
			verdict = fmt.Sprintf("MISSED by %s×", ratio(got/limit))
		} else {
			verdict = fmt.Sprintf("met (%s× the limit)", ratio(got/limit))
		}
		fmt.Fprintf(out, "- %s: %s%s (limit %s%s): %s\n", what, num(got), unit, num(limit), unit, verdict)
	}
	proc := func(name, w string) float64 { return cells[key{name, w}].median(procTime) }
	alone := func(name, w string) float64 {
		return cells[key{name, w}].median(func(r result) float64 { return r.TimedCPUMS })
	}
	nlCPU := func(w string) float64 { return nl(w).median(func(r result) float64 { return r.CPUMS }) }
	if has("nlangdbg") && has("clua") {
		target("fib(30) ≤ 1.0× C Lua 5.4, whole processes", proc("nlangdbg", "fib"), proc("clua", "fib"), " ms")
		target("loop ≤ 0.6× C Lua 5.4, whole processes", proc("nlangdbg", "loop"), 0.6*proc("clua", "loop"), " ms")
	}
	if has("nlang") && has("clua") {
		target("fib(30) ≤ 1.0× C Lua 5.4, the program alone (CPU)", nlCPU("fib"), alone("clua", "fib"), " ms")
		target("loop ≤ 0.6× C Lua 5.4, the program alone (CPU)", nlCPU("loop"), 0.6*alone("clua", "loop"), " ms")
	}
	if has("nlang") {
		if has("lua") {
			target("fib(30) ≤ 0.35× gopher-lua (not slower than before)", nl("fib").ms(), 0.35*lua("fib").ms(), " ms")
			target("loop ≤ 0.2× gopher-lua (not slower than before)", nl("loop").ms(), 0.2*lua("loop").ms(), " ms")
			target("round trip ≤ 0.5× gopher-lua's resume/yield", nl("pingpong").ms(), 0.5*lua("pingpong").ms(), " ns")
		}
		target("round trip ≤ 0.35× Go's goroutine ping-pong, GOMAXPROCS 1, in the benchmark", nl("pingpong").ms(), 0.35*cells[key{"go1", "pingpong"}].ms(), " ns")
		if has("nlangdbg") {
			target("round trip ≤ 0.35× Go's goroutine ping-pong, GOMAXPROCS 1, whole processes", proc("nlangdbg", "pingpong"), 0.35*proc("go1", "pingpong"), " ns")
		}
		if p := cells[key{"gopull", "pingpong"}].ms(); p > 0 && nl("pingpong").ms() > 0 {
			fmt.Fprintf(out, "- round trip vs Go's iter.Pull (two coroutine switches, the floor): %s ns vs %s ns, %s×\n",
				num(nl("pingpong").ms()), num(p), ratio(nl("pingpong").ms()/p))
		}
		target("1M spawned and parked ≤ 0.25× Go's 1M parked goroutines", nl("park").ms(), 0.25*cells[key{"go", "park"}].ms(), " ms")
		target("parked thread ≤ 450 B (peak RSS)", nl("park").peakRSS(), 450, " B")
		if a, b := cells[key{"nlang", "park10k"}], cells[key{"nlang", "park2m"}]; a.ms() > 0 && b.ms() > 0 {
			fmt.Fprintf(out, "- scaling 10k -> 2M threads (flat: the same time per thread): %s -> %s ns per thread (%s×), %.0f -> %.0f B per thread\n",
				num(a.ms()*1e6/10_000), num(b.ms()*1e6/2_000_000), ratio(b.ms()/2_000_000/(a.ms()/10_000)), a.perThread(), b.perThread())
		}
	}
	if judged == 0 {
		fmt.Fprintln(out, "(none can be judged from these workloads and implementations)")
	}
	if failed > 0 {
		fmt.Fprintf(out, "\n%d cells failed (see the log above)\n", failed)
		return 1
	}
	return 0
}

func header(out io.Writer, first string, is []*impl) {
	row := []string{first}
	for _, im := range is {
		row = append(row, im.title)
	}
	line(out, row)
	seps := make([]string, len(row))
	for i := range seps {
		seps[i] = "---"
		if i > 0 {
			seps[i] = "---:"
		}
	}
	line(out, seps)
}

func line(out io.Writer, cols []string) {
	fmt.Fprintf(out, "| %s |\n", strings.Join(cols, " | "))
}

// num formats a time or size with three significant digits or so.
func num(x float64) string {
	switch {
	case x == 0:
		return ""
	case x < 10:
		return fmt.Sprintf("%.2f", x)
	case x < 100:
		return fmt.Sprintf("%.1f", x)
	default:
		return fmt.Sprintf("%.0f", x)
	}
}

func ratio(x float64) string {
	switch {
	case x < 0.1:
		return fmt.Sprintf("%.3f", x)
	case x < 10:
		return fmt.Sprintf("%.2f", x)
	default:
		return fmt.Sprintf("%.1f", x)
	}
}

func ratioOf(t, base float64) string {
	if base == 0 {
		return "—"
	}
	return ratio(t/base) + "×"
}

// loadavg returns the 1-minute load average (other work on the machine
// makes the numbers noisier).
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
