package dap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nlangdbg/nlangdbg/inspect"
)

// breakpointCommand runs the debugger commands about breakpoints, which
// speak the client's breakpoint ids: `:breakpoints` (one line per
// breakpoint: id, hits, hits still ignored) and `:ignore ID COUNT`. It
// reports false for any other command.
func (c *session) breakpointCommand(expr string) (string, bool, error) {
	f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(expr), inspect.MetaPrefix))
	if len(f) == 0 || (f[0] != "breakpoints" && f[0] != "ignore") {
		return "", false, nil
	}
	if f[0] == "breakpoints" {
		var b strings.Builder
		for _, bp := range c.prog.Breakpoints() {
			id := c.clientBPIDs([]int{bp.ID})[0]
			fmt.Fprintf(&b, "%d hits %d ignore %d\n", id, bp.Hits, bp.Ignore)
		}
		return strings.TrimRight(b.String(), "\n"), true, nil
	}
	if len(f) != 3 {
		return "", true, fmt.Errorf("usage: ignore BREAKPOINT COUNT")
	}
	id, err1 := strconv.Atoi(f[1])
	n, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return "", true, fmt.Errorf("ignore: %q and %q must be whole numbers (usage: ignore BREAKPOINT COUNT)", f[1], f[2])
	}
	c.mu.Lock()
	inner := -1
	for in, out := range c.bpIDs {
		if out == id {
			inner = in
		}
	}
	c.mu.Unlock()
	if inner < 0 {
		return "", true, fmt.Errorf("ignore: no breakpoint %d", id)
	}
	if err := c.prog.IgnoreBreakpoint(inner, n); err != nil {
		return "", true, err
	}
	if n == 0 {
		return fmt.Sprintf("breakpoint %d will stop at its next hit", id), true, nil
	}
	return fmt.Sprintf("breakpoint %d will ignore its next %d hits", id, n), true, nil
}
