package inspect

// Edit and continue: Reload compiles the program's edited files and
// installs the new code in the paused session. The compiler is told of
// the running program (compile.Prior), so that the classes both share
// keep their layout, and refuses a change the running program could not
// survive; the paused execution is then copied onto a machine of the new
// program through a vm.Relink (sched.Scheduler.SnapshotRelinked), the
// objects that gained fields get them (their initialisers run on the
// copy), and the session swaps the run booted from the copy in for the
// old one. Until that swap nothing has changed: a file that does not
// compile, a refused change or an initialiser that throws leaves the
// session as it was.
//
// Frames of a function whose code changed finish on the old code (shown
// as such: FrameInfo.OldCode), every later call takes the new code;
// restarting such a frame restarts it on the new code; ReloadOptions.Move
// moves a thread's innermost frame to the same statement of the new code
// where that statement is unchanged. Breakpoints follow their lines into
// the new text.
//
// Time travel: the copy is kept as the first checkpoint of the program's
// new epoch. Going back stays within the epoch (re-executions start at
// the latest reload at the earliest); a named checkpoint made before a
// reload is reached by going back to the epoch it was made in, whose
// program runs again there, and the recorded future — the reload and
// what followed — is dropped (the session says so).

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// ReloadOptions configures a reload.
type ReloadOptions struct {
	// Move moves a thread's innermost frame in a changed function to the
	// same statement of the new code, when that statement's line did not
	// change and every variable the new code has there existed before.
	Move bool
	// Sources gives the text of files (by path) to use instead of what
	// is on disk (an editor's unsaved buffer).
	Sources map[string][]byte
}

// ReloadResult says what a reload changed.
type ReloadResult struct {
	// Unchanged: no file changed, nothing was done.
	Unchanged bool
	// Reload is the reload's number in the session (1 for the first).
	Reload int
	// Files are the files whose text changed.
	Files []string
	// Changed, Added and Removed are functions and methods (of the
	// program's files, not the library) whose code changed, that are new,
	// and that are gone.
	Changed, Added, Removed []string
	// Types are the new classes, structs, interfaces and enums.
	Types []string
	// Fields are the fields existing objects gained ("Point.z").
	Fields []string
	// Objects counts the objects that gained fields.
	Objects int
	// Frames are the frames of the functions whose code changed, and
	// where each goes on.
	Frames []ReloadFrame
	// Breakpoints are the breakpoints whose place changed: moved with
	// their line, or no longer placed (Verified false, Message says why).
	Breakpoints []Breakpoint
	// Notes are what else the user should know (the race detector's
	// history restarted, the recorded future dropped, …).
	Notes []string
	// Undone: the session went back before reload Reload (to a checkpoint
	// made before it), and runs the program it had then.
	Undone bool
}

// ReloadFrame is a frame of a function whose code changed.
type ReloadFrame struct {
	Thread int64
	Depth  int
	Func   string
	Line   int
	// How: "old" (it finishes on the old code), "new" (it had not
	// started: it runs the new code from its entry), "moved" (it goes on
	// at the same statement of the new code).
	How string
	// Why the frame could not be moved (Move asked for).
	Why string
}

// ReloadListener is a Listener that is told of reloads (optional).
type ReloadListener interface {
	Reloaded(ReloadResult)
}

// epoch is a stretch of the session's timeline that runs one program:
// the one it was launched with, or one a reload installed.
type epoch struct {
	prog  *vm.Program
	floor *snap // the copy the epoch starts from (nil: the first, which starts at the start)
	n     int   // its reload's number (0: the first)
	lines map[string]*lineMap
	// texts are the sources of the files of the previous program that
	// this reload changed, by the key the debugger shows them under
	texts map[string][]byte
}

// reloads is a session's history of reloads. Guarded by Session.mu.
type reloads struct {
	epochs []*epoch
	n      int // reloads made
	// oldText gives, for the obsolete copy of a function, the key of the
	// source text its code was compiled from (Source returns it).
	oldText map[*vm.Funcode]string
	texts   map[string][]byte
	// stale gives, while the session runs the program of an earlier
	// epoch (it went back before a reload), the key of the text each
	// file had then.
	stale map[string]string
}

