package main

// Every front end builds its run through sched.Boot, so a permission or a
// limit reaches every run the same way. These tests run each permission
// and limit through every front end and expect the same outcome: the
// same refusal inside the program for --deny-fs, the same words for a
// limit out of range.

import (
	"bytes"
	"flag"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-dap"

	dapserver "github.com/nlangdbg/nlangdbg/dap"
	"github.com/nlangdbg/nlangdbg/dap/daptest"
	"github.com/nlangdbg/nlangdbg/inspect"
	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/record"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// frontProgram reads a file that exists: it prints "read: ok" unless a
// permission refuses it.
const frontProgram = `import io;
int main() {
    try { io.readFile("SECRET"); io.print("read: ok"); } catch (IOException e) { io.print("read: " + e.message); }
    return 0;
}
`

// frontFixture writes the program and its secret, and returns the
// program's path and the line a --deny-fs run prints.
func frontFixture(t *testing.T) (prog, refusal string) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	prog = filepath.Join(dir, "front.n")
	if err := os.WriteFile(prog, []byte(strings.ReplaceAll(frontProgram, "SECRET", secret)), 0o644); err != nil {
		t.Fatal(err)
	}
	return prog, refusalOf(prog)
}

// frontEnd runs the program with flags through one front end and
// returns the program's stdout (or the front end's error).
type frontEnd struct {
	name string
	run  func(t *testing.T, prog string, flags []string) string
}

// frontEnds are every way a user starts a run.
var frontEnds = []frontEnd{
	{"run", func(t *testing.T, prog string, flags []string) string {
		return cliOut(t, append(append([]string{"run"}, flags...), prog)...)
	}},
	{"run --record", func(t *testing.T, prog string, flags []string) string {
		rec := filepath.Join(t.TempDir(), "r.rec")
		return cliOut(t, append(append([]string{"run", "--record", rec}, flags...), prog)...)
	}},
	{"run --race", func(t *testing.T, prog string, flags []string) string {
		return cliOut(t, append(append([]string{"run", "--race"}, flags...), prog)...)
	}},
	{"run --dump-on-crash", func(t *testing.T, prog string, flags []string) string {
		dump := filepath.Join(t.TempDir(), "d.core")
		return cliOut(t, append(append([]string{"run", "--dump-on-crash", dump}, flags...), prog)...)
	}},
	{"replay", func(t *testing.T, prog string, flags []string) string {
		rec := filepath.Join(t.TempDir(), "r.rec")
		cliOut(t, append(append([]string{"run", "--record", rec}, flags...), prog)...)
		return cliOut(t, "replay", rec)
	}},
	{"run --listen", func(t *testing.T, prog string, flags []string) string {
		var out, errb bytes.Buffer
		code := doMain(append(append([]string{"run", "--listen", "127.0.0.1:0"}, flags...), prog), strings.NewReader(""), &out, &errb)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return out.String()
	}},
	{"debug", func(t *testing.T, prog string, flags []string) string {
		var o runOptions
		fs := flag.NewFlagSet("debug", flag.ContinueOnError)
		o.flags(fs)
		if err := fs.Parse(flags); err != nil {
			t.Fatal(err)
		}
		ft := newFakeTerminalArgs(t, o.launchArgs(prog, nil))
		return ft.Exec("continue")
	}},
	{"debug --replay", func(t *testing.T, prog string, flags []string) string {
		rec := filepath.Join(t.TempDir(), "r.rec")
		cliOut(t, append(append([]string{"run", "--record", rec}, flags...), prog)...)
		ft := newFakeTerminalArgs(t, map[string]any{"replay": rec, "stopOnEntry": true})
		return ft.Exec("continue")
	}},
	{"dap launch", func(t *testing.T, prog string, flags []string) string {
		var o runOptions
		fs := flag.NewFlagSet("dap", flag.ContinueOnError)
		o.flags(fs)
		if err := fs.Parse(flags); err != nil {
			t.Fatal(err)
		}
		args := o.launchArgs(prog, nil)
		args["stopOnEntry"] = false
		c := dapSession(t)
		c.LaunchRequest(args)
		daptest.ExpectResponse[*dap.LaunchResponse](t, c)
		c.ConfigurationDoneRequest()
		daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
		c.ExpectExitedEvent(t)
		return c.Output("stdout")
	}},
	{"explore", func(t *testing.T, prog string, flags []string) string {
		// explore prints no program output: every schedule's output is
		// checked against the line the others print
		refusal := refusalOf(prog)
		want := filepath.Join(t.TempDir(), "want.txt")
		os.WriteFile(want, []byte(refusal+"\n"), 0o644)
		out := t.TempDir()
		code, stdout, stderr := cli(append(append([]string{"explore", "--schedules", "3", "--out", out, "--expect-output", want}, flags...), prog)...)
		if code != 0 {
			return stdout + stderr
		}
		return refusal + "\n"
	}},
}

