package syntax

// Pos is a position in a source file: 1-based line and column (in bytes).
type Pos struct {
	Line, Col int32
}

// IsValid reports whether p is a real position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Node is any syntax tree node.
type Node interface {
	// Start returns the position of the node's first token.
	Start() Pos
}

// File is one parsed source file.
type File struct {
	Name    string // file name as given to Parse
	Src     []byte
	Imports []*Import
	Aliases []*Alias
	Decls   []Decl // *FuncDecl, *ClassDecl, *StructDecl, *EnumDecl
}

// Import is `import a.b;` or `import a.*;`.
type Import struct {
	Pos  Pos
	Path []string
	Star bool
}

// Alias is `using Name = Type;`.
type Alias struct {
	Pos     Pos
	Name    string
	NamePos Pos
	Type    *TypeExpr
}

// TypeExpr is a written type: a name (a primitive keyword such as "int",
// "void", or an identifier such as "List" or "Point"), optional type
// arguments (for List, Dict, Func, Channel, Future) and array dimensions.
type TypeExpr struct {
	Pos  Pos
	Name string
	Args []*TypeExpr
	// ArgOut[i] reports whether Args[i] was written `out T` (Func parameters).
	ArgOut []bool
	Dims   int // number of `[]` suffixes
}

// Decl is a top-level declaration.
type Decl interface {
	Node
	declNode()
}

// Modifiers of a function or field.
type Modifiers struct {
	Access  string // "", "public", "private", "protected"
	Static  bool
	Virtual bool
	Native  bool
	Const   bool
}

// FuncDecl is a function, method, constructor or interface method signature.
// A constructor is a method whose Name equals its class name (Result may be
// nil when written without a return type, as in `Node(int v) { … }`).
type FuncDecl struct {
	Pos     Pos // position of the first token of the declaration
	Mods    Modifiers
	Result  *TypeExpr // nil for a constructor written without a type
	Name    string
	NamePos Pos
	Params  []*Param
	Body    *Block // nil for native functions and interface methods
}

// Param is one parameter: `[out] Type name [= default]`.
type Param struct {
	Pos     Pos
	Out     bool
	Type    *TypeExpr
	Name    string
	Default Expr // nil if none
}

// ClassDecl is a class or an interface (IsInterface).
type ClassDecl struct {
	Pos         Pos
	Name        string
	IsInterface bool
	Base        string // "" if none
	BasePos     Pos
	Implements  []string
	ImplPos     []Pos
	Fields      []*FieldDecl
	Methods     []*FuncDecl
}

// FieldDecl is one field of a class or struct: `[access] Type name [= init];`.
type FieldDecl struct {
	Pos  Pos
	Mods Modifiers
	Type *TypeExpr
	Name string
	Init Expr // nil if none
}

// StructDecl is `struct S { T f; … }`.
type StructDecl struct {
	Pos    Pos
	Name   string
	Fields []*FieldDecl
}

// EnumDecl is `enum E { A, B = 5; methods }`.
type EnumDecl struct {
	Pos     Pos
	Name    string
	Members []*EnumMember
	Methods []*FuncDecl
}

// EnumMember is one enum constant.
type EnumMember struct {
	Pos   Pos
	Name  string
	Value Expr // nil: previous + 1
}

func (d *FuncDecl) Start() Pos   { return d.Pos }
func (d *ClassDecl) Start() Pos  { return d.Pos }
func (d *StructDecl) Start() Pos { return d.Pos }
func (d *EnumDecl) Start() Pos   { return d.Pos }
func (*FuncDecl) declNode()      {}
func (*ClassDecl) declNode()     {}
func (*StructDecl) declNode()    {}
func (*EnumDecl) declNode()      {}

// ---- statements ----

// Stmt is a statement.
type Stmt interface {
	Node
	stmtNode()
}

// Block is `{ stmts }`.
type Block struct {
	Pos   Pos
	Stmts []Stmt
	End   Pos // position of the closing brace
}

// VarDecl declares locals: `[const] Type a = e, b;`.
type VarDecl struct {
	Pos   Pos
	Const bool
	Type  *TypeExpr
	Items []*VarItem
}

// VarItem is one declared name with its optional initializer.
type VarItem struct {
	Pos  Pos
	Name string
	Init Expr // nil if none
}

// Assign is `lhs op rhs;` where Op is one of = += -= *= /= %=.
// LHS is an *Ident, *Member or *Index.
type Assign struct {
	Pos Pos // position of the operator
	Op  Token
	LHS Expr
	RHS Expr
}

// ExprStmt is an expression used as a statement (a call).
type ExprStmt struct {
	X Expr
}

// If is `if (cond) then [else else]`.
type If struct {
	Pos  Pos
	Cond Expr
	Then Stmt
	Else Stmt // nil if none
}

