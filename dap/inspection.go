package dap

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/inspect"
)

// Limits of what one response carries.
const (
	// maxThreads caps the threads response; the stopped thread and the
	// recently focused ones are always in it.
	maxThreads = 1000
	// maxFocused is how many recently focused threads are remembered.
	maxFocused = 100
	// maxStackFrames caps one stackTrace response (levels 0 means all,
	// but a 100,000-deep stack is paged: totalFrames tells the client).
	maxStackFrames = 1000
)

func (c *session) onThreadsRequest(req *dap.ThreadsRequest) {
	if c.prog != nil {
		// List a page, costing only the threads listed (fast with
		// hundreds of thousands of threads).
		c.mu.Lock()
		focus := append([]int64(nil), c.focused...)
		c.mu.Unlock()
		// Running: the same, current (names, functions, states), at the
		// cost of holding the scheduler between two dispatches.
		if page, total, err := c.prog.LiveThreadsPage(maxThreads, focus); err == nil {
			out := make([]dap.Thread, 0, len(page))
			c.mu.Lock()
			for _, t := range page {
				c.names[t.ID] = t.Name
				out = append(out, dap.Thread{Id: int(t.ID), Name: threadName(t)})
			}
			c.mu.Unlock()
			c.respond(&dap.ThreadsResponse{Response: newResponse(req), Body: dap.ThreadsResponseBody{Threads: out}})
			c.noteLeftOut(len(page), total)
			return
		}
	}
	list := c.threadList()
	stopped := int64(0)
	if c.prog != nil {
		stopped = c.prog.StoppedThread()
	}
	kept, left := c.capThreads(list, stopped)
	out := make([]dap.Thread, 0, len(kept))
	for _, t := range kept {
		out = append(out, dap.Thread{Id: int(t.ID), Name: threadName(t)})
	}
	c.respond(&dap.ThreadsResponse{Response: newResponse(req), Body: dap.ThreadsResponseBody{Threads: out}})
	if left > 0 {
		c.noteLeftOut(len(kept), len(list))
	}
}

// noteLeftOut tells the user (once per stop) that the thread list is
// capped.
func (c *session) noteLeftOut(shown, total int) {
	if shown >= total {
		return
	}
	c.mu.Lock()
	note := c.notedStop != c.stops
	c.notedStop = c.stops
	c.mu.Unlock()
	if note {
		c.sendOutput("console", fmt.Sprintf("nlangdbg: showing %d of %d threads; %d left out (the stopped thread and the threads you looked at last are always listed; the REPL's `:threads -state S -func F` filters)\n",
			shown, total, total-shown))
	}
}

