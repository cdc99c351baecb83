package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Peers that run as processes of their own: C Lua 5.4 (Debian's
// lua5.4), LuaJIT's interpreter (luajit -joff: the JIT compiler off),
// and nlangdbg itself as a user runs it (nlangdbg run PROG.n). Each run
// is a whole process, timed by the parent: wall time from start to exit,
// CPU time (user+system) from the kernel's accounting of the process.
// The Lua peers also report the CPU time of the program alone
// (os.clock around the loaded chunk: what an in-process measurement
// would see, without the interpreter's start and the compilation).
//
// A peer whose program is not installed is left out with a note.

// An external describes a peer that runs as a process.
type external struct {
	// bin is the program to run ("lua5.4", "luajit"), looked up in
	// PATH; for nlangdbg, empty: built from ../ once.
	bin string
	// args returns the arguments that run the program at path.
	args func(path string) []string
	ext  string // the programs' extension in programs/
	// path is the program found or built (setupExternals); empty if the
	// peer is missing.
	path string
	// baseRSS is the peak RSS of the peer running an empty program, the
	// base the parked-threads memory is measured from.
	baseRSS int64
}

// luaArgs runs the Lua program at path inside a wrapper that times the
// chunk with os.clock (compilation is left out, as for the in-process
// peers) and reports it on stderr.
func luaArgs(opts ...string) func(string) []string {
	return func(path string) []string {
		wrapper := fmt.Sprintf("local f = assert(loadfile(%q)); local c0 = os.clock(); f(); "+
			"io.stderr:write(string.format('bench-cpu-ms %%.3f\\n', (os.clock() - c0) * 1000))", path)
		return append(append([]string(nil), opts...), "-e", wrapper)
	}
}

// setupExternals finds or builds the external peers among is and
// writes their programs to dir; it returns the peers that can run and
// a note for each one that cannot.
func setupExternals(is []*impl, dir string) (ok []*impl, notes []string) {
	for _, im := range is {
		x := im.external
		if x == nil {
			ok = append(ok, im)
			continue
		}
		if x.bin == "" {
			bin := filepath.Join(dir, "nlangdbg")
			build := exec.Command("go", "build", "-o", bin, "./cmd/nlangdbg")
			build.Dir = ".."
			build.Stderr = os.Stderr
			if err := build.Run(); err != nil {
				notes = append(notes, fmt.Sprintf("%s: building nlangdbg: %v", im.title, err))
				continue
			}
			x.path = bin
		} else {
			p, err := exec.LookPath(x.bin)
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s left out: %s is not installed (apt-get install -y %s)", im.title, x.bin, debPackage(x.bin)))
				continue
			}
			x.path = p
		}
		empty := filepath.Join(dir, "empty"+x.ext)
		os.WriteFile(empty, []byte(emptyProgram(x.ext)), 0o644)
		if r, err := runProcess(x, empty, time.Minute); err == nil {
			x.baseRSS = r.maxRSS
		}
		ok = append(ok, im)
	}
	return ok, notes
}

func debPackage(bin string) string {
	if bin == "lua5.4" {
		return "lua5.4"
	}
	return bin
}

func emptyProgram(ext string) string {
	if ext == ".n" {
		return "int main() { return 0; }\n"
	}
	return "\n"
}

// programFile writes the program of workload w for x to dir (once) and
// returns its path.
func programFile(x *external, w *workload, dir string) (string, error) {
	name := w.name
	var src []byte
	var err error
	if w.scale {
		src, err = program("park" + x.ext)
		src = bytes.Replace(src, []byte("1000000"), []byte(strconv.Itoa(w.parked)), 1)
	} else {
		src, err = program(name + x.ext)
	}
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, name+x.ext)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	return p, os.WriteFile(p, src, 0o644)
}

// hasProgram reports whether programs/ holds a version of w for x.
func (x *external) hasProgram(w *workload) bool {
	name := w.name
	if w.scale {
		name = "park"
	}
	_, err := program(name + x.ext)
	return err == nil
}

// procResult is what the parent measures of one process.
type procResult struct {
	wall, cpu time.Duration
	maxRSS    int64 // bytes
	stdout    string
	timedCPU  float64 // ms, as the program reported it (Lua's wrapper); 0 if not
}

