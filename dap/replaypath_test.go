package dap

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
	"github.com/nlangdbg/nlangdbg/sched/record"
)

// TestLaunchReplaySpecialFiles: a "replay" that is a device, a FIFO or a
// directory is refused at once, as a program path is (a device was read
// until memory ran out, a FIFO blocked the server for ever), and the
// listening server serves the next client once the refused one leaves.
func TestLaunchReplaySpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "rec.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	addr := serveListener(t, &Server{}, "tcp", "127.0.0.1:0")
	for path, kind := range map[string]string{"/dev/zero": "a device", fifo: "a FIFO", t.TempDir(): "a directory"} {
		c := dial(t, "tcp", addr)
		c.Initialize(t)
		c.LaunchRequest(map[string]any{"replay": path})
		r := c.ExpectErrorResponse(t, "launch")
		want := "cannot launch " + path + ": not a regular file (it is " + kind + ";"
		if !strings.Contains(r.Message, want) {
			t.Errorf("launch replay %s: %q, want %q", path, r.Message, want)
		}
		c.DisconnectRequest(false)
		daptest.ExpectResponse[*dap.DisconnectResponse](t, c)
		c.ExpectClosed(t) // the server is free: the next client is served
	}
	c := dial(t, "tcp", addr)
	c.Initialize(t)
	f := loadFixture(t, "testdata/dap/basic.n")
	c.LaunchRequest(map[string]any{"program": f.Path, "stopOnEntry": true})
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
}

// TestLaunchReplayBadHeader: a recording whose header asks for more than
// the launch arguments may (a quota of 2^62) is refused with the limits'
// own words.
func TestLaunchReplayBadHeader(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "big.rec")
	if err := os.WriteFile(rec, recordingWithQuota(t, 1<<62), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, &Server{})
	c.Initialize(t)
	c.LaunchRequest(map[string]any{"replay": rec})
	r := c.ExpectErrorResponse(t, "launch")
	if want := "header: quota must be between 1 and 1073741824, got 4611686018427387904"; !strings.Contains(r.Message, want) {
		t.Errorf("launch: %q, want %q", r.Message, want)
	}
}

// recordingWithQuota returns a recording of an empty program whose
// header says quota q.
func recordingWithQuota(t *testing.T, q int) []byte {
	t.Helper()
	r := &record.Recording{Header: record.Header{Path: "p.n", Source: []byte("int main() { return 0; }"), Quota: q}}
	data := append(r.Log(), 'E', 0) // the end event, exit code 0
	return binary.LittleEndian.AppendUint32(data, crc32.ChecksumIEEE(data))
}
