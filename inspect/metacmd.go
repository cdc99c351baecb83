package inspect

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
)

// This file answers the debugger's questions about the program's code
// that DAP has no request for (the custom requests of package dap/api).

// FuncInfo is a function of the program and where it is declared.
type FuncInfo struct {
	Name string
	File string
	Line int
}

// Functions returns the program's own functions by name (the first
// overload of each; the library's and the compiler's are left out).
// With a name, it returns that function only (none: an error).
func (s *Session) Functions(name string) ([]FuncInfo, error) {
	var out []FuncInfo
	seen := map[string]bool{}
	for _, fn := range s.prog.Funcs {
		// (one per name and file: overloads share it; functions of one
		// name in two files are two)
		key := fn.Name + "\x00" + fn.File
		if strings.HasPrefix(fn.File, "<") || seen[key] || (name == "" && strings.Contains(fn.Name, "<")) {
			continue
		}
		if name != "" && fn.Name != name {
			continue
		}
		seen[key] = true
		out = append(out, FuncInfo{Name: fn.Name, File: fn.File, Line: int(fn.Line)})
	}
	if name != "" && len(out) == 0 {
		return nil, fmt.Errorf("no function %s", name)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// FuncCode is a function's bytecode.
type FuncCode struct {
	Func   string
	File   string
	Line   int
	Instrs []InstrLine
}

// InstrLine is an instruction of FuncCode.
type InstrLine struct {
	PC      int
	Line    int
	Text    string
	Current bool // the frame's pc
}

// FunctionCode returns the bytecode of the function named name, or
// (name "") of frame depth of thread threadID with its pc marked. The
// program must be stopped for a frame.
func (s *Session) FunctionCode(name string, threadID int64, depth int) (FuncCode, error) {
	var fn *vm.Funcode
	var pc int32 = -1
	if name != "" {
		for _, f := range s.prog.Funcs {
			if f.Name == name {
				fn = f
				break
			}
		}
		if fn == nil {
			return FuncCode{}, fmt.Errorf("no function %s", name)
		}
	} else {
		if err := s.checkInspect(); err != nil {
			return FuncCode{}, err
		}
		t, err := s.thread(threadID)
		if err != nil {
			return FuncCode{}, err
		}
		if depth < 0 || depth >= t.Depth() {
			return FuncCode{}, ErrNoFrame
		}
		df := t.DebugFrame(depth)
		fn, pc = df.Func(), df.PC()
	}
	c := FuncCode{Func: fn.Name, File: fn.File, Line: int(fn.Line)}
	for i := range fn.Code {
		line, _ := fn.Pos(int32(i))
		c.Instrs = append(c.Instrs, InstrLine{PC: i, Line: int(line), Text: fn.FormatInstr(int32(i)), Current: int32(i) == pc})
	}
	return c, nil
}

// Quota returns the reductions per dispatch.
func (s *Session) Quota() int { return s.r.sch.Quota() }
