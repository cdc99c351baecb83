package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
)

func init() {
	commands = append(commands, &command{
		name:    "trace",
		usage:   "[--max-heap SIZE] [--max-steps N] REC -o TRACE.json",
		summary: "write a recording as a Trace Event Format file (Perfetto, chrome://tracing)",
		help: `
Replays the recording REC (nlangdbg run --record) and writes what the
scheduler did as Trace Event Format JSON, the format Perfetto
(ui.perfetto.dev) and chrome://tracing open: one track per virtual
thread, named after it; a slice per dispatch (named after how it ended:
budget, yield, park, done); a flow arrow from the thread that woke
another to that thread's next dispatch; instant events where a timer
fired or input arrived. Time is counted in reductions (one reduction is
shown as one microsecond): a replay has no wall clock of its own. The
replay is checked as by nlangdbg replay, and takes its --max-heap and
--max-steps; the program's output is not written. TRACE.json must not be
the recording itself.`,
		run: traceCmd,
	})
}

func traceCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("trace", stderr)
	out := fs.String("o", "", "the JSON file to write")
	var ro replayOptions
	ro.flags(fs)
	// flags may come before and after REC (REC -o FILE)
	var recs []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		recs, args = append(recs, fs.Arg(0)), fs.Args()[1:]
	}
	if len(recs) != 1 || *out == "" {
		fmt.Fprintln(stderr, "nlangdbg trace: want a recording and -o TRACE.json (usage: nlangdbg trace REC -o TRACE.json)")
		return 2
	}
	if err := ro.check(); err != nil {
		fmt.Fprintf(stderr, "nlangdbg trace: %v\n", err)
		return 2
	}
	if err := checkOutput(*out, recs[0]); err != nil {
		fmt.Fprintf(stderr, "nlangdbg trace: %v\n", err)
		return 2
	}
	rec, err := record.ReadFile(recs[0])
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg trace: %v\n", err)
		return 1
	}
	prog, msg := loadRecorded(rec, recs[0], "", stderr)
	if prog == nil {
		fmt.Fprintf(stderr, "nlangdbg trace: %s\n", msg)
		return 1
	}
	tr, div := traceRecording(prog, rec, ro)
	if div != nil {
		fmt.Fprintf(stderr, "nlangdbg trace: %s: %v\n", recs[0], div)
		return 1
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg: %v\n", err)
		return 1
	}
	w := bufio.NewWriter(f)
	err = tr.write(w)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg trace: %v\n", err)
		return 1
	}
	return 0
}

// checkOutput refuses an output file that is the input file itself
// (trace REC -o REC would overwrite the recording it reads), a link to it
// included.
func checkOutput(out, in string) error {
	so, err := os.Stat(out)
	if err != nil {
		return nil // a new file (or one Create will say is unwritable)
	}
	if si, err := os.Stat(in); err == nil && os.SameFile(so, si) {
		return fmt.Errorf("-o %s is the recording %s itself; refusing to overwrite it", out, in)
	}
	return nil
}

