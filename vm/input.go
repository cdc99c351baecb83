package vm

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
)

// A program's standard input. A read that cannot be answered from what
// has arrived parks its thread (wait reason "io read") instead of
// blocking the carrier: one reader goroutine per machine — the program's
// own, as Go's netpoller is — does the blocking Read, and when enough
// input has arrived it completes the waiting threads in the order they
// asked (Scheduler.WakeIO). Other threads keep running meanwhile, on one
// carrier too.
//
// Input that never blocks — in memory (a strings.Reader, bytes.Reader or
// bytes.Buffer) or a regular file — is read on the thread itself, as Go
// reads regular files without the netpoller: a read then never parks,
// and a run with such input stays a pure function of the program, its
// input and the seed.
type input struct {
	mu      sync.Mutex
	src     io.Reader
	direct  bool   // reads never block: done on the reading thread
	buf     []byte // arrived and not consumed
	eof     bool   // src is exhausted (or failed: err)
	err     error
	started bool          // the reader goroutine runs
	want    chan struct{} // asks the reader goroutine for one more Read
	waiters []inputWaiter // parked readers, first come first served
	out     Outside       // recording or replaying (see SetOutside); nil otherwise
}

// An inputParse reads one value from the front of buf; eof says no more
// input will come. It returns the value or the error to raise and the
// bytes consumed, or ok=false if it cannot decide without more input.
type inputParse func(buf []byte, eof bool) (v Value, n int, err error, ok bool)

type inputWaiter struct {
	t     *Thread
	parse inputParse
}

// inputChunk is the size of one Read of the input.
const inputChunk = 64 << 10

func newInput(r io.Reader) *input {
	if r == nil {
		r = strings.NewReader("")
	}
	return &input{src: r, direct: neverBlocks(r), want: make(chan struct{}, 1)}
}

// SetInputSource makes r (nil: none) the source of the machine's
// standard input, keeping what was read and not consumed: for a machine
// a snapshot was restored onto before its input was known (a spare
// copy, sched.Snapshot.Prepare). Before it runs.
func (m *Machine) SetInputSource(r io.Reader) {
	if r == nil {
		r = strings.NewReader("")
	}
	if m.in == nil {
		m.in = newInput(r)
		return
	}
	m.in.mu.Lock()
	m.in.src = r
	m.in.mu.Unlock()
}

// neverBlocks reports whether reads of r return at once: in-memory
// readers and regular files.
func neverBlocks(r io.Reader) bool {
	switch x := r.(type) {
	case *strings.Reader, *bytes.Reader, *bytes.Buffer:
		return true
	case *os.File:
		fi, err := x.Stat()
		return err == nil && fi.Mode().IsRegular()
	}
	return false
}

// read answers parse from the input for t: at once if the input at hand
// decides it (and nobody is waiting before t), else by parking t until
// the reader goroutine has what it needs. It returns the value, the
// error to raise, or ErrPark.
func (in *input) read(t *Thread, parse inputParse) (Value, error) {
	in.mu.Lock()
	if len(in.waiters) == 0 {
		for {
			v, n, err, ok := parse(in.buf, in.eof)
			if ok {
				in.buf = in.buf[n:]
				in.mu.Unlock()
				return v, err
			}
			if !in.direct && t.M.Sched != nil {
				break
			}
			in.fill() // never blocks for long (or there is no scheduler to park with)
		}
	}
	in.waiters = append(in.waiters, inputWaiter{t: t, parse: parse})
	if !in.started && (in.out == nil || !in.out.Replaying()) { // replayed input comes from the log
		in.started = true
		go in.reader(t.M.Sched)
	}
	select {
	case in.want <- struct{}{}:
	default:
	}
	t.M.Sched.ParkIO(t, "io read", in)
	in.mu.Unlock()
	return Value{}, ErrPark
}

// fill reads one chunk into buf on the calling goroutine. Must hold in.mu.
func (in *input) fill() {
	if in.eof {
		return
	}
	var data []byte
	var err error
	if in.out != nil {
		data, err = in.out.Fill(in.readChunk)
	} else {
		data, err = in.readChunk()
	}
	in.buf = append(in.buf, data...)
	if err != nil {
		in.eof = true
		if err != io.EOF {
			in.err = err
		}
	}
}

