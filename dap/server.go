package dap

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/inspect"
)

// Error ids of error responses (body.error.id).
const (
	errUnsupported   = 1000 // a request this adapter does not implement
	errMalformed     = 1001 // a message that is not valid JSON or not DAP
	errBadArguments  = 1002 // arguments of the wrong shape or value
	errInternal      = 1003 // a panic while handling a request
	errRefused       = 1004 // the server does not serve this client
	errToken         = 1005 // launch or attach without the server's token
	errNotLaunched   = 1010 // a request that needs a program before launch/attach
	errLaunch        = 1011 // launch failed (compile error, missing file, …)
	errAttach        = 1012 // attach failed
	errRestart       = 1013 // restart failed
	errRunning       = 1020 // the program must be stopped for this request
	errExecution     = 1021 // continue, step or pause failed
	errStackTrace    = 1030
	errScopes        = 1031
	errVariables     = 1032
	errEvaluate      = 1033
	errSetVariable   = 1034
	errSource        = 1036
	errExceptionInfo = 1037
)

// Server serves DAP sessions over any connection. Its fields must be set
// before the first ServeConn or Serve.
type Server struct {
	// ReplCommands, if set, is offered every expression evaluated in the
	// "repl" context first: when it returns true, its text is the result
	// and the expression is not evaluated as NLang. The REPL fills it
	// with its debugger commands.
	ReplCommands func(expr string) (string, bool)

	// Attach, if set, is a program that already runs (`nlangdbg run
	// --listen`): clients debug it with attach, and launch is refused.
	// Serve then returns when the program ends.
	Attach *inspect.Session

	// Log, if set, receives one line per message in ("<-") and out ("->").
	Log io.Writer

	// Token, if set, must be the "token" argument of launch and attach; a
	// client that gives another is answered an error and disconnected.
	Token string

	// AcceptMulticlient lets Serve queue a client that connects while
	// another is being served (it is served next); without it such a
	// client is refused with a message.
	AcceptMulticlient bool

	// HandshakeTimeout bounds, in Serve, the time from a connection to
	// its successful launch or attach; a client that takes longer (or
	// sends nothing) is dropped. 0 means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration

	// DebugLog, if set, receives the Go stacks of the internal errors of
	// launched programs (see inspect.Config.DebugLog).
	DebugLog io.Writer

	// Stdin, if set, is the input of the programs launched without the
	// launch arguments "stdin" or "console" (nil: empty input). The
	// terminal debugger, which runs its server in-process, gives its
	// terminal.
	Stdin io.Reader

	logMu    sync.Mutex
	mux      *attachMux // the Attach session's listener (made once)
	once     sync.Once
	activeMu sync.Mutex
	active   *session // the session ServeConn serves (the last one, if several)
}

// NewAttachServer returns a Server for a program that already runs (or
// is about to: call it before prog.ConfigurationDone). From then on the
// program's events go through the server, which keeps the program
// running while no client is attached.
func NewAttachServer(prog *inspect.Session) *Server {
	s := &Server{Attach: prog}
	s.setup()
	return s
}

// ServeConn runs one DAP session on rw until the client disconnects or
// rw fails, then closes rw. A launched program still running at that
// point is terminated; an attached one is detached and left running.
func (s *Server) ServeConn(rw io.ReadWriteCloser) error {
	return s.serveConn(rw, 0)
}

// serveConn is ServeConn; a handshake above 0 is the time the client has
// to launch or attach (rw must then be a net.Conn).
func (s *Server) serveConn(rw io.ReadWriteCloser, handshake time.Duration) error {
	s.setup()
	c := newSession(s, rw)
	if conn, ok := rw.(net.Conn); ok && handshake > 0 {
		conn.SetReadDeadline(time.Now().Add(handshake))
		c.handshake = conn
	}
	s.setActive(c)
	defer s.setActive(nil)
	defer c.cleanup()
	if s.mux != nil {
		select {
		case <-s.mux.exited: // the attached program is over
			c.closeSoon()
		default:
		}
	}
	return c.readLoop()
}

