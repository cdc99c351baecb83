// Command nlangdbg runs and debugs NLang programs.
//
//	nlangdbg run [flags] PROG.n [ARGS]    run a program
//	nlangdbg disasm PROG.n                print its bytecode
//
// See `nlangdbg help` and `nlangdbg help COMMAND`.
package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"sort"
	"strings"
)

func main() {
	log.SetPrefix("nl: ")
	log.SetFlags(0)
	os.Exit(doMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is one subcommand of the CLI.
type command struct {
	name    string
	usage   string // arguments after the name
	summary string
	help    string // long help
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands []*command

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func doMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		if len(args) > 1 && args[0] == "help" {
			c := findCommand(args[1])
			if c == nil {
				fmt.Fprintf(stderr, "nlangdbg: unknown command %q\n", args[1])
				return 2
			}
			commandHelp(stdout, c)
			return 0
		}
		usage(stdout)
		return 0
	case "version", "--version":
		return runVersion(args[1:], stdin, stdout, stderr)
	}
	c := findCommand(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "nlangdbg: unknown command %q (see nlangdbg --help)\n", args[0])
		return 2
	}
	return c.run(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `nlangdbg runs and debugs NLang programs on a VM whose call frames live on
the heap: every virtual thread can be stopped, walked and resumed.

Usage:
  nlangdbg COMMAND [flags] [arguments]

Commands:
`)
	cs := append([]*command(nil), commands...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	for _, c := range cs {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "nlangdbg help COMMAND" (or "nlangdbg COMMAND --help") for details.
`)
}

func commandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: nlangdbg %s %s\n\n%s\n", c.name, c.usage, strings.TrimSpace(c.help))
}
