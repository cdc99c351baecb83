package vm

// This file is the VM's side of recording and replay (package
// sched/record): the one door through which a machine's contact with the
// world outside the program passes when a run is recorded or replayed —
// standard input and the natives that touch the file system. Output and
// time pass elsewhere (Machine.Stdout/Stderr, the scheduler's Clock).

// Outside carries what a program reads from outside while a run is
// recorded or replayed. Recording, each method does the real thing and
// logs what came of it; replaying, it returns what the log says and does
// not touch the world. Install it with Machine.SetOutside before any
// thread runs.
type Outside interface {
	// Replaying reports whether results come from a log. Then no reader
	// goroutine is started for standard input: input arrives only
	// through Machine.ArriveInput.
	Replaying() bool
	// Fill returns the next chunk of standard input that never blocks
	// (a regular file or an in-memory reader), read on the reading
	// thread; read does the real read. err is io.EOF (or the read's
	// error) at the end.
	Fill(read func() ([]byte, error)) ([]byte, error)
	// PostInput hands over a chunk of blocking standard input (a
	// terminal, a pipe) that the reader goroutine has read, err as for
	// Fill. It must not apply it: the owner of the log applies it with
	// Machine.ArriveInput at a moment it logs (the scheduler's next
	// dispatch).
	PostInput(chunk []byte, err error)
	// Call performs (recording) or replays one call of a native named name
	// whose result depends on the file system; do performs it.
	Call(t *Thread, name string, do func() (Value, error)) (Value, error)
}

// SetOutside makes o the machine's Outside. direct says, for a replay,
// whether the recorded input never blocked (see InputDirect); recording,
// it is ignored. Call it before any thread runs.
func (m *Machine) SetOutside(o Outside, direct bool) {
	if m.in == nil {
		m.in = newInput(nil)
	}
	m.in.out = o
	if o != nil && o.Replaying() {
		m.in.direct = direct
	}
}

// InputDirect reports whether the machine's standard input never blocks
// (a regular file or an in-memory reader): its reads are done on the
// reading thread and never park.
func (m *Machine) InputDirect() bool { return m.in == nil || m.in.direct }

// InputWake is a thread that input arriving through ArriveInput answers:
// its read returns V, or raises Err if Err is not nil.
type InputWake struct {
	T   *Thread
	V   Value
	Err error
}

// ArriveInput appends chunk to the machine's standard input (err, if not
// nil, ends it: io.EOF or a read error) and returns the parked readers
// that it now answers, in the order they asked; the caller wakes them.
// It is how input posted to an Outside arrives (see Outside.PostInput).
func (m *Machine) ArriveInput(chunk []byte, err error) []InputWake {
	if m.in == nil {
		return nil
	}
	return m.in.arrive(chunk, err)
}

// outsideFn wraps a native whose result depends on the file system so
// that it goes through the machine's Outside when there is one.
func outsideFn(name string, fn NativeFunc) NativeFunc {
	return func(t *Thread, a []Value) (Value, error) {
		var v Value
		var err error
		if in := t.M.in; in != nil && in.out != nil {
			v, err = in.out.Call(t, name, func() (Value, error) { return fn(t, a) })
		} else {
			v, err = fn(t, a)
		}
		// (numbered here, where a replay's result, made by the recording's
		// decoder, arrives too)
		t.M.NumberSeq(v.R)
		return v, err
	}
}

// outsideOf returns the Outside of t's machine, or nil.
func outsideOf(t *Thread) Outside {
	if in := t.M.in; in != nil {
		return in.out
	}
	return nil
}

// TrapReductions returns the thread's reductions at the trap that
// DebugHook.OnTrap is deciding about, or at the throw ThrowHook.OnThrow
// is (Reductions counts only the dispatches that are over). Valid only
// inside those hooks. With the thread,
// its depth and the trapped pc it names a moment of a deterministic run:
// between two reductions a thread passes each pc of each frame at most
// once (calls and loop back-edges are the reductions).
func (t *Thread) TrapReductions() int64 {
	return t.reductions + int64(t.runBudget) - int64(t.left)
}
