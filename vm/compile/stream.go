package compile

import (
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/syntax"
)

// streamCall compiles the methods of ByteStream and FileStream whose
// typing their native signatures cannot express: readStruct("S") and
// readObject("C") return a value of the type their string literal names,
// writeStruct takes any struct, writeObject any class object, and
// writeInt any integer of at most 32 bits. It reports false for other
// calls.
func (fc *fcomp) streamCall(e *syntax.Call, m *syntax.Member, x int32, xt *vm.Type, dst int32) (int32, *vm.Type, bool) {
	if xt.Host.Name != "ByteStream" && xt.Host.Name != "FileStream" {
		return 0, nil, false
	}
	what := xt.Host.Name + "." + m.Name
	switch m.Name {
	case "readStruct", "readObject", "writeStruct", "writeObject", "writeInt":
	default:
		return 0, nil, false
	}
	cands := fc.c.hostMethods(xt, m.Name)
	if len(cands) != 1 {
		return 0, nil, false
	}
	if len(e.Args) != 1 || e.Args[0].Name != "" || e.Args[0].Out {
		fc.errorf(e.Lparen, "%s takes one argument", what)
		return fc.out(dst), badType, true
	}
	arg := e.Args[0].X
	cl := *cands[0]
	switch m.Name {
	case "readStruct", "readObject":
		lit, ok := arg.(*syntax.StringLit)
		if !ok {
			fc.errorf(arg.Start(), "%s needs a string literal naming the type", what)
			return fc.out(dst), badType, true
		}
		ci := fc.c.classes[lit.Value]
		switch {
		case ci == nil:
			fc.errorf(arg.Start(), "%s: undefined type %s", what, lit.Value)
			return fc.out(dst), badType, true
		case m.Name == "readStruct" && !ci.cls.IsStruct:
			fc.errorf(arg.Start(), "%s: %s is not a struct", what, lit.Value)
			return fc.out(dst), badType, true
		case m.Name == "readObject" && (ci.cdecl == nil || ci.cls.IsInterface):
			fc.errorf(arg.Start(), "%s: %s is not a class", what, lit.Value)
			return fc.out(dst), badType, true
		}
		cl.result = vm.ClassType(ci.cls)
	case "writeStruct", "writeObject", "writeInt":
		at := fc.peekType(arg)
		ok := true
		switch m.Name {
		case "writeStruct":
			ok = at.Kind == vm.KStruct
			if ok {
				cl.params = []*vm.Type{at} // any struct (not an Object)
			}
		case "writeObject":
			ok = at.Kind == vm.KClass || at.Kind == vm.KInterface || at == vm.Null
		default:
			ok = at.IsInteger() && at.Bits() <= 32 || at.Kind == vm.KEnum
			if ok && at != vm.Int {
				cl.params = []*vm.Type{at} // written as its low 32 bits
			}
		}
		if !ok && at != badType {
			want := map[string]string{"writeStruct": "a struct", "writeObject": "a class object", "writeInt": "an integer of at most 32 bits"}[m.Name]
			fc.errorf(arg.Start(), "%s expects %s, got %s", what, want, at)
			return fc.out(dst), badType, true
		}
	}
	bound := []*syntax.Arg{e.Args[0]}
	return fc.callCallee(&cl, bound, x, true, m.NamePos, dst, false, xt), cl.result, true
}
