package vm

import (
	"strings"
	"testing"
)

// TestConcatBuilder checks that strings built in place through the
// thread's buffer never change, whatever is appended to what.
func TestConcatBuilder(t *testing.T) {
	th := &Thread{}
	base := strings.Repeat("a", concatMin)
	s1 := th.concat(base, "1")
	s2 := th.concat(s1, "2")  // in place
	s3 := th.concat(s1, "3")  // s1 is not the latest: a copy
	s4 := th.concat(s2, "44") // s2 is not the latest either
	s5 := th.concat(s4, "5")  // in place again
	want := map[string]string{
		"s1": base + "1", "s2": base + "12", "s3": base + "13",
		"s4": base + "1244", "s5": base + "12445",
	}
	got := map[string]string{"s1": s1, "s2": s2, "s3": s3, "s4": s4, "s5": s5}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %q, want %q", k, got[k], w)
		}
	}
	// a long loop, checked against strings.Builder
	var b strings.Builder
	s := ""
	for i := 0; i < 20000; i++ {
		piece := string(rune('a' + i%26))
		s = th.concat(s, piece)
		b.WriteString(piece)
		if i%5000 == 0 {
			_ = th.concat(s, "detour") // a branch off the latest string
		}
	}
	if s != b.String() {
		t.Fatal("built string differs")
	}
	if th.concat("", "x") != "x" || th.concat("x", "") != "x" || th.concat("ab", "cd") != "abcd" {
		t.Fatal("short cases")
	}
}
