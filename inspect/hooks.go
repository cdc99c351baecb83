package inspect

import (
	"fmt"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
)

// hook is the session's vm.DebugHook and vm.ThrowHook. Its methods run
// inside a dispatch (the scheduler's lock held) on the carrier goroutine;
// they decide whether the thread stops and leave the decision in
// s.pending (per thread: with several carriers two threads may stop at
// once), which onEvent turns into a stop when the dispatch is over.
type hook struct{ s *Session }

// OnTrap decides about a thread at a patched pc: a step's end, or a
// breakpoint whose condition and hit count say stop (a logpoint prints
// and goes on).
func (h hook) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	s := h.s
	s.mu.Lock()
	if st := s.step; st != nil && st.thread == t && st.matches(t, fn, pc) {
		s.pending[t] = &StopInfo{Reason: ReasonStep, Description: "Step"}
		s.mu.Unlock()
		return true
	}
	list := append([]*bp(nil), s.bps.at[trapKey{fn, pc}]...)
	s.mu.Unlock()
	var hit []int
	isFunc := false
	for _, b := range list {
		if !s.breakpointFires(t, b) {
			continue
		}
		hit = append(hit, b.id)
		isFunc = isFunc || b.isFunc
	}
	if len(hit) == 0 {
		return false
	}
	info := &StopInfo{Reason: ReasonBreakpoint, HitBreakpointIDs: hit, Description: "Breakpoint"}
	if isFunc {
		info.Reason = ReasonFunction
		info.Description = "Function breakpoint"
	}
	s.mu.Lock()
	s.pending[t] = info
	s.mu.Unlock()
	return true
}

// breakpointFires evaluates b's condition, hit count and log message for
// t. It returns whether t stops.
func (s *Session) breakpointFires(t *vm.Thread, b *bp) bool {
	if b.cond != "" {
		ok, err := s.evalCond(t, b.cond)
		if err != nil {
			s.emit(func(l Listener) {
				l.Output("console", fmt.Sprintf("breakpoint %d: condition %q: %v (stopping)\n", b.id, b.cond, err))
			})
			return true
		}
		if !ok {
			return false
		}
	}
	s.mu.Lock()
	b.hits++
	hits := b.hits
	s.mu.Unlock()
	if b.hitTest != nil && !b.hitTest(hits) {
		return false
	}
	if b.logMsg != "" {
		msg := s.interpolate(t, b.logMsg)
		s.emit(func(l Listener) { l.Output("console", msg+"\n") })
		return false
	}
	return true
}

// evalCond evaluates a breakpoint condition in t's top frame.
func (s *Session) evalCond(t *vm.Thread, cond string) (bool, error) {
	v, typ, err := s.evalInFrame(t, 0, cond, false)
	if err != nil {
		return false, err
	}
	if typ != vm.Bool {
		return false, fmt.Errorf("condition is %s, not bool", typ)
	}
	return v.B(), nil
}

// interpolate replaces each {expr} of a log message by its value in t's
// top frame ({{ and }} are literal braces).
func (s *Session) interpolate(t *vm.Thread, msg string) string {
	var b strings.Builder
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		switch {
		case c == '{' && i+1 < len(msg) && msg[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(msg) && msg[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(msg[i:], '}')
			if end < 0 {
				b.WriteString(msg[i:])
				return b.String()
			}
			expr := msg[i+1 : i+end]
			v, typ, err := s.evalInFrame(t, 0, expr, false)
			if err != nil {
				fmt.Fprintf(&b, "<%s: %v>", expr, err)
			} else {
				// rendered without running user code (no toString calls)
				if typ == vm.String {
					b.WriteString(v.S())
				} else {
					b.WriteString(s.brief(v, typ, 0))
				}
			}
			i += end
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// OnThrow stops a thread at a throw when the exception filters say so.
func (h hook) OnThrow(t *vm.Thread, exc *vm.Object, caught bool) bool {
	s := h.s
	s.mu.Lock()
	defer s.mu.Unlock()
	mode := ""
	switch {
	case s.excAll:
		mode = "always"
	case s.excUnc && !caught:
		mode = "unhandled"
	default:
		return false
	}
	s.excStops[t.ID] = excStop{exc: exc, uncaught: !caught, breakmode: mode}
	desc := "Paused on exception"
	if !caught {
		desc = "Paused on uncaught exception"
	}
	s.pending[t] = &StopInfo{Reason: ReasonException, Description: desc, Text: vm.ExceptionString(exc)}
	return true
}

// ExceptionInfo describes the exception threadID is stopped on.
func (s *Session) ExceptionInfo(threadID int64) (ExceptionDetails, error) {
	if err := s.checkStopped(); err != nil {
		return ExceptionDetails{}, err
	}
	s.mu.Lock()
	es, ok := s.excStops[threadID]
	s.mu.Unlock()
	if !ok {
		return ExceptionDetails{}, fmt.Errorf("thread %d is not stopped on an exception", threadID)
	}
	return ExceptionDetails{
		ID:          es.exc.Class.Name,
		Description: vm.ExceptionMessage(es.exc),
		Breakmode:   es.breakmode,
		StackTrace:  vm.ExceptionString(es.exc) + "\n" + vm.FormatTrace(es.exc),
	}, nil
}
