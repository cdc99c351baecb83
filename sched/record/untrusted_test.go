package record

// This file checks that a recording is not trusted: whatever its bytes,
// reading and replaying it ends, within its step cap and a memory bound,
// with a result or an error (FuzzReplay), and the specific ways a file
// once made a replay hang or grow stay fixed.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
	"github.com/nlangdbg/nlangdbg/vm/compile"
)

// compileSource compiles src as the command line does, except that it
// imports no file (a fuzzed source must not read the file system).
func compileSource(path string, src []byte) (*vm.Program, error) {
	lib := vm.StdLib()
	lib.Merge(sched.Lib())
	noFiles := func(p string) ([]byte, error) { return nil, errors.New("no files here") }
	return compile.CompileFile(path, src, compile.Options{Lib: lib, ReadFile: noFiles})
}

// recordSource records a run of src with quota on a virtual clock (a
// sleep takes no time) and returns the recording.
func recordSource(t testing.TB, path, src string, quota int) []byte {
	t.Helper()
	prog, err := compileSource(path, []byte(src))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	rec := NewRecorder(Header{Path: path, Source: []byte(src), Hash: ProgramHash(prog), Quota: quota})
	rec.SetClock(&sched.VirtualClock{})
	var out bytes.Buffer
	m := vm.NewMachine(prog, strings.NewReader(""), rec.Stdout(&out), rec.Stderr(&out))
	s := sched.New(m, sched.Options{Quota: quota, Clock: rec.Clock()})
	var w bytes.Buffer
	if err := rec.Start(&w, m, s); err != nil {
		t.Fatal(err)
	}
	s.Start(m.NewCallThread(prog.Main, nil))
	if err := rec.Finish(s.Run()); err != nil {
		t.Fatal(err)
	}
	return w.Bytes()
}

// replayBounded replays rec (compiled from its own source, whatever its
// hash says) with a step cap of maxSteps reductions and a heap limit of
// maxHeap bytes over what the process holds now, and returns the exit
// code and the divergence. The file system is out of reach.
func replayBounded(prog *vm.Program, rec *Recording, maxSteps, maxHeap int64) (int, *Divergence) {
	rp := NewReplayer(rec)
	rp.SetMaxSteps(maxSteps)
	m := vm.NewMachine(prog, nil, rp.Stdout(nil), rp.Stderr(nil))
	m.ExcludeHeap(heapInUse())
	m.MaxHeap = maxHeap
	if rec.Header.MaxFrames > 0 {
		m.MaxFrames = rec.Header.MaxFrames
	}
	m.FS, _ = vm.NewFSPolicy(nil, nil, true, "")
	s := sched.New(m, sched.Options{Quota: rec.Header.Quota, Seed: rec.Header.Seed, Clock: rp.Clock()})
	if err := rp.Start(m, s); err != nil {
		return 1, &Divergence{Got: err.Error()}
	}
	s.Start(m.NewCallThread(prog.Main, nil))
	code := s.Run()
	return code, rp.Finish(code)
}

// heapInUse returns the bytes of the process's heap objects.
func heapInUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// withCRC returns data with its last four bytes replaced by the CRC of
// the rest, so that a change to a recording reaches the checks after the
// checksum's.
func withCRC(data []byte) []byte {
	if len(data) < 4 {
		return data
	}
	out := append([]byte(nil), data...)
	n := len(out) - 4
	binary.LittleEndian.PutUint32(out[n:], crc32.ChecksumIEEE(out[:n]))
	return out
}

// dropEvents returns the recording data without the events of kind k
// that come after the first event of kind after, checksum fixed.
func dropEvents(t testing.TB, data []byte, after, k byte) []byte {
	t.Helper()
	rec, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	start := len(data) - 4 - 2 - len(rec.events) // the events, then E, exit code 0, CRC
	out := append([]byte(nil), data[:start]...)
	d := &decoder{p: rec.events}
	seen, dropped := false, 0
	for d.off < len(d.p) {
		at := d.off
		kind := d.p[at]
		skipEvent(d)
		if seen && kind == k {
			dropped++
			continue
		}
		seen = seen || kind == after
		out = append(out, d.p[at:d.off]...)
	}
	if dropped == 0 {
		t.Fatalf("no %q event after a %q event", k, after)
	}
	return withCRC(append(out, data[len(data)-6:]...))
}

