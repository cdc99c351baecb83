// Package compile resolves names and types of parsed NLang files and emits
// the VM's register bytecode. For each function it also records what the
// debugger needs: a line table (pc → line:col, statement boundaries), a
// local-variable table with live pc ranges, and the exception table.
package compile

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// Options configures a compilation.
type Options struct {
	// Lib is the native library (io, math, thread, …). The vm's built-in
	// prelude is always added.
	Lib *vm.Library
	// ReadFile reads imported source files; nil means os.ReadFile.
	ReadFile func(path string) ([]byte, error)
	// Prior, if set, is the program this one replaces in a paused
	// debugging session (reload.go).
	Prior *Prior
}

type fileInfo struct {
	ast     *syntax.File
	imports map[string]bool
	aliases map[string]*syntax.TypeExpr
	// aliasTypes are the types of the file's aliases, resolved once in
	// the order of their declarations (see checkAliases).
	aliasTypes map[string]*vm.Type
	lib        bool // a library source (prelude, concurrent)
	// dir is the folder of a program file (functions of files in the
	// same folder are visible by bare name); "" for library sources.
	dir string
	// module is the import path of an imported program file ("utils.helper").
	module string
}

type classInfo struct {
	name    string
	cls     *vm.Class
	file    *fileInfo
	cdecl   *syntax.ClassDecl
	sdecl   *syntax.StructDecl
	edecl   *syntax.EnumDecl
	base    *classInfo
	methods []*funcInfo // declared here (not constructors)
	ctors   []*funcInfo
	state   int // 0 new, 1 laying out, 2 done
	init    *vm.Funcode
	// fieldNames are the names of the fields declared in the class.
	fieldNames map[string]bool
	// fieldInits is 1 if the class or a base has a field with an
	// initial value, -1 if not, 0 until known (see hasFieldInits).
	fieldInits int8
}

type funcInfo struct {
	decl     *syntax.FuncDecl
	fn       *vm.Funcode
	cls      *classInfo // owner (nil for top-level functions)
	file     *fileInfo
	params   []*vm.Type // without this
	names    []string
	outs     []bool
	defaults []syntax.Expr
	result   *vm.Type
	native   *vm.Native // for `native` declarations
	iface    bool       // interface method (no body)
}

type compiler struct {
	opts    Options
	lib     *vm.Library
	prog    *vm.Program
	errs    syntax.ErrorList
	warns   []string // "file:line:col: warning: …", in the order found
	files   []*fileInfo
	classes map[string]*classInfo
	order   []*classInfo
	funcs   map[string][]*funcInfo
	all     []*funcInfo
	sigs    map[*vm.Native]*syntax.FuncDecl
	object  *classInfo
	dir     string
	loaded  map[string]bool
	// modules maps the import path of each imported program file to it;
	// modDepth is the number of names of the longest.
	modules  map[string]*fileInfo
	modDepth int
	// work counts the expressions and statements compiled, up to
	// workLimit; budgetErr is the error once it is passed (see limits.go).
	work, workLimit int64
	budgetErr       *syntax.Error
	// later are errors found while declaring that do not stop the
	// bodies from being compiled (they are reported with theirs).
	later syntax.ErrorList
}

// errorf records an error at pos of file.
func (c *compiler) errorf(file *fileInfo, pos syntax.Pos, format string, args ...any) {
	name := "<input>"
	if file != nil && file.ast != nil {
		name = file.ast.Name
	}
	if len(c.errs) >= 100 {
		return
	}
	msg := fmt.Sprintf(format, args...)
	for _, e := range c.errs {
		if e.File == name && e.Pos == pos && e.Msg == msg {
			return // code compiled twice (an inlined finally) reports once
		}
	}
	c.errs = append(c.errs, &syntax.Error{File: name, Pos: pos, Msg: msg})
}

// warnf records a warning at pos of file (once per position and text).
func (c *compiler) warnf(file *fileInfo, pos syntax.Pos, format string, args ...any) {
	name := "<input>"
	if file != nil && file.ast != nil {
		name = file.ast.Name
	}
	w := fmt.Sprintf("%s:%d:%d: warning: %s", name, pos.Line, pos.Col, fmt.Sprintf(format, args...))
	for _, x := range c.warns {
		if x == w {
			return
		}
	}
	c.warns = append(c.warns, w)
}

