package sched

import (
	"errors"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
)

// panicky is a host value whose copy fails badly.
type panicky struct{}

func (panicky) CopyFor(*vm.Copier) any { panic("no copy for you") }

// opaque is a host value the copier does not know.
type opaque struct{ n int }

// TestSnapshotOfStateItCannotCopy: a snapshot of a state holding a value
// the copier does not know, or whose copy panics, is refused with an
// error (the debugger goes on without that checkpoint); a plain state
// is copied.
func TestSnapshotOfStateItCannotCopy(t *testing.T) {
	for _, c := range []struct {
		arg  any
		want string
	}{
		{panicky{}, "no copy for you"},
		{&opaque{1}, "*sched.opaque cannot be copied"},
		{"text", ""},
	} {
		m := vm.NewMachine(vm.NewProgram(), nil, nil, nil)
		s := New(m, Options{})
		fn := &vm.Funcode{Name: "f", NumRegs: 2, Code: []vm.Instr{{Op: vm.RET}}}
		s.Start(m.NewCallThread(fn, []vm.Value{vm.RefV(c.arg)}))
		sn, err := s.TakeSnapshot(0)
		switch {
		case c.want == "" && err != nil:
			t.Fatalf("%T: %v", c.arg, err)
		case c.want == "":
			if sn.Thread(1) == nil || sn.Thread(1) == s.Thread(1) {
				t.Fatalf("%T: the snapshot's main is %p, the scheduler's %p", c.arg, sn.Thread(1), s.Thread(1))
			}
		case err == nil || !strings.Contains(err.Error(), c.want):
			t.Fatalf("%T: error %v, want one saying %q", c.arg, err, c.want)
		case c.arg == (panicky{}) && !errors.Is(err, ErrSnapshot):
			t.Fatalf("a panic gives %v, want an ErrSnapshot", err)
		}
	}
}

// spareSrc reads a line, sleeps with a helper parked on a channel, then
// reads another: the second line is read by the run restored from a
// snapshot taken during the sleep, from that run's own input.
const spareSrc = `import io; import thread;
void helper(Channel<string> c) {
    io.print("helper got " + c.recv());
}
int main() {
    string a = io.readLine();
    Channel<string> c = {};
    thread.spawn(helper, c);
    thread.sleep(5);
    string b = io.readLine();
    c.send(a + b);
    thread.sleep(1);
    io.print("main read " + a + " and " + b);
    return 0;
}
`

// TestSnapshotSpare: a run Boot builds from a snapshot restored ahead
// (Prepare) is that copy, on which the run's own writers, input and
// clock are installed: it goes on exactly as a run restored then, and
// each spare serves one run (the next restores again, or takes the
// next spare). Several restores of one snapshot may run at once.
func TestSnapshotSpare(t *testing.T) {
	prog := compileSrc(t, "spare.n", spareSrc)
	sn := snapshotAtSleep(t, prog, RunConfig{Clock: &VirtualClock{}, Stdin: strings.NewReader("one\n")})
	run := func(input string) (string, bool) {
		var out strings.Builder
		b, err := Boot(prog, RunConfig{From: sn, Clock: &VirtualClock{}, Stdin: strings.NewReader(input), Stdout: &out})
		if err != nil {
			t.Fatal(err)
		}
		b.Sched.Resume() // (a run from a snapshot starts paused)
		if code := b.Sched.Run(); code != 0 {
			t.Fatalf("exit %d: %s", code, out.String())
		}
		return out.String(), b.Spare
	}
	want, spare := run("two\n")
	if spare || want != "helper got onetwo\nmain read one and two\n" {
		t.Fatalf("restored then: %q (spare %v)", want, spare)
	}
	// several restores of the snapshot at once (run with -race)
	for range 3 {
		go sn.Restore(vm.NewMachine(prog, nil, nil, nil), nil)
	}
	sn.Prepare()
	if !sn.Prepared() {
		t.Fatal("no spare under way after Prepare")
	}
	got, spare := run("two\n")
	if !spare || got != want {
		t.Fatalf("restored ahead: %q (spare %v), want %q", got, spare, want)
	}
	if sn.Prepared() {
		t.Fatal("the spare is still there after a run took it")
	}
	// its own input, not the spare's: another second line
	sn.Prepare()
	if got, spare := run("three\n"); !spare || got != "helper got onethree\nmain read one and three\n" {
		t.Fatalf("restored ahead, other input: %q (spare %v)", got, spare)
	}
	// dropped: the next run restores then
	sn.Prepare()
	sn.DropSpare()
	if got, spare := run("two\n"); spare || got != want {
		t.Fatalf("after DropSpare: %q (spare %v)", got, spare)
	}
}

// snapshotAtSleep runs prog as cfg says (paused, dispatched by hand) until
// main sleeps, and returns a snapshot of that moment.
func snapshotAtSleep(t *testing.T, prog *vm.Program, cfg RunConfig) *Snapshot {
	t.Helper()
	cfg.Paused = true
	r, err := Boot(prog, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for r.Main.WaitReason != "sleep" {
		r.Sched.Dispatch()
	}
	sn, err := r.Sched.TakeSnapshot(0)
	if err != nil {
		t.Fatal(err)
	}
	return sn
}
