package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/nlangdbg/nlangdbg/dap"
)

func init() {
	commands = append(commands, &command{
		name:    "dap",
		usage:   "[--listen ADDR] [--log-output dap,vm]",
		summary: "serve the Debug Adapter Protocol (stdio, or TCP with --listen)",
		help: `
Serves the Debug Adapter Protocol. Without --listen it speaks DAP on
stdin/stdout for one session (an editor starts it as its debug adapter).
With --listen it accepts clients over TCP, one session after another, and
prints the address it listens at on stderr:

  DAP server listening at: 127.0.0.1:40123

A client launches a program with the launch request (arguments: program,
args, cwd, stopOnEntry, quota, seed, noDebug). To debug a program that
already runs, start it with "nlangdbg run --listen ADDR PROG.n" and attach
to ADDR.

Flags:
  --listen ADDR     host:port to listen at; a bare port or ":port" means
                    loopback (127.0.0.1); port 0 picks a free one
  --log-output LIST log to stderr: dap (every DAP message), vm (the Go
                    stack of every internal error, a panic inside a
                    native or the interpreter that the program sees as an
                    InternalError)`,
		run: dapCmd,
	})
}

func dapCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("dap", stderr)
	listen := fs.String("listen", "", "address to accept clients at")
	logOutput := fs.String("log-output", "", "components to log (dap, vm)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "nlangdbg dap: unexpected argument %q (the program comes with the launch request)\n", fs.Arg(0))
		return 2
	}
	srv := &dap.Server{}
	if logs(*logOutput, "dap") {
		srv.Log = stderr
	}
	if logs(*logOutput, "vm") {
		srv.DebugLog = stderr
	}
	if *listen == "" {
		if err := srv.ServeConn(stdio{stdin, stdout}); err != nil {
			fmt.Fprintf(stderr, "nlangdbg dap: %v\n", err)
			return 1
		}
		return 0
	}
	ln, err := net.Listen("tcp", loopback(*listen))
	if err != nil {
		fmt.Fprintf(stderr, "nlangdbg dap: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "DAP server listening at: %s\n", ln.Addr())
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintf(stderr, "nlangdbg dap: %v\n", err)
		return 1
	}
	return 0
}

// logs reports whether the --log-output list names component.
func logs(list, component string) bool {
	for _, c := range strings.Split(list, ",") {
		if strings.TrimSpace(c) == component {
			return true
		}
	}
	return false
}

// loopback completes a listen address: without a host it is loopback
// ("4000" and ":4000" mean 127.0.0.1:4000).
func loopback(addr string) string {
	if !strings.Contains(addr, ":") {
		return "127.0.0.1:" + addr
	}
	if strings.HasPrefix(addr, ":") {
		return "127.0.0.1" + addr
	}
	return addr
}

// stdio is a connection on the process's standard input and output.
type stdio struct {
	r io.Reader
	w io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.w.Write(p) }

// Close closes nothing: the process ends after the session.
func (s stdio) Close() error { return nil }
