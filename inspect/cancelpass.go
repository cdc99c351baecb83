package inspect

import "time"

// A re-execution that goes back can take long (a reverse continue
// through a long recording): the request that asked for it can be
// cancelled (SetCancelCheck), which stops it where it is.

// waitDone waits for the pass to reach its target or end. If the request
// being served is cancelled meanwhile, the pass stops dispatching and
// counts as cancelled (failed then says so).
func (p *pass) waitDone() bool {
	if p.s.cancel.f.Load() == nil {
		return <-p.done
	}
	stop := func() {
		p.cancelled = true
		p.r.sch.Pause()
		p.finish(false)
	}
	if p.s.cancelled() {
		stop() // (cancelled already: a later pass of the same request)
	}
	tick := time.NewTicker(cancelPoll)
	defer tick.Stop()
	for {
		select {
		case reached := <-p.done:
			return reached
		case <-tick.C:
			if !p.cancelled && p.s.cancelled() {
				stop()
			}
		}
	}
}

// failed returns why a pass that did not reach its target failed:
// ErrCancelled if it was cancelled, err otherwise.
func (p *pass) failed(err error) error {
	if p.cancelled {
		return ErrCancelled
	}
	return err
}
