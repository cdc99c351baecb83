package inspect

import (
	"cmp"
	"path/filepath"
	"slices"

	"github.com/nlangdbg/nlangdbg/vm"
)

// threadInfo describes t (the program must be stopped).
func (s *Session) threadInfo(t *vm.Thread) ThreadInfo {
	s.mu.Lock()
	held := s.r.held[t] != nil
	s.mu.Unlock()
	ti := ThreadInfo{ID: t.ID, Name: t.Name, State: t.State.String(), Stopped: t == s.r.stopped, Held: held}
	if ti.Stopped && t.State == vm.Runnable || held {
		ti.State = "stopped" // the thread the stop is about, or held alone
	}
	if s.r.sch.Frozen(t) {
		ti.State = "frozen"
	}
	if t.State == vm.Waiting {
		ti.WaitReason = t.WaitReason
	}
	if p := s.r.sch.Pinned(t); p != "" {
		// inside a native that blocks its carrier (file I/O)
		ti.State, ti.WaitReason = "pinned", "pinned in "+p
	}
	if t.Depth() > 0 {
		fn := t.Frame(0).Fn
		line, _ := fn.Pos(s.shownPC(t, 0))
		ti.Func, ti.File, ti.Line = fn.Name, fn.File, int(line)
	}
	ti.Parent, ti.Spawn = s.spawnedBy(t) // views.go
	return ti
}

// Threads lists the live threads by id.
func (s *Session) Threads() ([]ThreadInfo, error) {
	if err := s.checkInspect(); err != nil {
		return nil, err
	}
	var out []ThreadInfo
	for _, t := range s.r.sch.Threads() {
		out = append(out, s.threadInfo(t))
	}
	return out, nil
}

// StoppedThread returns the id of the thread the last stop is about.
func (s *Session) StoppedThread() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r.stopped == nil {
		return 0
	}
	return s.r.stopped.ID
}

// LastStop returns the last stop.
func (s *Session) LastStop() StopInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.r.stop
}

// Stack returns levels frames of a thread starting at depth start
// (levels <= 0: all), and the total number of frames. Paging a deep
// stack costs only the frames returned.
func (s *Session) Stack(threadID int64, start, levels int) ([]FrameInfo, int, error) {
	if err := s.checkInspect(); err != nil {
		return nil, 0, err
	}
	t, err := s.thread(threadID)
	if err != nil {
		return nil, 0, err
	}
	total := t.Depth()
	if start < 0 {
		start = 0
	}
	end := total
	if levels > 0 && start+levels < end {
		end = start + levels
	}
	var out []FrameInfo
	for d := start; d < end; d++ {
		if (d-start)%cancelEvery == cancelEvery-1 && s.cancelled() {
			return nil, 0, ErrCancelled
		}
		f := t.Frame(d)
		pc := s.shownPC(t, d)
		line, col := f.Fn.Pos(pc)
		out = append(out, FrameInfo{Depth: d, Func: f.Fn.Name, File: f.Fn.File, Line: int(line), Col: int(col), PC: int(pc), Native: f.Fn.Cont,
			Address: s.Address(f.Fn, pc), OldCode: f.Fn.Obsolete, OldSource: s.oldTextOf(f.Fn)})
	}
	return out, total, nil
}

// Sources lists the program's source files.
func (s *Session) Sources() []string {
	var out []string
	for f := range s.prog.Files {
		out = append(out, f)
	}
	return out
}

// Source returns a source file's text (also for library sources such as
// "<prelude>").
func (s *Session) Source(path string) ([]byte, bool) {
	if b, ok := s.prog.Files[path]; ok {
		return b, true
	}
	if b, ok := s.oldSource(path); ok { // a text before a reload
		return b, true
	}
	for f, b := range s.prog.Files {
		if canonPath(f) == canonPath(path) || filepath.Base(f) == path {
			return b, true
		}
	}
	return nil, false
}

// ThreadsPage lists at most limit threads by id, always including the
// stopped thread and the threads in include (even past the limit); total
// is the number of live threads. It costs only the threads it returns, so
// it stays fast with hundreds of thousands of threads.
func (s *Session) ThreadsPage(limit int, include []int64) (page []ThreadInfo, total int, err error) {
	if err := s.checkInspect(); err != nil {
		return nil, 0, err
	}
	page, total = s.threadsPage(limit, include)
	return page, total, nil
}

// LiveThreadsPage is ThreadsPage that also works while the program runs:
// it holds the scheduler between two dispatches for as long as it takes
// to list the page (names, functions and states as they are now), and
// lets it go on. No event is sent.
func (s *Session) LiveThreadsPage(limit int, include []int64) (page []ThreadInfo, total int, err error) {
	s.mu.Lock()
	st := s.r.state
	s.mu.Unlock()
	switch st {
	case stateStopped, stateRunning:
	default:
		return nil, 0, ErrNotRunning
	}
	s.Still(func() { page, total = s.threadsPage(limit, include) })
	return page, total, nil
}

// threadsPage lists a page of threads; the world must be stopped.
func (s *Session) threadsPage(limit int, include []int64) (page []ThreadInfo, total int) {
	// the wanted threads first, then the lowest ids, up to limit: looked
	// up one by one, and the first ones taken, so that a page of 1,000
	// out of a million threads costs what 1,000 do
	if st := s.StoppedThread(); st != 0 {
		include = append(include[:len(include):len(include)], st)
	}
	include = append(include[:len(include):len(include)], s.HeldThreads()...)
	keep := map[*vm.Thread]bool{}
	for _, id := range include {
		if t := s.r.sch.Thread(id); t != nil && len(keep) < limit {
			keep[t] = true
		}
	}
	first, total := s.r.sch.FirstThreads(limit)
	for _, t := range first {
		if len(keep) >= limit {
			break
		}
		keep[t] = true
	}
	sel := make([]*vm.Thread, 0, len(keep))
	for t := range keep {
		sel = append(sel, t)
	}
	slices.SortFunc(sel, func(a, b *vm.Thread) int { return cmp.Compare(a.ID, b.ID) })
	for _, t := range sel { // in id order
		page = append(page, s.threadInfo(t))
	}
	return page, total
}
