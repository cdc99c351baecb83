package inspect

// handles maps small integers (DAP variable references) to values. All
// handles expire when the program resumes.
type handles struct {
	items []any
}

func (h *handles) add(v any) int {
	h.items = append(h.items, v)
	return len(h.items) // references start at 1
}

func (h *handles) get(ref int) (any, bool) {
	if ref < 1 || ref > len(h.items) {
		return nil, false
	}
	return h.items[ref-1], true
}

func (h *handles) reset() { h.items = h.items[:0] }

// drop expires the handles whose values gone says are gone (a thread
// resumed alone, non-stop: its frames' handles), leaving the others'
// references as they are.
func (h *handles) drop(gone func(any) bool) {
	for i, v := range h.items {
		if v != nil && gone(v) {
			h.items[i] = nil
		}
	}
}