// Serve accepts clients on ln one after another, serving each with
// ServeConn. A client from another user (see docs/security.md) is
// refused, and so is a client that connects while another is served,
// unless AcceptMulticlient is set; every client must launch or attach
// within HandshakeTimeout. Without Attach Serve returns when ln fails
// (e.g. is closed). With Attach it returns, closing ln, once the attached
// program has ended and its client (if any) has been told and
// disconnected.
func (s *Server) Serve(ln net.Listener) error {
	s.setup()
	conns := make(chan net.Conn)
	acceptErr := make(chan error, 1)
	stop := make(chan struct{})
	var busy atomic.Bool
	handshake := s.HandshakeTimeout
	if handshake <= 0 {
		handshake = DefaultHandshakeTimeout
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				acceptErr <- err
				return
			}
			if err := s.checkPeer(conn); err != nil {
				s.logf("refused %s: %v", conn.RemoteAddr(), err)
				go refuse(conn, err.Error())
				continue
			}
			if !s.AcceptMulticlient {
				if !busy.CompareAndSwap(false, true) {
					why := "the server is busy with another client: one at a time is served"
					if s.Attach != nil {
						why = "another debugger is attached to this program (it must detach first)"
					}
					go refuse(conn, why+"; start the server with --accept-multiclient to queue clients")
					continue
				}
				conn = &oneClient{Conn: conn, busy: &busy}
			}
			select {
			case conns <- conn:
			case <-stop: // a client that connected at the end gets nothing
				conn.Close()
				return
			}
		}
	}()
	var exited <-chan struct{} // never ready without Attach
	if s.mux != nil {
		exited = s.mux.exited
	}
	end := func() error {
		close(stop)
		ln.Close()
		return nil
	}
	for {
		select {
		case conn := <-conns:
			done := make(chan struct{})
			go func() {
				s.serveConn(conn, handshake)
				close(done)
			}()
			select {
			case <-done:
			case <-exited:
				// The program is over: the session ends once what it
				// holds back has gone out.
				s.closeActive()
				<-done
				return end()
			}
		case err := <-acceptErr:
			return err
		case <-exited:
			return end()
		}
	}
}

// closeActive ends the session being served, if any, once its pending
// messages are out.
func (s *Server) closeActive() {
	s.activeMu.Lock()
	c := s.active
	s.activeMu.Unlock()
	if c != nil {
		c.closeSoon()
	}
}

// setActive records the session being served (nil: none).
func (s *Server) setActive(c *session) {
	s.activeMu.Lock()
	s.active = c
	s.activeMu.Unlock()
}

// setup installs the attach multiplexer once.
func (s *Server) setup() {
	s.once.Do(func() {
		if s.Attach != nil {
			s.mux = newAttachMux(s.Attach)
			s.Attach.SetListener(s.mux)
		}
	})
}

// logf writes a line to the log, if any.
func (s *Server) logf(format string, args ...any) {
	if s.Log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.Log, format+"\n", args...)
}

