package main

import (
	"reflect"
	"testing"
)

// TestTakeRaw: keys typed at the raw terminal just before the program got
// it are read as the cooked terminal reads them.
func TestTakeRaw(t *testing.T) {
	for _, c := range []struct {
		in         string
		lines      []string
		rest, echo string
		eof, intr  bool
	}{
		{in: ""},
		{in: "apple\r", lines: []string{"apple\n"}, echo: "apple\n"},
		{in: "a\rb\nc", lines: []string{"a\n", "b\n"}, rest: "c", echo: "a\nb\nc"},
		{in: "pex\x7far\r", lines: []string{"pear\n"}, echo: "pex\b \bar\n"},
		{in: "\x7f\x04", eof: true},
		{in: "ab\x04", rest: "ab", echo: "ab"},
		{in: "junk\x03x", rest: "x", intr: true, echo: "junk^C\nx"},
		{in: "\x1bq\tz\r", lines: []string{"q\tz\n"}, echo: "q\tz\n"},
	} {
		got := takeRaw([]byte(c.in))
		var lines []string
		for _, l := range got.lines {
			lines = append(lines, string(l))
		}
		if !reflect.DeepEqual(lines, c.lines) || string(got.rest) != c.rest || string(got.echo) != c.echo || got.eof != c.eof || got.intr != c.intr {
			t.Errorf("takeRaw(%q) = lines %q rest %q echo %q eof %v intr %v", c.in, lines, got.rest, got.echo, got.eof, got.intr)
		}
	}
}
