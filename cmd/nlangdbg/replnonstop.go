package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
)

// Non-stop debugging in the terminal debugger, with gdb's habits: `set
// non-stop on` (or `nonstop on`) makes the breakpoints that name no mode
// stop only the thread that reaches them; `break LOC thread-only` makes
// one breakpoint do so in either mode. A thread stopped that way is held
// while the others run: continue, next and step act on the selected
// thread alone, `continue -a` lets every held thread go, `interrupt
// THREAD` stops one more and `interrupt -a` stops them all. The prompt
// names the threads stopped ("(nlangdbg) [stopped: 2* 3] ", * the
// selected one) and, while it waits, what the running threads print is
// shown above it (whilePrompting) without disturbing the line being
// typed.

// modeThread is the mode of a breakpoint that stops its thread alone
// (DAP's breakpoint mode "thread").
const modeThread = "thread"

// noteStopEvent keeps the set of held threads in step with a stopped
// event; it reports whether the stop holds its thread alone.
func (r *repl) noteStopEvent(e *api.StoppedEvent) bool {
	if e.Body.AllThreadsStopped {
		r.held = nil
		return false
	}
	if r.held == nil {
		r.held = map[int]bool{}
	}
	r.held[e.Body.ThreadId] = true
	return true
}

// noteContinued keeps the set of held threads in step with a continued
// event.
func (r *repl) noteContinued(e *dap.ContinuedEvent) {
	if e.Body.AllThreadsContinued {
		r.held = nil
		return
	}
	delete(r.held, e.Body.ThreadId)
}

// heldIDs returns the held threads, in order.
func (r *repl) heldIDs() []int {
	var ids []int
	for id := range r.held {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}

// prompt is the REPL's prompt: while threads are held and the others
// run, it names the held ones, the selected one marked *.
func (r *repl) prompt() string {
	ids := r.heldIDs()
	if len(ids) == 0 || r.exited {
		return "(nlangdbg) "
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(id)
		if id == r.thread {
			parts[i] += "*"
		}
	}
	return "(nlangdbg) [stopped: " + strings.Join(parts, " ") + "] "
}

// showHeldStop tells of a thread held while the REPL was not waiting
// for a stop (at the prompt, or during a command): one line, and the
// selected thread stays selected, as gdb's non-stop mode does.
func (r *repl) showHeldStop(e *api.StoppedEvent) {
	what := e.Body.Description
	if ids := r.localBPIDs(e.Body.HitBreakpointIds); len(ids) > 0 {
		what = "Breakpoint " + strings.Join(ids, ", ")
	}
	if what == "" {
		what = e.Body.Reason
	}
	where := ""
	if fs, err := r.stack(e.Body.ThreadId, 0, 1); err == nil && len(fs) > 0 {
		where = fmt.Sprintf(" at %s (%s:%d)", fs[0].Name, r.frameFile(fs[0]), fs[0].Line)
	}
	r.printf("Thread %d %q stopped: %s%s (thread %d selects it)\n", e.Body.ThreadId, r.threadName(e.Body.ThreadId), what, where, e.Body.ThreadId)
}

// othersHeld reports whether threads other than the selected one are
// held: the program runs, and the prompt has stopped threads to show.
func (r *repl) othersHeld() bool {
	for id := range r.held {
		if id != r.thread {
			return true
		}
	}
	return false
}

// resumeHeld resumes the selected thread alone while other threads stay
// held (non-stop): the REPL does not wait for its next stop, as it waits
// when the whole program runs; the prompt comes back at once, and the
// stop will be told of when it comes.
func (r *repl) resumeHeld(req dap.RequestMessage) error {
	if _, err := r.c.call(req); err != nil {
		return err
	}
	r.stopped = false
	delete(r.held, r.thread) // (before its continued event comes)
	r.printf("Thread %d runs; stopped: %s\n", r.thread, joinInts(r.heldIDs()))
	return nil
}

func joinInts(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, " ")
}

// continueAll is `continue -a`: every held thread goes on (every thread,
// if the program is stopped).
func (r *repl) continueAll() error {
	if len(r.held) == 0 {
		return r.resume(&dap.ContinueRequest{Request: request("continue"), Arguments: dap.ContinueArguments{ThreadId: max(r.thread, 1)}})
	}
	// thread 0 while the program runs: every held thread
	return r.resume(&dap.ContinueRequest{Request: request("continue"), Arguments: dap.ContinueArguments{ThreadId: 0}})
}

// cmdNonStop is `nonstop [on|off]` (and `set non-stop on|off`).
func cmdNonStop(r *repl, args string) error {
	var a api.NonStopArgs
	switch strings.TrimSpace(args) {
	case "":
	case "on":
		on := true
		a.On = &on
	case "off":
		off := false
		a.On = &off
	default:
		return fmt.Errorf("usage: nonstop [on|off] (got %q)", args)
	}
	body, err := r.c.callCustom(api.CmdNonStop, a)
	if err != nil {
		return err
	}
	b := body.(api.NonStopBody)
	if b.On {
		r.printf("Non-stop mode is on: a breakpoint stops only the thread that reaches it, the others keep running\n(break LOC all-threads stops every thread).\n")
	} else {
		r.printf("Non-stop mode is off: a breakpoint stops every thread (break LOC thread-only stops one).\n")
	}
	return nil
}

