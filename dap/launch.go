package dap

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/inspect"
)

// classesCondition describes the condition of an exception filter.
const classesCondition = "Exception classes, comma separated (each with its subclasses), e.g. ChannelClosedException, MyError"

// capabilities lists exactly what this adapter implements.
func capabilities() dap.Capabilities {
	return dap.Capabilities{
		SupportsConfigurationDoneRequest:      true,
		SupportsFunctionBreakpoints:           true,
		SupportsConditionalBreakpoints:        true,
		SupportsHitConditionalBreakpoints:     true,
		SupportsLogPoints:                     true,
		SupportsEvaluateForHovers:             true,
		SupportsClipboardContext:              true,
		SupportsSetVariable:                   true,
		SupportsExceptionInfoRequest:          true,
		SupportsTerminateRequest:              true,
		SupportTerminateDebuggee:              true,
		SupportsRestartRequest:                true,
		SupportsSingleThreadExecutionRequests: true,
		SupportsDelayedStackTraceLoading:      true,
		SupportsLoadedSourcesRequest:          true,
		SupportsDisassembleRequest:            true,
		SupportsSteppingGranularity:           true,
		SupportsInstructionBreakpoints:        true,
		SupportsTerminateThreadsRequest:       true,
		SupportsRestartFrame:                  true,
		SupportsGotoTargetsRequest:            true,
		SupportsDataBreakpoints:               true,
		SupportsCompletionsRequest:            true,
		CompletionTriggerCharacters:           []string{".", ":"},
		SupportsSetExpression:                 true,
		SupportsBreakpointLocationsRequest:    true,
		SupportsStepInTargetsRequest:          true,
		SupportsValueFormattingOptions:        true,
		SupportsExceptionFilterOptions:        true,
		SupportsExceptionOptions:              true,
		SupportsCancelRequest:                 true,
		SupportsStepBack:                      true, // one carrier (the default): sessions record
		ExceptionBreakpointFilters: []dap.ExceptionBreakpointsFilter{
			{Filter: filterUncaught, Label: "Uncaught Exceptions", Default: true,
				Description:       "Stop where an exception is thrown that no catch will handle",
				SupportsCondition: true, ConditionDescription: classesCondition},
			{Filter: filterAll, Label: "All Exceptions",
				Description:       "Stop wherever an exception is thrown, caught or not",
				SupportsCondition: true, ConditionDescription: classesCondition},
		},
	}
}

// launchArgs are the arguments of launch (and of restart).
type launchArgs struct {
	Program     string   `json:"program"`     // the .n file (relative to cwd)
	Args        []string `json:"args"`        // program arguments
	Cwd         string   `json:"cwd"`         // directory the program path is relative to
	StopOnEntry bool     `json:"stopOnEntry"` // stop before main's first statement
	Quota       *int     `json:"quota"`       // reductions per dispatch (absent: default)
	Seed        int64    `json:"seed"`        // scheduler seed (0: FIFO)
	Carriers    *int     `json:"carriers"`    // carriers running threads in parallel (absent: one)
	MaxFrames   *int     `json:"maxFrames"`   // call depth limit (absent: default)
	MaxHeap     *heapArg `json:"maxHeap"`     // heap limit (absent: default)
	NoDebug     bool     `json:"noDebug"`     // run without breakpoints or stops
	Replay      string   `json:"replay"`      // a recording (run --record) to debug instead of program
	AllowRead   []string `json:"allowRead"`   // directories the program may read (see docs/security.md)
	AllowWrite  []string `json:"allowWrite"`  // directories the program may write
	DenyFS      bool     `json:"denyFs"`      // no file access at all
	Token       string   `json:"token"`       // the server's token, if it has one
	Race        bool     `json:"race"`        // detect data races (one carrier): a race stops with reason "data race"
	NonStop     bool     `json:"nonStop"`     // breakpoints without a mode stop their thread only; pause pauses one thread
	Stdin       string   `json:"stdin"`       // a file the program reads as its input (relative to cwd)
	Console     string   `json:"console"`     // internalConsole (default), integratedTerminal or externalTerminal (console.go)
}

