package main

import (
	"fmt"
	"io"

	lua "github.com/yuin/gopher-lua"
)

// prepareLua loads programs/NAME.lua into a new state with the standard
// libraries (print redirected); the timed run calls the loaded chunk.
func prepareLua(w *workload) (runFunc, error) {
	path := w.name + ".lua"
	src, err := program(path)
	if err != nil {
		return nil, err
	}
	opts := lua.Options{}
	if w.parked > 0 {
		// Every coroutine is a whole LState: with the default sizes (a
		// fixed 256-frame call stack, a 5,120-slot registry: ~83 KB) a
		// million of them would need ~80 GB, so give them the smallest
		// settings gopher-lua accepts (a registry of 128 slots that may
		// grow, a call stack grown 8 frames at a time).
		opts = lua.Options{CallStackSize: 64, MinimizeStackMemory: true,
			RegistrySize: 128, RegistryGrowStep: 32, RegistryMaxSize: 1 << 20}
	}
	L := lua.NewState(opts)
	var out io.Writer = io.Discard
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		for i := 1; i <= L.GetTop(); i++ {
			if i > 1 {
				fmt.Fprint(out, "\t")
			}
			fmt.Fprint(out, L.ToStringMeta(L.Get(i)).String())
		}
		fmt.Fprintln(out)
		return 0
	}))
	fn, err := L.Load(bytesReader(src), path)
	if err != nil {
		return nil, err
	}
	return func(o io.Writer) (any, error) {
		out = o
		L.Push(fn)
		if err := L.PCall(0, 0, nil); err != nil {
			return nil, err
		}
		return L, nil
	}, nil
}
