package record

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"

	"github.com/nlangdbg/nlangdbg/sched"
	"github.com/nlangdbg/nlangdbg/vm"
)

// Magic opens every recording; Version is the format this package writes
// and the only one it reads.
const (
	Magic   = "NLANGREC"
	Version = 1
)

// Header is what a recording says about the run before its events.
type Header struct {
	// Path is the program's file name as it was given; Source its text.
	Path   string
	Source []byte
	// Hash identifies the compiled program (ProgramHash): a replay
	// compiles Source and refuses to go on if the hash differs (another
	// build of nlangdbg compiles it differently).
	Hash      string
	Quota     int
	Seed      int64
	MaxFrames int
	MaxHeap   int64
	// Args are the program's arguments.
	Args []string
	// InputDirect says that standard input never blocked (a regular file
	// or in-memory text): it was read on the reading thread, in chunks
	// logged as fill events, and reads never parked.
	InputDirect bool
	// Scheduled says that the scheduler followed the recorded quanta
	// rather than its quota and seed (a schedule found by nlangdbg
	// explore): a replay runs the thread of each dispatch event for its
	// reductions (see Replayer.Pick).
	Scheduled bool
	// Shared says that every access of shared data was a scheduling
	// point (nlangdbg explore --granularity shared): a replay makes them
	// so again (sched.AccessPoints).
	Shared bool
	// Race says that the run had the race detector on (run --race,
	// explore --race): a replay of it runs the detector again.
	Race bool
}

// Check checks the header's values against the limits a run accepts
// (sched.Limits, the table the command line's flags and the DAP launch
// arguments are checked against): a recording is not trusted more than
// a user's flags. A limit of 0 is the default. The source is at most
// vm.MaxSourceSize bytes, as a program's file.
func (h *Header) Check() error {
	l := sched.Limits{Quota: h.Quota, MaxFrames: h.MaxFrames, MaxHeap: h.MaxHeap}.WithDefaults()
	if err := l.Check(); err != nil {
		return err
	}
	if len(h.Source) > vm.MaxSourceSize {
		return fmt.Errorf("the source is %d bytes, more than %s", len(h.Source), vm.FormatBytes(vm.MaxSourceSize))
	}
	return nil
}

// Event kinds, one byte each in the file (see docs/recording.md).
const (
	evDispatch = 'D' // thread id, stop, reductions: a quantum ended
	evNow      = 'N' // the scheduler read its clock: nanoseconds since the last read
	evInput    = 'I' // blocking input arrived before a dispatch: end, bytes
	evFill     = 'F' // non-blocking input was read by a thread: end, bytes
	evCall     = 'C' // a file-system native: name, result
	evOut      = 'O' // a write to stdout (1) or stderr (2): stream, bytes
	evEnd      = 'E' // the program ended: exit code; then the CRC-32 of the file
	evCore     = 'K' // a dump's moment (last before the end): see Core
	evHold     = 'H' // the debugger held or released a thread: see hold.go
)

// Result tags of a call event.
const (
	resScalar = 0 // uvarint bits (void, bool, int, …)
	resString = 1 // bytes
	resList   = 2 // count, then that many strings: a List<string>
	resThrow  = 3 // class, message: the native raised an exception
	resOther  = 4 // a result a recording cannot carry: replayed as an IOException
)

// End-of-input codes of input and fill events.
const (
	endNone = 0
	endEOF  = 1
	endErr  = 2 // then the error's text
)