// While is `while (cond) body`.
type While struct {
	Pos  Pos
	Cond Expr
	Body Stmt
}

// DoWhile is `do body while (cond);`.
type DoWhile struct {
	Pos  Pos
	Body Stmt
	Cond Expr
}

// For is `for (init; cond; step) body`. Init is a *VarDecl, *Assign,
// *ExprStmt or nil; Step is an *Assign, *ExprStmt or nil; Cond may be nil.
type For struct {
	Pos  Pos
	Init Stmt
	Cond Expr
	Step Stmt
	Body Stmt
}

// Foreach is `foreach (Type name in x) body`.
type Foreach struct {
	Pos     Pos
	Type    *TypeExpr
	Name    string
	NamePos Pos
	X       Expr
	Body    Stmt
}

// Switch is `switch (x) { case a, b: stmts … default: stmts }`.
type Switch struct {
	Pos   Pos
	X     Expr
	Cases []*Case
	End   Pos
}

// Case is one case clause; Labels is nil for `default`.
type Case struct {
	Pos    Pos
	Labels []Expr
	Body   []Stmt
}

// Break is `break;`.
type Break struct{ Pos Pos }

// Continue is `continue;`.
type Continue struct{ Pos Pos }

// Return is `return [x];`.
type Return struct {
	Pos Pos
	X   Expr // nil if none
}

// Try is `try body catch (T e) body … [finally body]`.
type Try struct {
	Pos     Pos
	Body    Stmt
	Catches []*Catch
	Finally Stmt // nil if none
}

// Catch is one catch clause.
type Catch struct {
	Pos     Pos
	Type    *TypeExpr
	Name    string
	NamePos Pos
	Body    Stmt
}

// Throw is `throw x;` or the rethrow `throw;` (X nil).
type Throw struct {
	Pos Pos
	X   Expr
}

// Assert is `assert(cond);`.
type Assert struct {
	Pos  Pos
	Cond Expr
}

// SuperCall is `super(args);` inside a constructor.
type SuperCall struct {
	Pos  Pos
	Args []*Arg
}

// Empty is the empty statement `;`.
type Empty struct{ Pos Pos }

func (s *Block) Start() Pos     { return s.Pos }
func (s *VarDecl) Start() Pos   { return s.Pos }
func (s *Assign) Start() Pos    { return s.LHS.Start() }
func (s *ExprStmt) Start() Pos  { return s.X.Start() }
func (s *If) Start() Pos        { return s.Pos }
func (s *While) Start() Pos     { return s.Pos }
func (s *DoWhile) Start() Pos   { return s.Pos }
func (s *For) Start() Pos       { return s.Pos }
func (s *Foreach) Start() Pos   { return s.Pos }
func (s *Switch) Start() Pos    { return s.Pos }
func (s *Break) Start() Pos     { return s.Pos }
func (s *Continue) Start() Pos  { return s.Pos }
func (s *Return) Start() Pos    { return s.Pos }
func (s *Try) Start() Pos       { return s.Pos }
func (s *Throw) Start() Pos     { return s.Pos }
func (s *Assert) Start() Pos    { return s.Pos }
func (s *SuperCall) Start() Pos { return s.Pos }
func (s *Empty) Start() Pos     { return s.Pos }
func (*Block) stmtNode()        {}
func (*VarDecl) stmtNode()      {}
func (*Assign) stmtNode()       {}
func (*ExprStmt) stmtNode()     {}
func (*If) stmtNode()           {}
func (*While) stmtNode()        {}
func (*DoWhile) stmtNode()      {}
func (*For) stmtNode()          {}
func (*Foreach) stmtNode()      {}
func (*Switch) stmtNode()       {}
func (*Break) stmtNode()        {}
func (*Continue) stmtNode()     {}
func (*Return) stmtNode()       {}
func (*Try) stmtNode()          {}
func (*Throw) stmtNode()        {}
func (*Assert) stmtNode()       {}
func (*SuperCall) stmtNode()    {}
func (*Empty) stmtNode()        {}

// ---- expressions ----

// Expr is an expression.
type Expr interface {
	Node
	exprNode()
}

// Ident is a name.
type Ident struct {
	Pos  Pos
	Name string
}

// IntLit is an integer literal. Value holds its value when it fits in 64
// unsigned bits; Overflow reports a literal beyond UINT64_MAX.
type IntLit struct {
	Pos      Pos
	Raw      string
	Value    uint64
	Overflow bool
}

// FloatLit is a floating literal; Float32 is set for the `f` suffix.
type FloatLit struct {
	Pos     Pos
	Raw     string
	Value   float64
	Float32 bool
}

// StringLit is a string literal after escape processing. Interpolated
// strings are desugared by the parser into *Binary `+` chains of
// *StringLit and *Ident.
type StringLit struct {
	Pos   Pos
	Value string
}

