package api

import (
	"strings"
	"testing"
)

// TestFormatCheckpointsRestores: the copies' line says how many
// re-executions going back started from a copy, and from one restored
// ahead; nothing while none did.
func TestFormatCheckpointsRestores(t *testing.T) {
	body := CheckpointsBody{Copies: Copies{Kept: 3, Taken: 4, Budget: 256 << 20, IntervalMs: 25}}
	if out := FormatCheckpoints(body); strings.Contains(out, "going back started") {
		t.Fatalf("no re-execution yet, but:\n%s", out)
	}
	body.Copies.Restores, body.Copies.Spares = 5, 3
	out := FormatCheckpoints(body)
	if !strings.HasSuffix(out, "\ngoing back started 5 re-executions from a copy (3 from one restored ahead, while the session waited)") {
		t.Fatalf("got:\n%s", out)
	}
	body.Copies.Restores = 1
	if out := FormatCheckpoints(body); !strings.Contains(out, "started 1 re-execution from") {
		t.Fatalf("got:\n%s", out)
	}
	for n, want := range map[int]string{1: "(4 taken (1 near a moment gone back to), ", 2: "(4 taken (2 near moments gone back to), "} {
		body.Copies.Near = n
		if out := FormatCheckpoints(body); !strings.Contains(out, want) {
			t.Fatalf("%d near: got:\n%s", n, out)
		}
	}
}