// CompileFile compiles the program whose main file is filename.
func CompileFile(filename string, src []byte, opts Options) (*vm.Program, error) {
	lib := vm.BuiltinLib()
	if opts.Lib != nil {
		lib.Merge(opts.Lib)
	}
	if opts.ReadFile == nil {
		opts.ReadFile = os.ReadFile
	}
	c := &compiler{opts: opts, lib: lib, prog: vm.NewProgram(), classes: map[string]*classInfo{},
		funcs: map[string][]*funcInfo{}, sigs: map[*vm.Native]*syntax.FuncDecl{},
		dir: filepath.Dir(filename), loaded: map[string]bool{}, modules: map[string]*fileInfo{}}
	c.addSource("<prelude>", []byte(lib.Sources["prelude"]), true)
	if len(c.errs) > 0 {
		return nil, fmt.Errorf("internal error: prelude: %v", c.errs)
	}
	c.prog.Files[filename] = src
	c.loaded[filepath.Clean(filename)] = true // an import of the main file itself finds it
	mainFile := c.addSource(filename, src, false)
	if len(c.errs) > 0 {
		return nil, c.sortedErrs()
	}
	c.declare()
	if len(c.errs) == 0 {
		size := 0
		for _, f := range c.files {
			if !f.lib {
				size += len(f.ast.Src)
			}
		}
		c.setBudget(size)
		c.compileBodies()
		if c.budgetErr != nil {
			c.errs = append(c.errs, c.budgetErr)
		}
	}
	c.errs = append(c.errs, c.later...)
	if len(c.errs) == 0 && opts.Prior != nil {
		c.checkReload()
	}
	if len(c.errs) > 0 {
		return nil, c.sortedErrs()
	}
	var main []*funcInfo
	for _, f := range c.funcs["main"] {
		if f.file == mainFile {
			main = append(main, f)
		}
	}
	if len(main) == 0 {
		c.errorf(c.files[1], syntax.Pos{Line: 1, Col: 1}, "no main function (want int main())")
		return nil, c.sortedErrs()
	}
	c.prog.Main = main[0].fn
	if len(main[0].params) != 0 || (main[0].result != vm.Int && main[0].result != vm.Void) {
		c.errorf(main[0].file, main[0].decl.NamePos, "main must be declared int main()")
		return nil, c.sortedErrs()
	}
	c.prog.Warnings = c.warns
	c.prog.Finish()
	c.prog.Debug = newDebugInfo(c)
	return c.prog, nil
}

func (c *compiler) sortedErrs() error {
	sort.SliceStable(c.errs, func(i, j int) bool {
		a, b := c.errs[i], c.errs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		return a.Pos.Col < b.Pos.Col
	})
	return c.errs
}

