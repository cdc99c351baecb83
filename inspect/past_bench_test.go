package inspect

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/internal/testmode"
)

// Benchmarks of the questions about the past (issue targets, on a
// recording of 10 million reductions: lastWrites under 100 ms; a query
// of a line executed 10,000 times under 1 s with 2 cores; the origin of
// a value that crossed two channels under 300 ms), each beside the
// stepping that reaches the same answer the old way:
//
//	go test ./inspect -run '^$' -bench 'Past' -benchtime 5x
//
// past10M runs 10,000 calls of step (a thousand reductions each: 10
// million in all), then sends the total through a relay thread over two
// channels; the session stops at @end.
const past10M = `import io;
import thread;
class Counter {
    public int count;
    public int early;
}
class Relay {
    public Channel<int> inbox;
    public Channel<int> outbox;
    public void run() {
        int v = inbox.recv();
        outbox.send(v + 1); // @relay
    }
}
int step(int i) {
    int x = 0;
    for (int k = 0; k < 998; k += 1) {
        x += k + i;
    }
    return x % 8;
}
int main() {
    Counter c = new Counter();
    c.early = 42; // @early
    Relay r = new Relay();
    r.inbox = new Channel<int>(1);
    r.outbox = new Channel<int>(1);
    thread.spawn(r.run);
    int total = 0;
    for (int i = 0; i < ROUNDS; i += 1) {
        total = total + step(i); // @hot
    }
    c.count = total; // @write
    r.inbox.send(total); // @send
    int got = r.outbox.recv(); // @got
    io.print("" + got + " " + c.count + " " + c.early); // @end
    return 0;
}
`

// pastSource returns past10M with rounds calls of step (10,000: 10
// million reductions).
func pastSource(rounds int) string {
	return strings.Replace(past10M, "ROUNDS", fmt.Sprint(rounds), 1)
}

// pastBenchSession launches src stopped at @end.
func pastBenchSession(b *testing.B, src string) (*Session, *coreListener, string) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "prog.n")
	os.WriteFile(path, []byte(src), 0o644)
	l := newCoreListener()
	s, err := Launch(Config{Program: path}, l)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Terminate)
	tb := &testing.T{}
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(tb, src, "end")}})
	s.ConfigurationDone()
	<-l.stops
	return s, l, path
}

// freshEach runs op b.N times, each on a new session stopped at @end
// (the setup, untimed, runs the program forward: the checkpoints are
// those a session has when it first stops there; going back and forth
// would add more near the present), and reports the process's CPU time
// per op (cpu-ms/op): on a machine other jobs load, wall time says
// little, and a scan's passes side by side show as CPU time above wall
// time.
func freshEach(b *testing.B, src string, setup func(s *Session, path string), op func(s *Session, l *coreListener, path string)) {
	var cpu time.Duration
	var kept int
	for b.Loop() {
		b.StopTimer()
		s, l, path := pastBenchSession(b, src)
		if setup != nil {
			setup(s, path)
		}
		kept += s.SnapshotStats().Kept
		b.StartTimer()
		c0 := testmode.CPUTime()
		op(s, l, path)
		cpu += testmode.CPUTime() - c0
		b.StopTimer()
		s.Terminate()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(kept)/float64(b.N), "checkpoints")
}

// BenchmarkPastLastWrites: lastWrites of c.count (written just before
// the stop) and of c.early (written at the start: every stretch is
// re-executed, side by side), beside the old way to the same answer — a
// data breakpoint on the field and reverseContinue.
func BenchmarkPastLastWrites(b *testing.B) {
	src := pastSource(10000)
	for _, field := range []string{"count", "early"} {
		b.Run(field+"/lastWrites", func(b *testing.B) {
			freshEach(b, src, nil, func(s *Session, _ *coreListener, _ string) {
				w, err := s.LastWrites(DataLocation{Expr: "c." + field}, 1)
				if err != nil || len(w.Writes) != 1 {
					b.Fatalf("%v %+v", err, w)
				}
			})
		})
		b.Run(field+"/watch-reverseContinue", func(b *testing.B) {
			freshEach(b, src, func(s *Session, _ string) {
				cv, err := s.Evaluate(1, 0, "c", EvalContext("watch"))
				if err != nil {
					b.Fatal(err)
				}
				info, err := s.DataBreakpointInfo(cv.Ref, field)
				if err != nil || info.DataID == "" {
					b.Fatalf("%v %+v", err, info)
				}
				s.SetDataBreakpoints([]DataBreakpointSpec{{DataID: info.DataID}})
			}, func(s *Session, l *coreListener, _ string) {
				if err := s.ReverseContinue(1); err != nil {
					b.Fatal(err)
				}
				if st := <-l.stops; st.Reason != ReasonData {
					b.Fatalf("stop %+v", st)
				}
			})
		})
	}
}

