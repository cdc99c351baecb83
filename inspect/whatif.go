package inspect

// "What if": would the edited code have done what the recorded run did?
// WhatIf compiles the program's files as they are now and re-executes the
// recorded run twice from the same checkpoint — the latest before the
// present (or before the reload, right after one) — once with the
// recorded program, once with the new code (the checkpoint relinked to
// it as a reload would), both fed the recording's inputs, and compares
// what each did: its output (an uncaught exception's report included),
// how it ended, and, with a line and an expression, the value of the
// expression each time a thread reached the line. The first difference
// is the report. The new code may change the schedule (it runs more or
// fewer reductions); it is then scheduled as the session's runs are, and
// run about as far as the recorded run went. Nothing of the session
// changes.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// WhatIfOptions configure WhatIf.
type WhatIfOptions struct {
	// File, Line and Expr: compare the values of Expr each time a thread
	// reaches Line of File (a line of the files as they are now).
	File string
	Line int
	Expr string
	// Sources gives texts to compile instead of the files on disk.
	Sources map[string][]byte
}

// WhatIfResult reports a what-if re-execution (see the api's WhatIfBody).
type WhatIfResult struct {
	From          string
	Diverged      bool
	What          string // "output", "exception", "value", "end"
	Recorded, New string
	Thread        int64
	Func          string
	Line          int
	Hit, Hits     int
	Text          string
}

// whatIfSlack bounds the new code's run: as many dispatches as the
// recorded run made, times this, plus whatIfExtra.
const (
	whatIfSlack = 4
	whatIfExtra = 1000
	// whatIfTimeout bounds a pass in time (a runaway loop of the new
	// code that never ends a quantum the same way).
	whatIfTimeout = 30 * time.Second
)

// probeHit is a value of the probe's expression at a hit of its line.
type probeHit struct {
	thread int64
	fn     string
	line   int
	value  string
}

// passResult is what one what-if pass did.
type passResult struct {
	out        strings.Builder
	hits       []probeHit
	dispatches int
	ended      bool // the program ended
	code       int
	schedule   string // the recorded schedule's first difference ("" if none)
}

// whatIfHook probes the values at the traps of a pass.
type whatIfHook struct {
	s      *Session
	mu     sync.Mutex
	probes map[trapKey]*compiled
	res    *passResult
	m      *vm.Machine
}

func (h *whatIfHook) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	c := h.probes[trapKey{fn, pc}]
	if c == nil {
		return false
	}
	f := t.Frame(0)
	var args []vm.Value
	for _, r := range c.regs {
		args = append(args, *t.Reg(f, r))
	}
	v, err := h.s.runEvalOn(h.m, c.fn, args)
	text := ""
	if err != nil {
		text = "<" + err.Error() + ">"
	} else {
		text = h.s.brief(v, c.typ, 0)
	}
	line, _ := fn.Pos(pc)
	h.mu.Lock()
	h.res.hits = append(h.res.hits, probeHit{thread: t.ID, fn: fn.Name, line: int(line), value: text})
	h.mu.Unlock()
	return false
}

func (h *whatIfHook) OnThrow(*vm.Thread, *vm.Object, bool) bool { return false }

// syncWriter collects a pass's output.
type syncWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// WhatIf re-executes the recorded run with the code of the files as they
// are now (see the file comment). It needs a recording.
func (s *Session) WhatIf(opts WhatIfOptions) (*WhatIfResult, error) {
	defer s.quiet()() // (catchup.go)
	if err := s.checkTravel(0, false); err != nil {
		return nil, err
	}
	s.mu.Lock()
	eps := s.reloadsLocked().epochs
	s.mu.Unlock()
	base := eps[len(eps)-1]
	horizon := s.tt.j.Offset()
	now := s.present()
	current := true
	if base.floor != nil && horizon == base.floor.off && len(eps) > 1 {
		// nothing ran since the reload: compare with the old code's run
		base, current = eps[len(eps)-2], false
	}
	old := base.prog
	read := func(path string) ([]byte, error) {
		if b, ok := opts.Sources[path]; ok {
			return b, nil
		}
		return ReadSource(path)
	}
	main := old.Main.File
	src, err := read(main)
	if err != nil {
		return nil, fmt.Errorf("what if: %v", err)
	}
	prior := &compile.Prior{Program: old}
	prog, err := compile.CompileFile(main, src, compile.Options{Lib: s.lib, ReadFile: read, Prior: prior})
	if err != nil {
		return nil, &CompileError{Report: FormatCompileError(main, src, err), Err: err}
	}
	from := s.tt.snaps.latest(horizon, func(sp *snap) bool {
		return sp.sn.Program() == old && (!current || sp.beforeMoment(now))
	})
	if from == nil {
		from = base.floor
	}
	res := &WhatIfResult{From: "the start of the run"}
	switch {
	case from != nil && from == base.floor:
		res.From = fmt.Sprintf("reload %d", base.n)
	case from != nil:
		res.From = fmt.Sprintf("a checkpoint %d bytes into the recording", from.off)
	}

	// the probes: the line in the new text, and the same line in the
	// recorded program's
	var newProbe, oldProbe map[trapKey]*compiled
	if opts.Expr != "" {
		file := opts.File
		for f := range prog.Files {
			if canonPath(f) == canonPath(opts.File) || filepath.Base(f) == opts.File {
				file = f
			}
		}
		if newProbe, err = probesAt(prog, file, opts.Line, opts.Expr); err != nil {
			return nil, err
		}
		oldLine, ok := opts.Line, true
		if before, changed := old.Files[file]; changed && string(before) != string(prog.Files[file]) {
			var l int32
			l, ok = diffLines(before, prog.Files[file]).back(int32(opts.Line))
			oldLine = int(l)
		}
		if ok {
			oldProbe, _ = probesAt(old, file, oldLine, opts.Expr)
		}
	}

	rec, err := s.whatIfPass(old, nil, nil, from, horizon, oldProbe, 0)
	if err != nil {
		return nil, err
	}
	rl := vm.NewRelink(old, prog)
	now2, err := s.whatIfPass(prog, rl, prior, from, horizon, newProbe, whatIfSlack*rec.dispatches+whatIfExtra)
	if err != nil {
		return nil, err
	}
	compareRuns(res, rec, now2, opts)
	return res, nil
}

