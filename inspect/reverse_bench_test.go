package inspect

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/internal/testmode"
)

// Benchmarks of going back (issue targets: a stepBack in a program that
// has run 10 million reductions under 200 ms; a reverseContinue to a
// breakpoint 1 million reductions back under 500 ms):
//
//	go test ./inspect -run '^$' -bench 'StepBack|ReverseContinue' -benchtime 5x
//
// (BenchmarkStepBackLoopExit/10M/checkpoints is the step back at a loop's
// exit after 10 million reductions.)

const back10M = `import io;
int main() {
    int s = 0;
    for (int i = 0; i < 10000000; i += 1) {
        s += i;
    }
    int a = s % 7; // @a
    int b = a + 1; // @b
    io.print("" + b);
    return 0;
}
`

const back1M = `import io;
int main() {
    int a = 0;
    for (int k = 0; k < 3; k += 1) {
        int x = 0;
        for (int i = 0; i < 1000000; i += 1) {
            x += i;
        }
        a = x + k; // @hit
    }
    io.print("" + a);
    return 0;
}
`

// benchSession launches src stopped at the first hit of the breakpoint
// at marker, after hits-1 more continues.
func benchSession(b *testing.B, src, marker string, hits int) (*Session, *coreListener) {
	return benchSessionCfg(b, src, marker, hits, Config{})
}

// benchSessionCfg is benchSession with a configuration.
func benchSessionCfg(b *testing.B, src, marker string, hits int, cfg Config) (*Session, *coreListener) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "prog.n")
	os.WriteFile(path, []byte(src), 0o644)
	l := newCoreListener()
	cfg.Program = path
	s, err := Launch(cfg, l)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Terminate)
	tb := &testing.T{}
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(tb, src, marker)}})
	s.ConfigurationDone()
	<-l.stops
	for i := 1; i < hits; i++ {
		s.Continue(1, false)
		<-l.stops
	}
	return s, l
}

// BenchmarkStepBack10M: one stepBack (then a next forward again) at a
// stop after 10 million reductions.
func BenchmarkStepBack10M(b *testing.B) {
	s, l := benchSession(b, back10M, "b", 1)
	for b.Loop() {
		backAndForth(b, s, l)
	}
}

// backAndForth steps back, then over again.
func backAndForth(b *testing.B, s *Session, l *coreListener) {
	if err := s.StepBack(1, StepOver); err != nil {
		b.Fatal(err)
	}
	if st := <-l.stops; st.Reason != ReasonStep {
		b.Fatalf("stop %+v", st)
	}
	if err := s.Step(1, StepOver, false); err != nil {
		b.Fatal(err)
	}
	<-l.stops
}

// BenchmarkReverseContinue1M: a reverseContinue from the third hit of a
// breakpoint to the second, 1 million reductions back (then a continue
// forward again).
func BenchmarkReverseContinue1M(b *testing.B) {
	s, l := benchSession(b, back1M, "hit", 3)
	for b.Loop() {
		reverseAndOn(b, s, l)
	}
}

// reverseAndOn continues backwards to a breakpoint, then forwards again.
func reverseAndOn(b *testing.B, s *Session, l *coreListener) {
	if err := s.ReverseContinue(1); err != nil {
		b.Fatal(err)
	}
	if st := <-l.stops; st.Reason != ReasonBreakpoint {
		b.Fatalf("stop %+v", st)
	}
	if err := s.Continue(1, false); err != nil {
		b.Fatal(err)
	}
	<-l.stops
}

// BenchmarkReverseContinueLate: the same reverseContinue (a breakpoint
// hit 1 million reductions back) at the 30th hit, 30 million reductions
// into the run, from checkpoints and from the start, side by side.
func BenchmarkReverseContinueLate(b *testing.B) {
	src := strings.Replace(back1M, "k < 3", "k < 31", 1)
	for _, c := range []struct {
		name     string
		interval time.Duration
	}{{"checkpoints", 0}, {"from-start", -1}} {
		b.Run(c.name, func(b *testing.B) {
			s, l := benchSessionCfg(b, src, "hit", 30, Config{SnapshotInterval: c.interval})
			for b.Loop() {
				reverseAndOn(b, s, l)
			}
		})
	}
}

