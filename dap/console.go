package dap

import (
	"bufio"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	dap "github.com/google/go-dap"
)

// The program's input and output. By default a launched program's output
// goes to the client as output events and its input is empty (or the
// Server's Stdin). Two launch arguments change that:
//
//   - "stdin": FILE, the program reads FILE (as `run < FILE`);
//   - "console": "integratedTerminal" or "externalTerminal", the program
//     reads and writes a terminal of the client: the server asks the
//     client (reverse request runInTerminal) to run `nlangdbg console
//     ADDR` there, which connects back to a one-time loopback listener,
//     proves itself with a token passed in its environment (and, on
//     Linux, by being the same user), and then copies the terminal's
//     input to the program and the program's output to the terminal, as
//     debugpy's and Delve's launchers do. The launch is answered once the
//     console has connected.
//
// A recording keeps the input either way: going back re-executes with
// what the program read.

// Launch argument "console" values.
const (
	consoleInternal   = "internalConsole"
	consoleIntegrated = "integratedTerminal"
	consoleExternal   = "externalTerminal"
)

// consoleTokenEnv names the environment variable that passes the token
// to `nlangdbg console`.
const consoleTokenEnv = "NLANGDBG_CONSOLE_TOKEN"

// ConsoleTimeout bounds the wait for the console a terminal runs (the
// client starts a shell first).
var ConsoleTimeout = 30 * time.Second

// clientCaps is what the client said it supports at initialize.
type clientCaps struct {
	runInTerminal bool
	progress      bool
	invalidated   bool
	ansi          bool
}

// readClientCaps reads the client's capabilities from the initialize
// request as read (go-dap knows all but supportsANSIStyling).
func readClientCaps(raw []byte, a dap.InitializeRequestArguments) clientCaps {
	var extra struct {
		Arguments struct {
			SupportsANSIStyling bool `json:"supportsANSIStyling"`
		} `json:"arguments"`
	}
	json.Unmarshal(raw, &extra) // (absent: false)
	return clientCaps{runInTerminal: a.SupportsRunInTerminalRequest, progress: a.SupportsProgressReporting,
		invalidated: a.SupportsInvalidatedEvent, ansi: extra.Arguments.SupportsANSIStyling}
}

// progIO is a launched program's input and output (nil: the defaults).
type progIO struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// programIO opens the input and output the launch arguments ask for.
// The file it opens for "stdin" is closed by the session (closeIO).
func (c *session) programIO(args launchArgs) (progIO, error) {
	var pio progIO
	switch {
	case args.Stdin != "" && args.Replay != "":
		return pio, errors.New(`launch: "stdin" with "replay": a replay reads the input it recorded`)
	case args.Stdin != "":
		path := args.Stdin
		if !filepath.IsAbs(path) && args.Cwd != "" {
			path = filepath.Join(args.Cwd, path)
		}
		f, err := os.Open(path)
		if err != nil {
			return pio, fmt.Errorf(`launch: "stdin": %v`, err)
		}
		c.stdinFile = f
		pio.stdin = f
	case c.termConn == nil && c.srv.Stdin != nil:
		pio.stdin = c.srv.Stdin
	}
	if conn := c.termConn; conn != nil {
		if pio.stdin == nil && args.Replay == "" {
			pio.stdin = conn
		}
		pio.stdout, pio.stderr = conn, conn
	}
	return pio, nil
}

// closeIO closes the file the last launch opened for "stdin".
func (c *session) closeIO() {
	if c.stdinFile != nil {
		c.stdinFile.Close()
		c.stdinFile = nil
	}
}

// termLaunch is a launch waiting for its terminal's console.
type termLaunch struct {
	req   *dap.LaunchRequest
	args  launchArgs
	ln    net.Listener
	token string
	rit   *dap.RunInTerminalRequest // (its seq is set when it is sent)
}

// checkConsole checks the launch argument "console".
func (c *session) checkConsole(args launchArgs) error {
	switch args.Console {
	case "", consoleInternal:
		return nil
	case consoleIntegrated, consoleExternal:
		if !c.client.runInTerminal {
			return fmt.Errorf(`launch: "console": %q needs a client that runs terminals (runInTerminal); use "internalConsole", and "stdin": FILE for the program's input`, args.Console)
		}
		return nil
	}
	return fmt.Errorf(`launch: "console": %q is not one of %q, %q or %q`, args.Console, consoleInternal, consoleIntegrated, consoleExternal)
}