// CharLit is a char literal.
type CharLit struct {
	Pos   Pos
	Value rune
}

// BoolLit is `true` or `false`.
type BoolLit struct {
	Pos   Pos
	Value bool
}

// NullLit is `null`.
type NullLit struct{ Pos Pos }

// This is `this`.
type This struct{ Pos Pos }

// Binary is `x op y`; Op is one of || && == != < <= > >= + - * / %.
type Binary struct {
	Pos Pos // position of the operator
	Op  Token
	X   Expr
	Y   Expr
}

// Unary is `-x`, `+x` or `!x`.
type Unary struct {
	Pos Pos
	Op  Token
	X   Expr
}

// Cast is `x as T`.
type Cast struct {
	Pos  Pos // position of `as`
	X    Expr
	Type *TypeExpr
}

// Member is `x.name`.
type Member struct {
	X       Expr
	Name    string
	NamePos Pos
}

// Call is `fun(args)`; Fun is usually an *Ident or *Member.
type Call struct {
	Fun    Expr
	Lparen Pos
	Args   []*Arg
	Rparen Pos
}

// Arg is one call argument: positional, named (`name = x`) or `out x`.
type Arg struct {
	Pos  Pos
	Name string // named argument; "" if positional
	Out  bool
	X    Expr
}

// Index is `x[i]`.
type Index struct {
	X      Expr
	Lbrack Pos
	Index  Expr
}

// ArrayLit is `[a, b, c]` (typed by its target).
type ArrayLit struct {
	Pos   Pos
	Elems []Expr
}

// New is an object, collection or array creation:
//
//	new C(args)               Type=C, Args
//	new List<int>()           Type=List<int>, Args (empty)
//	new T[n]                  Type=T (Dims counts only the extra `[]`s), Len=n
//	new C{f: v} / new List<int>{1, 2} / new Dict<K,V>{"k": v}   Init
type New struct {
	Pos  Pos
	Type *TypeExpr
	Args []*Arg
	Len  Expr
	Init *InitList
}

// InitList is a braced initializer `{…}`. Used after `new T` and, on its
// own, as the target-typed initializer `T x = {};` (Type nil).
type InitList struct {
	Pos     Pos
	Entries []*InitEntry
	End     Pos
}

// InitEntry is `key: value` (Key is an *Ident for a field name or any
// expression for a Dict key) or a bare `value` (Key nil).
type InitEntry struct {
	Key   Expr
	Value Expr
}

func (e *Ident) Start() Pos     { return e.Pos }
func (e *IntLit) Start() Pos    { return e.Pos }
func (e *FloatLit) Start() Pos  { return e.Pos }
func (e *StringLit) Start() Pos { return e.Pos }
func (e *CharLit) Start() Pos   { return e.Pos }
func (e *BoolLit) Start() Pos   { return e.Pos }
func (e *NullLit) Start() Pos   { return e.Pos }
func (e *This) Start() Pos      { return e.Pos }
func (e *Binary) Start() Pos    { return leftmost(e) }
func (e *Unary) Start() Pos     { return e.Pos }
func (e *Cast) Start() Pos      { return leftmost(e) }
func (e *Member) Start() Pos    { return leftmost(e) }
func (e *Call) Start() Pos      { return leftmost(e) }
func (e *Index) Start() Pos     { return leftmost(e) }
func (e *ArrayLit) Start() Pos  { return e.Pos }
func (e *New) Start() Pos       { return e.Pos }
func (e *InitList) Start() Pos  { return e.Pos }

// leftmost returns the start of the leftmost operand of a chain of binary
// operators, casts, member accesses, calls and subscripts (a loop, not a
// recursion: such chains can be as long as the source).
func leftmost(e Expr) Pos {
	for {
		switch x := e.(type) {
		case *Binary:
			e = x.X
		case *Cast:
			e = x.X
		case *Member:
			e = x.X
		case *Call:
			e = x.Fun
		case *Index:
			e = x.X
		default:
			return e.Start()
		}
	}
}

func (*Ident) exprNode()     {}
func (*IntLit) exprNode()    {}
func (*FloatLit) exprNode()  {}
func (*StringLit) exprNode() {}
func (*CharLit) exprNode()   {}
func (*BoolLit) exprNode()   {}
func (*NullLit) exprNode()   {}
func (*This) exprNode()      {}
func (*Binary) exprNode()    {}
func (*Unary) exprNode()     {}
func (*Cast) exprNode()      {}
func (*Member) exprNode()    {}
func (*Call) exprNode()      {}
func (*Index) exprNode()     {}
func (*ArrayLit) exprNode()  {}
func (*New) exprNode()       {}
func (*InitList) exprNode()  {}
