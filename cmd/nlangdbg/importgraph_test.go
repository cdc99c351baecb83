package main

import (
	"os/exec"
	"strings"
	"testing"
)

// allowed lists, for each package of the module, the module packages it
// may import (DESIGN.md: arrows point one way).
var allowed = map[string][]string{
	"vm/syntax":           {},
	"vm":                  {},
	"vm/compile":          {"vm", "vm/syntax"},
	"sched":               {"vm"},
	"sched/record":        {"vm", "sched"},
	"sched/explore":       {"vm", "sched", "sched/record", "sched/race"},
	"sched/race":          {"vm", "sched"},
	"inspect":             {"vm", "vm/syntax", "vm/compile", "sched", "sched/record", "sched/race"},
	"dap":                 {"inspect", "dap/api"},
	"dap/api":             {}, // the wire types: a client needs nothing else
	"dap/daptest":         {"dap/api"},
	"internal/scripttest": {},
	"internal/testmode":   {},
	"cmd/nlangdbg":        {"vm", "vm/syntax", "vm/compile", "sched", "sched/record", "sched/explore", "sched/race", "inspect", "dap", "dap/api", "internal/scripttest"},
}

// TestImportGraph fails on any import that points the wrong way.
func TestImportGraph(t *testing.T) {
	const mod = "github.com/nlangdbg/nlangdbg/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		pkg = strings.TrimPrefix(pkg, mod)
		ok, known := allowed[pkg]
		if !known {
			t.Errorf("package %s is not in the import-graph table; add it with the packages it may import", pkg)
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			imp = strings.TrimPrefix(imp, mod)
			found := false
			for _, a := range ok {
				found = found || a == imp
			}
			if !found {
				t.Errorf("%s imports %s: not allowed by the layering in DESIGN.md", pkg, imp)
			}
		}
	}
}