// back100M is back10M running ten times longer.
var back100M = strings.Replace(back10M, "10000000", "100000000", 1)

// BenchmarkStepBackLoopExit steps back at a loop's exit (two
// re-executions) after 10 and 100 million reductions, from checkpoints
// (the default) and from the start (checkpoints off), side by side: from
// checkpoints the cost does not grow with the run's length.
//
//	go test ./inspect -run '^$' -bench 'StepBackLoopExit' -benchtime 5x
func BenchmarkStepBackLoopExit(b *testing.B) {
	for _, c := range []struct {
		name     string
		src      string
		interval time.Duration
	}{
		{"10M/checkpoints", back10M, 0},
		{"10M/from-start", back10M, -1},
		{"100M/checkpoints", back100M, 0},
		{"100M/from-start", back100M, -1},
	} {
		b.Run(c.name, func(b *testing.B) {
			s, l := benchSessionCfg(b, c.src, "a", 1, Config{SnapshotInterval: c.interval})
			for b.Loop() {
				backAndForth(b, s, l)
			}
			st := s.SnapshotStats()
			b.ReportMetric(float64(st.Kept), "checkpoints")
			b.ReportMetric(float64(st.Bytes)/float64(max(1, st.Kept)), "B/checkpoint")
		})
	}
}

// BenchmarkPlain10M is the program of BenchmarkStepBack10M run to its end
// without a debugger: the cost of one re-execution.
func BenchmarkPlain10M(b *testing.B) {
	path := filepath.Join(b.TempDir(), "prog.n")
	os.WriteFile(path, []byte(back10M), 0o644)
	for b.Loop() {
		l := newCoreListener()
		s, err := Launch(Config{Program: path}, l)
		if err != nil {
			b.Fatal(err)
		}
		s.ConfigurationDone()
		<-l.exited
	}
}

// BenchmarkDebugRecordOverhead runs each workload in a debug session
// (no breakpoints) with and without its recording (checkpoints
// included), in turn, and reports the ratio of the fastest recorded
// session to the fastest unrecorded one (x-norecord; the target is at
// most 1.3), the ratio of the process CPU time spent on each
// (x-norecord-cpu), and that of a recording with checkpoints to one
// without (x-nocheckpoints-cpu).
//
//	go test ./inspect -run '^$' -bench DebugRecordOverhead -benchtime 5x
func BenchmarkDebugRecordOverhead(b *testing.B) {
	for _, w := range []struct{ name, path string }{
		{"Fib30", "../testdata/bench/fib.n"},
		{"Loop30M", "../testdata/bench/loop.n"},
		{"PingPong1M", "../testdata/bench/pingpong.n"},
	} {
		b.Run(w.name, func(b *testing.B) {
			var cpu [3]time.Duration
			// mode 0: no recording; 1: recording with checkpoints (the
			// default); 2: recording without checkpoints.
			run := func(mode int) time.Duration {
				t0, c0 := time.Now(), testmode.CPUTime()
				defer func() { cpu[mode] += testmode.CPUTime() - c0 }()
				l := newCoreListener()
				cfg := Config{Program: w.path, NoRecord: mode == 0, Stdout: io.Discard}
				if mode == 2 {
					cfg.SnapshotInterval = -1
				}
				s, err := Launch(cfg, l)
				if err != nil {
					b.Fatal(err)
				}
				s.ConfigurationDone()
				if code := <-l.exited; code != 0 {
					b.Fatalf("exit %d", code)
				}
				return time.Since(t0)
			}
			minOff, minOn := time.Duration(1<<62), time.Duration(1<<62)
			for b.Loop() {
				minOff = min(minOff, run(0))
				minOn = min(minOn, run(1))
				run(2)
			}
			b.ReportMetric(float64(minOn)/float64(minOff), "x-norecord")
			if cpu[0] > 0 && cpu[2] > 0 {
				b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "x-norecord-cpu")
				b.ReportMetric(float64(cpu[1])/float64(cpu[2]), "x-nocheckpoints-cpu")
			}
			b.ReportMetric(float64(minOff.Milliseconds()), "norecord-ms")
			b.ReportMetric(float64(minOn.Milliseconds()), "record-ms")
		})
	}
}
