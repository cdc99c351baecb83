package inspect

// The differential test of time travel: random sequences of the requests
// a debugger client sends (continue, pause, next, stepIn, stepOut,
// stepBack in its three kinds, reverseContinue, setBreakpoints with
// conditions and hit counts, setVariable, setExpression, goto,
// restartFrame) on the programs of testdata/dap, under several quotas and
// checkpoint policies. After each stop the session's state — every
// thread with its stack, and the locals of the stopped thread's frames —
// must equal that of a fresh session driven forward to the same moment
// with nothing but an instruction breakpoint and continue (and, after
// the execution was changed, the same changes made at the same moments);
// a request that goes back after a change must be refused with
// ErrAfterSet. A program that ends without a change must have printed
// exactly what a plain run prints (output already shown is not shown
// again).
//
// A moment is the one going back names (reverse.go): a thread, its
// reductions, its depth and a pc. The fresh session reaches it by
// stopping at that pc on any thread and continuing until the thread and
// its reductions match, which uses neither the recording nor the
// checkpoints: only forward execution.
//
// The sequences are seeded (NLANGDBG_TRAVELFUZZ_SEED); a pause lands where
// the program happens to be, so a sequence with a pause is not exactly
// repeatable, and the failure message lists the moments it stopped at.
// The default run does a bounded number of sequences; the full run
// (NLANGDBG_TEST_FULL=1) more and longer, NLANGDBG_TRAVELFUZZ_SEQS any
// number.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/internal/testmode"
)

// travelPrograms are the fixtures the sequences run on: they end on
// their own, read no input and take milliseconds.
var travelPrograms = []string{
	"back.n", "basic.n", "disasm.n", "exception.n", "explored.n", "lost.n", "lost_channels.n",
	"lostwatch.n", "past.n", "race.n", "steps.n", "threads.n", "values.n", "waitgroup.n", "watch.n",
	"travel.n", "travel.n", "travel.n", // (many quanta at small quotas: copies to go back from)
}

// tfEvent is a stop or the end of a session.
type tfEvent struct {
	stop   StopInfo
	exited bool
	code   int
}

// tfListener queues a session's stops and end, and keeps its output.
type tfListener struct {
	ev  chan tfEvent
	mu  sync.Mutex
	out strings.Builder
}

func newTFListener() *tfListener { return &tfListener{ev: make(chan tfEvent, 16)} }

func (l *tfListener) Stopped(i StopInfo)    { l.ev <- tfEvent{stop: i} }
func (l *tfListener) Continued(int64, bool) {}
func (l *tfListener) ThreadStarted(int64)   {}
func (l *tfListener) ThreadExited(int64)    {}
func (l *tfListener) Exited(code int)       { l.ev <- tfEvent{exited: true, code: code} }
func (l *tfListener) Output(cat, text string) {
	if cat == "stdout" || cat == "stderr" {
		l.mu.Lock()
		l.out.WriteString(text)
		l.mu.Unlock()
	}
}

func (l *tfListener) stdout() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.out.String()
}

// next waits for the next event.
func (l *tfListener) next() (tfEvent, error) {
	select {
	case e := <-l.ev:
		return e, nil
	case <-time.After(30 * time.Second):
		return tfEvent{}, errors.New("no stop or end within 30 s")
	}
}

// tmoment is a moment comparable across sessions of one program: the
// function by its index in the program.
type tmoment struct {
	thread int64
	red    int64
	depth  int
	fn     int
	pc     int32
}

func (m tmoment) String() string {
	return fmt.Sprintf("thread %d red %d depth %d fn %d pc %d", m.thread, m.red, m.depth, m.fn, m.pc)
}

// momentOf returns the present of s as a tmoment, if it is a statement
// boundary or a pause of a thread.
func momentOf(s *Session) (tmoment, bool) {
	m := s.present()
	if !m.trap || m.fn == nil {
		return tmoment{}, false
	}
	i, ok := s.funcIndex()[m.fn]
	if !ok {
		return tmoment{}, false
	}
	return tmoment{m.thread, m.red, m.depth, i, m.pc}, true
}

