package main

import (
	"fmt"
	"io"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// prepareStarlark compiles programs/NAME.star (recursion and while loops
// allowed); the timed run executes the module.
func prepareStarlark(w *workload) (runFunc, error) {
	path := w.name + ".star"
	src, err := program(path)
	if err != nil {
		return nil, err
	}
	opts := &syntax.FileOptions{While: true, Recursion: true, TopLevelControl: true, GlobalReassign: true}
	_, prog, err := starlark.SourceProgramOptions(opts, path, src, func(string) bool { return false })
	if err != nil {
		return nil, err
	}
	return func(out io.Writer) (any, error) {
		th := &starlark.Thread{Name: "main", Print: func(_ *starlark.Thread, msg string) { fmt.Fprintln(out, msg) }}
		g, err := prog.Init(th, nil)
		if err != nil {
			return nil, err
		}
		return g, nil
	}, nil
}
