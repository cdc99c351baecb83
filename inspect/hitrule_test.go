package inspect

import (
	"strings"
	"testing"
)

// hitRuleSrc: a loop whose breakpoint condition fails to evaluate at one
// iteration (an index out of range at i == 3).
const hitRuleSrc = `import io;
int main() {
    int[] probe = new int[3];
    int sum = 0;
    for (int i = 0; i < 6; i += 1) {
        sum += i; // @loop
    }
    io.print("" + sum);
    return 0;
}
`

// TestHitRuleSameGoingBack: the session's run and the re-executions of
// going back apply one breakpoint rule. A condition that fails to
// evaluate counts as a hit and stops, going forward and going back
// alike; an ignore count applies to the hits to come, not to the past;
// after going back the counts are those of that moment.
func TestHitRuleSameGoingBack(t *testing.T) {
	s, l, path := launchBack(t, hitRuleSrc, Config{})
	// every iteration is a hit: the condition holds but at i = 3, where
	// it fails (probe[3])
	if bps := s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(t, hitRuleSrc, "loop"), Condition: "probe[i % 4] == 0"}}); !bps[0].Verified {
		t.Fatalf("breakpoint %+v", bps[0])
	}
	s.ConfigurationDone()
	var forward []string
	hits := map[string]int{}
	for {
		st := l.waitStop(t)
		if st.Reason != ReasonBreakpoint {
			t.Fatalf("stop %+v", st)
		}
		i := eval(t, s, "i")
		forward = append(forward, i)
		hits[i] = s.Breakpoints()[0].Hits
		if i == "2" {
			// let the next two hits go on: the first, i = 3, fails its
			// condition and stops all the same; the second, i = 4, goes on
			if err := s.IgnoreBreakpoint(s.Breakpoints()[0].ID, 2); err != nil {
				t.Fatal(err)
			}
		}
		if i == "5" {
			break
		}
		s.Continue(1, false)
	}
	if got := strings.Join(forward, " "); got != "0 1 2 3 5" {
		t.Fatalf("stops going forward at i = %s, want 0 1 2 3 5 (3: the condition failed; 4: ignored)", got)
	}
	if !strings.Contains(l.console(), `condition "probe[i % 4] == 0" failed`) {
		t.Errorf("no word of the failing condition: %q", l.console())
	}
	// Going back finds the same stops, with the counts of their moment.
	for _, want := range []string{"3", "2", "1", "0"} {
		if err := s.ReverseContinue(1); err != nil {
			t.Fatal(err)
		}
		st := l.waitStop(t)
		if st.Reason != ReasonBreakpoint || !st.Back {
			t.Fatalf("going back: %+v", st)
		}
		if got := eval(t, s, "i"); got != want {
			t.Fatalf("going back: i = %s, want %s", got, want)
		}
		if got := s.Breakpoints()[0].Hits; got != hits[want] {
			t.Errorf("going back to i = %s: %d hits, want %d as going forward", want, got, hits[want])
		}
	}
}