// readLoop reads and handles requests until the connection ends or the
// client disconnects.
func (c *session) readLoop() error {
	done := make(chan struct{})
	defer close(done)
	c.readDone = done
	for !c.disconnected {
		content, err := c.nextMessage(done) // (cancel.go)
		if err != nil {
			var ne net.Error
			if c.handshake != nil && errors.As(err, &ne) && ne.Timeout() {
				c.sendOutput("stderr", "nlangdbg dap: no launch or attach in time; closing the connection\n")
				return err
			}
			if errors.Is(err, errHeaderTooLong) {
				c.sendOutput("stderr", fmt.Sprintf("nlangdbg dap: %v; closing the connection\n", err))
				return err
			}
			var bpe *dap.BaseProtocolError
			var numErr *strconv.NumError // a Content-Length past 2^63-1
			if errors.As(err, &numErr) {
				err = &dap.BaseProtocolError{Err: fmt.Sprintf("Content-Length %s is out of range", numErr.Num)}
			}
			if errors.As(err, &bpe) {
				// The framing is lost: there is no telling where the next
				// message starts.
				c.sendOutput("stderr", fmt.Sprintf("nlangdbg dap: %v; closing the connection\n", err))
				return err
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		c.srv.logf("<- %s", content)
		if c.customRequest(content) { // nlang/… (scheduler.go)
			continue
		}
		msg, err := dap.DecodeProtocolMessage(content)
		if err != nil {
			c.badMessage(content, err)
			continue
		}
		switch m := msg.(type) {
		case dap.RequestMessage:
			c.raw, c.curSeq = content, m.GetRequest().Seq
			c.handle(m)
			c.raw = nil
		case *dap.RunInTerminalResponse:
			c.onRunInTerminalResponse(m) // (console.go)
		case *dap.ErrorResponse:
			if m.Command == "runInTerminal" {
				c.onRunInTerminalError(m)
			}
		}
		// Other responses and events from the client are ignored.
	}
	return nil
}

// seqPattern finds a request's seq in a message that is not valid JSON.
var seqPattern = regexp.MustCompile(`"seq"\s*:\s*([0-9]+)`)

// badMessage answers a message that did not decode: an unknown command,
// arguments of the wrong shape, or malformed JSON. The session goes on.
func (c *session) badMessage(content []byte, err error) {
	var head struct {
		Seq     int    `json:"seq"`
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	c.hold()
	defer c.release()
	jsonErr := json.Unmarshal(content, &head)
	var fieldErr *dap.DecodeProtocolMessageFieldError
	id, text := errMalformed, fmt.Sprintf("malformed message: %v", err)
	switch {
	case jsonErr != nil:
		if m := seqPattern.FindSubmatch(content); m != nil {
			head.Seq, _ = strconv.Atoi(string(m[1]))
		}
		head.Command = ""
		c.sendOutput("console", fmt.Sprintf("nlangdbg dap: %s\n", text))
	case errors.As(err, &fieldErr) && fieldErr.SubType == "Request":
		id, text = errUnsupported, fmt.Sprintf("unsupported command %q", head.Command)
	case head.Type == "request":
		id, text = errBadArguments, fmt.Sprintf("bad arguments for %q: %v", head.Command, err)
	case head.Type == "response" || head.Type == "event":
		// A response or event we cannot decode: nothing to answer.
		c.sendOutput("console", fmt.Sprintf("nlangdbg dap: ignoring %s\n", text))
		return
	default:
		c.sendOutput("console", fmt.Sprintf("nlangdbg dap: %s\n", text))
	}
	c.sendErrorResponse(head.Seq, head.Command, id, text)
}

// handle answers one request. The events it causes go out after its
// response.
func (c *session) handle(req dap.RequestMessage) {
	c.hold()
	defer c.release()
	defer c.recoverPanic(req)
	c.dispatch(req)
}

// recoverPanic turns a panic in a handler into an error response, so
// that nothing a client sends can stop the server.
func (c *session) recoverPanic(req dap.RequestMessage) {
	if r := recover(); r != nil {
		c.srv.logf("panic in %s: %v\n%s", req.GetRequest().Command, r, debug.Stack())
		c.sendError(req, errInternal, fmt.Sprintf("internal error in %s: %v", req.GetRequest().Command, r))
	}
}

// dispatch calls the handler of req. Each handler sends exactly one
// response.
func (c *session) dispatch(req dap.RequestMessage) {
	switch req := req.(type) {
	case *dap.InitializeRequest: // Required
		c.onInitializeRequest(req)
	case *dap.LaunchRequest: // Required
		c.onLaunchRequest(req)
	case *dap.AttachRequest: // Required
		c.onAttachRequest(req)
	case *dap.ConfigurationDoneRequest: // Optional (capability 'supportsConfigurationDoneRequest')
		c.onConfigurationDoneRequest(req)
	case *dap.DisconnectRequest: // Required
		c.onDisconnectRequest(req)
	case *dap.TerminateRequest: // Optional (capability 'supportsTerminateRequest')
		c.onTerminateRequest(req)
	case *dap.RestartRequest: // Optional (capability 'supportsRestartRequest')
		c.onRestartRequest(req)
	case *dap.SetBreakpointsRequest: // Required
		c.onSetBreakpointsRequest(req)
	case *dap.SetFunctionBreakpointsRequest: // Optional (capability 'supportsFunctionBreakpoints')
		c.onSetFunctionBreakpointsRequest(req)
	case *dap.SetExceptionBreakpointsRequest: // Optional (capability 'exceptionBreakpointFilters')
		c.onSetExceptionBreakpointsRequest(req)
	case *dap.ExceptionInfoRequest: // Optional (capability 'supportsExceptionInfoRequest')
		c.stillRequest(func() { c.onExceptionInfoRequest(req) })
	case *dap.ContinueRequest: // Required
		c.onContinueRequest(req)
	case *dap.NextRequest: // Required
		c.onNextRequest(req)
	case *dap.StepInRequest: // Required
		c.onStepInRequest(req)
	case *dap.StepOutRequest: // Required
		c.onStepOutRequest(req)
	case *dap.StepBackRequest: // Optional (capability 'supportsStepBack')
		c.onStepBackRequest(req)
	case *dap.ReverseContinueRequest: // Optional (capability 'supportsStepBack')
		c.onReverseContinueRequest(req)
	case *dap.PauseRequest: // Required
		c.onPauseRequest(req)
	case *dap.ThreadsRequest: // Required
		c.onThreadsRequest(req)
	case *dap.StackTraceRequest: // Required
		c.cancellable(req, func() { c.stillRequest(func() { c.onStackTraceRequest(req) }) })
	case *dap.ScopesRequest: // Required
		c.stillRequest(func() { c.onScopesRequest(req) })
	case *dap.VariablesRequest: // Required
		c.cancellable(req, func() { c.stillRequest(func() { c.onVariablesRequest(req) }) })
	case *dap.EvaluateRequest: // Required
		c.cancellable(req, func() { c.stillRequest(func() { c.onEvaluateRequest(req) }) })
	case *dap.SetVariableRequest: // Optional (capability 'supportsSetVariable')
		c.stillRequest(func() { c.onSetVariableRequest(req) })
	case *dap.SourceRequest: // Required
		c.onSourceRequest(req)
	case *dap.LoadedSourcesRequest: // Optional (capability 'supportsLoadedSourcesRequest')
		c.onLoadedSourcesRequest(req)
	case *dap.DisassembleRequest: // Optional (capability 'supportsDisassembleRequest')
		c.stillRequest(func() { c.onDisassembleRequest(req) })
	case *dap.SetInstructionBreakpointsRequest: // Optional (capability 'supportsInstructionBreakpoints')
		c.onSetInstructionBreakpointsRequest(req)
	case *dap.TerminateThreadsRequest: // Optional (capability 'supportsTerminateThreadsRequest')
		c.onTerminateThreadsRequest(req)
	case *dap.RestartFrameRequest: // Optional (capability 'supportsRestartFrame')
		c.onRestartFrameRequest(req)
	case *dap.GotoTargetsRequest: // Optional (capability 'supportsGotoTargetsRequest')
		c.onGotoTargetsRequest(req)
	case *dap.GotoRequest: // Optional (capability 'supportsGotoTargetsRequest')
		c.onGotoRequest(req)
	case *dap.DataBreakpointInfoRequest: // Optional (capability 'supportsDataBreakpoints')
		c.stillRequest(func() { c.onDataBreakpointInfoRequest(req) })
	case *dap.SetDataBreakpointsRequest: // Optional (capability 'supportsDataBreakpoints')
		c.onSetDataBreakpointsRequest(req)
	case *dap.CompletionsRequest: // Optional (capability 'supportsCompletionsRequest')
		c.stillRequest(func() { c.onCompletionsRequest(req) })
	case *dap.SetExpressionRequest: // Optional (capability 'supportsSetExpression')
		c.stillRequest(func() { c.onSetExpressionRequest(req) })
	case *dap.BreakpointLocationsRequest: // Optional (capability 'supportsBreakpointLocationsRequest')
		c.onBreakpointLocationsRequest(req)
	case *dap.StepInTargetsRequest: // Optional (capability 'supportsStepInTargetsRequest')
		c.stillRequest(func() { c.onStepInTargetsRequest(req) })
	case *dap.CancelRequest: // Optional (capability 'supportsCancelRequest')
		c.onCancelRequest(req)
	default:
		// Not advertised: modules, readMemory, writeMemory, and the
		// others go-dap knows that this adapter does not implement.
		c.sendError(req, errUnsupported, fmt.Sprintf("unsupported command %q", req.GetRequest().Command))
	}
}

// session is one client connection.
type session struct {
	srv *Server
	rw  io.ReadWriteCloser
	r   *bufio.Reader

	// wmu guards the writer: seq, the held events and the state of rw.
	wmu     sync.Mutex
	seq     int
	holding bool
	held    []dap.Message
	broken  bool // rw failed or was closed
	// out holds the framed messages not written yet: those of the request
	// being handled (holding) go out in one write when it ends, so that a
	// response and the events it causes cost the client one wake-up.
	out        []byte
	closeAfter bool    // close rw once the held events are out
	cancelled  cancels // requests cancelled (cancel.go)
	// The reader goroutine of long requests (cancel.go): its messages,
	// while it runs; whether a long request runs; the read loop's end.
	ahead    chan readResult
	long     atomic.Bool
	readDone chan struct{}
	// console is debugger output (log points) not sent yet: console
	// lines that come in a burst go out as one output event, at most
	// consoleDelay after the first (a log point on a hot loop would
	// otherwise cost one event, and the client's decoding of it, per hit).
	console      strings.Builder
	consoleTimer *time.Timer

	// The fields below belong to the read loop.
	raw          []byte // the request being handled, as read (for fields go-dap does not know)
	curSeq       int    // its seq
	client       clientCaps
	term         *termLaunch // a launch waiting for its terminal (console.go)
	termConn     net.Conn    // the program's terminal (console.go)
	stdinFile    *os.File    // the program's input file (launch "stdin")
	disconnected bool        // disconnect answered: stop reading
	handshake    net.Conn    // until launch or attach: its read deadline is set
	initialized  bool
	prog         *inspect.Session
	lis          *listener
	args         launchArgs // of the launch (for restart)
	attached     bool
	configured   bool
	frames       handles[frameRef]
	indexed      map[int]bool    // variables references with indexed children
	srcRefs      handles[string] // source references (never reset)
	srcNames     sourceNames     // the names sources are shown by (sources.go)
	srcBps       map[string][]dap.SourceBreakpoint
	funcBps      []dap.FunctionBreakpoint
	// the modes of srcBps and funcBps (DAP 1.65; "": the session's)
	srcModes  map[string][]string
	funcModes []string
	// Breakpoint ids the client sees are the session's own: a breakpoint
	// set before launch gets one at once and keeps it when the program
	// places it. bpIDs maps inspect's ids to them; pendingIDs holds the
	// ids given before launch (per file; "" for function breakpoints).
	bpIDs      map[int]int
	pendingIDs map[string][]int
	nextBPID   int
	excFilters []inspect.ExceptionFilter
	excOptions []inspect.ExceptionOption
	focused    []int64   // threads asked for stackTrace, most recent first
	past       pastState // the questions about the past (past.go)

	// locs are the location references (never reset; locations.go).
	locs handles[inspect.Place]

	// mu guards what the listener shares with the read loop.
	mu        sync.Mutex
	live      map[int64]bool   // started, not exited
	names     map[int64]string // thread names from the last listing
	report    string           // the last deadlock report seen on stderr
	stops     int              // number of stops so far
	notedStop int              // the stop whose threads listing was noted as capped
	exited    bool
}

// frameRef is what a frame id stands for.
type frameRef struct {
	thread int64
	depth  int
}

func newSession(srv *Server, rw io.ReadWriteCloser) *session {
	return &session{srv: srv, rw: rw, r: bufio.NewReader(&headerLimitReader{r: rw}),
		srcBps: map[string][]dap.SourceBreakpoint{}, srcModes: map[string][]string{}, bpIDs: map[int]int{}, pendingIDs: map[string][]int{},
		live: map[int64]bool{}, names: map[int64]string{}, notedStop: -1}
}

// cleanup ends the session: a launched program is terminated, an
// attached one detached.
func (c *session) cleanup() {
	if c.prog != nil {
		if c.attached {
			c.detach()
		} else {
			c.prog.SetListener(nil)
			c.prog.Terminate()
		}
		c.prog = nil
	}
	c.closeIO()
	if c.termConn != nil {
		c.termConn.Close() // the console in the client's terminal ends
	}
	if c.term != nil {
		c.term.ln.Close()
	}
	c.wmu.Lock()
	c.broken = true
	c.wmu.Unlock()
	c.rw.Close()
}

// hold starts holding events back until release.
func (c *session) hold() {
	c.wmu.Lock()
	c.holding = true
	c.wmu.Unlock()
}

// release sends the events held back.
func (c *session) release() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for _, m := range c.held { // still holding: they join c.out
		c.writeLocked(m)
	}
	c.held = nil
	c.holding = false
	c.flushOutLocked()
	if c.closeAfter {
		c.closeLocked()
	}
}

// send sends an event, or holds it back while a request is handled.
func (c *session) send(m dap.Message) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.holding {
		c.held = append(c.held, m)
		return
	}
	c.writeLocked(m)
}

// respond sends a response at once. Must be called by the read loop.
func (c *session) respond(m dap.ResponseMessage) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.writeLocked(m)
}