// ProgramHash returns the hex SHA-256 of a compiled program: the
// bytecode listing of every function, library included.
func ProgramHash(prog *vm.Program) string {
	h := sha256.New()
	for _, f := range prog.Funcs {
		vm.DisassembleFunc(h, f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// An encoder appends the encodings of a recording to buf.
type encoder struct{ buf []byte }

func (e *encoder) byte(b byte)      { e.buf = append(e.buf, b) }
func (e *encoder) uvarint(u uint64) { e.buf = binary.AppendUvarint(e.buf, u) }
func (e *encoder) varint(i int64)   { e.buf = binary.AppendVarint(e.buf, i) }
func (e *encoder) bytes(p []byte) {
	e.uvarint(uint64(len(p)))
	e.buf = append(e.buf, p...)
}
func (e *encoder) string(s string) {
	e.uvarint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *encoder) bool(b bool) {
	if b {
		e.byte(1)
	} else {
		e.byte(0)
	}
}

// header appends the magic, the version and h.
func (e *encoder) header(h *Header) {
	e.buf = append(e.buf, Magic...)
	e.uvarint(Version)
	e.string(h.Path)
	e.bytes(h.Source)
	e.string(h.Hash)
	e.varint(int64(h.Quota))
	e.varint(h.Seed)
	e.varint(int64(h.MaxFrames))
	e.varint(h.MaxHeap)
	e.uvarint(uint64(len(h.Args)))
	for _, a := range h.Args {
		e.string(a)
	}
	var flags byte // bit 0: InputDirect, bit 1: Scheduled, bit 2: Shared, bit 3: Race
	if h.InputDirect {
		flags |= 1
	}
	if h.Scheduled {
		flags |= 2
	}
	if h.Shared {
		flags |= 4
	}
	if h.Race {
		flags |= 8
	}
	e.byte(flags)
}

// end appends an end-of-input code.
func (e *encoder) end(err error) {
	switch {
	case err == nil:
		e.byte(endNone)
	case errors.Is(err, io.EOF):
		e.byte(endEOF)
	default:
		e.byte(endErr)
		e.string(err.Error())
	}
}

// result appends the result of a native call.
func (e *encoder) result(v vm.Value, err error) {
	if err != nil {
		var th *vm.Throw
		if errors.As(err, &th) {
			e.byte(resThrow)
			class, msg := th.Class, th.Msg
			if th.Obj != nil {
				class, msg = "IOException", th.Error()
			}
			e.string(class)
			e.string(msg)
			return
		}
		e.byte(resOther)
		e.string(err.Error())
		return
	}
	switch r := v.R.(type) {
	case nil:
		e.byte(resScalar)
		e.uvarint(v.N)
	case string:
		e.byte(resString)
		e.string(r)
	case *vm.List:
		e.byte(resList)
		e.uvarint(uint64(len(r.Data)))
		for _, x := range r.Data {
			e.string(x.S())
		}
	default:
		e.byte(resOther)
		e.string(fmt.Sprintf("a %T result", r))
	}
}

// A FormatError says that a file is not a recording this build can read.
type FormatError struct {
	File string
	Msg  string
}

func (e *FormatError) Error() string {
	if e.File == "" {
		return "bad recording: " + e.Msg
	}
	return e.File + ": bad recording: " + e.Msg
}

// A decoder reads the encodings of a recording from p.
type decoder struct {
	p     []byte
	off   int
	err   error // the first error; then every read returns zero values
	short bool  // err is that the data ran out
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("at byte %d: "+format, append([]any{d.off}, args...)...)
	}
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.p) {
		d.fail("unexpected end of data")
		d.short = true
		return 0
	}
	b := d.p[d.off]
	d.off++
	return b
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	u, n := binary.Uvarint(d.p[d.off:])
	if n <= 0 {
		d.short = n == 0
		d.fail("bad number")
		return 0
	}
	d.off += n
	return u
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	i, n := binary.Varint(d.p[d.off:])
	if n <= 0 {
		d.short = n == 0
		d.fail("bad number")
		return 0
	}
	d.off += n
	return i
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.p)-d.off) {
		d.fail("length %d runs past the end", n)
		d.short = true
		return nil
	}
	p := d.p[d.off : d.off+int(n)]
	d.off += int(n)
	return p
}

func (d *decoder) string() string { return string(d.bytes()) }

func (d *decoder) bool() bool { return d.byte() != 0 }

func (d *decoder) end() error {
	switch c := d.byte(); c {
	case endNone:
		return nil
	case endEOF:
		return io.EOF
	case endErr:
		return errors.New(d.string())
	default:
		d.fail("bad end-of-input code %d", c)
		return nil
	}
}