// runProcess runs x on the program at path.
func runProcess(x *external, path string, timeout time.Duration) (procResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var args []string
	if x.bin == "" {
		args = []string{"run", path}
	} else {
		args = x.args(path)
	}
	cmd := exec.CommandContext(ctx, x.path, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return procResult{}, fmt.Errorf("over the %v limit", timeout)
		}
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return procResult{}, fmt.Errorf("%v: %s", err, msg)
	}
	r := procResult{wall: wall, stdout: strings.TrimSpace(stdout.String())}
	procTimes(cmd.ProcessState, &r)
	for _, l := range strings.Split(stderr.String(), "\n") {
		if rest, ok := strings.CutPrefix(l, "bench-cpu-ms "); ok {
			r.timedCPU, _ = strconv.ParseFloat(strings.TrimSpace(rest), 64)
		}
	}
	return r, nil
}

// procTimes reads the CPU time and peak RSS of a process that ended.
func procTimes(ps *os.ProcessState, r *procResult) {
	r.cpu = ps.UserTime() + ps.SystemTime()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss << 10 // KiB on Linux
	}
}

// runExternal is one run of workload w in the external peer im.
func runExternal(im *impl, w *workload, dir string, timeout time.Duration) (result, error) {
	x := im.external
	path, err := programFile(x, w, dir)
	if err != nil {
		return result{}, err
	}
	pr, err := runProcess(x, path, timeout)
	if err != nil {
		return result{}, err
	}
	r := result{MS: ms(pr.wall), CPUMS: ms(pr.cpu), ProcMS: ms(pr.wall), ProcCPUMS: ms(pr.cpu),
		TimedCPUMS: pr.timedCPU, Out: pr.stdout}
	if w.parked > 0 && x.baseRSS > 0 {
		r.PeakRSS = float64(pr.maxRSS-x.baseRSS) / float64(w.parked)
	}
	return r, nil
}

// procTime is the whole process's time of a run: wall or CPU, as the
// tables show (-cpu).
func procTime(r result) float64 {
	if timeOf(result{MS: 1}) == 0 { // -cpu
		return r.ProcCPUMS
	}
	return r.ProcMS
}

// reportProcesses prints the whole processes' table: nlangdbg run and
// the process peers, and the in-process peers' children as whole
// processes (Go's), with nlangdbg's ratio to each; then the programs
// alone, as the Lua peers time them (os.clock), beside NLang's timed
// region.
func reportProcesses(out io.Writer, ws []*workload, procs []*impl, cells map[key]*cell) {
	if len(procs) == 0 {
		return
	}
	get := func(name string, w *workload) *cell { return cells[key{name, w.name}] }
	cols := append([]*impl(nil), procs...)
	for _, name := range []string{"go", "go1"} {
		if im := findImpl(name); im != nil {
			cols = append(cols, im)
		}
	}
	what := "wall"
	if timeOf(result{MS: 1}) == 0 {
		what = "CPU (user+system)"
	}
	fmt.Fprintf(out, "Whole processes, %s time, ms (in brackets: nlangdbg run's time as a ratio of each)\n\n", what)
	header(out, "workload", cols)
	for _, w := range ws {
		if w.scale {
			continue
		}
		base := get("nlangdbg", w).median(procTime)
		row := []string{w.title}
		any := false
		for _, im := range cols {
			t := get(im.name, w).median(procTime)
			if t == 0 {
				row = append(row, "")
				continue
			}
			any = true
			s := num(t)
			if base > 0 && im.name != "nlangdbg" {
				s += fmt.Sprintf(" (%s×)", ratio(base/t))
			}
			row = append(row, s)
		}
		if any {
			line(out, row)
		}
	}
	fmt.Fprintln(out)

	fmt.Fprintf(out, "The programs alone, CPU time, ms: NLang's timed region (as in the first table), the Lua peers' os.clock around the loaded chunk (in brackets: NLang's as a ratio)\n\n")
	var luas []*impl
	for _, im := range procs {
		if im.name == "clua" || im.name == "luajit" {
			luas = append(luas, im)
		}
	}
	header(out, "workload", append([]*impl{findImpl("nlang")}, luas...))
	for _, w := range ws {
		if w.scale {
			continue
		}
		nl := get("nlang", w).median(func(r result) float64 { return r.CPUMS })
		row := []string{w.title, num(nl)}
		any := false
		for _, im := range luas {
			t := get(im.name, w).median(func(r result) float64 { return r.TimedCPUMS })
			if t == 0 {
				row = append(row, "")
				continue
			}
			any = true
			s := num(t)
			if nl > 0 {
				s += fmt.Sprintf(" (%s×)", ratio(nl/t))
			}
			row = append(row, s)
		}
		if any {
			line(out, row)
		}
	}
	fmt.Fprintln(out)
}