// probesAt compiles expr at the statement starts of line of file in prog.
func probesAt(prog *vm.Program, file string, line int, expr string) (map[trapKey]*compiled, error) {
	out := map[trapKey]*compiled{}
	for _, fn := range prog.Funcs {
		if canonPath(fn.File) != canonPath(file) {
			continue
		}
		for _, e := range stmtPCs(fn) {
			if int(e.Line) != line {
				continue
			}
			c, err := compileIn(prog, fn, e.PC, expr)
			if err != nil {
				return nil, fmt.Errorf("what if: %s at line %d: %v", expr, line, err)
			}
			out[trapKey{fn, e.PC}] = c
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("what if: line %d of %s has no statement", line, filepath.Base(file))
	}
	return out, nil
}

// whatIfPass re-executes the recording from the checkpoint from (nil:
// the start) up to the journal's offset horizon and one quantum more
// (the present is inside the quantum after the last recorded, if a
// breakpoint cut it), on prog: the recorded
// program (rl nil), or a new one the checkpoint is relinked to. probes
// are patched for the pass; limit, if positive, bounds its dispatches
// once it no longer follows the recording.
func (s *Session) whatIfPass(prog *vm.Program, rl *vm.Relink, prior *compile.Prior, from *snap, horizon int, probes map[trapKey]*compiled, limit int) (*passResult, error) {
	log := s.tt.j.Log()
	if cut := s.tt.j.HeaderSize() + horizon; cut < len(log) {
		log = log[:cut]
	}
	off := 0
	var sn *sched.Snapshot
	if from != nil {
		off, sn = from.off, from.sn
		if rl != nil {
			var err error
			if sn, err = sn.Relinked(rl); err != nil {
				return nil, fmt.Errorf("what if: %v", err)
			}
			if err := initFields(sn, rl, prior); err != nil {
				return nil, err
			}
		}
	}
	j, err := record.ResumeJournalAt(log, 0, off)
	if err != nil {
		return nil, fmt.Errorf("what if: %v", err)
	}
	res := &passResult{}
	h := &whatIfHook{s: s, probes: probes, res: res}
	w := &syncWriter{b: &res.out}
	cfg := sched.RunConfig{Limits: s.cfg.limits(), Seed: s.cfg.Seed, Policy: s.fs, Stdout: w, Stderr: w,
		DebugLog: s.cfg.DebugLog, Paused: true, Tap: j, Hook: h, From: sn}
	if sn == nil && rl != nil {
		cfg.From = nil // the new program from its start
	}
	b, err := sched.Boot(prog, cfg)
	if err != nil {
		return nil, fmt.Errorf("what if: %v", err)
	}
	h.m = b.M
	sch := b.Sched
	shared := rl == nil // the recorded program's code is the session's too
	s.mu.Lock()
	for k := range probes {
		if shared {
			s.setTrapLocked(k)
		} else {
			k.fn.SetTrap(k.pc)
		}
	}
	s.mu.Unlock()
	defer func() {
		if shared {
			s.mu.Lock()
			for k := range probes {
				s.clearTrapLocked(k)
			}
			s.mu.Unlock()
		}
	}()
	atEnd := false
	stop := make(chan struct{})
	var once sync.Once
	halt := func() { once.Do(func() { close(stop) }) }
	sch.OnEvent = func(ev sched.Event) {
		if _, ok := quantumEnd(ev, j); !ok {
			return
		}
		res.dispatches++
		if res.schedule == "" && j.Forked() != "" {
			res.schedule = j.Forked()
		}
		switch {
		case res.schedule == "" && !j.Replaying() && !atEnd:
			// the end of the recording reached, in step: the present is
			// in the quantum after it (a stop cuts a quantum)
			atEnd = true
		case atEnd:
			sch.Pause()
			halt()
		case res.schedule != "" && limit > 0 && res.dispatches >= limit:
			sch.Pause()
			halt()
		}
	}
	done := make(chan int, 1)
	go func() { done <- sch.Run() }()
	sch.Resume()
	select {
	case code := <-done:
		res.ended, res.code = true, code
		if res.schedule == "" && j.Forked() != "" {
			res.schedule = j.Forked()
		}
		if res.schedule == "" && j.Replaying() {
			res.schedule = "the run ended before the end of the recording"
		}
		return res, nil
	case <-stop:
	case <-time.After(whatIfTimeout):
		sch.Kill(0)
		<-done
		return nil, errors.New("what if: the re-execution did not reach the present within 30 s")
	}
	sch.Kill(0)
	<-done
	return res, nil
}

// compareRuns fills res with the first difference between the recorded
// run's pass rec and the new code's pass now.
func compareRuns(res *WhatIfResult, rec, now *passResult, opts WhatIfOptions) {
	var b strings.Builder
	fmt.Fprintf(&b, "Re-executed from %s with the new code", res.From)
	if opts.Expr != "" {
		res.Hits = min(len(rec.hits), len(now.hits))
		for i := 0; i < res.Hits; i++ {
			r, n := rec.hits[i], now.hits[i]
			if r.value != n.value || r.thread != n.thread {
				res.Diverged, res.What, res.Hit = true, "value", i+1
				res.Recorded = fmt.Sprintf("%s = %s (thread %d)", opts.Expr, r.value, r.thread)
				res.New = fmt.Sprintf("%s = %s (thread %d)", opts.Expr, n.value, n.thread)
				res.Thread, res.Func, res.Line = n.thread, n.fn, n.line
				fmt.Fprintf(&b, ": at hit %d of line %d, %s is %s where the recorded run had %s", i+1, opts.Line, opts.Expr, n.value, r.value)
				break
			}
		}
		if !res.Diverged && len(rec.hits) != len(now.hits) && !(len(now.hits) > len(rec.hits) && !rec.ended) {
			res.Diverged, res.What, res.Hit = true, "value", res.Hits+1
			res.Recorded = fmt.Sprintf("line %d reached %d times", opts.Line, len(rec.hits))
			res.New = fmt.Sprintf("line %d reached %d times", opts.Line, len(now.hits))
			fmt.Fprintf(&b, ": line %d was reached %d times, the recorded run reached it %d times", opts.Line, len(now.hits), len(rec.hits))
		}
	}
	ro, no := rec.out.String(), now.out.String()
	if !res.Diverged && !strings.HasPrefix(no, ro) {
		i := 0
		for i < len(ro) && i < len(no) && ro[i] == no[i] {
			i++
		}
		start := strings.LastIndexByte(ro[:i], '\n') + 1
		res.Recorded, res.New = lineAt(ro, start), lineAt(no, start)
		res.Diverged, res.What = true, "output"
		if strings.Contains(res.Recorded+res.New, "Exception") {
			res.What = "exception"
		}
		fmt.Fprintf(&b, ": the output differs at line %d: %q where the recorded run printed %q",
			strings.Count(ro[:start], "\n")+1, res.New, res.Recorded)
	}
	if !res.Diverged && now.ended && !rec.ended {
		res.Diverged, res.What = true, "end"
		res.Recorded, res.New = "the run went on", fmt.Sprintf("it ended (exit code %d)", now.code)
		fmt.Fprintf(&b, ": it ended (exit code %d) where the recorded run went on", now.code)
	}
	if !res.Diverged && rec.ended && now.ended && rec.code != now.code {
		res.Diverged, res.What = true, "end"
		res.Recorded, res.New = fmt.Sprintf("exit code %d", rec.code), fmt.Sprintf("exit code %d", now.code)
		fmt.Fprintf(&b, ": it ended with exit code %d, the recorded run with %d", now.code, rec.code)
	}
	if !res.Diverged {
		b.WriteString(": no difference up to the present")
		if opts.Expr != "" {
			fmt.Fprintf(&b, " (%s compared at %d hits of line %d)", opts.Expr, res.Hits, opts.Line)
		}
	}
	if strings.Contains(now.schedule, "a quantum of") {
		b.WriteString("\n(the new code changed the schedule: " + now.schedule + ")")
	}
	res.Text = b.String()
}

// lineAt returns the line of text starting at start (without its newline).
func lineAt(text string, start int) string {
	if start >= len(text) {
		return ""
	}
	rest := text[start:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}
