package main

import (
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
	cfg := opts.runConfig(stdin, stdout, stderr) // the permissions of a plain run
	d := withRace(true, prog, &cfg, stderr)
	r := boot(prog, cfg, stderr)
	if r == nil {
		return 2
	}
	return raceStatus(d, exitStatus(r.Sched.Run()))
}

// withRace instruments prog and adds a race detector writing to stderr
// to cfg, if on; it returns the detector (nil if off).
func withRace(on bool, prog *vm.Program, cfg *sched.RunConfig, stderr io.Writer) *race.Detector {
	if !on {
		return nil
	}
	race.Instrument(prog)
	d := race.New(stderr)
	cfg.Race, cfg.Hook = d, d
	return d
}

// raceStatus is the exit code of a run that ended with code and had the
// detector d (nil: none): raceExit if it found a race and code is 0.
func raceStatus(d *race.Detector, code int) int {
	if d != nil && code == 0 && len(d.Races()) > 0 {
		return raceExit
	}
	return code
}
