package compile

import (
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// Type aliases.
//
// `using Name = Type;` names a type for the rest of the file. An alias may
// use an alias declared before it, not one declared after it (so there
// is no cycle), and its name may not be one a type or a package already
// has: a built-in type, a class, struct, enum or interface, a package, a
// function, or another alias of the file. checkAliases resolves each
// alias once, in order, so using an alias costs a map lookup and no
// recursion, however long a chain of aliases is.

// checkAliases checks the aliases of f and resolves them into
// f.aliasTypes. The class names must be known; funcs holds the names of
// the program's functions.
func (c *compiler) checkAliases(f *fileInfo, funcs map[string]bool) {
	f.aliasTypes = map[string]*vm.Type{}
	if len(f.ast.Aliases) == 0 {
		return
	}
	index := map[string]int{}
	for i, a := range f.ast.Aliases {
		if _, dup := index[a.Name]; !dup {
			index[a.Name] = i
		}
	}
	for i, a := range f.ast.Aliases {
		pos := a.NamePos
		switch first := f.ast.Aliases[index[a.Name]]; {
		case first != a:
			c.errorf(f, pos, "type alias %s is declared twice (first at line %d)", a.Name, first.NamePos.Line)
			continue
		case vm.PrimitiveByName[a.Name] != nil || syntax.GenericTypeNames[a.Name] || c.lib.HostTypes[a.Name] != nil || a.Name == "Object":
			c.errorf(f, pos, "type alias %s has the name of a built-in type", a.Name)
		case c.classes[a.Name] != nil:
			ci := c.classes[a.Name]
			c.errorf(f, pos, "type alias %s has the name of %s %s (declared at %s:%d)", a.Name, typeKind(ci), a.Name, ci.file.ast.Name, ci.cls.Line)
		case c.lib.Packages[a.Name] != nil || a.Name == "thread" || c.lib.Sources[a.Name] != "":
			c.errorf(f, pos, "type alias %s has the name of the package %s", a.Name, a.Name)
		case funcs[a.Name]:
			c.errorf(f, pos, "type alias %s has the name of a function", a.Name)
		}
		if c.laterAlias(f, index, i) {
			f.aliasTypes[a.Name] = badType
			continue
		}
		f.aliasTypes[a.Name] = c.resolveType(f, a.Type, nil)
	}
}

// typeKind names the kind of a declared type: class, struct, enum or
// interface.
func typeKind(ci *classInfo) string {
	switch {
	case ci.sdecl != nil:
		return "struct"
	case ci.edecl != nil:
		return "enum"
	case ci.cls.IsInterface:
		return "interface"
	}
	return "class"
}

// laterAlias reports (and returns true) if alias i of f uses an alias
// declared at or after it: a cycle if that alias leads back to alias i,
// else a use before the declaration.
func (c *compiler) laterAlias(f *fileInfo, index map[string]int, i int) bool {
	a := f.ast.Aliases[i]
	bad := false
	for _, te := range typeNames(a.Type) {
		j, ok := index[te.Name]
		if !ok || j < i || len(te.Args) > 0 {
			continue
		}
		bad = true
		if path := aliasPath(f, index, j, i); path != nil {
			c.errorf(f, te.Pos, "type alias cycle: %s = %s", a.Name, strings.Join(path, " = "))
			continue
		}
		c.errorf(f, te.Pos, "type alias %s uses alias %s before its declaration (line %d): declare %s first",
			a.Name, te.Name, f.ast.Aliases[j].NamePos.Line, te.Name)
	}
	return bad
}

// typeNames returns the written types of te and of its type arguments.
func typeNames(te *syntax.TypeExpr) []*syntax.TypeExpr {
	out := []*syntax.TypeExpr{te}
	for k := 0; k < len(out); k++ {
		out = append(out, out[k].Args...)
	}
	return out
}

// aliasPath returns the names of a chain of aliases of f that leads from
// alias j to alias target (each one using the next), ending with the
// target's name, or nil if there is none.
func aliasPath(f *fileInfo, index map[string]int, j, target int) []string {
	prev := map[int]int{j: -1}
	queue := []int{j}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if k == target {
			var path []string
			for ; k >= 0; k = prev[k] {
				path = append([]string{f.ast.Aliases[k].Name}, path...)
			}
			return path
		}
		for _, te := range typeNames(f.ast.Aliases[k].Type) {
			if n, ok := index[te.Name]; ok && len(te.Args) == 0 {
				if _, seen := prev[n]; !seen {
					prev[n] = k
					queue = append(queue, n)
				}
			}
		}
	}
	return nil
}
