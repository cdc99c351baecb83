package main

// The program's source files as the REPL names them: by the name the
// server shows (the shortest run of a path's last elements that no other
// file of the program ends with: "round.n", or "shapes/round.n" beside
// "util/round.n"; a library file by its name, "<concurrent>"), and found
// again from any unique suffix of a path.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/go-dap"
)

// srcKey is how the REPL keeps a source: its path, or the name of a
// library source (which has none: "<concurrent>").
func srcKey(s *dap.Source) string {
	if s == nil {
		return ""
	}
	if s.Path != "" {
		return s.Path
	}
	return s.Name
}

// frameFile is the name a frame's file is shown by.
func (r *repl) frameFile(f dap.StackFrame) string {
	switch {
	case f.Source == nil:
		return "?"
	case f.Source.Name != "":
		return f.Source.Name
	}
	return r.shortName(f.Source.Path)
}

// programFiles returns the program's files (path -> the name shown),
// asked of the server once per run.
func (r *repl) programFiles() map[string]string {
	if r.names != nil {
		return r.names
	}
	resp, err := r.c.call(&dap.LoadedSourcesRequest{Request: request("loadedSources")})
	if err != nil {
		return nil
	}
	r.names = map[string]string{}
	for _, s := range resp.(*dap.LoadedSourcesResponse).Body.Sources {
		if k := srcKey(&s); k != "" {
			r.names[k] = s.Name
		}
	}
	return r.names
}

// shortName is the name a file is shown by.
func (r *repl) shortName(path string) string {
	if n := r.programFiles()[path]; n != "" {
		return n
	}
	if strings.HasPrefix(path, "<") {
		return path
	}
	return filepath.Base(path)
}

// matchFile finds the program's file that name stands for: a path, a
// library source's name, or any suffix of whole path elements of one
// file only ("round.n", "shapes/round.n"). An ambiguous suffix is an
// error naming the files it could be.
func (r *repl) matchFile(name string) (string, bool, error) {
	files := r.programFiles()
	if _, ok := files[name]; ok {
		return name, true, nil
	}
	clean := filepath.ToSlash(filepath.Clean(name))
	var match []string
	for p := range files {
		sp := filepath.ToSlash(p)
		if sp == clean || strings.HasSuffix(sp, "/"+clean) {
			match = append(match, p)
		}
	}
	switch len(match) {
	case 0:
		return "", false, nil
	case 1:
		return match[0], true, nil
	}
	sort.Strings(match)
	var shown []string
	for _, m := range match {
		shown = append(shown, r.shortName(m))
	}
	return "", false, fmt.Errorf("%s is ambiguous: it could be %s", name, strings.Join(shown, " or "))
}

// findFile finds a source file by name (matchFile), or else by path (from
// the current directory, the current file's or the program's): the
// file's path, and whether there is such a file.
func (r *repl) findFile(name string) (string, bool, error) {
	if p, ok, err := r.matchFile(name); ok || err != nil {
		return p, ok, err
	}
	if strings.HasPrefix(name, "<") && strings.HasSuffix(name, ">") {
		// a library source: "<concurrent>"
		return name, len(r.sourceLines(name)) > 1, nil
	}
	p := r.resolveFile(name)
	if _, err := os.Stat(p); err == nil {
		return p, true, nil
	}
	return p, false, nil
}

// resolveFile finds a source file by path or base name.
func (r *repl) resolveFile(name string) string {
	if p, ok, _ := r.matchFile(name); ok {
		return p
	}
	if filepath.IsAbs(name) {
		return name
	}
	if _, err := os.Stat(name); err == nil {
		abs, _ := filepath.Abs(name)
		return abs
	}
	for _, dir := range []string{filepath.Dir(r.file), filepath.Dir(r.program)} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return name
}