// addSource parses a file and registers it with the library sources and
// program files it imports, and theirs. It returns nil if the file does
// not parse.
//
// The imports are followed depth first, each file's in the order they are
// written (the order of c.files), with a stack of what is left to do
// rather than a recursion per file: a chain of imports can be as long as
// there are files. A file already loaded is not loaded again, so files
// that import each other are each loaded once.
func (c *compiler) addSource(name string, src []byte, lib bool) *fileInfo {
	first := c.parseSource(name, src, lib)
	if first == nil {
		return nil
	}
	// a step is an import statement of a file to follow or, with path
	// set, one file of a folder's import to load
	type step struct {
		fi        *fileInfo
		im        *syntax.Import
		mod, path string
	}
	var stack []step
	pushImports := func(fi *fileInfo) {
		if fi == nil {
			return
		}
		ims := fi.ast.Imports
		for i := len(ims) - 1; i >= 0; i-- {
			stack = append(stack, step{fi: fi, im: ims[i]})
		}
	}
	pushImports(first)
	for len(stack) > 0 {
		st := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fi, im := st.fi, st.im
		if st.path != "" {
			pushImports(c.importFile(fi, im, st.mod, st.path))
			continue
		}
		pkg := strings.Join(im.Path, ".")
		switch {
		case c.lib.Packages[pkg] != nil || pkg == "thread" || pkg == "concurrent" || c.lib.Sources[pkg] != "":
			fi.imports[pkg] = true
			if s, ok := c.lib.Sources[pkg]; ok && pkg != "prelude" && !c.loaded["<"+pkg+">"] {
				c.loaded["<"+pkg+">"] = true
				pushImports(c.parseSource("<"+pkg+">", []byte(s), true))
			}
		case im.Star:
			// every .n file of a project folder: a.* → dir/a/*.n
			folder := filepath.Join(append([]string{c.dir}, im.Path...)...)
			entries, err := os.ReadDir(folder)
			if err != nil {
				c.errorf(fi, im.Pos, "module '%s.*' not found: the program's folder has no folder %s", pkg, filepath.Join(im.Path...))
				continue
			}
			for i := len(entries) - 1; i >= 0; i-- {
				e := entries[i]
				if e.IsDir() || !strings.HasSuffix(e.Name(), ".n") {
					continue
				}
				stack = append(stack, step{fi: fi, im: im, mod: pkg + "." + strings.TrimSuffix(e.Name(), ".n"), path: filepath.Join(folder, e.Name())})
			}
		default:
			// A source file of the program: a.b → dir/a/b.n.
			pushImports(c.importFile(fi, im, pkg, filepath.Join(append([]string{c.dir}, im.Path...)...)+".n"))
		}
	}
	return first
}

// parseSource parses a file and registers it (without its imports). It
// returns nil if the file does not parse.
func (c *compiler) parseSource(name string, src []byte, lib bool) *fileInfo {
	f, err := syntax.Parse(name, src)
	if err != nil {
		if el, ok := err.(syntax.ErrorList); ok {
			c.errs = append(c.errs, el...)
		} else {
			c.errs = append(c.errs, &syntax.Error{File: name, Pos: syntax.Pos{Line: 1, Col: 1}, Msg: err.Error()})
		}
		return nil
	}
	fi := &fileInfo{ast: f, imports: map[string]bool{}, aliases: map[string]*syntax.TypeExpr{}, lib: lib}
	if !lib {
		fi.dir = filepath.Dir(name)
	}
	c.files = append(c.files, fi)
	for _, a := range f.Aliases {
		fi.aliases[a.Name] = a.Type
	}
	return fi
}

// importFile loads the program file path as the module named mod for
// the import im of fi, and returns it (nil if it was loaded before or
// cannot be).
func (c *compiler) importFile(fi *fileInfo, im *syntax.Import, mod, path string) *fileInfo {
	if c.loaded[path] {
		fi.imports[mod] = true
		return nil
	}
	data, err := c.opts.ReadFile(path)
	if err != nil {
		c.errorf(fi, im.Pos, "module '%s' not found: it is not a package and the program's folder has no file %s",
			mod, filepath.Join(strings.Split(mod, ".")...)+".n")
		return nil
	}
	c.loaded[path] = true
	fi.imports[mod] = true
	c.prog.Files[path] = data
	m := c.parseSource(path, data, false)
	if m != nil {
		m.module = mod
		c.modules[mod] = m
		c.modDepth = max(c.modDepth, strings.Count(mod, ".")+1)
	}
	return m
}

// bareVisible reports whether function f can be called by its bare name
// from file from: library functions everywhere, program functions from
// files of the same folder (the debugger's evaluation context, which has
// no folder, sees them all).
func bareVisible(from *fileInfo, f *funcInfo) bool {
	return f.file.lib || from == nil || from.dir == "" || f.file.dir == from.dir
}