// reloadsLocked returns the session's reload history (made on first
// use). Must hold s.mu.
func (s *Session) reloadsLocked() *reloads {
	if s.rl == nil {
		s.rl = &reloads{epochs: []*epoch{{prog: s.prog}}, oldText: map[*vm.Funcode]string{}, texts: map[string][]byte{}}
	}
	return s.rl
}

// floorSnap returns the copy the present epoch starts from (nil: the
// start of the program).
func (s *Session) floorSnap() *snap {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rl == nil {
		return nil
	}
	return s.rl.epochs[len(s.rl.epochs)-1].floor
}

// inEpoch reports whether a checkpoint belongs to the present epoch.
func (s *Session) inEpoch(sp *snap) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sp.sn.Program() == s.prog
}

// epochIndex returns the present epoch's number: that of the reload that
// began it (0: the program the session was launched with). Numbers grow
// with each reload; going back before a reload returns to a smaller one.
func (s *Session) epochIndex() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rl == nil {
		return 0
	}
	return s.rl.epochs[len(s.rl.epochs)-1].n
}

// pruneLocked lets go of what the epochs before the present one hold —
// their program and the copy they start from — unless a named checkpoint
// was made in one (going back to it needs them) or it is the one just
// before (WhatIf right after a reload compares with its recording): a
// session reloaded many times keeps only what it can go back to. Their line maps stay (small),
// to bring breakpoints back through them. Must hold s.mu.
func (s *Session) pruneLocked() {
	marked := map[int]bool{}
	if s.tt != nil {
		for _, cp := range s.tt.checkpoints {
			marked[cp.epoch] = true
		}
	}
	eps := s.rl.epochs
	for _, e := range eps[:max(0, len(eps)-2)] { // (WhatIf compares with the last one)
		if !marked[e.n] {
			e.prog, e.floor = nil, nil
		}
	}
}

