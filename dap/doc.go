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
// Concurrency: requests are read and handled on one goroutine, in order;
// none of them waits for the program, whose stops and exit come back as
// events from inspect's Listener on the carrier goroutine. One writer,
// guarded by a mutex, serialises every message and numbers them from 1.
// While a request is handled, the events it causes are held back and go
// out after its response.
//
// Launch arguments: program (the .n file, relative to cwd), args, cwd,
// stopOnEntry, quota (reductions per dispatch), seed (scheduler seed),
// noDebug. A compile error fails the launch with the file:line:col
// report as its message. Attach takes no arguments: it pauses the
// program the Server was made for (NewAttachServer), and disconnect
// without terminateDebuggee leaves it running without breakpoints.
//
// Exception breakpoint filters are "uncaught" and "all". A deadlock stops
// the program as an exception (description "Deadlock", text the
// scheduler's report). Thread names read "[ID] NAME · FUNC · STATE"; the
// threads response lists at most 1,000 (always the stopped thread and
// the ones recently asked for stackTrace). In the "repl" context an
// expression starting with ':' is a debugger command
// (inspect.MetaCommand), after Server.ReplCommands had its say.
//
// Frame ids are handles into a table that is reset on every resume;
// variable references are inspect's own (they expire the same way).
package dap