// declare creates the classes and function signatures of every file.
func (c *compiler) declare() {
	// 1. class names
	for _, f := range c.files {
		for _, d := range f.ast.Decls {
			var ci *classInfo
			var pos syntax.Pos
			switch d := d.(type) {
			case *syntax.ClassDecl:
				ci = &classInfo{name: d.Name, cdecl: d, cls: &vm.Class{Name: d.Name, IsInterface: d.IsInterface}}
				pos = d.Pos
			case *syntax.StructDecl:
				ci = &classInfo{name: d.Name, sdecl: d, cls: &vm.Class{Name: d.Name, IsStruct: true}}
				pos = d.Pos
			case *syntax.EnumDecl:
				ci = &classInfo{name: d.Name, edecl: d, cls: &vm.Class{Name: d.Name, IsEnum: true, EnumNames: map[int64]string{}}}
				pos = d.Pos
			default:
				continue
			}
			ci.file = f
			ci.cls.File = f.ast.Name
			ci.cls.Line = pos.Line
			ci.cls.Methods = map[string][]*vm.Funcode{}
			if old, dup := c.classes[ci.name]; dup {
				c.errorf(f, pos, "%s redeclared (first declared at %s:%d)", ci.name, old.file.ast.Name, old.cls.Line)
				continue
			}
			if vm.PrimitiveByName[ci.name] != nil || c.lib.HostTypes[ci.name] != nil || syntax.GenericTypeNames[ci.name] {
				c.errorf(f, pos, "cannot declare %s: it is a built-in type", ci.name)
				continue
			}
			c.classes[ci.name] = ci
			c.order = append(c.order, ci)
		}
	}
	c.object = c.classes["Object"]
	// 1b. type aliases (they may name classes)
	funcs := map[string]bool{}
	for _, f := range c.files {
		for _, d := range f.ast.Decls {
			if fd, ok := d.(*syntax.FuncDecl); ok && !f.lib {
				funcs[fd.Name] = true
			}
		}
	}
	for _, f := range c.files {
		c.checkAliases(f, funcs)
	}
	// 2. bases and layout
	for _, ci := range c.order {
		c.layout(ci)
	}
	// 3. top-level functions
	for _, f := range c.files {
		for _, d := range f.ast.Decls {
			fd, ok := d.(*syntax.FuncDecl)
			if !ok {
				continue
			}
			fi := c.declareFunc(f, nil, fd)
			if fi == nil {
				continue
			}
			for _, other := range c.funcs[fd.Name] {
				// an imported file may keep its own main (only the main
				// file's main is the entry point)
				isMain := fd.Name == "main" && (f.module != "" || other.file.module != "")
				if sameParams(other.params, fi.params) && bareVisible(f, other) && !isMain {
					c.errorf(f, fd.NamePos, "function %s redeclared with the same parameters", fd.Name)
				}
			}
			c.funcs[fd.Name] = append(c.funcs[fd.Name], fi)
			if fd.Mods.Native {
				n := c.lib.Natives[fd.Name]
				if n == nil {
					c.errorf(f, fd.NamePos, "native function %s has no host implementation", fd.Name)
				}
				fi.native = n
			} else if fd.Body == nil {
				c.errorf(f, fd.NamePos, "function %s has no body", fd.Name)
			}
		}
	}
	// 4. interface conformance
	for _, ci := range c.order {
		if ci.cdecl == nil || ci.cls.IsInterface {
			continue
		}
		for i, iname := range ci.cdecl.Implements {
			ii := c.classes[iname]
			if ii == nil || !ii.cls.IsInterface {
				continue
			}
			for _, m := range c.interfaceMethods(ii) {
				if f := c.findMethodSig(ci, m.decl.Name, m.params); f == nil {
					c.errorf(ci.file, ci.cdecl.ImplPos[i], "class %s does not implement %s.%s", ci.name, iname, m.decl.Name)
				}
			}
		}
	}
}

// interfaceMethods returns the methods of interface ii and of the
// interfaces it extends, each interface once (a walk with a stack, in the
// order of a recursion).
func (c *compiler) interfaceMethods(ii *classInfo) []*funcInfo {
	var out []*funcInfo
	seen := map[*classInfo]bool{}
	stack := []*classInfo{ii}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if k == nil || seen[k] { // an inheritance cycle is reported elsewhere
			continue
		}
		seen[k] = true
		out = append(out, k.methods...)
		for i := len(k.cls.Interfaces) - 1; i >= 0; i-- {
			stack = append(stack, c.classes[k.cls.Interfaces[i].Name])
		}
	}
	return out
}

