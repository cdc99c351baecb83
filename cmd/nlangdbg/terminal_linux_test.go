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
func waitCooked(t *testing.T, cmd *exec.Cmd, scr *screen) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		fd, err := unix.Open(fmt.Sprintf("/proc/%d/fd/0", cmd.Process.Pid), unix.O_RDONLY|unix.O_NOCTTY, 0)
		if err != nil {
			last = err.Error()
		} else {
			tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
			unix.Close(fd)
			if err == nil && tio.Lflag&unix.ICANON != 0 {
				return
			}
			last = fmt.Sprintf("lflag %#x, %v", func() uint32 {
				if tio != nil {
					return tio.Lflag
				}
				return 0
			}(), err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	scr.mu.Lock()
	defer scr.mu.Unlock()
	t.Fatalf("the terminal did not go to cooked mode for the running program (%s); it shows:\n%s", last, scr.buf.String())
}
