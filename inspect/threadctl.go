package inspect

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
)

// Thread control beyond resuming and stepping: ending threads, restarting
// a frame, moving a thread's pc (DAP terminateThreads, restartFrame,
// goto).

// Stop reasons of restartFrame and goto.
const (
	ReasonRestart StopReason = "restart"
	ReasonGoto    StopReason = "goto"
)

// TerminateThreads ends the threads with the given ids: each raises a
// termination (class ThreadTermination, outside the Exception
// hierarchy, so no catch clause matches it) where it is; it unwinds
// through its finally blocks, which run (and release the locks they
// release), and ends. Joiners wake, a Future of the thread throws
// IllegalStateException, and no "Exception in thread" report is printed.
// A parked thread leaves what it waits on; the unwinding happens when the
// program resumes. Terminating main ends the program (exit code
// sched.TerminatedExitCode) once its finally blocks have run. The program
// must be stopped; ids that are not live threads are an error, and no
// thread is terminated then.
func (s *Session) TerminateThreads(ids []int64) error {
	defer s.quiet()() // (catchup.go)
	if err := s.checkStopped(); err != nil {
		return err
	}
	if err := s.checkNotDeadlocked("terminate threads"); err != nil {
		return err
	}
	var ts []*vm.Thread
	for _, id := range ids {
		t, err := s.thread(id)
		if err != nil {
			return fmt.Errorf("no thread %d", id)
		}
		ts = append(ts, t)
	}
	for _, t := range ts {
		exc := s.r.m.NewTermination(fmt.Sprintf("thread %d %q terminated by the debugger", t.ID, t.Name()))
		if err := s.r.sch.Terminate(t, exc); err != nil {
			return err
		}
		s.mu.Lock()
		delete(s.r.excStops, t.ID)
		if s.r.ret != nil && s.r.ret.thread == t {
			s.r.ret = nil
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.r.refs.reset()
	s.mu.Unlock()
	return nil
}

// ErrDeadlocked is returned by what would change the threads of a
// program stopped at its deadlock: the run is over (resuming ends it
// with the deadlock's exit code), its threads are kept for inspection.
var ErrDeadlocked = errors.New("the program has deadlocked: its run is over and its threads are kept only to be inspected (going back, or restart, runs it again)")

// checkNotDeadlocked refuses to do what (terminate threads, move one) at
// a deadlock stop, where it would change nothing: the scheduler's run
// is over.
func (s *Session) checkNotDeadlocked(what string) error {
	s.mu.Lock()
	dead := s.r.deadlock
	s.mu.Unlock()
	if dead {
		return fmt.Errorf("cannot %s: %w", what, ErrDeadlocked)
	}
	return nil
}

// frameBlocker says why the frames from the top of t down to depth
// cannot be dropped or moved ("" if they can): a native in progress (a
// parked recv, a throw being reported) or a runtime continuation frame.
func frameBlocker(t *vm.Thread, depth int) string {
	if t.InNative() {
		if t.State == vm.Waiting {
			return fmt.Sprintf("the thread is parked in a native call (%s)", t.WaitReason)
		}
		return "the thread is stopped inside an instruction (a throw or a native call in progress)"
	}
	for d := 0; d <= depth; d++ {
		if f := t.Frame(d); f.Fn.Cont {
			return fmt.Sprintf("frame %d is the runtime's %s, which called NLang code and cannot be re-entered", d, f.Fn.Name)
		}
	}
	return ""
}

// RestartFrame drops the frames above frame depth of a thread and
// re-enters that frame's function at its first instruction with the
// arguments it was called with (a function that assigns a parameter
// keeps a copy of the argument: vm.Funcode.ArgCopies), then reports a
// stop with reason restart (the thread does not run). A frame running
// the old code of a function the program was reloaded with restarts on
// the new code (reload.go). Side effects already done stay done (heap
// writes, output, channel operations, locks taken: finally blocks of the
// dropped frames do not run). Refused: a frame whose restart would cross
// a native (the thread is parked in one, or a continuation frame lies on
// the way), and a function that assigns a parameter of which it keeps no
// copy (none compiled now).
func (s *Session) RestartFrame(threadID int64, depth int) error {
	defer s.quiet()() // (catchup.go)
	if err := s.checkStopped(); err != nil {
		return err
	}
	if err := s.checkNotDeadlocked("restart a frame"); err != nil {
		return err
	}
	t, err := s.thread(threadID)
	if err != nil {
		return err
	}
	if depth < 0 || depth >= t.Depth() {
		return ErrNoFrame
	}
	if why := frameBlocker(t, depth); why != "" {
		return fmt.Errorf("cannot restart frame %d: %s", depth, why)
	}
	fn := t.Frame(depth).Fn
	if p := assignedParam(fn); p != "" {
		return fmt.Errorf("cannot restart %s: it assigns its parameter %s, so the argument it was called with is lost", fn.Name, p)
	}
	to, desc := s.restartTarget(fn) // reload.go
	t.RestartFrameIn(depth, to)
	s.afterChange(nil, "a frame was restarted") // a new future (reverse.go)
	s.stopInPlace(t, StopInfo{Reason: ReasonRestart, Description: desc})
	return nil
}

// stopInPlace reports a stop of t without running anything (after the
// debugger changed where t is).
func (s *Session) stopInPlace(t *vm.Thread, info StopInfo) {
	s.mu.Lock()
	s.r.ret = nil
	s.r.refs.reset()
	info.ThreadID, info.AllThreadsStopped = t.ID, true
	s.r.stop, s.r.stopped = info, t
	delete(s.r.excStops, t.ID)
	s.mu.Unlock()
	s.emit(func(l Listener) { l.Continued(t.ID, true) })
	s.emit(func(l Listener) { l.Stopped(info) })
}

// assignedParam returns the name of a parameter of fn that an
// instruction of fn writes ("" if none).
func assignedParam(fn *vm.Funcode) string {
	params := map[int32]string{}
	for _, l := range fn.Locals {
		if l.IsParam {
			params[l.Reg] = l.Name
		}
	}
	if len(params) == 0 {
		return ""
	}
	for pc := range fn.Code {
		for _, r := range writtenRegs(fn, fn.Instr(int32(pc))) {
			if name, ok := params[r]; ok && (int(r) >= len(fn.ArgCopies) || fn.ArgCopies[r] < 0) {
				return name
			}
		}
	}
	return ""
}

// writtenRegs returns the registers an instruction writes (the opcode
// table says which): R[A], or for a call the result register and every
// register from the first argument up (the callee's frame overlays
// them).
func writtenRegs(fn *vm.Funcode, in vm.Instr) []int32 {
	info := in.Op.Info()
	switch {
	case info.Call != vm.NoCall:
		out := []int32{in.C}
		for r := in.A; r < int32(fn.NumRegs); r++ {
			out = append(out, r)
		}
		return out
	case info.Is(vm.SetsA):
		return []int32{in.A}
	}
	return nil
}

// GotoTarget is a place a thread can be moved to: a statement start.
type GotoTarget struct {
	ID    int // (function index + 1) << AddrShift | pc
	Label string
	Line  int
	Col   int
	Func  string
}

// GotoTargets lists the statement starts on line of file, in whatever
// function (Goto checks that the thread is in it).
func (s *Session) GotoTargets(file string, line int) ([]GotoTarget, error) {
	file = canonPath(file)
	var out []GotoTarget
	for i, fn := range s.prog.Funcs {
		if canonPath(fn.File) != file {
			continue
		}
		for _, e := range stmtPCs(fn) {
			if int(e.Line) != line {
				continue
			}
			out = append(out, GotoTarget{ID: (i+1)<<AddrShift | int(e.PC), Line: line, Col: int(e.Col), Func: fn.Name,
				Label: fmt.Sprintf("line %d in %s", line, fn.Name)})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("line %d has no statement", line)
	}
	return out, nil
}

// Goto moves thread threadID's innermost frame to a target of
// GotoTargets in the same function, then reports a stop with reason goto
// (the thread does not run). The code between is skipped, not undone.
// Refused: a target in another function, one where a local is live
// whose declaration the thread has not reached (its value would be
// garbage), and a thread inside a native.
func (s *Session) Goto(threadID int64, targetID int) error {
	defer s.quiet()() // (catchup.go)
	if err := s.checkStopped(); err != nil {
		return err
	}
	if err := s.checkNotDeadlocked("move a thread"); err != nil {
		return err
	}
	t, err := s.thread(threadID)
	if err != nil {
		return err
	}
	fi, pc := targetID>>AddrShift-1, int32(targetID&(1<<AddrShift-1))
	if fi < 0 || fi >= len(s.prog.Funcs) || int(pc) >= len(s.prog.Funcs[fi].Code) {
		return fmt.Errorf("unknown goto target %d", targetID)
	}
	fn := s.prog.Funcs[fi]
	if t.Depth() == 0 {
		return fmt.Errorf("thread %d has no frame", threadID)
	}
	f := t.Frame(0)
	if f.Fn != fn {
		return fmt.Errorf("the target is in %s, but thread %d is in %s: goto moves within the current function", fn.Name, threadID, f.Fn.Name)
	}
	if why := frameBlocker(t, 0); why != "" {
		return fmt.Errorf("cannot move thread %d: %s", threadID, why)
	}
	if dead := unsetLocals(fn, f.PC, pc); len(dead) > 0 {
		line, _ := fn.Pos(pc)
		return fmt.Errorf("cannot go to line %d: %s would be used before being set (declared after the current line)", line, strings.Join(dead, ", "))
	}
	t.SetPC(pc)
	s.afterChange(nil, "a thread was moved") // a new future (reverse.go)
	line, _ := fn.Pos(pc)
	s.stopInPlace(t, StopInfo{Reason: ReasonGoto, Description: fmt.Sprintf("Moved to line %d", line)})
	return nil
}

// unsetLocals lists the locals live at pc to that are not live at pc
// from (in the same register): their values would be stale.
func unsetLocals(fn *vm.Funcode, from, to int32) []string {
	var out []string
	for _, l := range fn.Locals {
		if !l.LiveAt(to) || l.IsParam {
			continue
		}
		ok := false
		for _, m := range fn.Locals {
			if m.Reg == l.Reg && m.Name == l.Name && m.LiveAt(from) {
				ok = true
			}
		}
		if !ok {
			out = append(out, l.Name)
		}
	}
	sort.Strings(out)
	return out
}
