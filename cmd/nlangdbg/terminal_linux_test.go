package main

import (
	"fmt"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitCooked waits until the debugger's terminal is in cooked mode: the
// REPL hands the terminal to the program it runs after it echoed the
// command. Keys written before that arrive while it is raw, where the
// terminal neither echoes them nor ends a line at "\r" nor turns Ctrl-C
// into a signal (a person cannot type that fast; a test can).
func waitCooked(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		fd, err := unix.Open(fmt.Sprintf("/proc/%d/fd/0", cmd.Process.Pid), unix.O_RDONLY|unix.O_NOCTTY, 0)
		if err == nil {
			tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
			unix.Close(fd)
			if err == nil && tio.Lflag&unix.ICANON != 0 {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the terminal did not go to cooked mode for the running program")
}
