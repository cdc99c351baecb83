package vm

// PendingThrow reports whether the native call the thread is parked in,
// or was woken from, will raise an exception when the thread resumes
// (CompleteThrow), for a scheduler hashing the program's state.
func (t *Thread) PendingThrow() bool { return t.pendingThrow() != nil }
