package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRunLimitsRefused: out-of-range limits are refused with exit code 2
// and the message every front end uses (inspect.Limits.Check), never
// replaced by a default.
func TestRunLimitsRefused(t *testing.T) {
	prog := filepath.Join("..", "..", "testdata", "run", "core", "arrays.n")
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--quota", "0"}, "nlangdbg run: quota must be between 1 and 1073741824, got 0\n"},
		{[]string{"--quota", "-5"}, "nlangdbg run: quota must be between 1 and 1073741824, got -5\n"},
		{[]string{"--max-frames", "0"}, "nlangdbg run: max-frames must be between 1 and 100000000, got 0\n"},
		{[]string{"--max-frames", "-1"}, "nlangdbg run: max-frames must be between 1 and 100000000, got -1\n"},
		{[]string{"--max-heap", "-1"}, "nlangdbg run: max-heap must be between 1MiB and 1TiB, got -1\n"},
		{[]string{"--carriers", "1000000"}, "nlangdbg run: carriers must be between 1 and 256, got 1000000\n"},
		{[]string{"--carriers", "0"}, "nlangdbg run: carriers must be between 1 and 256, got 0\n"},
	} {
		for _, cmd := range []string{"run", "debug"} {
			var out, errb bytes.Buffer
			args := append(append([]string{cmd}, tc.flags...), prog)
			code := doMain(args, strings.NewReader(""), &out, &errb)
			want := strings.Replace(tc.want, "nlangdbg run:", "nlangdbg "+cmd+":", 1)
			if code != 2 || errb.String() != want || out.Len() != 0 {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", args, code, out.String(), errb.String(), want)
			}
		}
	}
}

// TestRunMaxHeapUnits: --max-heap takes units; a bad size is a usage error.
func TestRunMaxHeapUnits(t *testing.T) {
	prog := filepath.Join("..", "..", "testdata", "run", "core", "arrays.n")
	var out, errb bytes.Buffer
	if code := doMain([]string{"run", "--max-heap", "100MB", prog}, nil, &out, &errb); code != 0 {
		t.Fatalf("--max-heap 100MB: exit %d, stderr %s", code, errb.String())
	}
	errb.Reset()
	code := doMain([]string{"run", "--max-heap", "12XB", prog}, nil, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), `"12XB" is not a size`) {
		t.Fatalf("--max-heap 12XB: exit %d, stderr %s", code, errb.String())
	}
}

// TestRunRefusesSpecialFiles: a device or a FIFO is refused at once, not
// read until memory runs out or forever.
func TestRunRefusesSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.n")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{"/dev/zero": "a device", fifo: "a FIFO", t.TempDir(): "a directory"} {
		for _, cmd := range []string{"run", "disasm"} {
			var out, errb bytes.Buffer
			code := doMain([]string{cmd, path}, nil, &out, &errb)
			want := "nlangdbg: open " + path + ": not a regular file (it is " + kind + "; a program must be a .n source file)\n"
			if code != 1 || errb.String() != want {
				t.Errorf("%s %s: exit %d, stderr %q; want 1 and %q", cmd, path, code, errb.String(), want)
			}
		}
	}
}

// TestRunWarnsAboutLateFlags: a known flag after the program file is a
// program argument; the user is told so.
func TestRunWarnsAboutLateFlags(t *testing.T) {
	prog := filepath.Join("..", "..", "testdata", "run", "core", "arrays.n")
	var out, errb bytes.Buffer
	code := doMain([]string{"run", prog, "--quota=5", "--", "--seed", "x"}, nil, &out, &errb)
	want := "nlangdbg run: warning: --quota=5 comes after the program file, so it is a program argument, not a flag (put flags before PROG.n)\n"
	if code != 0 || errb.String() != want {
		t.Fatalf("exit %d, stderr %q; want 0 and %q", code, errb.String(), want)
	}
}

// TestRunListenHonoursLimits: run --listen passes --max-frames and
// --max-heap to the program as run does.
func TestRunListenHonoursLimits(t *testing.T) {
	deep := filepath.Join("..", "..", "testdata", "dap", "deep.n") // a 100,000-deep recursion
	hog := filepath.Join("..", "..", "testdata", "dap", "hog.n")   // a 2.4 MB array
	for _, tc := range []struct {
		prog  string
		flags []string
		code  int
		want  string
	}{
		{deep, []string{"--max-frames", "50"}, 1, "Runtime error: StackOverflowException"},
		{hog, []string{"--max-heap", "1MiB"}, 1, "Runtime error: OutOfMemoryException"},
		{deep, nil, 0, ""},
		{hog, nil, 0, ""},
	} {
		var out bytes.Buffer
		errb := newWatchWriter()
		args := append(append([]string{"run", "--listen", "127.0.0.1:0"}, tc.flags...), tc.prog)
		code := doMain(args, strings.NewReader(""), &out, errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.flags, code, errb.String(), tc.code, tc.want)
		}
	}
}
