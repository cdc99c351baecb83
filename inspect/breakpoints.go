package inspect

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
)

// bp is a line or function breakpoint as placed in the code.
type bp struct {
	id       int
	file     string
	req      int    // line asked for (line breakpoints)
	name     string // function asked for (function breakpoints)
	line     int    // actual line
	fn       *vm.Funcode
	pc       int32
	also     []int32 // other pcs of the same statement (a rotated loop's two tests)
	verified bool
	message  string
	isFunc   bool
	isInstr  bool // an instruction breakpoint (name: its address)
	cond     string
	hitCond  string
	logMsg   string
	hitTest  func(int) bool
	conds    map[trapKey]*compiled // the condition, compiled for each pc
	logParts []logPart             // the log message, compiled for each pc
	mode     string                // ModeAll, ModeThread or "" (the session's)
}

// same reports whether b was asked for with exactly these settings.
func (b *bp) same(cond, hitCond, logMsg string) bool {
	return b.cond == cond && b.hitCond == hitCond && b.logMsg == logMsg
}

// reuse finds the breakpoint of old that a new request (key: its line or
// function name) stands for: one asked for identically, else one at the
// same place. A request that keeps a breakpoint keeps its id, its hit
// count and its ignore count (clients send the whole list of a file on
// every change). used marks the breakpoints already taken.
func reuse(old []*bp, used map[*bp]bool, match func(*bp) bool, cond, hitCond, logMsg string) *bp {
	for _, pass := range []bool{true, false} {
		for _, o := range old {
			if !used[o] && match(o) && (!pass || o.same(cond, hitCond, logMsg)) {
				used[o] = true
				return o
			}
		}
	}
	return nil
}

// breakpoints is the session's breakpoint table. Guarded by Session.mu.
type breakpoints struct {
	s      *Session
	byFile map[string][]*bp
	funcs  []*bp
	instrs []*bp // instruction breakpoints (instrbp.go)
	at     map[trapKey][]*bp
	nextID int
	// ignores are the hits, by number, that ignore counts let go on, by
	// breakpoint id (the user's instructions, which every execution of
	// the timeline follows).
	ignores map[int][]hitRange
}

func newBreakpoints(s *Session) *breakpoints {
	return &breakpoints{s: s, byFile: map[string][]*bp{}, at: map[trapKey][]*bp{}, ignores: map[int][]hitRange{}}
}

