//go:build !unix

package main

import "github.com/peterh/liner"

// terminalRunning is nil outside Unix: what is typed while the program
// runs is read at the next prompt, and the program's input is empty
// unless debug --stdin FILE gives one.
func terminalRunning(r *repl, cooked, raw liner.ModeApplier) func() func() { return nil }

// redrawPrompt does nothing outside Unix: the line being typed is drawn
// again at the next key.
func redrawPrompt() {}