// threadList returns the threads by id: a fresh listing when the program
// is stopped, else the live threads known from thread events.
func (c *session) threadList() []inspect.ThreadInfo {
	if c.prog == nil {
		return nil
	}
	infos, err := c.prog.Threads()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.live = map[int64]bool{}
		c.names = map[int64]string{}
		for _, t := range infos {
			c.live[t.ID] = true
			c.names[t.ID] = t.Name
		}
		return infos
	}
	var out []inspect.ThreadInfo
	for id := range c.live {
		name, ok := c.names[id]
		if !ok {
			name = fmt.Sprintf("thread-%d", id)
			if id == 1 {
				name = "main"
			}
		}
		out = append(out, inspect.ThreadInfo{ID: id, Name: name, State: "running"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// threadName is a thread's DAP name: "[ID] NAME · FUNC · STATE", the
// state being the wait reason of a waiting thread.
func threadName(t inspect.ThreadInfo) string {
	parts := []string{fmt.Sprintf("[%d] %s", t.ID, t.Name)}
	if t.Func != "" {
		parts = append(parts, t.Func)
	}
	state := t.State
	switch {
	case t.Held && t.WaitReason != "":
		state = "stopped, " + t.WaitReason // held alone (non-stop) while parked
	case t.Held:
	case t.WaitReason != "":
		state = t.WaitReason
	}
	if state != "" {
		parts = append(parts, state)
	}
	return strings.Join(parts, " · ")
}

// capThreads keeps at most maxThreads of list (sorted by id): the
// stopped thread, the recently focused ones, then the lowest ids. It
// returns how many were left out.
func (c *session) capThreads(list []inspect.ThreadInfo, stopped int64) ([]inspect.ThreadInfo, int) {
	if len(list) <= maxThreads {
		return list, 0
	}
	want := map[int64]bool{stopped: true}
	for _, id := range c.focused {
		want[id] = true
	}
	keep := map[int64]bool{}
	for _, t := range list {
		if want[t.ID] {
			keep[t.ID] = true
		}
	}
	for _, t := range list {
		if len(keep) >= maxThreads {
			break
		}
		keep[t.ID] = true
	}
	out := make([]inspect.ThreadInfo, 0, len(keep))
	for _, t := range list {
		if keep[t.ID] {
			out = append(out, t)
		}
	}
	return out, len(list) - len(out)
}

// focus remembers that the client looked at thread id.
func (c *session) focus(id int64) {
	for i, x := range c.focused {
		if x == id {
			c.focused = append(c.focused[:i], c.focused[i+1:]...)
			break
		}
	}
	c.focused = append([]int64{id}, c.focused...)
	if len(c.focused) > maxFocused {
		c.focused = c.focused[:maxFocused]
	}
}

func (c *session) onStackTraceRequest(req *dap.StackTraceRequest) {
	if c.prog == nil {
		c.sendError(req, errNotLaunched, "stackTrace: no program")
		return
	}
	a := req.Arguments
	tid := int64(a.ThreadId)
	levels := a.Levels
	if levels <= 0 || levels > maxStackFrames {
		levels = maxStackFrames
	}
	if a.StartFrame < 0 {
		c.sendError(req, errBadArguments, fmt.Sprintf("stackTrace: startFrame %d is negative", a.StartFrame))
		return
	}
	frames, total, err := c.prog.Stack(tid, a.StartFrame, levels)
	if err != nil {
		if errors.Is(err, inspect.ErrCancelled) {
			c.sendCancelled(req)
			return
		}
		if errors.Is(err, inspect.ErrNoThread) {
			err = fmt.Errorf("no thread %d", tid)
		}
		c.sendError(req, errID(err, errStackTrace), fmt.Sprintf("stackTrace: %v", err))
		return
	}
	c.focus(tid)
	out := make([]dap.StackFrame, 0, len(frames))
	for _, f := range frames {
		sf := dap.StackFrame{
			Id:     c.frames.add(frameRef{thread: tid, depth: f.Depth}),
			Name:   frameName(f),     // reload.go
			Source: c.frameSource(f), // reload.go
			Line:   f.Line,
			Column: f.Col,
			// the instruction's address (see onDisassembleRequest)
			InstructionPointerReference: f.Address,
		}
		if f.Native {
			// the runtime's continuation frame (a List being converted to
			// a string, say): no source, shown between the frames it joins
			sf.PresentationHint = "subtle"
		}
		out = append(out, sf)
	}
	c.respond(&dap.StackTraceResponse{Response: newResponse(req),
		Body: dap.StackTraceResponseBody{StackFrames: out, TotalFrames: total}})
}

// source describes a file: by path for the program's files, by
// reference for the library's ("<prelude>").
func (c *session) source(file string) *dap.Source {
	switch {
	case file == "" || file == inspect.NativeFile:
		return nil
	case strings.HasPrefix(file, "<"):
		return &dap.Source{Name: file, SourceReference: c.srcRefs.add(file),
			PresentationHint: "deemphasize", Origin: "NLang library"}
	}
	return &dap.Source{Name: c.srcNames.name(c.prog, file), Path: file}
}

// frame returns what a frame id stands for.
func (c *session) frame(id int) (frameRef, error) {
	f, ok := c.frames.get(id)
	if !ok {
		return f, fmt.Errorf("unknown frame id %d (frame ids expire when the program resumes)", id)
	}
	return f, nil
}

func (c *session) onScopesRequest(req *dap.ScopesRequest) {
	if c.prog == nil {
		c.sendError(req, errNotLaunched, "scopes: no program")
		return
	}
	f, err := c.frame(req.Arguments.FrameId)
	if err != nil {
		c.sendError(req, errScopes, "scopes: "+err.Error())
		return
	}
	scopes, err := c.prog.Scopes(f.thread, f.depth)
	if err != nil {
		c.sendError(req, errID(err, errScopes), fmt.Sprintf("scopes: %v", err))
		return
	}
	out := make([]dap.Scope, 0, len(scopes))
	for _, s := range scopes {
		hint := ""
		switch s.Name {
		case "Locals":
			hint = "locals"
		case "Arguments":
			hint = "arguments"
		case inspect.ReturnValueName:
			hint = "returnValue" // (DAP 1.67)
		}
		out = append(out, dap.Scope{Name: s.Name, PresentationHint: hint, VariablesReference: s.Ref,
			NamedVariables: s.Count, Expensive: s.Expensive})
	}
	c.respond(&dap.ScopesResponse{Response: newResponse(req), Body: dap.ScopesResponseBody{Scopes: out}})
}

func (c *session) onVariablesRequest(req *dap.VariablesRequest) {
	if c.prog == nil {
		c.sendError(req, errNotLaunched, "variables: no program")
		return
	}
	a := req.Arguments
	if a.Start < 0 || a.Count < 0 {
		c.sendError(req, errBadArguments, fmt.Sprintf("variables: bad range start %d count %d", a.Start, a.Count))
		return
	}
	if a.Filter != "" && a.Filter != "indexed" && a.Filter != "named" {
		c.sendError(req, errBadArguments, fmt.Sprintf("variables: unknown filter %q (want \"indexed\" or \"named\")", a.Filter))
		return
	}
	out := make([]api.Variable, 0)
	// A container's children are either all named or all indexed.
	indexed, known := c.indexed[a.VariablesReference]
	skip := known && (a.Filter == "indexed" && !indexed || a.Filter == "named" && indexed)
	if !skip {
		vars, err := c.prog.Variables(a.VariablesReference, a.Start, a.Count)
		if err != nil {
			if errors.Is(err, inspect.ErrCancelled) {
				c.sendCancelled(req)
				return
			}
			c.sendError(req, errID(err, errVariables), fmt.Sprintf("variables: %v", err))
			return
		}
		for _, v := range vars {
			c.noteShape(v.Ref, v.Named, v.Indexed)
			out = append(out, api.Variable{Variable: dap.Variable{Name: v.Name, Value: c.styleValue(formatValue(v.Value, v.Type, a.Format), v.Type), Type: v.Type, EvaluateName: v.EvaluateName,
				VariablesReference: v.Ref, NamedVariables: v.Named, IndexedVariables: v.Indexed},
				DeclarationLocationReference: c.locationRef(v.Decl), ValueLocationReference: c.locationRef(v.MadeAt)}) // (locations.go)
		}
	}
	c.respond(&api.VariablesResponse{Response: newResponse(req), Body: api.VariablesResponseBody{Variables: out}})
}

// noteShape remembers whether a reference's children are indexed, for
// the variables filter.
func (c *session) noteShape(ref, named, indexed int) {
	if ref == 0 {
		return
	}
	if c.indexed == nil {
		c.indexed = map[int]bool{}
	}
	c.indexed[ref] = indexed > 0 && named == 0
}

// evalFrame returns the thread and depth an expression is evaluated in:
// the frame's, or the stopped thread's top frame.
func (c *session) evalFrame(frameID int) (int64, int, error) {
	if frameID == 0 {
		return c.prog.StoppedThread(), 0, nil
	}
	f, err := c.frame(frameID)
	return f.thread, f.depth, err
}

func (c *session) onEvaluateRequest(req *dap.EvaluateRequest) {
	a := req.Arguments
	if a.Context == "repl" && c.srv.ReplCommands != nil {
		if out, ok := c.srv.ReplCommands(a.Expression); ok {
			c.respond(&dap.EvaluateResponse{Response: newResponse(req), Body: dap.EvaluateResponseBody{Result: out}})
			return
		}
	}
	if c.prog == nil {
		c.sendError(req, errNotLaunched, "evaluate: no program")
		return
	}
	tid, depth, err := c.evalFrame(a.FrameId)
	if err != nil {
		c.sendError(req, errEvaluate, err.Error())
		return
	}
	var at struct {
		Arguments evalPosition `json:"arguments"`
	}
	json.Unmarshal(c.raw, &at) // (DAP 1.67; absent: zero)
	if p := at.Arguments; p.Line > 0 && p.Source != nil && p.Source.Path != "" {
		// evaluate at a source position: the frame of this thread whose
		// function is there (a hover in a caller's code)
		if d, ok, err := c.prog.FrameAt(tid, canonFile(p.Source.Path), p.Line); err == nil && ok {
			depth = d
		}
	}
	if a.Context == "repl" && strings.HasPrefix(strings.TrimSpace(a.Expression), api.ConsolePrefix) {
		c.consoleCommand(req, tid, depth)
		return
	}
	ctx := a.Context
	switch ctx {
	case "watch", "hover", "repl", "clipboard":
	default:
		ctx = "watch" // unknown contexts only read
	}
	v, err := c.prog.Evaluate(tid, depth, a.Expression, inspect.EvalContext(ctx))
	if err != nil {
		if errors.Is(err, inspect.ErrCancelled) {
			c.sendCancelled(req)
			return
		}
		c.sendError(req, errID(err, errEvaluate), err.Error())
		return
	}
	c.noteShape(v.Ref, v.Named, v.Indexed)
	c.respond(&api.EvaluateResponse{Response: newResponse(req), Body: api.EvaluateResponseBody{EvaluateResponseBody: dap.EvaluateResponseBody{
		Result: c.styleValue(formatValue(v.Value, v.Type, a.Format), v.Type), Type: v.Type, VariablesReference: v.Ref,
		NamedVariables: v.Named, IndexedVariables: v.Indexed}, ValueLocationReference: c.locationRef(v.MadeAt)}})
}

// consoleCommand runs a debugger command typed in the debug console
// (":sched", ":threads -state waiting", …): the custom request it stands
// for (api.ParseConsole), answered in text.
func (c *session) consoleCommand(req *dap.EvaluateRequest, tid int64, depth int) {
	call, err := api.ParseConsole(req.Arguments.Expression, tid, depth)
	if err != nil {
		c.sendError(req, errEvaluate, err.Error())
		return
	}
	var body any = api.None{}
	switch {
	case call.Help:
	case call.Command == api.CmdReverseContinue:
		a := call.Args.(api.ThreadArgs)
		err = c.goBack(func() error { return c.prog.ReverseContinue(a.ThreadID) })
	default:
		body, err = c.runCustom(call.Command, call.Args)
	}
	if err != nil {
		c.sendError(req, customErrID(err), err.Error())
		return
	}
	c.respond(&dap.EvaluateResponse{Response: newResponse(req), Body: dap.EvaluateResponseBody{Result: call.Format(body)}})
}

func (c *session) onSetVariableRequest(req *dap.SetVariableRequest) {
	if c.prog == nil {
		c.sendError(req, errNotLaunched, "setVariable: no program")
		return
	}
	a := req.Arguments
	v, err := c.prog.SetVariable(a.VariablesReference, a.Name, a.Value)
	if err != nil {
		c.sendError(req, errID(err, errSetVariable), fmt.Sprintf("setVariable: %v", err))
		return
	}
	c.noteShape(v.Ref, v.Named, v.Indexed)
	c.respond(&dap.SetVariableResponse{Response: newResponse(req), Body: dap.SetVariableResponseBody{
		Value: v.Value, Type: v.Type, VariablesReference: v.Ref,
		NamedVariables: v.Named, IndexedVariables: v.Indexed}})
	c.invalidate(0, "variables")
}

func (c *session) onSourceRequest(req *dap.SourceRequest) {
	a := req.Arguments
	path := ""
	if ref := a.SourceReference; ref > 0 {
		p, ok := c.srcRefs.get(ref)
		if !ok {
			c.sendError(req, errSource, fmt.Sprintf("source: unknown sourceReference %d", ref))
			return
		}
		path = p
	} else if a.Source != nil {
		path = a.Source.Path
		if path == "" && a.Source.SourceReference > 0 {
			path, _ = c.srcRefs.get(a.Source.SourceReference)
		}
	}
	if path == "" {
		c.sendError(req, errBadArguments, "source: give a sourceReference or a source path")
		return
	}
	text, ok := c.sourceText(path)
	if !ok {
		c.sendError(req, errSource, fmt.Sprintf("source: no source %s", path))
		return
	}
	c.respond(&dap.SourceResponse{Response: newResponse(req), Body: dap.SourceResponseBody{Content: text, MimeType: "text/x-nlang"}})
}

// sourceText returns a source file's text: one of the program's, or of
// the library (a name like "<prelude>").
func (c *session) sourceText(path string) (string, bool) {
	if c.prog != nil {
		if b, ok := c.prog.Source(path); ok {
			return string(b), true
		}
	}
	if strings.HasPrefix(path, "<") && strings.HasSuffix(path, ">") {
		if src, ok := inspect.Library().Sources[path[1:len(path)-1]]; ok {
			return src, true
		}
	}
	return "", false
}

func (c *session) onLoadedSourcesRequest(req *dap.LoadedSourcesRequest) {
	out := make([]dap.Source, 0)
	if c.prog != nil {
		files := c.prog.Sources()
		sort.Strings(files)
		for _, f := range files {
			if s := c.source(f); s != nil {
				out = append(out, *s)
			}
		}
	}
	c.respond(&dap.LoadedSourcesResponse{Response: newResponse(req), Body: dap.LoadedSourcesResponseBody{Sources: out}})
}
