package vm_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/internal/testmode"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// numOps is the number of opcodes: the first that has no name.
func numOps() vm.Opcode {
	op := vm.Opcode(0)
	for op.Info().Name != "" {
		op++
	}
	return op
}

// TestOpTableShape checks each entry against itself: in the order of the
// opcodes, named once, and with attributes that agree with each other.
func TestOpTableShape(t *testing.T) {
	n := numOps()
	if n != vm.CONT+1 {
		t.Fatalf("the table names %d opcodes, want %d (up to CONT)", n, vm.CONT+1)
	}
	names := map[string]vm.Opcode{}
	for op := vm.Opcode(0); op < n; op++ {
		i := op.Info()
		if i.Op != op {
			t.Errorf("entry %d is for %v: the table is out of the const block's order", op, i.Op)
		}
		if prev, dup := names[i.Name]; dup {
			t.Errorf("%v and %v are both named %q", prev, op, i.Name)
		}
		names[i.Name] = op
		if op.String() != i.Name {
			t.Errorf("%d.String() = %q, want %q", op, op.String(), i.Name)
		}
		for k, kind := range i.Args {
			isTarget := i.IsJump() && int(i.Target) == k+1
			if (kind == vm.PCArg) != isTarget {
				t.Errorf("%v: operand %c is %v but Target is %v", op, 'A'+k, kind, i.Target)
			}
		}
		if i.Is(vm.Straight) && (i.IsJump() || i.Call != vm.NoCall || i.Is(vm.RunsCode) || i.Is(vm.NoNext) || i.Is(vm.Returns)) {
			t.Errorf("%v: straight, but it jumps, calls, returns or runs code", op)
		}
		if i.Call != vm.NoCall && !i.Is(vm.RunsCode|vm.MayThrow|vm.Safepoint) {
			t.Errorf("%v: a call must run code, may throw and is a safepoint", op)
		}
		if i.Call != vm.NoCall && i.Is(vm.SetsA) {
			t.Errorf("%v: a call writes R[C] and the registers from R[A], not just R[A]", op)
		}
		if i.Is(vm.SetsA) && i.Args[0] != vm.Reg {
			t.Errorf("%v: sets R[A] but A is %v", op, i.Args[0])
		}
		if i.Is(vm.Returns) && !i.Is(vm.NoNext) {
			t.Errorf("%v: returns but may go on to pc+1", op)
		}
		if a := i.Access; a.Kind != vm.NoAccess {
			if a.Write == i.Is(vm.SetsA) {
				t.Errorf("%v: a load sets R[A], a store sets no register", op)
			}
			key, val := vm.Reg, []vm.OperandKind{vm.Reg}
			if a.Kind == vm.AccessField {
				key = vm.FieldArg
			}
			if a.Write {
				val = append(val, vm.Imm) // a store of an immediate
			}
			arg := func(o vm.Operand) vm.OperandKind {
				if o < vm.OpA || o > vm.OpC {
					return vm.Unused
				}
				return i.Args[o-1]
			}
			if arg(a.Obj) != vm.Reg || arg(a.Key) != key || !slices.Contains(val, arg(a.Val)) {
				t.Errorf("%v: access operands %v (obj), %v (key), %v (value) are %v", op, a.Obj, a.Key, a.Val, i.Args)
			}
		}
	}
	if vm.Opcode(n).String() == "" {
		t.Errorf("an opcode out of range has no name")
	}
}

// runScripts compiles every testdata/run script the vm alone can run
// (no thread package) and calls f with each program.
func runScripts(t *testing.T, f func(name string, prog *vm.Program)) {
	files, err := filepath.Glob("../testdata/run/*/*.n")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	ran := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := compile.CompileFile(filepath.Base(file), src, compile.Options{Lib: vm.StdLib()})
		if err != nil {
			continue // a compile-error script, or one that needs the scheduler's library
		}
		ran++
		f(file, prog)
	}
	if ran < 100 {
		t.Fatalf("only %d scripts compiled", ran)
	}
}

// TestOpTableOperands checks the table's operand kinds against what the
// compiler emits: every operand of every instruction of the scripts is in
// the range of its kind.
func TestOpTableOperands(t *testing.T) {
	runScripts(t, func(name string, prog *vm.Program) {
		for _, fn := range prog.Funcs {
			for pc := range fn.Code {
				in := fn.Code[pc]
				for k, kind := range in.Op.Info().Args {
					x := in.Operand(vm.Operand(k + 1))
					if !operandOK(fn, kind, x) {
						t.Errorf("%s: %s pc %d: %s: operand %c = %d is not a valid %v",
							name, fn.Name, pc, fn.FormatInstr(int32(pc)), 'A'+k, x, kind)
					}
				}
			}
		}
	})
}

