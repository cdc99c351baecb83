package sched

import (
	"fmt"
	"unsafe"

	"github.com/nlangdbg/nlangdbg/vm"
)

// Channel is an NLang Channel<T>: a FIFO of values with an optional
// buffer, whose senders and receivers park. Parked senders and receivers
// are served first come, first served; a send to a parked receiver hands
// the value over directly.
//
// Invariants: parked receivers exist only while the buffer is empty;
// parked senders only while it is full (for an unbuffered channel: always
// full); a closed channel has neither.
type Channel struct {
	s      *Scheduler
	typ    *vm.Type // Channel<T>
	cap    int
	buf    queue[vm.Value]
	closed bool
	recvq  waitq // parked receivers
	sendq  waitq // parked senders and the values they offer
	at     Site  // where it was made (SetSites)
}

// ChannelInfo is a snapshot of a channel for the debugger.
type ChannelInfo struct {
	Type   *vm.Type // Channel<T>
	Cap    int
	Buffer []vm.Value // buffered values, oldest first
	Closed bool
	// Senders are the parked senders, first served first; Offered holds
	// the value each one sends.
	Senders []*vm.Thread
	Offered []vm.Value
	// Receivers are the parked receivers, first served first.
	Receivers []*vm.Thread
}

// NewChannel returns a channel of type typ (Channel<T>) with a buffer of
// n values (0: unbuffered) run by s.
func NewChannel(s *Scheduler, typ *vm.Type, n int) *Channel {
	return &Channel{s: s, typ: typ, cap: n}
}

// Snapshot returns the channel's state.
func (c *Channel) Snapshot() ChannelInfo {
	unlock := c.s.lockView()
	defer unlock()
	ci := ChannelInfo{Type: c.typ, Cap: c.cap, Buffer: c.buf.items(), Closed: c.closed,
		Receivers: liveThreads(&c.recvq)}
	for i := 0; i < c.sendq.len(); i++ {
		if w := c.sendq.at(i); live(w) {
			ci.Senders = append(ci.Senders, w)
			ci.Offered = append(ci.Offered, w.NativeArg(1))
		}
	}
	return ci
}

// String renders the channel as "Channel<int>(len 2/cap 3)", with
// ", closed" once closed.
func (c *Channel) String() string {
	defer c.s.viewLock()()
	closed := ""
	if c.closed {
		closed = ", closed"
	}
	return fmt.Sprintf("%s(len %d/cap %d%s)", typeName(c.typ, "Channel"), c.buf.len(), c.cap, closed)
}

func typeName(t *vm.Type, def string) string {
	if t == nil {
		return def
	}
	return t.String()
}

func errClosed(msg string) error { return vm.Throwf("ChannelClosedException", "%s", msg) }

// send delivers v: to the first parked receiver, else into the buffer,
// else t parks until a receiver takes it.
func (c *Channel) send(t *vm.Thread, v vm.Value) (vm.Value, error) {
	ok, err := c.offer(t, v)
	if ok || err != nil {
		return vm.Value{}, err
	}
	s, err := blocking(t)
	if err != nil {
		return vm.Value{}, err
	}
	c.sendq.push(s.park(t, "chan send", c)) // v stays in its argument register
	return vm.Value{}, vm.ErrPark
}

// offer delivers v without parking and reports whether it could. Sending
// on a closed channel throws.
func (c *Channel) offer(t *vm.Thread, v vm.Value) (bool, error) {
	if c.closed {
		return false, errClosed("send on closed channel")
	}
	if c.recvq.len() > 0 {
		if _, ok := schedOf(t).wakeFirst(&c.recvq, v, nil); ok {
			return true, nil
		}
	}
	if c.buf.len() < c.cap {
		c.buf.push(v)
		return true, nil
	}
	return false, nil
}

