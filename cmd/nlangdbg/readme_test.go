package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMESession replays the REPL session shown in the README and
// checks that the tool prints exactly what the README says, command by
// command.
func TestREADMESession(t *testing.T) {
	text, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const start = "  $ nlangdbg debug "
	i := strings.Index(string(text), start)
	if i < 0 {
		t.Fatal("README.md has no `$ nlangdbg debug` session")
	}
	block, _, ok := strings.Cut(string(text)[i:], "\n  ```")
	if !ok {
		t.Fatal("the README session has no end")
	}
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		lines = append(lines, strings.TrimPrefix(l, "  "))
	}
	prog := strings.TrimPrefix(lines[0], "$ nlangdbg debug ")
	// segments: the entry stop, then each command and what it printed
	type step struct{ cmd, out string }
	var steps []step
	cur := &step{}
	for _, l := range lines[1:] {
		if c, ok := strings.CutPrefix(l, "(nlangdbg) "); ok {
			steps = append(steps, *cur)
			cur = &step{cmd: c}
			continue
		}
		cur.out += l + "\n"
	}
	steps = append(steps, *cur)

	ft, entry := startTerminal(t, filepath.Join("..", "..", prog))
	if entry != steps[0].out {
		t.Errorf("the entry stop prints\n%s\nthe README shows\n%s", entry, steps[0].out)
	}
	for _, s := range steps[1:] {
		if got := ft.Exec(s.cmd); got != s.out {
			t.Errorf("(nlangdbg) %s prints\n%s\nthe README shows\n%s", s.cmd, got, s.out)
		}
	}
}
