package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/internal/scripttest"
	"github.com/nlangdbg/nlangdbg/sched/record"
)

// recorded is one recorded run and what it printed.
type recorded struct {
	rec            *record.Recording
	data           []byte
	stdout, stderr string
	code           int
}

// recordScript records src under opts with stdin and parses the recording.
func recordScript(t *testing.T, path string, src []byte, opts runOptions, stdin io.Reader) recorded {
	t.Helper()
	var errb bytes.Buffer
	prog := compileProgram(path, src, &errb)
	if prog == nil {
		t.Fatalf("compile: %s", errb.String())
	}
	var w, out bytes.Buffer
	code, err := recordRun(prog, path, src, nil, opts, &w, stdin, &out, &errb)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := record.Parse(w.Bytes())
	if err != nil {
		t.Fatalf("reading the recording back: %v", err)
	}
	return recorded{rec: rec, data: w.Bytes(), stdout: out.String(), stderr: errb.String(), code: exitStatus(code)}
}

// replayRecorded replays r and requires the same stdout, stderr and exit
// code, byte for byte.
func replayRecorded(t *testing.T, r recorded) {
	t.Helper()
	var errb bytes.Buffer
	prog, msg := loadRecorded(r.rec, "rec", "", &errb)
	if prog == nil {
		t.Fatal(msg)
	}
	var out bytes.Buffer
	code, div := replayRun(prog, r.rec, false, replayOptions{}, &out, &errb)
	if div != nil {
		t.Fatalf("replay: %v", div)
	}
	if out.String() != r.stdout || errb.String() != r.stderr || exitStatus(code) != r.code {
		t.Fatalf("replay printed stdout %q, stderr %q, exit %d; the recorded run %q, %q, %d",
			out.String(), errb.String(), code, r.stdout, r.stderr, r.code)
	}
}

// TestReplayScripts records every testdata script under each quota (with
// its stdin) and replays the recording: the recorded run meets the
// script's expectations and the replay prints the same, byte for byte.
func TestReplayScripts(t *testing.T) {
	forEachScript(t, func(t *testing.T, f, name string, src []byte, s *scripttest.Script) {
		if len(s.Errors) > 0 {
			return // a compile error: there is no run to record
		}
		skipSlowScript(t, name)
		qs := quotas
		if s.Quota > 0 {
			qs = []int{s.Quota}
		}
		for _, q := range qs {
			r := recordScript(t, f, src, runOptions{Quota: q, Seed: s.Seed}, strings.NewReader(s.Stdin))
			if len(s.Args) == 0 { // (with `// args:` the script's stderr is the command line's warnings)
				for _, d := range s.Check(scripttest.Result{Stdout: r.stdout, Stderr: r.stderr, Exit: r.code}) {
					t.Errorf("quota %d, recording: %s", q, d)
				}
			}
			replayRecorded(t, r)
		}
	})
}

// pipeProg reads lines that arrive through a pipe while another thread
// counts and sleeps: where the lines land between the counter's lines
// depends on when they arrive, which the recording must carry.
const pipeProg = `import io;
import thread;
void counter() {
    for (int i = 0; i < 30; i = i + 1) {
        io.print("tick " + i);
        thread.sleep(1);
    }
}
int main() {
    Thread c = thread.spawn(counter);
    while (io.hasInput()) {
        io.print("line " + io.readLine());
    }
    c.join();
    return 0;
}
`

// TestReplayPipeInput records a run whose input arrives through a pipe
// (reads park; the lines arrive at moments of the writer's choosing) and
// replays it without the pipe.
func TestReplayPipeInput(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		for i := 0; i < 5; i++ {
			io.WriteString(pw, "l"+string(rune('a'+i))+"\n")
		}
		pw.Close()
	}()
	r := recordScript(t, "pipe.n", []byte(pipeProg), runOptions{Quota: 7}, pr)
	for _, want := range []string{"line la\n", "line le\n", "tick 29\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("stdout %q lacks %q", r.stdout, want)
		}
	}
	if r.rec.Header.InputDirect {
		t.Fatal("a pipe was taken for input that never blocks")
	}
	replayRecorded(t, r)
}