// limits returns the run limits of the arguments, with the defaults for
// those absent. Explicit values are checked as the command line's are
// (quota 0 is refused, as --quota 0 is).
func (a *launchArgs) limits() inspect.Limits {
	l := inspect.DefaultLimits()
	if a.Quota != nil {
		l.Quota = *a.Quota
	}
	if a.Carriers != nil {
		l.Carriers = *a.Carriers
	}
	if a.MaxFrames != nil {
		l.MaxFrames = *a.MaxFrames
	}
	if a.MaxHeap != nil {
		l.MaxHeap = int64(*a.MaxHeap)
	}
	return l
}

// heapArg is a byte count given as a number or as a string with a unit
// ("100MB", see inspect.ParseSize).
type heapArg int64

func (h *heapArg) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		n, err := inspect.ParseSize(s)
		if err != nil {
			return err
		}
		*h = heapArg(n)
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("maxHeap must be a number of bytes or a size such as \"100MB\"")
	}
	*h = heapArg(n)
	return nil
}

func (c *session) onInitializeRequest(req *dap.InitializeRequest) {
	if c.initialized {
		c.sendError(req, errBadArguments, "initialize: the session is already initialized")
		return
	}
	if f := req.Arguments.PathFormat; f != "" && f != "path" {
		c.sendError(req, errBadArguments, fmt.Sprintf("initialize: unsupported pathFormat %q (want \"path\")", f))
		return
	}
	c.initialized = true
	c.client = readClientCaps(c.raw, req.Arguments)
	c.respond(&initializeResponse{Response: newResponse(req), Body: capabilities171{Capabilities: capabilities(), SupportsANSIStyling: true,
		BreakpointModes: breakpointModes()}})
	c.send(&dap.InitializedEvent{Event: newEvent("initialized")})
}

func (c *session) onLaunchRequest(req *dap.LaunchRequest) {
	if c.srv.Attach != nil {
		c.sendError(req, errLaunch, "launch: this server debugs a program that already runs; use attach")
		return
	}
	if c.prog != nil {
		c.sendError(req, errLaunch, "launch: a program is already launched in this session")
		return
	}
	var args launchArgs
	if err := decodeArgs(req.Arguments, &args); err != nil {
		var tok struct {
			Token string `json:"token"`
		}
		decodeArgs(req.Arguments, &tok)
		if !c.checkToken(req, tok.Token) {
			return
		}
		c.sendError(req, errBadArguments, fmt.Sprintf("launch: bad arguments: %v", err))
		return
	}
	if !c.checkToken(req, args.Token) {
		return
	}
	if err := c.checkConsole(args); err != nil {
		c.sendError(req, errBadArguments, err.Error())
		return
	}
	if args.Console == consoleIntegrated || args.Console == consoleExternal {
		// answered once the terminal's console connects (console.go)
		if err := c.startTerminal(req, args); err != nil {
			c.sendError(req, errLaunch, err.Error())
		}
		return
	}
	c.finishLaunch(req, args)
}

// finishLaunch launches and answers req.
func (c *session) finishLaunch(req *dap.LaunchRequest, args launchArgs) {
	if err := c.launch(args); err != nil {
		var ce *inspect.CompileError
		if errors.As(err, &ce) {
			c.sendOutput("stderr", ce.Report)
			c.sendError(req, api.ErrCompile, err.Error())
			return
		}
		c.sendError(req, errLaunch, err.Error())
		return
	}
	c.handshakeDone()
	c.respond(&dap.LaunchResponse{Response: newResponse(req)})
}

