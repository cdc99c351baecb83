package compile

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// Compiling a program that replaces a running one (the debugger's
// reload, see vm/reload.go). The objects and frames of the running
// program must stay meaningful under the new one, so a class it shares
// with the old program keeps its layout: its fields and virtual methods
// keep their slots, new ones come after them. What would break that —
// a removed class, field or virtual method, a field of another type, a
// changed base class or interface list, a new field or virtual method in
// a class whose subclasses would shift, a changed enum value, a new
// signature for a function that has a frame on a thread's stack — is a
// compile error ("cannot reload: …") at the declaration concerned.

// Prior is the program a compilation replaces (Options.Prior).
type Prior struct {
	Program *vm.Program
	// Live reports whether a function of Program has a frame on a
	// thread's stack (nil: none has).
	Live func(*vm.Funcode) bool
	// FieldInits is filled by the compilation: for each class of the new
	// program whose existing objects get new fields with initialisers, a
	// method (this its only parameter) that runs those initialisers.
	FieldInits map[*vm.Class]*vm.Funcode
}

// keepLayout orders the fields and virtual methods that class ci
// declares (they follow its base's) as the prior program had them, the
// new ones after. Called by layout once ci's own are in place.
func (c *compiler) keepLayout(ci *classInfo) {
	p := c.opts.Prior
	if p == nil || p.Program == nil || ci.file.lib {
		return
	}
	old := p.Program.ClassByName(ci.name)
	if old == nil || ci.edecl != nil {
		return
	}
	cls := ci.cls
	nb, ob := 0, 0
	if cls.Base != nil {
		nb = len(cls.Base.Fields)
	}
	if old.Base != nil {
		ob = len(old.Base.Fields)
	}
	rank := map[string]int{}
	for i, f := range old.Fields[min(ob, len(old.Fields)):] {
		rank[f.Name] = i
	}
	own := cls.Fields[min(nb, len(cls.Fields)):]
	sort.SliceStable(own, func(i, j int) bool {
		ri, oki := rank[own[i].Name]
		rj, okj := rank[own[j].Name]
		return oki && (!okj || ri < rj)
	})
	for i, f := range cls.Fields {
		f.Index = i
	}
	nb, ob = 0, 0
	if cls.Base != nil {
		nb = len(cls.Base.VTable)
	}
	if old.Base != nil {
		ob = len(old.Base.VTable)
	}
	rank = map[string]int{}
	for i, f := range old.VTable[min(ob, len(old.VTable)):] {
		rank[methodKey(f)] = i
	}
	ownV := cls.VTable[min(nb, len(cls.VTable)):]
	sort.SliceStable(ownV, func(i, j int) bool {
		ri, oki := rank[methodKey(ownV[i])]
		rj, okj := rank[methodKey(ownV[j])]
		return oki && (!okj || ri < rj)
	})
	for i, f := range ownV {
		f.VIndex = nb + i
	}
}

// methodKey names a method by its name and parameters (without this).
func methodKey(f *vm.Funcode) string {
	var b strings.Builder
	b.WriteString(f.Short)
	for _, p := range f.Params[min(1, len(f.Params)):] {
		b.WriteString(",")
		b.WriteString(p.String())
	}
	return b.String()
}

// checkReload reports the changes the running program could not survive
// (see the file comment), and makes the initialisers of new fields.
func (c *compiler) checkReload() {
	p := c.opts.Prior
	if p == nil || p.Program == nil {
		return
	}
	for _, oc := range p.Program.Classes {
		ci := c.classes[oc.Name]
		if ci == nil {
			c.errs = append(c.errs, &syntax.Error{File: oc.File, Pos: syntax.Pos{Line: oc.Line, Col: 1},
				Msg: fmt.Sprintf("cannot reload: %s %s (declared at line %d before the edit) was removed; a reload cannot remove a type, whose values may live on", kindName(oc), oc.Name, oc.Line)})
			continue
		}
		if ci.file.lib {
			continue
		}
		c.checkClass(ci, oc)
	}
	if p.Live != nil {
		var sigs map[string]bool // (made if a function has a frame)
		for _, of := range p.Program.Funcs {
			if !p.Live(of) {
				continue
			}
			if sigs == nil {
				sigs = map[string]bool{}
				for _, f := range c.prog.Funcs {
					sigs[vm.Signature(f)] = true
				}
			}
			if sigs[vm.Signature(of)] {
				continue
			}
			for _, fi := range c.all {
				if fi.fn.Name == of.Name && !fi.file.lib {
					c.errorf(fi.file, fi.decl.NamePos, "cannot reload: %s has a frame on a thread's stack, and its signature changed (it was %s); a reload cannot change the parameters or result of a running function (let it return, or restart its caller's frame, first)",
						of.Name, vm.Signature(of))
					break
				}
			}
		}
	}
	if len(c.errs) == 0 {
		c.fieldInits()
	}
}

func kindName(c *vm.Class) string {
	switch {
	case c.IsInterface:
		return "interface"
	case c.IsStruct:
		return "struct"
	case c.IsEnum:
		return "enum"
	}
	return "class"
}

