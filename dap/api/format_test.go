package api

import (
	"strings"
	"testing"
)

// TestFormatCheckpointsRestores: the copies' line says how many
// re-executions going back started from a copy, and from one restored
// ahead, and how many catch-ups ran at stops; nothing while none did.
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
	if out := FormatCheckpoints(body); strings.Contains(out, "caught up") {
		t.Fatalf("no catch-up yet, but:\n%s", out)
	}
	body.Copies.CatchUps, body.Copies.CaughtUp = 2, 1
	if out := FormatCheckpoints(body); !strings.HasSuffix(out, "\ncaught up at stops: 2 re-executions in the background, 1 of them took a copy near their stop") {
		t.Fatalf("got:\n%s", out)
	}
	for n, want := range map[int]string{1: "(4 taken (1 near a moment gone back to), ", 2: "(4 taken (2 near moments gone back to), "} {
		body.Copies.Near = n
		if out := FormatCheckpoints(body); !strings.Contains(out, want) {
			t.Fatalf("%d near: got:\n%s", n, out)
		}
	}
}
