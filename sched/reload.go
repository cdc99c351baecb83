package sched

import (
	"fmt"
	"io"

	"github.com/nlangdbg/nlangdbg/vm"
)

// A reload (the debugger's edit and continue, vm/reload.go) copies the
// paused execution onto a machine of the new program through a
// vm.Relink; the copy is a Snapshot, from which the debugger boots the
// run that goes on (Boot with From), and which it keeps as the first
// checkpoint of the execution after the reload.

// ErrReloadNow is returned by SnapshotRelinked when the execution
// cannot be copied: a thread is running, or inside a native that holds
// its carrier (a blocking read).
var ErrReloadNow = fmt.Errorf("%w: a thread is running or inside a native that holds its carrier", ErrSnapshot)

// SnapshotRelinked copies the execution, relinked by r, onto a machine
// of r.New (see vm.Relink). Call it only while the scheduler is paused
// between dispatches (a debugger's stop), with one carrier or several.
// The race detector's state is not copied (the run booted from the copy
// starts a detector of its own).
func (s *Scheduler) SnapshotRelinked(r *vm.Relink) (sn *Snapshot, err error) {
	defer recoverCopy(&err)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running > 0 || s.pinnedN > 0 {
		return nil, ErrReloadNow
	}
	m := vm.NewMachine(r.New, nil, io.Discard, io.Discard) // (code run on the copy prints nothing)
	cp, c := s.copyInto(m, nil, s.objects, 0, false, r, nil)
	if err := c.Err(); err != nil {
		return nil, err
	}
	return &Snapshot{s: cp, Bytes: c.Bytes, objects: c.Objects}, nil
}

// Machine returns the snapshot's machine, whose threads and objects are
// the copy's. A debugger may run code on it (a scratch thread, as for a
// reload's field initialisers) before any run is booted from it.
func (sn *Snapshot) Machine() *vm.Machine { return sn.s.m }

// Program returns the program the snapshot's execution runs.
func (sn *Snapshot) Program() *vm.Program { return sn.s.m.Prog }

// Relinked returns a copy of the snapshot relinked by r onto a machine
// of r.New (as SnapshotRelinked copies a paused execution): the start of
// a re-execution of the past with another program (the debugger's "what
// if"). The snapshot itself is not changed.
func (sn *Snapshot) Relinked(r *vm.Relink) (cp *Snapshot, err error) {
	defer recoverCopy(&err)
	sn.s.mu.Lock()
	defer sn.s.mu.Unlock()
	m := vm.NewMachine(r.New, nil, nil, nil)
	d, c := sn.s.copyInto(m, nil, sn.objects, 0, false, r, sn.slabs)
	if err := c.Err(); err != nil {
		return nil, err
	}
	return &Snapshot{s: d, Bytes: c.Bytes, objects: c.Objects}, nil
}
