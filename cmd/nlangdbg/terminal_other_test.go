//go:build !linux

package main

import (
	"os/exec"
	"testing"
	"time"
)

// waitCooked gives the REPL a moment to hand the terminal to the program
// (on Linux it waits for the terminal's cooked mode: terminal_linux_test.go).
func waitCooked(t *testing.T, cmd *exec.Cmd, scr *screen) { time.Sleep(200 * time.Millisecond) }
