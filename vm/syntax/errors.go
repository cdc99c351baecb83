package syntax

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Error is a diagnostic at a source position. The parser creates them for
// lexical and syntax errors; later stages (the compiler) create them for
// type errors too.
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

// Error returns "file:line:col: msg" (parts that are unknown are left out).
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(":")
	}
	if e.Pos.IsValid() {
		fmt.Fprintf(&b, "%d:%d:", e.Pos.Line, e.Pos.Col)
	}
	if b.Len() > 0 {
		b.WriteString(" ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is a list of *Error. The zero value is an empty list ready to
// use. It implements error and sort.Interface.
type ErrorList []*Error

// Add appends an error with the given file, position and message.
func (l *ErrorList) Add(file string, pos Pos, msg string) {
	*l = append(*l, &Error{File: file, Pos: pos, Msg: msg})
}

// Reset empties the list.
func (l *ErrorList) Reset() { *l = (*l)[:0] }

// Len implements sort.Interface.
func (l ErrorList) Len() int { return len(l) }

// Swap implements sort.Interface.
func (l ErrorList) Swap(i, j int) { l[i], l[j] = l[j], l[i] }

// Less implements sort.Interface: by file, then line, then column, then
// message.
func (l ErrorList) Less(i, j int) bool {
	a, b := l[i], l[j]
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Pos.Line != b.Pos.Line {
		return a.Pos.Line < b.Pos.Line
	}
	if a.Pos.Col != b.Pos.Col {
		return a.Pos.Col < b.Pos.Col
	}
	return a.Msg < b.Msg
}

// Sort sorts the list by position (stable, so errors at one position keep
// the order in which they were reported).
func (l ErrorList) Sort() { sort.Stable(l) }

// RemoveDuplicates sorts the list and removes errors that repeat both the
// position and the message of an earlier one.
func (l *ErrorList) RemoveDuplicates() {
	l.Sort()
	out := (*l)[:0]
	for i, e := range *l {
		if i > 0 {
			prev := out[len(out)-1]
			if prev.File == e.File && prev.Pos == e.Pos && prev.Msg == e.Msg {
				continue
			}
		}
		out = append(out, e)
	}
	for i := len(out); i < len(*l); i++ {
		(*l)[i] = nil
	}
	*l = out
}

// RemoveMultiples sorts the list and keeps only the first error on each
// line of each file.
func (l *ErrorList) RemoveMultiples() {
	l.Sort()
	out := (*l)[:0]
	for i, e := range *l {
		if i > 0 {
			prev := out[len(out)-1]
			if prev.File == e.File && prev.Pos.Line == e.Pos.Line {
				continue
			}
		}
		out = append(out, e)
	}
	for i := len(out); i < len(*l); i++ {
		(*l)[i] = nil
	}
	*l = out
}

// Error joins the messages of all errors with newlines.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns nil if the list is empty, and the list itself otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// FormatErrors renders err for a terminal. Each *Error (err may be an
// ErrorList, an *Error or wrap either) becomes three lines: the
// "file:line:col: message" line, the source line from src, and a caret line
// pointing at the column (tabs in the source line's prefix are kept as tabs
// so the caret lines up; every other character counts as one column). When
// the position lies outside src only the message line is written. Any other
// error is rendered by its Error method. The result ends with a newline
// unless err is nil.
func FormatErrors(err error, src []byte) string {
	if err == nil {
		return ""
	}
	var list ErrorList
	var one *Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = ErrorList{one}
	default:
		return err.Error() + "\n"
	}
	var b strings.Builder
	for _, e := range list {
		b.WriteString(e.Error())
		b.WriteByte('\n')
		line, ok := sourceLine(src, int(e.Pos.Line))
		if !ok || e.Pos.Col < 1 {
			continue
		}
		col := int(e.Pos.Col)
		line, col = lineWindow(line, col)
		b.WriteString(strings.ToValidUTF8(line, "\uFFFD"))
		b.WriteByte('\n')
		prefix := line
		if c := col - 1; c < len(prefix) {
			prefix = prefix[:c]
		}
		for _, r := range prefix {
			if r == '\t' {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
		}
		if n := col - 1 - len(prefix); n > 0 {
			// column beyond the end of the line (e.g. at a newline)
			b.WriteString(strings.Repeat(" ", n))
		}
		b.WriteString("^\n")
	}
	return b.String()
}

// sourceLine returns line n (1-based) of src without its line terminator,
// as a string. A leading byte order mark is dropped (the scanner does not count it).
func sourceLine(src []byte, n int) (string, bool) {
	if n < 1 {
		return "", false
	}
	if n == 1 && len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		src = src[3:]
	}
	for i := 1; i < n; i++ {
		j := indexByte(src, '\n')
		if j < 0 {
			return "", false
		}
		src = src[j+1:]
	}
	if j := indexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	if len(src) > 0 && src[len(src)-1] == '\r' {
		src = src[:len(src)-1]
	}
	return string(src), true
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// windowHalf is how many bytes of a long source line an error shows on
// each side of its column.
const windowHalf = 60

// lineWindow cuts a line longer than a terminal's width down to a window
// around byte column col (1-based), marked with "..." where it was cut,
// and returns it with the column in it.
func lineWindow(line string, col int) (string, int) {
	if len(line) <= 2*windowHalf+20 {
		return line, col
	}
	start := min(max(col-1-windowHalf, 0), len(line))
	end := min(col-1+windowHalf, len(line))
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end++
	}
	w := line[start:end]
	if start > 0 {
		w = "..." + w
		col = col - start + 3
	}
	if end < len(line) {
		w += "..."
	}
	return w, col
}
