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
		usage:   "[--listen ADDR [--allow-remote] [--token-file FILE] [--accept-multiclient]] [--log-output dap,vm]",
		summary: "serve the Debug Adapter Protocol (stdio, or TCP with --listen)",
		help: `
Serves the Debug Adapter Protocol. Without --listen it speaks DAP on
stdin/stdout for one session (an editor starts it as its debug adapter).
With --listen it accepts clients over TCP or a Unix socket, one at a time, and
prints the address it listens at on stderr:

  DAP server listening at: 127.0.0.1:40123

A client launches a program with the launch request (arguments:
program, args, cwd, stopOnEntry, noDebug, quota, seed, carriers,
maxFrames, maxHeap, allowRead, allowWrite, denyFs, and token for a server
with --token-file); the limits are checked as "nlangdbg run" checks its
flags. To debug a program that already runs, start it with
"nlangdbg run --listen ADDR PROG.n" and attach to ADDR.

Flags:
  --listen ADDR    host:port to listen at; a bare port or ":port" means
                   loopback (127.0.0.1); port 0 picks a free one;
                   unix:PATH listens at a Unix socket
` + serverFlagsHelp + `
  --log-output LIST
                   log to stderr: dap (every DAP message), vm (the Go
                   stack of every internal error, a panic inside a
                   native or the interpreter that the program sees as an
                   InternalError)

See docs/security.md for what the server accepts and from whom.`,
		run: dapCmd,
	})
}

func dapCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("dap", stderr)
	listen := fs.String("listen", "", "address to accept clients at")
	var sf serverFlags
	sf.flags(fs)
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
	if *listen == "" && (sf.allowRemote || sf.multiclient || sf.tokenFile != "") {
		fmt.Fprintln(stderr, "nlangdbg dap: --allow-remote, --token-file and --accept-multiclient need --listen")
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
	ln, err := sf.listen(srv, *listen, stderr)
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

// serverFlagsHelp documents the flags of a listening server.
const serverFlagsHelp = `  --allow-remote   allow an address other machines can reach (0.0.0.0,
                   a LAN address); without it only loopback is accepted.
                   Prints a warning: whoever connects can run code as you
  --token-file FILE
                   clients must send the token in FILE (its content,
                   trimmed) as the "token" argument of launch or attach
                   (nlangdbg attach --token-file FILE)
  --accept-multiclient
                   a client that connects while another is served waits
                   its turn; without it, it is refused with a message.
                   On loopback only the user running the server may
                   connect, and a client has 10s to launch or attach`

// serverFlags are the access flags of a listening server.
type serverFlags struct {
	allowRemote, multiclient bool
	tokenFile                string
}

func (f *serverFlags) flags(fs *flag.FlagSet) {
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "accept clients from other machines")
	fs.StringVar(&f.tokenFile, "token-file", "", "file holding the token clients must send")
	fs.BoolVar(&f.multiclient, "accept-multiclient", false, "queue clients instead of refusing them")
}

// listen configures srv's access and listens at addr, printing the
// warning --allow-remote deserves.
func (f *serverFlags) listen(srv *dap.Server, addr string, stderr io.Writer) (net.Listener, error) {
	if f.tokenFile != "" {
		tok, err := dap.ReadTokenFile(f.tokenFile)
		if err != nil {
			return nil, err
		}
		srv.Token = tok
	}
	srv.AcceptMulticlient = f.multiclient
	ln, err := dap.Listen(addr, f.allowRemote)
	if err != nil {
		return nil, err
	}
	if a, ok := ln.Addr().(*net.TCPAddr); ok && f.allowRemote && !a.IP.IsLoopback() {
		fmt.Fprint(stderr, dap.RemoteWarning(ln, srv.Token != ""))
	}
	return ln, nil
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
