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
// # Going back: re-execution from copies
//
// A debug session keeps a Journal (in memory) and goes back by running
// the program again on a fresh machine fed by the journal, up to the
// moment wanted (package inspect): from the start, or — the usual case —
// from the nearest copy of the execution taken before that moment
// (sched.Snapshot, taken now and then while the session runs;
// ResumeJournalAt resumes the journal at the copy's offset). We chose
// this mix over the alternatives by measuring what each costs:
//
//   - Re-execution alone costs, per step back, the time of a plain run up
//     to the present: about 6–7 ns per reduction of a loop here, so a
//     step back after 10 million reductions took one or two such runs
//     (60–225 ms measured) and one after a minute of run, a minute or
//     two. Recording costs a few percent (BenchmarkRecordOverhead:
//     1.00–1.10 times the CPU time of a plain run on fib(30), the 30M
//     loop and the 1M-message ping-pong).
//   - Structural copies of the execution (threads, frames, registers, the
//     objects they reach, queues, timers, generators) cost about as much
//     per object as the collector's marking of it (0.4–0.5 µs and 165
//     bytes per object, vm.BenchmarkCopyHeap), and the interpreter pays
//     nothing for them: they are taken between quanta, where nothing
//     runs. Taken every 25 ms of run, and never for more than a twentieth
//     of the run time, within a memory budget (inspect), they bound a
//     step back by the distance between two copies: 7–16 ms after 10
//     million reductions, 34 ms after 100 million against 1.2 s from the
//     start (inspect.BenchmarkStepBackLoopExit).
//   - An undo log (or copy-on-write by object epochs) must catch every
//     register, field and element write: a check in the interpreter's
//     hottest path, which the 1.3 times budget for recording does not
//     leave room for (the loop's own dispatch is a few nanoseconds), to
//     save copying objects that did not change, which the spacing of the
//     copies already makes cheap.
//
// What a copy cannot hold faithfully stays outside it: open files are
// shared with the copy (a replay does not touch them: their results come
// from the journal), and the input's reader goroutine belongs to the
// session, not to a machine (input not yet delivered comes from the
// journal).
package record