func (d *decoder) result() (vm.Value, error) {
	switch tag := d.byte(); tag {
	case resScalar:
		return vm.Value{N: d.uvarint()}, nil
	case resString:
		return vm.StrV(d.string()), nil
	case resList:
		n := d.uvarint()
		if n > uint64(len(d.p)-d.off) {
			d.fail("list length %d runs past the end", n)
			return vm.Value{}, nil
		}
		l := &vm.List{Type: vm.ListOf(vm.String), Data: make([]vm.Value, n)}
		for i := range l.Data {
			l.Data[i] = vm.StrV(d.string())
		}
		return vm.RefV(l), nil
	case resThrow:
		class := d.string()
		return vm.Value{}, vm.Throwf(class, "%s", d.string())
	case resOther:
		return vm.Value{}, vm.Throwf("IOException", "the recording cannot replay %s", d.string())
	default:
		d.fail("bad result tag %d", tag)
		return vm.Value{}, nil
	}
}

// A Recording is a recording read into memory: its header and its
// events, checked against the file's CRC.
type Recording struct {
	Header Header
	// ExitCode is the exit code the recorded run ended with.
	ExitCode int
	events   []byte // the encoded events, end event excluded
	// Events is the number of events before the end event.
	Events int
	// Core is the moment a dump (run --dump-on-crash, the REPL's dump)
	// was taken at; nil for a plain recording.
	Core *Core
}

// Core is the moment of a dump: the end of the run (a crash: the uncaught
// exception or the deadlock that ended it), or a moment of a debug
// session: a thread at a statement boundary (Trap) — its reductions,
// depth, the function (an index in the program's Funcs) and the pc — or
// the end of a quantum of Thread that ended with a scheduler event of
// kind Kind and left the events at byte Offset.
type Core struct {
	AtEnd      bool
	Thread     int64
	Reductions int64
	Depth      int
	Func       int
	PC         int32
	Trap       bool
	// Throw: the moment is a throw by Thread (Func and PC: its top
	// frame's) rather than a statement boundary.
	Throw  bool
	Offset int
	Kind   uint8
}

// core appends a core event.
func (e *encoder) core(c *Core) {
	e.byte(evCore)
	e.bool(c.AtEnd)
	e.varint(c.Thread)
	e.varint(c.Reductions)
	e.uvarint(uint64(c.Depth))
	e.uvarint(uint64(c.Func))
	e.varint(int64(c.PC))
	e.bool(c.Trap)
	e.bool(c.Throw)
	e.uvarint(uint64(c.Offset))
	e.byte(c.Kind)
}

// core reads a core event's fields (after its kind).
func (d *decoder) core() *Core {
	return &Core{AtEnd: d.bool(), Thread: d.varint(), Reductions: d.varint(), Depth: int(d.uvarint()),
		Func: int(d.uvarint()), PC: int32(d.varint()), Trap: d.bool(), Throw: d.bool(), Offset: int(d.uvarint()), Kind: d.byte()}
}

// WriteDump writes a dump: log (a Journal's Log), the moment c, the end
// event and the checksum.
func WriteDump(w io.Writer, log []byte, c *Core) error {
	e := encoder{buf: append([]byte(nil), log...)}
	e.core(c)
	e.byte(evEnd)
	e.varint(0)
	e.buf = binary.LittleEndian.AppendUint32(e.buf, crc32.ChecksumIEEE(e.buf))
	_, err := w.Write(e.buf)
	return err
}

// MaxFileSize is the largest recording ReadFile reads (1 GiB): a debug
// session stops recording at 512 MiB, and a recording is read into
// memory whole.
const MaxFileSize = 1 << 30

// ReadFile reads and checks a recording. Like a program's source, it must
// be a regular file (not a device, which would be read until memory runs
// out, nor a FIFO, which would block the reader) of at most MaxFileSize
// bytes: anything else is refused at once with an *os.PathError.
func ReadFile(path string) (*Recording, error) {
	data, err := vm.ReadRegularFile(path, MaxFileSize, "a recording must be a file nlangdbg wrote: run --record, explore, a dump")
	if err != nil {
		return nil, err
	}
	r, err := Parse(data)
	if fe, ok := err.(*FormatError); ok {
		fe.File = path
	}
	return r, err
}

