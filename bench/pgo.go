package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// The profile that nlangdbg is built with (profile-guided optimization:
// cmd/nlangdbg/default.pgo, and a copy in bench/ for the children of
// this program). Go inlines the calls that are hot in it past its usual
// budget: the scheduler's small functions on a thread switch (setState,
// wake, enqueue, pickOn, the quantum's start and end) become part of
// their callers.

// pgoWorkloads are the NLang workloads profiled, each run pgoRepeat
// times in one child.
var pgoWorkloads = []string{"fib", "loop", "objects", "strings", "pingpong", "park"}

const pgoRepeat = 3

// writePGO profiles the NLang workloads (one child each, as -run with
// -cpuprofile) and writes their merged profile to path.
func writePGO(path string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "nlangdbg-pgo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var profiles []string
	for _, w := range pgoWorkloads {
		p := filepath.Join(dir, w+".pprof")
		fmt.Fprintf(os.Stderr, "profiling %s ...\n", w)
		cmd := exec.Command(exe, "-run", "nlang/"+w, "-repeat", fmt.Sprint(pgoRepeat), "-cpuprofile", p)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %v", w, err)
		}
		profiles = append(profiles, p)
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	merge := exec.Command("go", append([]string{"tool", "pprof", "-proto"}, profiles...)...)
	merge.Stdout, merge.Stderr = out, os.Stderr
	if err := merge.Run(); err != nil {
		out.Close()
		return fmt.Errorf("merging the profiles: %v", err)
	}
	return out.Close()
}
