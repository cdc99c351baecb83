package dap

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// TestLaunchLimitsRefused: launch checks its limits as the command line
// does (the same messages, after "launch: ").
func TestLaunchLimitsRefused(t *testing.T) {
	f := loadFixture(t, "testdata/dap/basic.n")
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"quota": 0}, "launch: quota must be between 1 and 1073741824, got 0"},
		{map[string]any{"quota": -5}, "launch: quota must be between 1 and 1073741824, got -5"},
		{map[string]any{"carriers": 100000000}, "launch: carriers must be between 1 and 256, got 100000000"},
		{map[string]any{"maxFrames": 0}, "launch: max-frames must be between 1 and 100000000, got 0"},
		{map[string]any{"maxHeap": -1}, "launch: max-heap must be between 1MiB and 1TiB, got -1"},
		{map[string]any{"maxHeap": "1KB"}, "launch: max-heap must be between 1MiB and 1TiB, got 1000"},
	} {
		c := startServer(t, nil)
		c.Initialize(t)
		args := map[string]any{"program": f.Path}
		for k, v := range tc.args {
			args[k] = v
		}
		c.LaunchRequest(args)
		if r := c.ExpectErrorResponse(t, "launch"); r.Message != tc.want {
			t.Errorf("launch %v: %q, want %q", tc.args, r.Message, tc.want)
		}
	}
}

// TestLaunchLimitsAccepted: maxHeap takes a size with a unit, and the
// limits reach the program (a recursion deeper than maxFrames overflows).
func TestLaunchLimitsAccepted(t *testing.T) {
	runSession(t, "testdata/dap/deep.n", func(c *daptest.Client, f *fixture) {
		expectExit(t, c, 1)
		if out := c.Output("stderr"); !strings.HasPrefix(out, "Runtime error: StackOverflowException") {
			t.Fatalf("stderr %q, want a StackOverflowException", out)
		}
	}, withLaunch(map[string]any{"maxFrames": 50, "maxHeap": "64MiB"}))
}

// TestLaunchRefusesSpecialFiles: launch of a device or a FIFO answers an
// error at once.
func TestLaunchRefusesSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.n")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{"/dev/zero": "a device", fifo: "a FIFO"} {
		c := startServer(t, nil)
		c.Initialize(t)
		c.LaunchRequest(map[string]any{"program": path})
		want := "cannot launch " + path + ": not a regular file (it is " + kind + "; a program must be a .n source file)"
		if r := c.ExpectErrorResponse(t, "launch"); r.Message != want {
			t.Errorf("launch %s: %q, want %q", path, r.Message, want)
		}
	}
}

// TestContinueUnknownThread: continue on a thread that does not exist is
// an error, as next is, and the program stays stopped.
func TestContinueUnknownThread(t *testing.T) {
	runSession(t, "testdata/dap/basic.n", func(c *daptest.Client, f *fixture) {
		c.ExpectStoppedEvent(t)
		for _, cmd := range []string{"continue", "next"} {
			if cmd == "continue" {
				c.ContinueRequest(9999, false)
			} else {
				c.NextRequest(9999, false)
			}
			if r := c.ExpectErrorResponse(t, cmd); r.Message != cmd+": no thread 9999" {
				t.Errorf("%s on thread 9999: %q", cmd, r.Message)
			}
		}
		c.ThreadsRequest()
		daptest.ExpectResponse[*dap.ThreadsResponse](t, c)
		continueToExit(t, c, 1, 0)
	}, withLaunch(map[string]any{"stopOnEntry": true}))
}

// TestLaunchFilePermissions: the launch arguments allowRead, allowWrite
// and denyFs restrict the program as the command-line flags do.
func TestLaunchFilePermissions(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "rd.n")
	os.WriteFile(prog, []byte("import io;\nint main() {\n    io.print(io.readFile(\""+prog+"\").length() > 0);\n    return 0;\n}\n"), 0o644)
	for _, tc := range []struct {
		args map[string]any
		code int
		want string
	}{
		{map[string]any{"denyFs": true}, 1, "file access is off (--deny-fs)"},
		{map[string]any{"allowWrite": []string{dir}}, 1, "no --allow-read directory is given"},
		{map[string]any{"allowRead": []string{dir}}, 0, ""},
	} {
		c := startServer(t, nil)
		c.Initialize(t)
		args := map[string]any{"program": prog}
		for k, v := range tc.args {
			args[k] = v
		}
		c.LaunchRequest(args)
		daptest.ExpectResponse[*dap.LaunchResponse](t, c)
		c.ConfigurationDoneRequest()
		daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
		expectExit(t, c, tc.code)
		if tc.want != "" && !strings.Contains(c.Output("stderr"), tc.want) {
			t.Errorf("%v: stderr %q, want %q", tc.args, c.Output("stderr"), tc.want)
		}
	}
	c := startServer(t, nil)
	c.Initialize(t)
	c.LaunchRequest(map[string]any{"program": prog, "denyFs": true, "allowRead": []string{dir}})
	if r := c.ExpectErrorResponse(t, "launch"); r.Message != "launch: deny-fs cannot be combined with allow-read or allow-write" {
		t.Errorf("launch: %q", r.Message)
	}
}
