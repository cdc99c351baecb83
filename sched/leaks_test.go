package sched

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/internal/testmode"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// compileSrc compiles an NLang program with the scheduler's library.
func compileSrc(t testing.TB, name, src string) *vm.Program {
	t.Helper()
	lib := vm.StdLib()
	lib.Merge(Lib())
	prog, err := compile.CompileFile(name, []byte(src), compile.Options{Lib: lib})
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// markerLine returns the line of the comment "// @name" in src.
func markerLine(t testing.TB, src, name string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.HasSuffix(strings.TrimSpace(l), "// @"+name) {
			return i + 1
		}
	}
	t.Fatalf("no marker @%s", name)
	return 0
}

// serverSrc leaks a handler per request whose reply channel main drops
// (requests 1, 4 and 7), among workers parked on a channel main keeps.
const serverSrc = `import io; import thread;
void worker(Channel<int> jobs, Channel<int> done) {
    int j = jobs.recv();
    done.send(j);
}
void handle(int req, Channel<int> reply) {
    reply.send(req * 2);
}
int main() {
    Channel<int> jobs = {};
    Channel<int> done = {};
    for (int w = 0; w < 3; w += 1) {
        thread.spawn(worker, jobs, done);
    }
    int sum = 0;
    for (int i = 0; i < 10; i += 1) {
        Channel<int> reply = {};
        thread.spawn(handle, i, reply); // @spawn
        if (i % 3 != 1) {
            sum += reply.recv();
        }
    }
    thread.sleep(5); // @check
    for (int w = 0; w < 3; w += 1) {
        jobs.send(w);
        sum += done.recv();
    }
    io.print(sum);
    return 0;
}
`