// canonPath makes file names comparable.
func canonPath(p string) string {
	if p == "" || strings.HasPrefix(p, "<") {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return filepath.Clean(p)
}

// withWorldStopped runs f while no dispatch runs (patching code needs
// it), then restores the run state. f runs with s.mu held.
func (s *Session) withWorldStopped(f func()) {
	s.mu.Lock()
	running := s.r.state == stateRunning
	sch := s.r.sch
	s.mu.Unlock()
	g := func() {
		s.mu.Lock()
		free := s.standingLocked()
		f()
		for _, st := range free {
			if s.traps[st.k] > 0 {
				st.t.SkipTrapOnce(st.k.fn, st.k.pc)
			}
		}
		s.mu.Unlock()
	}
	if !running {
		g()
		return
	}
	sch.Between(g) // (the dispatch under way ends first)
}

// standing is where a stopped thread stands: its next instruction.
type standing struct {
	t *vm.Thread
	k trapKey
}

// standingLocked returns where the threads stopped by the debugger stand
// (the thread an all-stop stop is about, the threads held alone in
// non-stop mode) when no trap is there yet. A breakpoint set there while
// a thread stands there is one it has reached already: as in gdb and
// lldb, resuming does not stop it at once where it stopped; the
// breakpoint takes effect the next time the thread gets there
// (withWorldStopped). Must hold s.mu.
func (s *Session) standingLocked() []standing {
	var ts []*vm.Thread
	if s.r.state == stateStopped && s.r.stopped != nil {
		ts = append(ts, s.r.stopped)
	}
	for t := range s.r.held {
		if t != s.r.stopped {
			ts = append(ts, t)
		}
	}
	var out []standing
	for _, t := range ts {
		if t.InNative() || t.Depth() == 0 {
			continue
		}
		fr := t.Frame(0)
		if k := (trapKey{fr.Fn, fr.PC}); s.traps[k] == 0 {
			out = append(out, standing{t, k})
		}
	}
	return out
}

// setTrapLocked adds a reference to a patched pc. Must hold s.mu with the
// world stopped.
func (s *Session) setTrapLocked(k trapKey) {
	s.hush() // (a catch-up runs the code: catchup.go)
	if s.traps[k] == 0 {
		k.fn.SetTrap(k.pc)
	}
	s.traps[k]++
}

func (s *Session) clearTrapLocked(k trapKey) {
	s.hush()
	if s.traps[k] <= 1 {
		delete(s.traps, k)
		k.fn.ClearTrap(k.pc)
		return
	}
	s.traps[k]--
}

// stmtPCs returns fn's statement boundaries with their lines, by pc.
func stmtPCs(fn *vm.Funcode) []vm.LineEntry {
	var out []vm.LineEntry
	for _, e := range fn.Lines {
		if e.Stmt {
			out = append(out, e)
		}
	}
	return out
}

// locate finds where a breakpoint requested at line of file goes: the
// first statement boundary on the first line >= line that has code.
func (s *Session) locate(file string, line int) (*vm.Funcode, int32, int, bool) {
	var bestFn *vm.Funcode
	var bestPC int32
	bestLine := 0
	canon := map[string]string{} // (functions share a few files)
	for _, fn := range s.prog.Funcs {
		c, ok := canon[fn.File]
		if !ok {
			c = canonPath(fn.File)
			canon[fn.File] = c
		}
		if c != file {
			continue
		}
		for _, e := range fn.Lines {
			l := int(e.Line)
			if !e.Stmt || l < line {
				continue
			}
			if bestFn == nil || l < bestLine || (l == bestLine && fn == bestFn && e.PC < bestPC) {
				bestFn, bestPC, bestLine = fn, e.PC, l
			}
		}
	}
	return bestFn, bestPC, bestLine, bestFn != nil
}

// parseHitCondition turns "5", "==5", ">=5", ">5", "<5", "<=5", "%5" into
// a test of the hit count.
func parseHitCondition(s string) (func(int) bool, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	ops := []string{">=", "<=", "==", ">", "<", "%", "="}
	op := "=="
	for _, o := range ops {
		if strings.HasPrefix(s, o) {
			op, s = o, strings.TrimSpace(s[len(o):])
			break
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || (op == "%" && n == 0) {
		return nil, fmt.Errorf("invalid hit condition %q (want N, ==N, >=N, >N, <N, <=N or %%N)", s)
	}
	switch op {
	case ">=":
		return func(h int) bool { return h >= n }, nil
	case "<=":
		return func(h int) bool { return h <= n }, nil
	case ">":
		return func(h int) bool { return h > n }, nil
	case "<":
		return func(h int) bool { return h < n }, nil
	case "%":
		return func(h int) bool { return h%n == 0 }, nil
	}
	return func(h int) bool { return h == n }, nil
}

// info describes b, with its counts in run r. Must hold s.mu.
func (b *bp) info(r *run) Breakpoint {
	hits := r.count(b).hits
	return Breakpoint{ID: b.id, Verified: b.verified, File: b.file, Line: b.line, Message: b.message,
		Hits: hits, Ignore: r.s.bps.ignoring(b.id, hits), Address: b.instrAddress(), Mode: b.mode}
}

// keep gives a new breakpoint the identity of the one it replaces, and
// its counts in the session's run. Must hold s.mu.
func (t *breakpoints) keep(b, old *bp) {
	if old == nil {
		t.nextID++
		b.id = t.nextID
		return
	}
	b.id = old.id
	if c, ok := t.s.r.counts[old]; ok {
		t.s.r.counts[b] = c
	}
}

// bpCount is a breakpoint's count in one execution (a run): the hits so
// far where its condition held (or failed to evaluate).
type bpCount struct {
	hits int
}

// count returns b's count in r (made on first use). Must hold s.mu.
func (r *run) count(b *bp) *bpCount {
	c := r.counts[b]
	if c == nil {
		c = &bpCount{}
		r.counts[b] = c
	}
	return c
}

// hitRange is the hits of a breakpoint, by number, an ignore count lets
// go on: from, from+1, …, to.
type hitRange struct{ from, to int }

// ignored reports whether hit number n of breakpoint id goes on without
// stopping (IgnoreBreakpoint). Must hold s.mu.
func (t *breakpoints) ignored(id, n int) bool {
	for _, r := range t.ignores[id] {
		if n >= r.from && n <= r.to {
			return true
		}
	}
	return false
}

// ignoring returns how many of the hits after number n of breakpoint id
// will go on without stopping. Must hold s.mu.
func (t *breakpoints) ignoring(id, n int) int {
	k := 0
	for _, r := range t.ignores[id] {
		if r.to > n {
			k += r.to - max(n, r.from-1)
		}
	}
	return k
}

// decide is the breakpoint rule, the one the session's run and every
// re-execution of the past apply, so that a stop found going back is a
// stop the run made going forward. A hit of b at which its condition
// held, or failed to evaluate (condErr), counts (in c, the execution's);
// a condition that failed stops (the session says why); a hit an ignore
// count covers (by its number, so that a re-execution ignores the same
// hits) goes on; otherwise the hit condition decides, and a logpoint
// that would stop prints its message (logIt) instead. Must hold s.mu.
func (t *breakpoints) decide(b *bp, c *bpCount, held bool, condErr error) (stop, logIt bool) {
	if condErr == nil && !held {
		return false, false
	}
	c.hits++
	if condErr != nil {
		return true, false
	}
	if t.ignored(b.id, c.hits) {
		return false, false
	}
	if b.hitTest != nil && !b.hitTest(c.hits) {
		return false, false
	}
	if b.logMsg != "" {
		return false, true
	}
	return true, false
}

// SetBreakpoints replaces the line breakpoints of file. A breakpoint
// asked for again (same line) keeps its id and hit count. A condition or
// log message that does not compile leaves the breakpoint unverified,
// with the compiler's message.
func (s *Session) SetBreakpoints(file string, specs []BreakpointSpec) []Breakpoint {
	defer s.quiet()() // (catchup.go)
	file = canonPath(file)
	var out []Breakpoint
	s.withWorldStopped(func() {
		t := s.bps
		old := t.byFile[file]
		for _, o := range old {
			t.remove(o)
		}
		used := map[*bp]bool{}
		var list []*bp
		for _, sp := range specs {
			b := &bp{file: file, req: sp.Line, line: sp.Line, cond: strings.TrimSpace(sp.Condition), hitCond: sp.HitCondition, logMsg: sp.LogMessage, mode: sp.Mode}
			t.keep(b, reuse(old, used, func(o *bp) bool { return o.req == sp.Line }, b.cond, b.hitCond, b.logMsg))
			fn, pc, line, ok := s.locate(file, sp.Line)
			hit, err := parseHitCondition(sp.HitCondition)
			switch {
			case err != nil:
				b.message = err.Error()
			case checkMode(sp.Mode) != nil:
				b.message = checkMode(sp.Mode).Error()
			case sp.Line < 1:
				b.message = fmt.Sprintf("line %d: lines start at 1", sp.Line)
			case !ok:
				b.message = fmt.Sprintf("no code at or after line %d of %s", sp.Line, filepath.Base(file))
			default:
				b.fn, b.pc, b.line, b.hitTest = fn, pc, line, hit
				b.also = samePosition(fn, pc)
				if err := s.prepare(b); err != nil {
					b.message = err.Error()
					break
				}
				b.verified = true
				if line != sp.Line {
					// as a client shows it: the breakpoint sits on the
					// next line with code
					b.message = fmt.Sprintf("line %d has no code: moved to line %d", sp.Line, line)
				}
				t.add(b)
			}
			list = append(list, b)
			out = append(out, b.info(s.r))
		}
		t.byFile[file] = list
	})
	return out
}

// SetFunctionBreakpoints replaces the function breakpoints. A
// breakpoint asked for again (same function) keeps its id and hit count.
func (s *Session) SetFunctionBreakpoints(specs []FunctionBreakpointSpec) []Breakpoint {
	defer s.quiet()() // (catchup.go)
	var out []Breakpoint
	s.withWorldStopped(func() {
		t := s.bps
		var old []*bp
		seen := map[int]bool{}
		for _, o := range t.funcs {
			t.remove(o)
			if !seen[o.id] { // overloads share the first one's identity
				seen[o.id] = true
				old = append(old, o)
			}
		}
		t.funcs = nil
		used := map[*bp]bool{}
		for _, sp := range specs {
			name := strings.TrimSpace(sp.Name)
			b := &bp{isFunc: true, name: name, cond: strings.TrimSpace(sp.Condition), hitCond: sp.HitCondition, mode: sp.Mode}
			t.keep(b, reuse(old, used, func(o *bp) bool { return o.name == name }, b.cond, b.hitCond, ""))
			hit, err := parseHitCondition(sp.HitCondition)
			var fns []*vm.Funcode
			for _, fn := range s.prog.Funcs {
				if fn.Name == name && !strings.HasPrefix(fn.File, "<") {
					fns = append(fns, fn)
				}
			}
			switch {
			case err != nil:
				b.message = err.Error()
			case checkMode(sp.Mode) != nil:
				b.message = checkMode(sp.Mode).Error()
			case len(fns) == 0:
				b.message = fmt.Sprintf("no function %s (write func or Class.method)", name)
			default:
				// every overload gets the same breakpoint id (and the
				// first one's hit count)
				var placed []*bp
				for _, fn := range fns {
					pcs := stmtPCs(fn)
					if len(pcs) == 0 {
						continue
					}
					c := b
					if len(placed) > 0 {
						cc := *b
						cc.conds, cc.logParts = nil, nil
						c = &cc
					}
					c.fn, c.pc, c.line, c.file, c.hitTest = fn, pcs[0].PC, int(pcs[0].Line), canonPath(fn.File), hit
					if err := s.prepare(c); err != nil {
						b.message = err.Error()
						placed = nil
						break
					}
					placed = append(placed, c)
				}
				if len(placed) == 0 && b.message == "" {
					b.message = fmt.Sprintf("function %s has no code", name)
				}
				for _, c := range placed {
					c.verified = true
					t.add(c)
					t.funcs = append(t.funcs, c)
				}
				if len(placed) == 0 {
					b.fn = nil
				}
			}
			if !b.verified {
				t.funcs = append(t.funcs, b)
			}
			out = append(out, b.info(s.r))
		}
	})
	return out
}

// SetExceptionBreakpoints selects stops on uncaught and on all thrown
// exceptions.
func (s *Session) SetExceptionBreakpoints(uncaught, all bool) {
	defer s.quiet()() // (catchup.go)
	s.mu.Lock()
	s.excUnc, s.excAll, s.excRules = uncaught, all, nil
	s.mu.Unlock()
}

// Breakpoints returns every breakpoint, line breakpoints by file and line
// first, then function breakpoints, then instruction breakpoints.
func (s *Session) Breakpoints() []Breakpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Breakpoint
	var files []string
	for f := range s.bps.byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		for _, b := range s.bps.byFile[f] {
			out = append(out, b.info(s.r))
		}
	}
	seen := map[int]bool{}
	for _, b := range s.bps.funcs {
		if !seen[b.id] {
			seen[b.id] = true
			out = append(out, b.info(s.r))
		}
	}
	for _, b := range s.bps.instrs {
		out = append(out, b.info(s.r))
	}
	return out
}

// samePosition returns the other statement starts of fn at the same
// line and column as pc (the entry and bottom tests of a rotated loop).
func samePosition(fn *vm.Funcode, pc int32) []int32 {
	var at vm.LineEntry
	for _, e := range fn.Lines {
		if e.PC == pc {
			at = e
		}
	}
	var out []int32
	for _, e := range fn.Lines {
		if e.Stmt && e.PC != pc && e.Line == at.Line && e.Col == at.Col {
			out = append(out, e.PC)
		}
	}
	return out
}

// add places b. Must hold s.mu with the world stopped.
func (t *breakpoints) add(b *bp) {
	for _, pc := range append([]int32{b.pc}, b.also...) {
		k := trapKey{b.fn, pc}
		t.at[k] = append(t.at[k], b)
		t.s.setTrapLocked(k)
	}
}

// remove takes b out. Must hold s.mu with the world stopped.
func (t *breakpoints) remove(b *bp) {
	if !b.verified || b.fn == nil {
		return
	}
	for _, pc := range append([]int32{b.pc}, b.also...) {
		k := trapKey{b.fn, pc}
		list := t.at[k]
		for i, x := range list {
			if x == b {
				t.at[k] = append(list[:i:i], list[i+1:]...)
				t.s.clearTrapLocked(k)
				break
			}
		}
		if len(t.at[k]) == 0 {
			delete(t.at, k)
		}
	}
}

// IgnoreBreakpoint makes breakpoint id go on, without stopping, through
// its next count hits (gdb's ignore; 0 cancels). The hits are numbered,
// so that going back and forward again ignores the same ones.
func (s *Session) IgnoreBreakpoint(id, count int) error {
	defer s.quiet()() // (catchup.go)
	if count < 0 {
		return fmt.Errorf("ignore: the count must be 0 or more, not %d", count)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var b *bp
	for _, list := range s.bps.byFile {
		for _, x := range list {
			if x.id == id {
				b = x
			}
		}
	}
	for _, x := range s.bps.funcs {
		if x.id == id {
			b = x
		}
	}
	if b == nil {
		return fmt.Errorf("no breakpoint %d", id)
	}
	n := s.r.count(b).hits
	var kept []hitRange // the ranges of hits already made stay
	for _, r := range s.bps.ignores[id] {
		if r.from <= n {
			kept = append(kept, hitRange{r.from, min(r.to, n)})
		}
	}
	if count > 0 {
		kept = append(kept, hitRange{n + 1, n + count})
	}
	s.bps.ignores[id] = kept
	return nil
}
