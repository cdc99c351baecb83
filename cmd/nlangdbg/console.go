package main

import (
	"fmt"
	"io"
	"os"

	dapserver "github.com/nlangdbg/nlangdbg/dap"
)

func init() {
	commands = append(commands, &command{
		name:    "console",
		usage:   "ADDR",
		summary: "a launched program's terminal (run by a DAP client for launch \"console\")",
		help: `
Connects the terminal it runs in to a program launched by nlangdbg's DAP
server with "console": "integratedTerminal" or "externalTerminal": what is
typed goes to the program's input, and its output is shown here, until the
debug session ends. The client runs this command itself (the server's
runInTerminal request), with the session's token in the environment; it is
of no use by hand.`,
		run: terminalConsoleCmd,
	})
}

func terminalConsoleCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "nlangdbg console: want the address the debug adapter gave")
		return 2
	}
	if stdin == nil {
		stdin = os.Stdin
	}
	if err := dapserver.RunConsole(args[0], stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "nlangdbg console: %v\n", err)
		return 1
	}
	return 0
}
