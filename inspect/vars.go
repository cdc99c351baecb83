package inspect

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// Load limits: what a Var shows of a value. Children are loaded lazily
// (one reference at a time, paged), so only summaries need bounds.
const (
	// MaxStringLen is the number of bytes of a string a Var shows; a
	// longer string is cut (with "…") and Var.Len holds its length.
	MaxStringLen = 200
	// maxNestedString bounds a string inside a summary.
	maxNestedString = 24
	// maxSummaryLen bounds a summary of an object's fields.
	maxSummaryLen = 80
	// maxSummaryFields is the number of fields a summary shows.
	maxSummaryFields = 4
)

// ReturnValueName is the name of the scope (and of its one entry) that
// shows, after a step out, the value the function returned.
const ReturnValueName = "Return value"

type nodeKind int

const (
	nodeValue nodeKind = iota // the children of a value
	nodeScope                 // the variables of a frame scope
	nodeList                  // a fixed list (a channel's buffer, waiters)
)

// node is what a variables reference stands for, until the program
// resumes. It holds live VM pointers, so it never leaves the package.
type node struct {
	kind  nodeKind
	t     *vm.Thread // the frame whose scope evaluates setVariable values
	depth int
	path  []pathEntry // the values from the root to this node (cycles)

	v    vm.Value // nodeValue
	typ  *vm.Type
	expr string // evaluate name of the value ("" if none)

	vars []vm.LocalVar // nodeScope

	items []child // nodeList; for nodeScope, shown before vars

	indexed bool
}

// pathEntry is a value on the path to a node and its reference.
type pathEntry struct {
	id  any
	ref int
}

// child is one child of a node before it becomes a Var: a value (typ
// set), or a fixed text with an optional list of children.
type child struct {
	name string
	v    vm.Value
	typ  *vm.Type
	expr string
	text string // replaces the value's summary if set
	list *node  // the children of a fixed text
	decl Place  // where the variable is declared, if it is one
}

// kids are the children of a node: n of them, the i-th made by at.
type kids struct {
	n  int
	at func(i int) child
}

func fixedKids(items []child) kids {
	return kids{n: len(items), at: func(i int) child { return items[i] }}
}

// addRef registers n and returns its variables reference.
func (s *Session) addRef(n *node) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.r.refs.add(n)
}

// node returns the node of a variables reference.
func (s *Session) node(ref int) (*node, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x, ok := s.r.refs.get(ref)
	n, _ := x.(*node)
	if !ok || n == nil {
		return nil, ErrBadRef
	}
	return n, nil
}

// Scopes returns the scopes of frame depth of a thread: after a step out
// (the top frame) "Return value" (what the function returned), "Locals"
// (the locals live at the frame's pc, without parameters and this),
// "Arguments" (the parameters) and, in methods, "this" (the receiver's
// fields).
func (s *Session) Scopes(threadID int64, depth int) (out []Scope, err error) {
	if err := s.checkInspect(); err != nil {
		return nil, err
	}
	t, err := s.thread(threadID)
	if err != nil {
		return nil, err
	}
	if depth < 0 || depth >= t.Depth() {
		return nil, ErrNoFrame
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("<unreadable: %v>", r)
		}
	}()
	this, params, locals := frameVars(t, depth)
	var extra []child
	s.mu.Lock()
	rv := s.r.retOf(t)
	s.mu.Unlock()
	if depth == 0 && rv != nil && rv.has {
		// after a step out: what the function returned
		extra = append(extra, child{name: ReturnValueName, v: rv.v, typ: rv.typ})
	}
	if extra != nil {
		out = append(out, Scope{Name: ReturnValueName, Ref: s.addRef(&node{kind: nodeScope, t: t, depth: depth, items: extra}), Count: 1})
	}
	out = append(out,
		Scope{Name: "Locals", Ref: s.addRef(&node{kind: nodeScope, t: t, depth: depth, vars: locals}), Count: len(locals)},
		Scope{Name: "Arguments", Ref: s.addRef(&node{kind: nodeScope, t: t, depth: depth, vars: params}), Count: len(params)})
	if this != nil {
		v := *t.Reg(t.Frame(depth), this.Reg)
		sc := Scope{Name: "this"}
		if o, ok := v.R.(*vm.Object); ok {
			n := &node{kind: nodeValue, t: t, depth: depth, v: v, typ: this.Type, expr: "this", path: []pathEntry{{id: o}}}
			sc.Ref = s.addRef(n)
			n.path[0].ref = sc.Ref
			sc.Count = len(o.Fields)
		} else { // an enum's method: the value itself
			items := []child{{name: "this", v: v, typ: this.Type, expr: "this"}}
			sc.Ref = s.addRef(&node{kind: nodeList, t: t, depth: depth, items: items})
			sc.Count = 1
		}
		out = append(out, sc)
	}
	return out, nil
}

