package inspect

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPinnedFileRead: a file native that blocks (io.readFile of a FIFO
// nobody writes yet) pins its carrier; the debugger shows the thread as
// pinned in that native, and a pause still answers at once.
func TestPinnedFileRead(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	src := `import io;
int main() {
    io.print("reading");
    string s = io.readFile("` + fifo + `"); // @read
    io.print("read " + s);
    return 0;
}
`
	s, l, _ := launchSrc(t, src, Config{})
	s.ConfigurationDone()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(l.stdout(), "reading") {
		if time.Now().After(deadline) {
			t.Fatal("the program did not start")
		}
		time.Sleep(time.Millisecond)
	}
	var ths []ThreadInfo
	for { // wait until main is inside the native
		time.Sleep(2 * time.Millisecond)
		if s.r.sch.Pinned(s.r.sch.Main()) != "" || time.Now().After(deadline) {
			break
		}
	}
	// Nobody writes the FIFO until the pause is answered: a pause that
	// waited for the native would never be.
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	l.waitStop(t)
	ths, _ = s.Threads()
	if len(ths) != 1 || ths[0].State != "pinned" || ths[0].WaitReason != "pinned in io.readFile" || ths[0].Line != markerLine(t, src, "read") {
		t.Errorf("threads %+v", ths)
	}
	s.Continue(1, false)
	if err := os.WriteFile(fifo, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := l.waitExit(t); code != 0 || !strings.HasSuffix(l.stdout(), "read data\n") {
		t.Fatalf("exit %d, output %q", code, l.stdout())
	}
}