// Reload compiles the program's edited files and installs the new code
// in the paused session (see the file comment). A file that does not
// compile, or a change the running program could not survive, is a
// *CompileError (its messages name file:line:col), and nothing changes.
func (s *Session) Reload(opts ReloadOptions) (*ReloadResult, error) {
	defer s.quiet()() // (catchup.go)
	if err := s.checkStopped(); err != nil {
		return nil, err
	}
	old := s.prog
	read := func(path string) ([]byte, error) {
		if b, ok := opts.Sources[path]; ok {
			return b, nil
		}
		for p, b := range opts.Sources {
			if canonPath(p) == canonPath(path) {
				return b, nil
			}
		}
		return ReadSource(path)
	}
	res := &ReloadResult{}
	for path, text := range old.Files {
		if strings.HasPrefix(path, "<") {
			continue
		}
		if now, err := read(path); err != nil || !bytes.Equal(now, text) {
			res.Files = append(res.Files, path)
		}
	}
	sort.Strings(res.Files)
	if len(res.Files) == 0 {
		res.Unchanged = true
		return res, nil
	}
	main := old.Main.File
	src, err := read(main)
	if err != nil {
		return nil, fmt.Errorf("reload: %v", err)
	}
	live := s.liveFuncs()
	prior := &compile.Prior{Program: old, Live: func(f *vm.Funcode) bool { return live[f] }}
	prog, err := compile.CompileFile(main, src, compile.Options{Lib: s.lib, ReadFile: read, Prior: prior})
	if err != nil {
		return nil, &CompileError{Report: FormatCompileError(main, src, err), Err: err}
	}
	lines := map[string]*lineMap{}
	texts := map[string][]byte{}
	s.mu.Lock()
	n := s.reloadsLocked().n + 1
	s.mu.Unlock()
	for _, path := range res.Files {
		lines[canonPath(path)] = diffLines(old.Files[path], prog.Files[path])
		texts[oldTextKey(n, path)] = old.Files[path]
	}
	rl := vm.NewRelink(old, prog)
	rl.Move = opts.Move
	rl.LineMap = func(file string, line int32) (int32, bool) {
		m := lines[canonPath(file)]
		if m == nil {
			return line, true // an unchanged file
		}
		return m.forward(line)
	}
	sn, err := s.r.sch.SnapshotRelinked(rl)
	if err != nil {
		return nil, fmt.Errorf("reload: the execution cannot be copied: %v", err)
	}
	if err := initFields(sn, rl, prior); err != nil {
		return nil, err
	}

	// Build the run that goes on from the copy.
	var j *record.Journal
	off := 0
	if tt := s.tt; tt != nil {
		if tt.stopped == "" {
			off = tt.j.Offset()
			if j, err = record.ResumeJournalAt(tt.j.Log(), tt.j.Shown(), off); err != nil {
				return nil, fmt.Errorf("reload: %v", err)
			}
			if j.Replaying() {
				j.Fork(fmt.Sprintf("the program was reloaded (reload %d)", n))
				tt.snaps.dropAfter(off)
				res.Notes = append(res.Notes, "the session was in the past of its recording: the recorded future is dropped, and what runs from here is a new future with the new code")
			}
		}
	}
	s.mu.Lock()
	s.prog = prog
	s.mu.Unlock()
	floor := &snap{sn: sn, off: off}
	r, err := s.newRunAt(s.stdin, s.stdout, s.stderr, j, hook{s}, floor, stateStopped)
	if err != nil {
		s.mu.Lock()
		s.prog = old
		s.mu.Unlock()
		return nil, fmt.Errorf("reload: %v", err)
	}

	s.mu.Lock()
	old0 := s.r
	floor.counts = map[*bp]int{}
	for b, c := range old0.counts {
		r.counts[b] = &bpCount{hits: c.hits}
		floor.counts[b] = c.hits
	}
	for id, e := range old0.excStops {
		r.excStops[id] = e
	}
	hist := s.reloadsLocked()
	hist.n = n
	hist.epochs = append(hist.epochs, &epoch{prog: prog, floor: floor, n: n, lines: lines, texts: texts})
	s.pruneLocked()
	for k, v := range texts {
		hist.texts[k] = v
	}
	for cp, orig := range rl.Origins() {
		key, ok := hist.oldText[orig]
		if !ok {
			key = oldTextKey(n, orig.File)
		}
		hist.oldText[cp] = key
	}
	s.fnIdxOnce, s.fnIdx = sync.Once{}, nil
	hist.stale = nil
	res.Breakpoints = s.retargetLocked(func(file string, line int) (int, bool) {
		if m := lines[file]; m != nil {
			l, ok := m.near(int32(line))
			return int(l), ok
		}
		return line, true
	})
	if s.accessTraps != nil {
		for k := range s.accessTraps {
			s.traps[k]--
			if s.traps[k] <= 0 {
				delete(s.traps, k)
			}
		}
		s.accessTraps = nil
		s.instrumentAccesses()
		if s.race {
			res.Notes = append(res.Notes, "the race detector starts afresh with the new code: accesses made before the reload are forgotten")
		}
	}
	s.retargetWatchesLocked(r)
	info := old0.stop
	info.Reload = n
	var t *vm.Thread
	if old0.stopped != nil {
		t = r.sch.Thread(old0.stopped.ID)
	}
	s.mu.Unlock()
	if s.tt != nil && j != nil {
		s.tt.lastMu.Lock()
		s.tt.j = j
		s.tt.lastMu.Unlock()
	}
	s.describeReload(res, old, prog, rl, n)
	r.carrierDone = make(chan struct{})
	go s.carrier(r) // (paused until the session resumes)
	s.swap(r, info, t)
	s.refreshFuncBreakpoints()
	s.emit(func(l Listener) {
		if rl, ok := l.(ReloadListener); ok {
			rl.Reloaded(*res)
		}
	})
	return res, nil
}

// errReloadedDump refuses a dump of a session whose program was
// reloaded: a dump re-executes its recording with one program.
var errReloadedDump = errors.New("dump: the program was reloaded in this session, and a dump re-executes its recording with one program (restart a checkpoint made before the reload to dump from there)")

// oldTextKey names the text a file had before reload n.
func oldTextKey(n int, path string) string {
	return fmt.Sprintf("<%s before reload %d>", filepath.Base(path), n)
}

// liveFuncs returns the functions with a frame on a thread's stack.
func (s *Session) liveFuncs() map[*vm.Funcode]bool {
	live := map[*vm.Funcode]bool{}
	for _, t := range s.r.sch.Threads() {
		for d := 0; d < t.Depth(); d++ {
			live[t.Frame(d).Fn] = true
		}
	}
	return live
}

// initFieldsSteps bounds the reductions of a reload's field initialisers
// on one object.
const initFieldsSteps = 1_000_000

