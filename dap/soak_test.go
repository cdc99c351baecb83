package dap

import (
	"math/rand"
	"net"
	"runtime"
	"testing"
	"time"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
	"github.com/nlangdbg/nlangdbg/inspect"
	"github.com/nlangdbg/nlangdbg/internal/testmode"
)

// TestSoakAttachDetach attaches to a running program and detaches 1,000
// times (50 outside the full run: testmode), then drives one session with a fixed number of
// random requests, and checks that every goroutine the server started is
// gone and the heap is back near where it started.
func TestSoakAttachDetach(t *testing.T) {
	cycles, requests := 1000, 5000
	if !testmode.Full() || testing.Short() {
		cycles, requests = 50, 500
	}
	baseGoroutines, baseHeap := settle()

	f := loadFixture(t, "testdata/dap/busy.n")
	// as run --listen launches it: a program that runs for long is not recorded
	prog, err := inspect.Launch(inspect.Config{Program: f.Path, NoRecord: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := NewAttachServer(prog)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	prog.ConfigurationDone()
	go func() { served <- srv.Serve(ln) }()

	attach := func() *daptest.Client {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c := daptest.NewClient(conn)
		c.Initialize(t)
		c.AttachRequest(map[string]any{})
		daptest.ExpectResponse[*dap.AttachResponse](t, c)
		c.ExpectStoppedEvent(t)
		c.ConfigurationDoneRequest()
		daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
		return c
	}
	var warmHeap uint64
	for i := 0; i < cycles; i++ {
		if i == 10 {
			_, warmHeap = settle()
		}
		c := attach()
		c.ThreadsRequest()
		daptest.ExpectResponse[*dap.ThreadsResponse](t, c)
		c.DisconnectRequest(false)
		daptest.ExpectResponse[*dap.DisconnectResponse](t, c)
		c.ExpectClosed(t)
		c.Close()
	}
	_, midHeap := settle()

	// One session, random requests: each is answered (success or error).
	c := attach()
	rng := rand.New(rand.NewSource(1))
	exprs := []string{"n", "done", "n + 1", "1 / 0", "nosuch", "n +", `"x" + n`, "new int[3]", ":threads", ":sched"}
	for i := 0; i < requests; i++ {
		id := rng.Intn(4)
		var seq int
		switch rng.Intn(12) {
		case 0:
			seq = c.ThreadsRequest()
		case 1:
			seq = c.StackTraceRequest(id, rng.Intn(3), rng.Intn(3))
		case 2:
			seq = c.ScopesRequest(rng.Intn(2000))
		case 3:
			seq = c.VariablesRequest(rng.Intn(2000), "", 0, rng.Intn(5))
		case 4:
			seq = c.EvaluateRequest(exprs[rng.Intn(len(exprs))], rng.Intn(2000), "repl")
		case 5:
			seq = c.SetBreakpointsRequest(f.Path, rng.Intn(15)-2)
		case 6:
			seq = c.ContinueRequest(id, rng.Intn(2) == 0)
		case 7:
			seq = c.PauseRequest(id)
		case 8:
			seq = c.NextRequest(id, false)
		case 9:
			seq = c.SetVariableRequest(rng.Intn(2000), "n", "5")
		case 10:
			seq = c.SourceRequest(rng.Intn(3), f.Path)
		case 11:
			seq = c.ExceptionInfoRequest(id)
		}
		expectAnswer(t, c, seq)
	}
	expectAnswer(t, c, c.SetBreakpointsRequest(f.Path))
	expectAnswer(t, c, c.DisconnectRequest(false))
	c.ExpectClosed(t)
	c.Close()

	prog.Terminate()
	select {
	case <-served:
	case <-time.After(daptest.DefaultTimeout):
		t.Fatal("Serve did not return after the program ended")
	}
	goroutines, heap := settle()
	t.Logf("%d cycles, %d random requests: goroutines %d -> %d, heap %d KB -> %d KB (10 cycles) -> %d KB (all cycles) -> %d KB",
		cycles, requests, baseGoroutines, goroutines, baseHeap>>10, warmHeap>>10, midHeap>>10, heap>>10)
	if goroutines > baseGoroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines left, %d before:\n%s", goroutines, baseGoroutines, buf[:runtime.Stack(buf, true)])
	}
	// A leak of a kilobyte per attach would show after the cycles.
	if midHeap > warmHeap+1<<20 {
		t.Errorf("heap %d KB after %d cycles, %d KB after 10: attaching leaks", midHeap>>10, cycles, warmHeap>>10)
	}
	if heap > baseHeap+2<<20 {
		t.Errorf("heap %d KB after, %d KB before: not back to the baseline", heap>>10, baseHeap>>10)
	}
}

// expectAnswer waits for the response to request seq, skipping events.
func expectAnswer(t *testing.T, c *daptest.Client, seq int) {
	t.Helper()
	for {
		m := c.Next(t)
		if r, ok := m.(dap.ResponseMessage); ok {
			if r.GetResponse().RequestSeq == seq {
				return
			}
			t.Fatalf("response to %d while waiting for %d: %s", r.GetResponse().RequestSeq, seq, daptest.Describe(m))
		}
		if _, ok := m.(dap.EventMessage); !ok {
			t.Fatalf("unexpected %s", daptest.Describe(m))
		}
	}
}

// settle polls until the goroutine count stops falling (goroutines of
// closed connections take a moment to return; this is what goleak does
// too) and returns it with the
// live heap after a collection.
func settle() (goroutines int, heap uint64) {
	n := runtime.NumGoroutine()
	for i := 0; i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n && i > 5 {
			break
		}
		n = m
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return n, ms.HeapAlloc
}
