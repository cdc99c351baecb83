package main

import (
	"fmt"
	"io"

	"github.com/nlangdbg/nlangdbg/sched"
)

// reportLeaks writes the leaked threads of a run that ended (run
// --leaks) to w: the threads still parked on what no thread that could
// run reached. When main has returned, its variables are gone: a thread
// parked on a channel only main held is leaked then, as a goroutine
// left blocked when a Go test returns is (goleak).
func reportLeaks(s *sched.Scheduler, w io.Writer) {
	ls, err := s.Leaks()
	if err != nil {
		fmt.Fprintf(w, "nlangdbg: --leaks: %v\n", err)
		return
	}
	if rep := s.LeakReport(ls); rep != "" {
		fmt.Fprint(w, "\n"+rep)
	}
}
