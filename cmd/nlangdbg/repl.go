package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
)

// repl is the terminal debugger: a DAP client of nlangdbg's own DAP
// server, in-process for `debug` and over TCP for `attach`. Exec runs one
// command line and writes what it has to say to out.
type repl struct {
	c   *dapClient
	out io.Writer

	attached bool         // attached to a `run --listen` program
	catch    catchSetting // which exceptions stop the program (replcatch.go)
	program  string       // main file (debug)
	launch   map[string]any

	thread  int // selected thread
	frame   int // selected frame
	file    string
	line    int
	stopped bool
	exited  bool
	code    int
	last    string // the last command (an empty line repeats it)

	bps     []*replBP
	watches []*replWatch // replwatch.go
	nextBP  int

	displays    []*display // expressions shown at every stop
	nextDisplay int
	quiet       bool              // stops are not shown (until steps)
	lastStop    *api.StoppedEvent // the last stop (shown at the end of until)

	interrupt chan struct{} // Ctrl-C while the program runs

	// Non-stop (replnonstop.go): the threads held alone while the others
	// run, and whether the REPL waits for a stop (waitStop) — a thread
	// held while it does not is told of in a line, not selected.
	held    map[int]bool
	waiting bool
	aboveMu sync.Mutex // whilePrompting's events, or Tab's completion

	// The terminal while the program runs (termin.go): running, if set,
	// hands the terminal over (its input read line by line) and returns
	// what takes it back; termIn is the program's input typed there;
	// typeahead holds lines typed for the prompt.
	running     func() (stop func())
	typed       chan typedLine // lines typed while the program runs
	termIn      *termInput
	typeahead   []string
	toldRunning bool

	srcMu   sync.Mutex
	sources map[string][]string
	funcs   []string
	names   map[string]string // the program's files: path -> the name shown (replsource.go)

	past replMoments // the moments the answers about the past showed (repl_past.go)
}

// replBP is a breakpoint as the REPL numbers it.
type replBP struct {
	id       int
	file     string // line breakpoint
	line     int
	fn       string // function breakpoint
	inFn     string // a line breakpoint set as file:func (the function)
	cond     string
	hits     string
	temp     bool
	verified bool
	actual   int
	serverID int
	msg      string
	fnFile   string // where a function breakpoint is (from the server)
	disabled bool   // kept by the REPL, not sent to the server
	hidden   bool   // until's own temporary breakpoint
	mode     string // "thread", "all" or "": the session's (non-stop)
}

// where says where b is, files named as the server names them
// (r.shortName).
func (b *replBP) where(r *repl) string {
	if b.fn != "" {
		if b.verified && b.actual != 0 && b.fnFile != "" {
			return fmt.Sprintf("%s (%s:%d)", b.fn, r.shortName(b.fnFile), b.actual)
		}
		return b.fn
	}
	l := b.line
	if b.verified && b.actual != 0 {
		l = b.actual
	}
	if b.inFn != "" {
		return fmt.Sprintf("%s (%s:%d)", b.inFn, r.shortName(b.file), l)
	}
	return fmt.Sprintf("%s:%d", r.shortName(b.file), l)
}

func newREPL(c *dapClient, out io.Writer) *repl {
	return &repl{c: c, out: out, interrupt: make(chan struct{}, 1), sources: map[string][]string{}, catch: defaultCatch}
}

func (r *repl) printf(format string, args ...any) { fmt.Fprintf(r.out, format, args...) }

// errQuit ends the REPL.
var errQuit = errors.New("quit")

// Exec runs one command line. An empty line repeats the last command.
func (r *repl) Exec(line string) error {
	line = strings.TrimSpace(line)
	if line == "" {
		line = r.last
		if line == "" {
			return nil
		}
	}
	name, args, _ := strings.Cut(line, " ")
	args = strings.TrimSpace(args)
	if base, format, ok := strings.Cut(name, "/"); ok && base != "" {
		// gdb's print/FMT and display/FMT
		name, args = base, "/"+format+" "+args
	}
	cmd := lookupCmd(name)
	if cmd == nil {
		if s := suggest(name); s != "" {
			return fmt.Errorf("unknown command %q (did you mean %s?)", name, s)
		}
		return fmt.Errorf("unknown command %q (try help)", name)
	}
	if cmd.usage == "" && args != "" {
		return fmt.Errorf("%s takes no arguments (got %q)", cmd.name, args)
	}
	if cmd.repeat {
		r.last = line
	} else {
		r.last = ""
	}
	err := cmd.fn(r, args)
	if !errors.Is(err, errQuit) {
		// what the command made the server say (a note after set)
		// belongs to it, not to the next one
		r.drainEvents()
	}
	return err
}

