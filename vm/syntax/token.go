package syntax

// Token is a lexical token kind.
type Token int8

// Token kinds.
const (
	ILLEGAL Token = iota
	EOF

	IDENT  // name
	INT    // 123, 0xFF, 2e5
	FLOAT  // 1.5, .5, 2.5e-3, 1.5f
	CHAR   // 'a'
	STRING // "text" (may contain ${name} interpolations)

	// operators and punctuation
	PLUS      // +
	MINUS     // -
	STAR      // *
	SLASH     // /
	PERCENT   // %
	LT        // <
	GT        // >
	LE        // <=
	GE        // >=
	EQL       // ==
	NEQ       // !=
	ANDAND    // &&
	OROR      // ||
	NOT       // !
	ASSIGN    // =
	PLUSEQ    // +=
	MINUSEQ   // -=
	STAREQ    // *=
	SLASHEQ   // /=
	PERCENTEQ // %=
	DOT       // .
	COMMA     // ,
	SEMI      // ;
	COLON     // :
	LPAREN    // (
	RPAREN    // )
	LBRACE    // {
	RBRACE    // }
	LBRACK    // [
	RBRACK    // ]
	BRACKETS  // [] (array type suffix, one token)

	// lexed but without grammar productions
	INC    // ++
	DEC    // --
	SHL    // <<
	SHR    // >>
	TILDEQ // ~=
	ANDEQ  // &=
	OREQ   // |=
	AMP    // &
	PIPE   // |
	CARET  // ^
	TILDE  // ~

	// keywords
	keywordStart
	AS
	ASSERT
	BOOL
	BREAK
	BYTE
	CASE
	CATCH
	CHARKW
	CLASS
	CONST
	CONTINUE
	DEFAULT
	DO
	DOUBLE
	ELSE
	ELSEIF
	ENUM
	FALSE
	FINALLY
	FLOATKW
	FOR
	FOREACH
	IF
	IMPLEMENTS
	IMPORT
	IN
	INTKW
	INTERFACE
	LONG
	NAMESPACE
	NATIVE
	NEW
	NULL
	OUT
	PRIVATE
	PROTECTED
	PUBLIC
	RETURN
	SHORT
	STATE
	STATIC
	STRINGKW
	STRUCT
	SUPER
	SWITCH
	THIS
	THROW
	TRUE
	TRY
	UBYTE
	UINT
	ULONG
	USHORT
	USING
	VIRTUAL
	VOID
	WHILE
	keywordEnd
)

var tokenNames = [...]string{
	ILLEGAL:    "illegal token",
	EOF:        "end of file",
	IDENT:      "identifier",
	INT:        "integer literal",
	FLOAT:      "floating literal",
	CHAR:       "char literal",
	STRING:     "string literal",
	PLUS:       "+",
	MINUS:      "-",
	STAR:       "*",
	SLASH:      "/",
	PERCENT:    "%",
	LT:         "<",
	GT:         ">",
	LE:         "<=",
	GE:         ">=",
	EQL:        "==",
	NEQ:        "!=",
	ANDAND:     "&&",
	OROR:       "||",
	NOT:        "!",
	ASSIGN:     "=",
	PLUSEQ:     "+=",
	MINUSEQ:    "-=",
	STAREQ:     "*=",
	SLASHEQ:    "/=",
	PERCENTEQ:  "%=",
	DOT:        ".",
	COMMA:      ",",
	SEMI:       ";",
	COLON:      ":",
	LPAREN:     "(",
	RPAREN:     ")",
	LBRACE:     "{",
	RBRACE:     "}",
	LBRACK:     "[",
	RBRACK:     "]",
	BRACKETS:   "[]",
	INC:        "++",
	DEC:        "--",
	SHL:        "<<",
	SHR:        ">>",
	TILDEQ:     "~=",
	ANDEQ:      "&=",
	OREQ:       "|=",
	AMP:        "&",
	PIPE:       "|",
	CARET:      "^",
	TILDE:      "~",
	AS:         "as",
	ASSERT:     "assert",
	BOOL:       "bool",
	BREAK:      "break",
	BYTE:       "byte",
	CASE:       "case",
	CATCH:      "catch",
	CHARKW:     "char",
	CLASS:      "class",
	CONST:      "const",
	CONTINUE:   "continue",
	DEFAULT:    "default",
	DO:         "do",
	DOUBLE:     "double",
	ELSE:       "else",
	ELSEIF:     "elseif",
	ENUM:       "enum",
	FALSE:      "false",
	FINALLY:    "finally",
	FLOATKW:    "float",
	FOR:        "for",
	FOREACH:    "foreach",
	IF:         "if",
	IMPLEMENTS: "implements",
	IMPORT:     "import",
	IN:         "in",
	INTKW:      "int",
	INTERFACE:  "interface",
	LONG:       "long",
	NAMESPACE:  "namespace",
	NATIVE:     "native",
	NEW:        "new",
	NULL:       "null",
	OUT:        "out",
	PRIVATE:    "private",
	PROTECTED:  "protected",
	PUBLIC:     "public",
	RETURN:     "return",
	SHORT:      "short",
	STATE:      "state",
	STATIC:     "static",
	STRINGKW:   "string",
	STRUCT:     "struct",
	SUPER:      "super",
	SWITCH:     "switch",
	THIS:       "this",
	THROW:      "throw",
	TRUE:       "true",
	TRY:        "try",
	UBYTE:      "ubyte",
	UINT:       "uint",
	ULONG:      "ulong",
	USHORT:     "ushort",
	USING:      "using",
	VIRTUAL:    "virtual",
	VOID:       "void",
	WHILE:      "while",
}

// String returns the token's spelling (operators, keywords) or a description.
func (t Token) String() string {
	if int(t) < len(tokenNames) && tokenNames[t] != "" {
		return tokenNames[t]
	}
	return "token"
}

// IsKeyword reports whether t is a keyword.
func (t Token) IsKeyword() bool { return t > keywordStart && t < keywordEnd }

var keywords = func() map[string]Token {
	m := make(map[string]Token)
	for t := keywordStart + 1; t < keywordEnd; t++ {
		m[tokenNames[t]] = t
	}
	return m
}()

// primitiveTypes are the keyword type names (usable where a type is expected).
var primitiveTypes = map[Token]bool{
	BOOL: true, BYTE: true, CHARKW: true, DOUBLE: true, FLOATKW: true,
	INTKW: true, LONG: true, SHORT: true, STRINGKW: true, UBYTE: true,
	UINT: true, ULONG: true, USHORT: true, VOID: true,
}

// GenericTypeNames are the built-in type names after which `<` opens a
// type-argument list.
var GenericTypeNames = map[string]bool{
	"List": true, "Dict": true, "Func": true, "func": true,
	"Channel": true, "Future": true,
}