// findMethodSig finds a method of ci (or its bases) with exactly these
// parameter types.
func (c *compiler) findMethodSig(ci *classInfo, name string, params []*vm.Type) *funcInfo {
	for k := ci; k != nil; k = k.base {
		for _, m := range k.methods {
			if m.decl.Name == name && sameParams(m.params, params) {
				return m
			}
		}
	}
	return nil
}

func sameParams(a, b []*vm.Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// layout resolves a class's base, fields and methods, after those of the
// classes and interfaces it derives from. It walks that graph with a stack
// (an inheritance chain can be as long as the source), in the order a
// recursion would take; a class met again while its own bases are being
// laid out closes an inheritance cycle.
func (c *compiler) layout(ci *classInfo) {
	stack := []*classInfo{ci}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		if k.state == 2 {
			stack = stack[:len(stack)-1]
			continue
		}
		if k.state == 0 {
			k.state = 1
			deps := c.layoutDeps(k)
			pushed := false
			for i := len(deps) - 1; i >= 0; i-- {
				switch deps[i].state {
				case 0:
					stack = append(stack, deps[i])
					pushed = true
				case 1:
					if deps[i] != k {
						c.errorf(deps[i].file, deps[i].cdecl.BasePos, "inheritance cycle through %s", deps[i].name)
					}
				}
			}
			if k.cdecl != nil && k.cdecl.Base == k.name {
				c.errorf(k.file, k.cdecl.BasePos, "inheritance cycle through %s", k.name)
			}
			if pushed {
				continue
			}
		}
		stack = stack[:len(stack)-1]
		c.layoutOne(k)
		k.state = 2
	}
}

// layoutDeps returns the classes and interfaces ci derives from, which
// are laid out before it.
func (c *compiler) layoutDeps(ci *classInfo) []*classInfo {
	d := ci.cdecl
	if d == nil {
		return nil
	}
	var deps []*classInfo
	if d.Base != "" {
		if b := c.classes[d.Base]; b != nil && !(b.cls.IsInterface && !ci.cls.IsInterface) && b.cdecl != nil {
			deps = append(deps, b)
		}
	} else if !ci.cls.IsInterface && ci != c.object && c.object != nil {
		deps = append(deps, c.object)
	}
	for _, iname := range d.Implements {
		if ii := c.classes[iname]; ii != nil && ii.cls.IsInterface {
			deps = append(deps, ii)
		}
	}
	return deps
}

