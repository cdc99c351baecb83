package dap

// handles maps small positive integers (DAP frame ids) to values. The
// same value always gets the same id until reset; every resume resets the
// table, so ids from an earlier stop become unknown.
type handles[T comparable] struct {
	items []T
	ids   map[T]int
}

// add returns the id of v, making one if needed (ids start at 1).
func (h *handles[T]) add(v T) int {
	if id, ok := h.ids[v]; ok {
		return id
	}
	if h.ids == nil {
		h.ids = map[T]int{}
	}
	h.items = append(h.items, v)
	h.ids[v] = len(h.items)
	return len(h.items)
}

// get returns the value of id.
func (h *handles[T]) get(id int) (T, bool) {
	var zero T
	if id < 1 || id > len(h.items) || h.items[id-1] == zero {
		return zero, false
	}
	return h.items[id-1], true
}

// drop forgets the ids of the values gone says are gone (the other ids
// keep their values; new ids are not reused).
func (h *handles[T]) drop(gone func(T) bool) {
	var zero T
	for i, v := range h.items {
		if v != zero && gone(v) {
			delete(h.ids, v)
			h.items[i] = zero
		}
	}
}

// reset forgets every id.
func (h *handles[T]) reset() {
	h.items = nil
	h.ids = nil
}
