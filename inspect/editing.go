package inspect

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
)

// Console and editing support: setExpression, completions and
// breakpoint locations.

// SetExpression assigns the value of the NLang expression value to the
// place expr names in frame depth of a thread: a local or parameter
// ("x"), a field ("p.x", "a.b.c"), an array or List element ("arr[i]")
// or a Dict entry ("d[\"k\"]", added if missing). The place's container
// and index are evaluated read-only; value may call functions (as in
// setVariable) and is converted to the place's type. It returns the new
// value.
func (s *Session) SetExpression(threadID int64, depth int, expr, value string) (out Var, err error) {
	defer s.quiet()() // (catchup.go)
	if err := s.checkInspect(); err != nil {
		return Var{}, err
	}
	defer func() { s.afterChange(err, "a variable was set") }() // a new future (reverse.go)
	t, err := s.evalThread(threadID)
	if err != nil {
		return Var{}, err
	}
	if depth < 0 || depth >= t.Depth() {
		return Var{}, ErrNoFrame
	}
	eval := func(want *vm.Type) (vm.Value, error) {
		v, _, err := s.evalAs(t, depth, value, want, true)
		return v, err
	}
	root := &node{t: t, depth: depth}
	expr = strings.TrimSpace(expr)
	base, member, index := splitPlace(expr)
	switch {
	case base == "" && isIdent(member):
		_, params, locals := frameVars(t, depth)
		for _, lv := range append(params, locals...) {
			if lv.Name == member {
				v, err := eval(lv.Type)
				if err != nil {
					return Var{}, err
				}
				*t.Reg(t.Frame(depth), lv.Reg) = v
				return s.makeVar(root, child{name: expr, v: v, typ: lv.Type, expr: expr}), nil
			}
		}
		if this, _, _ := frameVars(t, depth); this != nil {
			// a field of this by its bare name
			return s.setExpressionIn(t, depth, "this", member, "", expr, eval)
		}
		return Var{}, fmt.Errorf("no local %s here", member)
	case base != "":
		return s.setExpressionIn(t, depth, base, member, index, expr, eval)
	}
	return Var{}, fmt.Errorf("cannot assign to %s: want a local, a field (p.x), an element (a[i]) or a Dict entry (d[k])", expr)
}

// setExpressionIn assigns to member (a field) or [index] of the value of
// base.
func (s *Session) setExpressionIn(t *vm.Thread, depth int, base, member, index, expr string, eval func(*vm.Type) (vm.Value, error)) (Var, error) {
	cv, ctyp, err := s.evalInFrame(t, depth, base, false)
	if err != nil {
		return Var{}, err
	}
	n := &node{kind: nodeValue, t: t, depth: depth, v: cv, typ: ctyp, expr: pathExpr(base)}
	if cv.R == nil && !ctyp.IsScalar() {
		return Var{}, fmt.Errorf("cannot assign to %s: %s is null", expr, base)
	}
	if index == "" {
		if _, ok := cv.R.(*vm.Object); !ok {
			return Var{}, fmt.Errorf("%s is not an object (it is %s)", base, s.typeName(cv, ctyp))
		}
		out, err := s.setElem(n, member, eval)
		out.Name = expr
		return out, err
	}
	switch x := cv.R.(type) {
	case *vm.Array, *vm.List:
		iv, _, err := s.evalAs(t, depth, index, vm.Int, false)
		if err != nil {
			return Var{}, err
		}
		out, err := s.setElem(n, fmt.Sprintf("[%d]", int64(iv.I())), eval)
		out.Name = expr
		return out, err
	case *vm.Dict:
		k, _, err := s.evalAs(t, depth, index, x.Type.Key, false)
		if err != nil {
			return Var{}, err
		}
		v, err := eval(x.Type.Elem)
		if err != nil {
			return Var{}, err
		}
		x.Set(k, v)
		return s.makeVar(n, child{name: expr, v: v, typ: x.Type.Elem, expr: expr}), nil
	}
	return Var{}, fmt.Errorf("%s cannot be indexed (it is %s)", base, s.typeName(cv, ctyp))
}

// splitPlace splits an assignable expression into the expression of its
// container and the last access: ".member" or "[index]". A bare name has
// no base.
func splitPlace(expr string) (base, member, index string) {
	if strings.HasSuffix(expr, "]") {
		depth, quote := 0, byte(0)
		for i := len(expr) - 1; i >= 0; i-- {
			c := expr[i]
			switch {
			case quote != 0:
				if c == quote && (i == 0 || expr[i-1] != '\\') {
					quote = 0
				}
			case c == '"' || c == '\'':
				quote = c
			case c == ']':
				depth++
			case c == '[':
				depth--
				if depth == 0 {
					return strings.TrimSpace(expr[:i]), "", strings.TrimSpace(expr[i+1 : len(expr)-1])
				}
			}
		}
		return "", "", ""
	}
	if i := strings.LastIndexByte(expr, '.'); i > 0 && isIdent(strings.TrimSpace(expr[i+1:])) {
		return strings.TrimSpace(expr[:i]), strings.TrimSpace(expr[i+1:]), ""
	}
	return "", expr, ""
}