// start initializes the session: launch (debug) or attach.
func (r *repl) start(launchArgs map[string]any, attach bool) error {
	init := &dap.InitializeRequest{Request: request("initialize"), Arguments: dap.InitializeRequestArguments{
		ClientID: "nlangdbg-repl", ClientName: "nlangdbg REPL", AdapterID: "nlang", LinesStartAt1: true,
		ColumnsStartAt1: true, PathFormat: "path", SupportsVariableType: true}}
	if _, err := r.c.call(init); err != nil {
		return err
	}
	r.launch = launchArgs
	r.attached = attach
	var err error
	if attach {
		_, err = r.c.call(&dap.AttachRequest{Request: request("attach"), Arguments: rawArgs(launchArgs)})
	} else {
		_, err = r.c.call(&dap.LaunchRequest{Request: request("launch"), Arguments: rawArgs(launchArgs)})
	}
	if err != nil {
		return err
	}
	if _, err := r.c.call(r.catch.request()); err != nil {
		return err
	}
	if _, err := r.c.call(&dap.ConfigurationDoneRequest{Request: request("configurationDone")}); err != nil {
		return err
	}
	return r.waitStop()
}

// waitStop handles events until the program stops or ends; Ctrl-C
// (r.interrupt) pauses it.
func (r *repl) waitStop() error {
	r.stopped = false
	var stop func()
	if r.running != nil {
		stop = r.running()
	}
	defer func() {
		if stop != nil {
			stop() // (the terminal is the REPL's again)
		}
		for {
			select {
			case l := <-r.typed: // read as the program stopped or ended
				r.typedWhileRunning(l.text, l.eof)
			default:
				return
			}
		}
	}()
	r.toldRunning = false
	r.waiting = true
	defer func() { r.waiting = false }()
	for {
		select {
		case l := <-r.typed:
			r.typedWhileRunning(l.text, l.eof)
		case <-r.interrupt:
			// an empty line after Ctrl-C does not resume what it stopped
			r.last = ""
			r.c.call(&dap.PauseRequest{Request: request("pause"), Arguments: dap.PauseArguments{ThreadId: max(r.thread, 1)}})
		case m, ok := <-r.c.Events:
			if !ok {
				r.exited = true
				return nil
			}
			if done := r.event(m); done {
				return nil
			}
		}
	}
}

// drainEvents handles the events already received (output, threads)
// without waiting.
func (r *repl) drainEvents() {
	for {
		select {
		case m, ok := <-r.c.Events:
			if !ok {
				return
			}
			r.event(m)
		default:
			return
		}
	}
}

// event handles one event; it reports whether the program stopped or
// ended.
func (r *repl) event(m dap.Message) bool {
	switch e := m.(type) {
	case *dap.OutputEvent:
		switch e.Body.Category {
		case "stdout", "stderr", "console", "":
			io.WriteString(r.out, e.Body.Output)
		}
	case *dap.ContinuedEvent:
		r.noteContinued(e)
	case *api.StoppedEvent:
		if r.noteStopEvent(e) && !r.waiting && e.Body.ThreadId != r.thread {
			r.showHeldStop(e) // (another thread; the selected one stays)
			return true
		}
		r.stopped = true
		if e.Body.Nlang != nil && e.Body.Nlang.Reason == api.StopSchedStep {
			// a quantum ran (sched step): where the selected thread is now
			r.frame = 0
			if f, err := r.currentFrame(); err == nil {
				r.setLocation(f)
			}
			return true
		}
		r.thread = e.Body.ThreadId
		r.frame = 0
		r.lastStop = e
		if r.quiet {
			r.noteStop(e)
			return true
		}
		r.showStop(e)
		return true
	case *dap.ExitedEvent:
		r.exited, r.held = true, nil
		r.code = e.Body.ExitCode
		r.printf("Program exited with code %d\n", e.Body.ExitCode)
		return true
	case *dap.TerminatedEvent:
		r.held = nil
		if !r.exited {
			r.exited = true
			r.printf("Program terminated\n")
		}
		return true
	}
	return false
}

