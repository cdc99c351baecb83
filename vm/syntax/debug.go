package syntax

import (
	"fmt"
	"strconv"
	"strings"
)

// String renders the type as written: `int`, `List<int>`, `Func<void, out int>`,
// `Point[][]`.
func (t *TypeExpr) String() string {
	if t == nil {
		return "<nil>"
	}
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *TypeExpr) write(b *strings.Builder) {
	b.WriteString(t.Name)
	if len(t.Args) > 0 {
		b.WriteByte('<')
		for i, a := range t.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			if i < len(t.ArgOut) && t.ArgOut[i] {
				b.WriteString("out ")
			}
			a.write(b)
		}
		b.WriteByte('>')
	}
	for i := 0; i < t.Dims; i++ {
		b.WriteString("[]")
	}
}

// String returns "line:col".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// DumpFile renders a parsed file as S-expressions, one top-level item per
// line (see Dump).
func DumpFile(f *File) string {
	var lines []string
	for _, imp := range f.Imports {
		path := strings.Join(imp.Path, ".")
		if imp.Star {
			path += ".*"
		}
		lines = append(lines, "(import "+path+")")
	}
	for _, a := range f.Aliases {
		lines = append(lines, "(using "+a.Name+" "+a.Type.String()+")")
	}
	for _, d := range f.Decls {
		lines = append(lines, Dump(d))
	}
	return strings.Join(lines, "\n")
}

// Dump renders a node as a compact, single-line S-expression, for tests
// and debugging: `(+ a (* b 2))`, `(if c (block (return 1)) _)`. Literals
// appear as written (strings and chars quoted Go-style), types as in
// TypeExpr.String, a missing optional part as `_`.
func Dump(n Node) string {
	var d dumper
	d.node(n)
	return d.String()
}

// maxDumpDepth bounds the nesting Dump renders (deeper parts print as
// `…`): a chain of operators can be as deep as its source is long.
const maxDumpDepth = 500

type dumper struct {
	strings.Builder
	depth int
}

func (d *dumper) list(head string, parts ...func()) {
	d.WriteString("(" + head)
	for i, f := range parts {
		if i > 0 || head != "" {
			d.WriteByte(' ')
		}
		f()
	}
	d.WriteByte(')')
}

func (d *dumper) str(s string) func() { return func() { d.WriteString(s) } }

func (d *dumper) n(x Node) func() { return func() { d.node(x) } }

func (d *dumper) opt(x Node) func() {
	return func() {
		if x == nil {
			d.WriteString("_")
		} else {
			d.node(x)
		}
	}
}

func mods(m Modifiers) string {
	var s []string
	if m.Access != "" {
		s = append(s, m.Access)
	}
	if m.Static {
		s = append(s, "static")
	}
	if m.Virtual {
		s = append(s, "virtual")
	}
	if m.Native {
		s = append(s, "native")
	}
	if m.Const {
		s = append(s, "const")
	}
	return strings.Join(s, " ")
}

func (d *dumper) args(args []*Arg) []func() {
	var fs []func()
	for _, a := range args {
		fs = append(fs, func() {
			switch {
			case a.Out:
				d.list("out", d.n(a.X))
			case a.Name != "":
				d.list("= "+a.Name, d.n(a.X))
			default:
				d.node(a.X)
			}
		})
	}
	return fs
}

func (d *dumper) stmts(list []Stmt) []func() {
	var fs []func()
	for _, s := range list {
		fs = append(fs, d.n(s))
	}
	return fs
}

func (d *dumper) fn(f *FuncDecl) {
	var parts []func()
	if m := mods(f.Mods); m != "" {
		parts = append(parts, d.str(m))
	}
	if f.Result != nil {
		parts = append(parts, d.str(f.Result.String()))
	}
	parts = append(parts, d.str(f.Name), func() {
		d.WriteByte('(')
		for i, p := range f.Params {
			if i > 0 {
				d.WriteByte(' ')
			}
			var ps []func()
			if p.Out {
				ps = append(ps, d.str("out"))
			}
			ps = append(ps, d.str(p.Type.String()), d.str(p.Name))
			if p.Default != nil {
				ps = append(ps, d.str("="), d.n(p.Default))
			}
			d.WriteByte('(')
			for j, f := range ps {
				if j > 0 {
					d.WriteByte(' ')
				}
				f()
			}
			d.WriteByte(')')
		}
		d.WriteByte(')')
	})
	if f.Body == nil {
		parts = append(parts, d.str(";"))
	} else {
		parts = append(parts, d.n(f.Body))
	}
	d.list("func", parts...)
}

func (d *dumper) field(f *FieldDecl) {
	var parts []func()
	if m := mods(f.Mods); m != "" {
		parts = append(parts, d.str(m))
	}
	parts = append(parts, d.str(f.Type.String()), d.str(f.Name))
	if f.Init != nil {
		parts = append(parts, d.n(f.Init))
	}
	d.list("field", parts...)
}

