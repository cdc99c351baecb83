package vm

import (
	"fmt"
	"sort"
	"sync/atomic"
)

// Class describes a class, interface, struct or enum.
type Class struct {
	Name        string
	Base        *Class // nil for Object and for interfaces, structs, enums
	Interfaces  []*Class
	IsInterface bool
	IsStruct    bool
	IsEnum      bool
	File        string
	Line        int32

	Fields []*Field // all fields, the base class's first

	// Methods maps a method name to its overloads declared in this class or
	// inherited (the most derived declaration wins for equal signatures).
	Methods map[string][]*Funcode
	// VTable holds the targets of virtual calls; Funcode.VIndex indexes it.
	VTable []*Funcode
	// Ctors are the constructors declared in this class.
	Ctors []*Funcode

	// EnumNames maps an enum value to its member name.
	EnumNames map[int64]string
	// EnumOrder lists the enum members in declaration order.
	EnumOrder []string

	// ID is the class's index in Program.Classes.
	ID int

	typ *Type
}

// key identifies the class in the type table: classes of different
// programs may share a name.
func (c *Class) key() string { return fmt.Sprintf("C%s@%p", c.Name, c) }

// Field is one field of a class or struct.
type Field struct {
	Name  string
	Type  *Type
	Index int // slot in Object.Fields
	Owner *Class
	// Line is where it is declared, in Owner's file (0: not known).
	Line int32
}

// FieldByName returns the named field, or nil.
func (c *Class) FieldByName(name string) *Field {
	for i := len(c.Fields) - 1; i >= 0; i-- {
		if c.Fields[i].Name == name {
			return c.Fields[i]
		}
	}
	return nil
}