// rewrite replaces old by new (the same length) in a recording and
// fixes its checksum.
func rewrite(t *testing.T, data []byte, old, new string) []byte {
	t.Helper()
	i := bytes.Index(data, []byte(old))
	if i < 0 || len(old) != len(new) {
		t.Fatalf("%q not in the recording", old)
	}
	out := append([]byte(nil), data...)
	copy(out[i:], new)
	n := len(out) - 4
	binary.LittleEndian.PutUint32(out[n:], crc32.ChecksumIEEE(out[:n]))
	return out
}

const helloProg = `import io;
int main() {
    io.print("hello");
    io.print("world");
    return 4;
}
`

// TestReplayDivergence: a recording whose output differs from what the
// program prints is reported at the first differing event, and exits 1.
func TestReplayDivergence(t *testing.T) {
	r := recordScript(t, "hello.n", []byte(helloProg), runOptions{Quota: 4000}, nil)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.rec")
	os.WriteFile(bad, rewrite(t, r.data, "world\n", "wordl\n"), 0o644)
	var out, errb bytes.Buffer
	code := replayFile(bad, "", false, replayOptions{}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	want := `replay diverged at event 1 (after 0 dispatches): recorded a write to stdout "wordl\n", replay a write to stdout "world\n"`
	if !strings.Contains(errb.String(), want) {
		t.Fatalf("stderr %q lacks %q", errb.String(), want)
	}
	if out.String() != "hello\n" {
		t.Fatalf("stdout %q: the output up to the divergence is written, no more", out.String())
	}
}

// TestReplayRefused: a corrupt, cut, foreign or future file gets a
// clear error, as does a recording replayed against another program.
func TestReplayRefused(t *testing.T) {
	r := recordScript(t, "hello.n", []byte(helloProg), runOptions{Quota: 4000}, nil)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flipped := append([]byte(nil), r.data...)
	flipped[len(flipped)-10] ^= 0x20
	future := append([]byte(nil), r.data...)
	future[len(record.Magic)] = record.Version + 1
	other := write("other.n", []byte(strings.Replace(helloProg, "world", "there", 1)))
	for _, c := range []struct {
		name, rec, prog, want string
	}{
		{"cut", write("cut.rec", r.data[:len(r.data)-12]), "", "cut short after"},
		{"flipped", write("flip.rec", flipped), "", "bad recording: corrupt (checksum mismatch"},
		{"foreign", write("foreign.rec", []byte("import io;\n")), "", `not an nlangdbg recording (no "NLANGREC" at the start)`},
		{"future", write("future.rec", future), "", "format version 2; this nlangdbg reads version 1"},
		{"other program", write("ok.rec", r.data), other, "is a recording of another program (hello.n), not of " + other},
		{"another build", write("build.rec", rewrite(t, r.data, r.rec.Header.Hash[:8], "00000000")), "", "was recorded by another build of nlangdbg"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := replayFile(c.rec, c.prog, false, replayOptions{}, &out, &errb)
			if code != 1 || !strings.Contains(errb.String(), c.want) {
				t.Fatalf("exit %d, stderr %q; want 1 and %q", code, errb.String(), c.want)
			}
			if out.Len() != 0 {
				t.Fatalf("stdout %q, want nothing", out.String())
			}
		})
	}
}

// TestRecordNeedsOneCarrier: run --record with several carriers says so.
func TestRecordNeedsOneCarrier(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "hello.n")
	os.WriteFile(prog, []byte(helloProg), 0o644)
	var out, errb bytes.Buffer
	code := runCmd([]string{"--record", filepath.Join(dir, "r.rec"), "--carriers", "2", prog}, nil, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "--record needs one carrier, got --carriers 2") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "r.rec")); err == nil {
		t.Fatal("a recording was written")
	}
}

