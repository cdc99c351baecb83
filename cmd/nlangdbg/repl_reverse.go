package main

import (
	"errors"
	"strings"

	"github.com/google/go-dap"
)

// The REPL's commands for going back (Delve's names): a session with one
// carrier records its run, and these re-execute it up to an earlier
// moment. rev next and rev continue are DAP's stepBack and
// reverseContinue; the others travel as `:` commands (see metaCmd).

func cmdRev(r *repl, args string) error {
	if r.exited {
		return errors.New("the program is not running (restart it)")
	}
	t := max(r.thread, 1)
	switch strings.TrimSpace(args) {
	case "next", "n":
		return r.resume(&dap.StepBackRequest{Request: request("stepBack"), Arguments: dap.StepBackArguments{ThreadId: t}})
	case "continue", "c":
		return cmdRewind(r, "")
	case "step", "s":
		return r.metaMove("rev step")
	case "stepout", "so":
		return r.metaMove("rev stepout")
	}
	return errors.New("usage: rev next | step | stepout | continue")
}

func cmdRewind(r *repl, args string) error {
	if r.exited {
		return errors.New("the program is not running (restart it)")
	}
	return r.resume(&dap.ReverseContinueRequest{Request: request("reverseContinue"),
		Arguments: dap.ReverseContinueArguments{ThreadId: max(r.thread, 1)}})
}

// metaMove runs a `:` command that moves the program and waits for the
// stop it ends with.
func (r *repl) metaMove(cmd string) error {
	if _, err := r.meta(cmd); err != nil {
		return err
	}
	return r.waitStop()
}

// printMeta runs a `:` command and prints what it says.
func printMeta(cmd string) func(r *repl, args string) error {
	return func(r *repl, args string) error {
		line := cmd
		if args = strings.TrimSpace(args); args != "" {
			line += " " + args
		}
		out, err := r.meta(line)
		if err != nil {
			return err
		}
		r.printf("%s\n", out)
		return nil
	}
}
