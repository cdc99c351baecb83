package explore

import (
	"fmt"
	"path/filepath"
	"strings"
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

// BenchmarkExploreDFSCache: dfs with the state cache (a hash of the
// program's state at every scheduling point after the last decision).
func BenchmarkExploreDFSCache(b *testing.B) {
	cfg := load(b, filepath.Join(plantedDir, "bench4.n"))
	cfg.Strategy, cfg.StateCache, cfg.Schedules, cfg.Expect = DFS, true, b.N, []byte("40\n")
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

// BenchmarkDFSComplete runs the bounded search over each planted bug to
// its end (every schedule within the bound), with and without the state
// cache, and reports the schedules it took. (Not the lost update: its 200
// shared accesses make millions of schedules within two preemptions.)
func BenchmarkDFSComplete(b *testing.B) {
	for _, p := range planted {
		if p.file == "lost_update.n" {
			continue
		}
		for _, depth := range []int{2, 3} {
			for _, cache := range []bool{false, true} {
				name := fmt.Sprintf("%s/depth=%d/cache=%v", strings.TrimSuffix(p.file, ".n"), depth, cache)
				b.Run(name, func(b *testing.B) {
					schedules := 0
					for range b.N {
						cfg := load(b, filepath.Join(plantedDir, p.file))
						cfg.Strategy, cfg.Depth, cfg.StateCache, cfg.Schedules, cfg.ShrinkRuns = DFS, depth, cache, 1_000_000, 1
						res, err := Explore(cfg, nil)
						if err != nil || !res.Complete || len(res.Failures) == 0 {
							b.Fatalf("%v, complete %v, %d failures", err, res.Complete, len(res.Failures))
						}
						schedules = res.Schedules
					}
					b.ReportMetric(float64(schedules), "schedules")
				})
			}
		}
	}
}
