package record

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
)

// encodeRun writes a header, a few events of every kind and the end, as
// a Recorder does.
func encodeRun(t *testing.T, events func(e *encoder)) []byte {
	t.Helper()
	var e encoder
	h := Header{Path: "p.n", Source: []byte("int main() { return 0; }"), Hash: "abc", Quota: 7, Seed: -3,
		MaxFrames: 100, MaxHeap: 1 << 20, Args: []string{"a", "b c"}, InputDirect: true}
	e.header(&h)
	events(&e)
	r := NewRecorder(h)
	var buf bytes.Buffer
	r.w, r.mem = &buf, false
	r.e = e
	if err := r.Finish(3); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFormatRoundTrip(t *testing.T) {
	list := &vm.List{Type: vm.ListOf(vm.String), Data: []vm.Value{vm.StrV("x"), vm.StrV("y")}}
	data := encodeRun(t, func(e *encoder) {
		e.byte(evDispatch)
		e.uvarint(1)
		e.byte(byte(vm.StopPark))
		e.uvarint(12)
		e.byte(evNow)
		e.varint(5000)
		e.byte(evInput)
		e.end(io.EOF)
		e.bytes([]byte("line\n"))
		e.byte(evFill)
		e.end(errors.New("broken pipe"))
		e.bytes(nil)
		for _, r := range []struct {
			v   vm.Value
			err error
		}{{vm.IntV(-2), nil}, {vm.StrV("text"), nil}, {vm.RefV(list), nil}, {vm.Value{}, vm.Throwf("IOException", "no")}} {
			e.byte(evCall)
			e.string("fs.x")
			e.result(r.v, r.err)
		}
		e.byte(evOut)
		e.byte(2)
		e.bytes([]byte("err"))
	})
	rec, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	h := rec.Header
	if h.Path != "p.n" || h.Quota != 7 || h.Seed != -3 || h.MaxFrames != 100 || h.MaxHeap != 1<<20 ||
		strings.Join(h.Args, "|") != "a|b c" || !h.InputDirect || h.Hash != "abc" {
		t.Fatalf("header %+v", h)
	}
	if rec.ExitCode != 3 || rec.Events != 9 {
		t.Fatalf("exit %d, %d events", rec.ExitCode, rec.Events)
	}
	d := &decoder{p: rec.events}
	d.byte()
	if id, stop, red := d.uvarint(), vm.Stop(d.byte()), d.uvarint(); id != 1 || stop != vm.StopPark || red != 12 {
		t.Fatalf("dispatch %d %v %d", id, stop, red)
	}
	d.byte()
	if d.varint() != 5000 {
		t.Fatal("now")
	}
	d.byte()
	if err := d.end(); err != io.EOF || string(d.bytes()) != "line\n" {
		t.Fatalf("input: %v", err)
	}
	d.byte()
	if err := d.end(); err == nil || err.Error() != "broken pipe" || len(d.bytes()) != 0 {
		t.Fatalf("fill: %v", err)
	}
	var got []string
	for i := 0; i < 4; i++ {
		d.byte()
		d.string()
		v, err := d.result()
		switch {
		case err != nil:
			got = append(got, err.Error())
		case v.R == nil:
			got = append(got, vm.FormatFloat(float64(v.I()), 64))
		case v.S() != "":
			got = append(got, v.S())
		default:
			l := v.R.(*vm.List)
			got = append(got, l.Data[0].S()+l.Data[1].S())
		}
	}
	if strings.Join(got, "|") != "-2|text|xy|IOException: no" {
		t.Fatalf("results %q", got)
	}
	if d.err != nil {
		t.Fatal(d.err)
	}
}

// TestParseErrors: each way a file can be wrong gets its own message.
func TestParseErrors(t *testing.T) {
	good := encodeRun(t, func(e *encoder) {
		e.byte(evOut)
		e.byte(1)
		e.bytes([]byte("hello\n"))
	})
	flip := append([]byte(nil), good...)
	flip[len(flip)-8] ^= 1
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not an nlangdbg recording"},
		{"cut", good[:len(good)-7], "cut short after"},
		{"flipped", flip, "corrupt (checksum mismatch"},
		{"trailing", append(append([]byte(nil), good...), 0), "corrupt"},
	} {
		_, err := Parse(c.data)
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a FormatError saying %q", c.name, err, c.want)
		}
	}
}

// TestJournalResume: a journal resumed from a log replays it (its clock
// readings come back), then records from its end; Fork drops the rest.
func TestJournalResume(t *testing.T) {
	j := NewJournal(Header{Path: "p.n"})
	j.rc.e.header(&j.rc.hdr)
	j.hdrLen = len(j.rc.e.buf)
	c := j.Clock()
	first := c.Now()
	second := c.Now()
	log := j.Log()

	r, err := ResumeJournal(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Replaying() {
		t.Fatal("a resumed journal does not replay")
	}
	rc := r.Clock()
	if a, b := rc.Now(), rc.Now(); a != first || b != second {
		t.Fatalf("replayed readings %v %v, want %v %v", a, b, first, second)
	}
	if r.Replaying() {
		t.Fatal("still replaying past the end of the log")
	}
	if third := rc.Now(); third < second {
		t.Fatalf("the clock went back past the frontier: %v < %v", third, second)
	}
	if r.Size() <= len(log) {
		t.Fatal("the reading past the frontier was not recorded")
	}

	f, _ := ResumeJournal(log, 0)
	f.Clock().Now()
	f.Fork("test")
	if f.Replaying() || f.Forked() != "test" || f.Size() >= len(log) {
		t.Fatalf("fork: replaying %v, forked %q, size %d of %d", f.Replaying(), f.Forked(), f.Size(), len(log))
	}
}

// TestJournalNewFutureShown: writes shown before the session went back
// are not shown again while the re-execution follows the recording; once
// it differs from it (a write that is not the recorded one, or a Fork),
// what is written is a new future and is shown.
func TestJournalNewFutureShown(t *testing.T) {
	j := NewJournal(Header{Path: "p.n"})
	j.rc.e.header(&j.rc.hdr)
	j.hdrLen = len(j.rc.e.buf)
	var first bytes.Buffer
	w := j.Stdout(&first)
	for _, s := range []string{"a\n", "b\n", "c\n"} {
		w.Write([]byte(s))
	}
	log := j.Log()

	// a re-execution that writes a, then x: x differs, and it and what
	// follows are shown
	r, err := ResumeJournal(log, 3)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rw := r.Stdout(&out)
	for _, s := range []string{"a\n", "x\n", "y\n"} {
		rw.Write([]byte(s))
	}
	if out.String() != "x\ny\n" || r.Forked() == "" {
		t.Errorf("shown %q (forked %q), want the new writes x and y", out.String(), r.Forked())
	}

	// a fork after a: the writes after it are shown
	f, err := ResumeJournal(log, 3)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	fw := f.Stdout(&out)
	fw.Write([]byte("a\n"))
	f.Fork("a variable was set in the past")
	fw.Write([]byte("z\n"))
	if out.String() != "z\n" {
		t.Errorf("after a fork, shown %q, want z", out.String())
	}
}
