package inspect

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/internal/testmode"
)

// liveHeapSrc keeps OBJECTS objects live and loops over them, 100
// reductions a round; the breakpoints stop every 3,000 rounds (issue 22, item 8: a session
// stopped by a conditional breakpoint every 3,000 rounds over 200,000
// live objects stepped back in 6.5 s).
const liveHeapSrc = `import io;
class Node {
    public int v;
    public Node next;
    public Node(int v) {
        this.v = v;
    }
}
int main() {
    List<Node> keep = new List<Node>();
    for (int i = 0; i < OBJECTS; i += 1) {
        keep.add(new Node(i));
    }
    int sum = 0;
    for (int round = 0; round < 1000000000; round += 1) {
        Node n = keep[round % OBJECTS]; // @head
        for (int k = 0; k < 100; k += 1) {
            n.v = n.v + k % 3;
        }
        sum += n.v; // @body
    }
    io.print("" + sum);
    return 0;
}
`

// BenchmarkStepBackLiveHeap is the session of the issue: a program that
// keeps 200,000 (and 50,000, and 500,000: a state of 62 MiB, near the largest copied) objects live, stopped by a conditional breakpoint every
// 3,000 rounds (75 quanta); after 40 stops, each iteration goes on to
// the next stop and steps back from it (only the step back is measured,
// medians: ms/stepback of wall time, cpu-ms/stepback of the process's CPU
// time, quanta/stepback of the quanta re-executed; max-ms the slowest,
// the first). At @body
// the statement before is straight-line code (one re-execution), at
// @head it is the loop's (two). near-copies is the session as it is,
// forward-copies-only the session without the copies a re-execution
// takes near the moment it goes back to (the copies the run took going
// forward alone, spaced by their cost); no-spares without the copies
// restored ahead (snapStore.prepare): at the stop for the first
// re-execution, during it for the second; read-300ms steps back 300 ms
// after the stop (a user reading it) rather than at once, when the
// copy restored at the stop is ready; read-1s, 1 s after it, when the
// catch-up started at the stop (catchup.go) has taken its copy near the
// stop (max-ms: the first step back after the long run), beside the
// same without catch-ups (no-catch-up, at once too). Side by side:
//
//	go test ./inspect -run '^$' -bench StepBackLiveHeap -benchtime 10x
func BenchmarkStepBackLiveHeap(b *testing.B) {
	for _, c := range []struct {
		at      string
		objects int
	}{{"body", 200_000}, {"head", 200_000}, {"body", 50_000}, {"body", 500_000}} {
		src := strings.ReplaceAll(liveHeapSrc, "OBJECTS", strconv.Itoa(c.objects))
		path := filepath.Join(b.TempDir(), "prog.n")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		at := c.at
		for _, v := range []struct {
			name                  string
			near, spares, catchUp bool
			read                  time.Duration
		}{
			{"near-copies", true, true, true, 0},
			{"near-copies/no-catch-up", true, true, false, 0},
			{"near-copies/read-300ms", true, true, true, 300 * time.Millisecond},
			{"near-copies/read-1s", true, true, true, time.Second},
			{"near-copies/read-1s/no-catch-up", true, true, false, time.Second},
			{"near-copies/no-spares", true, false, true, 0},
			{"forward-copies-only", false, true, true, 0},
		} {
			if c.objects != 200_000 && v.name != "near-copies" && v.name != "near-copies/read-300ms" && !strings.Contains(v.name, "read-1s") {
				continue
			}
			if strings.Contains(v.name, "read-1s") && (c.objects < 200_000 || at != "body") {
				continue
			}
			name := fmt.Sprintf("%dk/%s/%s", c.objects/1000, at, v.name)
			b.Run(name, func(b *testing.B) {
				l := newCoreListener()
				s, err := Launch(Config{Program: path}, l)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Terminate()
				s.tt.snaps.noNear = !v.near
				s.tt.snaps.noSpare = !v.spares
				s.noCatchUp.Store(!v.catchUp)
				line := 0
				for i, text := range strings.Split(src, "\n") {
					if strings.Contains(text, "// @"+at) {
						line = i + 1
					}
				}
				if bps := s.SetBreakpoints(path, []BreakpointSpec{{Line: line, Condition: "round % 3000 == 0"}}); !bps[0].Verified {
					b.Fatal(bps[0].Message)
				}
				s.ConfigurationDone()
				<-l.stops
				step := func() {
					if err := s.Continue(0, false); err != nil {
						b.Fatal(err)
					}
					if st := <-l.stops; st.Reason != ReasonBreakpoint {
						b.Fatalf("stop %+v", st)
					}
				}
				for range 40 { // a session that has run for a while
					step()
				}
				var times, cpus []time.Duration
				var quanta []int64
				for b.Loop() {
					step()             // back to the stop stepped back from
					step()             // the next stop
					time.Sleep(v.read) // (a user reading the stop)
					q0 := s.SnapshotStats().Reexecuted
					t0, c0 := time.Now(), testmode.CPUTime()
					if err := s.StepBack(1, StepOver); err != nil {
						b.Fatal(err)
					}
					if st := <-l.stops; st.Reason != ReasonStep {
						b.Fatalf("stop %+v", st)
					}
					times = append(times, time.Since(t0))
					cpus = append(cpus, testmode.CPUTime()-c0)
					quanta = append(quanta, s.SnapshotStats().Reexecuted-q0)
				}
				slices.Sort(times)
				slices.Sort(cpus)
				slices.Sort(quanta)
				b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms/stepback")
				b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "max-ms")
				b.ReportMetric(float64(cpus[len(cpus)/2].Microseconds())/1000, "cpu-ms/stepback")
				b.ReportMetric(float64(quanta[len(quanta)/2]), "quanta/stepback")
				st := s.SnapshotStats()
				b.ReportMetric(float64(st.Taken), "copies")
				b.ReportMetric(float64(st.CatchUps), "catch-ups")
			})
		}
	}
}