// Variables returns the children of a reference from Scopes, Variables
// or Evaluate: count of them from start (count <= 0: all from start). A
// child that cannot be read has the Value "<unreadable: …>".
func (s *Session) Variables(ref int, start, count int) (vars []Var, err error) {
	if err := s.checkInspect(); err != nil {
		return nil, err
	}
	n, err := s.node(ref)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			vars, err = nil, fmt.Errorf("<unreadable: %v>", r)
		}
	}()
	k, err := s.kids(n)
	if err != nil {
		return nil, err
	}
	if start < 0 {
		start = 0
	}
	end := k.n
	if count > 0 && start+count < end {
		end = start + count
	}
	for i := start; i < end; i++ {
		if (i-start)%cancelEvery == cancelEvery-1 && s.cancelled() {
			return nil, ErrCancelled
		}
		vars = append(vars, s.childVar(n, k, i))
	}
	return vars, nil
}

// childVar makes the Var of child i of n, marking it unreadable if that
// fails.
func (s *Session) childVar(n *node, k kids, i int) (v Var) {
	defer func() {
		if r := recover(); r != nil {
			v = Var{Name: fmt.Sprintf("[%d]", i), Value: fmt.Sprintf("<unreadable: %v>", r)}
		}
	}()
	return s.makeVar(n, k.at(i))
}

// kids returns the children of n.
func (s *Session) kids(n *node) (kids, error) {
	switch n.kind {
	case nodeScope:
		if n.depth >= n.t.Depth() {
			return kids{}, ErrNoFrame
		}
		f := n.t.Frame(n.depth)
		return kids{n: len(n.items) + len(n.vars), at: func(i int) child {
			if i < len(n.items) {
				return n.items[i]
			}
			lv := n.vars[i-len(n.items)]
			return child{name: lv.Name, v: *n.t.Reg(f, lv.Reg), typ: lv.Type, expr: lv.Name, decl: localPlace(f.Fn, lv)}
		}}, nil
	case nodeList:
		return fixedKids(n.items), nil
	}
	return s.valueKids(n.v, n.expr), nil
}

// makeVar turns a child of parent into a Var; an expandable value gets a
// reference (the ancestor's own if the value is already on the path).
func (s *Session) makeVar(parent *node, c child) (out Var) {
	defer func() {
		if r := recover(); r != nil {
			out = Var{Name: c.name, Value: fmt.Sprintf("<unreadable: %v>", r)}
		}
	}()
	out = Var{Name: c.name, EvaluateName: c.expr}
	if c.typ == nil {
		out.Value = c.text
		if c.list != nil && len(c.list.items) > 0 {
			l := *c.list
			l.t, l.depth, l.path = parent.t, parent.depth, parent.path
			out.Ref = s.addRef(&l)
			if l.indexed {
				out.Indexed = len(l.items)
			} else {
				out.Named = len(l.items)
			}
		}
		return out
	}
	out.Type = s.typeName(c.v, c.typ)
	out.Decl = c.decl
	if c.v.R != nil && c.typ.Kind >= vm.KNull {
		out.MadeAt, _ = s.ValueMadeAt(c.v) // views.go
	}
	if c.text != "" {
		out.Value = c.text
	} else {
		out.Value, out.Len = s.summary(c.v, c.typ)
	}
	if c.typ.Kind < vm.KNull {
		// a number, bool, char or string has no children, whatever a
		// register reused from an earlier value still points to
		return out
	}
	id, named, indexed := s.shape(c.v)
	if id == nil || named+indexed == 0 {
		return out
	}
	out.Named, out.Indexed = named, indexed
	for _, p := range parent.path {
		if p.id == id {
			out.Ref = p.ref // a cycle: the same reference again
			return out
		}
	}
	n := &node{kind: nodeValue, t: parent.t, depth: parent.depth, v: c.v, typ: c.typ, expr: c.expr}
	n.path = append(append([]pathEntry(nil), parent.path...), pathEntry{id: id})
	out.Ref = s.addRef(n)
	n.path[len(n.path)-1].ref = out.Ref
	return out
}

