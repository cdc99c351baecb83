package syntax

import (
	"strings"
	"testing"
)

// TestFormatErrorsLongLine: an error on a huge line shows a window
// around the caret, not the whole line, and the caret points at the
// same character.
func TestFormatErrorsLongLine(t *testing.T) {
	line := strings.Repeat("a", 500000) + "X" + strings.Repeat("b", 500000)
	col := 500001
	e := &Error{File: "big.n", Pos: Pos{Line: 1, Col: int32(col)}, Msg: "bad"}
	out := FormatErrors(e, []byte(line+"\n"))
	if len(out) > 400 {
		t.Fatalf("report of %d bytes for a 1 MB line", len(out))
	}
	lines := strings.Split(out, "\n")
	if lines[0] != "big.n:1:500001: bad" || !strings.HasPrefix(lines[1], "...") || !strings.HasSuffix(lines[1], "...") {
		t.Fatalf("report:\n%s", out)
	}
	caret := strings.Index(lines[2], "^")
	if caret < 0 || lines[1][caret] != 'X' {
		t.Fatalf("caret at %d does not point at X:\n%s", caret, out)
	}
	// Near the start: no leading "...", the caret unmoved.
	short := strings.Repeat("c", 10) + "X" + strings.Repeat("d", 1000)
	out = FormatErrors(&Error{File: "s.n", Pos: Pos{Line: 1, Col: 11}, Msg: "bad"}, []byte(short))
	lines = strings.Split(out, "\n")
	if strings.HasPrefix(lines[1], "...") || strings.Index(lines[2], "^") != 10 || lines[1][10] != 'X' {
		t.Fatalf("report:\n%s", out)
	}
	// Past the end of a long line.
	out = FormatErrors(&Error{File: "e.n", Pos: Pos{Line: 1, Col: int32(len(short) + 1)}, Msg: "eof"}, []byte(short))
	if lines = strings.Split(out, "\n"); strings.Index(lines[2], "^") != len(lines[1]) {
		t.Fatalf("report:\n%s", out)
	}
}