func operandOK(fn *vm.Funcode, kind vm.OperandKind, x int32) bool {
	in := func(n int) bool { return x >= 0 && int(x) < n }
	switch kind {
	case vm.Unused:
		return x == 0
	case vm.Reg:
		return x >= 0 && int(x) <= fn.NumRegs // a call without arguments may start at NumRegs
	case vm.RegOrNone:
		return x >= -1 && int(x) < fn.NumRegs
	case vm.PCArg:
		return in(len(fn.Code))
	case vm.ConstArg:
		return in(len(fn.Consts))
	case vm.TypeArg:
		return in(len(fn.Types))
	case vm.ClassArg:
		return in(len(fn.Classes))
	case vm.FuncArg:
		return in(len(fn.Funcs))
	case vm.DynArg:
		return in(len(fn.Dyns))
	case vm.NCallArg:
		return in(len(fn.NCalls))
	case vm.BindArg:
		return in(len(fn.Binds))
	case vm.FieldArg, vm.SlotArg, vm.CountArg:
		return x >= 0
	}
	return true // Imm, KindsArg: any value
}

// TestOpTableMatchesInterpreter runs the scripts with every instruction
// trapped and checks what each one did against its entry: where the
// thread went next (pc+1, a jump's target, a callee's entry, the
// caller), which registers changed, whether it threw or counted a
// reduction, and what its access read or wrote. Every opcode the
// compiler emits must be seen.
func TestOpTableMatchesInterpreter(t *testing.T) {
	c := &opChecker{tb: t, seen: map[vm.Opcode]bool{}, jumped: map[vm.Opcode]bool{},
		fell: map[vm.Opcode]bool{}, reduced: map[vm.Opcode]bool{}}
	runScripts(t, func(name string, prog *vm.Program) {
		c.run(name, prog)
	})
	// the programs compiled from source, besides the scripts
	c.run("extra", compileSrc(t, opExtraSrc))
	for op := vm.Opcode(0); op < numOps(); op++ {
		i := op.Info()
		if op == vm.TRAP || op == vm.CONT {
			continue // the debugger's and the runtime's, never compiled
		}
		if !c.seen[op] {
			t.Errorf("%v never ran: add it to opExtraSrc", op)
		}
		if i.IsJump() && !c.jumped[op] {
			t.Errorf("%v never jumped", op)
		}
		if i.IsJump() && !i.Is(vm.NoNext) && !c.fell[op] {
			t.Errorf("%v never fell through", op)
		}
		if i.Is(vm.Safepoint) && !c.reduced[op] {
			t.Errorf("%v is a safepoint but never counted a reduction", op)
		}
	}
}

// opExtraSrc runs the opcodes and paths the scripts do not reach: a
// fused loop test that jumps and one that falls through, a native that
// calls user code (List.toString calling Box.toString).
const opExtraSrc = `import io;
class Box {
    int v;
    Box(int v) { this.v = v; }
    string toString() { return "Box" + this.v; }
}
int main() {
    long a = 7;
    long b = 3;
    io.print(a - b);
    io.print(-a);
    uint u = 5;
    io.print(u * u);
    ulong w = 6;
    io.print(w * w);
    float f = 2.5f;
    io.print(f - 1.0f);
    io.print(f * 2.0f);
    io.print(-f);
    double d = 1.5;
    io.print(-d);
    io.print(d != 2.0);
    while (d < 4.0) { d = d + 1.0; }
    while (d < 1.0) { d = d + 1.0; }
    while (d <= 8.0) { d = d * 2.0; }
    while (d <= 1.0) { d = d * 2.0; }
    int n = 0;
    for (int i = 0; i <= 2; i += 1) { n += i; }
    for (int i = 5; i <= 2; i += 1) { n += i; }
    int k = 3;
    while (k > 0) { k -= 1; }
    while (k > 0) { k -= 1; }
    k = 2;
    while (k >= 0) { k -= 1; }
    while (k >= 0) { k -= 1; }
    io.print(n);
    List<Box> l = new List<Box>();
    l.add(new Box(3));
    io.print(l.toString());
    return 0;
}`

// opChecker is the debug hook of TestOpTableMatchesInterpreter.
type opChecker struct {
	tb    testing.TB
	name  string
	prev  opStep
	have  bool
	threw bool
	traps int
	limit int // maxTraps
	// per opcode: ran, took its jump, fell through, counted a reduction
	seen, jumped, fell, reduced map[vm.Opcode]bool
}