// IsSubclassOf reports whether c is d or derives from it (through bases or
// implemented interfaces). Interfaces form a graph (an interface may
// extend several), so each is visited once, with a stack: time linear in
// the number of types, where following every path could take time
// exponential in the depth of a diamond of interfaces.
func (c *Class) IsSubclassOf(d *Class) bool {
	var buf [16]*Class
	todo := buf[:0]
	for k := c; k != nil; k = k.Base {
		if k == d {
			return true
		}
		todo = append(todo, k.Interfaces...)
	}
	var seen map[*Class]bool // only once an interface extends another
	for len(todo) > 0 {
		k := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if k == d {
			return true
		}
		if len(k.Interfaces) == 0 && k.Base == nil {
			continue
		}
		if seen == nil {
			seen = map[*Class]bool{}
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		for b := k; b != nil; b = b.Base {
			if b == d {
				return true
			}
			todo = append(todo, b.Interfaces...)
		}
	}
	return false
}

// FindMethod returns the most derived method of class c named name that
// takes nargs arguments (besides this), or nil. Used for dynamic lookups
// by name (interface calls, late-bound method references).
func (c *Class) FindMethod(name string, nargs int) *Funcode {
	for _, f := range c.Methods[name] {
		if f.NumParams-1 == nargs {
			return f
		}
	}
	return nil
}

// LineEntry maps a pc to a source position. Entries are sorted by PC; an
// entry applies to pcs up to the next entry. Stmt marks the first
// instruction of a statement (a place a line breakpoint or a step can stop).
type LineEntry struct {
	PC   int32
	Line int32
	Col  int32
	Stmt bool
}

// LocalVar describes a named local variable for the debugger: it lives in
// register Reg for pcs in [StartPC, EndPC).
type LocalVar struct {
	Name    string
	Type    *Type
	Reg     int32
	StartPC int32
	EndPC   int32
	// Line and Col are where it is declared, in the function's file
	// (0: not known, e.g. this).
	Line, Col int32
	IsParam   bool
}

// Handler is one entry of a function's exception table: an exception
// raised by an instruction in [StartPC, EndPC) whose class is Class (nil:
// any) jumps to Target with the exception in register Reg. Handlers are
// sorted so that the first match is the right one.
type Handler struct {
	StartPC, EndPC int32
	Target         int32
	Reg            int32
	Class          *Class
}

// Funcode is a compiled function or method.
type Funcode struct {
	Name      string // "main", "Producer.run"
	Short     string // the name without class
	File      string
	Line      int32 // line of the declaration
	EndLine   int32 // line of the closing brace
	Class     *Class
	Params    []*Type // including this for methods (Params[0])
	ParamOut  []bool
	Result    *Type
	NumParams int // len(Params)
	NumRegs   int // registers needed (>= NumParams)
	Virtual   bool
	VIndex    int // slot in Class.VTable if virtual; -1 otherwise
	IsCtor    bool
	IsStatic  bool
	// NeedsThis marks a method whose receiver must not be null (every
	// class method; not enum methods, whose this is a value).
	NeedsThis bool

	Code     []Instr
	Consts   []Value
	Lines    []LineEntry
	Locals   []LocalVar
	Handlers []Handler

	// NCalls are the native call sites (CALLN's B).
	NCalls []NCall
	// Dyns are the methods called by name (CALLI's B).
	Dyns []DynCall
	// Binds are the function values made by BIND (C).
	Binds []Bind
	// Funcs referenced by CALL/FUNCVAL instructions.
	Funcs []*Funcode
	// Classes referenced by NEW/CAST/catch instructions.
	Classes []*Class
	// Types referenced by instructions (arrays, lists, dicts, casts).
	Types []*Type
	// icache caches CALLI targets, parallel to Dyns.
	icache []atomic.Pointer[icEntry]

	// Cont marks the function of a continuation frame (see CallThen):
	// runtime code with no source, whose only instruction is CONT.
	Cont bool
	// Obsolete marks the code a function had before the debugger
	// reloaded the program, kept for the frames still running it
	// (reload.go).
	Obsolete bool
	// ArgCopies gives, for each parameter the function assigns, the
	// register where its entry keeps a copy of the argument (-1: the
	// parameter is never assigned; nil: none is), so that a frame can be
	// restarted with the arguments it was called with.
	ArgCopies []int32

	// debugger state: original instructions of patched (trapped) pcs;
	// the holders of the pinned ones (PinTrap), and the pinned pcs whose
	// trap SetTrap does not hold (nobody set it, or ClearTrap cleared it).
	trapped map[int32]Instr
	pins    map[int32]int32
	unset   map[int32]bool

	// unverified is why the code failed verification (interp_verify.go),
	// if it did.
	unverified error
}

type icEntry struct {
	class *Class
	fn    *Funcode
}

// Pos returns the source position of the instruction at pc.
func (f *Funcode) Pos(pc int32) (line, col int32) {
	i := sort.Search(len(f.Lines), func(i int) bool { return f.Lines[i].PC > pc }) - 1
	if i < 0 {
		return f.Line, 0
	}
	return f.Lines[i].Line, f.Lines[i].Col
}

// String returns the function's name.
func (f *Funcode) String() string { return f.Name }

// Program is a compiled NLang program.
type Program struct {
	Files   map[string][]byte // source by file name
	Funcs   []*Funcode        // every function and method
	Classes []*Class
	Main    *Funcode
	// Warnings are the compiler's warnings, "file:line:col: warning: …"
	// (implicit conversions that may lose precision: int, uint, long and
	// ulong to float, long and ulong to double). The program runs anyway.
	Warnings []string
	// Debug is the compiler's state kept for the debugger (evaluating
	// expressions in a frame's scope); nil if the program was not built
	// by package compile. Opaque to the vm.
	Debug any

	classByName map[string]*Class
	funcByName  map[string]*Funcode
}

// NewProgram returns an empty program; the compiler fills it.
func NewProgram() *Program {
	return &Program{Files: map[string][]byte{}, classByName: map[string]*Class{}, funcByName: map[string]*Funcode{}}
}

// AddClass registers a class.
func (p *Program) AddClass(c *Class) {
	c.ID = len(p.Classes)
	p.Classes = append(p.Classes, c)
	p.classByName[c.Name] = c
}

// AddFunc registers a function.
func (p *Program) AddFunc(f *Funcode) {
	p.Funcs = append(p.Funcs, f)
	if _, dup := p.funcByName[f.Name]; !dup {
		p.funcByName[f.Name] = f
	}
}

// ClassByName returns the named class, or nil.
func (p *Program) ClassByName(name string) *Class { return p.classByName[name] }

// FuncByName returns the first function registered under name
// ("main", "Producer.run"), or nil.
func (p *Program) FuncByName(name string) *Funcode { return p.funcByName[name] }

// Finish prepares the program to run (caches, sorted tables) and
// verifies its code (see interp_verify.go). Every function must go
// through it before it runs.
func (p *Program) Finish() {
	for _, f := range p.Funcs {
		if f.unverified == nil && len(f.trapped) == 0 {
			if err := f.verify(); err != nil {
				f.badCode(err)
			}
		}
		f.Code = withSlack(f.Code)
		f.icache = make([]atomic.Pointer[icEntry], len(f.Dyns))
		for i := range f.Binds {
			b := &f.Binds[i]
			b.val = &FuncVal{Fn: b.Fn, Native: b.Native, Name: b.Name, Type: b.Type}
		}
	}
}

// mustClass returns a built-in class that the prelude always defines.
func (p *Program) mustClass(name string) *Class {
	c := p.classByName[name]
	if c == nil {
		panic(fmt.Sprintf("vm: built-in class %s missing from the prelude", name))
	}
	return c
}
