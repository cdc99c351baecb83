// Package testmode says how much the tests do. The default run (go test
// ./..., the README's command) is quick: under three minutes with -race
// on a two-core machine. The full run adds the slow cases — recursion a
// million frames deep under replay and snapshots, soak tests, the
// longest explorations, heap-limit tests that fill gigabytes — and is
// what CI runs (.ci/run sets NLANGDBG_TEST_FULL=1 for a second pass).
package testmode

import (
	"os"
	"testing"
)

// Env is the environment variable that turns on the full run.
const Env = "NLANGDBG_TEST_FULL"

// Full reports whether the full run is on.
func Full() bool { return os.Getenv(Env) != "" }

// SkipUnlessFull skips a slow case outside the full run, saying what it
// is and how to run it.
func SkipUnlessFull(t testing.TB, what string) {
	t.Helper()
	if !Full() {
		t.Skipf("slow case (%s): runs with %s=1, as .ci/run does", what, Env)
	}
}
