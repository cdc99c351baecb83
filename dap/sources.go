package dap

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/nlangdbg/nlangdbg/inspect"
)

// sourceNames gives each of a program's files the name it is shown by
// (Source.Name): the shortest run of its last path elements that no other
// file of the program ends with — "round.n", or "shapes/round.n" beside
// "util/round.n" — so that two files with one base name never look the
// same, and a client (the REPL) can be given back any name it was shown.
type sourceNames struct {
	mu    sync.Mutex
	of    *inspect.Session // the program the names are of
	names map[string]string
}

// name returns file's name among prog's files.
func (n *sourceNames) name(prog *inspect.Session, file string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if prog != nil && n.of != prog {
		n.of, n.names = prog, shortNames(prog.Sources())
	}
	if s, ok := n.names[file]; ok {
		return s
	}
	return filepath.Base(file)
}

// shortNames returns, for each path, its shortest suffix of whole path
// elements that is not a suffix of another of the paths (the whole path
// if every suffix is shared).
func shortNames(paths []string) map[string]string {
	split := make([][]string, len(paths))
	for i, p := range paths {
		split[i] = strings.Split(filepath.ToSlash(p), "/")
	}
	suffix := func(parts []string, k int) string {
		if k > len(parts) {
			k = len(parts)
		}
		return strings.Join(parts[len(parts)-k:], "/")
	}
	out := make(map[string]string, len(paths))
	for i, p := range paths {
		name := p
		for k := 1; k <= len(split[i]); k++ {
			s := suffix(split[i], k)
			unique := true
			for j := range paths {
				if j != i && (suffix(split[j], k) == s) {
					unique = false
					break
				}
			}
			if unique {
				name = filepath.FromSlash(s)
				break
			}
		}
		out[p] = name
	}
	return out
}
