package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/internal/scripttest"
	"github.com/nlangdbg/nlangdbg/internal/testmode"
)

// quotas are the reduction budgets every script runs under; the output
// must not depend on them.
var quotas = []int{1, 7, 4000}

// parallelCarriers are the carrier counts the concurrency scripts
// (testdata/run/concurrency) also run on. Such runs are not deterministic,
// so each is checked against the script's expectations only, not against
// the other runs.
var parallelCarriers = []int{2, 4}

// slowScript reports whether a script recurses a million frames deep
// (to the default frame limit): under the race detector, with a quota of
// 1 or recorded, replayed or copied, such a run takes minutes.
func slowScript(name string) bool { return strings.Contains(name, "stack_overflow") }

// skipSlowScript skips a slow script outside the full run (testmode).
func skipSlowScript(t *testing.T, name string) {
	if slowScript(name) {
		testmode.SkipUnlessFull(t, "a million frames recorded, replayed or copied")
	}
}

// scriptQuotas returns the quotas a script runs under: its own, or every
// one of quotas — only the default for a slow script outside the full
// run.
func scriptQuotas(name string, s *scripttest.Script) []int {
	switch {
	case s.Quota > 0:
		return []int{s.Quota}
	case slowScript(name) && !testmode.Full():
		return []int{4000}
	}
	return quotas
}

// forEachScript runs fn, as a parallel subtest named after the script,
// for every testdata/run/**/*.n script (at least 80) with its source and
// expectations.
func forEachScript(t *testing.T, fn func(t *testing.T, path, name string, src []byte, s *scripttest.Script)) {
	var files []string
	err := filepath.WalkDir("../../testdata/run", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".n") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 80 {
		t.Fatalf("found %d scripts, want at least 80", len(files))
	}
	for _, f := range files {
		name, _ := filepath.Rel("../../testdata/run", f)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s, err := scripttest.Parse(f, src)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, f, name, src, s)
		})
	}
}

// TestScripts runs every testdata/run/**/*.n script under each quota and
// checks its stdout, stderr and exit code (see testdata/README.md).
func TestScripts(t *testing.T) {
	forEachScript(t, func(t *testing.T, f, name string, src []byte, s *scripttest.Script) {
		qs := scriptQuotas(name, s)
		var first *scripttest.Result
		for _, q := range qs {
			var out, errb bytes.Buffer
			code := runScript(f, src, s, runOptions{Quota: q, Seed: s.Seed}, &out, &errb)
			r := scripttest.Result{Stdout: out.String(), Stderr: errb.String(), Exit: code}
			for _, d := range s.Check(r) {
				t.Errorf("quota %d: %s", q, d)
			}
			if first == nil {
				first = &r
			} else if r.Stdout != first.Stdout || r.Exit != first.Exit {
				t.Errorf("quota %d: result differs from quota %d", q, qs[0])
			}
		}
		if !strings.HasPrefix(filepath.ToSlash(name), "concurrency/") {
			return
		}
		for _, n := range parallelCarriers {
			for _, q := range qs {
				var out, errb bytes.Buffer
				opts := runOptions{Quota: q, Seed: s.Seed, Carriers: n}
				code := runScript(f, src, s, opts, &out, &errb)
				r := scripttest.Result{Stdout: out.String(), Stderr: errb.String(), Exit: code}
				for _, d := range s.Check(r) {
					t.Errorf("%d carriers, quota %d: %s", n, q, d)
				}
			}
		}
	})
}

// runScript runs a script with the given options. A script with
// `// args:` runs through the command line, as `nlangdbg run [flags]
// SCRIPT ARGS` would, so that its arguments meet the real parsing.
func runScript(path string, src []byte, s *scripttest.Script, opts runOptions, stdout, stderr io.Writer) int {
	stdin := strings.NewReader(s.Stdin)
	if len(s.Args) == 0 {
		return runProgram(path, src, opts, stdin, stdout, stderr)
	}
	cmd := []string{"run", "--quota", strconv.Itoa(opts.Quota), "--seed", strconv.FormatInt(opts.Seed, 10)}
	if opts.Carriers > 0 {
		cmd = append(cmd, "--carriers", strconv.Itoa(opts.Carriers))
	}
	cmd = append(append(cmd, path), s.Args...)
	return doMain(cmd, stdin, stdout, stderr)
}