// closeSoon closes the connection once the held events are out.
func (c *session) closeSoon() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.holding {
		c.closeAfter = true
		return
	}
	c.closeLocked()
}

// closeLocked closes rw. Must hold c.wmu.
func (c *session) closeLocked() {
	c.flushConsoleLocked()
	c.flushOutLocked()
	c.broken = true
	c.rw.Close()
}

// writeLocked numbers m and writes it. Must hold c.wmu.
func (c *session) writeLocked(m dap.Message) {
	if c.broken {
		return
	}
	if o, ok := m.(*dap.OutputEvent); ok && o.Body.Category == "console" && o.Body.VariablesReference == 0 && o.Body.Source == nil && o.Body.Group == "" {
		if c.console.Len()+len(o.Body.Output) > maxConsoleBatch {
			c.flushConsoleLocked()
		}
		c.console.WriteString(o.Body.Output)
		if c.consoleTimer == nil {
			c.consoleTimer = time.AfterFunc(consoleDelay, c.flushConsole)
		}
		return
	}
	c.flushConsoleLocked() // what came before goes out first
	c.writeMessageLocked(m)
}

// Console output batching (see session.console).
const (
	consoleDelay    = 2 * time.Millisecond
	maxConsoleBatch = 32 << 10
)

// flushConsole sends the batched console output.
func (c *session) flushConsole() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.flushConsoleLocked()
}

