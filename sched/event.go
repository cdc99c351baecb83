package sched

import (
	"fmt"
	"strings"

	"github.com/nlangdbg/nlangdbg/vm"
)

// EventKind says what a scheduler Event reports.
type EventKind uint8

// Event kinds. Dispatch returns EventDispatch, EventIdle, EventDeadlock or
// EventEnd; OnEvent receives the others as they happen (and EventDeadlock
// and EventEnd too).
const (
	// EventDispatch: one quantum of Thread ran and Run returned Stop.
	EventDispatch EventKind = iota
	// EventIdle: no thread could run; timers are pending or the runnable
	// threads are frozen.
	EventIdle
	// EventSpawn: Thread was created (By spawned it; nil for main).
	EventSpawn
	// EventPark: Thread parked, waiting for Reason.
	EventPark
	// EventWake: Thread was made runnable (By woke it; nil for a timer).
	EventWake
	// EventPreempt: Thread spent its quantum or yielded (Stop says which)
	// and went to the back of the run queue.
	EventPreempt
	// EventTrap: Thread stopped at a debugger trap; it is first in the run
	// queue.
	EventTrap
	// EventExit: Thread ended (returned, or Thread.Uncaught ended it).
	EventExit
	// EventDeadlock: every live thread is parked and no timer is pending;
	// the report was written to Stderr.
	EventDeadlock
	// EventEnd: the program is over with exit code Code.
	EventEnd
	// EventHold: the debugger holds Thread (Scheduler.Hold, or a replay
	// of a recorded hold); it stays off the run queue until released. A
	// hold at a trap is an EventTrap with Held set.
	EventHold
	// EventRelease: Thread is no longer held (Scheduler.Release, or a
	// replay of a recorded release).
	EventRelease

	numEventKinds
)

var eventNames = [...]string{
	EventDispatch: "dispatch", EventIdle: "idle", EventSpawn: "spawn", EventPark: "park",
	EventWake: "wake", EventPreempt: "preempt", EventTrap: "trap", EventExit: "exit",
	EventDeadlock: "deadlock", EventEnd: "end", EventHold: "hold", EventRelease: "release",
}

func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", k)
}

// Event is something the scheduler did. Which fields are set depends on
// Kind (see the EventKind constants). Event values are plain data; the
// threads they point to may have moved on by the time they are read.
type Event struct {
	Kind   EventKind
	Thread *vm.Thread
	// Stop is why Run returned (EventDispatch, EventPreempt, EventTrap).
	Stop vm.Stop
	// Reductions is the number of reductions the quantum used
	// (EventDispatch), or -1 when the vm does not tell.
	Reductions int
	// Woken lists the threads made runnable during the dispatch, in order,
	// including those whose timers fired before it (EventDispatch,
	// EventIdle).
	Woken []*vm.Thread
	// Spawned lists the threads the dispatched thread created
	// (EventDispatch).
	Spawned []*vm.Thread
	// Reason is the wait reason (EventPark).
	Reason string
	// By is the thread that spawned or woke Thread (EventSpawn,
	// EventWake); nil for main and for timers.
	By *vm.Thread
	// Code is the program's exit code (EventEnd, EventDeadlock).
	Code int
	// Held says the trap holds Thread alone and the others go on
	// (EventTrap; HoldAtTrap).
	Held bool
}

// String renders the event on one line, for logs and tests, e.g.
// "dispatch thread-2 park (12 reductions) woke [main]".
func (e Event) String() string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	if e.Thread != nil {
		b.WriteString(" " + e.Thread.Name)
	}
	switch e.Kind {
	case EventDispatch:
		b.WriteString(" " + e.Stop.String())
		if e.Reductions >= 0 {
			fmt.Fprintf(&b, " (%d reductions)", e.Reductions)
		}
	case EventPreempt:
		b.WriteString(" " + e.Stop.String())
	case EventTrap:
		if e.Held {
			b.WriteString(" held")
		}
	case EventPark:
		b.WriteString(" [" + e.Reason + "]")
	case EventSpawn, EventWake:
		if e.By != nil {
			b.WriteString(" by " + e.By.Name)
		}
	case EventEnd, EventDeadlock:
		fmt.Fprintf(&b, " code %d", e.Code)
	}
	if len(e.Spawned) > 0 {
		b.WriteString(" spawned " + names(e.Spawned))
	}
	if len(e.Woken) > 0 {
		b.WriteString(" woke " + names(e.Woken))
	}
	return b.String()
}

func names(ts []*vm.Thread) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.Name
	}
	return "[" + strings.Join(s, " ") + "]"
}