// BenchmarkPastQuery: a query of the line executed 10,000 times, on 1
// and 2 cores, on recordings of 10 and 30 million reductions, beside the
// old way to the same values — a logpoint on the line in a fresh run to
// the same moment.
func BenchmarkPastQuery(b *testing.B) {
	for _, rounds := range []int{10000, 30000} {
		src := pastSource(rounds)
		line := markerLine(&testing.T{}, src, "hot")
		for _, cores := range []int{1, 2} {
			b.Run(fmt.Sprintf("%dM/%dcores/query", rounds/1000, cores), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cores))
				freshEach(b, src, nil, func(s *Session, _ *coreListener, path string) {
					q, err := s.Query(QuerySpec{File: path, Line: line, Expr: "total", Limit: rounds}, nil)
					if err != nil || q.Total != rounds {
						b.Fatalf("%v: %d hits", err, q.Total)
					}
				})
			})
		}
		b.Run(fmt.Sprintf("%dM/logpoint-fresh-run", rounds/1000), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "prog.n")
			os.WriteFile(path, []byte(src), 0o644)
			tb := &testing.T{}
			cpuLoop(b, func() {
				l := newCoreListener()
				s, err := Launch(Config{Program: path}, l)
				if err != nil {
					b.Fatal(err)
				}
				s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(tb, src, "hot"), LogMessage: "{total}"},
					{Line: markerLine(tb, src, "end")}})
				s.ConfigurationDone()
				<-l.stops
				s.Terminate()
			})
		})
	}
}

// BenchmarkPastOrigin: the origin of got, which crossed two channels
// (the relay's out and in), beside the old way to the same answer: a
// reverseContinue to a breakpoint at each place the value passed (the
// relay's send, main's send), knowing where they are.
func BenchmarkPastOrigin(b *testing.B) {
	src := pastSource(10000)
	b.Run("origin", func(b *testing.B) {
		freshEach(b, src, nil, func(s *Session, _ *coreListener, _ string) {
			steps, err := s.Origin(1, 0, "got", 0)
			if err != nil {
				b.Fatal(err)
			}
			if n := strings.Count(fmt.Sprint(steps), OriginReceived); n < 2 {
				b.Fatalf("steps %+v", steps)
			}
		})
	})
	b.Run("reverseContinue-to-each-send", func(b *testing.B) {
		tb := &testing.T{}
		freshEach(b, src, func(s *Session, path string) {
			s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(tb, src, "relay")}, {Line: markerLine(tb, src, "send")}, {Line: markerLine(tb, src, "end")}})
		}, func(s *Session, l *coreListener, _ string) {
			for range 2 {
				if err := s.ReverseContinue(1); err != nil {
					b.Fatal(err)
				}
				if st := <-l.stops; st.Reason != ReasonBreakpoint {
					b.Fatalf("stop %+v", st)
				}
			}
		})
	})
}

// cpuLoop runs f b.N times and reports the process's CPU time per run
// (cpu-ms/op): on a machine other jobs load, wall time says little, and
// a scan's passes side by side show as CPU time above wall time.
func cpuLoop(b *testing.B, f func()) {
	c0, n := testmode.CPUTime(), 0
	for b.Loop() {
		f()
		n++
	}
	b.ReportMetric(float64((testmode.CPUTime()-c0).Microseconds())/1000/float64(max(n, 1)), "cpu-ms/op")
}

// BenchmarkPastRun10M is the program run to @end without going back:
// what one re-execution of the whole recording costs.
func BenchmarkPastRun10M(b *testing.B) {
	src := pastSource(10000)
	path := filepath.Join(b.TempDir(), "prog.n")
	os.WriteFile(path, []byte(src), 0o644)
	tb := &testing.T{}
	cpuLoop(b, func() {
		l := newCoreListener()
		s, err := Launch(Config{Program: path}, l)
		if err != nil {
			b.Fatal(err)
		}
		s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(tb, src, "end")}})
		s.ConfigurationDone()
		<-l.stops
		s.Terminate()
	})
}