// flushConsoleLocked sends the batched console output, if any. Must hold
// c.wmu.
func (c *session) flushConsoleLocked() {
	if c.consoleTimer != nil {
		c.consoleTimer.Stop()
		c.consoleTimer = nil
	}
	if c.console.Len() == 0 || c.broken {
		c.console.Reset()
		return
	}
	text := c.console.String()
	c.console.Reset()
	c.writeMessageLocked(&dap.OutputEvent{Event: newEvent("output"), Body: dap.OutputEventBody{Category: "console", Output: text}})
}

// writeMessageLocked numbers m and writes it, header and content in one
// write; while a request is handled it only adds it to c.out (release
// writes it). Must hold c.wmu.
func (c *session) writeMessageLocked(m dap.Message) {
	c.seq++
	switch m := m.(type) {
	case dap.RequestMessage: // a reverse request (runInTerminal)
		m.GetRequest().Seq = c.seq
		m.GetRequest().Type = "request"
	case dap.ResponseMessage:
		m.GetResponse().Seq = c.seq
		m.GetResponse().Type = "response"
	case dap.EventMessage:
		m.GetEvent().Seq = c.seq
		m.GetEvent().Type = "event"
	}
	b, err := json.Marshal(m)
	if err != nil {
		c.broken = true
		return
	}
	if c.srv.Log != nil {
		c.srv.logf("-> %s", b)
	}
	c.out = fmt.Appendf(c.out, "Content-Length: %d\r\n\r\n", len(b))
	c.out = append(c.out, b...)
	if !c.holding {
		c.flushOutLocked()
	}
}