// standsAt reports whether o's stopped thread stands at m: at the
// entry, main stands at its first instruction, which is not a moment of
// the recording's (momentOf) but is the moment a step back to it names.
// (A breakpoint set where the stopped thread stands takes effect the
// next time it gets there: driving o there would go past.)
func standsAt(o *Session, m tmoment) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	t := o.r.stopped
	if o.r.state != stateStopped || t == nil || t.Depth() == 0 {
		return false
	}
	f := t.Frame(0)
	i, ok := o.funcIndex()[f.Fn]
	return ok && tmoment{t.ID, t.Reductions(), t.Depth(), i, f.PC} == m
}

// tfChange is a change of the execution made at a moment (at: the
// moment of the stop it was made at; start: at the entry stop).
type tfChange struct {
	at    tmoment
	start bool
	stop  int // the number of the stop in its session
	what  string
	apply func(s *Session, l *tfListener) error
}

// tfStats counts what the sequences did.
type tfStats struct {
	seqs, ops, compared, refused, backRefused, changes, outputs int
	copies, near, restores, spares, catchUps, caughtUp          int
	byOp                                                        map[string]int
}

// travelFuzz runs sequences on one program and configuration.
type travelFuzz struct {
	t       *testing.T
	path    string
	cfg     Config
	rng     *rand.Rand
	trace   []string
	changes []tfChange
	st      *tfStats
	lines   []int // statement lines of the program's file
	plain   *string
	// spares: every checkpoint is restored ahead (snapStore.prepare),
	// not only those of a large heap
	spares bool
}

func (f *travelFuzz) logf(format string, args ...any) {
	f.trace = append(f.trace, fmt.Sprintf(format, args...))
}

func (f *travelFuzz) fail(format string, args ...any) {
	f.t.Helper()
	tr := f.trace
	if len(tr) > 80 {
		// (the first line names the sequence: NLANGDBG_TRAVELFUZZ_FROM)
		tr = append([]string{tr[0], "…"}, tr[len(tr)-80:]...)
	}
	f.t.Fatalf("%s (quota %d, checkpoint interval %v, budget %d): %s\nthe sequence:\n  %s",
		filepath.Base(f.path), f.cfg.Quota, f.cfg.SnapshotInterval, f.cfg.SnapshotBudget,
		fmt.Sprintf(format, args...), strings.Join(tr, "\n  "))
}

// launch starts a session of the program stopped at entry.
func (f *travelFuzz) launch(cfg Config) (*Session, *tfListener) {
	f.t.Helper()
	cfg.Program, cfg.StopOnEntry = f.path, true
	l := newTFListener()
	s, err := Launch(cfg, l)
	if err != nil {
		f.t.Fatal(err)
	}
	s.ConfigurationDone()
	e, err := l.next()
	if err != nil || e.exited || e.stop.Reason != ReasonEntry {
		f.fail("a fresh session did not stop at entry: %+v %v", e, err)
	}
	return s, l
}

// view renders what the comparison looks at: every thread with its
// state and stack, and the locals of the frames of thread stopped (the
// thread the stop is about; values one level deep).
func view(s *Session, stopped int64) string {
	var b strings.Builder
	ths, err := s.Threads()
	if err != nil {
		return "threads: " + err.Error()
	}
	sort.Slice(ths, func(i, j int) bool { return ths[i].ID < ths[j].ID })
	for _, th := range ths {
		// (which thread a stop is about is the stop's, not the moment's:
		// a fresh session stopped by goto on thread 4 at the moment a
		// pause stops thread 1; check compares it with the moment)
		state := th.State
		if state == "stopped" {
			state = "runnable"
		}
		fmt.Fprintf(&b, "thread %d %q %s %s\n", th.ID, th.Name, state, th.WaitReason)
		frames, _, err := s.Stack(th.ID, 0, 64)
		if err != nil {
			fmt.Fprintf(&b, "  stack: %v\n", err)
			continue
		}
		t, _ := s.thread(th.ID)
		for _, fr := range frames {
			// (the frame's own pc: a stop after a step out shows the
			// call's position, a breakpoint stop at the same moment the
			// next statement's)
			pc := t.Frame(fr.Depth).PC
			line, col := t.Frame(fr.Depth).Fn.Pos(pc)
			fmt.Fprintf(&b, "  %s:%d:%d pc %d\n", fr.Func, line, col, pc)
			if th.ID != stopped || fr.Native {
				continue
			}
			scopes, err := s.Scopes(th.ID, fr.Depth)
			if err != nil {
				fmt.Fprintf(&b, "    scopes: %v\n", err)
				continue
			}
			for _, sc := range scopes {
				if sc.Expensive || sc.Name == "Return value" {
					continue // (a step out's, shown only after one)
				}
				vars, err := s.Variables(sc.Ref, 0, 0)
				if err != nil {
					fmt.Fprintf(&b, "    %s: %v\n", sc.Name, err)
					continue
				}
				for _, v := range vars {
					fmt.Fprintf(&b, "    %s %s %s = %s\n", sc.Name, v.Type, v.Name, v.Value)
				}
			}
		}
	}
	return b.String()
}