// initFields runs the initialisers of the fields the objects of the copy
// sn gained (compile.Prior.FieldInits), on a scratch thread of the copy's
// machine, object by object.
func initFields(sn *sched.Snapshot, rl *vm.Relink, prior *compile.Prior) error {
	m := sn.Machine()
	for _, o := range rl.Grown {
		fn := prior.FieldInits[o.Class]
		if fn == nil {
			continue
		}
		t := m.NewCallThread(fn, []vm.Value{vm.RefV(o)})
		t.NoDebug = true
		left := initFieldsSteps
		for !t.Done() && left > 0 {
			switch t.Run(10_000) {
			case vm.StopPark, vm.StopTrap:
				return fmt.Errorf("reload: the initialiser of a new field of %s blocked (%s): a field initialiser run by a reload must not wait", o.Class.Name, t.WaitReason)
			}
			left -= 10_000
		}
		if t.Uncaught != nil {
			return fmt.Errorf("reload: the initialiser of a new field of %s threw %s", o.Class.Name, vm.ExceptionString(t.Uncaught))
		}
		if !t.Done() {
			return fmt.Errorf("reload: the initialisers of the new fields of %s did not finish within %d reductions", o.Class.Name, initFieldsSteps)
		}
	}
	return nil
}

// retargetLocked moves the line breakpoints with their lines into the
// program s.prog, whose text mapLine maps their lines to (false: the
// line is not there), and returns those whose place changed. Must hold
// s.mu with the world stopped.
func (s *Session) retargetLocked(mapLine func(file string, line int) (int, bool)) []Breakpoint {
	t := s.bps
	var changed []Breakpoint
	var files []string
	for f := range t.byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, file := range files {
		for _, b := range t.byFile[file] {
			t.remove(b)
			wasLine, was := b.line, b.verified
			b.verified, b.fn, b.also, b.conds, b.logParts = false, nil, nil, nil, nil
			req, ok := mapLine(file, b.req)
			if !ok {
				b.message = fmt.Sprintf("line %d was removed by the reload", b.req)
				changed = append(changed, b.info(s.r))
				continue
			}
			b.req, b.message = req, ""
			fn, pc, line, ok := s.locate(file, req)
			if !ok {
				b.message = fmt.Sprintf("no code at or after line %d of %s", req, filepath.Base(file))
			} else {
				b.fn, b.pc, b.line = fn, pc, line
				b.also = samePosition(fn, pc)
				if err := s.prepare(b); err != nil {
					b.message = err.Error()
				} else {
					b.verified = true
					if line != req {
						b.message = fmt.Sprintf("line %d has no code: moved to line %d", req, line)
					}
					t.add(b)
				}
			}
			if b.line != wasLine || b.verified != was {
				changed = append(changed, b.info(s.r))
			}
		}
	}
	// instruction breakpoints stay where the code did not change
	for _, b := range t.instrs {
		t.remove(b)
		if !b.verified {
			continue
		}
		b.verified = false
		nf := s.sameFunc(b.fn)
		if nf == nil {
			b.message = "the reload changed the code of " + b.fn.Name
			b.fn = nil
			changed = append(changed, b.info(s.r))
			continue
		}
		b.fn, b.conds = nf, nil
		b.name = s.Address(nf, b.pc)
		if err := s.prepare(b); err != nil {
			b.message = err.Error()
			continue
		}
		b.verified = true
		t.add(b)
	}
	return changed
}

// sameFunc returns the function of the session's program that has fn's
// signature and code, or nil. Must hold s.mu.
func (s *Session) sameFunc(fn *vm.Funcode) *vm.Funcode {
	for _, f := range s.prog.Funcs {
		if vm.Signature(f) == vm.Signature(fn) {
			if vm.SameCode(fn, f) {
				return f
			}
			return nil
		}
	}
	return nil
}

// refreshFuncBreakpoints places the function breakpoints again, in the
// new program (same names, same settings: they keep their ids).
func (s *Session) refreshFuncBreakpoints() {
	s.mu.Lock()
	var specs []FunctionBreakpointSpec
	seen := map[int]bool{}
	for _, b := range s.bps.funcs {
		if !seen[b.id] {
			seen[b.id] = true
			specs = append(specs, FunctionBreakpointSpec{Name: b.name, Condition: b.cond, HitCondition: b.hitCond})
		}
	}
	s.mu.Unlock()
	if len(specs) > 0 {
		s.SetFunctionBreakpoints(specs)
	}
}

