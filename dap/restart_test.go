package dap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/dap/api"
	"github.com/nlangdbg/nlangdbg/dap/daptest"
)

// TestRestartInPlaceAndAfterAnEdit: a restart of an unchanged program
// keeps the session — the stop at scheduler events asked for once (which
// the client does not send again) still stops the new run — and a restart
// after the source changed compiles it again (the new run prints the new
// text).
func TestRestartInPlaceAndAfterAnEdit(t *testing.T) {
	src := `import io;
import thread;
void work() { io.print("working"); }
int main() {
    io.print("one");
    Thread w = thread.spawn(work);
    w.join();
    return 0;
}
`
	path := filepath.Join(t.TempDir(), "edit.n")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, nil)
	c.Initialize(t)
	c.LaunchRequest(map[string]any{"program": path})
	daptest.ExpectResponse[*dap.LaunchResponse](t, c)
	c.CustomRequest(api.CmdSchedBreaks, api.SchedBreaksArgs{Kind: "spawn", Set: true})
	c.ExpectCustomResponse(t, api.CmdSchedBreaks, nil)
	c.ConfigurationDoneRequest()
	daptest.ExpectResponse[*dap.ConfigurationDoneResponse](t, c)
	spawnStop := func(when string) {
		t.Helper()
		st := c.ExpectStoppedEvent(t)
		if s := c.StopOf(st); s == nil || s.Reason != api.StopScheduler {
			t.Fatalf("%s: stop %+v (%+v), want the spawn", when, st.Body, s)
		}
	}
	spawnStop("first run")
	c.RestartRequest(nil)
	daptest.ExpectResponse[*dap.RestartResponse](t, c)
	spawnStop("restarted in place")
	if err := os.WriteFile(path, []byte(strings.Replace(src, `"one"`, `"two"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	c.RestartRequest(nil)
	daptest.ExpectResponse[*dap.RestartResponse](t, c)
	c.ExpectExitedEvent(t) // a new launch: the scheduler-event stop went with the old session
	if out := c.Output("stdout"); !strings.HasSuffix(out, "two\nworking\n") {
		t.Errorf("stdout %q: the edited program did not run", out)
	}
}
