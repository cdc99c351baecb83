package main

import (
	"errors"
	"strings"

	"github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
)

// The REPL's commands for going back (Delve's names): a session with one
// carrier records its run, and these re-execute it up to an earlier
// moment. rev next and rev continue are DAP's stepBack and
// reverseContinue; rev step and rev stepout the custom request
// nlang/stepBack.

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
		return r.moveCustom(api.CmdStepBack, api.StepBackArgs{ThreadID: int64(t), Kind: "in"})
	case "stepout", "so":
		return r.moveCustom(api.CmdStepBack, api.StepBackArgs{ThreadID: int64(t), Kind: "out"})
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

// moveCustom sends a custom request that moves the program and waits
// for the stop it ends with.
func (r *repl) moveCustom(command string, args any) error {
	if _, err := r.c.callCustom(command, args); err != nil {
		return err
	}
	return r.waitStop()
}

// printConsoleCmd is a command that runs the console command cmd and
// prints its answer.
func printConsoleCmd(cmd string) func(r *repl, args string) error {
	return func(r *repl, args string) error {
		return r.printConsole(strings.TrimSpace(cmd + " " + args))
	}
}