// retargetWatchesLocked patches the data breakpoints' traps in the new
// program, and moves a watched local to its frame in r (the run that
// goes on). A watch on an element of an array or List follows the copy
// no more than going back does (the copy is another object). Must hold
// s.mu with the world stopped.
func (s *Session) retargetWatchesLocked(r *run) {
	if s.data == nil {
		return
	}
	d := s.data
	d.pending = nil
	for _, w := range d.watches {
		for _, k := range w.traps {
			s.clearTrapLocked(k)
		}
		w.traps = nil
		if loc := w.loc; loc.kind == watchLocal {
			nt := r.sch.Thread(loc.t.ID)
			if nt == nil || loc.frame >= nt.Depth() {
				continue
			}
			f := nt.Frame(nt.Depth() - 1 - loc.frame)
			if f.Fn != loc.fn {
				name := ""
				for _, l := range loc.fn.Locals {
					if l.Reg == loc.reg {
						name = l.Name
					}
				}
				for _, l := range f.Fn.Locals {
					if l.Name == name && f.PC >= l.StartPC && f.PC < l.EndPC {
						loc.reg = l.Reg
					}
				}
			}
			loc.t, loc.fn, loc.base = nt, f.Fn, f.Base
		}
		s.patchWatchLocked(w)
	}
}

// describeReload fills res with what changed between old and new.
func (s *Session) describeReload(res *ReloadResult, old, new *vm.Program, rl *vm.Relink, n int) {
	res.Reload = n
	user := func(f *vm.Funcode) bool { return !strings.HasPrefix(f.File, "<") && !strings.Contains(f.Name, "<") }
	oldSigs := map[string]bool{}
	for _, f := range old.Funcs {
		if !user(f) {
			continue
		}
		oldSigs[rl.Sig(f)] = true
		switch {
		case rl.NewVersion(f) == nil:
			res.Removed = append(res.Removed, f.Name)
		case rl.Changed(f):
			res.Changed = append(res.Changed, f.Name)
		}
	}
	for _, f := range new.Funcs {
		if user(f) && !oldSigs[rl.Sig(f)] {
			res.Added = append(res.Added, f.Name)
		}
	}
	for _, c := range new.Classes {
		if strings.HasPrefix(c.File, "<") {
			continue
		}
		oc := old.ClassByName(c.Name)
		if oc == nil {
			res.Types = append(res.Types, c.Name)
			continue
		}
		if c.IsEnum {
			continue
		}
		for _, f := range c.Fields[min(len(oc.Fields), len(c.Fields)):] {
			if f.Owner == c {
				res.Fields = append(res.Fields, c.Name+"."+f.Name)
			}
		}
	}
	res.Objects = len(rl.Grown)
	for _, f := range rl.Fates {
		how := "old"
		switch f.How {
		case vm.FateNew:
			how = "new"
		case vm.FateMoved:
			how = "moved"
		}
		res.Frames = append(res.Frames, ReloadFrame{Thread: f.Thread, Depth: f.Depth, Func: f.Func, Line: int(f.Line), How: how, Why: f.Why})
	}
	for _, l := range [][]string{res.Changed, res.Added, res.Removed, res.Types, res.Fields} {
		sort.Strings(l)
	}
}

// restartTarget returns the function a frame of fn restarts in — its new
// version if fn is the old code of a reloaded function — and the stop's
// description.
func (s *Session) restartTarget(fn *vm.Funcode) (*vm.Funcode, string) {
	if !fn.Obsolete {
		return fn, "Restarted " + fn.Name
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sig := vm.Signature(fn)
	for _, f := range s.prog.Funcs {
		if vm.Signature(f) == sig {
			return f, "Restarted " + fn.Name + " on the new code"
		}
	}
	return fn, "Restarted " + fn.Name + " (on its old code: the new program has no function with its signature)"
}

// oldSource returns the text of a key of oldTextKey.
func (s *Session) oldSource(key string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rl == nil {
		return nil, false
	}
	b, ok := s.rl.texts[key]
	return b, ok
}

// oldTextOf returns the key of the text fn's code was compiled from when
// that is not its file's present text ("" otherwise).
func (s *Session) oldTextOf(fn *vm.Funcode) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rl == nil {
		return ""
	}
	if fn.Obsolete {
		return s.rl.oldText[fn]
	}
	return s.rl.stale[canonPath(fn.File)]
}

