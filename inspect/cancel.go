package inspect

import (
	"errors"
	"sync/atomic"
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
