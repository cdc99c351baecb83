package sched

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/vm"
)

// The compiler is not ready, so tests assemble tiny functions by hand.
// Conventions: every function has 16 registers; registers 10..15 are
// scratch for call arguments (fb.call copies the arguments there).

const scratch = 10

// Instantiated types the tests use.
var (
	threadT = vm.HostOf(threadHost, nil)
	chanT   = vm.HostOf(channelHost, []*vm.Type{vm.Int})
	futT    = vm.HostOf(futureHost, []*vm.Type{vm.Int})
)

// env is one program under test: its machine, scheduler and the log its
// threads write with the natives log (int) and logs (string).
type env struct {
	t      *testing.T
	prog   *vm.Program
	m      *vm.Machine
	s      *Scheduler
	clock  *VirtualClock
	stderr bytes.Buffer
	stdout bytes.Buffer
	log    []string
	logN   *vm.Native
	logS   *vm.Native
}

func newEnv(t *testing.T) *env {
	e := &env{t: t, prog: vm.NewProgram(), clock: &VirtualClock{}}
	exc := addClass(e.prog, "Exception", nil)
	for _, n := range []string{"ChannelClosedException", "IllegalStateException", "DeadlockException", "NullPointerException"} {
		addClass(e.prog, n, exc)
	}
	e.logN = &vm.Native{Name: "log", Sig: "void log(int v)", Fn: func(t *vm.Thread, args []vm.Value) (vm.Value, error) {
		e.log = append(e.log, fmt.Sprintf("%s:%d", t.Name(), args[0].I()))
		return vm.Value{}, nil
	}}
	e.logS = &vm.Native{Name: "logs", Sig: "void logs(string s)", Fn: func(t *vm.Thread, args []vm.Value) (vm.Value, error) {
		e.log = append(e.log, fmt.Sprintf("%s:%s", t.Name(), args[0].S()))
		return vm.Value{}, nil
	}}
	return e
}

func addClass(p *vm.Program, name string, base *vm.Class) *vm.Class {
	c := &vm.Class{Name: name, Base: base, File: "prelude.n", Fields: []*vm.Field{
		{Name: "message", Type: vm.String, Index: 0},
		{Name: "backtrace", Type: vm.ListOf(vm.String), Index: 1},
	}}
	for _, f := range c.Fields {
		f.Owner = c
	}
	p.AddClass(c)
	return c
}

// start finishes the program, makes the machine and scheduler and
// registers main.
func (e *env) start(main *fb, opts Options) *Scheduler {
	e.prog.Main = main.f
	e.prog.Finish()
	e.m = vm.NewMachine(e.prog, nil, &e.stdout, &e.stderr)
	if opts.Clock == nil {
		opts.Clock = e.clock
	}
	e.s = New(e.m, opts)
	e.s.Start(e.m.NewCallThread(main.f, nil))
	return e.s
}

// run starts main and runs the program to its end.
func (e *env) run(main *fb, opts Options) int {
	e.start(main, opts)
	return e.s.Run()
}

func (e *env) wantLog(want ...string) {
	e.t.Helper()
	if got := strings.Join(e.log, " "); got != strings.Join(want, " ") {
		e.t.Errorf("log:\n got %s\nwant %s", got, strings.Join(want, " "))
	}
}

// fb builds one function.
type fb struct {
	e *env
	f *vm.Funcode
}

// fn starts a function with nparams parameters in registers 0….
func (e *env) fn(name string, nparams int) *fb {
	f := &vm.Funcode{Name: name, Short: name, File: "test.n", Line: 1, NumParams: nparams, NumRegs: 16, VIndex: -1}
	for range nparams {
		f.Params = append(f.Params, vm.ObjectT)
	}
	e.prog.AddFunc(f)
	return &fb{e: e, f: f}
}

// fv returns a function value for the function.
func (b *fb) fv() vm.Value { return vm.RefV(&vm.FuncVal{Fn: b.f}) }

func (b *fb) pc() int32 { return int32(len(b.f.Code)) }

func (b *fb) op(op vm.Opcode, a, bb, c int32) int32 {
	b.f.Code = append(b.f.Code, vm.Instr{Op: op, A: a, B: bb, C: c})
	return b.pc() - 1
}

// line says that the code from here on is on source line n.
func (b *fb) line(n int32) *fb {
	b.f.Lines = append(b.f.Lines, vm.LineEntry{PC: b.pc(), Line: n, Stmt: true})
	return b
}

func (b *fb) loadi(r int32, v int32) *fb { b.op(vm.LOADI, r, v, 0); return b }

func (b *fb) loadk(r int32, v vm.Value) *fb {
	b.f.Consts = append(b.f.Consts, v)
	b.op(vm.LOADK, r, int32(len(b.f.Consts)-1), 0)
	return b
}

func (b *fb) move(dst, src int32) *fb { b.op(vm.MOVE, dst, src, 0); return b }

func (b *fb) addi(r, k int32) *fb { b.op(vm.ADDIK, r, r, k); return b }

// call calls native n with the values of registers args (copied to the
// scratch registers) and puts the result in dest; typ is the call
// site's type (NCall.Type).
func (b *fb) call(n *vm.Native, dest int32, typ *vm.Type, args ...int32) *fb {
	for i, r := range args {
		b.move(scratch+int32(i), r)
	}
	b.f.NCalls = append(b.f.NCalls, vm.NCall{Native: n, NArgs: len(args), Type: typ})
	b.op(vm.CALLN, scratch, int32(len(b.f.NCalls)-1), dest)
	return b
}