const sleeperSrc = `import io;
import thread;
int main() {
    thread.sleep(5);
    io.print("awake");
    return 0;
}
`

// TestReplayMissingClockReading: a recording that lacks the clock
// reading a sleeping thread's timer waits for ends as a divergence; it
// used to spin at full CPU for ever (the replay's clock never sleeps, and
// the scheduler read it again and again).
func TestReplayMissingClockReading(t *testing.T) {
	data := recordSource(t, "sleeper.n", sleeperSrc, 100)
	bad := dropEvents(t, data, evDispatch, evNow)
	rec, err := Parse(bad)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := compileSource(rec.Header.Path, rec.Header.Source)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		code int
		div  *Divergence
	}
	done := make(chan result, 1)
	go func() {
		code, div := replayBounded(prog, rec, 0, 64<<20)
		done <- result{code, div}
	}()
	select {
	case r := <-done:
		if r.code != 1 || r.div == nil || !strings.Contains(r.div.Error(), "replay a clock reading") {
			t.Fatalf("exit %d, divergence %v; want 1 and a missing clock reading", r.code, r.div)
		}
	case <-time.After(time.Minute): // a hang, not a time measure
		t.Fatal("the replay did not end")
	}
}

// TestHeaderChecked: a header's quota and limits are held to the bounds
// of the command line's flags (sched.Limits): a quota of 2^62 replayed
// for ever, a heap limit of 2^62 let a program take all memory.
func TestHeaderChecked(t *testing.T) {
	for _, c := range []struct {
		h    Header
		want string
	}{
		{Header{Quota: 1 << 62}, "header: quota must be between 1 and 1073741824, got 4611686018427387904"},
		{Header{Quota: -1}, "header: quota must be between 1 and 1073741824, got -1"},
		{Header{MaxHeap: 1 << 62}, "header: max-heap must be between 1MiB and 1TiB, got 4611686018427387904"},
		{Header{MaxFrames: 1 << 40}, "header: max-frames must be between 1 and 100000000, got 1099511627776"},
		{Header{Source: make([]byte, vm.MaxSourceSize+1)}, "header: the source is 16777217 bytes, more than 16MiB"},
	} {
		r := &Recording{Header: c.h}
		data := withCRC(append(r.Log(), evEnd, 0, 0, 0, 0, 0))
		if _, err := Parse(data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
	ok := &Recording{Header: Header{Quota: 7, MaxHeap: 1 << 20, MaxFrames: 100}}
	if _, err := Parse(withCRC(append(ok.Log(), evEnd, 0, 0, 0, 0, 0))); err != nil {
		t.Errorf("a header within the limits: %v", err)
	}
}

// TestReadFileSpecial: ReadFile refuses a device, a FIFO and a directory
// at once (it read /dev/zero until memory ran out and waited on a FIFO
// for ever), as a program's source is refused.
func TestReadFileSpecial(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "rec.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{"/dev/zero": "a device", fifo: "a FIFO", t.TempDir(): "a directory"} {
		_, err := ReadFile(path)
		var pe *os.PathError
		if !errors.As(err, &pe) || !errors.Is(err, vm.ErrNotRegular) || !strings.Contains(err.Error(), "it is "+kind) {
			t.Errorf("ReadFile(%s): %v", path, err)
		}
	}
}

// TestReplayStepCap: a step cap stops a replay that goes on longer, at
// the end of the quantum that passes it, and says so.
func TestReplayStepCap(t *testing.T) {
	src := `import io;
int main() {
    int s = 0;
    for (int i = 0; i < 1000000; i += 1) { s += i; }
    io.print(s);
    return 0;
}
`
	data := recordSource(t, "loop.n", src, 1000)
	rec, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	prog, _ := compileSource(rec.Header.Path, rec.Header.Source)
	code, div := replayBounded(prog, rec, 50_000, 64<<20)
	if code != 1 || div == nil || div.MaxSteps != 50_000 || div.Dispatch != 50 {
		t.Fatalf("exit %d, %+v; want 1, stopped by the 51st quantum of 1000", code, div)
	}
	if want := "replay stopped at event 50 (after 50 dispatches): more than 50000 reductions (the step cap;"; !strings.Contains(div.Error(), want) {
		t.Fatalf("%v, want %q", div, want)
	}
	if code, div := replayBounded(prog, rec, 0, 64<<20); code != 0 || div != nil {
		t.Fatalf("without a cap: exit %d, %v", code, div)
	}
}

// fuzzQuota bounds the quantum of a fuzzed recording: the step cap is
// checked at the end of a quantum, and a quantum may be as long as the
// recording's quota.
const fuzzQuota = 10_000

// FuzzReplay reads any bytes as a recording (their checksum fixed, so
// that changes reach the decoder's other checks) and, when they parse and
// their source compiles, replays them (whatever the program's hash says)
// with a step cap of 200,000 reductions and a heap limit of 64 MiB. Any
// panic fails it, and so does a replay that does not end within a minute
// (a hang: a cap of reductions does not catch a scheduler that spins
// without running anything) or makes the process's heap grow by more than
// 512 MiB.
func FuzzReplay(f *testing.F) {
	seeds := []struct{ name, src string }{
		{"sleeper.n", sleeperSrc},
		{"chan.n", `import io;
import thread;
void producer(Channel<int> c) {
    for (int i = 0; i < 5; i += 1) { c.send(i); }
}
int main() {
    Channel<int> c = new Channel<int>(2);
    thread.spawn(producer, c);
    int s = 0;
    for (int i = 0; i < 5; i += 1) { s += c.recv(); }
    io.print(s);
    return 0;
}
`},
		{"files.n", `import io;
import fs;
int main() {
    io.print(fs.exists("/nonexistent/x"));
    io.eprint("to stderr");
    return 3;
}
`},
	}
	for _, s := range seeds {
		data := recordSource(f, s.name, s.src, 100)
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Add(dropEvents(f, recordSource(f, "sleeper.n", sleeperSrc, 100), evDispatch, evNow))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := Parse(withCRC(data))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse: %T %v, want a *FormatError", err, err)
			}
			return
		}
		if q := rec.Header.Quota; q <= 0 || q > fuzzQuota {
			return
		}
		prog, err := compileSource(rec.Header.Path, rec.Header.Source)
		if err != nil {
			return
		}
		base := heapInUse()
		done := make(chan struct{})
		go func() {
			defer close(done)
			replayBounded(prog, rec, 200_000, 64<<20)
		}()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(time.Minute)
		for {
			select {
			case <-done:
				return
			case <-tick.C: // a watch on the heap, not a wait for a result
				if grown := heapInUse() - base; grown > 512<<20 {
					t.Fatalf("the replay's heap grew by %d bytes", grown)
				}
			case <-deadline:
				t.Fatal("the replay did not end within a minute")
			}
		}
	})
}

