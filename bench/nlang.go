package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// prepareNLang compiles programs/NAME.n the way `nlangdbg run` does (the
// standard natives plus the scheduler's library); the timed run is a fresh
// machine and scheduler running main to its end on one carrier.
func prepareNLang(w *workload) (runFunc, error) {
	path := w.name + ".n"
	var src []byte
	var err error
	if w.scale { // park.n with another number of threads
		path = "park.n"
		src, err = program(path)
		src = bytes.Replace(src, []byte("1000000"), []byte(strconv.Itoa(w.parked)), 1)
	} else {
		src, err = program(path)
	}
	if err != nil {
		return nil, err
	}
	lib := vm.StdLib()
	lib.Merge(sched.Lib())
	prog, err := compile.CompileFile(path, src, compile.Options{Lib: lib})
	if err != nil {
		return nil, err
	}
	return func(out io.Writer) (any, error) {
		m := vm.NewMachine(prog, nil, out, os.Stderr)
		s := sched.New(m, sched.Options{})
		s.Start(m.NewCallThread(prog.Main, nil))
		if code := s.Run(); code != 0 {
			return nil, fmt.Errorf("exit code %d", code)
		}
		// The threads a program leaves parked stay in the scheduler.
		return nlangKeep{s}, nil
	}, nil
}

type nlangKeep struct{ s *sched.Scheduler }

func (k nlangKeep) Parked() int { return len(k.s.Threads()) } // main has ended