// oracle returns a fresh session driven forward to moment m (start: the
// entry), making the changes on the way; with here, it stops after the
// last change instead (m is where it was made).
func (f *travelFuzz) oracle(m tmoment, start, here bool) (*Session, *tfListener) {
	f.t.Helper()
	cfg := f.cfg
	cfg.SnapshotInterval = -1 // forward only: no copies needed
	o, l := f.launch(cfg)
	for i, c := range f.changes {
		// (changes made at one stop are made one after the other)
		if !c.start && (i == 0 || f.changes[i-1].stop != c.stop) {
			f.drive(o, l, c.at)
		}
		if err := c.apply(o, l); err != nil {
			o.Terminate()
			f.fail("the fresh session refused the change %s at %v: %v", c.what, c.at, err)
		}
	}
	if !start && !here {
		f.drive(o, l, m)
	}
	return o, l
}

// drive continues the fresh session o until it is at moment m, stopping
// at m's pc with an instruction breakpoint.
func (f *travelFuzz) drive(o *Session, l *tfListener, m tmoment) {
	f.t.Helper()
	if now, ok := momentOf(o); ok && now == m || standsAt(o, m) {
		return
	}
	fn := o.prog.Funcs[m.fn]
	bps := o.SetInstructionBreakpoints([]InstructionBreakpointSpec{{Ref: o.Address(fn, m.pc)}})
	if len(bps) != 1 || !bps[0].Verified {
		o.Terminate()
		f.fail("instruction breakpoint at %v: %+v", m, bps)
	}
	defer o.SetInstructionBreakpoints(nil)
	for n := 0; ; n++ {
		if n > 1_000_000 {
			o.Terminate()
			f.fail("the fresh session did not reach %v", m)
		}
		if err := o.Continue(0, false); err != nil {
			o.Terminate()
			f.fail("the fresh session cannot continue towards %v: %v", m, err)
		}
		e, err := l.next()
		if err != nil || e.exited {
			o.Terminate()
			f.fail("the fresh session ended before %v (%v)", m, err)
		}
		now, ok := momentOf(o)
		if ok && now == m {
			return
		}
		if t := o.r.sch.Thread(m.thread); t != nil && t.Reductions() > m.red {
			o.Terminate()
			f.fail("the fresh session passed %v without stopping there (thread %d has %d reductions)", m, m.thread, t.Reductions())
		}
	}
}

// checkChanged compares the session s, just changed, with a fresh one
// that made the same changes.
func (f *travelFuzz) checkChanged(s *Session) {
	f.t.Helper()
	tid := s.StoppedThread()
	got := view(s, tid)
	o, _ := f.oracle(tmoment{}, false, true)
	want := view(o, tid)
	o.Terminate()
	f.st.compared++
	if got != want {
		f.fail("after the last change the session is not where a fresh run that made it is:\n--- session\n%s--- fresh run\n%s", got, want)
	}
}

// check compares the stopped session s with a fresh one at its moment.
func (f *travelFuzz) check(s *Session, info StopInfo) {
	f.t.Helper()
	m, ok := momentOf(s)
	start := info.Reason == ReasonEntry
	if !ok && !start {
		return // (a stop after goto or restartFrame, a deadlock: the next stop is compared)
	}
	if start && len(f.changes) > 0 {
		return
	}
	if ok && s.StoppedThread() != m.thread {
		f.fail("the stop is about thread %d, at a moment of thread %d (%v)", s.StoppedThread(), m.thread, m)
	}
	tid := s.StoppedThread()
	got := view(s, tid)
	o, _ := f.oracle(m, start, false)
	want := view(o, tid)
	o.Terminate()
	f.st.compared++
	if got != want {
		f.fail("after the last request the session is not where a fresh run is at %v:\n--- session\n%s--- fresh run\n%s", m, got, want)
	}
}