// Parse reads and checks a recording held in data. An error is a
// *FormatError that says what is wrong: not a recording, another version
// of the format, cut short, or corrupt.
func Parse(data []byte) (*Recording, error) {
	bad := func(format string, args ...any) error {
		return &FormatError{Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) < len(Magic) || string(data[:len(Magic)]) != Magic {
		return nil, bad("not an nlangdbg recording (no %q at the start)", Magic)
	}
	d := &decoder{p: data, off: len(Magic)}
	if v := d.uvarint(); d.err == nil && v != Version {
		return nil, bad("format version %d; this nlangdbg reads version %d (record the program again)", v, Version)
	}
	rec := &Recording{}
	h := &rec.Header
	h.Path = d.string()
	h.Source = append([]byte(nil), d.bytes()...)
	h.Hash = d.string()
	h.Quota = int(d.varint())
	h.Seed = d.varint()
	h.MaxFrames = int(d.varint())
	h.MaxHeap = d.varint()
	nargs := d.uvarint()
	if nargs > uint64(len(data)) {
		d.fail("%d arguments", nargs)
	}
	for i := uint64(0); i < nargs && d.err == nil; i++ {
		h.Args = append(h.Args, d.string())
	}
	flags := d.byte()
	h.InputDirect, h.Scheduled, h.Shared, h.Race = flags&1 != 0, flags&2 != 0, flags&4 != 0, flags&8 != 0
	// The file must end with the CRC of everything before it; when it
	// does not, say whether it was cut short or changed.
	crcOK := len(data) >= 4 &&
		crc32.ChecksumIEEE(data[:len(data)-4]) == binary.LittleEndian.Uint32(data[len(data)-4:])
	broken := func(what string, n int) error {
		switch {
		case crcOK:
			return bad("corrupt %s: %v", what, d.err)
		case d.short:
			return bad("cut short after %d events (no end event: the recorded run did not finish, or the file was truncated)", n)
		case d.err == nil:
			// (every event reads well: bytes were changed, not cut)
			return bad("corrupt (checksum mismatch: the file was changed after it was written)")
		}
		return bad("corrupt (checksum mismatch; %s: %v)", what, d.err)
	}
	if d.err != nil {
		return nil, broken("header", 0)
	}
	if err := h.Check(); err != nil && crcOK {
		return nil, bad("header: %v", err)
	}
	start := d.off
	// Walk the events to find the end event and to check their shape.
	n := 0
	lastAt, lastKind := -1, byte(0)
	for {
		if d.off >= len(data) {
			d.short = true
			d.fail("no end event")
			return nil, broken("events", n)
		}
		at := d.off
		if data[at] == evEnd {
			d.off++
			code := d.varint()
			if d.err == nil && len(data)-d.off != 4 {
				d.fail("%d bytes after the end event, want 4", len(data)-d.off)
				d.short = len(data)-d.off < 4
			}
			if d.err != nil || !crcOK {
				return nil, broken("end event", n)
			}
			rec.ExitCode = int(code)
			rec.events = data[start:at]
			rec.Events = n
			if lastKind == evCore {
				cd := &decoder{p: data, off: lastAt + 1}
				rec.Core = cd.core()
				rec.events = data[start:lastAt]
				rec.Events--
			}
			return rec, nil
		}
		lastAt, lastKind = at, data[at]
		skipEvent(d)
		if d.err != nil {
			return nil, broken(fmt.Sprintf("event %d", n), n)
		}
		n++
	}
}

// skipEvent reads one event (not the end event) and discards it.
func skipEvent(d *decoder) {
	switch k := d.byte(); k {
	case evDispatch:
		d.uvarint()
		d.byte()
		d.uvarint()
	case evNow:
		d.varint()
	case evInput, evFill:
		d.end()
		d.bytes()
	case evCall:
		d.string()
		d.result()
	case evOut:
		d.byte()
		d.bytes()
	case evCore:
		d.core()
	case evHold:
		d.hold()
	default:
		d.fail("unknown event kind %s", strconv.QuoteRune(rune(k)))
	}
}

// Log returns the recording as a Journal's log (header and events, no
// end): what ResumeJournal takes to open a recording in the debugger.
func (r *Recording) Log() []byte {
	var e encoder
	e.header(&r.Header)
	return append(e.buf, r.events...)
}
