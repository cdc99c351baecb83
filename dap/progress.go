package dap

import (
	"fmt"
	"sync"
	"time"

	dap "github.com/google/go-dap"

	"github.com/nlangdbg/nlangdbg/inspect"
)

// Progress of long requests (DAP progress events, for a client that
// supports them): a request still running after progressDelay — a
// reverse continue or step back that re-executes a long recording, an
// evaluation, a large stack or variable list — reports progressStart
// (cancellable: a cancel request naming its progressId cancels the
// request), then a progressUpdate every progressEvery with the time it
// has taken, and progressEnd when it is over.

// progressDelay is how long a request runs before it reports progress
// (a variable for tests), progressEvery how often it reports then.
var (
	progressDelay = 500 * time.Millisecond
	progressEvery = 500 * time.Millisecond
)

// progress starts the progress reporting of request seq (title: what it
// does) and returns what ends it. It reports nothing if the client does
// not support progress or the request ends within progressDelay.
func (c *session) progress(seq int, title string) (end func()) {
	if !c.client.progress {
		return func() {}
	}
	id := fmt.Sprintf("nlang-%d", seq)
	c.cancelled.progressOf(id, seq)
	var mu sync.Mutex
	started, ended := false, false
	start := time.Now()
	done := make(chan struct{})
	begin := func() {
		started = true
		c.sendNow(&dap.ProgressStartEvent{Event: newEvent("progressStart"), Body: dap.ProgressStartEventBody{
			ProgressId: id, Title: title, RequestId: seq, Cancellable: true}})
	}
	// (read here, not in the goroutine, which may start after the
	// request ended: a test sets them for its own requests)
	delay, every := progressDelay, progressEvery
	if delay <= 0 {
		begin() // (at once: tests)
	}
	go func() {
		t := time.NewTimer(delay)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			mu.Lock()
			if ended {
				mu.Unlock()
				return
			}
			if !started {
				begin()
			} else {
				c.sendNow(&dap.ProgressUpdateEvent{Event: newEvent("progressUpdate"), Body: dap.ProgressUpdateEventBody{
					ProgressId: id, Message: fmt.Sprintf("%.1f s", time.Since(start).Seconds())}})
			}
			mu.Unlock()
			t.Reset(every)
		}
	}()
	return func() {
		close(done)
		mu.Lock()
		ended = true
		if started {
			c.sendNow(&dap.ProgressEndEvent{Event: newEvent("progressEnd"), Body: dap.ProgressEndEventBody{ProgressId: id}})
		}
		mu.Unlock()
		c.cancelled.progressOf(id, 0)
	}
}

// sendNow writes an event at once, even while a request is being handled
// (the events a request causes are otherwise held until its response):
// progress is for the time the client waits.
func (c *session) sendNow(m dap.Message) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if !c.holding {
		c.writeLocked(m)
		return
	}
	held := c.out // (the request's response, if written already, keeps its place)
	c.out = nil
	c.writeMessageLocked(m)
	c.flushOutLocked()
	c.out = held
}

// longRequest runs a request that may take long and can be cancelled
// (going back): the program's work looks at the cancellation, and the
// client sees progress. It returns inspect.ErrCancelled if the request
// was cancelled.
func (c *session) longRequest(title string, run func() error) error {
	seq := c.curSeq
	if c.cancelled.has(seq) {
		return inspect.ErrCancelled
	}
	c.prog.SetCancelCheck(func() bool { return c.cancelled.has(seq) })
	defer c.prog.SetCancelCheck(nil)
	c.startAhead(c.readDone)
	defer c.long.Store(false)
	defer c.progress(seq, title)()
	return run()
}
