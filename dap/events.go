package dap

import (
	"strings"
	"sync"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/inspect"
)

// listener turns one inspect session's events into DAP events. Its
// methods run on the carrier goroutine (or on the read loop, inside the
// request that caused them); they never call back into the program.
type listener struct {
	c        *session
	attached bool // the program runs on without the session
}

var _ inspect.Listener = (*listener)(nil)

// deadlockPrefix starts the scheduler's deadlock report.
const deadlockPrefix = "fatal: all threads are asleep - deadlock!"

// Stopped sends a stopped event. A deadlock is shown as an exception
// whose text is the report.
func (l *listener) Stopped(info inspect.StopInfo) {
	c := l.c
	c.mu.Lock()
	c.stops++
	report := c.report
	c.mu.Unlock()
	body := dap.StoppedEventBody{
		Reason:            string(info.Reason),
		Description:       info.Description,
		ThreadId:          int(info.ThreadID),
		Text:              info.Text,
		AllThreadsStopped: info.AllThreadsStopped,
		HitBreakpointIds:  c.clientBPIDs(info.HitBreakpointIDs),
	}
	switch info.Reason {
	case inspect.ReasonDeadlock:
		body.Reason = "exception"
		body.Description = "Deadlock"
		if report != "" {
			body.Text = strings.TrimRight(report, "\n")
		}
	case inspect.ReasonSafepoint:
		body.Reason = "step"
	case inspect.ReasonSched:
		body.Reason = "pause"
	}
	stop := &api.Stop{Reason: string(info.Reason), Back: info.Back, Reload: info.Reload, Held: !info.AllThreadsStopped, Recorded: info.Recorded}
	if ch := info.Change; ch != nil {
		stop.Change = &api.DataChange{Name: ch.Name, Old: ch.Old, New: ch.New, Read: ch.Read}
	}
	c.send(&api.StoppedEvent{Event: newEvent("stopped"), Body: api.StoppedEventBody{StoppedEventBody: body, Nlang: stop}})
}

// Continued sends a continued event.
func (l *listener) Continued(threadID int64, all bool) {
	l.c.send(&dap.ContinuedEvent{Event: newEvent("continued"),
		Body: dap.ContinuedEventBody{ThreadId: int(threadID), AllThreadsContinued: all}})
}

// ThreadStarted sends a thread event (once per thread: main's may have
// been announced at launch).
func (l *listener) ThreadStarted(id int64) {
	c := l.c
	c.mu.Lock()
	known := c.live[id]
	c.live[id] = true
	c.mu.Unlock()
	if known {
		return
	}
	c.send(&dap.ThreadEvent{Event: newEvent("thread"), Body: dap.ThreadEventBody{Reason: "started", ThreadId: int(id)}})
}

// ThreadExited sends a thread event.
func (l *listener) ThreadExited(id int64) {
	c := l.c
	c.mu.Lock()
	delete(c.live, id)
	delete(c.names, id)
	c.mu.Unlock()
	c.send(&dap.ThreadEvent{Event: newEvent("thread"), Body: dap.ThreadEventBody{Reason: "exited", ThreadId: int(id)}})
}

// Output sends program output and debugger notes, in order. It keeps a
// deadlock report for the stop that follows it.
func (l *listener) Output(category, text string) {
	c := l.c
	if category == "stderr" && strings.HasPrefix(text, deadlockPrefix) {
		c.mu.Lock()
		c.report = text
		c.mu.Unlock()
	}
	c.sendOutput(category, text)
}

// Exited sends exited and terminated. An attached client is then
// disconnected: the program is over.
func (l *listener) Exited(code int) {
	c := l.c
	c.mu.Lock()
	c.exited = true
	c.mu.Unlock()
	c.send(&dap.ExitedEvent{Event: newEvent("exited"), Body: dap.ExitedEventBody{ExitCode: code}})
	c.send(&dap.TerminatedEvent{Event: newEvent("terminated")})
	if l.attached {
		c.closeSoon()
	}
}

// sendTerminated tells the client the session is over.
func (c *session) sendTerminated() {
	c.send(&dap.TerminatedEvent{Event: newEvent("terminated")})
}

// attachMux is the listener of a Server's Attach program. It forwards the
// events to the attached client, if any; while none is attached it keeps
// the program running (a stop that no one can see, such as a deadlock,
// is resumed, so the program ends as it would without a debugger).
type attachMux struct {
	prog   *inspect.Session
	mu     sync.Mutex
	cur    inspect.Listener
	exited chan struct{}
	once   sync.Once
}

var _ inspect.Listener = (*attachMux)(nil)

func newAttachMux(prog *inspect.Session) *attachMux {
	return &attachMux{prog: prog, exited: make(chan struct{})}
}

// set makes l the attached client's listener (nil: detached).
func (m *attachMux) set(l inspect.Listener) {
	m.mu.Lock()
	m.cur = l
	m.mu.Unlock()
}

func (m *attachMux) get() inspect.Listener {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cur
}

// Stopped forwards the stop, or resumes the program when detached.
func (m *attachMux) Stopped(info inspect.StopInfo) {
	if l := m.get(); l != nil {
		l.Stopped(info)
		return
	}
	// Listener methods must not call into the session synchronously.
	go m.prog.Continue(info.ThreadID, false)
}

// Continued forwards the event.
func (m *attachMux) Continued(threadID int64, all bool) {
	if l := m.get(); l != nil {
		l.Continued(threadID, all)
	}
}

// ThreadStarted forwards the event.
func (m *attachMux) ThreadStarted(id int64) {
	if l := m.get(); l != nil {
		l.ThreadStarted(id)
	}
}

// ThreadExited forwards the event.
func (m *attachMux) ThreadExited(id int64) {
	if l := m.get(); l != nil {
		l.ThreadExited(id)
	}
}

// Output forwards debugger notes (the program's own output goes to the
// process's stdout and stderr).
func (m *attachMux) Output(category, text string) {
	if l := m.get(); l != nil {
		l.Output(category, text)
	}
}

// Exited forwards the event and then reports the end to Serve.
func (m *attachMux) Exited(code int) {
	if l := m.get(); l != nil {
		l.Exited(code)
	}
	m.once.Do(func() { close(m.exited) })
}