// refusalOf is the line the fixture's program at prog prints under
// --deny-fs.
func refusalOf(prog string) string {
	secret := filepath.Join(filepath.Dir(prog), "secret.txt")
	return `read: io.readFile: permission denied for "` + secret + `": file access is off (--deny-fs)`
}

// cliOut runs nlangdbg and returns its stdout; it fails t on a non-zero
// exit.
func cliOut(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errb := cli(args...)
	if code != 0 {
		t.Fatalf("%v: exit %d, stderr %s", args, code, errb)
	}
	return out
}

// dapSession returns an initialized DAP client of an in-process server.
func dapSession(t *testing.T) *daptest.Client {
	c1, c2 := net.Pipe()
	srv := &dapserver.Server{}
	go srv.ServeConn(c2)
	c := daptest.NewClient(c1)
	t.Cleanup(func() { c.Close() })
	c.Initialize(t)
	return c
}

// TestFrontEndsDenyFS: --deny-fs refuses the program's file access in
// every front end (run --dump-on-crash once forgot it).
func TestFrontEndsDenyFS(t *testing.T) {
	prog, refusal := frontFixture(t)
	if out := cliOut(t, "run", prog); !strings.Contains(out, "read: ok") {
		t.Fatalf("without --deny-fs: %q", out) // the file is there to be read
	}
	for _, fe := range frontEnds {
		t.Run(fe.name, func(t *testing.T) {
			if out := fe.run(t, prog, []string{"--deny-fs"}); !strings.Contains(out, refusal) {
				t.Errorf("%s --deny-fs: output %q, want %q", fe.name, out, refusal)
			}
		})
	}
}

// TestFrontEndsRefuseLimits: a limit out of range is refused with the
// same words by every front end, a recording's header included.
func TestFrontEndsRefuseLimits(t *testing.T) {
	prog, _ := frontFixture(t)
	const want = "max-frames must be between 1 and 100000000, got 0"
	for _, c := range []string{"run", "debug", "explore"} {
		code, _, errb := cli(c, "--max-frames", "0", prog)
		if code == 0 || errb != "nlangdbg "+c+": "+want+"\n" {
			t.Errorf("%s --max-frames 0: exit %d, stderr %q", c, code, errb)
		}
	}
	for _, extra := range [][]string{{"--record", "r.rec"}, {"--race"}, {"--dump-on-crash", "d.core"}, {"--listen", "127.0.0.1:0"}} {
		args := append(append([]string{"run"}, extra...), "--max-frames", "0", prog)
		code, _, errb := cli(args...)
		if code != 2 || errb != "nlangdbg run: "+want+"\n" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb)
		}
	}
	c := dapSession(t)
	c.LaunchRequest(map[string]any{"program": prog, "maxFrames": 0})
	if e := c.ExpectErrorResponse(t, "launch"); !strings.Contains(e.Body.Error.Format, want) {
		t.Errorf("dap launch maxFrames 0: %q", e.Body.Error.Format)
	}

	// A recording whose header says what no flag may: replay, trace and
	// the debugger refuse it in the same words.
	src, _ := os.ReadFile(prog)
	p, err := compile.CompileFile(prog, src, compile.Options{Lib: inspect.Library(), ReadFile: inspect.ReadSource})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rec := record.NewRecorder(record.Header{Path: prog, Source: src, Hash: record.ProgramHash(p), MaxFrames: 200_000_000})
	r, err := sched.Boot(p, sched.RunConfig{Tap: rec.To(&buf), Stdout: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Finish(r.Sched.Run()); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.rec")
	os.WriteFile(bad, buf.Bytes(), 0o644)
	const wantRec = "max-frames must be between 1 and 100000000, got 200000000"
	for _, args := range [][]string{{"replay", bad}, {"trace", bad, "-o", bad + ".json"}} {
		code, _, errb := cli(args...)
		if code == 0 || !strings.Contains(errb, wantRec) {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb)
		}
	}
	c.LaunchRequest(map[string]any{"replay": bad})
	if e := c.ExpectErrorResponse(t, "launch"); !strings.Contains(e.Body.Error.Format, wantRec) {
		t.Errorf("dap launch replay: %q", e.Body.Error.Format)
	}
}