// TestLeaksServer: the handlers whose reply channel was dropped are
// leaked, with their spawn site; the workers parked on the channel main
// holds are not (and do run later); the program goes on.
func TestLeaksServer(t *testing.T) {
	prog := compileSrc(t, "server.n", serverSrc)
	var out strings.Builder
	r, err := Boot(prog, RunConfig{Clock: &VirtualClock{}, Stdout: &out, Sites: true, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Sched
	// dispatch until main sleeps at @check
	for r.Main.WaitReason != "sleep" {
		if ev := s.Dispatch(); ev.Kind == EventEnd || ev.Kind == EventDeadlock {
			t.Fatalf("the program ended early: %v", ev)
		}
	}
	leaks, err := s.Leaks()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range leaks {
		parent, at := s.SpawnedBy(l.Thread)
		file, line, _ := at.Pos()
		ch, _ := l.On.(*Channel)
		got = append(got, fmt.Sprintf("%s %s on channel:%v by %d at %s:%d", l.Thread.Name(), l.Thread.WaitReason, ch != nil, parent, file, line))
	}
	spawn := markerLine(t, serverSrc, "spawn")
	var want []string
	for _, id := range []int{6, 9, 12} { // main 1, workers 2-4, handlers 5-14: requests 1, 4, 7
		want = append(want, fmt.Sprintf("thread-%d chan send on channel:true by 1 at server.n:%d", id, spawn))
	}
	if !slices.Equal(got, want) {
		t.Errorf("leaks:\n got %q\nwant %q", got, want)
	}
	s.Resume()
	if code := s.Run(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// requests 0,2,3,5,6,8,9 doubled, then the three jobs the workers took
	if want := fmt.Sprint(2*(0+2+3+5+6+8+9) + 0 + 1 + 2); strings.TrimSpace(out.String()) != want {
		t.Errorf("output %q, want %s", out.String(), want)
	}
}

// TestLeaksKinds: a thread is leaked when no thread that can run reaches
// what it waits on, or the thread it joins is leaked; a lock held by a
// leaked thread leaks its waiters even if others reach it; a semaphore
// main holds does not leak its waiter.
func TestLeaksKinds(t *testing.T) {
	// (the spawns are in helpers: a register of main that once held a
	// channel counts as reaching it while main runs)
	src := `import thread;
void stuck(Channel<int> c) { c.recv(); }
void joiner(Thread t) { t.join(); }
int getter(Channel<int> c) { c.recv(); return 1; }
void futureWaiter(Future<int> f) { f.get(); }
void holder(Mutex m, Channel<int> c) { m.lock(); c.recv(); }
void locker(Mutex m) { m.lock(); }
void acquirer(Semaphore s) { s.acquire(); }
void self(Mutex m) { m.lock(); m.lock(); }
Thread spawnStuck() { return thread.spawn(stuck, new Channel<int>()); }
Future<int> spawnGetter() { return thread.spawn(getter, new Channel<int>()); }
void spawnHolder(Mutex m) { thread.spawn(holder, m, new Channel<int>()); }
void spawnSelf() { thread.spawn(self, new Mutex()); }
int main() {
    Thread a = spawnStuck();              // 2: leaked (nobody has its channel)
    thread.spawn(joiner, a);              // 3: leaked (joins 2)
    Future<int> f = spawnGetter();        // 4: leaked
    thread.spawn(futureWaiter, f);        // 5: leaked (4 never ends)
    Mutex m = new Mutex();
    spawnHolder(m);                       // 6: leaked, holds m
    thread.spawn(locker, m);              // 7: leaked (m's owner is leaked)
    Semaphore s = new Semaphore(0);
    thread.spawn(acquirer, s);            // 8: not leaked (main has s)
    spawnSelf();                          // 9: leaked (it holds the lock it waits for)
    Channel<int> kept = {};
    thread.spawn(stuck, kept);            // 10: not leaked
    thread.sleep(5);
    s.release();
    kept.send(1);
    return 0;
}`
	prog := compileSrc(t, "kinds.n", src)
	r, err := Boot(prog, RunConfig{Clock: &VirtualClock{}, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	for !allWaiting(r.Sched) {
		r.Sched.Dispatch()
	}
	leaks, err := r.Sched.Leaks()
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, l := range leaks {
		ids = append(ids, l.Thread.ID)
		if l.On != l.Thread.WaitOn {
			t.Errorf("thread %d: On %v, want its WaitOn %v", l.Thread.ID, l.On, l.Thread.WaitOn)
		}
	}
	if want := []int64{2, 3, 4, 5, 6, 7, 9}; !slices.Equal(ids, want) {
		t.Errorf("leaked %v, want %v", ids, want)
	}
	// without sites the leaks are the same, and no site is known
	if _, at := r.Sched.SpawnedBy(leaks[0].Thread); at.Known() {
		t.Errorf("a site was recorded without SetSites: %v", at)
	}
}

// allWaiting reports whether every live thread is parked.
func allWaiting(s *Scheduler) bool {
	for _, t := range s.Threads() {
		if t.State != vm.Waiting {
			return false
		}
	}
	return true
}

// TestLeaksNoFalsePositive runs every concurrency script of testdata and
// looks for leaks after every scheduler event: a thread reported leaked
// must never be woken afterwards. The deadlocked scripts must report
// every thread at the deadlock (the pass finds real leaks too).
func TestLeaksNoFalsePositive(t *testing.T) {
	files, err := filepath.Glob("../testdata/run/concurrency/*.n")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, quota := range []int{1, 7, 10000} {
				checkNoFalseLeaks(t, filepath.Base(f), string(src), quota)
			}
		})
	}
}

func checkNoFalseLeaks(t *testing.T, name, src string, quota int) {
	prog := compileSrc(t, name, src)
	clock := &VirtualClock{Step: 1000}
	r, err := Boot(prog, RunConfig{Limits: Limits{Quota: quota}, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Sched
	leaked := map[*vm.Thread]bool{}
	checks, found := 0, 0
	var failed []string
	s.OnEvent = func(ev Event) {
		if ev.Kind == EventWake && leaked[ev.Thread] {
			failed = append(failed, fmt.Sprintf("thread %d %q was reported leaked, then woken", ev.Thread.ID, ev.Thread.Name()))
		}
		if ev.Kind == EventEnd {
			return
		}
		ls, err := s.Leaks()
		if err != nil {
			failed = append(failed, err.Error())
			return
		}
		checks++
		for _, l := range ls {
			if !leaked[l.Thread] {
				found++
			}
			leaked[l.Thread] = true
		}
		if ev.Kind == EventDeadlock && len(ls) != len(s.Threads()) {
			failed = append(failed, fmt.Sprintf("at the deadlock %d of %d threads reported leaked", len(ls), len(s.Threads())))
		}
	}
	code := s.Run()
	if checks == 0 {
		t.Fatalf("quota %d: no check ran", quota)
	}
	for _, f := range failed {
		t.Errorf("quota %d: %s", quota, f)
	}
	if code == 2 && found == 0 {
		t.Errorf("quota %d: deadlocked, but no leak found", quota)
	}
}

// TestSitesInSnapshot: a copy of the execution keeps who spawned each
// thread and where, and where each channel was made; a channel made
// without sites has none.
func TestSitesInSnapshot(t *testing.T) {
	prog := compileSrc(t, "server.n", serverSrc)
	sn := snapshotAtSleep(t, prog, RunConfig{Clock: &VirtualClock{}, Sites: true})
	cp, err := sn.Restore(vm.NewMachine(prog, nil, nil, nil), &VirtualClock{})
	if err != nil {
		t.Fatal(err)
	}
	th := cp.Thread(6)
	parent, at := cp.SpawnedBy(th)
	_, line, _ := at.Pos()
	if parent != 1 || line != markerLine(t, serverSrc, "spawn") {
		t.Errorf("copy's thread 6: spawned by %d at line %d", parent, line)
	}
	made, ok := cp.MadeAt(th.WaitOn)
	_, mline, _ := made.Pos()
	if !ok || mline != markerLine(t, serverSrc, "spawn")-1 {
		t.Errorf("copy's reply channel: made at %v (line %d, %v)", made, mline, ok)
	}
	if !cp.sites {
		t.Error("the copy does not record sites")
	}
}

// TestLeaksUnknownValue: a value the pass cannot look into makes Leaks
// refuse to answer rather than guess.
func TestLeaksUnknownValue(t *testing.T) {
	m := vm.NewMachine(vm.NewProgram(), nil, nil, nil)
	s := New(m, Options{})
	fn := &vm.Funcode{Name: "f", NumRegs: 2, Code: []vm.Instr{{Op: vm.RET}}}
	s.Start(m.NewCallThread(fn, []vm.Value{vm.RefV(&opaque{1})}))
	_, err := s.Leaks()
	var unk *ErrLeaksUnknown
	if !errors.As(err, &unk) || unk.Type != "*sched.opaque" {
		t.Fatalf("Leaks: %v, want an ErrLeaksUnknown naming *sched.opaque", err)
	}
}

// leaks100kSrc parks 99,000 threads on a channel main keeps and 1,000 on
// channels nobody keeps.
const leaks100kSrc = `import thread;
void wait(Channel<int> c) { c.recv(); }
void spawnLeak() { thread.spawn(wait, new Channel<int>()); }
int main() {
    Channel<int> kept = {};
    for (int i = 0; i < 100000; i += 1) {
        if (i % 100 == 0) { spawnLeak(); } else { thread.spawn(wait, kept); }
    }
    thread.sleep(1000);
    return 0;
}`

// BenchmarkLeaks100k: the leak pass over 100,000 parked threads, 1,000
// of them leaked (the target: 50 ms).
func BenchmarkLeaks100k(b *testing.B) {
	prog := compileSrc(b, "leaks.n", leaks100kSrc)
	r, err := Boot(prog, RunConfig{Clock: &VirtualClock{}, Sites: true, Paused: true})
	if err != nil {
		b.Fatal(err)
	}
	for r.Sched.Dispatch().Kind != EventIdle { // until only the timer is left
	}
	cpu := testmode.CPUTime()
	for b.Loop() {
		ls, err := r.Sched.Leaks()
		if err != nil || len(ls) != 1000 {
			b.Fatalf("%d leaks, %v", len(ls), err)
		}
	}
	b.ReportMetric(float64(testmode.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
}
