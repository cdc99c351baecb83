package explore

import (
	"path/filepath"
	"testing"
	"time"
)

// benchExplore explores testdata/explore/bench4.n (four threads, about
// 1,000 reductions a run) with b.N schedules of strategy at the default
// granularity (shared) and reports the schedules per second (target: at
// least 1,000).
func benchExplore(b *testing.B, strategy string) {
	cfg := load(b, filepath.Join(plantedDir, "bench4.n"))
	cfg.Strategy, cfg.Schedules, cfg.Expect = strategy, b.N, []byte("40\n")
	b.ResetTimer()
	start := time.Now()
	res, err := Explore(cfg, nil)
	el := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Failures) > 0 {
		b.Fatalf("failures in a correct program: %+v", res.Failures[0])
	}
	b.ReportMetric(float64(b.N)/el.Seconds(), "schedules/s")
	b.ReportMetric(float64(res.Points), "points/run")
}

func BenchmarkExplorePCT(b *testing.B)    { benchExplore(b, PCT) }
func BenchmarkExploreRandom(b *testing.B) { benchExplore(b, Random) }
func BenchmarkExploreDFS(b *testing.B)    { benchExplore(b, DFS) }

// BenchmarkExplorePCTSync: PCT at --granularity sync (the accesses are
// not scheduling points), for comparison with the default.
func BenchmarkExplorePCTSync(b *testing.B) {
	cfg := load(b, filepath.Join(plantedDir, "bench4.n"))
	cfg.Schedules, cfg.Expect, cfg.Granularity = b.N, []byte("40\n"), "sync"
	b.ResetTimer()
	start := time.Now()
	res, err := Explore(cfg, nil)
	el := time.Since(start)
	if err != nil || len(res.Failures) > 0 {
		b.Fatalf("%v %+v", err, res.Failures)
	}
	b.ReportMetric(float64(b.N)/el.Seconds(), "schedules/s")
	b.ReportMetric(float64(res.Points), "points/run")
}