// opStep is an instruction about to run and the state before it.
type opStep struct {
	fn        *vm.Funcode
	pc        int32
	in        vm.Instr
	depth     int
	regs      []vm.Value
	red       int64
	belowCont bool // the frame below is a native's continuation
	// the location the instruction accesses (an object, array or List
	// and a field number or index), if any
	loc  any
	key  int64
	kind vm.AccessKind
}

// maxTraps bounds the instructions checked per program (a deep
// recursion would take long under the hook): the quick run checks the
// start of each, which already runs every opcode.
func maxTraps() int {
	if testmode.Full() {
		return 200_000
	}
	return 10_000
}

func (c *opChecker) run(name string, prog *vm.Program) {
	for _, fn := range prog.Funcs {
		for pc := range fn.Code {
			fn.SetTrap(int32(pc))
		}
	}
	var out bytes.Buffer
	m := vm.NewMachine(prog, strings.NewReader(""), &out, &out)
	m.FS = &vm.FSPolicy{Deny: true}
	m.MaxFrames = 2000
	m.Hook = c
	c.name, c.have, c.threw, c.traps, c.limit = name, false, false, 0, maxTraps()
	th := m.NewCallThread(prog.Main, nil)
	for i := 0; i < 1_000_000 && !th.Done(); i++ {
		if th.Run(1000) == vm.StopTrap {
			break // the limit of traps reached
		}
	}
}

// OnTrap implements vm.DebugHook: it checks the instruction that ran
// since the last trap and records the one about to run.
func (c *opChecker) OnTrap(t *vm.Thread, fn *vm.Funcode, pc int32) bool {
	c.traps++
	if c.traps > c.limit {
		return true
	}
	if c.have {
		c.check(t, fn, pc)
	}
	f := t.Frame(0)
	s := opStep{fn: fn, pc: pc, in: fn.Instr(pc), depth: t.Depth(), red: t.TrapReductions(),
		belowCont: t.Depth() > 1 && t.Frame(1).Fn.Cont}
	for r := range int32(fn.NumRegs) {
		s.regs = append(s.regs, *t.Reg(f, r))
	}
	c.locate(&s)
	c.prev, c.have = s, true
	return false
}

// OnThrow implements vm.ThrowHook: the instruction throwing must be one
// that may.
func (c *opChecker) OnThrow(t *vm.Thread, exc *vm.Object, caught bool) bool {
	c.threw = true
	f := t.Frame(0)
	if f.Fn.Cont || f.PC == 0 {
		return false
	}
	if in := f.Fn.Instr(f.PC - 1); !in.Op.Info().Is(vm.MayThrow) {
		c.tb.Errorf("%s: %s pc %d: %v threw %s but is not MayThrow", c.name, f.Fn.Name, f.PC-1, in.Op, vm.ExceptionString(exc))
	}
	return false
}

// locate records the location s's instruction accesses, checking that
// the registers its access names hold what its kind says.
func (c *opChecker) locate(s *opStep) {
	a := s.fn.AccessOf(s.in)
	if a.Kind == vm.NoAccess {
		return
	}
	obj := s.regs[s.in.Operand(a.Obj)].R
	if obj == nil {
		return // it throws
	}
	ok := false
	switch a.Kind {
	case vm.AccessField:
		o, isObj := obj.(*vm.Object)
		ok = isObj && int(s.in.Operand(a.Key)) < len(o.Fields)
		s.key = int64(s.in.Operand(a.Key))
	case vm.AccessArray:
		_, ok = obj.(*vm.Array)
		s.key = int64(s.regs[s.in.Operand(a.Key)].N)
	case vm.AccessList:
		_, ok = obj.(*vm.List)
		s.key = int64(s.regs[s.in.Operand(a.Key)].N)
	case vm.AccessCollection:
		switch obj.(type) {
		case *vm.List, *vm.Dict:
			ok = true
		}
	}
	if !ok {
		c.fail(*s, "accesses a %T (key %d) as %v", obj, s.key, a.Kind)
	}
	s.loc, s.kind = obj, a.Kind
}

// at reads the location of a step (ok false if out of range).
func (s *opStep) at() (vm.Value, bool) {
	switch x := s.loc.(type) {
	case *vm.Object:
		return x.Fields[s.key], true
	case *vm.Array:
		if s.key >= 0 && s.key < int64(len(x.Data)) {
			return x.Data[s.key], true
		}
	case *vm.List:
		if s.key >= 0 && s.key < int64(len(x.Data)) {
			return x.Data[s.key], true
		}
	}
	return vm.Value{}, false
}

