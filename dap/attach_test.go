package dap

import (
	"net"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/daptest"
	"github.com/nlangdbg/nlangdbg/inspect"
)

func TestSecondAttachIsRefused(t *testing.T) {
	f := loadFixture(t, "testdata/dap/busy.n")
	prog, err := inspect.Launch(inspect.Config{Program: f.Path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := NewAttachServer(prog)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	prog.ConfigurationDone()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	dial := func() *daptest.Client {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c := daptest.NewClient(conn)
		t.Cleanup(func() { c.Close() })
		return c
	}
	first := dial()
	first.Initialize(t)
	first.AttachRequest(map[string]any{})
	daptest.ExpectResponse[*dap.AttachResponse](t, first)
	first.ExpectStoppedEvent(t) // attaching pauses the program

	second := dial()
	second.InitializeRequest()
	e := second.ExpectErrorResponse(t, "initialize")
	if !strings.Contains(e.Message, "another debugger is attached") {
		t.Errorf("second attach: %+v", e)
	}
	second.ExpectClosed(t)

	first.DisconnectRequest(true)
	daptest.ExpectResponse[*dap.DisconnectResponse](t, first)
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}
