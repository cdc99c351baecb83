package inspect

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
)

// StepInTarget is a call on the current line that a step in can enter.
type StepInTarget struct {
	ID    int // the call's pc + 1
	Label string
	Line  int
	Col   int
}

// StepInTargets lists the calls that the top frame of a thread has yet to
// make on its current statement's line, in order: functions, methods
// (virtual or by name) and function values. Calls of natives are left
// out (there is nothing to step into).
func (s *Session) StepInTargets(threadID int64) ([]StepInTarget, error) {
	if err := s.checkInspect(); err != nil {
		return nil, err
	}
	t, err := s.thread(threadID)
	if err != nil {
		return nil, err
	}
	if t.Depth() == 0 {
		return nil, ErrNoFrame
	}
	f := t.Frame(0)
	fn := f.Fn
	cur, _ := fn.Pos(s.shownPC(t, 0))
	var out []StepInTarget
	for pc := f.PC; int(pc) < len(fn.Code); pc++ {
		line, col := fn.Pos(pc)
		if pc > f.PC && line != cur && isStmt(fn, pc) {
			break
		}
		in := fn.Instr(pc)
		label := ""
		switch in.Op.Info().Call {
		case vm.CallFunc:
			if int(in.B) < len(fn.Funcs) {
				label = fn.Funcs[in.B].Name
			}
		case vm.CallVirtual:
			label = s.virtualName(in.B)
		case vm.CallByName:
			if int(in.B) < len(fn.Dyns) {
				label = fn.Dyns[in.B].Name
			}
		case vm.CallValue:
			label = "function value"
		}
		if label != "" {
			out = append(out, StepInTarget{ID: int(pc) + 1, Label: label, Line: int(line), Col: int(col)})
		}
	}
	return out, nil
}

// virtualName names the methods at a vtable slot ("area", or
// "Circle.area/Square.area" when classes differ).
func (s *Session) virtualName(slot int32) string {
	names := map[string]bool{}
	for _, c := range s.prog.Classes {
		if int(slot) < len(c.VTable) && c.VTable[slot] != nil {
			names[c.VTable[slot].Short] = true
		}
	}
	var list []string
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	if len(list) == 0 {
		return fmt.Sprintf("virtual call (slot %d)", slot)
	}
	return strings.Join(list, "/")
}

// StepInto is a step in that enters only the callee of the call target
// (a StepInTarget's ID) of the thread's current line: other calls run
// to their return; if the line ends without making that call, the step
// ends at the next statement as a step over does.
func (s *Session) StepInto(threadID int64, target int, singleThread bool) error {
	defer s.quiet()() // (catchup.go)
	targets, err := s.StepInTargets(threadID)
	if err != nil {
		return err
	}
	ok := false
	for _, tg := range targets {
		ok = ok || tg.ID == target
	}
	if !ok {
		return fmt.Errorf("no call %d on the current line (ask stepInTargets)", target)
	}
	return s.startStepInto(threadID, singleThread, int32(target))
}

// startStepInto starts a step in restricted to one call.
func (s *Session) startStepInto(threadID int64, singleThread bool, into int32) error {
	s.mu.Lock()
	s.r.nextInto = into
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.r.nextInto = 0 // (a step that ended at once did not take it)
		s.mu.Unlock()
	}()
	return s.startStep(threadID, StepIn, singleThread, false)
}

// entersTarget reports whether the thread, one frame deeper than the
// step began, is in the callee of the target call.
func (st *stepReq) entersTarget(t *vm.Thread) bool {
	if t.Depth() != st.depth+1 {
		return false
	}
	caller := t.Frame(1)
	return caller.Fn == st.fn && caller.PC == st.into
}