// layoutOne lays out ci, whose bases are laid out (or in a cycle).
func (c *compiler) layoutOne(ci *classInfo) {
	cls := ci.cls
	switch {
	case ci.edecl != nil:
		c.layoutEnum(ci)
		c.prog.AddClass(cls)
		return
	case ci.sdecl != nil:
		for _, fd := range ci.sdecl.Fields {
			c.addField(ci, fd)
		}
		c.keepLayout(ci)
		c.prog.AddClass(cls)
		return
	}
	d := ci.cdecl
	if d.Base != "" {
		b := c.classes[d.Base]
		switch {
		case b == nil:
			c.errorf(ci.file, d.BasePos, "undefined base class %s", d.Base)
		case b.cls.IsInterface && !cls.IsInterface:
			c.errorf(ci.file, d.BasePos, "%s is an interface (use implements %s)", d.Base, d.Base)
		case b.cdecl == nil:
			c.errorf(ci.file, d.BasePos, "cannot derive from %s", d.Base)
		default:
			if b.state != 2 {
				break // an inheritance cycle (reported)
			}
			if cls.IsInterface {
				cls.Interfaces = append(cls.Interfaces, b.cls)
			} else {
				ci.base = b
			}
		}
	} else if !cls.IsInterface && ci != c.object && c.object != nil {
		ci.base = c.object
	}
	for i, iname := range d.Implements {
		ii := c.classes[iname]
		if ii == nil || !ii.cls.IsInterface {
			c.errorf(ci.file, d.ImplPos[i], "%s is not an interface", iname)
			continue
		}
		cls.Interfaces = append(cls.Interfaces, ii.cls)
	}
	if ci.base != nil {
		cls.Base = ci.base.cls
		cls.Fields = append(cls.Fields, ci.base.cls.Fields...)
		for k, v := range ci.base.cls.Methods {
			cls.Methods[k] = append([]*vm.Funcode(nil), v...)
		}
		cls.VTable = append(cls.VTable, ci.base.cls.VTable...)
	}
	for _, fd := range d.Fields {
		c.addField(ci, fd)
	}
	byName := map[string][]*funcInfo{} // the methods declared so far, by name
	for _, md := range d.Methods {
		if md.Name == ci.name && !cls.IsInterface {
			fi := c.declareFunc(ci.file, ci, md)
			if fi == nil {
				continue
			}
			fi.fn.IsCtor = true
			ci.ctors = append(ci.ctors, fi)
			cls.Ctors = append(cls.Ctors, fi.fn)
			continue
		}
		fi := c.declareFunc(ci.file, ci, md)
		if fi == nil {
			continue
		}
		if cls.IsInterface {
			if md.Mods.Access != "public" {
				c.errorf(ci.file, md.NamePos, "interface method %s.%s must be public", ci.name, md.Name)
			}
			fi.iface = true
			ci.methods = append(ci.methods, fi)
			continue
		}
		for _, m := range byName[md.Name] {
			if sameParams(m.params, fi.params) {
				c.errorf(ci.file, md.NamePos, "method %s.%s redeclared with the same parameters", ci.name, md.Name)
			}
		}
		byName[md.Name] = append(byName[md.Name], fi)
		ci.methods = append(ci.methods, fi)
		if md.Body == nil && !md.Mods.Native {
			c.errorf(ci.file, md.NamePos, "method %s.%s has no body", ci.name, md.Name)
		}
		// override?
		fi.fn.VIndex = -1
		var over *funcInfo
		if ci.base != nil {
			over = c.findMethodSig(ci.base, md.Name, fi.params)
		}
		// Object's methods are always dynamically dispatched (accept both).
		if over != nil && (over.fn.Virtual || over.cls == c.object) {
			if over.result != fi.result {
				c.errorf(ci.file, md.NamePos, "%s.%s overrides %s.%s with a different result type (got %s, want %s)",
					ci.name, md.Name, over.cls.name, md.Name, fi.result, over.result)
			}
			fi.fn.Virtual = true
			fi.fn.VIndex = over.fn.VIndex
			cls.VTable[fi.fn.VIndex] = fi.fn
		} else if md.Mods.Virtual || ci == c.object {
			fi.fn.Virtual = true
			fi.fn.VIndex = len(cls.VTable)
			cls.VTable = append(cls.VTable, fi.fn)
		}
		// replace an inherited overload with the same parameters
		list := cls.Methods[md.Name]
		replaced := false
		for i, f := range list {
			if sameParams(f.Params[1:], fi.fn.Params[1:]) {
				list[i] = fi.fn
				replaced = true
			}
		}
		if !replaced {
			list = append(list, fi.fn)
		}
		cls.Methods[md.Name] = list
	}
	c.keepLayout(ci)
	c.prog.AddClass(cls)
}

func (c *compiler) addField(ci *classInfo, fd *syntax.FieldDecl) {
	t := c.resolveType(ci.file, fd.Type, nil)
	if t == vm.Void {
		c.errorf(ci.file, fd.Type.Pos, "field %s cannot have type void", fd.Name)
	}
	if ci.fieldNames == nil {
		ci.fieldNames = map[string]bool{}
	}
	if ci.fieldNames[fd.Name] {
		c.errorf(ci.file, fd.Pos, "field %s redeclared", fd.Name)
		return
	}
	ci.fieldNames[fd.Name] = true
	if ci.sdecl != nil && t.Kind == vm.KStruct && t.Class == ci.cls {
		c.errorf(ci.file, fd.Pos, "struct %s cannot contain itself", ci.name)
		t = vm.ObjectT
	}
	f := &vm.Field{Name: fd.Name, Type: t, Index: len(ci.cls.Fields), Owner: ci.cls, Line: fd.Pos.Line}
	ci.cls.Fields = append(ci.cls.Fields, f)
}