// plainOutput is what the program prints when it runs alone.
func (f *travelFuzz) plainOutput() string {
	if f.plain == nil {
		cfg := f.cfg
		cfg.SnapshotInterval = -1
		o, l := f.launch(cfg)
		if err := o.Continue(0, false); err != nil {
			f.t.Fatal(err)
		}
		for {
			e, err := l.next()
			if err != nil {
				f.t.Fatal(err)
			}
			if e.exited {
				break
			}
			o.Continue(0, false) // (a deadlock's stop)
		}
		out := l.stdout()
		f.plain = &out
	}
	return *f.plain
}

// stmtLines returns the lines of the program's file that have a
// statement.
func stmtLines(s *Session, path string) []int {
	seen := map[int]bool{}
	var out []int
	for _, fn := range s.prog.Funcs {
		if canonPath(fn.File) != canonPath(path) {
			continue
		}
		for _, e := range stmtPCs(fn) {
			if !seen[int(e.Line)] {
				seen[int(e.Line)] = true
				out = append(out, int(e.Line))
			}
		}
	}
	sort.Ints(out)
	return out
}

// intLocal picks a local or argument of type int of thread tid's top
// frame: the scope's name and the variable's.
func (f *travelFuzz) intLocal(s *Session, tid int64) (string, string, bool) {
	scopes, err := s.Scopes(tid, 0)
	if err != nil {
		return "", "", false
	}
	type cand struct{ scope, name string }
	var cands []cand
	for _, sc := range scopes {
		if sc.Expensive {
			continue
		}
		vars, err := s.Variables(sc.Ref, 0, 0)
		if err != nil {
			continue
		}
		for _, v := range vars {
			if v.Type == "int" && !strings.ContainsAny(v.Name, " .[") {
				cands = append(cands, cand{sc.Name, v.Name})
			}
		}
	}
	if len(cands) == 0 {
		return "", "", false
	}
	c := cands[f.rng.IntN(len(cands))]
	return c.scope, c.name, true
}

// setVar sets name in the scope called scope of tid's top frame.
func setVar(s *Session, tid int64, scope, name, value string) error {
	scopes, err := s.Scopes(tid, 0)
	if err != nil {
		return err
	}
	for _, sc := range scopes {
		if sc.Name == scope {
			_, err := s.SetVariable(sc.Ref, name, value)
			return err
		}
	}
	return fmt.Errorf("no scope %s", scope)
}

// awaitStop waits for the stop a request reports in place (goto,
// restartFrame).
func awaitStop(l *tfListener) error {
	e, err := l.next()
	if err != nil {
		return err
	}
	if e.exited {
		return errors.New("the program ended")
	}
	return nil
}

// sequence runs one sequence of n requests: a session, and a new one
// each time the program ends.
func (f *travelFuzz) sequence(n int) {
	f.t.Helper()
	for n > 0 {
		n -= f.session(n)
		f.changes = nil
	}
}

