package dap

import (
	"os"
	"sort"
	"strings"
	"testing"
)

// TestDocLaunchArguments: the launch arguments package doc lists are
// the ones the launch request takes (the doc cannot drift from the code).
func TestDocLaunchArguments(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(src), "// Launch arguments (a test checks this list against the code):\n//\n")
	if !ok {
		t.Fatal("doc.go: no launch argument list")
	}
	var doc []string
	for _, l := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(l, "//\t") {
			break
		}
		doc = append(doc, strings.Fields(strings.TrimPrefix(l, "//\t"))[0])
	}
	sort.Strings(doc)
	if got, want := strings.Join(doc, " "), strings.Join(LaunchArgumentNames(), " "); got != want {
		t.Errorf("doc.go lists the launch arguments\n%s\nthe launch request takes\n%s", got, want)
	}
}
