package vm

import (
	"fmt"
	"strings"
)

// NativeFunc implements a host function. args aliases the caller's
// argument registers (for a method, args[0] is the receiver); a native
// with out parameters writes them back into args. It returns the result,
// or an error:
//   - ErrPark: the native recorded what the thread waits on (WaitReason,
//     WaitOn, the object's wait queue) and the thread must stop; whoever wakes it supplies the
//     result with Thread.Complete or an exception with Thread.CompleteThrow;
//   - ErrYield: the call is complete but the thread gives up its quantum;
//   - a *Throw: the NLang exception to raise;
//   - any other error: raised as a plain Exception with its text.
type NativeFunc func(t *Thread, args []Value) (Value, error)

// Native is a host function with its NLang signature.
type Native struct {
	// Name is the qualified name shown in backtraces ("io.print",
	// "Channel.send").
	Name string
	// Sig is the NLang signature, e.g. "bool tryRecv(out T v)". In methods
	// of a generic host type, the type parameters (T, K, V) stand for the
	// receiver's type arguments.
	Sig string
	Fn  NativeFunc
	// Pinned marks a native that blocks its carrier (a blocking read).
	Pinned bool
	// Recv says whether a method reads or changes its receiver as a
	// whole (the methods of List and Dict): see Funcode.AccessOf.
	Recv RecvAccess
	// Flags say what else the native does, for the tools that must know
	// without calling it (the debugger, schedule exploration).
	Flags NativeFlags
}

// NativeFlags are attributes of a native.
type NativeFlags uint8

// Native attributes.
const (
	// ReadOnly: the native changes nothing a program can see — not its
	// arguments, the heap, the output, nor hidden state such as the
	// random generator — and runs no NLang code (but see Formats): a
	// debugger may call it in a watch, hover or breakpoint condition.
	ReadOnly NativeFlags = 1 << iota
	// Formats: it formats values of its receiver's type, and so calls the
	// toString of the objects among them (NLang code).
	Formats
	// OutsideState: what it reads or changes is outside the state a
	// scheduler's state hash sees — the file system, streams, the random
	// generator.
	OutsideState
)

// Is reports whether the native has every attribute of f.
func (n *Native) Is(f NativeFlags) bool { return n.Flags&f == f }

// withFlags adds f to each native of ns and returns ns.
func withFlags(f NativeFlags, ns ...*Native) []*Native {
	for _, n := range ns {
		n.Flags |= f
	}
	return ns
}

// Method returns the method part of the native's name ("add" of
// "List.add", "print" of "io.print").
func (n *Native) Method() string {
	if i := strings.LastIndexByte(n.Name, '.'); i >= 0 {
		return n.Name[i+1:]
	}
	return n.Name
}

// MethodKind returns the key of the built-in methods of values of type t
// in Library.Methods ("string", "List", "Dict", "array"), or "" if t has
// none there.
func MethodKind(t *Type) string {
	switch t.Kind {
	case KString:
		return "string"
	case KList:
		return "List"
	case KDict:
		return "Dict"
	case KArray:
		return "array"
	}
	return ""
}

// HostType is a built-in reference type implemented by the host, such as
// Channel<T> or Mutex.
type HostType struct {
	Name       string
	TypeParams []string
	// Ctors are constructor signatures, written with the type's name
	// ("Channel()", "Channel(int n)"); Fn receives the instantiated type as
	// t.NativeType().
	Ctors   []*Native
	Methods []*Native
	// Format renders a value of this type for printing and concatenation;
	// nil prints "Name@id".
	Format func(v any) string
}

// Package is a built-in package of functions (`import io;`).
type Package struct {
	Name  string
	Funcs []*Native
}

// Library is everything built in that a program can use: native packages,
// host types and NLang-source library files (the prelude is always
// compiled; the other files are compiled when a program imports their
// package).
type Library struct {
	Packages  map[string]*Package
	HostTypes map[string]*HostType
	// Sources maps a package name to its NLang source (e.g. "concurrent").
	// The package "prelude" is compiled into every program.
	Sources map[string]string
	// Special names calls the compiler must type itself (thread.spawn).
	Special map[string]*Native
	// Methods are the methods of the built-in types, by receiver kind:
	// "string", "List", "Dict", "array". In their signatures T is the
	// element type and K, V the key and value types.
	Methods map[string][]*Native
	// Natives are the host implementations of `native` functions declared
	// in library sources, by name.
	Natives map[string]*Native
}

// NewLibrary returns an empty library.
func NewLibrary() *Library {
	return &Library{Packages: map[string]*Package{}, HostTypes: map[string]*HostType{}, Sources: map[string]string{},
		Special: map[string]*Native{}, Methods: map[string][]*Native{}, Natives: map[string]*Native{}}
}

// Merge adds every entry of o to l.
func (l *Library) Merge(o *Library) {
	for k, p := range o.Packages {
		if q, ok := l.Packages[k]; ok {
			q.Funcs = append(q.Funcs, p.Funcs...)
		} else {
			l.Packages[k] = p
		}
	}
	for k, v := range o.HostTypes {
		l.HostTypes[k] = v
	}
	for k, v := range o.Sources {
		if s, ok := l.Sources[k]; ok {
			l.Sources[k] = s + "\n" + v
		} else {
			l.Sources[k] = v
		}
	}
	for k, v := range o.Special {
		l.Special[k] = v
	}
	for k, v := range o.Methods {
		l.Methods[k] = append(l.Methods[k], v...)
	}
	for k, v := range o.Natives {
		l.Natives[k] = v
	}
}

// ErrPark is returned by a native whose thread must park.
var ErrPark error = errPark

// IsPark reports whether err is ErrPark: one type check and a pointer
// comparison (err == ErrPark compares two interfaces through a call).
func IsPark(err error) bool {
	sig, ok := err.(*signal)
	return ok && sig == errPark
}

// ErrYield is returned by a native that completed and yields its quantum.
var ErrYield error = errYield

// A signal is one of the errors a native returns to steer the loop
// (ErrPark, ErrYield, ErrCall) rather than to raise an exception. They
// are pointers of their own type, so the loop tells them apart with one
// type check and a pointer comparison.
type signal struct{ name string }

func (s *signal) Error() string { return "vm: " + s.name }

var (
	errPark  = &signal{"park"}
	errYield = &signal{"yield"}
	errCall  = &signal{"call"}
)

// Throw is an error that raises an NLang exception: either an existing
// exception object, or a new one of the named built-in class.
type Throw struct {
	Obj   *Object
	Class string
	Msg   string
}

func (e *Throw) Error() string {
	if e.Obj != nil {
		return ExceptionString(e.Obj)
	}
	return e.Class + ": " + e.Msg
}

// Throwf returns a *Throw of the named exception class.
func Throwf(class, format string, args ...any) *Throw {
	return &Throw{Class: class, Msg: fmt.Sprintf(format, args...)}
}
