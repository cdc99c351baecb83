package main

// This file implements run --listen (see run.go).

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/nlangdbg/nlangdbg/dap"
	"github.com/nlangdbg/nlangdbg/inspect"
)

// runListen runs a program with a DAP server at addr that debuggers can
// attach to, one after another, and returns the program's exit code.
// With record, the run is recorded in memory so that a debugger can go
// back (run --record-for-debug).
func runListen(addr string, sf serverFlags, path string, args []string, opts runOptions, record bool, stdin io.Reader, stdout, stderr io.Writer) int {
	if stdin == nil {
		stdin = os.Stdin
	}
	prog, err := inspect.Launch(inspect.Config{
		Program:   path,
		Args:      args,
		Quota:     opts.Quota,
		Seed:      opts.Seed,
		Carriers:  opts.Carriers,
		MaxFrames: opts.MaxFrames,
		MaxHeap:   opts.MaxHeap,
		AllowRead: opts.AllowRead, AllowWrite: opts.AllowWrite, DenyFS: opts.DenyFS,
		Stdin:    stdin,
		Stdout:   stdout,
		Stderr:   stderr,
		NoRecord: !record, // it runs normally, maybe for long: no recording in memory unless asked
	}, nil)
	if err != nil {
		var ce *inspect.CompileError
		if errors.As(err, &ce) {
			fmt.Fprint(stderr, ce.Report)
			fmt.Fprintln(stderr, "Compilation failed.")
		} else {
			fmt.Fprintf(stderr, "nlangdbg: %v\n", err)
		}
		return 1
	}
	srv := dap.NewAttachServer(prog)
	ln, err := sf.listen(srv, addr, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg run: %v\n", err)
		prog.Terminate()
		return 1
	}
	fmt.Fprintf(stderr, "DAP server listening at: %s\n", ln.Addr())
	// The program runs from now on. Clients that connect already wait in
	// the listen queue; Serve accepts them once the program runs.
	prog.ConfigurationDone()
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintf(stderr, "nlangdbg run: %v\n", err)
		prog.Terminate()
		return 1
	}
	return prog.ExitCode()
}