// readChunk does one Read of the source.
func (in *input) readChunk() ([]byte, error) {
	chunk := make([]byte, inputChunk)
	n, err := in.src.Read(chunk)
	return chunk[:n], err
}

// reader is the input's goroutine: it reads whenever a parked thread
// wants more, and completes the waiters the input then answers. With an
// Outside it only hands each chunk over (Outside.PostInput); the chunk
// arrives when the Outside's owner calls arrive.
func (in *input) reader(s Scheduler) {
	for range in.want {
		data, err := in.readChunk()
		if in.out != nil {
			in.out.PostInput(data, err)
			if err != nil {
				return
			}
			continue
		}
		ready := in.arrive(data, err)
		for _, d := range ready {
			s.WakeIO(d.T, d.V, d.Err)
		}
		if err != nil {
			return // every waiter was answered: at EOF every parse decides
		}
	}
}

// arrive appends data to the input (err, if not nil, ends it) and returns
// the waiters it answers, first come first served; if some still wait,
// it asks the reader goroutine for more.
func (in *input) arrive(data []byte, err error) []InputWake {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.buf = append(in.buf, data...)
	if err != nil && !in.eof {
		in.eof = true
		if err != io.EOF {
			in.err = err
		}
	}
	var ready []InputWake
	for len(in.waiters) > 0 {
		w := in.waiters[0]
		v, n, err, ok := w.parse(in.buf, in.eof)
		if !ok {
			break
		}
		in.buf = in.buf[n:]
		in.waiters = in.waiters[1:]
		ready = append(ready, InputWake{w.t, v, err})
	}
	if len(in.waiters) > 0 && !in.eof {
		select { // read on: somebody still waits
		case in.want <- struct{}{}:
		default:
		}
	}
	return ready
}

// Waiting returns the threads parked on the input, first come first.
func (in *input) Waiting() []*Thread {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]*Thread, len(in.waiters))
	for i, w := range in.waiters {
		out[i] = w.t
	}
	return out
}

// Input parsers. A token is a run of bytes other than spaces, tabs and
// line breaks; the token readers skip those first and leave the byte
// after the token unread, so a readLine after readInt returns the rest
// of that line (usually ""), as C++ getline after >> does.

// parseLine reads one line without its "\n" or "\r\n"; at the end of
// input it gives "".
func parseLine(buf []byte, eof bool) (Value, int, error, bool) {
	i := bytes.IndexByte(buf, '\n')
	if i < 0 {
		if !eof {
			return Value{}, 0, nil, false
		}
		i = len(buf)
		line := strings.TrimSuffix(string(buf), "\r")
		return StrV(line), i, nil, true
	}
	line := strings.TrimSuffix(string(buf[:i]), "\r")
	return StrV(line), i + 1, nil, true
}

// skipSpace returns the index of the first byte that is not a space, or
// ok=false if more input could still bring one.
func skipSpace(buf []byte, eof bool) (int, bool) {
	for i, c := range buf {
		if !isInputSpace(c) {
			return i, true
		}
	}
	return len(buf), eof
}

// parseHasInput reports whether any input byte remains.
func parseHasInput(buf []byte, eof bool) (Value, int, error, bool) {
	if len(buf) > 0 {
		return BoolV(true), 0, nil, true
	}
	return BoolV(false), 0, nil, eof
}

// tokenParser returns a parser of the next token, handed to conv; at the
// end of input it raises an IOException naming fn.
func tokenParser(fn string, conv func(tok string) (Value, error)) inputParse {
	return func(buf []byte, eof bool) (Value, int, error, bool) {
		i, ok := skipSpace(buf, eof)
		if !ok {
			return Value{}, 0, nil, false
		}
		if i == len(buf) {
			return Value{}, i, Throwf("IOException", "%s: end of input", fn), true
		}
		j := i
		for j < len(buf) && !isInputSpace(buf[j]) {
			j++
		}
		if j == len(buf) && !eof {
			return Value{}, 0, nil, false
		}
		v, err := conv(string(buf[i:j]))
		return v, j, err, true
	}
}
