package inspect

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nlangdbg/nlangdbg/vm"
)

// ErrCancelled is returned by a request its client cancelled (see
// SetCancelCheck).
var ErrCancelled = errors.New("cancelled")

// cancelCheck holds the function SetCancelCheck installed.
type cancelCheck struct{ f atomic.Pointer[func() bool] }

// SetCancelCheck installs f (nil: none) as the test of whether the
// request being served was cancelled: Evaluate (between slices of the
// evaluation), Variables and Stack (every few hundred entries) then
// give up with ErrCancelled. The DAP server sets it around each request
// that can be long.
func (s *Session) SetCancelCheck(f func() bool) {
	if f == nil {
		s.cancel.f.Store(nil)
		return
	}
	s.cancel.f.Store(&f)
}

// cancelled reports whether the request being served was cancelled.
func (s *Session) cancelled() bool {
	f := s.cancel.f.Load()
	return f != nil && (*f)()
}

// evalSlice is the reductions an evaluation runs between two looks at
// the cancel check.
const evalSlice = 64

// cancelEvery is how many entries Variables and Stack make between two
// looks at the cancel check.
const cancelEvery = 256

// cancelPoll is how often a long evaluation looks at the cancel check
// from the side (watchCancel).
const cancelPoll = 10 * time.Millisecond

// watchCancel interrupts the machine m once the request being served is
// cancelled, so that an evaluation whose reductions are costly (each
// rewrites a large string, say) gives up at its next safepoint rather
// than at the end of its slice: seconds on a loaded machine. The
// returned function ends the watch and clears the interrupt if it set
// it. Only while the world is stopped (no carrier uses the interrupt).
func (s *Session) watchCancel(m *vm.Machine) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var set atomic.Bool
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(cancelPoll)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if s.cancelled() {
					set.Store(true)
					m.SetInterrupt(true)
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		if set.Load() {
			m.SetInterrupt(false)
		}
	}
}