// TestRecordReplayCommands goes through the commands: run --record
// writes a file that replay re-executes with the same output and exit
// code, reading files the replay no longer finds.
func TestRecordReplayCommands(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.txt")
	os.WriteFile(data, []byte("from a file"), 0o644)
	src := `import io;
import fs;
int main() {
    io.print(io.readFile("` + data + `"));
    if (fs.exists("` + data + `")) {
        io.print("exists");
    }
    io.eprint("to stderr");
    return 7;
}
`
	prog := filepath.Join(dir, "files.n")
	os.WriteFile(prog, []byte(src), 0o644)
	rec := filepath.Join(dir, "files.rec")
	var out, errb bytes.Buffer
	if code := runCmd([]string{"--record", rec, prog}, strings.NewReader(""), &out, &errb); code != 7 {
		t.Fatalf("run: exit %d, stderr %s", code, errb.String())
	}
	if out.String() != "from a file\nexists\n" || errb.String() != "to stderr\n" {
		t.Fatalf("run: stdout %q, stderr %q", out.String(), errb.String())
	}
	os.Remove(data)
	os.Remove(prog)
	var out2, errb2 bytes.Buffer
	if code := replayCmd([]string{rec}, nil, &out2, &errb2); code != 7 {
		t.Fatalf("replay: exit %d, stderr %s", code, errb2.String())
	}
	if out2.String() != out.String() || errb2.String() != errb.String() {
		t.Fatalf("replay: stdout %q, stderr %q", out2.String(), errb2.String())
	}
}

// TestDumpOnCrash: run --dump-on-crash writes a dump when main dies of an
// uncaught exception or the program deadlocks, and nothing otherwise; the
// dump is a recording that replays, and opens at the crash.
func TestDumpOnCrash(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, src string
		code      int
		dumped    bool
	}{
		{"exception", "int main() {\n    int[] a = new int[1];\n    return a[3];\n}\n", 1, true},
		{"deadlock", "int main() {\n    Channel<int> c = {};\n    return c.recv();\n}\n", 2, true},
		{"fine", "int main() {\n    return 1;\n}\n", 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := filepath.Join(dir, c.name+".n")
			os.WriteFile(prog, []byte(c.src), 0o644)
			dump := filepath.Join(dir, c.name+".dump")
			var out, errb bytes.Buffer
			code := runCmd([]string{"--dump-on-crash", dump, prog}, nil, &out, &errb)
			if code != c.code {
				t.Fatalf("exit %d, want %d (%s)", code, c.code, errb.String())
			}
			_, err := os.Stat(dump)
			if (err == nil) != c.dumped {
				t.Fatalf("dump written: %v, want %v (stderr %q)", err == nil, c.dumped, errb.String())
			}
			if !c.dumped {
				return
			}
			if !strings.Contains(errb.String(), "nlangdbg: the crash is in "+dump) {
				t.Fatalf("stderr %q does not say where the dump is", errb.String())
			}
			rec, err := record.ReadFile(dump)
			if err != nil || rec.Core == nil || !rec.Core.AtEnd {
				t.Fatalf("dump: %v %+v", err, rec)
			}
			var out2, errb2 bytes.Buffer
			if code := replayFile(dump, "", false, replayOptions{}, &out2, &errb2); code != c.code {
				t.Fatalf("replay of the dump: exit %d (%s)", code, errb2.String())
			}
		})
	}
	// a recording is not a dump
	prog := filepath.Join(dir, "fine.n")
	rec := filepath.Join(dir, "fine.rec")
	var out, errb bytes.Buffer
	runCmd([]string{"--record", rec, prog}, nil, &out, &errb)
	errb.Reset()
	if code := debugCmd([]string{"--core", rec}, strings.NewReader(""), &out, &errb); code != 1 || !strings.Contains(errb.String(), "is a recording, not a dump (open it with --replay)") {
		t.Fatalf("debug --core of a recording: exit %d, %q", code, errb.String())
	}
}