// isIdent reports whether s is an identifier.
func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// Completion is one completion of the text being typed.
type Completion struct {
	Label  string
	Type   string // "variable", "field", "method", "function", "class", "keyword" (a debugger command)
	Detail string
	// Start and Length are the bytes of the text the completion replaces
	// (the word before the cursor).
	Start, Length int
}

// Completions completes text at byte offset col (the cursor) in frame
// depth of a thread: after "expr." the fields and methods of expr's
// value (evaluated read-only), otherwise the locals, parameters, fields
// of this, functions and classes starting with the word typed. (The
// debug console's ':' commands are the DAP server's to complete.)
func (s *Session) Completions(threadID int64, depth int, text string, col int) ([]Completion, error) {
	if col < 0 || col > len(text) {
		col = len(text)
	}
	line := text[:col]
	start := col
	for start > 0 && (isIdent(line[start-1:start]) || line[start-1] >= '0' && line[start-1] <= '9') {
		start--
	}
	word := line[start:]
	var out []Completion
	add := func(label, typ, detail string) {
		if strings.HasPrefix(label, word) {
			out = append(out, Completion{Label: label, Type: typ, Detail: detail, Start: start, Length: len(word)})
		}
	}
	if err := s.checkInspect(); err != nil {
		return nil, err
	}
	t, err := s.evalThread(threadID)
	if err != nil {
		return nil, err
	}
	if depth < 0 || depth >= t.Depth() {
		return nil, ErrNoFrame
	}
	if start > 0 && line[start-1] == '.' {
		base := placeBefore(line[:start-1])
		if base == "" {
			return nil, nil
		}
		v, typ, err := s.evalInFrame(t, depth, base, false)
		if err != nil {
			return nil, nil // nothing to offer
		}
		s.memberCompletions(v, typ, add)
		return dedupe(out), nil
	}
	this, params, locals := frameVars(t, depth)
	for _, lv := range append(params, locals...) {
		add(lv.Name, "variable", lv.Type.String())
	}
	if this != nil {
		add("this", "variable", "")
		if c := t.Frame(depth).Fn.Class; c != nil {
			for _, fd := range c.Fields {
				add(fd.Name, "field", fd.Type.String())
			}
		}
	}
	for _, fn := range s.prog.Funcs {
		if fn.Class == nil && !strings.HasPrefix(fn.File, "<") && !fn.Cont && isIdent(fn.Name) {
			add(fn.Name, "function", "")
		}
	}
	for _, c := range s.prog.Classes {
		if !strings.HasPrefix(c.File, "<") && isIdent(c.Name) {
			add(c.Name, "class", "")
		}
	}
	return dedupe(out), nil
}

// memberCompletions offers the fields and methods of a value.
func (s *Session) memberCompletions(v vm.Value, typ *vm.Type, add func(label, typ, detail string)) {
	if o, ok := v.R.(*vm.Object); ok {
		for _, fd := range o.Class.Fields {
			add(fd.Name, "field", fd.Type.String())
		}
		var names []string
		for name := range o.Class.Methods {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if isIdent(name) {
				add(name, "method", "")
			}
		}
		return
	}
	if typ == nil {
		return
	}
	if typ.Kind == vm.KHost {
		if typ.Host != nil {
			for _, m := range typ.Host.Methods {
				add(m.Method(), "method", m.Sig)
			}
		}
		return
	}
	for _, m := range s.lib.Methods[vm.MethodKind(typ)] {
		add(m.Method(), "method", m.Sig)
	}
}

// placeBefore returns the access path that ends text ("a.b[2]" in "x +
// a.b[2]"), or "".
func placeBefore(text string) string {
	i := len(text)
	depth := 0
	for i > 0 {
		c := text[i-1]
		switch {
		case c == ']':
			depth++
		case c == '[':
			if depth == 0 {
				return strings.TrimSpace(text[i:])
			}
			depth--
		case depth > 0 || c == '.' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '"':
		default:
			return strings.TrimSpace(text[i:])
		}
		i--
	}
	return strings.TrimSpace(text)
}

// dedupe drops repeated labels, keeping the first.
func dedupe(list []Completion) []Completion {
	seen := map[string]bool{}
	out := list[:0]
	for _, c := range list {
		if !seen[c.Label] {
			seen[c.Label] = true
			out = append(out, c)
		}
	}
	return out
}

// Location is a position in a source file.
type Location struct{ Line, Col int }

// BreakpointLocations returns the statement starts of file on lines
// line to endLine (0: line), where a breakpoint can be placed, in order.
func (s *Session) BreakpointLocations(file string, line, endLine int) []Location {
	file = canonPath(file)
	if endLine < line {
		endLine = line
	}
	seen := map[Location]bool{}
	var out []Location
	for _, fn := range s.prog.Funcs {
		if canonPath(fn.File) != file {
			continue
		}
		for _, e := range stmtPCs(fn) {
			l := Location{int(e.Line), int(e.Col)}
			if l.Line >= line && l.Line <= endLine && !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Col < out[j].Col
	})
	return out
}