func (c *compiler) layoutEnum(ci *classInfo) {
	next := int64(0)
	members := map[string]bool{}
	for _, m := range ci.edecl.Members {
		if m.Value != nil {
			v, ok := c.constInt(ci.file, m.Value)
			if !ok {
				c.errorf(ci.file, m.Pos, "enum value of %s must be an integer constant", m.Name)
			} else if v < 0 || v > 1<<31-1 {
				c.errorf(ci.file, m.Pos, "enum value %d of %s out of range (want 0..2147483647)", v, m.Name)
			} else {
				next = v
			}
		}
		if members[m.Name] {
			c.errorf(ci.file, m.Pos, "enum member %s redeclared", m.Name)
		}
		members[m.Name] = true
		if _, dup := ci.cls.EnumNames[next]; !dup {
			ci.cls.EnumNames[next] = m.Name
		}
		ci.cls.EnumOrder = append(ci.cls.EnumOrder, m.Name)
		ci.cls.Fields = append(ci.cls.Fields, &vm.Field{Name: m.Name, Type: vm.ClassType(ci.cls), Index: int(next), Owner: ci.cls, Line: m.Pos.Line})
		next++
	}
	for _, md := range ci.edecl.Methods {
		if md.Name == "toString" {
			c.errorf(ci.file, md.NamePos, "enum method %s.toString is not allowed: the name is reserved for the built-in conversion of a member to its name", ci.name)
		}
		fi := c.declareFunc(ci.file, ci, md)
		if fi == nil {
			continue
		}
		fi.fn.VIndex = -1
		ci.methods = append(ci.methods, fi)
		ci.cls.Methods[md.Name] = append(ci.cls.Methods[md.Name], fi.fn)
	}
}

// enumValue returns the value of enum member name.
func enumValue(cls *vm.Class, name string) (int64, bool) {
	for _, f := range cls.Fields {
		if f.Name == name {
			return int64(f.Index), true
		}
	}
	return 0, false
}

// constInt evaluates a constant integer expression (literals, unary minus,
// + - * / %). It walks the expression with a stack of pending operators:
// a chain of them can be as deep as its source is long.
func (c *compiler) constInt(f *fileInfo, e syntax.Expr) (int64, bool) {
	type pending struct {
		op   syntax.Token
		x    int64 // the left operand, once known
		y    syntax.Expr
		have bool // x is known: y is being evaluated
	}
	var stack []pending
	for {
		// go down the left operands to a literal
		var v int64
		switch x := e.(type) {
		case *syntax.IntLit:
			if x.Overflow {
				return 0, false
			}
			v = int64(x.Value)
		case *syntax.Unary:
			if x.Op != syntax.MINUS {
				return 0, false
			}
			stack = append(stack, pending{op: syntax.MINUS})
			e = x.X
			continue
		case *syntax.Binary:
			stack = append(stack, pending{op: x.Op, y: x.Y})
			e = x.X
			continue
		default:
			return 0, false
		}
		// apply the pending operators that now have their operands
		for {
			if len(stack) == 0 {
				return v, true
			}
			p := &stack[len(stack)-1]
			if p.op == syntax.MINUS && p.y == nil {
				v = -v
				stack = stack[:len(stack)-1]
				continue
			}
			if !p.have {
				p.x, p.have = v, true
				e = p.y
				break
			}
			x, y := p.x, v
			stack = stack[:len(stack)-1]
			switch p.op {
			case syntax.PLUS:
				v = x + y
			case syntax.MINUS:
				v = x - y
			case syntax.STAR:
				v = x * y
			case syntax.SLASH:
				if y == 0 {
					return 0, false
				}
				v = x / y
			case syntax.PERCENT:
				if y == 0 {
					return 0, false
				}
				v = x % y
			default:
				return 0, false
			}
		}
	}
}

