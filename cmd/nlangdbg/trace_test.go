package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkTraceFormat checks a Trace Event Format document against the
// format's rules (a schema written as code): the fields each phase needs
// and their types, flow arrows with both ends in order, instant scopes,
// metadata naming every track, and slices of one track that do not
// overlap. It returns the events.
func checkTraceFormat(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	evs, err := traceFormatErr(data)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// traceFormatErr is checkTraceFormat's check.
func traceFormatErr(data []byte) ([]map[string]any, error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	raw, ok := doc["traceEvents"].([]any)
	if !ok {
		return nil, fmt.Errorf("no traceEvents array")
	}
	num := func(e map[string]any, k string) (float64, bool) {
		v, ok := e[k].(float64)
		return v, ok
	}
	var evs []map[string]any
	type flow struct{ s, f []float64 }
	flows := map[float64]*flow{}
	named := map[float64]bool{}
	type span struct{ ts, end float64 }
	slices := map[float64][]span{}
	for i, x := range raw {
		e, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("event %d is not an object", i)
		}
		evs = append(evs, e)
		where := fmt.Sprintf("event %d (%v)", i, e)
		if name, ok := e["name"].(string); !ok || name == "" {
			return nil, fmt.Errorf("%s: name must be a non-empty string", where)
		}
		ph, _ := e["ph"].(string)
		if _, ok := num(e, "pid"); !ok {
			return nil, fmt.Errorf("%s: pid must be a number", where)
		}
		tid, ok := num(e, "tid")
		if !ok && ph != "M" {
			return nil, fmt.Errorf("%s: tid must be a number", where)
		}
		ts, hasTs := num(e, "ts")
		if ph != "M" && (!hasTs || ts < 0) {
			return nil, fmt.Errorf("%s: ts must be a number >= 0", where)
		}
		switch ph {
		case "X":
			dur, ok := num(e, "dur")
			if !ok || dur < 0 {
				return nil, fmt.Errorf("%s: a complete event needs dur >= 0", where)
			}
			slices[tid] = append(slices[tid], span{ts, ts + dur})
		case "s", "f":
			id, ok := num(e, "id")
			if !ok {
				return nil, fmt.Errorf("%s: a flow event needs an id", where)
			}
			fl := flows[id]
			if fl == nil {
				fl = &flow{}
				flows[id] = fl
			}
			if ph == "s" {
				fl.s = append(fl.s, ts)
			} else {
				if e["bp"] != "e" {
					return nil, fmt.Errorf("%s: a flow end binds to the enclosing slice (bp \"e\")", where)
				}
				fl.f = append(fl.f, ts)
			}
		case "i":
			if s, _ := e["s"].(string); s != "g" && s != "p" && s != "t" {
				return nil, fmt.Errorf("%s: an instant's scope must be g, p or t", where)
			}
		case "M":
			args, _ := e["args"].(map[string]any)
			if n, _ := args["name"].(string); n == "" {
				return nil, fmt.Errorf("%s: metadata needs args.name", where)
			}
			switch e["name"] {
			case "thread_name":
				named[tid] = true
			case "process_name":
			default:
				return nil, fmt.Errorf("%s: unknown metadata %v", where, e["name"])
			}
		default:
			return nil, fmt.Errorf("%s: phase %q is not one this writer uses", where, ph)
		}
	}
	for id, fl := range flows {
		if len(fl.s) != 1 || len(fl.f) != 1 || fl.f[0] < fl.s[0] {
			return nil, fmt.Errorf("flow %v: starts %v, ends %v: want one of each, the end not before the start", id, fl.s, fl.f)
		}
	}
	for tid, ss := range slices {
		if !named[tid] {
			return nil, fmt.Errorf("track %v has slices but no thread_name", tid)
		}
		for i := 1; i < len(ss); i++ {
			if ss[i].ts < ss[i-1].end {
				return nil, fmt.Errorf("track %v: slices overlap: %v then %v", tid, ss[i-1], ss[i])
			}
		}
	}
	return evs, nil
}

const traceProg = `import io;
import thread;
void producer(Channel<int> c) {
    for (int i = 0; i < 5; i = i + 1) {
        c.send(i);
    }
    thread.sleep(2);
    c.close();
}
int main() {
    Channel<int> c = new Channel<int>();
    Thread p = thread.spawn(producer, c);
    p.setName("producer");
    int sum = 0;
    while (true) {
        try { sum = sum + c.recv(); } catch (ChannelClosedException e) { break; }
    }
    io.print("sum " + sum);
    return 0;
}
`

// TestTrace records a producer/consumer run and writes its trace: the
// document meets the format's rules and shows both threads' dispatches,
// the wake-ups between them as arrows, and the timer.
func TestTrace(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "pc.n")
	os.WriteFile(prog, []byte(traceProg), 0o644)
	rec := filepath.Join(dir, "pc.rec")
	var out, errb bytes.Buffer
	if code := runCmd([]string{"--record", rec, prog}, nil, &out, &errb); code != 0 {
		t.Fatalf("run: %d %s", code, errb.String())
	}
	js := filepath.Join(dir, "trace.json")
	if code := traceCmd([]string{rec, "-o", js}, nil, &out, &errb); code != 0 {
		t.Fatalf("trace: %d %s", code, errb.String())
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	evs := checkTraceFormat(t, data)
	count := map[string]int{}
	names := map[string]bool{}
	for _, e := range evs {
		ph := e["ph"].(string)
		count[ph]++
		if ph == "M" {
			names[e["args"].(map[string]any)["name"].(string)] = true
		}
		if ph == "i" {
			count["i:"+e["name"].(string)]++
		}
	}
	if !names["[1] main"] || !names["[2] producer"] {
		t.Fatalf("thread names %v", names)
	}
	if count["X"] < 4 || count["s"] < 3 || count["i:timer"] != 1 {
		t.Fatalf("counts %v: want dispatches of both threads, wake arrows and one timer", count)
	}
	if out.String() != "sum 10\n" {
		t.Fatalf("the recorded run printed %q (trace prints nothing)", out.String())
	}
}

// TestTraceFormatCheck: the check rejects what the format forbids.
func TestTraceFormatCheck(t *testing.T) {
	bad := []string{
		`{"traceEvents": [{"name": "x", "ph": "X", "ts": 0, "pid": 1, "tid": 1}]}`,
		`{"traceEvents": [{"name": "x", "ph": "s", "ts": 0, "pid": 1, "tid": 1, "id": 1}]}`,
		`{"traceEvents": [{"name": "x", "ph": "i", "ts": 0, "pid": 1, "tid": 1, "s": "q"}]}`,
	}
	for _, b := range bad {
		if _, err := traceFormatErr([]byte(b)); err == nil {
			t.Errorf("accepted %s", strings.TrimSpace(b))
		}
	}
}
