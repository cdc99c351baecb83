package inspect

import "github.com/nlangdbg/nlangdbg/vm"

// FrameAt returns the depth of the innermost frame of a thread whose
// function's code spans line of file: the frame an expression written at
// that line is evaluated in (DAP's evaluate at a source position: a hover
// in a caller's code, with the top frame selected). ok is false if no
// frame of the thread is at that line's function. The program must be
// stopped.
func (s *Session) FrameAt(threadID int64, file string, line int) (depth int, ok bool, err error) {
	if err := s.checkStopped(); err != nil {
		return 0, false, err
	}
	t, err := s.thread(threadID)
	if err != nil {
		return 0, false, err
	}
	file = canonPath(file)
	for d := 0; d < t.Depth(); d++ {
		fn := t.Frame(d).Fn
		if canonPath(fn.File) == file && spans(fn, int32(line)) {
			return d, true, nil
		}
	}
	return 0, false, nil
}

// spans reports whether fn's source (its declaration to its closing
// brace, or to its last statement) covers line.
func spans(fn *vm.Funcode, line int32) bool {
	lo, hi := fn.Line, max(fn.Line, fn.EndLine)
	for _, e := range fn.Lines {
		lo, hi = min(lo, e.Line), max(hi, e.Line)
	}
	return lo > 0 && line >= lo && line <= hi
}