// startTerminal asks the client to run the console of the program in a
// terminal; the launch goes on when the client answers
// (onRunInTerminalResponse).
func (c *session) startTerminal(req *dap.LaunchRequest, args launchArgs) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("launch: cannot find nlangdbg's executable for the terminal: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("launch: %v", err)
	}
	tok := make([]byte, 16)
	rand.Read(tok)
	kind := "integrated"
	if args.Console == consoleExternal {
		kind = "external"
	}
	cwd := args.Cwd
	if cwd == "" && args.Program != "" {
		cwd = filepath.Dir(args.Program)
	}
	name := filepath.Base(args.Program)
	if args.Program == "" {
		name = filepath.Base(args.Replay)
	}
	rit := &dap.RunInTerminalRequest{Request: dap.Request{Command: "runInTerminal"},
		Arguments: dap.RunInTerminalRequestArguments{Kind: kind, Title: "nlangdbg: " + name, Cwd: cwd,
			Args: []string{exe, "console", ln.Addr().String()},
			Env:  map[string]any{consoleTokenEnv: hex.EncodeToString(tok)}}}
	c.term = &termLaunch{req: req, args: args, ln: ln, token: hex.EncodeToString(tok), rit: rit}
	c.send(rit)
	return nil
}

// onRunInTerminalResponse goes on with the launch waiting for its
// terminal: it accepts the console's connection and launches.
func (c *session) onRunInTerminalResponse(r *dap.RunInTerminalResponse) {
	tl := c.term
	if tl == nil || r.RequestSeq != tl.rit.Seq {
		return
	}
	c.term = nil
	defer tl.ln.Close()
	conn, err := acceptConsole(tl.ln, tl.token)
	if err != nil {
		c.sendError(tl.req, errLaunch, fmt.Sprintf("launch: the terminal's console: %v", err))
		return
	}
	c.termConn = conn
	c.finishLaunch(tl.req, tl.args)
}

// onRunInTerminalError fails the launch waiting for its terminal.
func (c *session) onRunInTerminalError(r *dap.ErrorResponse) {
	tl := c.term
	if tl == nil || r.RequestSeq != tl.rit.Seq {
		return
	}
	c.term = nil
	tl.ln.Close()
	c.sendError(tl.req, errLaunch, fmt.Sprintf("launch: the client could not run the terminal: %s", r.Message))
}

// acceptConsole accepts the console's connection on ln: the same user,
// with the token, within ConsoleTimeout.
func acceptConsole(ln net.Listener, token string) (net.Conn, error) {
	deadline := time.Now().Add(ConsoleTimeout)
	if tl, ok := ln.(*net.TCPListener); ok {
		tl.SetDeadline(deadline)
	}
	for {
		conn, err := ln.Accept()
		if err != nil {
			return nil, fmt.Errorf("it did not connect within %v (%v)", ConsoleTimeout, err)
		}
		if checkSameUser(conn) != nil {
			conn.Close()
			continue
		}
		conn.SetReadDeadline(deadline)
		line, err := bufio.NewReader(io.LimitReader(conn, 256)).ReadString('\n')
		if err != nil || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(line)), []byte(token)) != 1 {
			conn.Close()
			continue
		}
		conn.SetReadDeadline(time.Time{})
		return conn, nil
	}
}

// RunConsole is `nlangdbg console ADDR`, run in a terminal by the
// client for a launch with "console": it connects to the server at addr
// with the token in the environment and copies in to the program and the
// program's output to out until the session ends.
func RunConsole(addr string, in io.Reader, out io.Writer) error {
	tok := os.Getenv(consoleTokenEnv)
	if tok == "" {
		return fmt.Errorf("%s is not set: the debug adapter runs this command itself", consoleTokenEnv)
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, tok+"\n"); err != nil {
		return err
	}
	go func() {
		io.Copy(conn, in)
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.CloseWrite() // the program reads the end of its input
		}
	}()
	_, err = io.Copy(out, conn)
	return err
}
