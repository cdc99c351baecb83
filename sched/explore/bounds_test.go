package explore

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// compileSrc compiles an inline program.
func compileSrc(t testing.TB, name, src string) Config {
	t.Helper()
	prog, err := compile.CompileFile(name, []byte(src), compile.Options{Lib: library()})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return Config{Prog: prog, Path: name, Source: []byte(src)}
}

// TestScheduleCountNotListed: the schedules to run are not listed before
// they run (2e9 of them took 16 GB before the first ran): an exploration
// of 2^26 schedules, stopped after a few, has not grown the heap by the
// list's 512 MiB.
func TestScheduleCountNotListed(t *testing.T) {
	cfg := compileSrc(t, "tiny.n", "int main() { return 0; }\n")
	cfg.Schedules, cfg.Strategy = 1<<26, Random
	var prog Progress
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan *Result, 1)
	go func() {
		res, err := Explore(cfg, &prog)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	for prog.Done.Load() < 5 {
		runtime.Gosched()
	}
	runtime.ReadMemStats(&after)
	prog.Stop()
	res := <-done
	if grown := int64(after.TotalAlloc - before.TotalAlloc); grown > 64<<20 {
		t.Errorf("the first schedules allocated %d bytes", grown)
	}
	if res == nil || res.Schedules < 5 || res.Schedules >= 1<<26 {
		t.Fatalf("a stopped exploration reports %+v", res)
	}
}

// manyThreads spawns n threads that each do nothing.
func manyThreads(n int) string {
	return `import thread;
void work() { }
int main() {
    List<Thread> ts = new List<Thread>();
    for (int i = 0; i < ` + strconv.Itoa(n) + `; i += 1) { ts.add(thread.spawn(work)); }
    for (int i = 0; i < ts.length(); i += 1) { ts.get(i).join(); }
    return 0;
}
`
}