func (c *opChecker) fail(s opStep, format string, args ...any) {
	c.tb.Helper()
	c.tb.Errorf("%s: %s pc %d: %s: "+format, append([]any{c.name, s.fn.Name, s.pc, s.fn.FormatInstr(s.pc)}, args...)...)
}

// check compares the state at the trap at pc of fn with the state before
// the previous instruction.
func (c *opChecker) check(t *vm.Thread, fn *vm.Funcode, pc int32) {
	p := c.prev
	op := p.in.Op
	i := op.Info()
	c.seen[op] = true
	red := t.TrapReductions() - p.red
	threw := c.threw
	c.threw = false
	if i.Is(vm.Returns) && p.belowCont {
		return // the continuation ran (uninstrumented) before this trap
	}
	if red > 0 {
		c.reduced[op] = true
		if !i.Is(vm.Safepoint) {
			c.fail(p, "counted %d reductions but is not a safepoint", red)
		}
	}
	if threw {
		return // the exception went to a handler or ended frames
	}
	depth := t.Depth()
	same := depth == p.depth && fn == p.fn
	var cur []vm.Value // the registers of p's frame now, if it is still there
	if depth >= p.depth && t.Frame(depth-p.depth).Fn == p.fn {
		f := t.Frame(depth - p.depth)
		for r := range int32(p.fn.NumRegs) {
			cur = append(cur, *t.Reg(f, r))
		}
	}
	// unchanged checks that the registers but those in keep are as
	// before
	unchanged := func(keep func(r int32) bool) {
		for r := range cur {
			if !keep(int32(r)) && !sameValue(cur[r], p.regs[r]) {
				c.fail(p, "changed r%d", r)
			}
		}
	}
	notA := func(r int32) bool { return i.Is(vm.SetsA) && r == p.in.A }
	switch {
	case i.Is(vm.Straight):
		if !same || pc != p.pc+1 {
			c.fail(p, "straight, but the thread went to %s pc %d (depth %d, was %d)", fn.Name, pc, depth, p.depth)
			return
		}
		unchanged(notA)
	case i.IsJump():
		target := p.in.Operand(i.Target)
		switch {
		case !same:
			c.fail(p, "a jump left the frame")
		case pc == target:
			c.jumped[op] = true
		case pc == p.pc+1 && !i.Is(vm.NoNext):
			c.fell[op] = true
		default:
			c.fail(p, "jumped to %d, want %d or the next pc", pc, target)
		}
		unchanged(func(int32) bool { return false })
	case i.Call != vm.NoCall:
		switch {
		case depth == p.depth+1 && pc == 0: // the callee's entry
		case same && pc == p.pc+1: // a native, or the callee returned
		case depth >= p.depth+2: // a native's continuation called NLang code
		default:
			c.fail(p, "a call went to %s pc %d (depth %d, was %d)", fn.Name, pc, depth, p.depth)
		}
		unchanged(func(r int32) bool { return r >= p.in.A || same && r == p.in.C })
	case i.Is(vm.Returns):
		if depth != p.depth-1 {
			c.fail(p, "a return left depth %d, was %d", depth, p.depth)
		}
	case i.Is(vm.RunsCode): // TOSTR: the next pc, or a toString's entry
		if !(same && pc == p.pc+1) && depth < p.depth+2 {
			c.fail(p, "went to %s pc %d (depth %d, was %d)", fn.Name, pc, depth, p.depth)
		}
		unchanged(notA)
	case i.Is(vm.NoNext):
		c.fail(p, "did not throw")
	default:
		c.fail(p, "no rule to check it by")
	}
	if p.loc != nil && p.kind != vm.AccessCollection && same && pc == p.pc+1 {
		a := p.fn.AccessOf(p.in)
		x := p.in.Operand(a.Val)
		want := vm.Value{N: uint64(int64(x))} // an immediate stored
		if i.Args[a.Val-1] == vm.Reg {
			want = cur[x]
		}
		if v, ok := p.at(); ok && !sameValue(v, want) {
			c.fail(p, "the location holds %v, operand %v is %v", v, a.Val, want)
		}
	}
}

// sameValue compares two register values by bits and reference.
func sameValue(a, b vm.Value) (same bool) {
	if a.N != b.N {
		return false
	}
	defer func() {
		if recover() != nil {
			same = true // an uncomparable reference: taken as equal
		}
	}()
	return a.R == b.R
}