// launch starts a program (it runs at configurationDone) and sets the
// breakpoints asked for so far. A compile error is an
// *inspect.CompileError whose text is the file:line:col report.
func (c *session) launch(args launchArgs) error {
	if args.Program == "" && args.Replay == "" {
		return errors.New(`launch: missing "program" (the .n file to debug) or "replay" (a recording)`)
	}
	lim := args.limits()
	if err := lim.Check(); err != nil {
		return fmt.Errorf("launch: %v", err)
	}
	if err := inspect.CheckPermissions(args.AllowRead, args.AllowWrite, args.DenyFS, args.Cwd); err != nil {
		return fmt.Errorf("launch: %v", err)
	}
	path := args.Program
	if !filepath.IsAbs(path) && args.Cwd != "" {
		path = filepath.Join(args.Cwd, path)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	c.closeIO()
	pio, err := c.programIO(args)
	if err != nil {
		return err
	}
	cfg := inspect.Config{
		Stdin:       pio.stdin,
		Stdout:      pio.stdout,
		Stderr:      pio.stderr,
		Program:     path,
		Args:        args.Args,
		Cwd:         args.Cwd,
		Quota:       lim.Quota,
		Seed:        args.Seed,
		Carriers:    lim.Carriers,
		MaxFrames:   lim.MaxFrames,
		MaxHeap:     lim.MaxHeap,
		AllowRead:   args.AllowRead,
		AllowWrite:  args.AllowWrite,
		DenyFS:      args.DenyFS,
		StopOnEntry: args.StopOnEntry && !args.NoDebug,
		DebugLog:    c.srv.DebugLog,
		Replay:      args.Replay,
		Race:        args.Race,
		NonStop:     args.NonStop,
	}
	if args.Replay != "" {
		cfg.Program = ""
		if args.MaxHeap == nil {
			cfg.MaxHeap = 0 // the recording's
		}
	}
	lis := &listener{c: c}
	prog, err := inspect.Launch(cfg, lis)
	if err != nil {
		var ce *inspect.CompileError
		if errors.As(err, &ce) {
			ce.Report = strings.TrimRight(ce.Report, "\n") + "\n"
			return ce
		}
		name := args.Program
		if args.Replay != "" {
			name = args.Replay
		}
		return fmt.Errorf("cannot launch %s: %v", name, userError(err))
	}
	c.prog, c.lis, c.args = prog, lis, args
	c.applyBreakpoints()
	// Main (thread 1) exists from now on; the scheduler reports its start
	// only after its first dispatch, which may print first.
	lis.ThreadStarted(1)
	return nil
}

func (c *session) onAttachRequest(req *dap.AttachRequest) {
	var args struct {
		Token   string `json:"token"`
		NonStop bool   `json:"nonStop"` // as launch's
	}
	decodeArgs(req.Arguments, &args) // a token of the wrong type is no token
	if !c.checkToken(req, args.Token) {
		return
	}
	p := c.srv.Attach
	switch {
	case p == nil:
		c.sendError(req, errAttach, "attach: no program to attach to; start one with `nlangdbg run --listen ADDR PROG.n` and attach to ADDR")
		return
	case c.prog != nil:
		c.sendError(req, errAttach, "attach: a program is already being debugged in this session")
		return
	}
	select {
	case <-p.Done():
		c.sendError(req, errAttach, "attach: the program has ended")
		return
	default:
	}
	c.prog, c.attached = p, true
	c.lis = &listener{c: c, attached: true}
	c.srv.mux.set(c.lis)
	if err := p.Pause(); err != nil {
		c.srv.mux.set(nil)
		c.prog, c.attached = nil, false
		c.sendError(req, errAttach, fmt.Sprintf("attach: %v", err))
		return
	}
	p.SetNonStop(args.NonStop)
	c.handshakeDone()
	c.respond(&dap.AttachResponse{Response: newResponse(req)})
}

func (c *session) onConfigurationDoneRequest(req *dap.ConfigurationDoneRequest) {
	if c.prog == nil {
		c.sendError(req, errNotLaunched, "configurationDone: launch or attach first")
		return
	}
	c.configured = true
	if !c.attached {
		c.prog.ConfigurationDone()
	}
	c.respond(&dap.ConfigurationDoneResponse{Response: newResponse(req)})
}

func (c *session) onDisconnectRequest(req *dap.DisconnectRequest) {
	terminate := !c.attached // a launched program ends with its session
	if req.Arguments != nil && c.attached {
		terminate = req.Arguments.TerminateDebuggee
	}
	if p := c.prog; p != nil {
		if terminate {
			p.Terminate() // exited and terminated follow the response
		} else {
			c.detach()
		}
		c.prog = nil
	}
	c.respond(&dap.DisconnectResponse{Response: newResponse(req)})
	c.disconnected = true
}

// detach leaves an attached program running as if no debugger had been
// there: every breakpoint goes, the program resumes, its events go back
// to the Server's attach listener.
func (c *session) detach() {
	p := c.prog
	files := map[string]bool{}
	for f := range c.srcBps {
		files[f] = true
	}
	for _, b := range p.Breakpoints() {
		if b.File != "" {
			files[b.File] = true
		}
	}
	for f := range files {
		p.SetBreakpoints(f, nil)
	}
	p.SetFunctionBreakpoints(nil)
	p.SetExceptionBreakpoints(false, false)
	c.srcBps, c.srcModes = map[string][]dap.SourceBreakpoint{}, map[string][]string{}
	c.funcBps, c.funcModes, c.excFilters, c.excOptions = nil, nil, nil, nil
	c.srv.mux.set(nil)
	c.resumed()
	p.SetNonStop(false)
	p.Continue(0, false) // ErrRunning if it runs already (the threads held alone are let go): fine
}

func (c *session) onTerminateRequest(req *dap.TerminateRequest) {
	if c.prog == nil {
		c.sendError(req, errNotLaunched, "terminate: no program")
		return
	}
	c.prog.Terminate() // exited and terminated follow the response
	c.respond(&dap.TerminateResponse{Response: newResponse(req)})
}

// onRestartRequest starts the program again. With the same arguments and
// unchanged sources the session restarts in place (inspect's Restart: a
// new run, the breakpoints and filters kept); otherwise the program ends
// and is launched again, with the arguments of the request if it has
// them and the last ones otherwise, and its breakpoints set again. Either
// way it starts as configurationDone would.
func (c *session) onRestartRequest(req *dap.RestartRequest) {
	switch {
	case c.attached:
		c.sendError(req, errRestart, "restart: not supported for an attached program (detach and start it again)")
		return
	case c.prog == nil:
		c.sendError(req, errNotLaunched, "restart: launch first")
		return
	}
	args := c.args
	var ra struct {
		Arguments *launchArgs `json:"arguments"`
	}
	if err := decodeArgs(req.Arguments, &ra); err != nil {
		c.sendError(req, errBadArguments, fmt.Sprintf("restart: bad arguments: %v", err))
		return
	}
	same := ra.Arguments == nil || reflect.DeepEqual(*ra.Arguments, c.args)
	if ra.Arguments != nil {
		args = *ra.Arguments
	}
	old := c.prog
	stopped := old.StoppedThread()
	// The same program with the same arguments starts again in the same
	// session (a new run: its breakpoints and filters stay); a program
	// whose sources changed, or other arguments, is launched anew.
	inPlace := false
	if same && args.Stdin == "" { // (an input file is opened anew: a launch)
		old.SetListener(nil) // the old run's end is not the session's
		inPlace = old.Restart() == nil
		old.SetListener(c.lis)
	}
	if !inPlace {
		old.SetListener(nil) // its exit is not the session's
		old.Terminate()
	}
	// the old program's threads are not stopped any more
	c.send(&dap.ContinuedEvent{Event: newEvent("continued"),
		Body: dap.ContinuedEventBody{ThreadId: int(max(stopped, 1)), AllThreadsContinued: true}})
	c.frames.reset()
	c.mu.Lock()
	var gone []int64
	for id := range c.live {
		gone = append(gone, id)
	}
	c.live, c.names, c.report, c.exited = map[int64]bool{}, map[int64]string{}, "", false
	c.mu.Unlock()
	sort.Slice(gone, func(i, j int) bool { return gone[i] < gone[j] })
	for _, id := range gone {
		c.send(&dap.ThreadEvent{Event: newEvent("thread"), Body: dap.ThreadEventBody{Reason: "exited", ThreadId: int(id)}})
	}
	if inPlace {
		c.lis.ThreadStarted(1)
		c.respond(&dap.RestartResponse{Response: newResponse(req)})
		if c.configured {
			c.prog.ConfigurationDone()
		}
		return
	}
	c.prog = nil
	if err := c.launch(args); err != nil {
		c.sendError(req, errRestart, err.Error())
		c.sendTerminated()
		return
	}
	c.respond(&dap.RestartResponse{Response: newResponse(req)})
	if c.configured {
		c.prog.ConfigurationDone()
	}
}

// userError says what went wrong with a file in the user's words (without
// the system call's name).
func userError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return errors.New("no such file")
		case errors.Is(err, fs.ErrPermission):
			return errors.New("permission denied")
		}
		return pe.Err
	}
	return err
}
