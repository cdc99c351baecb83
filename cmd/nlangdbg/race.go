package main

import (
	"fmt"
	"io"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/race"
	"github.com/nlangdbg/nlangdbg/vm"
)

// raceExit is the exit code of a run --race that found a race and would
// have exited 0 (as Go's race detector).
const raceExit = 66

// raceProgram is run --race: it runs a program on one carrier with the
// race detector, which writes each race to stderr when it happens.
func raceProgram(path string, src []byte, opts runOptions, stdin io.Reader, stdout, stderr io.Writer) int {
	prog := compileProgram(path, src, stderr)
	if prog == nil {
		return 1
	}
	race.Instrument(prog)
	m := vm.NewMachine(prog, stdin, stdout, stderr)
	setLimits(m, opts)
	policy, err := vm.NewFSPolicy(opts.AllowRead, opts.AllowWrite, opts.DenyFS, "")
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg: %v\n", err)
		return 2
	}
	m.FS = policy // the permissions of a plain run
	s := sched.New(m, sched.Options{Quota: opts.Quota, Seed: opts.Seed})
	d := race.New(stderr)
	if err := d.Install(m, s); err != nil {
		return 1
	}
	s.Start(m.NewCallThread(prog.Main, nil))
	code := exitStatus(s.Run())
	if code == 0 && len(d.Races()) > 0 {
		return raceExit
	}
	return code
}

// startRace instruments prog and installs a race detector writing to
// stderr in m and s, if on; it returns the detector (nil if off). Call it
// before anything that wraps m's debug hook.
func startRace(on bool, prog *vm.Program, m *vm.Machine, s *sched.Scheduler, stderr io.Writer) (*race.Detector, error) {
	if !on {
		return nil, nil
	}
	race.Instrument(prog)
	d := race.New(stderr)
	if err := d.Install(m, s); err != nil {
		return nil, err
	}
	return d, nil
}

// raceStatus is the exit code of a run that ended with code and had the
// detector d (nil: none): raceExit if it found a race and code is 0.
func raceStatus(d *race.Detector, code int) int {
	if d != nil && code == 0 && len(d.Races()) > 0 {
		return raceExit
	}
	return code
}