// shape returns the identity of an expandable value and how many named
// and indexed children it has (id nil: not expandable).
func (s *Session) shape(v vm.Value) (id any, named, indexed int) {
	switch x := v.R.(type) {
	case *vm.Object:
		return x, len(x.Fields), 0
	case *vm.Array:
		return x, 0, len(x.Data)
	case *vm.List:
		return x, 0, len(x.Data)
	case *vm.Dict:
		return x, x.Len(), 0
	case sched.Primitive, *vm.Thread:
		return x, s.valueKids(v, "").n, 0
	}
	return nil, 0, 0
}

// valueKids returns the children of a value; expr is its evaluate name.
func (s *Session) valueKids(v vm.Value, expr string) kids {
	switch x := v.R.(type) {
	case *vm.Object:
		n := min(len(x.Class.Fields), len(x.Fields))
		return kids{n: n, at: func(i int) child {
			f := x.Class.Fields[i]
			return child{name: f.Name, v: x.Fields[i], typ: f.Type, expr: join(expr, "."+f.Name), decl: fieldPlace(f)}
		}}
	case *vm.Array:
		return seqKids(x.Data, x.Type.Elem, expr)
	case *vm.List:
		return seqKids(x.Data, x.Type.Elem, expr)
	case *vm.Dict:
		return kids{n: x.Len(), at: func(i int) child {
			name, kexpr := s.keyName(x.Keys[i], x.Type.Key)
			return child{name: name, v: x.Vals[i], typ: x.Type.Elem, expr: join(expr, kexpr)}
		}}
	case sched.Primitive:
		return fixedKids(s.primitiveKids(x.View(), expr))
	case *vm.Thread:
		return fixedKids(s.threadKids(x, expr))
	}
	return kids{}
}

// seqKids are the elements of an array or List, named "[i]".
func seqKids(data []vm.Value, elem *vm.Type, expr string) kids {
	return kids{n: len(data), at: func(i int) child {
		name := "[" + strconv.Itoa(i) + "]"
		return child{name: name, v: data[i], typ: elem, expr: join(expr, name)}
	}}
}

// primitiveKids shows the fields of a synchronisation object's View:
// its values (a channel's buffer as a list), the thread holding it and
// the threads parked on it.
func (s *Session) primitiveKids(fields []sched.Field, expr string) []child {
	var out []child
	for _, f := range fields {
		switch f.Kind {
		case sched.FieldValue:
			c := child{name: f.Name, v: f.Value, typ: f.Type}
			if f.Call != "" {
				c.expr = join(expr, f.Call)
			}
			out = append(out, c)
		case sched.FieldValues:
			l := &node{kind: nodeList, indexed: true}
			var preview []string
			for i, v := range f.Values {
				l.items = append(l.items, child{name: "[" + strconv.Itoa(i) + "]", v: v, typ: f.Type})
				preview = append(preview, s.brief(v, f.Type, 1))
			}
			out = append(out, child{name: f.Name, text: cut("["+strings.Join(preview, ", ")+"]", maxSummaryLen), list: l})
		case sched.FieldThread:
			c := child{name: f.Name, text: "null"}
			if f.Thread != nil {
				c = s.threadChild(f.Name, f.Thread, threadLabel(f.Thread))
			}
			out = append(out, c)
		case sched.FieldThreads:
			var extra func(i int) string
			if f.Values != nil {
				extra = func(i int) string {
					if i < len(f.Values) {
						return " (" + f.Offer + " " + s.brief(f.Values[i], f.Type, 1) + ")"
					}
					return ""
				}
			}
			out = append(out, s.threadList(f.Name, f.Threads, extra))
		}
	}
	return out
}

