package sched

import "github.com/nlangdbg/nlangdbg/vm"

// A RaceHook hears of the happens-before edges of a run (package
// sched/race implements it): its methods are called synchronously, with
// the scheduler's lock held, and must not call the Scheduler's methods.
// Without a hook installed (SetRaceHook) the scheduler pays one nil check
// at each of these moments.
type RaceHook interface {
	// Spawn: parent (nil for main) started child.
	Spawn(parent, child *vm.Thread)
	// Wake: waker (running) woke wakee, which may now see what waker did.
	Wake(wakee, waker *vm.Thread)
	// Sync: t called a synchronisation native on obj (a Mutex, Channel,
	// Future, Thread, Semaphore, AtomicInt, …): t sees what was released
	// on obj, then releases on it.
	Sync(t *vm.Thread, obj any)
	// Exit: t ended; what it did is released on t and on its future
	// (nil if it has none), for the threads that join it or get the
	// future's value later.
	Exit(t *vm.Thread, fut *Future)
}

// SetRaceHook installs h (nil removes it). Call it before Run or the
// first Dispatch; it needs one carrier (else ErrStrategyCarriers).
func (s *Scheduler) SetRaceHook(h RaceHook) error {
	if len(s.carriers) > 1 {
		return ErrStrategyCarriers
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.race = h
	return nil
}

// raceSync tells the race hook of a synchronisation native called with
// args (the receiver, or the thread of thread.join, is args[0]).
func raceSync(s *Scheduler, t *vm.Thread, args []vm.Value) {
	if len(args) > 0 && args[0].R != nil {
		s.race.Sync(t, args[0].R)
	}
}