// showStop prints the stop line and the source around it, e.g.
// `Breakpoint 1 at Producer.run (producer.n:8) [thread 2 "producer"]`.
func (r *repl) showStop(e *api.StoppedEvent) {
	what, report := "", ""
	nlangReason := ""
	if e.Body.Nlang != nil {
		nlangReason = e.Body.Nlang.Reason
	}
	switch {
	case nlangReason == api.StopDataRace:
		// the report run --race prints: the other access, its thread
		// and stack
		what, report = "Data race", e.Body.Text
	case nlangReason == api.StopDeadlock && !r.attached:
		// the report came with the program's stderr, just before
		what = "Deadlock"
	}
	switch {
	case what != "":
	case e.Body.Reason == "breakpoint", e.Body.Reason == "function breakpoint":
		ids := r.localBPIDs(e.Body.HitBreakpointIds)
		what = "Breakpoint " + strings.Join(ids, ", ")
		if len(ids) == 0 {
			what = "Stopped" // until's own breakpoint
		}
		r.dropTemp(e.Body.HitBreakpointIds)
	case e.Body.Reason == "entry":
		what = "Stopped at entry"
	case e.Body.Reason == "data breakpoint":
		// "Watchpoint 3: p.x changed from 0 to 1"
		what = e.Body.Description
		if ids := r.localWatchIDs(e.Body.HitBreakpointIds); len(ids) > 0 && e.Body.Nlang != nil && e.Body.Nlang.Change != nil {
			what = "Watchpoint " + strings.Join(ids, ", ") + ": " + e.Body.Nlang.Change.String()
			if e.Body.Nlang.Back {
				what += " (going back)"
			}
		}
	case e.Body.Reason == "step", e.Body.Reason == "pause":
		// safepoint and scheduler-event stops travel as step and pause
		// with their own description
		what = map[string]string{"step": "Step", "pause": "Paused"}[e.Body.Reason]
		if d := e.Body.Description; d != "" && d != "Step" && d != "Paused" {
			what = d
		}
	case e.Body.Reason == "exception":
		what = e.Body.Description
		if e.Body.Text != "" {
			what += ": " + firstLine(e.Body.Text)
		}
	default:
		what = e.Body.Description
		if what == "" {
			what = e.Body.Reason
		}
	}
	if e.Body.Nlang != nil && e.Body.Nlang.Reload > 0 {
		what = "Reloaded" // the same stop, in the new code's run
	}
	name := r.threadName(e.Body.ThreadId)
	frames, err := r.stack(e.Body.ThreadId, 0, 1)
	if err != nil || len(frames) == 0 {
		r.printf("%s [thread %d %q]\n", what, e.Body.ThreadId, name)
		return
	}
	f := frames[0]
	path := srcKey(f.Source)
	r.file, r.line = path, f.Line
	alone := ""
	if !e.Body.AllThreadsStopped && r.held[e.Body.ThreadId] {
		alone = " (the other threads keep running)"
	}
	r.printf("%s at %s (%s:%d) [thread %d %q]%s\n", what, f.Name, r.frameFile(f), f.Line, e.Body.ThreadId, name, alone)
	if report != "" {
		r.printf("%s\n", strings.TrimRight(report, "\n"))
	}
	if e.Body.Reason == "step" && e.Body.Text != "" {
		r.printf("%s\n", e.Body.Text) // a step out: "fact returned 6"
	}
	r.listAround(path, f.Line, 2)
	r.showDisplays()
}

