package main

import (
	"fmt"
	"io"

	"github.com/dop251/goja"
)

// prepareGoja compiles programs/NAME.js; the timed run runs it in a new
// runtime that has a print function.
func prepareGoja(w *workload) (runFunc, error) {
	path := w.name + ".js"
	src, err := program(path)
	if err != nil {
		return nil, err
	}
	prog, err := goja.Compile(path, string(src), true)
	if err != nil {
		return nil, err
	}
	rt := goja.New()
	var out io.Writer = io.Discard
	rt.Set("print", func(call goja.FunctionCall) goja.Value {
		for i, a := range call.Arguments {
			if i > 0 {
				fmt.Fprint(out, " ")
			}
			fmt.Fprint(out, a.String())
		}
		fmt.Fprintln(out)
		return goja.Undefined()
	})
	return func(o io.Writer) (any, error) {
		out = o
		if _, err := rt.RunProgram(prog); err != nil {
			return nil, err
		}
		return rt, nil
	}, nil
}
