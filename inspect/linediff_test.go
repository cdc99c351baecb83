package inspect

import (
	"strings"
	"testing"
)

func TestDiffLines(t *testing.T) {
	old := strings.Join([]string{"a", "b", "x = 1;", "c", "y = 2;", "z = 3;", "d", "e"}, "\n")
	new := strings.Join([]string{"new", "a", "b", "x = 10;", "c", "z = 30;", "d", "inserted", "e"}, "\n")
	m := diffLines([]byte(old), []byte(new))
	for _, tc := range []struct {
		old, new int32
		exact    bool
		ok       bool
	}{
		{1, 2, true, true},   // a
		{2, 3, true, true},   // b
		{3, 4, false, true},  // x = 1 edited in place
		{4, 5, true, true},   // c
		{5, 0, false, false}, // y = 2 deleted
		{6, 6, false, true},  // z = 3 edited (the more similar line of the stretch)
		{7, 7, true, true},   // d
		{8, 9, true, true},   // e, after an insertion
	} {
		l, exact := m.forward(tc.old)
		n, ok := m.near(tc.old)
		if exact != tc.exact || ok != tc.ok || ok && n != tc.new || exact && l != tc.new {
			t.Errorf("line %d: fwd %d %v, near %d %v; want %d (exact %v, placed %v)", tc.old, l, exact, n, ok, tc.new, tc.exact, tc.ok)
		}
	}
	if o, ok := m.back(8); ok {
		t.Errorf("the inserted line maps back to %d", o)
	}
}