// TestRunnableNotKeptPerPick: a run keeps the runnable threads of each
// scheduling point only for a depth-first search, and at most maxAlts of
// them: with n threads they were n ids at each of n points (a program
// with 100,000 threads reached 7.9 GB for 3 schedules).
func TestRunnableNotKeptPerPick(t *testing.T) {
	cfg := compileSrc(t, "many.n", manyThreads(100))
	if err := cfg.defaults(); err != nil {
		t.Fatal(err)
	}
	r := newRunner(&cfg)
	if _, err := r.run(&forced{}, nil); err != nil {
		t.Fatal(err)
	}
	if len(r.ctl.trace) < 100 || len(r.ctl.ids) != 0 {
		t.Fatalf("a run of PCT or random: %d points, %d runnable ids kept; want none kept", len(r.ctl.trace), len(r.ctl.ids))
	}
	r.ctl.alts = true
	if _, err := r.run(&forced{}, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(r.ctl.ids); n > maxAlts*len(r.ctl.trace) || !r.ctl.cut {
		t.Fatalf("a run of dfs: %d ids for %d points (cut %v); want at most %d a point, cut", n, len(r.ctl.trace), r.ctl.cut, maxAlts)
	}
	// a search that could not try every thread does not say it is complete
	cfg.Strategy, cfg.Schedules = DFS, 20
	res, err := Explore(cfg, nil)
	if err != nil || res.Complete {
		t.Fatalf("dfs over 100 threads: %v, complete %v", err, res != nil && res.Complete)
	}
}

// TestParseResultUntrusted: a result file is checked before Merge uses
// it: a null failure panicked, shard 5 of 2 was merged and counted "-2
// schedules".
func TestParseResultUntrusted(t *testing.T) {
	good := `{"program":"p.n","strategy":"pct","granularity":"shared","depth":3,"seed":0,"shard":0,"shards":2,"schedules":5,"points":9,"seconds":0.1,"failures":[{"kind":"deadlock","place":"x","message":"m","schedule":1,"hits":1,"preemptions":1,"shrunkPreemptions":1,"decisions":[],"shard":0}]}`
	if _, err := ParseResult([]byte(good)); err != nil {
		t.Fatalf("a good result: %v", err)
	}
	for _, c := range []struct{ edit, want string }{
		{`"failures":[null]`, "failure 1 is null"},
		{`"shard":5,"shards":2`, "shard 5 of 2"},
		{`"shard":0,"shards":0`, "shard 0 of 0"},
		{`"schedules":-2`, "a count out of range (schedules -2"},
		{`"schedules":1125899906842625`, "a count out of range (schedules 1125899906842625"},
		{`"strategy":"\u001b[2J"`, `unknown strategy "\x1b[2J"`},
		{`"hits":-7`, "failure 1: a count out of range"},
		{`"kind":""`, "failure 1 has no kind"},
		{`[1,2]`, "not an exploration result"},
	} {
		data := c.edit
		if !strings.HasPrefix(c.edit, "[") {
			data = editJSON(good, c.edit)
		}
		if _, err := ParseResult([]byte(data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.edit, err, c.want)
		}
	}
	if _, err := Merge([]*Result{nil}); err == nil {
		t.Error("Merge of a nil result: no error")
	}
	bad := &Result{Strategy: PCT, Shard: 5, Shards: 2}
	if _, err := Merge([]*Result{{Strategy: PCT, Shards: 2}, bad}); err == nil || !strings.Contains(err.Error(), "shard 5 of 2") {
		t.Errorf("Merge of shard 5 of 2: %v", err)
	}
}

// editJSON replaces the field of good that edit names (`"name":value`,
// or two of them) with edit's value.
func editJSON(good, edit string) string {
	var m map[string]any
	json.Unmarshal([]byte(good), &m)
	var e map[string]any
	json.Unmarshal([]byte("{"+edit+"}"), &e)
	f := m["failures"].([]any)[0].(map[string]any)
	for k, v := range e {
		if _, ok := f[k]; ok && k != "shard" {
			f[k] = v
		} else {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// scanPCT is PCT as it was first written: every Pick reads the priority
// of every runnable thread. The reference for pct's incremental choice.
type scanPCT struct{ p *pct }

func (s scanPCT) choose(c *controller, runnable []*vm.Thread, def *vm.Thread) (*vm.Thread, int) {
	p := s.p
	last := int64(-1)
	if n := len(c.trace); n > 0 {
		last = c.trace[n-1].thread
	}
	for p.next < len(p.changes) && p.changes[p.next] <= c.point {
		if last >= 0 {
			p.set(last, float64(p.depth-1-p.next))
			p.low = min(p.low, float64(p.depth-1-p.next))
		}
		p.next++
	}
	if last >= 0 && c.runLen > p.fair && len(runnable) > 1 {
		p.low--
		p.set(last, p.low)
	}
	var best *vm.Thread
	bp := 0.0
	for _, t := range runnable {
		pr, ok := p.get(t.ID)
		if !ok {
			pr = float64(p.depth) + p.rng.Float64()
			p.set(t.ID, pr)
		}
		if best == nil || pr > bp {
			best, bp = t, pr
		}
	}
	if p.next < len(p.changes) {
		return best, int(p.changes[p.next] - c.point)
	}
	return best, 0
}

// bothPCT runs pct and the scan side by side and fails on the first
// choice where they differ.
type bothPCT struct {
	t     *testing.T
	a     *pct
	b     scanPCT
	picks int
}

func (x *bothPCT) choose(c *controller, runnable []*vm.Thread, def *vm.Thread) (*vm.Thread, int) {
	ta, ba := x.a.choose(c, runnable, def)
	tb, bb := x.b.choose(c, runnable, def)
	if ta != tb || ba != bb {
		x.t.Fatalf("pick %d among %d: pct chose thread %d (budget %d), a scan thread %d (budget %d)", x.picks, len(runnable), ta.ID, ba, tb.ID, bb)
	}
	x.picks++
	return ta, ba
}

// TestPCTIncremental: pct, which reads only the threads that joined the
// run queue since the last Pick, chooses at every Pick what a scan of all
// the runnable threads chooses, over many schedules of the planted bugs
// and of a program with many threads.
func TestPCTIncremental(t *testing.T) {
	cfgs := []Config{compileSrc(t, "many.n", manyThreads(200))}
	for _, p := range planted {
		cfgs = append(cfgs, load(t, filepath.Join("..", "..", "testdata", "explore", p.file)))
	}
	for _, cfg := range cfgs {
		if err := cfg.defaults(); err != nil {
			t.Fatal(err)
		}
		sched.InstrumentAccesses(cfg.Prog) // the default granularity, as Explore does
		r := newRunner(&cfg)
		picks := 0
		for n := 1; n <= 30; n++ {
			mk := func() *pct { return newPCT(scheduleSeed(int64(n), n), cfg.Depth, 2000, cfg.fair) }
			ch := &bothPCT{t: t, a: mk(), b: scanPCT{mk()}}
			if _, err := r.run(ch, nil); err != nil {
				t.Fatal(err)
			}
			picks += ch.picks
		}
		if picks < 100 {
			t.Errorf("%s: %d picks in all", cfg.Path, picks)
		}
	}
}

// TestPCTIncrementalReordered: when the runnable threads are not the
// last Pick's queue plus new ones (here: random subsets in random
// orders), pct starts over and still chooses what a scan chooses.
func TestPCTIncrementalReordered(t *testing.T) {
	ts := make([]*vm.Thread, 40)
	for i := range ts {
		ts[i] = &vm.Thread{ID: int64(i + 1)}
	}
	rng := scheduleSeed(7, 7)
	mk := func() *pct { return newPCT(scheduleSeed(3, 3), 3, 300, 20) }
	x := &bothPCT{t: t, a: mk(), b: scanPCT{mk()}}
	c := &controller{}
	var queue []*vm.Thread
	for i := 0; i < 300; i++ {
		switch rng.IntN(3) {
		case 0: // a shuffled subset
			queue = append([]*vm.Thread(nil), ts[:1+rng.IntN(len(ts))]...)
			rng.Shuffle(len(queue), func(i, j int) { queue[i], queue[j] = queue[j], queue[i] })
		default: // FIFO: the chosen one gone, one more at the back (a run queue holds a thread once)
			if u := ts[rng.IntN(len(ts))]; !slices.Contains(queue, u) {
				queue = append(queue, u)
			}
		}
		got, _ := x.choose(c, queue, queue[0])
		c.trace = append(c.trace, quantum{point: c.point, thread: got.ID})
		c.point += int64(1 + rng.IntN(3))
		c.runLen = int64(rng.IntN(40))
		queue = slices.DeleteFunc(queue, func(t *vm.Thread) bool { return t == got })
		if len(queue) == 0 {
			queue = append(queue, ts[0])
		}
	}
}