// threadKids shows a thread: id, name, state, wait reason, whether it
// is alive, and where it is.
func (s *Session) threadKids(t *vm.Thread, expr string) []child {
	ti := s.threadInfo(t)
	out := []child{
		{name: "id", v: vm.IntV(t.ID), typ: vm.Int, expr: join(expr, ".id()")},
		{name: "name", v: vm.StrV(t.Name), typ: vm.String, expr: join(expr, ".name()")},
		{name: "state", v: vm.StrV(ti.State), typ: vm.String},
		{name: "waitReason", v: vm.StrV(ti.WaitReason), typ: vm.String},
		{name: "alive", v: vm.BoolV(t.State != vm.Dead && !t.Done()), typ: vm.Bool, expr: join(expr, ".isAlive()")},
	}
	if ti.Func != "" {
		out = append(out,
			child{name: "function", v: vm.StrV(ti.Func), typ: vm.String},
			child{name: "line", v: vm.IntV(int64(ti.Line)), typ: vm.Int})
	}
	return out
}

// threadType is the NLang type Thread.
func (s *Session) threadType() *vm.Type {
	if s.lib != nil {
		if h := s.lib.HostTypes["Thread"]; h != nil {
			return vm.HostOf(h, nil)
		}
	}
	return vm.ObjectT
}

// threadLabel names a thread in lists: "[2] producer".
func threadLabel(t *vm.Thread) string { return fmt.Sprintf("[%d] %s", t.ID, t.Name) }

// threadChild is a thread value shown as text (its summary if empty).
func (s *Session) threadChild(name string, t *vm.Thread, text string) child {
	return child{name: name, v: vm.RefV(t), typ: s.threadType(), text: text}
}

// threadList is a list of threads shown as their labels ("none" if
// empty); extra adds to the label of the i-th.
func (s *Session) threadList(name string, ts []*vm.Thread, extra func(i int) string) child {
	if len(ts) == 0 {
		return child{name: name, text: "none"}
	}
	l := &node{kind: nodeList, indexed: true}
	var labels []string
	for i, t := range ts {
		label := threadLabel(t)
		if extra != nil {
			label += extra(i)
		}
		labels = append(labels, label)
		l.items = append(l.items, s.threadChild("["+strconv.Itoa(i)+"]", t, label))
	}
	return child{name: name, text: cut(strings.Join(labels, ", "), maxSummaryLen), list: l}
}

// keyName names a Dict entry by its key (`["a"]`, `[3]`) and returns the
// index expression that reads it ("" if the key has no literal form).
func (s *Session) keyName(k vm.Value, kt *vm.Type) (name, expr string) {
	switch {
	case kt.Kind == vm.KString:
		q := strconv.Quote(k.S())
		if len(k.S()) > maxNestedString {
			return "[" + quoteCut(k.S(), maxNestedString) + "]", "[" + q + "]"
		}
		return "[" + q + "]", "[" + q + "]"
	case kt.Kind == vm.KEnum:
		lit := scalarText(k.N, kt)
		if _, ok := kt.Class.EnumNames[int64(k.N)]; ok {
			return "[" + lit + "]", "[" + kt.Class.Name + "." + lit + "]"
		}
		return "[" + lit + "]", ""
	case kt.IsScalar():
		lit := scalarText(k.N, kt)
		return "[" + lit + "]", "[" + lit + "]"
	}
	return "[" + s.brief(k, kt, 1) + "]", ""
}

// typeName is the type shown for a value: its dynamic type where it has
// one, else its static type.
func (s *Session) typeName(v vm.Value, typ *vm.Type) string {
	if typ.IsScalar() {
		return typ.String()
	}
	switch x := v.R.(type) {
	case nil:
		return typ.String()
	case string:
		return "string"
	case *vm.Type:
		return x.String()
	case *vm.Object:
		return x.Class.Name
	case *vm.Array:
		return x.Type.String()
	case *vm.List:
		return x.Type.String()
	case *vm.Dict:
		return x.Type.String()
	case *vm.FuncVal:
		if x.Type != nil {
			return x.Type.String()
		}
	case *vm.Thread:
		return "Thread"
	}
	if typ.Kind == vm.KHost {
		return typ.String()
	}
	if x, ok := v.R.(sched.Primitive); ok {
		return x.TypeName()
	}
	return typ.String()
}

