package sched

import "github.com/nlangdbg/nlangdbg/vm"

// queue is a FIFO of T: the run queue, a channel's buffer and every wait
// queue. Pushing and popping are amortised O(1); removing from the middle
// (a seeded pick, Freeze, SetNext) is O(n), which is fine for the sizes a
// debugger wants to look at.
type queue[T any] struct {
	buf  []T
	head int
}

func (q *queue[T]) len() int { return len(q.buf) - q.head }

func (q *queue[T]) push(x T) { q.buf = append(q.buf, x) }

// pushFront puts x before every other element.
func (q *queue[T]) pushFront(x T) {
	if q.head > 0 {
		q.head--
		q.buf[q.head] = x
		return
	}
	var zero T
	q.buf = append(q.buf, zero)
	copy(q.buf[1:], q.buf)
	q.buf[0] = x
}

// pop removes and returns the first element.
func (q *queue[T]) pop() (x T, ok bool) {
	h := q.head
	if h >= len(q.buf) {
		return x, false
	}
	x = q.buf[h]
	var zero T
	q.buf[h] = zero        // let the collector have it
	if h+1 == len(q.buf) { // empty: start again at the front
		q.buf, q.head = q.buf[:0], 0
	} else {
		q.head = h + 1
		q.compact()
	}
	return x, true
}

// at returns element i (0 is the first).
func (q *queue[T]) at(i int) T { return q.buf[q.head+i] }

// removeAt removes element i, keeping the order of the others.
func (q *queue[T]) removeAt(i int) T {
	j := q.head + i
	x := q.buf[j]
	copy(q.buf[j:], q.buf[j+1:])
	var zero T
	q.buf[len(q.buf)-1] = zero
	q.buf = q.buf[:len(q.buf)-1]
	return x
}

// items returns a copy of the elements in order.
func (q *queue[T]) items() []T {
	return append([]T(nil), q.buf[q.head:]...)
}

// compact reclaims the popped prefix once it is the larger half.
func (q *queue[T]) compact() {
	switch {
	case q.head == len(q.buf):
		q.buf, q.head = q.buf[:0], 0
	case q.head >= 32 && 2*q.head >= len(q.buf):
		n := copy(q.buf, q.buf[q.head:])
		clear(q.buf[n:])
		q.buf, q.head = q.buf[:n], 0
	}
}

// A waiter is one parked thread in an object's wait queue: a pointer,
// so a wake copies one word. A parked sender's value is the argument of
// its call (vm.Thread.NativeArg).
type waiter = *vm.Thread

// waitq is a FIFO of parked threads.
type waitq = queue[waiter]