// recv takes the next value; with none, it throws if the channel is
// closed, else t parks until a sender delivers.
func (c *Channel) recv(t *vm.Thread) (vm.Value, error) {
	if v, ok := c.take(t); ok {
		return v, nil
	}
	if c.closed {
		return vm.Value{}, errClosed("receive from closed channel")
	}
	s, err := blocking(t)
	if err != nil {
		return vm.Value{}, err
	}
	c.recvq.push(s.park(t, "chan recv", c))
	return vm.Value{}, vm.ErrPark
}

// take receives without parking: the oldest buffered value (the first
// parked sender then moves its value into the buffer and goes on), or,
// from an empty buffer, the first parked sender's value.
func (c *Channel) take(t *vm.Thread) (vm.Value, bool) {
	// (the length tests spare the common empty cases a call)
	if c.buf.len() > 0 {
		v, _ := c.buf.pop()
		if c.sendq.len() > 0 {
			if w, ok := schedOf(t).wakeFirst(&c.sendq, vm.Value{}, nil); ok {
				c.buf.push(takeOffer(w))
			}
		}
		return v, true
	}
	if c.sendq.len() > 0 {
		if w, ok := schedOf(t).wakeFirst(&c.sendq, vm.Value{}, nil); ok {
			return takeOffer(w), true
		}
	}
	return vm.Value{}, false
}

// close closes the channel and wakes every parked receiver and sender
// with a ChannelClosedException. Closing twice throws.
func (c *Channel) close(t *vm.Thread) (vm.Value, error) {
	if c.closed {
		return vm.Value{}, errClosed("close of closed channel")
	}
	c.closed = true
	s := schedOf(t)
	for {
		if _, ok := s.wakeFirst(&c.recvq, vm.Value{}, errClosed("receive from closed channel")); !ok {
			break
		}
	}
	for {
		if _, ok := s.wakeFirst(&c.sendq, vm.Value{}, errClosed("send on closed channel")); !ok {
			break
		}
	}
	return vm.Value{}, nil
}

func channelCtors() []*vm.Native {
	return []*vm.Native{
		ctor("Channel", "Channel()", func(t *vm.Thread, args []vm.Value) (vm.Value, error) {
			c := NewChannel(schedOf(t), t.NativeType(), 0)
			noteSite(t, &c.at)
			return vm.RefV(c), nil
		}),
		ctor("Channel", "Channel(int n)", func(t *vm.Thread, args []vm.Value) (vm.Value, error) {
			n := args[0].I()
			if n < 0 {
				return vm.Value{}, vm.Throwf("Exception", "negative channel capacity %d", n)
			}
			c := NewChannel(schedOf(t), t.NativeType(), int(n))
			noteSite(t, &c.at)
			return vm.RefV(c), nil
		}),
	}
}

func channelMethods() []*vm.Native {
	type C = *Channel
	return []*vm.Native{
		method("Channel", "void send(T v)", func(t *vm.Thread, c C, args []vm.Value) (vm.Value, error) {
			return c.send(t, args[1])
		}),
		method("Channel", "T recv()", func(t *vm.Thread, c C, args []vm.Value) (vm.Value, error) {
			return c.recv(t)
		}),
		method("Channel", "bool trySend(T v)", func(t *vm.Thread, c C, args []vm.Value) (vm.Value, error) {
			ok, err := c.offer(t, args[1])
			return vm.BoolV(ok), err
		}),
		method("Channel", "bool tryRecv(out T v)", func(t *vm.Thread, c C, args []vm.Value) (vm.Value, error) {
			v, ok := c.take(t)
			if ok {
				args[1] = v
			}
			return vm.BoolV(ok), nil
		}),
		method("Channel", "void close()", func(t *vm.Thread, c C, args []vm.Value) (vm.Value, error) {
			return c.close(t)
		}),
		readOnly(method("Channel", "int length()", func(t *vm.Thread, c C, args []vm.Value) (vm.Value, error) {
			return vm.IntV(int64(c.buf.len())), nil
		})),
		readOnly(method("Channel", "int capacity()", func(t *vm.Thread, c C, args []vm.Value) (vm.Value, error) {
			return vm.IntV(int64(c.cap)), nil
		})),
		readOnly(method("Channel", "bool isClosed()", func(t *vm.Thread, c C, args []vm.Value) (vm.Value, error) {
			return vm.BoolV(c.closed), nil
		})),
	}
}

