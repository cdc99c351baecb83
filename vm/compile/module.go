package compile

import (
	"strings"

	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// Program files imported with `import utils.helper;` are modules: their
// functions are called qualified, utils.helper.f(), and, from files of
// the same folder, also by bare name.

// visibleFuncs returns the top-level functions named name that the file
// being compiled can call by bare name.
func (fc *fcomp) visibleFuncs(name string) []*funcInfo {
	var out []*funcInfo
	for _, f := range fc.c.funcs[name] {
		if bareVisible(fc.file, f) {
			out = append(out, f)
		}
	}
	return out
}

// hiddenFuncHint explains why a function that exists is not visible by
// bare name ("" if there is none).
func (fc *fcomp) hiddenFuncHint(name string) string {
	for _, f := range fc.c.funcs[name] {
		if !bareVisible(fc.file, f) && f.file.module != "" {
			return " (" + name + " is in module " + f.file.module + ": call it as " + f.file.module + "." + name + ")"
		}
	}
	return ""
}

// modulePath returns the module that e names (an identifier or a chain of
// identifiers such as utils.helper) if the current file imported it and
// no variable or field hides its first name.
func (fc *fcomp) modulePath(e syntax.Expr) (*fileInfo, bool) {
	var parts []string
	for {
		switch x := e.(type) {
		case *syntax.Ident:
			if fc.lookup(x.Name) != nil || fc.isThisField(x.Name) {
				return nil, false
			}
			parts = append(parts, x.Name)
			for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
				parts[i], parts[j] = parts[j], parts[i]
			}
			path := strings.Join(parts, ".")
			m := fc.c.modules[path]
			if m == nil || !fc.file.imports[path] {
				return nil, false
			}
			return m, true
		case *syntax.Member:
			if len(parts)+2 > fc.c.modDepth {
				return nil, false // longer than any module path
			}
			parts = append(parts, x.Name)
			e = x.X
		default:
			return nil, false
		}
	}
}

// moduleFuncs returns the functions named name declared in module m.
func (fc *fcomp) moduleFuncs(m *fileInfo, name string) []*funcInfo {
	var out []*funcInfo
	for _, f := range fc.c.funcs[name] {
		if f.file == m {
			out = append(out, f)
		}
	}
	return out
}
