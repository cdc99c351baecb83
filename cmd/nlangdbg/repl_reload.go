package main

import (
	"errors"
	"strconv"
	"strings"

	"github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
)

// The REPL's edit and continue: reload installs the edited files' code in
// the paused program (nlang/reload), whatif re-executes the recording
// with it (nlang/whatIf), restartframe restarts a frame (DAP's
// restartFrame: a frame running old code restarts on the new code).

func cmdReload(r *repl, args string) error {
	if r.exited {
		return errors.New("the program is not running (restart it)")
	}
	var a api.ReloadArgs
	switch strings.TrimSpace(args) {
	case "":
	case "-move":
		a.Move = true
	default:
		return errors.New("usage: reload [-move]")
	}
	body, err := r.c.callCustom(api.CmdReload, a)
	if err != nil {
		return err
	}
	b := body.(api.ReloadBody)
	r.printf("%s\n", api.FormatReload(b))
	if b.Unchanged {
		return nil
	}
	r.srcMu.Lock()
	clear(r.sources) // the files changed
	r.srcMu.Unlock()
	r.funcs = nil
	for _, bp := range b.Breakpoints {
		for _, x := range r.bps {
			if x.serverID != bp.Id || x.fn != "" {
				continue
			}
			x.verified, x.msg = bp.Verified, bp.Message
			if bp.Verified {
				x.line, x.actual = bp.Line, bp.Line
			}
		}
	}
	return r.waitStop() // the server says where the program is now
}

func cmdWhatIf(r *repl, args string) error {
	if r.exited {
		return errors.New("the program is not running (restart it)")
	}
	var a api.WhatIfArgs
	if f := strings.Fields(args); len(f) > 0 {
		call, err := api.ParseConsole("whatif "+args, 0, 0)
		if err != nil {
			return err
		}
		a = call.Args.(api.WhatIfArgs)
		if !strings.Contains(f[0], ":") {
			return errors.New("usage: whatif [FILE:LINE EXPR]")
		}
	}
	body, err := r.c.callCustom(api.CmdWhatIf, a)
	if err != nil {
		return err
	}
	r.printf("%s\n", api.FormatWhatIf(body.(api.WhatIfBody)))
	return nil
}

func cmdRestartFrame(r *repl, args string) error {
	if r.exited {
		return errors.New("the program is not running (restart it)")
	}
	n := r.frame
	if s := strings.TrimSpace(args); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 0 {
			return errors.New("usage: restartframe [FRAME]")
		}
	}
	fs, err := r.stack(max(r.thread, 1), n, 1)
	if err != nil {
		return err
	}
	if len(fs) == 0 {
		return errors.New("no such frame")
	}
	return r.resume(&dap.RestartFrameRequest{Request: request("restartFrame"), Arguments: dap.RestartFrameArguments{FrameId: fs[0].Id}})
}