// TestScheduledQuantumBounded: the quanta of a recorded schedule are not
// longer than the recording's quota, whatever their events say: a
// quantum of 2^40 reductions of an endless loop ran for hours.
func TestScheduledQuantumBounded(t *testing.T) {
	src := "int main() { while (true) { } return 0; }\n"
	prog, err := compileSource("loop.n", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e := encoder{}
	e.header(&Header{Path: "loop.n", Source: []byte(src), Hash: ProgramHash(prog), Quota: 1000, Scheduled: true})
	e.byte(evDispatch)
	e.uvarint(1)
	e.byte(byte(vm.StopBudget))
	e.uvarint(1 << 40)
	e.byte(evEnd)
	e.varint(0)
	rec, err := Parse(withCRC(append(e.buf, 0, 0, 0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	code, div := replayBounded(prog, rec, 0, 64<<20)
	if want := "replay a quantum of thread 1 ending in budget after 1001 reductions"; code != 1 || div == nil || !strings.Contains(div.Error(), want) {
		t.Fatalf("exit %d, %v; want 1 and %q", code, div, want)
	}
	// under a step cap, the quantum is cut at the cap, and the replay
	// says it stopped there (not that it diverged)
	code, div = replayBounded(prog, rec, 500, 64<<20)
	if code != 1 || div == nil || div.MaxSteps != 500 || !strings.Contains(div.Error(), "replay stopped at event 0 (after 0 dispatches): more than 500 reductions") {
		t.Fatalf("with a cap of 500: exit %d, %v", code, div)
	}
}
