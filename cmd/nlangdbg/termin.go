package main

import (
	"io"
	"sync"
)

// The debugged program's input in the terminal debugger. As under gdb,
// the program shares the terminal: what is typed while it runs is read
// by the REPL line by line (termin_unix.go) and kept in a termInput,
// which the program reads as its standard input; the lines it has not
// read when it stops are the REPL's next commands, as gdb finds them in
// the terminal's buffer. With debug --stdin FILE (or run < FILE) the
// program reads FILE instead, and under attach its input is the remote
// process's: what is typed while it runs is then only kept for the
// prompt, and the REPL says so.

// typedLine is a line typed while the program runs (or Ctrl-D: eof).
type typedLine struct {
	text []byte
	eof  bool
}

// termInput is the program's input typed at the terminal.
type termInput struct {
	mu    sync.Mutex
	cond  *sync.Cond
	lines [][]byte // typed, not read yet
	cur   []byte   // the rest of the line being read
	eof   bool     // Ctrl-D: the program's input is over
}

func newTermInput() *termInput {
	t := &termInput{}
	t.cond = sync.NewCond(&t.mu)
	return t
}

// Read blocks until a line is typed (or Ctrl-D), as a read of a terminal
// does.
func (t *termInput) Read(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.cur) == 0 && len(t.lines) == 0 && !t.eof {
		t.cond.Wait()
	}
	if len(t.cur) == 0 {
		if len(t.lines) == 0 {
			return 0, io.EOF
		}
		t.cur, t.lines = t.lines[0], t.lines[1:]
	}
	n := copy(p, t.cur)
	t.cur = t.cur[n:]
	return n, nil
}

// typed adds a typed line (with its newline).
func (t *termInput) typed(line []byte) {
	t.mu.Lock()
	t.lines = append(t.lines, line)
	t.mu.Unlock()
	t.cond.Broadcast()
}

// end is Ctrl-D: the program reads the end of its input.
func (t *termInput) end() {
	t.mu.Lock()
	t.eof = true
	t.mu.Unlock()
	t.cond.Broadcast()
}

// unread takes back the lines the program has not read (they are the
// REPL's next commands).
func (t *termInput) unread() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, l := range t.lines {
		out = append(out, string(l))
	}
	t.lines = nil
	return out
}

// reset gives a restarted program a fresh input.
func (t *termInput) reset() {
	t.mu.Lock()
	t.lines, t.cur, t.eof = nil, nil, false
	t.mu.Unlock()
}

// typedWhileRunning handles a line typed while the program runs: the
// program's input when it reads the terminal, else kept for the prompt.
// eof is Ctrl-D.
func (r *repl) typedWhileRunning(line []byte, eof bool) {
	if r.termIn != nil && r.launch["stdin"] == nil {
		if eof {
			r.termIn.end()
		} else {
			r.termIn.typed(line)
		}
		return
	}
	if eof {
		return
	}
	r.typeahead = append(r.typeahead, string(line))
	if !r.toldRunning {
		r.toldRunning = true
		r.printf("(the program is running: what you type runs when it stops; Ctrl-C stops it)\n")
	}
}

// takeTypeahead returns the lines typed while the program ran that are
// now commands.
func (r *repl) takeTypeahead() []string {
	out := r.typeahead
	r.typeahead = nil
	if r.termIn != nil {
		out = append(out, r.termIn.unread()...)
	}
	return out
}

// rawTypeahead is what was typed while the terminal was still the REPL's
// (raw) when the program resumed: keys sent right after the command, before
// the terminal became the program's. The raw terminal neither echoed them
// nor made lines of them; takeRaw does what the cooked terminal would have.
type rawTypeahead struct {
	lines [][]byte // whole lines, with their newline
	eof   bool     // Ctrl-D at the start of a line: the program's input ends
	intr  bool     // Ctrl-C: pause the program
	rest  []byte   // a line begun, not ended
	echo  []byte   // what the terminal would have echoed (written cooked: \n for a line's end)
}

// takeRaw reads keys typed at a raw terminal as the cooked one reads
// them: Enter (\r or \n) ends a line, Backspace erases, Ctrl-D at the
// start of a line is the end of the input, Ctrl-C interrupts (and drops
// the line begun, as the terminal's signal does); other control keys
// are dropped.
func takeRaw(b []byte) rawTypeahead {
	var t rawTypeahead
	var cur []byte
	for _, c := range b {
		switch {
		case c == '\r' || c == '\n':
			t.lines = append(t.lines, append(cur, '\n'))
			t.echo = append(t.echo, '\n')
			cur = nil
		case c == 0x7f || c == 0x08:
			if len(cur) > 0 {
				cur = cur[:len(cur)-1]
				t.echo = append(t.echo, '\b', ' ', '\b')
			}
		case c == 0x04:
			if len(cur) == 0 {
				t.eof = true
			}
		case c == 0x03:
			t.intr = true
			cur = nil
			t.echo = append(t.echo, '^', 'C', '\n')
		case c < 0x20 && c != '\t':
			// (another control key: the REPL's line editor would have taken it)
		default:
			cur = append(cur, c)
			t.echo = append(t.echo, c)
		}
	}
	t.rest = cur
	return t
}