// cutMode takes a breakpoint's mode out of its arguments: a -thread flag
// or a trailing thread-only (gdb's habit) for "thread", all-threads for
// "all".
func cutMode(args string) (rest, mode string) {
	f := strings.Fields(args)
	var kept []string
	for _, w := range f {
		switch w {
		case "-thread", "thread-only":
			mode = modeThread
		case "-all", "all-threads":
			mode = "all"
		default:
			kept = append(kept, w)
		}
	}
	if mode == "" {
		return args, ""
	}
	return strings.Join(kept, " "), mode
}

// modeName is how the breakpoints list shows a mode.
func modeName(mode string) string {
	switch mode {
	case modeThread:
		return " (thread only)"
	case "all":
		return " (all threads)"
	}
	return ""
}

// modeSourceBreakpoint is a SourceBreakpoint with its mode (DAP 1.65),
// which go-dap does not know.
type modeSourceBreakpoint struct {
	dap.SourceBreakpoint
	Mode string `json:"mode,omitempty"`
}

// modeFunctionBreakpoint is a FunctionBreakpoint with its mode.
type modeFunctionBreakpoint struct {
	dap.FunctionBreakpoint
	Mode string `json:"mode,omitempty"`
}

// setBreakpointsRequest is setBreakpoints with the breakpoints' modes.
type setBreakpointsRequest struct {
	dap.Request
	Arguments struct {
		Source      dap.Source             `json:"source"`
		Breakpoints []modeSourceBreakpoint `json:"breakpoints"`
	} `json:"arguments"`
}

// setFunctionBreakpointsRequest is setFunctionBreakpoints with modes.
type setFunctionBreakpointsRequest struct {
	dap.Request
	Arguments struct {
		Breakpoints []modeFunctionBreakpoint `json:"breakpoints"`
	} `json:"arguments"`
}

// cmdInterrupt is `interrupt [-a | THREAD]` (and pause): without
// arguments it stops the program; in non-stop mode, or while threads
// are held, THREAD stops that thread alone, -a every thread.
func cmdInterrupt(r *repl, args string) error {
	args = strings.TrimSpace(args)
	switch {
	case args == "-a":
		if r.stopped && len(r.held) == 0 {
			return errors.New("the program is already stopped")
		}
		if _, err := r.c.call(&dap.PauseRequest{Request: request("pause"), Arguments: dap.PauseArguments{ThreadId: 0}}); err != nil {
			return err
		}
		return r.waitStop()
	case args != "":
		id, err := api.ParseThreadID(args)
		if err != nil {
			return fmt.Errorf("usage: interrupt [-a | THREAD] (%v)", err)
		}
		if r.held[int(id)] {
			return fmt.Errorf("thread %d is already stopped", id)
		}
		if r.stopped && len(r.held) == 0 {
			return errors.New("the program is already stopped")
		}
		if _, err := r.c.call(&dap.PauseRequest{Request: request("pause"), Arguments: dap.PauseArguments{ThreadId: int(id)}}); err != nil {
			return err
		}
		r.thread = int(id)
		return r.waitStop()
	}
	if r.stopped && len(r.held) > 0 {
		return fmt.Errorf("thread %d is stopped; the others run (interrupt THREAD stops one more, interrupt -a every thread)", r.thread)
	}
	return cmdPause(r, "")
}

// whilePrompting shows what arrives from the program while the prompt
// waits for a line and threads are held while others run: the running
// threads' output, and the stops of other threads, printed above the
// prompt. Before each batch it clears the line being edited ("\r\x1b[K")
// and after it calls redraw, which draws the prompt and the typed text
// again (liner does that on SIGWINCH). The returned function ends it;
// the events it has not taken stay for the REPL. It does nothing when
// no thread is held (an all-stop session's prompt is as it always was).
func (r *repl) whilePrompting(redraw func()) (stop func()) {
	if len(r.held) == 0 || r.exited {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	var once sync.Once
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case m, ok := <-r.c.Events:
				if !ok {
					return
				}
				r.aboveMu.Lock() // (not while Tab completes: completeWord)
				io.WriteString(r.out, "\r\x1b[K")
				r.eventAbove(m)
				for more := true; more; {
					select {
					case m, ok := <-r.c.Events:
						if !ok {
							more = false
							break
						}
						r.eventAbove(m)
					default:
						more = false
					}
				}
				r.aboveMu.Unlock()
				if redraw != nil {
					redraw()
				}
			}
		}
	}()
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}
}

// eventAbove handles an event that came while the prompt waited: output
// ends with a newline (the prompt is drawn again below it).
func (r *repl) eventAbove(m dap.Message) {
	if o, ok := m.(*dap.OutputEvent); ok && !strings.HasSuffix(o.Body.Output, "\n") {
		c := *o
		c.Body.Output += "\n"
		m = &c
	}
	r.event(m)
}
