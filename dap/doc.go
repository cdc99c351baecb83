// Package dap is nlangdbg's Debug Adapter Protocol server, a thin typed
// adapter over package inspect built on github.com/google/go-dap.
//
// One Server serves any number of connections, one session each
// (ServeConn, or Serve for a listener: one client after another). A
// session launches a program (launch) or debugs one that already runs
// (attach, when the Server has an Attach session, as `nlangdbg run
// --listen` does). Each virtual thread is a DAP thread with the same id
// (main is 1).
//
// # Concurrency
//
// Requests are read and handled on one goroutine, in order. Most answer
// at once and the program's stops and exit come back later as events
// from inspect's Listener on the carrier goroutine; but the requests that
// move the program to another moment — stepBack, reverseContinue,
// nlang/stepBack, nlang/goToCheckpoint, and the ':' commands that stand
// for them — re-execute the recording on the read loop before they
// answer (milliseconds from a checkpoint, longer from the start), and
// nlang/schedStep runs one quantum before it answers. A reader goroutine
// reads ahead while evaluate, variables and stackTrace run, so that a
// cancel request reaches them (cancel.go). One writer, guarded by a
// mutex, serialises every message and numbers them from 1. While a
// request is handled, the events it causes are held back and go out
// after its response, in the same write.
//
// # Launch
//
// Launch arguments (a test checks this list against the code):
//
//	program      the .n file (relative to cwd)
//	args         program arguments
//	cwd          the directory program and the allow lists are relative to
//	stopOnEntry  stop before main's first statement
//	quota        reductions per dispatch (absent: the default)
//	seed         scheduler seed (0: FIFO)
//	carriers     carriers running threads in parallel (absent: one)
//	maxFrames    call depth limit (absent: the default)
//	maxHeap      heap limit, bytes or "512MiB" (absent: the default)
//	noDebug      run without breakpoints or stops
//	replay       a recording (run --record) or dump to debug instead of program
//	allowRead    directories the program may read
//	allowWrite   directories the program may write
//	denyFs       no file access at all
//	token        the server's token, if it has one
//	race         detect data races (one carrier): a race stops the thread
//	nonStop      breakpoints without a mode stop their thread only, pause pauses one thread
//	stdin        a file the program reads as its input (relative to cwd)
//	console      internalConsole (default), integratedTerminal or externalTerminal (runInTerminal)
//
// Limits out of range are refused with the words the command line uses.
// A compile error fails the launch with the file:line:col report as its
// message (error id api.ErrCompile). Attach takes only token and nonStop: it pauses the program the
// Server was made for (NewAttachServer), and disconnect without
// terminateDebuggee leaves it running without breakpoints (the threads
// held alone let go).
//
// # What goes beyond the protocol
//
// Custom requests, commands in the "nlang/" namespace, ask for what DAP
// has no request for: the scheduler (nlang/scheduler, nlang/schedStep,
// …), thread control, going back (nlang/stepBack), checkpoints, the
// concurrency views (nlang/leaks, nlang/threadGroups, nlang/threads with
// filters and spawn parents: views.go), and the questions about the past
// (nlang/lastWrites, nlang/origin, nlang/query, nlang/timeline, answered
// by re-executing the recording on the read loop, with progress events
// and cancel; nlang/travel goes to a moment of their answers: past.go).
// Package
// dap/api lists them with their typed arguments and bodies; custom.go
// registers their handlers. A command is matched once the message is
// decoded ("nlang\/scheduler" is "nlang/scheduler"). The stopped event
// carries a body field "nlang" (api.Stop) with the stop's own reason
// where the protocol's cannot say it (a safepoint stop travels as
// "step"), whether it was reached going back, and a data breakpoint's
// change. In the "repl" context, an expression starting with ':' is a
// console command (api.ParseConsole) after Server.ReplCommands had its
// say: it runs the same custom request and answers in text.
//
// Exception breakpoint filters are "uncaught" and "all", with class
// conditions. A deadlock stops the program as an exception (description
// "Deadlock", text the scheduler's report). Thread names read
// "[ID] NAME · FUNC · STATE"; the threads response lists at most 1,000
// (always the stopped thread and the ones recently asked for stackTrace).
//
// Frame ids are handles into a table that is reset on every resume;
// variable references are inspect's own (they expire the same way).
// Location references (DAP 1.68: a variable's declaration and where its
// value was made, resolved by the locations request, which go-dap does
// not decode yet: locations.go) are never reset: a place in the program
// stays one.
package dap
