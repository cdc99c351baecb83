package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nlangdbg/nlangdbg/sched/explore"
	"github.com/nlangdbg/nlangdbg/sched/record"
)

// This file checks the commands that read a recording (replay, trace,
// debug --replay and --core) against files they must not trust.

// withHeader returns the recording r with its header replaced by h (the
// events kept, the checksum made anew).
func withHeader(r recorded, h record.Header) []byte {
	rec := *r.rec
	rec.Header = h
	data := append(rec.Log(), 'E')
	data = binary.AppendVarint(data, int64(r.rec.ExitCode))
	return binary.LittleEndian.AppendUint32(data, crc32.ChecksumIEEE(data))
}

// TestRecordingSpecialFiles: a recording path that is a device, a FIFO or
// a directory is refused at once by every command, as a program path is
// (/dev/zero was read until memory ran out, a FIFO waited for ever), and
// so is a program file given to replay.
func TestRecordingSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "rec.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{"/dev/zero": "a device", fifo: "a FIFO", t.TempDir(): "a directory"} {
		for _, args := range [][]string{
			{"replay", path},
			{"trace", path, "-o", filepath.Join(dir, "t.json")},
			{"debug", "--replay", path},
			{"debug", "--core", path},
		} {
			code, out, errs := cli(args...)
			want := "open " + path + ": not a regular file (it is " + kind + "; a recording must be a file nlangdbg wrote"
			if code != 1 || !strings.Contains(errs, want) || out != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and %q", args, code, out, errs, want)
			}
		}
	}
	r := recordScript(t, "hello.n", []byte(helloProg), runOptions{Quota: 4000}, nil)
	rec := filepath.Join(dir, "hello.rec")
	os.WriteFile(rec, r.data, 0o644)
	code, _, errs := cli("replay", rec, fifo)
	if want := "open " + fifo + ": not a regular file (it is a FIFO; a program must be a .n source file)"; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("replay REC FIFO: exit %d, stderr %q; want 1 and %q", code, errs, want)
	}
}

// TestRecordingHeaderLimits: a header's quota and heap limit are checked
// as the flags are (a quota of 2^62 replayed for ever, a heap limit of
// 2^62 let a program take all memory).
func TestRecordingHeaderLimits(t *testing.T) {
	r := recordScript(t, "hello.n", []byte(helloProg), runOptions{Quota: 4000}, nil)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		edit func(h *record.Header)
		want string
	}{
		{"quota", func(h *record.Header) { h.Quota = 1 << 62 }, "header: quota must be between 1 and 1073741824, got 4611686018427387904"},
		{"heap", func(h *record.Header) { h.MaxHeap = 1 << 62 }, "header: max-heap must be between 1MiB and 1TiB, got 4611686018427387904"},
	} {
		h := r.rec.Header
		c.edit(&h)
		rec := filepath.Join(dir, c.name+".rec")
		os.WriteFile(rec, withHeader(r, h), 0o644)
		for _, args := range [][]string{{"replay", rec}, {"trace", rec, "-o", filepath.Join(dir, "t.json")}, {"debug", "--replay", rec}} {
			code, _, errs := cli(args...)
			if code != 1 || !strings.Contains(errs, c.want) {
				t.Errorf("%v: exit %d, stderr %q; want 1 and %q", args, code, errs, c.want)
			}
		}
	}
}

// TestReplayMaxHeap: --max-heap replaces the recording's heap limit (a
// run that ran out of memory under 1MiB does not under 64MiB, so the
// replay diverges), and a bad size is a usage error.
func TestReplayMaxHeap(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "dap", "hog.n")) // a 2.4 MB array
	if err != nil {
		t.Fatal(err)
	}
	r := recordScript(t, "hog.n", src, runOptions{Quota: 4000, MaxHeap: 1 << 20}, nil)
	if r.code != 1 || !strings.Contains(r.stderr, "OutOfMemoryException") {
		t.Fatalf("the recorded run: exit %d, stderr %q", r.code, r.stderr)
	}
	rec := filepath.Join(t.TempDir(), "hog.rec")
	os.WriteFile(rec, r.data, 0o644)
	if code, _, errs := cli("replay", rec); code != 1 || errs != r.stderr {
		t.Errorf("replay: exit %d, stderr %q; want the recorded run's", code, errs)
	}
	code, _, errs := cli("replay", "--max-heap", "64MiB", rec)
	if want := `replay a write to stdout "1\n"`; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("replay --max-heap 64MiB: exit %d, stderr %q; want a divergence where the program prints (no OutOfMemoryException) %q", code, errs, want)
	}
	if code, _, errs := cli("replay", "--max-heap", "2", rec); code != 2 || !strings.Contains(errs, "max-heap must be between 1MiB and 1TiB, got 2") {
		t.Errorf("replay --max-heap 2: exit %d, stderr %q", code, errs)
	}
	// the debugger: the recording's limit, or the one given over it
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"replay": rec, "stopOnEntry": true}, "OutOfMemoryException"},
		{map[string]any{"replay": rec, "stopOnEntry": true, "maxHeap": "64MiB"}, "1\nProgram exited with code 0"},
	} {
		ft := newFakeTerminalArgs(t, c.args)
		if out := ft.Exec("continue"); !strings.Contains(out, c.want) {
			t.Errorf("%v: continue printed %q, want %q", c.args, out, c.want)
		}
	}
}