// declPos returns the position of ci's declaration.
func (ci *classInfo) declPos() syntax.Pos {
	switch {
	case ci.cdecl != nil:
		return ci.cdecl.Pos
	case ci.sdecl != nil:
		return ci.sdecl.Pos
	}
	return ci.edecl.Pos
}

// fieldDecl returns the declaration of ci's own field name, or nil.
func (ci *classInfo) fieldDecl(name string) *syntax.FieldDecl {
	var fields []*syntax.FieldDecl
	switch {
	case ci.cdecl != nil:
		fields = ci.cdecl.Fields
	case ci.sdecl != nil:
		fields = ci.sdecl.Fields
	}
	for _, fd := range fields {
		if fd.Name == name {
			return fd
		}
	}
	return nil
}

// checkClass compares class ci with its old version oc.
func (c *compiler) checkClass(ci *classInfo, oc *vm.Class) {
	nc := ci.cls
	pos := ci.declPos()
	if kindName(oc) != kindName(nc) {
		c.errorf(ci.file, pos, "cannot reload: %s was a %s and is now a %s; a reload cannot change what kind of type it is", nc.Name, kindName(oc), kindName(nc))
		return
	}
	if oc.IsEnum {
		for v, name := range oc.EnumNames {
			if nv, ok := enumValue(nc, name); !ok || nv != v {
				c.errorf(ci.file, pos, "cannot reload: enum member %s.%s was removed or changed its value (it was %d); a reload may only add members", nc.Name, name, v)
				return
			}
		}
		return
	}
	baseName := func(k *vm.Class) string {
		if k.Base == nil {
			return ""
		}
		return k.Base.Name
	}
	if baseName(oc) != baseName(nc) {
		bp := pos
		if ci.cdecl != nil && ci.cdecl.Base != "" {
			bp = ci.cdecl.BasePos
		}
		c.errorf(ci.file, bp, "cannot reload: the base class of %s changed (it was %s, it is %s); a reload cannot change the class hierarchy",
			nc.Name, orNone(baseName(oc)), orNone(baseName(nc)))
		return
	}
	if ifaceNames(oc) != ifaceNames(nc) {
		c.errorf(ci.file, pos, "cannot reload: the interfaces of %s changed (they were %s, they are %s); a reload cannot change the class hierarchy",
			nc.Name, orNone(ifaceNames(oc)), orNone(ifaceNames(nc)))
		return
	}
	for i, of := range oc.Fields {
		var nf *vm.Field
		if i < len(nc.Fields) {
			nf = nc.Fields[i]
		}
		if nf != nil && nf.Name == of.Name && nf.Owner.Name == of.Owner.Name {
			if nf.Type.String() != of.Type.String() {
				fp := pos
				if fd := ci.fieldDecl(nf.Name); fd != nil {
					fp = fd.Pos
				}
				c.errorf(ci.file, fp, "cannot reload: field %s of %s changed its type from %s to %s; a reload cannot change the type of a field (existing objects hold %s values)",
					nf.Name, nc.Name, of.Type, nf.Type, of.Type)
				return
			}
			continue
		}
		if moved := nc.FieldByName(of.Name); moved == nil || moved.Owner.Name != of.Owner.Name {
			c.errorf(ci.file, pos, "cannot reload: field %s of %s was removed; a reload may add fields, not remove them (running code may still read it)", of.Name, of.Owner.Name)
			return
		}
		// A field of a base class came before this one.
		for _, f := range nc.Fields[:i+1] {
			if oc.FieldByName(f.Name) == nil {
				owner := c.classes[f.Owner.Name]
				fp := owner.declPos()
				if fd := owner.fieldDecl(f.Name); fd != nil {
					fp = fd.Pos
				}
				c.errorf(owner.file, fp, "cannot reload: field %s was added to %s, which %s extends; a reload may add fields only where no existing subclass has fields of its own",
					f.Name, f.Owner.Name, nc.Name)
				return
			}
		}
		c.errorf(ci.file, pos, "cannot reload: the fields of %s changed order", nc.Name)
		return
	}
	for i, of := range oc.VTable {
		if i < len(nc.VTable) && methodKey(nc.VTable[i]) == methodKey(of) {
			continue
		}
		for _, f := range nc.VTable[:min(i+1, len(nc.VTable))] {
			if !hasVirtual(oc, methodKey(f)) {
				owner := c.classes[f.Class.Name]
				mp := owner.declPos()
				for _, m := range owner.methods {
					if m.fn == f {
						mp = m.decl.NamePos
					}
				}
				c.errorf(owner.file, mp, "cannot reload: virtual method %s was added to %s, which %s extends; a reload may add virtual methods only where no existing subclass has virtual methods of its own",
					f.Short, f.Class.Name, nc.Name)
				return
			}
		}
		c.errorf(ci.file, pos, "cannot reload: virtual method %s.%s was removed or is no longer virtual; a reload cannot remove a virtual method", oc.Name, of.Short)
		return
	}
}

func hasVirtual(c *vm.Class, key string) bool {
	for _, f := range c.VTable {
		if methodKey(f) == key {
			return true
		}
	}
	return false
}

