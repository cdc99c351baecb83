package record

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// holdSrc has two workers that print in turn; the test holds worker a at
// its print of i == 3 while b goes on, and releases it later.
const holdSrc = `import io;
import thread;
void work(string name, int n) {
    for (int i = 0; i < n; i += 1) {
        io.print(name + i); // @print
        thread.yield();
    }
}
int main() {
    Thread a = thread.spawn(work, "a", 8);
    Thread b = thread.spawn(work, "b", 8);
    a.join();
    b.join();
    io.print("done");
    return 0;
}`

func compileHoldSrc(t *testing.T) (*vm.Program, *vm.Funcode, int32) {
	t.Helper()
	lib := vm.StdLib()
	lib.Merge(sched.Lib())
	prog, err := compile.CompileFile("hold.n", []byte(holdSrc), compile.Options{Lib: lib})
	if err != nil {
		t.Fatal(err)
	}
	line := int32(0)
	for i, l := range strings.Split(holdSrc, "\n") {
		if strings.Contains(l, "// @print") {
			line = int32(i + 1)
		}
	}
	for _, fn := range prog.Funcs {
		if fn.Name != "work" {
			continue
		}
		for _, e := range fn.Lines {
			if e.Stmt && e.Line == line {
				return prog, fn, e.PC
			}
		}
	}
	t.Fatal("no statement at @print")
	return nil, nil, 0
}

// holdOnce holds thread 2 ("a") the fourth time it reaches the trap.
type holdOnce struct {
	n    int
	held bool
}

func (h *holdOnce) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	if t.ID != 2 || h.held {
		return false
	}
	if h.n++; h.n == 4 {
		h.held = true
		sched.HoldAtTrap(t, false)
		return true
	}
	return false
}

// recordHeld records a run of holdSrc in which a is held at its fourth
// print and released release dispatches later (after the others ran out
// of work, if sooner), driving the scheduler by hand. It returns the
// recording, the output and the scheduler's events.
func recordHeld(t *testing.T, release int) ([]byte, string, []string) {
	t.Helper()
	prog, fn, pc := compileHoldSrc(t)
	hdr := Header{Path: "hold.n", Source: []byte(holdSrc), Hash: ProgramHash(prog), Quota: 1000}
	rec := NewRecorder(hdr)
	var out, file bytes.Buffer
	var events []string
	b, err := sched.Boot(prog, sched.RunConfig{Limits: sched.Limits{Quota: 1000}, Stdout: &out, Tap: rec.To(&file),
		Hook: &holdOnce{}, OnEvent: func(ev sched.Event) {
			switch ev.Kind {
			case sched.EventTrap, sched.EventHold, sched.EventRelease:
				events = append(events, ev.String())
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	fn.PinTrap(pc)
	defer fn.UnpinTrap(pc)
	s := b.Sched
	heldAt := -1
	for i := 0; ; i++ {
		ev := s.Dispatch()
		if heldAt < 0 && len(events) > 0 {
			heldAt = i
			if got := s.Held(s.Thread(2)); !got {
				t.Fatalf("thread 2 not held after %v", events)
			}
		}
		if heldAt >= 0 && (i == heldAt+release || ev.Kind == sched.EventIdle) && s.Held(s.Thread(2)) {
			s.Release(s.Thread(2))
			continue
		}
		if ev.Kind == sched.EventEnd {
			code, _ := s.ExitCode()
			if err := rec.Finish(code); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	return file.Bytes(), out.String(), events
}

// TestHoldReplays: a run in which the debugger held a thread at a trap
// while the others ran, and released it later, replays exactly without
// the debugger (no trap of its own, no hook): the recording holds where
// and when.
func TestHoldReplays(t *testing.T) {
	for _, release := range []int{2, 5, 1000} {
		data, out, events := recordHeld(t, release)
		if got := strings.Join(events, "; "); got != "trap thread-2 held; release thread-2" {
			t.Errorf("release after %d: events %q", release, got)
		}
		// b went on while a was held at "a3": b's lines come before it
		if i, j := strings.Index(out, "a3\n"), strings.Index(out, "b5\n"); i < 0 || j < 0 || j > i {
			t.Errorf("release after %d: b did not run while a was held:\n%s", release, out)
		}
		rec, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		prog, _, _ := compileHoldSrc(t)
		rp := NewReplayer(rec)
		var again bytes.Buffer
		b, err := sched.Boot(prog, sched.RunConfig{Limits: sched.Limits{Quota: 1000}, Stdout: &again, Tap: rp})
		if err != nil {
			t.Fatal(err)
		}
		code := b.Sched.Run()
		if div := rp.Finish(code); div != nil {
			t.Fatalf("release after %d: %v", release, div)
		}
		if again.String() != out {
			t.Errorf("release after %d: replay printed\n%s\nwant\n%s", release, again.String(), out)
		}
		for _, fn := range prog.Funcs {
			for pc := range fn.Code {
				if fn.HasTrap(int32(pc)) {
					t.Errorf("release after %d: the replay left a trap at pc %d of %s", release, pc, fn.Name)
				}
			}
		}
	}
}

// TestHoldJournal: a journal resumed from a log with holds replays them
// (the debugger's own trap there too, as after going back), reaches its
// frontier without forking, and records from there.
func TestHoldJournal(t *testing.T) {
	data, out, _ := recordHeld(t, 3)
	rec, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	j, err := ResumeJournal(rec.Log(), 0)
	if err != nil {
		t.Fatal(err)
	}
	prog, fn, pc := compileHoldSrc(t)
	var again bytes.Buffer
	var events []string
	// The session's breakpoint holds a again where it did: the journal
	// takes it for the recorded hold.
	b, err := sched.Boot(prog, sched.RunConfig{Limits: sched.Limits{Quota: 1000}, Stdout: &again, Tap: j,
		Hook: &holdOnce{}, OnEvent: func(ev sched.Event) {
			switch ev.Kind {
			case sched.EventTrap, sched.EventHold, sched.EventRelease:
				events = append(events, ev.String())
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	fn.SetTrap(pc)
	defer fn.ClearTrap(pc)
	b.Sched.Run()
	if j.Forked() != "" || j.Replaying() {
		t.Fatalf("forked %q, replaying %v", j.Forked(), j.Replaying())
	}
	if again.String() != out {
		t.Errorf("journal printed\n%s\nwant\n%s", again.String(), out)
	}
	if got := strings.Join(events, "; "); got != "trap thread-2 held; release thread-2" {
		t.Errorf("events %q", got)
	}
}
