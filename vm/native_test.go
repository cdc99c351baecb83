package vm_test

import (
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
)

// allNatives lists every native of a library.
func allNatives(l *vm.Library) map[string]*vm.Native {
	out := map[string]*vm.Native{}
	add := func(ns ...*vm.Native) {
		for _, n := range ns {
			out[n.Name+" "+n.Sig] = n
		}
	}
	for _, p := range l.Packages {
		add(p.Funcs...)
	}
	for _, h := range l.HostTypes {
		add(h.Ctors...)
		add(h.Methods...)
	}
	for _, ms := range l.Methods {
		add(ms...)
	}
	for _, n := range l.Natives {
		add(n)
	}
	return out
}

// TestNativeAttributes checks that the natives' attributes agree with
// each other, and spot-checks them by name.
func TestNativeAttributes(t *testing.T) {
	l := vm.BuiltinLib()
	l.Merge(vm.StdLib())
	byName := map[string]*vm.Native{}
	for key, n := range allNatives(l) {
		byName[n.Name] = n
		switch {
		case n.Is(vm.ReadOnly) && n.Is(vm.OutsideState):
			t.Errorf("%s: read-only, yet it touches state outside the program's", key)
		case n.Is(vm.ReadOnly) && n.Recv == vm.RecvWrites:
			t.Errorf("%s: read-only, yet it changes its receiver", key)
		case n.Is(vm.Formats) && !n.Is(vm.ReadOnly):
			t.Errorf("%s: formats, but is not read-only", key)
		}
	}
	for _, c := range []struct {
		name  string
		flags vm.NativeFlags
		recv  vm.RecvAccess
	}{
		{"List.add", 0, vm.RecvWrites},
		{"List.get", vm.ReadOnly, vm.RecvReads},
		{"List.toString", vm.ReadOnly | vm.Formats, vm.RecvReads},
		{"Dict.set", 0, vm.RecvWrites},
		{"Dict.keys", vm.ReadOnly, vm.RecvReads},
		{"array.toString", vm.ReadOnly | vm.Formats, vm.RecvNone},
		{"string.length", vm.ReadOnly, vm.RecvNone},
		{"math.sqrt", vm.ReadOnly, vm.RecvNone},
		{"math.random", vm.OutsideState, vm.RecvNone},
		{"fs.exists", vm.OutsideState, vm.RecvNone},
		{"io.readFile", vm.OutsideState, vm.RecvNone},
		{"ByteStream", vm.OutsideState, vm.RecvNone},
		{"io.print", 0, vm.RecvNone},
		{"__same", vm.ReadOnly, vm.RecvNone},
	} {
		n := byName[c.name]
		if n == nil {
			t.Errorf("no native %s", c.name)
			continue
		}
		if n.Flags != c.flags || n.Recv != c.recv {
			t.Errorf("%s: flags %b, receiver %v; want %b, %v", c.name, n.Flags, n.Recv, c.flags, c.recv)
		}
	}
}
