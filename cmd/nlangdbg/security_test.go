package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// TestListenRefusesRemoteAddress: both servers refuse an address other
// machines can reach unless --allow-remote is given, which warns.
func TestListenRefusesRemoteAddress(t *testing.T) {
	prog := filepath.Join("..", "..", "testdata", "run", "core", "arrays.n")
	for _, args := range [][]string{{"dap", "--listen", "0.0.0.0:0"}, {"run", "--listen", "0.0.0.0:0", prog}} {
		var out, errb bytes.Buffer
		code := doMain(args, strings.NewReader(""), &out, &errb)
		if code != 1 || !strings.Contains(errb.String(), "refusing to listen at 0.0.0.0:0: not a loopback address") ||
			!strings.Contains(errb.String(), "--allow-remote") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
	// With --allow-remote the program runs (and ends: nothing attaches).
	var out bytes.Buffer
	errb := newWatchWriter()
	code := doMain([]string{"run", "--listen", "0.0.0.0:0", "--allow-remote", prog}, strings.NewReader(""), &out, errb)
	if code != 0 || !strings.Contains(errb.String(), "WARNING: listening at") || !strings.Contains(errb.String(), "no --token-file is set") {
		t.Errorf("--allow-remote: exit %d, stderr %q", code, errb.String())
	}
}

// TestAttachTokenFile: a program started with --token-file is attached
// to only by `nlangdbg attach --token-file` with the same token.
func TestAttachTokenFile(t *testing.T) {
	bin := nlangdbgBinary(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "slow.n")
	os.WriteFile(prog, []byte(`import io;
import thread;
int main() {
    for (int i = 0; i < 200; i += 1) {
        thread.sleep(20);
    }
    io.print("done");
    return 7;
}
`), 0o644)
	tokFile, badFile := filepath.Join(dir, "token"), filepath.Join(dir, "bad")
	os.WriteFile(tokFile, []byte("  correct-horse\n"), 0o600)
	os.WriteFile(badFile, []byte("battery-staple\n"), 0o600)
	run := exec.Command(bin, "run", "--listen", "127.0.0.1:0", "--token-file", tokFile, prog)
	stderr, _ := run.StderrPipe()
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer run.Process.Kill()
	sc := bufio.NewScanner(stderr)
	addr := ""
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "DAP server listening at: "); ok {
			addr = a
			break
		}
	}
	if addr == "" {
		t.Fatal("no listen address on stderr")
	}
	go io.Copy(io.Discard, stderr)

	for _, args := range [][]string{{"attach", addr}, {"attach", "--token-file", badFile, addr}} {
		att := exec.Command(bin, args...)
		att.Stdin = strings.NewReader("threads\ndetach\n")
		out, err := att.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "wrong or missing token") {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
	// While one debugger is attached, a second is refused with a message.
	first, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c := daptest.NewClient(first)
	c.Initialize(t)
	tok, _ := os.ReadFile(tokFile)
	c.AttachRequest(map[string]any{"token": strings.TrimSpace(string(tok))})
	daptest.ExpectResponse[*dap.AttachResponse](t, c)
	c.ExpectStoppedEvent(t)
	second := exec.Command(bin, "attach", "--token-file", tokFile, addr)
	second.Stdin = strings.NewReader("threads\n")
	out, err := second.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "another debugger is attached") {
		t.Errorf("second attach: %v\n%s", err, out)
	}
	c.DisconnectRequest(false)
	daptest.ExpectResponse[*dap.DisconnectResponse](t, c)
	c.ExpectClosed(t)

	att := exec.Command(bin, "attach", "--token-file", tokFile, addr)
	att.Stdin = strings.NewReader("threads\nkill\ny\nquit\ny\n")
	out, err = att.CombinedOutput()
	if !regexp.MustCompile(`\[1\] "main"`).Match(out) {
		t.Errorf("attach with the token: %v\n%s", err, out)
	}
	errc := make(chan error, 1)
	go func() { errc <- run.Wait() }()
	select {
	case <-errc:
	case <-time.After(30 * time.Second):
		t.Fatal("program did not end")
	}
}

// TestServerFlagsNeedListen: the access flags of a server make no sense
// without one, and are refused rather than ignored.
func TestServerFlagsNeedListen(t *testing.T) {
	prog := filepath.Join("..", "..", "testdata", "run", "core", "arrays.n")
	for _, args := range [][]string{{"run", "--token-file", "x", prog}, {"dap", "--allow-remote"}, {"run", "--accept-multiclient", prog}} {
		var out, errb bytes.Buffer
		code := doMain(args, strings.NewReader(""), &out, &errb)
		want := "nlangdbg " + args[0] + ": --allow-remote, --token-file and --accept-multiclient need --listen\n"
		if code != 2 || errb.String() != want {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}