// session runs a session for at most n requests, until the program
// ends, and returns the number of requests sent.
func (f *travelFuzz) session(n int) (sent int) {
	f.t.Helper()
	s, l := f.launch(f.cfg)
	defer s.Terminate()
	if f.spares && s.tt != nil {
		s.tt.snaps.mu.Lock()
		s.tt.snaps.spareMin = 0
		s.tt.snaps.mu.Unlock()
		s.catchUpMinTest.Store(1) // (catch-ups at every stop they can)
		// a clock of its own, 1 ms a reading: the copies' policy sees the
		// runs of these small programs as long ones (copies near stops,
		// catch-ups that take them)
		s.tt.snaps.clock.now = (&fakeClock{t: time.Unix(1e9, 0), step: time.Millisecond}).now
	}
	defer func() {
		st := s.SnapshotStats()
		f.st.copies += st.Taken
		f.st.near += st.Near
		f.st.restores += st.Restores
		f.st.spares += st.Spares
		f.st.catchUps += st.CatchUps
		f.st.caughtUp += st.CaughtUp
	}()
	if f.lines == nil {
		f.lines = stmtLines(s, f.path)
	}
	info := StopInfo{Reason: ReasonEntry}
	var cur tmoment // the moment of the last stop (changes are made there)
	atStart := true
	stops := 0
	exited := false
	f.logf("start (stopped at entry)")
	// (breakpoints from the start, so that a continue goes somewhere
	// before the end: the sequences get past the first quanta)
	f.setBreakpoints(s, 1+f.rng.IntN(3))
	forward := f.rng.IntN(8)
	// wait waits for the stop or end a resume leads to.
	wait := func(what string) {
		e, err := l.next()
		if err != nil {
			f.fail("%s: %v", what, err)
		}
		if e.exited {
			exited = true
			f.logf("  -> the program ended (%d)", e.code)
			return
		}
		info = e.stop
	}
	// stopped notes a new stop and compares it.
	stopped := func() {
		if exited {
			return
		}
		stops++
		m, ok := momentOf(s)
		cur, atStart = m, info.Reason == ReasonEntry
		if !ok && !atStart {
			f.logf("  -> %s (%s), not a moment of a thread", info.Reason, info.Description)
			cur = tmoment{thread: -1}
		} else {
			f.logf("  -> %s at %v", info.Reason, m)
		}
		f.check(s, info)
	}
	canChange := func() bool { return atStart || cur.thread > 0 }
	for ; sent < n && !exited; sent++ {
		select {
		case <-s.Done():
			// A pause that raced with the end of the program (after a
			// deadlock's stop, say) reports its stop, then the end.
			wait("the end")
			if !exited {
				f.fail("the session ended but reported %+v", info)
			}
			continue
		default:
		}
		f.st.ops++
		tid := info.ThreadID
		if tid == 0 {
			tid = 1
		}
		if ths, err := s.Threads(); err == nil && len(ths) > 0 && f.rng.IntN(5) == 0 {
			tid = ths[f.rng.IntN(len(ths))].ID // another thread, now and then
		}
		op := f.pick()
		if sent < forward {
			op = "continue" // (a run-up: going back from further in)
		}
		f.st.byOp[op]++
		switch op {
		case "continue":
			f.logf("continue")
			if err := s.Continue(0, false); err != nil {
				f.fail("continue: %v", err)
			}
			wait(op)
			stopped()
		case "pause":
			f.logf("continue, pause")
			if err := s.Continue(0, false); err != nil {
				f.fail("continue: %v", err)
			}
			if err := s.Pause(); err != nil && !errors.Is(err, ErrNotRunning) {
				f.fail("pause: %v", err)
			}
			wait(op)
			stopped()
		case "next", "stepIn", "stepOut":
			kind := map[string]StepKind{"next": StepOver, "stepIn": StepIn, "stepOut": StepOut}[op]
			f.logf("%s thread %d", op, tid)
			if err := s.Step(tid, kind, false); err != nil {
				if errors.Is(err, ErrNoThread) {
					f.logf("  refused: %v", err)
					f.st.refused++
					continue
				}
				f.fail("%s: %v", op, err)
			}
			wait(op)
			stopped()
		case "stepBack", "stepBackIn", "stepBackOut", "reverseContinue":
			f.logf("%s thread %d", op, tid)
			before := ""
			if len(f.changes) > 0 {
				before = view(s, s.StoppedThread())
			}
			var err error
			switch op {
			case "stepBack":
				err = s.StepBack(tid, StepOver)
			case "stepBackIn":
				err = s.StepBack(tid, StepIn)
			case "stepBackOut":
				err = s.StepBack(tid, StepOut)
			default:
				err = s.ReverseContinue(tid)
			}
			switch {
			case len(f.changes) > 0:
				if !errors.Is(err, ErrAfterSet) {
					f.fail("%s after a change of the execution: %v, want it refused (%v)", op, err, ErrAfterSet)
				}
				f.logf("  refused: %v", err)
				f.st.backRefused++
				select {
				case <-s.Done(): // (the end of a pause that raced with it: above)
					wait("the end")
					continue
				default:
				}
				if after := view(s, s.StoppedThread()); after != before {
					f.fail("a refused %s changed the session:\n--- before\n%s--- after\n%s", op, before, after)
				}
				continue
			case errors.Is(err, ErrNoThread):
				f.logf("  refused: %v", err)
				f.st.refused++
				continue
			case err != nil:
				f.fail("%s: %v", op, err)
			}
			wait(op)
			stopped()
		case "setBreakpoints":
			f.setBreakpoints(s, f.rng.IntN(4))
		case "setVariable", "setExpression":
			if !canChange() {
				continue
			}
			scope, name, ok := f.intLocal(s, tid)
			if !ok {
				continue
			}
			val := strconv.Itoa(f.rng.IntN(20) - 5)
			var apply func(*Session, *tfListener) error
			if op == "setVariable" {
				apply = func(o *Session, _ *tfListener) error { return setVar(o, tid, scope, name, val) }
			} else {
				apply = func(o *Session, _ *tfListener) error {
					_, err := o.SetExpression(tid, 0, name, name+" + "+val)
					return err
				}
			}
			f.logf("%s thread %d %s %s (%s)", op, tid, scope, name, val)
			f.change(s, l, op, cur, atStart, stops, apply)
		case "goto":
			if !canChange() {
				continue
			}
			frames, _, err := s.Stack(tid, 0, 1)
			if err != nil || len(frames) == 0 || frames[0].Native {
				continue
			}
			line := f.lines[f.rng.IntN(len(f.lines))]
			targets, err := s.GotoTargets(frames[0].File, line)
			if err != nil {
				continue
			}
			var id int
			for _, tg := range targets {
				if tg.Func == frames[0].Func {
					id = tg.ID
				}
			}
			if id == 0 {
				continue
			}
			f.logf("goto thread %d line %d", tid, line)
			f.change(s, l, op, cur, atStart, stops, func(o *Session, ol *tfListener) error {
				if err := o.Goto(tid, id); err != nil {
					return err
				}
				return awaitStop(ol)
			})
		case "restartFrame":
			if !canChange() {
				continue
			}
			t, err := s.thread(tid)
			if err != nil || t.Depth() == 0 {
				continue
			}
			depth := f.rng.IntN(t.Depth())
			f.logf("restartFrame thread %d frame %d", tid, depth)
			f.change(s, l, op, cur, atStart, stops, func(o *Session, ol *tfListener) error {
				if err := o.RestartFrame(tid, depth); err != nil {
					return err
				}
				return awaitStop(ol)
			})
		}
	}
	if exited && len(f.changes) == 0 {
		f.st.outputs++
		if got, want := l.stdout(), f.plainOutput(); got != want {
			f.fail("the session printed %q, a plain run %q", got, want)
		}
	}
	return sent
}

