package dap

import (
	"path/filepath"
	"testing"
)

// TestShortNames: a file is shown by the shortest end of its path that
// no other file of the program shares.
func TestShortNames(t *testing.T) {
	p := func(s string) string { return filepath.FromSlash(s) }
	got := shortNames([]string{p("/w/main.n"), p("/w/a/util.n"), p("/w/b/util.n"), p("/w/shapes/round.n"),
		p("/w/x/lib/io.n"), p("/w/y/lib/io.n")})
	for path, want := range map[string]string{
		"/w/main.n": "main.n", "/w/a/util.n": "a/util.n", "/w/b/util.n": "b/util.n",
		"/w/shapes/round.n": "round.n", "/w/x/lib/io.n": "x/lib/io.n", "/w/y/lib/io.n": "y/lib/io.n",
	} {
		if got[p(path)] != p(want) {
			t.Errorf("%s: %q, want %q", path, got[p(path)], want)
		}
	}
}