// TestReplayMaxSteps: --max-steps stops a replay (and a trace) that runs
// longer, with a message, exit 1.
func TestReplayMaxSteps(t *testing.T) {
	src := "import io;\nint main() {\n    int s = 0;\n    for (int i = 0; i < 100000; i += 1) { s += i; }\n    io.print(s);\n    return 0;\n}\n"
	r := recordScript(t, "loop.n", []byte(src), runOptions{Quota: 1000}, nil)
	dir := t.TempDir()
	rec := filepath.Join(dir, "loop.rec")
	os.WriteFile(rec, r.data, 0o644)
	want := "more than 5000 reductions (the step cap;"
	if code, out, errs := cli("replay", "--max-steps", "5000", rec); code != 1 || out != "" || !strings.Contains(errs, want) {
		t.Errorf("replay --max-steps 5000: exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errs, want)
	}
	if code, _, errs := cli("trace", "--max-steps", "5000", rec, "-o", filepath.Join(dir, "t.json")); code != 1 || !strings.Contains(errs, want) {
		t.Errorf("trace --max-steps 5000: exit %d, stderr %q; want 1 and %q", code, errs, want)
	}
	if code, out, _ := cli("replay", "--max-steps", "1000000000", rec); code != 0 || out != r.stdout {
		t.Errorf("replay under a cap it does not reach: exit %d, stdout %q", code, out)
	}
}

// TestTraceRefusesItsInput: trace REC -o REC (or a link to REC) is
// refused, and the recording is left as it was.
func TestTraceRefusesItsInput(t *testing.T) {
	r := recordScript(t, "hello.n", []byte(helloProg), runOptions{Quota: 4000}, nil)
	dir := t.TempDir()
	rec := filepath.Join(dir, "hello.rec")
	os.WriteFile(rec, r.data, 0o644)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(rec, link); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{rec, link} {
		code, _, errs := cli("trace", rec, "-o", out)
		if want := "-o " + out + " is the recording " + rec + " itself; refusing to overwrite it"; code != 2 || !strings.Contains(errs, want) {
			t.Errorf("trace -o %s: exit %d, stderr %q; want 2 and %q", out, code, errs, want)
		}
	}
	if data, _ := os.ReadFile(rec); !bytes.Equal(data, r.data) {
		t.Fatal("the recording changed")
	}
}

// TestExploreMergeUntrusted: explore merge does not trust a result.json:
// a special file is refused at once (/dev/zero was read until memory ran
// out), a null failure is an error (it panicked), a shard out of range is
// refused (shard 5 of 2 counted "-2 schedules"), and escape sequences in
// its strings are shown escaped, not sent to the terminal.
func TestExploreMergeUntrusted(t *testing.T) {
	base := t.TempDir()
	write := func(name, content string) string {
		d := filepath.Join(base, name)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "result.json"), []byte(content), 0o644)
		return d
	}
	const good = `{"program":"p.n","strategy":"pct","granularity":"shared","depth":3,"seed":0,"shard":0,"shards":1,"schedules":5,"points":9,"seconds":0.1,"failures":[%s]}`
	const failure = `{"kind":"deadlock\u001b]0;owned\u0007","place":"x\u001b[2J","message":"line\u001b[31m red\nnext","schedule":1,"hits":1,"preemptions":1,"shrunkPreemptions":1,"decisions":[]}`
	zero := filepath.Join(base, "zero")
	os.MkdirAll(zero, 0o755)
	os.Symlink("/dev/zero", filepath.Join(zero, "result.json"))
	for _, c := range []struct {
		dir, want string
	}{
		{zero, "result.json: not a regular file (it is a device;"},
		{write("null", strings.Replace(good, "%s", "null", 1)), "not an exploration result: failure 1 is null"},
		{write("shard", strings.Replace(strings.Replace(good, "%s", "", 1), `"shard":0,"shards":1`, `"shard":5,"shards":2`, 1)), "not an exploration result: shard 5 of 2"},
		{write("negative", strings.Replace(strings.Replace(good, "%s", "", 1), `"schedules":5`, `"schedules":-2`, 1)), "a count out of range (schedules -2"},
	} {
		code, out, errs := cli("explore", "merge", c.dir)
		if code != 1 || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("merge %s: exit %d, stdout %q, stderr %q; want 1 and %q", filepath.Base(c.dir), code, out, errs, c.want)
		}
	}
	code, out, errs := cli("explore", "merge", write("escapes", strings.Replace(good, "%s", failure, 1)))
	if code != 3 || strings.ContainsAny(out+errs, "\x1b\x07") {
		t.Fatalf("merge: exit %d, stdout %q, stderr %q; want 3 and no control characters", code, out, errs)
	}
	for _, want := range []string{`failure 1: deadlock\x1b]0;owned\x07 at x\x1b[2J`, `  line\x1b[31m red` + "\n  next\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("merge: stdout %q lacks %q", out, want)
		}
	}
}

