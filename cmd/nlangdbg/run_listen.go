package main

// This file adds --listen to the run command (see run.go). Its init runs
// after run.go's (files initialise in name order) and wraps the command.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/nlangdbg/nlangdbg/dap"
	"github.com/nlangdbg/nlangdbg/inspect"
)

func init() {
	c := findCommand("run")
	if c == nil {
		panic("run_listen.go: the run command is not registered yet (run.go must initialise first)")
	}
	plain := c.run
	c.usage = "[--listen ADDR] " + c.usage
	c.help += `

  --listen ADDR    run the program normally and serve DAP at ADDR
                   (host:port; a bare port means loopback, port 0 picks a
                   free one; the address is printed on stderr). A debugger
                   attaches with the attach request (nlangdbg attach ADDR),
                   which pauses the program; when it disconnects, its
                   breakpoints go and the program runs on. The program's
                   exit ends the process with its exit code.`
	c.run = func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		var opts runOptions
		fs := newFlagSet("run", stderr)
		opts.flags(fs)
		listen := fs.String("listen", "", "serve DAP at this address")
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if *listen == "" {
			return plain(args, stdin, stdout, stderr)
		}
		if fs.NArg() < 1 {
			fmt.Fprintln(stderr, "nlangdbg run: missing program file (usage: nlangdbg run [flags] PROG.n)")
			return 2
		}
		return runListen(*listen, fs.Arg(0), fs.Args()[1:], opts, stdin, stdout, stderr)
	}
}

// runListen runs a program with a DAP server at addr that debuggers can
// attach to, one after another, and returns the program's exit code.
func runListen(addr, path string, args []string, opts runOptions, stdin io.Reader, stdout, stderr io.Writer) int {
	if stdin == nil {
		stdin = os.Stdin
	}
	prog, err := inspect.Launch(inspect.Config{
		Program:   path,
		Args:      args,
		Quota:     opts.Quota,
		Seed:      opts.Seed,
		MaxFrames: opts.MaxFrames,
		Stdin:     stdin,
		Stdout:    stdout,
		Stderr:    stderr,
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
	ln, err := net.Listen("tcp", loopback(addr))
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg run: %v\n", err)
		prog.Terminate()
		return 1
	}
	srv := dap.NewAttachServer(prog)
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