// flushOutLocked writes c.out. Must hold c.wmu.
func (c *session) flushOutLocked() {
	if len(c.out) == 0 {
		return
	}
	if !c.broken {
		if _, err := c.rw.Write(c.out); err != nil {
			c.broken = true
		}
	}
	if cap(c.out) > 64<<10 { // a large response: do not keep its buffer
		c.out = nil
	} else {
		c.out = c.out[:0]
	}
}

// newResponse returns a successful response to req.
func newResponse(req dap.RequestMessage) dap.Response {
	r := req.GetRequest()
	return dap.Response{RequestSeq: r.Seq, Command: r.Command, Success: true}
}

// newEvent returns an event header.
func newEvent(name string) dap.Event {
	return dap.Event{Event: name}
}

// sendError answers req with an error.
func (c *session) sendError(req dap.RequestMessage, id int, msg string) {
	r := req.GetRequest()
	c.sendErrorResponse(r.Seq, r.Command, id, msg)
}

func (c *session) sendErrorResponse(seq int, command string, id int, msg string) {
	c.respond(&dap.ErrorResponse{
		Response: dap.Response{RequestSeq: seq, Command: command, Success: false, Message: msg},
		Body:     dap.ErrorResponseBody{Error: &dap.ErrorMessage{Id: id, Format: msg, ShowUser: true}},
	})
}

// sendOutput sends an output event.
func (c *session) sendOutput(category, text string) {
	if category == "console" {
		text = c.styleNote(text)
	}
	c.send(&dap.OutputEvent{Event: newEvent("output"), Body: dap.OutputEventBody{Category: category, Output: text}})
}

// decodeArgs decodes raw arguments into v (absent arguments leave v as
// it is).
func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, v)
}