// TestExploreOutCheckedFirst: an --out that cannot be a directory is
// refused before anything runs (it was refused after the whole
// exploration).
func TestExploreOutCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	prog := filepath.Join(dir, "p.n")
	os.WriteFile(prog, []byte("import io;\nint main() {\n    io.writeFile(\""+marker+"\", \"x\");\n    return 0;\n}\n"), 0o644)
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, nil, 0o644)
	code, _, errs := cli("explore", "--schedules", "3", "--out", file, prog)
	if code != 1 || !strings.Contains(errs, "nlangdbg explore: --out "+file+":") {
		t.Fatalf("exit %d, stderr %q; want 1 and the --out error", code, errs)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the program ran before --out was checked")
	}
	if code, _, errs := cli("explore", "--schedules", "3", "--out", filepath.Join(dir, "out"), prog); code != 0 {
		t.Fatalf("with a good --out: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the program did not run")
	}
}

// TestExploreExpectOutputSpecial: --expect-output must be a regular file
// (/dev/zero was read until memory ran out).
func TestExploreExpectOutputSpecial(t *testing.T) {
	code, _, errs := cli("explore", "--expect-output", "/dev/zero", "--out", t.TempDir(), "../../testdata/explore/bench4.n")
	if want := "open /dev/zero: not a regular file (it is a device; --expect-output takes a file holding the expected output)"; code != 1 || !strings.Contains(errs, want) {
		t.Fatalf("exit %d, stderr %q; want 1 and %q", code, errs, want)
	}
}

// TestPrintable: what a terminal would act on is escaped, text is not.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, tab\there, ü, \ufffd": "plain text, tab\there, ü, \ufffd",
		"\x1b[2Jclear":                     `\x1b[2Jclear`,
		"bell\a, del\x7f, csi\u009b":       `bell\x07, del\x7f, csi\u009b`,
		"bad \xff byte":                    `bad \xff byte`,
		"rtl \u202e override":              `rtl \u202e override`,
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPrintJSONEscapes: --json escapes what encoding/json leaves raw and
// a terminal acts on (DEL, the C1 controls such as CSI U+009B), and
// stays the same JSON (found by FuzzExploreMerge).
func TestPrintJSONEscapes(t *testing.T) {
	res := &explore.Result{Strategy: explore.PCT, Shards: 1, Failures: []*explore.Failure{{Kind: "del\x7f csi\u009b[2J rtl\u202e", Hits: 1}}}
	var out bytes.Buffer
	printJSON(&out, res)
	if want := `"kind": "del\u007f csi\u009b[2J rtl\u202e"`; !strings.Contains(out.String(), want) {
		t.Fatalf("--json: %s\nwant %s", out.String(), want)
	}
	var back explore.Result
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || back.Failures[0].Kind != res.Failures[0].Kind {
		t.Fatalf("the escaped JSON reads back as %v, %+v", err, back.Failures)
	}
}
