package sched

import (
	"strings"
	"sync"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
)

// holdSrc: a worker that waits for main's go-ahead, and main that then
// prints while the worker runs too.
const holdSrc = `import io; import thread;
void work(Channel<int> c, Channel<int> done) {
    int n = c.recv();
    for (int i = 0; i < n; i += 1) { io.print("w" + i); thread.yield(); }
    done.send(1);
}
int main() {
    Channel<int> c = new Channel<int>(1);
    Channel<int> done = new Channel<int>(1);
    Thread w = thread.spawn(work, c, done);
    c.send(3);
    for (int i = 0; i < 3; i += 1) { io.print("m" + i); thread.yield(); }
    done.recv();
    io.print("end");
    return 0;
}`

// eventLog collects the hold events of a scheduler.
type eventLog struct {
	mu  sync.Mutex
	evs []string
}

func (l *eventLog) add(ev Event) {
	if ev.Kind == EventHold || ev.Kind == EventRelease || ev.Kind == EventTrap {
		l.mu.Lock()
		l.evs = append(l.evs, ev.String())
		l.mu.Unlock()
	}
}

func (l *eventLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.evs, "; ")
}

// TestHoldAtBoundary: a thread held between dispatches stays off the run
// queue (main goes on, then waits for it: idle, not a deadlock) until it
// is released; the events say so.
func TestHoldAtBoundary(t *testing.T) {
	s, out, _ := parallelStart(t, holdSrc, 1)
	var log eventLog
	s.OnEvent = log.add
	s.Dispatch() // main spawns w, sends, prints m0 and yields
	w := s.Thread(2)
	s.Hold(w)
	if !s.Held(w) || s.Frozen(w) {
		t.Fatalf("Held %v, Frozen %v: want held, not frozen", s.Held(w), s.Frozen(w))
	}
	idle := false
	for i := 0; i < 100 && !idle; i++ {
		idle = s.Dispatch().Kind == EventIdle
	}
	if !idle || log.String() != "hold thread-2" {
		t.Fatalf("idle %v, events %q, output %q", idle, log.String(), out.String())
	}
	if got := out.String(); got != "m0\nm1\nm2\n" {
		t.Fatalf("while held: %q", got)
	}
	if q := s.RunQueue(); len(q) != 0 {
		t.Fatalf("run queue %v", q)
	}
	s.Release(w)
	for ev := s.Dispatch(); ev.Kind != EventEnd; ev = s.Dispatch() {
		if ev.Kind == EventDeadlock {
			t.Fatal("deadlock")
		}
	}
	if got := out.String(); got != "m0\nm1\nm2\nw0\nw1\nw2\nend\n" || log.String() != "hold thread-2; release thread-2" {
		t.Fatalf("output %q, events %q", got, log.String())
	}
}

// TestHoldDeadlockReport: a held thread that waits is asleep like the
// others, and the report says the debugger holds it.
func TestHoldDeadlockReport(t *testing.T) {
	src := `import thread;
void work(Channel<int> c) { c.recv(); }
int main() { Channel<int> c = new Channel<int>(); Thread w = thread.spawn(work, c); w.join(); return 0; }`
	s, _, errb := parallelStart(t, src, 1)
	s.Dispatch() // main spawns w and parks in the join
	s.Dispatch() // w parks in recv
	s.Hold(s.Thread(2))
	if ev := s.Dispatch(); ev.Kind != EventDeadlock {
		t.Fatalf("%v", ev)
	}
	if !strings.Contains(errb.String(), `thread 2 "thread-2" [chan recv, held by the debugger]`) {
		t.Errorf("report:\n%s", errb.String())
	}
}

// holdFirst holds the first thread that reaches a trap, alone.
type holdFirst struct {
	mu   sync.Mutex
	done bool
}

func (h *holdFirst) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done || t.ID == 1 {
		return false
	}
	h.done = true
	HoldAtTrap(t, false)
	return true
}

// TestHoldAtTrapCarriers: on one carrier and on four, a thread held at a
// trap stops there while the others run to their end, without a pause;
// released, it goes on from the trap.
func TestHoldAtTrapCarriers(t *testing.T) {
	src := `import io; import thread;
void work(int id, Channel<int> done) {
    int s = 0;
    for (int i = 0; i < 200; i += 1) { s += i; } // @loop
    io.print("w" + id + " " + s);
    done.send(id);
}
int main() {
    Channel<int> done = new Channel<int>(4);
    for (int k = 0; k < 4; k += 1) { thread.spawn(work, k, done); }
    int n = 0;
    for (int k = 0; k < 3; k += 1) { n += done.recv(); }
    io.print("three done");
    n += done.recv();
    io.print("all " + n);
    return 0;
}`
	for _, carriers := range []int{1, 4} {
		s, out, _ := parallelStart(t, src, carriers)
		s.m.Hook = &holdFirst{}
		if carriers > 1 {
			s.m.Hook = serialHook{h: s.m.Hook, mu: &s.hookMu}
		}
		var held *vm.Thread
		var mu sync.Mutex
		released := make(chan struct{})
		var once sync.Once
		s.OnEvent = func(ev Event) {
			if ev.Kind == EventTrap && ev.Held {
				mu.Lock()
				held = ev.Thread
				mu.Unlock()
			}
			if ev.Kind == EventIdle { // main waits for the held one
				mu.Lock()
				h := held
				mu.Unlock()
				if h != nil && s.Held(h) {
					once.Do(func() { go func() { s.Release(h); close(released) }() })
				}
			}
		}
		for _, fn := range s.m.Prog.Funcs {
			if fn.Name == "work" {
				fn.SetTrap(stmtAt(fn, 4))
			}
		}
		code := s.Run()
		<-released
		mu.Lock()
		h := held
		mu.Unlock()
		if code != 0 || h == nil {
			t.Fatalf("%d carriers: exit %d, held %v, output %q", carriers, code, h, out.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 6 || lines[3] != "three done" || lines[4] != "w"+itoa(h.Name) || lines[5] != "all 6" {
			t.Errorf("%d carriers (held %s): output %q", carriers, h.Name, out.String())
		}
	}
}

// stmtAt returns the pc of the first statement of fn on line.
func stmtAt(fn *vm.Funcode, line int32) int32 {
	for _, e := range fn.Lines {
		if e.Stmt && e.Line == line {
			return e.PC
		}
	}
	return -1
}

// itoa turns a worker's thread name ("thread-3": spawned third, id k=1)
// into its "k sum" line's prefix.
func itoa(name string) string {
	k := map[string]string{"thread-2": "0", "thread-3": "1", "thread-4": "2", "thread-5": "3"}[name]
	return k + " 19900"
}
