package main

import (
	"embed"
	"fmt"
	"io"
	"slices"
	"time"
)

// The NLang, Lua, JavaScript and Starlark versions of each workload.
//
//go:embed programs
var programs embed.FS

func program(name string) ([]byte, error) {
	return programs.ReadFile("programs/" + name)
}

// A workload is one row of the table.
type workload struct {
	name  string // for -only and file names: programs/NAME.n, .lua, .js, .star
	title string // row label
	// threads marks the two thread workloads: Starlark has no threads
	// (n/a), Go also runs with GOMAXPROCS 1, and ratios to Go are shown.
	threads bool
	// parked is the number of threads left parked when the program ends;
	// the child reports the bytes each one holds.
	parked int
	want   string // the program's output, checked after every run
	// scale marks the thread-count scaling rows (NLang and Go only):
	// the park workload with `parked` threads instead of a million.
	scale bool
}

var workloads = []*workload{
	{name: "fib", title: "fib(30)", want: "832040"},
	{name: "loop", title: "loop 30M", want: "449999985000000"},
	{name: "objects", title: "1M objects", want: "500000500000"},
	{name: "strings", title: "200k-piece string", want: "200000"},
	{name: "pingpong", title: "1M round trips", threads: true, want: "1000000"},
	{name: "park", title: "1M parked threads", threads: true, parked: 1_000_000, want: "spawned"},
	{name: "park10k", title: "10k parked threads", threads: true, parked: 10_000, want: "spawned", scale: true},
	{name: "park100k", title: "100k parked threads", threads: true, parked: 100_000, want: "spawned", scale: true},
	{name: "park2m", title: "2M parked threads", threads: true, parked: 2_000_000, want: "spawned", scale: true},
}

func findWorkload(name string) *workload {
	for _, w := range workloads {
		if w.name == name {
			return w
		}
	}
	return nil
}

// A runFunc is one timed run of a workload.
type runFunc func(out io.Writer) (keep any, err error)

// What a run keeps may count the threads it left parked.
type parkCounter interface{ Parked() int }

// An implementation runs workloads.
type impl struct {
	name  string // for -impl and the child flag
	title string // column label
	// prepare compiles (or otherwise sets up) workload w outside the timed
	// region and returns the run to time. run writes the program's output
	// to out and returns whatever must stay reachable for the heap of a
	// parked-threads workload to be measured (its VM, scheduler, ...).
	prepare func(w *workload) (run runFunc, err error)
	// env is added to the child's environment.
	env []string
	// only for thread workloads (Go with GOMAXPROCS 1) / not for them
	// (Starlark).
	threadsOnly, noThreads bool
	// only, if set, lists the only workloads it runs.
	only []string
	// external, if set, makes it a peer that runs as a process of its own
	// (external.go), timed by the parent as a whole process.
	external *external
}

var impls = []*impl{
	{name: "nlang", title: "NLang", prepare: prepareNLang},
	{name: "lua", title: "gopher-lua", prepare: prepareLua},
	{name: "goja", title: "goja", prepare: prepareGoja},
	{name: "starlark", title: "starlark-go", prepare: prepareStarlark, noThreads: true},
	{name: "go", title: "Go", prepare: prepareGo},
	{name: "go1", title: "Go (GOMAXPROCS 1)", prepare: prepareGo, env: []string{"GOMAXPROCS=1"}, threadsOnly: true},
	// Go's iter.Pull: a coroutine switch of the Go runtime, the floor a
	// user-space thread switch can aim at.
	{name: "gopull", title: "Go iter.Pull", prepare: prepareGoPull, only: []string{"pingpong"}},
	// Whole processes (external.go).
	{name: "nlangdbg", title: "nlangdbg run", external: &external{ext: ".n"}},
	{name: "clua", title: "C Lua 5.4", external: &external{bin: "lua5.4", args: luaArgs(), ext: ".lua"}},
	{name: "luajit", title: "LuaJIT -joff", external: &external{bin: "luajit", args: luaArgs("-joff"), ext: ".lua"}},
}

func findImpl(name string) *impl {
	for _, im := range impls {
		if im.name == name {
			return im
		}
	}
	return nil
}

func (im *impl) runs(w *workload) bool {
	if im.only != nil {
		return slices.Contains(im.only, w.name)
	}
	if x := im.external; x != nil {
		// the scaling rows are NLang's and Go's; whole processes run
		// the other workloads they have a program for
		return !w.scale && x.hasProgram(w)
	}
	if w.scale { // Go's 2M goroutines would take some 5 GB: not that one
		return im.name == "nlang" || im.name == "go" && w.parked <= 1_000_000
	}
	if w.threads {
		return !im.noThreads
	}
	return !im.threadsOnly
}

// A result is what a child reports for one run.
type result struct {
	MS        float64 `json:"ms"`                   // the timed run, wall clock
	CPUMS     float64 `json:"cpu_ms"`               // the process's CPU time (user+system, all threads) in the timed run
	PerThread float64 `json:"per_thread,omitempty"` // bytes per parked thread: (HeapAlloc+StackInuse) delta / count
	PeakRSS   float64 `json:"peak_rss,omitempty"`   // bytes of peak RSS per parked thread: (VmHWM after - VmRSS before) / count
	Parked    int     `json:"parked,omitempty"`     // threads the VM reports live, where it can tell
	Out       string  `json:"out"`                  // the program's output
	// Set by the parent: the whole process (the child, or the external
	// peer), wall and CPU (user+system) time; for the Lua peers, the CPU
	// time of the program alone (os.clock around the chunk).
	ProcMS     float64 `json:"-"`
	ProcCPUMS  float64 `json:"-"`
	TimedCPUMS float64 `json:"-"`
}

func (r result) String() string {
	s := fmt.Sprintf("%.1f ms (CPU %.1f ms)", r.MS, r.CPUMS)
	if r.PerThread != 0 {
		s += fmt.Sprintf(", %.0f B/thread, peak RSS %.0f B/thread", r.PerThread, r.PeakRSS)
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