// traceEvent is one event of the Trace Event Format.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   int64          `json:"ts"`
	Dur  *int64         `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int64          `json:"tid"`
	ID   int            `json:"id,omitempty"`
	Bp   string         `json:"bp,omitempty"`
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// tracer turns the scheduler's events into trace events.
type tracer struct {
	events []traceEvent
	now    int64            // reductions so far: the time axis
	red    map[int64]int64  // each thread's reductions at its last quantum's end
	reason map[int64]string // each parked thread's wait reason
	names  map[int64]string // thread names
	flows  map[int64][]int  // flow ids waiting for the thread's next slice
	order  []int64          // threads in order of appearance
	flowID int
}

const tracePid = 1

func newTracer() *tracer {
	return &tracer{red: map[int64]int64{}, reason: map[int64]string{}, names: map[int64]string{}, flows: map[int64][]int{}}
}

// thread notes a thread and its name.
func (tr *tracer) thread(t *vm.Thread) {
	if _, ok := tr.names[t.ID]; !ok {
		tr.order = append(tr.order, t.ID)
	}
	tr.names[t.ID] = t.Name
}

// onEvent receives the replay's scheduler events.
func (tr *tracer) onEvent(ev sched.Event) {
	if ev.Thread != nil {
		tr.thread(ev.Thread)
	}
	if ev.Kind == sched.EventPark {
		tr.reason[ev.Thread.ID] = ev.Reason
	}
	switch ev.Kind {
	case sched.EventWake:
		t := ev.Thread
		switch {
		case ev.By != nil:
			tr.flowID++
			tr.events = append(tr.events, traceEvent{Name: "wake", Cat: "sched", Ph: "s", Ts: tr.now, Pid: tracePid, Tid: ev.By.ID, ID: tr.flowID})
			tr.flows[t.ID] = append(tr.flows[t.ID], tr.flowID)
		case tr.reason[t.ID] == "sleep":
			tr.instant("timer", t.ID)
		default:
			tr.instant("input ("+tr.reason[t.ID]+")", t.ID)
		}
	case sched.EventPreempt, sched.EventPark, sched.EventExit:
		t := ev.Thread
		n := max(0, t.Reductions()-tr.red[t.ID])
		tr.red[t.ID] = t.Reductions()
		start := tr.now
		tr.now += max(n, 1)
		dur := max(n, 1)
		name := "park " + ev.Reason
		switch ev.Kind {
		case sched.EventPreempt:
			name = ev.Stop.String()
		case sched.EventExit:
			name = "done"
		}
		tr.events = append(tr.events, traceEvent{Name: name, Cat: "dispatch", Ph: "X", Ts: start, Dur: &dur,
			Pid: tracePid, Tid: t.ID, Args: map[string]any{"reductions": n}})
		for _, id := range tr.flows[t.ID] {
			tr.events = append(tr.events, traceEvent{Name: "wake", Cat: "sched", Ph: "f", Bp: "e", Ts: start, Pid: tracePid, Tid: t.ID, ID: id})
		}
		delete(tr.flows, t.ID)
	}
}

// instant adds an instant event on thread tid's track.
func (tr *tracer) instant(name string, tid int64) {
	tr.events = append(tr.events, traceEvent{Name: name, Cat: "outside", Ph: "i", S: "t", Ts: tr.now, Pid: tracePid, Tid: tid})
}

// write writes the trace as JSON: metadata (process and thread names)
// first, then the events in time order.
func (tr *tracer) write(w io.Writer) error {
	var all []traceEvent
	all = append(all, traceEvent{Name: "process_name", Ph: "M", Pid: tracePid, Args: map[string]any{"name": "nlangdbg"}})
	for _, id := range tr.order {
		all = append(all, traceEvent{Name: "thread_name", Ph: "M", Pid: tracePid, Tid: id,
			Args: map[string]any{"name": fmt.Sprintf("[%d] %s", id, tr.names[id])}})
	}
	evs := append([]traceEvent(nil), tr.events...)
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Ts < evs[j].Ts })
	all = append(all, evs...)
	// flows still waiting (the thread never ran again) are dropped with
	// their start, so that every arrow has both ends
	open := map[int]bool{}
	for _, ids := range tr.flows {
		for _, id := range ids {
			open[id] = true
		}
	}
	out := all[:0]
	for _, e := range all {
		if e.Ph == "s" && open[e.ID] {
			continue
		}
		out = append(out, e)
	}
	return json.NewEncoder(w).Encode(map[string]any{"traceEvents": out, "displayTimeUnit": "ms",
		"otherData": map[string]any{"timeUnit": "1 us = 1 reduction"}})
}

// traceRecording replays rec with prog and returns its trace and the
// first divergence, if any.
func traceRecording(prog *vm.Program, rec *record.Recording, ro replayOptions) (*tracer, *record.Divergence) {
	h := rec.Header
	rp := record.NewReplayer(rec)
	tr := newTracer()
	cfg := recordedConfig(h, rp, nil, nil)
	ro.apply(&cfg, rp)
	cfg.OnEvent = tr.onEvent
	r, err := sched.Boot(prog, cfg)
	if err != nil {
		return nil, &record.Divergence{Want: "a run the recording's header describes", Got: err.Error()}
	}
	code := r.Sched.Run()
	return tr, rp.Finish(code)
}
