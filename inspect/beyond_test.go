package inspect

import (
	"strings"
	"testing"
)

func TestAddresses(t *testing.T) {
	s, _, _ := launchSrc(t, twoThreads, Config{})
	for i, fn := range s.prog.Funcs {
		for _, pc := range []int32{0, int32(len(fn.Code) - 1)} {
			a := s.Address(fn, pc)
			gotFn, gotPC, err := s.ParseAddress(a, 0)
			if err != nil || gotFn != fn || gotPC != pc {
				t.Fatalf("function %d pc %d: address %s parses as %v %d %v", i, pc, a, gotFn, gotPC, err)
			}
		}
		if _, _, err := s.ParseAddress(s.Address(fn, 0), len(fn.Code)); err == nil {
			t.Errorf("%s: an offset past the end parsed", fn.Name)
		}
	}
	for _, bad := range []string{"", "0x", "0x12", "12zz", "0x" + strings.Repeat("f", 17)} {
		if _, _, err := s.ParseAddress(bad, 0); err == nil {
			t.Errorf("address %q parsed", bad)
		}
	}
}

func TestSplitPlace(t *testing.T) {
	for _, c := range []struct{ in, base, member, index string }{
		{"x", "", "x", ""},
		{"p.x", "p", "x", ""},
		{"a.b.c", "a.b", "c", ""},
		{"arr[i + 1]", "arr", "", "i + 1"},
		{`d["a]b"]`, "d", "", `"a]b"`},
		{"m[k][2]", "m[k]", "", "2"},
		{"f(x).y", "f(x)", "y", ""},
	} {
		base, member, index := splitPlace(c.in)
		if base != c.base || member != c.member || index != c.index {
			t.Errorf("splitPlace(%q) = %q %q %q, want %q %q %q", c.in, base, member, index, c.base, c.member, c.index)
		}
	}
}

// Two threads in a ring through a lock and a future: 2 holds a and waits
// for b, 3 holds b and waits for the future 2 computes. Main joins 3 from
// outside the ring.
const ringSrc = `import thread;
int holdThenTake(Mutex mine, Mutex other) {
    mine.lock();
    thread.sleep(2);
    other.lock();
    return 1;
}
void waitFuture(Mutex mine, Future<int> f) {
    mine.lock();
    thread.sleep(2);
    f.get();
}
int main() {
    Mutex a = new Mutex();
    Mutex b = new Mutex();
    Future<int> f = thread.spawn(holdThenTake, a, b);
    Thread t = thread.spawn(waitFuture, b, f);
    t.join();
    return 0;
}
`

func TestWaitGraphFindsARingThroughAFuture(t *testing.T) {
	s, l, _ := launchSrc(t, ringSrc, Config{})
	s.ConfigurationDone()
	if st := l.waitStop(t); st.Reason != ReasonDeadlock {
		t.Fatalf("stop %+v, want the deadlock", st)
	}
	g, err := s.WaitGraph()
	if err != nil {
		t.Fatal(err)
	}
	// 2 waits for b (held by 3); 3 waits for the future of 2
	if len(g.Cycles) != 1 || len(g.Cycles[0]) != 2 || g.Cycles[0][0] != 2 || g.Cycles[0][1] != 3 {
		t.Fatalf("cycles %v, want [[2 3]]", g.Cycles)
	}
	text := FormatWaitGraph(g)
	for _, want := range []string{
		`thread 3 "thread-3" --future get*--> o`,
		`--computed by*--> thread 2 "thread-2"`,
		`thread 1 "main" --join thread-3--> o`,
		`deadlock cycle (*): thread 2 "thread-2" -> thread 3 "thread-3" -> thread 2 "thread-2"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("graph lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, `"main" --join thread-3*`) {
		t.Errorf("main's join is on the cycle:\n%s", text)
	}
}