// takeOffer returns the value the parked sender w offers: the argument
// of its Channel.send, still in its register.
func takeOffer(w waiter) vm.Value { return w.NativeArg(1) }

// Kind implements Primitive.
func (c *Channel) Kind() string { return "Channel" }

// TypeName implements Primitive.
func (c *Channel) TypeName() string { return typeName(c.typ, "Channel") }

// Holder implements Primitive: no thread holds a channel.
func (c *Channel) Holder() (*vm.Thread, Holding) { return nil, NoHolder }

// View implements Primitive: capacity, length, closed, the buffer, the
// parked senders (with what each sends) and receivers.
func (c *Channel) View() []Field {
	ci := c.Snapshot()
	var elem *vm.Type
	if ci.Type != nil && len(ci.Type.Args) == 1 {
		elem = ci.Type.Args[0]
	}
	return []Field{
		{Name: "capacity", Value: vm.IntV(int64(ci.Cap)), Type: vm.Int, Call: ".capacity()"},
		{Name: "length", Value: vm.IntV(int64(len(ci.Buffer))), Type: vm.Int, Call: ".length()"},
		{Name: "closed", Value: vm.BoolV(ci.Closed), Type: vm.Bool, Call: ".isClosed()"},
		{Name: "buffer", Kind: FieldValues, Values: ci.Buffer, Type: elem},
		{Name: "senders", Kind: FieldThreads, Threads: ci.Senders, Values: ci.Offered, Offer: "sending", Type: elem},
		{Name: "receivers", Kind: FieldThreads, Threads: ci.Receivers},
	}
}

func (c *Channel) hash(w *stateWriter) bool {
	w.u64(uint64(c.cap))
	w.bool(c.closed)
	w.u64(uint64(c.buf.len()))
	for i := 0; i < c.buf.len(); i++ {
		if !w.value(c.buf.at(i)) {
			return false
		}
	}
	w.waiters(&c.recvq)
	w.waiters(&c.sendq)
	for i := 0; i < c.sendq.len(); i++ {
		if t := c.sendq.at(i); live(t) && !w.value(t.NativeArg(1)) {
			return false
		}
	}
	return true
}

// TraceRefs implements vm.Tracer: the buffered values. (A parked
// sender's value is in its registers: marked if the sender may run.)
func (c *Channel) TraceRefs(r *vm.Reach) {
	for i := 0; i < c.buf.len(); i++ {
		r.Value(c.buf.at(i))
	}
}

// wakers: any thread that reaches the channel sends, receives or closes.
func (c *Channel) wakers() (bool, *vm.Thread) { return true, nil }

func (c *Channel) madeAt() Site { return c.at }

func (c *Channel) unwait(t *vm.Thread) bool {
	return removeWaiter(&c.recvq, t) || removeWaiter(&c.sendq, t)
}

// CopyFor implements vm.Copyable.
func (ch *Channel) CopyFor(c *vm.Copier) any {
	if cp, ok := c.Seen(unsafe.Pointer(ch)); ok {
		return cp
	}
	cp := &Channel{s: ctxOf(c).to, typ: c.Type(ch.typ), cap: ch.cap, closed: ch.closed, at: ch.at}
	c.Remember(unsafe.Pointer(ch), cp)
	cp.buf = copyValues(c, ch.buf)
	cp.recvq = copyThreads(c, ch.recvq)
	cp.sendq = copyThreads(c, ch.sendq)
	c.Bytes += int64(unsafe.Sizeof(*ch))
	return cp
}