// restartBeforeReload goes to checkpoint cp, made in an earlier epoch
// than the present one: the session goes back to that epoch's program
// (its breakpoints follow their lines back), re-executes to the
// checkpoint, and drops the recorded future — the reloads since and what
// followed them.
func (s *Session) restartBeforeReload(cp Checkpoint) error {
	s.mu.Lock()
	hist := s.rl
	i := len(hist.epochs) - 1
	for i > 0 && hist.epochs[i].n != cp.epoch {
		i--
	}
	if hist.epochs[i].n != cp.epoch || hist.epochs[i].prog == nil {
		s.mu.Unlock()
		return fmt.Errorf("checkpoint %d was made in a program the session no longer has", cp.ID)
	}
	keep := hist.epochs[:i+1]
	popped := append([]*epoch(nil), hist.epochs[i+1:]...)
	back := func(file string, line int) (int, bool) {
		for i := len(popped) - 1; i >= 0; i-- {
			if m := popped[i].lines[file]; m != nil {
				l, ok := m.back(int32(line))
				if !ok {
					return 0, false
				}
				line = int(l)
			}
		}
		return line, true
	}
	forward := func(file string, line int) (int, bool) {
		for _, e := range popped {
			if m := e.lines[file]; m != nil {
				l, ok := m.forward(int32(line))
				if !ok {
					return 0, false
				}
				line = int(l)
			}
		}
		return line, true
	}
	prev, prevStale := s.prog, hist.stale
	switchTo := func(prog *vm.Program, epochs []*epoch, stale map[string]string, mapLine func(string, int) (int, bool)) {
		s.prog = prog
		hist.epochs = epochs
		hist.stale = stale
		s.fnIdxOnce, s.fnIdx = sync.Once{}, nil
		s.retargetLocked(mapLine)
		if s.accessTraps != nil {
			for k := range s.accessTraps {
				if s.traps[k]--; s.traps[k] <= 0 {
					delete(s.traps, k)
				}
			}
			s.accessTraps = nil
			s.instrumentAccesses()
		}
	}
	stale := map[string]string{}
	for k, v := range prevStale {
		stale[k] = v
	}
	for _, e := range popped {
		for file := range e.lines {
			if _, ok := stale[file]; !ok {
				stale[file] = oldTextKey(e.n, file)
			}
		}
	}
	all := hist.epochs
	switchTo(keep[len(keep)-1].prog, keep, stale, back)
	s.mu.Unlock()
	s.refreshFuncBreakpoints()

	reason := ReasonStep
	switch {
	case cp.at.isStart():
		reason = ReasonEntry
	case cp.at.throw:
		reason = ReasonException
	case !cp.at.trap:
		reason = ReasonPause
	}
	target := cp.at
	if target.isStart() {
		target = moment{}
	}
	desc := fmt.Sprintf("Checkpoint %d (before reload %d: the old code)", cp.ID, popped[0].n)
	if err := s.travelTo(target, StopInfo{Reason: reason, Description: desc}); err != nil {
		s.mu.Lock()
		switchTo(prev, all, prevStale, forward)
		s.mu.Unlock()
		s.refreshFuncBreakpoints()
		return err
	}
	s.tt.sets = 0
	why := fmt.Sprintf("went back before reload %d", popped[0].n)
	s.tt.j.Fork(why)
	s.tt.snaps.dropAfter(s.tt.j.Offset())
	var kept []Checkpoint // those of the dropped future go
	for _, c := range s.tt.checkpoints {
		if c.epoch <= cp.epoch {
			kept = append(kept, c)
		}
	}
	s.tt.checkpoints = kept
	msg := fmt.Sprintf("note: checkpoint %d was made before reload %d: the program runs the code it had then (reload again to run the new code); the recording after the checkpoint is dropped\n", cp.ID, popped[0].n)
	s.emit(func(l Listener) { l.Output("console", msg) })
	res := ReloadResult{Reload: popped[0].n, Undone: true}
	s.emit(func(l Listener) {
		if rl, ok := l.(ReloadListener); ok {
			rl.Reloaded(res)
		}
	})
	return nil
}