func (d *dumper) node(n Node) {
	if n == nil {
		d.WriteString("_")
		return
	}
	if d.depth >= maxDumpDepth {
		d.WriteString("…")
		return
	}
	d.depth++
	defer func() { d.depth-- }()
	switch n := n.(type) {
	// declarations
	case *FuncDecl:
		d.fn(n)
	case *ClassDecl:
		head := "class "
		if n.IsInterface {
			head = "interface "
		}
		head += n.Name
		if n.Base != "" {
			head += " : " + n.Base
		}
		if len(n.Implements) > 0 {
			head += " implements " + strings.Join(n.Implements, ",")
		}
		var parts []func()
		for _, f := range n.Fields {
			parts = append(parts, func() { d.field(f) })
		}
		for _, m := range n.Methods {
			parts = append(parts, func() { d.fn(m) })
		}
		d.list(head, parts...)
	case *StructDecl:
		var parts []func()
		for _, f := range n.Fields {
			parts = append(parts, func() { d.field(f) })
		}
		d.list("struct "+n.Name, parts...)
	case *EnumDecl:
		var parts []func()
		for _, m := range n.Members {
			if m.Value == nil {
				parts = append(parts, d.str(m.Name))
			} else {
				parts = append(parts, func() { d.list("= "+m.Name, d.n(m.Value)) })
			}
		}
		for _, m := range n.Methods {
			parts = append(parts, func() { d.fn(m) })
		}
		d.list("enum "+n.Name, parts...)

	// statements
	case *Block:
		d.list("block", d.stmts(n.Stmts)...)
	case *VarDecl:
		head := "var"
		if n.Const {
			head = "const"
		}
		parts := []func(){d.str(n.Type.String())}
		for _, it := range n.Items {
			if it.Init == nil {
				parts = append(parts, d.str(it.Name))
			} else {
				parts = append(parts, func() { d.list("= "+it.Name, d.n(it.Init)) })
			}
		}
		d.list(head, parts...)
	case *Assign:
		d.list(n.Op.String(), d.n(n.LHS), d.n(n.RHS))
	case *ExprStmt:
		d.node(n.X)
	case *If:
		d.list("if", d.n(n.Cond), d.n(n.Then), d.opt(n.Else))
	case *While:
		d.list("while", d.n(n.Cond), d.n(n.Body))
	case *DoWhile:
		d.list("do", d.n(n.Body), d.n(n.Cond))
	case *For:
		d.list("for", d.opt(n.Init), d.opt(n.Cond), d.opt(n.Step), d.n(n.Body))
	case *Foreach:
		d.list("foreach", d.str(n.Type.String()), d.str(n.Name), d.n(n.X), d.n(n.Body))
	case *Switch:
		parts := []func(){d.n(n.X)}
		for _, c := range n.Cases {
			parts = append(parts, func() {
				if c.Labels == nil {
					d.list("default", d.stmts(c.Body)...)
					return
				}
				var labels []func()
				for _, l := range c.Labels {
					labels = append(labels, d.n(l))
				}
				d.list("case", append([]func(){func() { d.list("", labels...) }}, d.stmts(c.Body)...)...)
			})
		}
		d.list("switch", parts...)
	case *Break:
		d.WriteString("break")
	case *Continue:
		d.WriteString("continue")
	case *Return:
		if n.X == nil {
			d.WriteString("(return)")
		} else {
			d.list("return", d.n(n.X))
		}
	case *Try:
		parts := []func(){d.n(n.Body)}
		for _, c := range n.Catches {
			parts = append(parts, func() { d.list("catch", d.str(c.Type.String()), d.str(c.Name), d.n(c.Body)) })
		}
		if n.Finally != nil {
			parts = append(parts, func() { d.list("finally", d.n(n.Finally)) })
		}
		d.list("try", parts...)
	case *Throw:
		if n.X == nil {
			d.WriteString("(throw)")
		} else {
			d.list("throw", d.n(n.X))
		}
	case *Assert:
		d.list("assert", d.n(n.Cond))
	case *SuperCall:
		d.list("super", d.args(n.Args)...)
	case *Empty:
		d.WriteString(";")

	// expressions
	case *Ident:
		d.WriteString(n.Name)
	case *IntLit:
		d.WriteString(n.Raw)
		if n.Overflow {
			d.WriteString("!overflow")
		}
	case *FloatLit:
		d.WriteString(n.Raw)
	case *StringLit:
		d.WriteString(strconv.Quote(n.Value))
	case *CharLit:
		d.WriteString(strconv.QuoteRune(n.Value))
	case *BoolLit:
		d.WriteString(strconv.FormatBool(n.Value))
	case *NullLit:
		d.WriteString("null")
	case *This:
		d.WriteString("this")
	case *Binary:
		d.list(n.Op.String(), d.n(n.X), d.n(n.Y))
	case *Unary:
		d.list(n.Op.String(), d.n(n.X))
	case *Cast:
		d.list("as", d.n(n.X), d.str(n.Type.String()))
	case *Member:
		d.list(".", d.n(n.X), d.str(n.Name))
	case *Call:
		d.list("call", append([]func(){d.n(n.Fun)}, d.args(n.Args)...)...)
	case *Index:
		d.list("index", d.n(n.X), d.n(n.Index))
	case *ArrayLit:
		var parts []func()
		for _, e := range n.Elems {
			parts = append(parts, d.n(e))
		}
		d.list("array", parts...)
	case *New:
		parts := []func(){d.str(n.Type.String())}
		switch {
		case n.Len != nil:
			parts = append(parts, func() { d.list("len", d.n(n.Len)) })
		case n.Init == nil:
			parts = append(parts, func() { d.list("args", d.args(n.Args)...) })
		}
		if n.Init != nil {
			parts = append(parts, d.n(n.Init))
		}
		d.list("new", parts...)
	case *InitList:
		var parts []func()
		for _, e := range n.Entries {
			if e.Key == nil {
				parts = append(parts, d.n(e.Value))
			} else {
				parts = append(parts, func() { d.list(":", d.n(e.Key), d.n(e.Value)) })
			}
		}
		d.list("init", parts...)
	default:
		fmt.Fprintf(d, "<%T>", n)
	}
}
