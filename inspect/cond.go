package inspect

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// compiled is an expression compiled once for one pc of one function. The
// scope there (the receiver, the parameters, the locals live at the pc)
// is fixed, so a breakpoint's condition or log message is compiled when
// the breakpoint is set, and each hit only copies the registers the
// expression reads and runs it.
type compiled struct {
	fn   *vm.Funcode
	typ  *vm.Type
	regs []int32 // registers passed as arguments, in the order of the scope
}

// varsAt returns the scope at pc of fn (vm.Funcode.LocalsAt): the
// receiver (nil in functions), the parameters and the other locals live
// there, each in declaration order.
func varsAt(fn *vm.Funcode, pc int32) (this *vm.LocalVar, params, locals []vm.LocalVar) {
	for _, lv := range fn.LocalsAt(pc) {
		switch {
		case lv.IsParam && lv.Name == "this":
			this = &lv
		case lv.IsParam:
			params = append(params, lv)
		default:
			locals = append(locals, lv)
		}
	}
	return this, params, locals
}

// compileAt compiles a read-only expression (a condition or a log message
// part) for the top frame of a thread stopped at pc of fn.
func (s *Session) compileAt(fn *vm.Funcode, pc int32, expr string) (*compiled, error) {
	return compileIn(s.prog, fn, pc, expr)
}

// compileIn is compileAt in the scope of program prog.
func compileIn(prog *vm.Program, fn *vm.Funcode, pc int32, expr string) (*compiled, error) {
	this, params, locals := varsAt(fn, pc)
	scope := compile.EvalScope{File: fn.File}
	var regs []int32
	if this != nil && fn.Class != nil {
		scope.This = fn.Class
		regs = append(regs, this.Reg)
	}
	for _, lv := range append(params, locals...) {
		scope.Locals = append(scope.Locals, compile.EvalLocal{Name: lv.Name, Type: lv.Type})
		regs = append(regs, lv.Reg)
	}
	cfn, typ, err := compile.CompileEval(prog, scope, expr)
	if err != nil {
		return nil, exprError(err)
	}
	if err := checkReadOnly(cfn); err != nil {
		return nil, err
	}
	return &compiled{fn: cfn, typ: typ, regs: regs}, nil
}

// run evaluates c in t's top frame.
func (s *Session) run(c *compiled, t *vm.Thread) (vm.Value, error) {
	f := t.Frame(0)
	var buf [8]vm.Value
	args := buf[:0]
	if len(c.regs) > len(buf) {
		args = make([]vm.Value, 0, len(c.regs))
	}
	for _, r := range c.regs {
		args = append(args, *t.Reg(f, r))
	}
	return s.runEvalOn(t.M, c.fn, args) // (the thread's machine: a re-execution's too)
}

// logPart is a piece of a log message: literal text, or an expression
// ({expr}) compiled for each pc of the breakpoint.
type logPart struct {
	text string
	expr string
	at   map[trapKey]*compiled
}

// parseLogMessage splits a log message into text and {expr} parts ({{
// and }} are literal braces).
func parseLogMessage(msg string) ([]logPart, error) {
	var parts []logPart
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			parts = append(parts, logPart{text: b.String()})
			b.Reset()
		}
	}
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		switch {
		case c == '{' && i+1 < len(msg) && msg[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(msg) && msg[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(msg[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("log message: unclosed { at column %d (write {{ for a brace)", i+1)
			}
			flush()
			expr := strings.TrimSpace(msg[i+1 : i+end])
			if expr == "" {
				return nil, fmt.Errorf("log message: empty {} at column %d", i+1)
			}
			parts = append(parts, logPart{expr: expr, at: map[trapKey]*compiled{}})
			i += end
		default:
			b.WriteByte(c)
		}
	}
	flush()
	return parts, nil
}

// prepare compiles b's condition and log message for each of its pcs.
// An error says why the breakpoint cannot be set, in the user's words.
func (s *Session) prepare(b *bp) error {
	if b.logMsg != "" && b.logParts == nil {
		parts, err := parseLogMessage(b.logMsg)
		if err != nil {
			return err
		}
		b.logParts = parts
	}
	if b.cond != "" && b.conds == nil {
		b.conds = map[trapKey]*compiled{}
	}
	for _, pc := range append([]int32{b.pc}, b.also...) {
		k := trapKey{b.fn, pc}
		if b.cond != "" {
			c, err := s.compileAt(b.fn, pc, b.cond)
			if err != nil {
				return fmt.Errorf("condition %q: %v", b.cond, err)
			}
			if c.typ != vm.Bool {
				return fmt.Errorf("condition %q is %s, not bool", b.cond, c.typ)
			}
			b.conds[k] = c
		}
		for i := range b.logParts {
			p := &b.logParts[i]
			if p.expr == "" {
				continue
			}
			c, err := s.compileAt(b.fn, pc, p.expr)
			if err != nil {
				return fmt.Errorf("log message {%s}: %v", p.expr, err)
			}
			if c.typ == vm.Void {
				return fmt.Errorf("log message {%s}: the expression has no value", p.expr)
			}
			p.at[k] = c
		}
	}
	return nil
}

// evalCond evaluates b's condition in t's top frame at k.
func (s *Session) evalCond(t *vm.Thread, b *bp, k trapKey) (bool, error) {
	c := b.conds[k]
	if c == nil {
		return false, fmt.Errorf("not compiled for this location")
	}
	v, err := s.run(c, t)
	if err != nil {
		return false, err
	}
	return v.B(), nil
}

// logText renders b's log message in t's top frame at k.
func (s *Session) logText(t *vm.Thread, b *bp, k trapKey) string {
	var out strings.Builder
	for _, p := range b.logParts {
		if p.expr == "" {
			out.WriteString(p.text)
			continue
		}
		c := p.at[k]
		if c == nil {
			fmt.Fprintf(&out, "<%s: not compiled for this location>", p.expr)
			continue
		}
		v, err := s.run(c, t)
		switch {
		case err != nil:
			fmt.Fprintf(&out, "<%s: %v>", p.expr, err)
		case c.typ == vm.String:
			out.WriteString(v.S())
		default:
			// rendered without running user code (no toString calls)
			out.WriteString(s.brief(v, c.typ, 0))
		}
	}
	return out.String()
}

// exprPosRE matches the position an expression's compile error starts
// with ("1:5: "): the expression is one line, so only the column counts.
var exprPosRE = regexp.MustCompile(`^1:(\d+): `)

// exprError words an expression's compile error for the user: "column 5:
// expected expression" rather than "1:5: expected expression".
func exprError(err error) error {
	if m := exprPosRE.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("column %s: %s", m[1], err.Error()[len(m[0]):])
	}
	return err
}