// summary renders a value for Var.Value; for a string cut to
// MaxStringLen it also returns the full length.
func (s *Session) summary(v vm.Value, typ *vm.Type) (string, int) {
	if x, ok := v.R.(string); ok && !typ.IsScalar() && len(x) > MaxStringLen {
		return quoteCut(x, MaxStringLen), len(x)
	}
	return s.brief(v, typ, 0), 0
}

// brief renders a value in one line as NLang prints it, without running
// user code: strings quoted, chars in quotes, enums by name, objects as
// "Point {x: 1, y: 2}" at level 0 and "Point {…}" inside summaries.
func (s *Session) brief(v vm.Value, typ *vm.Type, level int) string {
	if typ != nil && typ.IsScalar() {
		return scalarText(v.N, typ)
	}
	switch x := v.R.(type) {
	case nil:
		if typ != nil && typ.Kind == vm.KString {
			return `""`
		}
		return "null"
	case string:
		if level > 0 {
			return quoteCut(x, maxNestedString)
		}
		return quoteCut(x, MaxStringLen)
	case *vm.Type: // a boxed primitive
		return scalarText(v.N, x)
	case *vm.Object:
		return s.objectText(x, level)
	case *vm.Array:
		return fmt.Sprintf("%s[%d]", x.Type.Elem, len(x.Data))
	case *vm.List:
		return fmt.Sprintf("%s(len %d)", x.Type, len(x.Data))
	case *vm.Dict:
		return fmt.Sprintf("%s(len %d)", x.Type, x.Len())
	case *vm.FuncVal:
		return funcText(x)
	case *vm.Thread:
		return threadText(x)
	case fmt.Stringer: // Channel, Future, Mutex, …
		return x.String()
	}
	return fmt.Sprintf("%T", v.R)
}

// objectText renders an object: an exception as "Class: message", any
// other as its class and first fields (level 0) or "Class {…}".
func (s *Session) objectText(o *vm.Object, level int) string {
	if exc := s.prog.ClassByName("Exception"); exc != nil && o.Class.IsSubclassOf(exc) {
		return vm.ExceptionString(o)
	}
	if level > 0 {
		// Not "Class#id": Object.ID assigns ids lazily, and a debugger
		// that assigned them would change what the program prints.
		return o.Class.Name + " {…}"
	}
	var b strings.Builder
	b.WriteString(o.Class.Name + " {")
	n := min(len(o.Class.Fields), len(o.Fields))
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == maxSummaryFields || b.Len() > maxSummaryLen {
			b.WriteString("…")
			break
		}
		f := o.Class.Fields[i]
		b.WriteString(f.Name + ": " + s.brief(o.Fields[i], f.Type, level+1))
	}
	b.WriteString("}")
	return b.String()
}

// scalarText renders scalar bits: chars quoted, the rest as printed.
func scalarText(n uint64, t *vm.Type) string {
	if t.Kind == vm.KChar {
		return strconv.QuoteRune(rune(n))
	}
	return vm.FormatScalar(n, t)
}

// funcText renders a function value as NLang prints it.
func funcText(f *vm.FuncVal) string {
	switch {
	case f.Bound:
		name := f.Name
		if f.Fn != nil {
			name = f.Fn.Short
		} else if f.Native != nil {
			name = f.Native.Name
		}
		return "method " + name
	case f.Fn != nil:
		return "func <module>." + f.Fn.Name
	case f.Native != nil:
		return "func " + f.Native.Name
	}
	return "func"
}

// threadText renders a thread: "[2] producer (waiting: chan send)".
func threadText(t *vm.Thread) string {
	state := t.State.String()
	if t.State == vm.Waiting && t.WaitReason != "" {
		state += ": " + t.WaitReason
	}
	return threadLabel(t) + " (" + state + ")"
}

// quoteCut quotes the first max bytes of str (whole runes), marking a
// cut with "…" inside the quotes.
func quoteCut(str string, max int) string {
	if len(str) <= max {
		return strconv.Quote(str)
	}
	end := max
	for end > 0 && !utf8.RuneStart(str[end]) {
		end--
	}
	q := strconv.Quote(str[:end])
	return q[:len(q)-1] + `…"`
}

// cut shortens a summary to about max bytes, ending it with "…".
func cut(str string, max int) string {
	if len(str) <= max {
		return str
	}
	end := max
	for end > 0 && !utf8.RuneStart(str[end]) {
		end--
	}
	return str[:end] + "…"
}