// setBreakpoints sets n line breakpoints at random lines of the
// program, a few with a condition or a hit count.
func (f *travelFuzz) setBreakpoints(s *Session, n int) {
	var specs []BreakpointSpec
	var desc []string
	for ; n > 0; n-- {
		sp := BreakpointSpec{Line: f.lines[f.rng.IntN(len(f.lines))]}
		switch f.rng.IntN(10) {
		case 0:
			sp.HitCondition = "%2"
		case 1:
			sp.HitCondition = ">1"
		case 2, 3:
			sp.Condition = "1 < 2"
		}
		specs = append(specs, sp)
		desc = append(desc, fmt.Sprintf("%d%s%s", sp.Line, sp.HitCondition, map[bool]string{true: " if " + sp.Condition}[sp.Condition != ""]))
	}
	f.logf("setBreakpoints [%s]", strings.Join(desc, ", "))
	s.SetBreakpoints(f.path, specs)
}

// change makes a change of the execution on the session (refused
// changes are counted and not kept) and keeps it for the fresh sessions.
// A change that reports a stop (goto, restartFrame) is waited for.
func (f *travelFuzz) change(s *Session, l *tfListener, what string, at tmoment, start bool, stop int, apply func(*Session, *tfListener) error) {
	f.t.Helper()
	if err := apply(s, l); err != nil {
		f.logf("  refused: %v", err)
		f.st.refused++
		return
	}
	f.st.changes++
	f.changes = append(f.changes, tfChange{at: at, start: start, stop: stop, what: what, apply: apply})
	f.checkChanged(s)
}

