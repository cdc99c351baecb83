package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/internal/testmode"
)

// Benchmarks of recording (issue target: at most 1.3 times a plain run),
// each beside its plain run:
//
//	go test ./cmd/nlangdbg -run '^$' -bench 'Fib30|Loop30M|PingPong1M' -benchtime 3x
//
// The recording goes to a file, through the buffer run --record uses.
func benchRecord(b *testing.B, path string) {
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	prog := benchProgram(b, path)
	rec := filepath.Join(b.TempDir(), "bench.rec")
	var size int64
	for b.Loop() {
		f, err := os.Create(rec)
		if err != nil {
			b.Fatal(err)
		}
		bw := bufio.NewWriterSize(f, 64<<10)
		code, err := recordRun(prog, path, src, nil, runOptions{}, bw, nil, io.Discard, os.Stderr)
		if err == nil {
			err = bw.Flush()
		}
		f.Close()
		if err != nil || code != 0 {
			b.Fatalf("exit code %d, %v", code, err)
		}
		st, _ := os.Stat(rec)
		size = st.Size()
	}
	b.ReportMetric(float64(size), "rec-bytes")
}

func BenchmarkRecordFib30(b *testing.B)      { benchRecord(b, "../../testdata/bench/fib.n") }
func BenchmarkRecordLoop30M(b *testing.B)    { benchRecord(b, "../../testdata/bench/loop.n") }
func BenchmarkRecordPingPong1M(b *testing.B) { benchRecord(b, "../../testdata/bench/pingpong.n") }

// BenchmarkRecordOverhead runs each workload plainly and recorded, in
// turn, and reports the ratio of the fastest recorded run to the fastest
// plain one (x-plain; the target is at most 1.3): alternating cancels
// most of the drift of a shared machine; and the ratio of the CPU time
// the process spent on each (x-plain-cpu), which the machine's other
// load does not inflate.
//
//	go test ./cmd/nlangdbg -run '^$' -bench RecordOverhead -benchtime 5x
func BenchmarkRecordOverhead(b *testing.B) {
	for _, w := range []struct{ name, path string }{
		{"Fib30", "../../testdata/bench/fib.n"},
		{"Loop30M", "../../testdata/bench/loop.n"},
		{"PingPong1M", "../../testdata/bench/pingpong.n"},
	} {
		b.Run(w.name, func(b *testing.B) {
			src, err := os.ReadFile(w.path)
			if err != nil {
				b.Fatal(err)
			}
			prog := benchProgram(b, w.path)
			rec := filepath.Join(b.TempDir(), "bench.rec")
			minPlain, minRec := time.Duration(1<<62), time.Duration(1<<62)
			var cpuPlain, cpuRec time.Duration
			for b.Loop() {
				t0, c0 := time.Now(), testmode.CPUTime()
				runBench(b, prog)
				minPlain = min(minPlain, time.Since(t0))
				cpuPlain += testmode.CPUTime() - c0
				t0, c0 = time.Now(), testmode.CPUTime()
				f, err := os.Create(rec)
				if err != nil {
					b.Fatal(err)
				}
				bw := bufio.NewWriterSize(f, 64<<10)
				code, err := recordRun(prog, w.path, src, nil, runOptions{}, bw, nil, io.Discard, os.Stderr)
				if err == nil {
					err = bw.Flush()
				}
				f.Close()
				minRec = min(minRec, time.Since(t0))
				cpuRec += testmode.CPUTime() - c0
				if err != nil || code != 0 {
					b.Fatalf("exit code %d, %v", code, err)
				}
			}
			b.ReportMetric(float64(minRec)/float64(minPlain), "x-plain")
			if cpuPlain > 0 {
				b.ReportMetric(float64(cpuRec)/float64(cpuPlain), "x-plain-cpu")
			}
			b.ReportMetric(float64(minPlain.Milliseconds()), "plain-ms")
			b.ReportMetric(float64(minRec.Milliseconds()), "rec-ms")
		})
	}
}
