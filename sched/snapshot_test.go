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