// opWeights are the requests and how often a sequence sends them.
var opWeights = []struct {
	op string
	w  int
}{
	{"continue", 10}, {"pause", 3}, {"next", 14}, {"stepIn", 8}, {"stepOut", 5},
	{"stepBack", 14}, {"stepBackIn", 4}, {"stepBackOut", 4}, {"reverseContinue", 9},
	{"setBreakpoints", 9}, {"setVariable", 1}, {"setExpression", 1}, {"goto", 1}, {"restartFrame", 1},
}

func (f *travelFuzz) pick() string {
	total := 0
	for _, o := range opWeights {
		total += o.w
	}
	n := f.rng.IntN(total)
	for _, o := range opWeights {
		if n < o.w {
			return o.op
		}
		n -= o.w
	}
	panic("unreachable")
}

// envInt reads a positive integer from the environment.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// TestTimeTravelDifferential runs the differential sequences: by
// default 64 sequences of 30 requests (5–16 s of CPU, about 16 s with
// -race; 16 with -short), with NLANGDBG_TEST_FULL=1 400 of 60;
// NLANGDBG_TRAVELFUZZ_SEQS and NLANGDBG_TRAVELFUZZ_OPS set them,
// NLANGDBG_TRAVELFUZZ_SEED the seed (each sequence's generator is seeded
// with it and the sequence's number), NLANGDBG_TRAVELFUZZ_FROM the first
// sequence (to run again the one a failure names).
func TestTimeTravelDifferential(t *testing.T) {
	seqs, ops := 64, 30
	switch {
	case testmode.Full():
		seqs, ops = 400, 60
	case testing.Short():
		seqs = 16
	}
	seqs = envInt("NLANGDBG_TRAVELFUZZ_SEQS", seqs)
	ops = envInt("NLANGDBG_TRAVELFUZZ_OPS", ops)
	seed := uint64(envInt("NLANGDBG_TRAVELFUZZ_SEED", 22))
	st := &tfStats{byOp: map[string]int{}}
	quotas := []int{3, 17, 60, 4000}
	intervals := []time.Duration{time.Nanosecond, -1, 0}
	for i := envInt("NLANGDBG_TRAVELFUZZ_FROM", 0); i < seqs; i++ {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		prog := travelPrograms[rng.IntN(len(travelPrograms))]
		path, err := filepath.Abs(filepath.Join("..", "testdata", "dap", prog))
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Quota: quotas[rng.IntN(len(quotas))], SnapshotInterval: intervals[rng.IntN(len(intervals))]}
		if rng.IntN(4) == 0 {
			cfg.SnapshotBudget = 64 << 10 // a small budget: copies are dropped
		}
		f := &travelFuzz{t: t, path: path, cfg: cfg, rng: rng, st: st, spares: rng.IntN(2) == 0}
		f.logf("sequence %d (seed %d): %s, quota %d, checkpoint interval %v, budget %d, spares %v", i, seed, prog, cfg.Quota, cfg.SnapshotInterval, cfg.SnapshotBudget, f.spares)
		f.sequence(ops)
		st.seqs++
	}
	var byOp []string
	for _, o := range opWeights {
		byOp = append(byOp, fmt.Sprintf("%s %d", o.op, st.byOp[o.op]))
	}
	t.Logf("%d sequences, %d requests (%s); %d stops compared with a fresh run, %d outputs compared, %d changes of the execution, %d going back refused after one, %d other refusals; %d checkpoints taken (%d near a moment gone back to), %d re-executions from one (%d from a copy restored ahead); %d catch-ups at stops (%d took a copy near their stop)",
		st.seqs, st.ops, strings.Join(byOp, ", "), st.compared, st.outputs, st.changes, st.backRefused, st.refused, st.copies, st.near, st.restores, st.spares, st.catchUps, st.caughtUp)
	if st.compared < st.seqs {
		t.Errorf("only %d stops compared in %d sequences", st.compared, st.seqs)
	}
	if st.spares == 0 && st.restores > 0 && st.seqs >= 16 && runtime.GOMAXPROCS(0) >= 2 {
		t.Errorf("no re-execution started from a copy restored ahead (%d from a checkpoint)", st.restores)
	}
}