// noteStop records where a stop is without showing it (showStop, later,
// shows it and drops the temporary breakpoints it hit).
func (r *repl) noteStop(e *api.StoppedEvent) {
	if fs, err := r.stack(e.Body.ThreadId, 0, 1); err == nil && len(fs) > 0 {
		r.setLocation(fs[0])
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// threadName returns a thread's own name from the server's thread list
// ("[2] producer · Producer.run · chan send" → "producer").
func (r *repl) threadName(id int) string {
	ths, err := r.threads()
	if err != nil {
		return ""
	}
	for _, t := range ths {
		if t.Id == id {
			return threadShortName(t.Name)
		}
	}
	return ""
}

func threadShortName(s string) string {
	if i := strings.Index(s, "] "); i >= 0 {
		s = s[i+2:]
	}
	name, _, _ := strings.Cut(s, " · ")
	return name
}

func (r *repl) threads() ([]dap.Thread, error) {
	resp, err := r.c.call(&dap.ThreadsRequest{Request: request("threads")})
	if err != nil {
		return nil, err
	}
	return resp.(*dap.ThreadsResponse).Body.Threads, nil
}

func (r *repl) stack(thread, start, levels int) ([]dap.StackFrame, error) {
	resp, err := r.c.call(&dap.StackTraceRequest{Request: request("stackTrace"),
		Arguments: dap.StackTraceArguments{ThreadId: thread, StartFrame: start, Levels: levels}})
	if err != nil {
		return nil, err
	}
	return resp.(*dap.StackTraceResponse).Body.StackFrames, nil
}

// currentFrame returns the selected frame.
func (r *repl) currentFrame() (dap.StackFrame, error) {
	fs, err := r.stack(r.thread, r.frame, 1)
	if err != nil {
		return dap.StackFrame{}, err
	}
	if len(fs) == 0 {
		return dap.StackFrame{}, fmt.Errorf("thread %d has no frame %d", r.thread, r.frame)
	}
	return fs[0], nil
}

// sourceLines returns a file's lines (cached).
func (r *repl) sourceLines(path string) []string {
	r.srcMu.Lock()
	defer r.srcMu.Unlock()
	if l, ok := r.sources[path]; ok {
		return l
	}
	var text string
	if b, err := os.ReadFile(path); err == nil {
		text = string(b)
	} else if resp, err := r.c.call(&dap.SourceRequest{Request: request("source"),
		Arguments: dap.SourceArguments{Source: &dap.Source{Path: path}}}); err == nil {
		text = resp.(*dap.SourceResponse).Body.Content
	}
	lines := strings.Split(text, "\n")
	r.sources[path] = lines
	return lines
}

// listAround prints lines [line-n, line+n] of path with a marker on line
// and breakpoint marks.
func (r *repl) listAround(path string, line, n int) {
	lines := r.sourceLines(path)
	if len(lines) == 0 || path == "" {
		return
	}
	lo, hi := max(1, line-n), min(len(lines), line+n)
	r.listLines(path, lo, hi)
}

// listLines prints lines [lo, hi] of path (within the file) with the
// current-line and breakpoint marks.
func (r *repl) listLines(path string, lo, hi int) {
	lines := r.sourceLines(path)
	lo, hi = max(1, lo), min(len(lines), hi)
	bpLines := map[int]bool{}
	for _, b := range r.bps {
		if b.verified && !b.disabled && b.fn == "" && samePath(b.file, path) {
			bpLines[b.actual] = true
		}
	}
	for i := lo; i <= hi; i++ {
		mark := "  "
		if i == r.line && samePath(path, r.file) {
			mark = "=>"
		}
		bp := " "
		if bpLines[i] {
			bp = "●"
		}
		r.printf("%s%s%5d: %s\n", mark, bp, i, lines[i-1])
	}
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// resume sends a resume request and waits for the next stop.
func (r *repl) resume(req dap.RequestMessage) error {
	if r.exited {
		return errors.New("the program is not running (restart it)")
	}
	if _, err := r.c.call(req); err != nil {
		return err
	}
	return r.waitStop()
}

// localBPIDs maps server breakpoint ids to the REPL's numbers, in
// order.
func (r *repl) localBPIDs(server []int) []string {
	var ids []int
	for _, s := range server {
		for _, b := range r.bps {
			if b.serverID == s && !b.hidden {
				ids = append(ids, b.id)
			}
		}
	}
	sort.Ints(ids)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.Itoa(id)
	}
	return out
}

// dropTemp clears temporary breakpoints that were hit.
func (r *repl) dropTemp(server []int) {
	for _, s := range server {
		for _, b := range r.bps {
			if b.serverID == s && b.temp {
				r.dropBP(b)
				return
			}
		}
	}
}

// syncBreakpoints sends the breakpoints of file (or the function
// breakpoints when file is "") to the server and records what it says.
func (r *repl) syncBreakpoints(file string) error {
	var mine []*replBP
	for _, b := range r.bps {
		if b.disabled {
			b.serverID = 0
			continue
		}
		if (file == "" && b.fn != "") || (file != "" && b.fn == "" && samePath(b.file, file)) {
			mine = append(mine, b)
		}
	}
	if file == "" {
		req := &setFunctionBreakpointsRequest{Request: request("setFunctionBreakpoints")}
		req.Arguments.Breakpoints = []modeFunctionBreakpoint{}
		for _, b := range mine {
			req.Arguments.Breakpoints = append(req.Arguments.Breakpoints, modeFunctionBreakpoint{
				FunctionBreakpoint: dap.FunctionBreakpoint{Name: b.fn, Condition: b.cond, HitCondition: b.hits}, Mode: b.mode})
		}
		resp, err := r.c.call(req)
		if err != nil {
			return err
		}
		r.record(mine, resp.(*dap.SetFunctionBreakpointsResponse).Body.Breakpoints)
		return nil
	}
	req := &setBreakpointsRequest{Request: request("setBreakpoints")}
	req.Arguments.Source = dap.Source{Path: file, Name: filepath.Base(file)}
	req.Arguments.Breakpoints = []modeSourceBreakpoint{}
	for _, b := range mine {
		req.Arguments.Breakpoints = append(req.Arguments.Breakpoints, modeSourceBreakpoint{
			SourceBreakpoint: dap.SourceBreakpoint{Line: b.line, Condition: b.cond, HitCondition: b.hits}, Mode: b.mode})
	}
	resp, err := r.c.call(req)
	if err != nil {
		return err
	}
	r.record(mine, resp.(*dap.SetBreakpointsResponse).Body.Breakpoints)
	return nil
}

func (r *repl) record(mine []*replBP, got []dap.Breakpoint) {
	for i, b := range mine {
		if i >= len(got) {
			break
		}
		b.serverID = got[i].Id
		b.verified = got[i].Verified
		b.actual = got[i].Line
		b.msg = got[i].Message
		if b.fn != "" && got[i].Source != nil {
			b.fnFile = got[i].Source.Path
		}
	}
}

func (r *repl) removeBP(id int) bool {
	for i, b := range r.bps {
		if b.id == id && !b.hidden {
			r.bps = append(r.bps[:i], r.bps[i+1:]...)
			if b.fn != "" {
				r.syncBreakpoints("")
			} else {
				r.syncBreakpoints(b.file)
			}
			return true
		}
	}
	return false
}

// functions returns the program's function names (for completion and
// `break func`).
func (r *repl) functions() []string {
	if r.funcs != nil {
		return r.funcs
	}
	body, err := r.c.callCustom(api.CmdFunctions, api.FunctionsArgs{})
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	for _, f := range body.(api.FunctionsBody).Functions {
		if !seen[f.Name] {
			seen[f.Name] = true
			r.funcs = append(r.funcs, f.Name)
		}
	}
	sort.Strings(r.funcs)
	return r.funcs
}

// console runs a command of the console language (api.ParseConsole:
// sched, freeze, threads, checkpoint, …) as the custom request it stands
// for, and returns the call and its answer's body. The thread and frame
// by default are the selected ones.
func (r *repl) console(line string) (api.Call, any, error) {
	call, err := api.ParseConsole(line, int64(r.thread), r.frame)
	if err != nil || call.Help {
		return call, api.None{}, err
	}
	body, err := r.c.callCustom(call.Command, call.Args)
	return call, body, err
}

// printConsole runs a console command and prints its answer.
func (r *repl) printConsole(line string) error {
	call, body, err := r.console(line)
	if err != nil {
		return err
	}
	r.printf("%s\n", call.Format(body))
	return nil
}

// frameID returns the DAP id of the selected frame (0 if unknown).
func (r *repl) frameID() int {
	if !r.stopped || r.thread == 0 {
		return 0
	}
	fs, err := r.stack(r.thread, r.frame, 1)
	if err != nil || len(fs) == 0 {
		return 0
	}
	return fs[0].Id
}

// waitTimeout is how long quit waits for the server to end the program.
const waitTimeout = 5 * time.Second
