package race_test

import (
	"bytes"
	"testing"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/sched/race"
	"github.com/nlangdbg/nlangdbg/vm"
)

// fieldHeavy is a worst case for the detector: almost every instruction
// of the loop is a field access (two threads, 200,000 each, under a lock
// taken every 1,000).
const fieldHeavy = `
import thread;
class Counter {
    public int n;
    public Mutex mu;
    public Counter() { n = 0; mu = new Mutex(); }
}
void add(Counter c) {
    for (int j = 0; j < 100; j += 1) {
        c.mu.lock();
        for (int i = 0; i < 1000; i += 1) {
            c.n = c.n + 1;
        }
        c.mu.unlock();
    }
}
int main() {
    Counter c = new Counter();
    Thread a = thread.spawn(add, c);
    Thread b = thread.spawn(add, c);
    a.join();
    b.join();
    return c.n - 200000;
}
`

func benchRun(b *testing.B, detect bool) {
	prog := compileSrc(b, "heavy.n", []byte(fieldHeavy))
	if detect {
		race.Instrument(prog)
	}
	b.ResetTimer()
	for range b.N {
		var out bytes.Buffer
		m := vm.NewMachine(prog, nil, &out, &out)
		s := sched.New(m, sched.Options{})
		var d *race.Detector
		if detect {
			d = race.New(nil)
			if err := d.Install(m, s); err != nil {
				b.Fatal(err)
			}
		}
		s.Start(m.NewCallThread(prog.Main, nil))
		if code := s.Run(); code != 0 {
			b.Fatalf("exit %d", code)
		}
		if d != nil && len(d.Races()) > 0 {
			b.Fatalf("a race in a locked counter: %s", d.Races()[0].Report)
		}
	}
}

// BenchmarkFieldsPlain and BenchmarkFieldsRace: the detector's overhead
// on fieldHeavy (the ratio of the two).
func BenchmarkFieldsPlain(b *testing.B) { benchRun(b, false) }
func BenchmarkFieldsRace(b *testing.B)  { benchRun(b, true) }
