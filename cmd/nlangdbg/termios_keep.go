//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// keepTypeahead stops Ctrl-C from discarding what was typed and not read
// yet (the terminal's NOFLSH): a line typed just before Ctrl-C is a
// command at the next prompt, not lost.
func keepTypeahead() {
	fd := int(os.Stdin.Fd())
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return
	}
	t.Lflag |= unix.NOFLSH
	unix.IoctlSetTermios(fd, ioctlSetTermios, t)
}
