package sched

import "github.com/nlangdbg/nlangdbg/vm"

// Sites: where each thread was spawned and by whom, and where each
// channel, lock and semaphore was made, for the debugger's views (the
// spawn tree, the spawn site of a leaked thread, the location of a
// value). They are recorded only when asked (SetSites, RunConfig.Sites:
// a debug session, run --leaks): a plain run spends one test of a flag
// per spawn and per construction, and no memory.

// Site is a place in the program: the instruction at PC of Fn (the call
// that spawned a thread or made an object). The zero Site is unknown.
type Site struct {
	Fn *vm.Funcode
	PC int32
}

// Known reports whether s is a place.
func (s Site) Known() bool { return s.Fn != nil }

// Pos returns the file, line and column of s (zero if unknown).
func (s Site) Pos() (file string, line, col int) {
	if s.Fn == nil {
		return "", 0, 0
	}
	l, c := s.Fn.Pos(s.PC)
	return s.Fn.File, int(l), int(c)
}

// spawnRec is who spawned a thread (its id) and where.
type spawnRec struct {
	parent int64
	site   Site
}

// SetSites turns the recording of sites on or off (for the threads
// spawned and the objects made from then on). Set it before Run.
func (s *Scheduler) SetSites(on bool) {
	s.mu.Lock()
	s.sites = on
	s.mu.Unlock()
}

// siteOf returns the place thread t is at: the call it is in (a native
// call's frame has its pc past the call).
func siteOf(t *vm.Thread) Site {
	if t == nil || t.Depth() == 0 {
		return Site{}
	}
	f := t.Frame(0)
	pc := f.PC
	if pc > 0 {
		pc--
	}
	return Site{Fn: f.Fn, PC: pc}
}

// noteSpawn records that parent spawned t, where parent is now. Must
// hold s.mu, with s.sites set.
func (s *Scheduler) noteSpawn(parent, t *vm.Thread) {
	ti := info(t)
	if ti == nil || parent == nil {
		return
	}
	ti.extra().spawn = spawnRec{parent: parent.ID, site: siteOf(parent)}
}

// noteSite records in at where thread t is, if sites are recorded.
func noteSite(t *vm.Thread, at *Site) {
	if s := schedOf(t); s != nil && s.sites {
		*at = siteOf(t)
	}
}

// SpawnedBy returns the id of the thread that spawned t (0 for main, or
// if sites were not recorded when t was spawned) and where.
func (s *Scheduler) SpawnedBy(t *vm.Thread) (parent int64, at Site) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return spawnOf(t)
}

// spawnOf is SpawnedBy. Must hold s.mu.
func spawnOf(t *vm.Thread) (parent int64, at Site) {
	ti := info(t)
	if ti == nil || ti.x == nil {
		return 0, Site{}
	}
	return ti.x.spawn.parent, ti.x.spawn.site
}

// MadeAt returns where a value of the scheduler's types was made: a
// Channel, Mutex, ReentrantMutex or Semaphore where its constructor was
// called; a Future or a Thread where its thread was spawned. ok is false
// for other values and when the site was not recorded.
func (s *Scheduler) MadeAt(x any) (at Site, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch o := x.(type) {
	case Primitive:
		at = o.madeAt()
	case *vm.Thread:
		_, at = spawnOf(o)
	}
	return at, at.Known()
}
