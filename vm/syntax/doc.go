// Package syntax is the front end of nlangdbg: it turns NLang source text
// into the syntax tree declared in ast.go.
//
// The scanner (scanner.go) reads UTF-8 source, skips comments and produces
// tokens; it decodes literals (escapes, surrogate pairs, integer ranges) and
// splits string literals into pieces for `${name}` interpolation. The parser
// (parser*.go) is a recursive-descent parser that builds the tree, desugars
// interpolated strings into `+` chains, and recovers from errors at
// statement and declaration boundaries so that a single run reports every
// error of a file (up to a limit).
//
// Every diagnostic is an *Error with a position (1-based line and byte
// column) and a lowercase message without a trailing period; Parse and
// ParseExpr return them collected in an ErrorList, sorted by position.
// FormatErrors renders them with the offending source line and a caret.
//
// The parser uses panics internally to abandon a broken construct, and
// recovers them at its API: a stray panic becomes an "internal error: …"
// diagnostic instead of crashing the caller.
package syntax
