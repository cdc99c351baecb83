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
// scheduler, which no log of inputs captures.
package record