func ifaceNames(c *vm.Class) string {
	var names []string
	for _, i := range c.Interfaces {
		names = append(names, i.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// fieldInits makes Prior.FieldInits: for each class whose existing
// objects get fields with initialisers, a method running them.
func (c *compiler) fieldInits() {
	p := c.opts.Prior
	for _, ci := range c.order {
		oc := p.Program.ClassByName(ci.name)
		if oc == nil || ci.file.lib || ci.cdecl == nil || ci.cls.IsInterface || len(ci.cls.Fields) == len(oc.Fields) {
			continue
		}
		var chain []*classInfo
		for k := ci; k != nil; k = k.base {
			chain = append([]*classInfo{k}, chain...)
		}
		var fc *fcomp
		for _, k := range chain {
			if k.cdecl == nil {
				continue
			}
			for _, fd := range k.cdecl.Fields {
				f := k.cls.FieldByName(fd.Name)
				if fd.Init == nil || f == nil || f.Index < len(oc.Fields) {
					continue
				}
				if fc == nil {
					fn := &vm.Funcode{Name: ci.name + ".<reload>", Short: "<reload>", File: ci.file.ast.Name, Line: ci.cls.Line,
						Class: ci.cls, Params: []*vm.Type{vm.ClassType(ci.cls)}, ParamOut: []bool{false}, NumParams: 1, Result: vm.Void, VIndex: -1}
					fi := &funcInfo{fn: fn, cls: ci, file: ci.file, result: vm.Void, decl: &syntax.FuncDecl{Name: "<reload>"}}
					fc = &fcomp{fbuilder: newBuilder(fn), c: c, fi: fi, file: ci.file, cls: ci, this: vm.ClassType(ci.cls)}
					fc.push()
					fc.alloc(1)
					fn.Locals = append(fn.Locals, vm.LocalVar{Name: "this", Type: fc.this, Reg: 0, IsParam: true})
				}
				fc.file = k.file
				mark := fc.top
				fc.line(fd.Pos, true)
				r := fc.value(fd.Init, f.Type, -1)
				fc.emit(vm.SETF, 0, int32(f.Index), r)
				fc.top = mark
			}
		}
		if fc == nil {
			continue
		}
		fc.emit(vm.RETV, 0, 0, 0)
		fc.pop()
		fc.finish()
		fn := fc.fn
		tmp := vm.NewProgram() // (its caches made)
		tmp.AddFunc(fn)
		tmp.Finish()
		if p.FieldInits == nil {
			p.FieldInits = map[*vm.Class]*vm.Funcode{}
		}
		p.FieldInits[ci.cls] = fn
	}
}

// writtenParams returns, for each parameter of fn, whether an
// instruction of fn writes it (nil if none does). A call writes its
// result register and every register from its first argument up.
func writtenParams(fn *vm.Funcode) []bool {
	var out []bool
	mark := func(r int32) {
		if r >= 0 && int(r) < fn.NumParams {
			if out == nil {
				out = make([]bool, fn.NumParams)
			}
			out[r] = true
		}
	}
	for _, in := range fn.Code {
		switch in.Op {
		case vm.NOP, vm.JMP, vm.LOOP, vm.JT, vm.JF, vm.JNLTI, vm.JNLEI, vm.JNLTIK, vm.JNLEIK, vm.JNGTIK, vm.JNGEIK,
			vm.LOOPLTIK, vm.LOOPLEIK, vm.LOOPGTIK, vm.LOOPGEIK, vm.LOOPLTI, vm.LOOPLEI, vm.LOOPT, vm.JNLTD, vm.JNLED,
			vm.SETF, vm.ASET, vm.LSET, vm.RET, vm.RETV, vm.THROW, vm.RETHROW, vm.ASSERT, vm.TRAP:
		case vm.CALL, vm.CALLV, vm.CALLI, vm.CALLN, vm.CALLF, vm.CONT:
			mark(in.C)
			for r := in.A; int(r) < fn.NumParams; r++ {
				mark(r)
			}
		default:
			mark(in.A)
		}
	}
	return out
}

// copyArgs emits, at a function's entry, a copy of each parameter that
// its body assigns (written), and records where (Funcode.ArgCopies).
func (fc *fcomp) copyArgs(written []bool) {
	fn := fc.fn
	fn.ArgCopies = make([]int32, len(written))
	for i, w := range written {
		fn.ArgCopies[i] = -1
		if w {
			r := fc.alloc(1)
			fc.emit(vm.MOVE, r, int32(i), 0)
			fn.ArgCopies[i] = r
		}
	}
}

// resetCode empties fn's code and tables for a second compilation.
func resetCode(fn *vm.Funcode) {
	fn.Code, fn.Consts, fn.Lines, fn.Locals, fn.Handlers = nil, nil, nil, nil, nil
	fn.NCalls, fn.Dyns, fn.Binds, fn.Funcs, fn.Classes, fn.Types = nil, nil, nil, nil, nil, nil
	fn.NumRegs, fn.ArgCopies = 0, nil
}
