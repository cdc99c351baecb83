package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/nlangdbg/nlangdbg/internal/scripttest"
	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm"
)

// snapAt is a snapshot with the moment it was taken at.
type snapAt struct {
	sn   *sched.Snapshot
	off  int // the journal's offset
	outN int // bytes of stdout and stderr written so far
}

// snapTaker snapshots every quantum at first, then (to keep at most 32)
// every second, fourth … one, dropping every other snapshot each time the
// stride doubles.
type snapTaker struct {
	j      *record.Journal
	out    *bytes.Buffer
	snaps  []snapAt
	err    error
	n      int
	stride int
}

func (k *snapTaker) AfterQuantum(s *sched.Scheduler) {
	k.n++
	if k.stride == 0 {
		k.stride = 1
	}
	if k.n%k.stride != 0 {
		return
	}
	if len(k.snaps) == 32 {
		for i := range 16 {
			k.snaps[i] = k.snaps[2*i+1]
		}
		k.snaps = k.snaps[:16]
		k.stride *= 2
	}
	sn, err := s.TakeSnapshot(0)
	if err != nil {
		if k.err == nil {
			k.err = err
		}
		return
	}
	k.snaps = append(k.snaps, snapAt{sn: sn, off: k.j.Offset(), outN: k.out.Len()})
}

// TestSnapshotScripts runs every testdata script, recording, with a
// snapshot taken at the end of every quantum; then it restores snapshots
// spread over the run (each twice) and runs them to the end with the
// journal resumed there. Each restored run must follow the recording
// event for event (the journal checks every quantum and every write),
// print the rest of the output, and exit as the run did; and taking the
// snapshots must not have changed the run.
func TestSnapshotScripts(t *testing.T) {
	var mu sync.Mutex
	snapped := 0
	t.Cleanup(func() {
		if snapped < 40 {
			t.Errorf("only %d scripts ran for more than one quantum", snapped)
		}
	})
	forEachScript(t, func(t *testing.T, f, name string, src []byte, s *scripttest.Script) {
		if len(s.Errors) > 0 || len(s.Args) > 0 {
			return
		}
		skipSlowScript(t, name)
		q := 7
		if s.Quota > 0 {
			q = s.Quota
		}
		if checkSnapshots(t, f, src, s, q) {
			mu.Lock()
			snapped++
			mu.Unlock()
		}
	})
}

// checkSnapshots records the script with snapshots and restores them; it
// reports false if the run was a single quantum (no snapshot).
func checkSnapshots(t *testing.T, path string, src []byte, s *scripttest.Script, quota int) bool {
	var errb bytes.Buffer
	prog := compileProgram(path, src, &errb)
	if prog == nil {
		t.Fatalf("compile: %s", errb.String())
	}
	hdr := record.Header{Path: path, Source: src, Hash: record.ProgramHash(prog), Quota: quota, Seed: s.Seed}
	j := record.NewJournal(hdr)
	var out bytes.Buffer // stdout and stderr, in order
	m := vm.NewMachine(prog, strings.NewReader(s.Stdin), j.Stdout(&out), j.Stderr(&out))
	sch := sched.New(m, sched.Options{Quota: quota, Seed: s.Seed, Clock: j.Clock()})
	if err := j.Start(m, sch); err != nil {
		t.Fatal(err)
	}
	k := &snapTaker{j: j, out: &out}
	sch.SetCheckpointer(k)
	sch.Start(m.NewCallThread(prog.Main, nil))
	code := exitStatus(sch.Run())
	if k.err != nil {
		t.Fatalf("snapshot: %v", k.err)
	}
	// The snapshots did not disturb the run.
	var plainOut bytes.Buffer
	plain := runProgram(path, src, runOptions{Quota: quota, Seed: s.Seed}, strings.NewReader(s.Stdin), &plainOut, &plainOut)
	if plain != code || plainOut.String() != out.String() {
		t.Fatalf("with snapshots the run printed %q and exited %d; without, %q and %d", out.String(), code, plainOut.String(), plain)
	}
	log := j.Log()
	if len(k.snaps) == 0 {
		return false
	}
	// Snapshots spread over the run (the first, the last, two between),
	// one of them restored twice.
	n := len(k.snaps)
	picks := map[int]bool{0: true, n / 3: true, 2 * n / 3: true, n - 1: true}
	full := out.String()
	for i := range picks {
		sp := k.snaps[i]
		rounds := 1
		if i == n/3 {
			rounds = 2
		}
		for round := 0; round < rounds; round++ {
			got, rcode, forked := restoreRun(t, prog, sp, log)
			where := fmt.Sprintf("snapshot %d/%d (offset %d), round %d", i+1, len(k.snaps), sp.off, round+1)
			if forked != "" {
				t.Fatalf("%s: the restored run left the recording: %s", where, forked)
			}
			if rcode != code || got != full[sp.outN:] {
				t.Fatalf("%s: the restored run printed %q and exited %d; the run printed %q after it and exited %d",
					where, got, rcode, full[sp.outN:], code)
			}
		}
	}
	return true
}

// restoreRun runs a copy of snapshot sp to the end, its journal resumed
// at the snapshot's offset of log; it returns what it printed, its exit
// status and why the journal forked ("" if it followed the log).
func restoreRun(t *testing.T, prog *vm.Program, sp snapAt, log []byte) (string, int, string) {
	t.Helper()
	j, err := record.ResumeJournalAt(log, 0, sp.off)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	m := vm.NewMachine(prog, nil, j.Stdout(&out), j.Stderr(&out))
	sch, err := sp.sn.Restore(m, j.Clock())
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Start(m, sch); err != nil {
		t.Fatal(err)
	}
	sch.Resume()
	code := exitStatus(sch.Run())
	return out.String(), code, j.Forked()
}