// declareFunc resolves a function's signature and creates its Funcode.
func (c *compiler) declareFunc(f *fileInfo, ci *classInfo, d *syntax.FuncDecl) *funcInfo {
	fi := &funcInfo{decl: d, cls: ci, file: f}
	if d.Result == nil {
		fi.result = vm.Void
	} else {
		fi.result = c.resolveType(f, d.Result, nil)
	}
	seen := map[string]bool{}
	for _, p := range d.Params {
		t := c.resolveType(f, p.Type, nil)
		if t == vm.Void {
			c.errorf(f, p.Pos, "parameter %s cannot have type void", p.Name)
		}
		if seen[p.Name] {
			c.errorf(f, p.Pos, "duplicate parameter %s", p.Name)
		}
		if p.Out && p.Default != nil {
			c.errorf(f, p.Default.Start(), "out parameter %s cannot have a default value (the caller must pass a variable)", p.Name)
		}
		if ci != nil && ci.edecl != nil {
			switch {
			case p.Default != nil:
				c.errorf(f, p.Default.Start(), "enum method %s.%s cannot have default parameter values", ci.name, d.Name)
			case p.Out:
				c.errorf(f, p.Pos, "enum method %s.%s cannot have out parameters", ci.name, d.Name)
			}
		}
		seen[p.Name] = true
		fi.params = append(fi.params, t)
		fi.names = append(fi.names, p.Name)
		fi.outs = append(fi.outs, p.Out)
		fi.defaults = append(fi.defaults, p.Default)
	}
	for i, d := range fi.defaults {
		if d != nil && c.laterParam(f, fi, i) {
			fi.defaults[i] = badDefault
		}
	}
	name := d.Name
	fn := &vm.Funcode{Name: name, Short: d.Name, File: f.ast.Name, Line: d.NamePos.Line, Result: fi.result, VIndex: -1}
	if d.Body != nil {
		fn.EndLine = d.Body.End.Line
	}
	if ci != nil {
		fn.Name = ci.name + "." + d.Name
		fn.Class = ci.cls
		fn.NeedsThis = !ci.cls.IsEnum
		fn.Params = append(fn.Params, vm.ClassType(ci.cls))
		fn.ParamOut = append(fn.ParamOut, false)
	}
	fn.Params = append(fn.Params, fi.params...)
	fn.ParamOut = append(fn.ParamOut, fi.outs...)
	fn.NumParams = len(fn.Params)
	fi.fn = fn
	c.all = append(c.all, fi)
	return fi
}

// compileBodies compiles every function and method body.
func (c *compiler) compileBodies() {
	for _, fi := range c.all {
		c.checkDefaults(fi)
		if fi.iface || fi.decl.Body == nil {
			continue
		}
		c.compileFunc(fi)
		c.prog.AddFunc(fi.fn)
	}
	for _, ci := range c.order {
		if ci.cdecl != nil && !ci.file.lib {
			c.initFunc(ci) // field initialisers are checked even if no object is made
		}
		if ci.init != nil {
			c.prog.AddFunc(ci.init)
		}
	}
}

// checkDefaults compiles the default values of fi's parameters once
// where they are declared, in the callee's context (earlier parameters,
// and this in a method), so that a default with an error is reported even
// if no call uses it. The code is thrown away: each call compiles its
// defaults again at the call site, with the receiver of that call.
func (c *compiler) checkDefaults(fi *funcInfo) {
	has := false
	for _, d := range fi.defaults {
		has = has || d != nil
	}
	if !has || fi.file.lib {
		return
	}
	fn := &vm.Funcode{Name: fi.fn.Name, File: fi.fn.File, VIndex: -1}
	fc := &fcomp{fbuilder: newBuilder(fn), c: c, fi: fi, file: fi.file, cls: fi.cls}
	fc.push()
	if fi.cls != nil {
		fc.this = vm.ClassType(fi.cls.cls)
		fc.alloc(1)
	}
	fc.scopes = append(fc.scopes, &scope{vars: map[string]*local{}, barrier: true})
	for i, name := range fi.names {
		if d := fi.defaults[i]; d != nil && fc.enterDefaultUse(fi, i, d.Start()) {
			mark := fc.top
			fc.value(d, fi.params[i], -1)
			fc.top = mark
			fc.leaveDefaultUse()
		}
		fc.declare(name, fi.params[i], fi.decl.Params[i].Pos, false)
	}
}