// callAt is call without copying: the arguments are already in
// registers base….
func (b *fb) callAt(n *vm.Native, dest, base int32, nargs int, typ *vm.Type) *fb {
	b.f.NCalls = append(b.f.NCalls, vm.NCall{Native: n, NArgs: nargs, Type: typ})
	b.op(vm.CALLN, base, int32(len(b.f.NCalls)-1), dest)
	return b
}

func (b *fb) log(r int32) *fb { return b.call(b.e.logN, 9, nil, r) }

func (b *fb) logs(s string) *fb {
	b.loadk(8, vm.StrV(s))
	return b.call(b.e.logS, 9, nil, 8)
}

// spawn spawns the function value in register f with args; the Thread or
// Future (per typ) goes to dest.
func (b *fb) spawn(dest int32, typ *vm.Type, f int32, args ...int32) *fb {
	return b.call(spawnNative, dest, typ, append([]int32{f}, args...)...)
}

func (b *fb) ret(r int32) *fb { b.op(vm.RET, r, 0, 0); return b }
func (b *fb) retv() *fb       { b.op(vm.RETV, 0, 0, 0); return b }

func (b *fb) ret0() *fb { return b.loadi(7, 0).ret(7) }

// forN emits `for (r = 0; r < n; r += 1) body` with a LOOP back-edge.
func (b *fb) forN(r, n int32, body func()) *fb {
	b.loadi(r, 0)
	b.loadi(6, n)
	head := b.pc()
	jmp := b.op(vm.JNLTI, r, 6, 0)
	body()
	b.addi(r, 1)
	b.loadi(6, n)
	b.op(vm.LOOP, head, 0, 0)
	b.f.Code[jmp].C = b.pc()
	return b
}

// try emits `try body catch (class e) handler`, the exception in
// register 5.
func (b *fb) try(class string, body, handler func()) *fb {
	start := b.pc()
	body()
	end := b.pc()
	jmp := b.op(vm.JMP, 0, 0, 0)
	c := b.e.prog.ClassByName(class)
	if c == nil {
		b.e.t.Fatalf("no class %s", class)
	}
	b.f.Handlers = append(b.f.Handlers, vm.Handler{StartPC: start, EndPC: end, Target: b.pc(), Reg: 5, Class: c})
	handler()
	b.f.Code[jmp].A = b.pc()
	return b
}

// Natives looked up by name.

func hostMethod(h *vm.HostType, name string) *vm.Native {
	for _, n := range h.Methods {
		if sigName(n.Sig) == name {
			return n
		}
	}
	panic("no method " + h.Name + "." + name)
}

func hostCtor(h *vm.HostType, sig string) *vm.Native {
	for _, n := range h.Ctors {
		if n.Sig == sig {
			return n
		}
	}
	panic("no constructor " + sig)
}

var (
	chanNew0   = hostCtor(channelHost, "Channel()")
	chanNewN   = hostCtor(channelHost, "Channel(int n)")
	chanSend   = hostMethod(channelHost, "send")
	chanRecv   = hostMethod(channelHost, "recv")
	chanTrySnd = hostMethod(channelHost, "trySend")
	chanTryRcv = hostMethod(channelHost, "tryRecv")
	chanClose  = hostMethod(channelHost, "close")
	chanLen    = hostMethod(channelHost, "length")
	mutexNew   = hostCtor(mutexHost, "Mutex()")
	mutexLock  = hostMethod(mutexHost, "lock")
	mutexUnl   = hostMethod(mutexHost, "unlock")
	mutexTry   = hostMethod(mutexHost, "tryLock")
	futGet     = hostMethod(futureHost, "get")
	futDone    = hostMethod(futureHost, "isDone")
	thrName    = hostMethod(threadHost, "name")
	thrSetName = hostMethod(threadHost, "setName")
	thrJoin    = hostMethod(threadHost, "join")
	thrAlive   = hostMethod(threadHost, "isAlive")
	thrID      = hostMethod(threadHost, "id")
)

// newChan emits `dest = new Channel<int>(n)` (n < 0: unbuffered form).
func (b *fb) newChan(dest, n int32) *fb {
	if n < 0 {
		return b.call(chanNew0, dest, chanT)
	}
	b.loadi(7, n)
	return b.call(chanNewN, dest, chanT, 7)
}

func (b *fb) send(ch int32, v int32) *fb {
	b.loadi(7, v)
	return b.call(chanSend, 9, nil, ch, 7)
}

func (b *fb) sleep(ms int32) *fb {
	b.loadi(7, ms)
	return b.call(sleepNative, 9, nil, 7)
}

func (b *fb) yield() *fb { return b.call(yieldNative, 9, nil) }

func (b *fb) join(th int32) *fb { return b.call(joinNative, 9, nil, th) }

// dispatchAll runs Dispatch until the program ends and returns the
// dispatch events.
func dispatchAll(t *testing.T, s *Scheduler) []Event {
	t.Helper()
	var evs []Event
	for range 10000 {
		ev := s.Dispatch()
		if ev.Kind == EventEnd {
			return evs
		}
		evs = append(evs, ev)
		if ev.Kind == EventIdle {
			if d, ok := s.untilNext(); ok {
				s.clock.Sleep(d, nil)
			}
		}
	}
	t.Fatal("program did not end")
	return nil
}

// untilNext is untilNextTimer for tests.
func (s *Scheduler) untilNext() (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.untilNextTimer()
}
