// Package record records and replays runs of NLang programs.
//
// With one carrier a run is a pure function of the program, the
// scheduler's options and what the program reads from outside. This
// package logs exactly that outside part, in the order it happened, and
// feeds it back on replay:
//
//   - every reading of the scheduler's clock (the deadlines of
//     thread.sleep and the moments timers fire): under replay the clock
//     returns the logged readings and never sleeps;
//   - standard input: a chunk that never blocks (a file, in-memory text)
//     as the reading thread read it ("fill"); blocking input (a terminal,
//     a pipe) as the chunk and the moment it arrived — the reader
//     goroutine only hands it over (vm.Outside.PostInput) and the
//     scheduler lets it arrive at the start of its next dispatch
//     (sched.Recorder.BeforeDispatch), a moment that is logged;
//   - the result of every native that touches the file system (io.readFile,
//     writeFile, appendFile, the fs functions, FileStream): under replay
//     the logged result is returned and the file system is not touched;
//   - the program's output, and the thread, stop and reductions of every
//     quantum: not inputs, but what a replay checks itself against, so
//     that a divergence is reported at the first event that differs.
//
// math.random needs nothing: its generator is seeded the same way in
// every run (mt19937 with 5489 until srand). NLang programs cannot read
// their arguments or environment (main takes no parameters); the
// arguments are kept in the header all the same. The header also holds
// the program's path and source, the scheduler's quota and seed, the
// limits, and a hash of the compiled program (ProgramHash), so that a
// replay by another build of nlangdbg, which might compile the program
// differently, is refused. The file format is described in
// docs/recording.md.
//
// Everything goes through one door on each side: vm.Outside for the
// machine (input and file natives), sched.Recorder and sched.Clock for
// the scheduler, and the machine's Stdout and Stderr writers. Recording
// needs one carrier: with several, the interleaving depends on the Go
// scheduler, which no log of inputs captures. A stop at a debugger trap
// does not change the schedule (the thread goes on with the rest of its
// quantum), so a recording made under the debugger replays without it.
//
// # Going back: re-execution, not copies
//
// A debug session keeps a Journal (in memory) and goes back by running
// the program again from the start on a fresh machine fed by the journal,
// up to the moment wanted (package inspect). We chose this over the two
// other ways to restore a past state, by measuring what each costs:
//
//   - Re-execution costs, per step back, the time of a plain run up to
//     the present: about 6–7 ns per reduction of a loop here (the 10M
//     reduction benchmark runs in 60–75 ms on a quiet machine), so a step
//     back after 10 million reductions answers in one or two such runs
//     (60–225 ms measured), and recording costs a few percent
//     (BenchmarkRecordOverhead: 1.00–1.10 times the CPU time of a plain
//     run on fib(30), the 30M loop and the 1M-message ping-pong). Memory
//     is the journal: a few bytes per quantum, plus input and output.
//   - Structural copies (a snapshot of threads, frames, registers, heap
//     objects, queues and timers at intervals) would make a step back
//     independent of the run's length, but a copy walks the whole heap:
//     at a 4000-reduction quantum a program allocating as it goes
//     would copy its live heap hundreds of times a second, and state that
//     is not plain data — open files, the input's reader, Go closures
//     inside natives' continuation frames — cannot be copied faithfully.
//   - An undo log (or copy-on-write by object epochs) must catch every
//     register, field and element write: a check in the interpreter's
//     hottest path, which the 1.3 times budget for recording does not
//     leave room for (the loop's own dispatch is a few nanoseconds).
//
// A checkpoint is therefore a moment (a thread, its reductions, its depth
// and a pc), not a copy: it costs a few words, and the session's memory
// for going back is bounded by the journal alone. The price is that going
// back from far into a long run takes as long as the run did; snapshots
// taken every N million reductions and replayed from with the journal's
// offset are the way to lift that if long runs need it.
package record
