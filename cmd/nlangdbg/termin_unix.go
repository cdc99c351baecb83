//go:build unix

package main

import (
	"bytes"
	"os"

	"github.com/peterh/liner"
	"golang.org/x/sys/unix"
)

// terminalRunning returns the REPL's running hook for a terminal: while
// the program runs the terminal is in its own (cooked) mode, so that
// what is typed is echoed and edited by the terminal as the program would
// have it, and read line by line into r.typed; the hook's stop puts the
// terminal back in the REPL's mode. cooked and raw are the two modes.
func terminalRunning(r *repl, cooked, raw liner.ModeApplier) func() func() {
	return func() func() {
		var wake [2]int
		if err := unix.Pipe(wake[:]); err != nil {
			return func() {}
		}
		// keys sent right after the command, still in the raw terminal
		early := takeRaw(pendingInput(int(os.Stdin.Fd())))
		cooked.ApplyMode()
		keepTypeahead()
		r.typedRaw(early, func(l typedLine) { r.typedWhileRunning(l.text, l.eof) })
		done := make(chan struct{})
		go func() {
			defer close(done)
			fds := []unix.PollFd{{Fd: int32(os.Stdin.Fd()), Events: unix.POLLIN}, {Fd: int32(wake[0]), Events: unix.POLLIN}}
			buf := make([]byte, 4096)
			rest := early.rest // (a line begun at the raw terminal goes on here)
			for {
				if _, err := unix.Poll(fds, -1); err == unix.EINTR {
					continue
				} else if err != nil || fds[1].Revents != 0 {
					return
				}
				if fds[0].Revents == 0 {
					continue
				}
				// a whole line (the terminal is cooked), or 0 bytes for Ctrl-D
				n, err := unix.Read(int(os.Stdin.Fd()), buf)
				if err == unix.EINTR || err == unix.EAGAIN {
					continue
				}
				if n == 0 && err == nil && rest != nil {
					// Ctrl-D after a line begun: the line goes as it is
					r.typed <- typedLine{text: rest}
					rest = nil
					continue
				}
				if err != nil || n == 0 {
					r.typed <- typedLine{eof: true}
					if err != nil || fds[0].Revents&unix.POLLHUP != 0 {
						return // (the terminal is gone: nothing more to read)
					}
					continue
				}
				chunk := buf[:n]
				if bytes.IndexByte(chunk, '\r') >= 0 {
					// keys that reached the terminal while it was raw
					// (between the look above and the switch): the
					// cooked terminal hands them over as they are, with
					// no echo and \r for Enter
					t := takeRaw(append(rest, chunk...))
					r.typedRaw(t, func(l typedLine) { r.typed <- l })
					rest = t.rest
					continue
				}
				r.typed <- typedLine{text: append(rest, chunk...)}
				rest = nil
			}
		}()
		return func() {
			unix.Write(wake[1], []byte{0})
		wait:
			for {
				select {
				case <-done:
					break wait
				case l := <-r.typed: // (the reader may be sending one)
					r.typedWhileRunning(l.text, l.eof)
				}
			}
			unix.Close(wake[0])
			unix.Close(wake[1])
			raw.ApplyMode()
		}
	}
}

// typedRaw does what the cooked terminal would have done with keys it
// got raw (takeRaw): echoes them, sends their lines and the end of the
// input to send, and turns Ctrl-C into the REPL's interrupt. (The line
// begun, t.rest, is the caller's.)
func (r *repl) typedRaw(t rawTypeahead, send func(typedLine)) {
	if len(t.echo) > 0 {
		os.Stdout.Write(t.echo)
	}
	for _, l := range t.lines {
		send(typedLine{text: l})
	}
	if t.eof {
		send(typedLine{eof: true})
	}
	if t.intr {
		select {
		case r.interrupt <- struct{}{}:
		default:
		}
	}
}

// pendingInput returns what is waiting to be read on fd now, without
// blocking.
func pendingInput(fd int) []byte {
	var out []byte
	buf := make([]byte, 4096)
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds, 0); err != nil || n == 0 || fds[0].Revents&unix.POLLIN == 0 {
			return out
		}
		n, err := unix.Read(fd, buf)
		if err != nil || n <= 0 {
			return out
		}
		out = append(out, buf[:n]...)
	}
}

// redrawPrompt has liner draw its prompt and the line being typed again
// (on a line of its own, after output printed above it): liner redraws
// on SIGWINCH, as when the window changes size.
func redrawPrompt() { unix.Kill(os.Getpid(), unix.SIGWINCH) }
