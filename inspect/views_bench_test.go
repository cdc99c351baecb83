package inspect

import (
	"os"
	"testing"

	"github.com/nlangdbg/nlangdbg/internal/testmode"
)

// The concurrency views with 100,000 parked threads, 1,000 of them
// leaked: the session's work for nlang/leaks and nlang/threadGroups,
// without the protocol's JSON (see cmd/nlangdbg's BenchmarkLeaksViews100k
// for the round trip):
//
//	go test ./inspect -run '^$' -bench 'Views100k' -benchtime 20x

// views100kSrc is the benchmarks' program (shared with the other
// package's views benchmarks).
func views100kSrc(b *testing.B) string {
	src, err := os.ReadFile("../testdata/bench/views100k.n")
	if err != nil {
		b.Fatal(err)
	}
	return string(src)
}

// views100k stops the program above at @stop.
func views100k(b *testing.B) *Session {
	src := views100kSrc(b)
	s, l, path := launchSrc(b, src, Config{NoRecord: true})
	s.SetBreakpoints(path, []BreakpointSpec{{Line: markerLine(b, src, "stop")}})
	s.ConfigurationDone()
	st := <-l.stops
	if st.Reason != ReasonBreakpoint {
		b.Fatalf("stop %+v", st)
	}
	return s
}

func BenchmarkLeaksSessionViews100k(b *testing.B) {
	s := views100k(b)
	cpu := testmode.CPUTime()
	for b.Loop() {
		ls, err := s.Leaks(false)
		if err != nil || len(ls) != 1000 {
			b.Fatalf("%d leaks, %v", len(ls), err)
		}
	}
	b.ReportMetric(float64(testmode.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
}

func BenchmarkGroupsSessionViews100k(b *testing.B) {
	s := views100k(b)
	for _, by := range []string{GroupFunction, GroupSpawnSite, GroupStack} {
		b.Run(by, func(b *testing.B) {
			cpu := testmode.CPUTime()
			for b.Loop() {
				gs, sel, _, err := s.ThreadGroups(by, ThreadFilter{})
				if err != nil || sel != 100001 || len(gs) < 2 {
					b.Fatalf("%d threads in %d groups, %v", sel, len(gs), err)
				}
			}
			b.ReportMetric(float64(testmode.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
