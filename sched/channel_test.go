package sched

import (
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/vm"
)

func TestRecvWokenBySend(t *testing.T) {
	e := newEnv(t)
	r := e.fn("receiver", 1) // r0 = ch
	r.call(chanRecv, 1, nil, 0).log(1).retv()
	main := e.fn("main", 0)
	main.newChan(0, -1).loadk(1, r.fv()).spawn(2, threadT, 1, 0).
		yield().
		send(0, 42).
		join(2).ret0()
	s := e.start(main, Options{})

	if ev := s.Dispatch(); ev.Thread.Name() != "main" || ev.Stop != vm.StopYield || len(ev.Spawned) != 1 {
		t.Fatalf("1: %v", ev)
	}
	ev := s.Dispatch()
	recv := ev.Thread
	if recv.Name() != "thread-2" || ev.Stop != vm.StopPark {
		t.Fatalf("2: %v", ev)
	}
	if recv.State != vm.Waiting || recv.WaitReason != "chan recv" {
		t.Fatalf("receiver %v %q", recv.State, recv.WaitReason)
	}
	ch, ok := recv.WaitOn.(*Channel)
	if !ok {
		t.Fatalf("WaitOn %T", recv.WaitOn)
	}
	if info := ch.Snapshot(); len(info.Receivers) != 1 || info.Receivers[0] != recv || info.Cap != 0 || info.Type != chanT {
		t.Fatalf("snapshot %+v", info)
	}
	if got := ch.String(); got != "Channel<int>(len 0/cap 0)" {
		t.Errorf("String = %q", got)
	}
	ev = s.Dispatch() // main sends: direct handoff, then parks in join
	if ev.Thread.Name() != "main" || len(ev.Woken) != 1 || ev.Woken[0] != recv || ev.Stop != vm.StopPark {
		t.Fatalf("3: %v", ev)
	}
	if recv.State != vm.Runnable || recv.WaitReason != "" || recv.WaitOn != nil {
		t.Fatalf("woken receiver: %v %q %v", recv.State, recv.WaitReason, recv.WaitOn)
	}
	if info := ch.Snapshot(); len(info.Receivers) != 0 {
		t.Fatalf("receivers left: %+v", info)
	}
	dispatchAll(t, s)
	e.wantLog("thread-2:42")
}

func TestUnbufferedHandoffOrder(t *testing.T) {
	for _, tc := range []struct {
		quota int
		want  string
	}{
		// A send to a parked receiver hands over and goes on; a send with
		// none parks until a receive takes its value.
		{4000, "thread-2:1 main:1 main:2 thread-2:2 thread-2:3 main:3"},
		{7, "thread-2:1 main:1 main:2 thread-2:2 thread-2:3 main:3"},
		// Quota 1 preempts the sender at its loop back-edge, right after
		// each handoff, so the receiver is parked again at every send.
		{1, "thread-2:1 main:1 thread-2:2 main:2 thread-2:3 main:3"},
	} {
		e := newEnv(t)
		snd := e.fn("sender", 1) // r0 = ch
		snd.loadi(1, 1).forN(2, 3, func() {
			snd.call(chanSend, 9, nil, 0, 1).log(1).addi(1, 1)
		}).retv()
		main := e.fn("main", 0)
		main.newChan(0, -1).loadk(1, snd.fv()).spawn(2, threadT, 1, 0)
		for range 3 {
			main.call(chanRecv, 3, nil, 0).log(3)
		}
		main.join(2).ret0()
		if code := e.run(main, Options{Quota: tc.quota}); code != 0 {
			t.Fatal(code)
		}
		e.wantLog(strings.Fields(tc.want)...)
	}
}

func TestBufferedChannel(t *testing.T) {
	e := newEnv(t)
	snd := e.fn("sender", 1)
	snd.loadi(1, 1).forN(2, 5, func() {
		snd.call(chanSend, 9, nil, 0, 1).log(1).addi(1, 1)
	}).retv()
	main := e.fn("main", 0)
	main.newChan(0, 2).loadk(1, snd.fv()).spawn(2, threadT, 1, 0).yield()
	for range 5 {
		main.call(chanRecv, 3, nil, 0).log(3)
	}
	main.call(chanLen, 3, nil, 0).log(3).
		call(hostMethod(channelHost, "capacity"), 3, nil, 0).log(3).
		join(2).ret0()
	s := e.start(main, Options{})
	s.Dispatch() // main yields
	ev := s.Dispatch()
	if ev.Thread.WaitReason != "chan send" {
		t.Fatalf("sender: %v %q", ev, ev.Thread.WaitReason)
	}
	ch := ev.Thread.WaitOn.(*Channel)
	info := ch.Snapshot()
	if len(info.Buffer) != 2 || info.Buffer[0].I() != 1 || info.Buffer[1].I() != 2 ||
		len(info.Senders) != 1 || info.Offered[0].I() != 3 {
		t.Fatalf("snapshot %+v", info)
	}
	if got := ch.String(); got != "Channel<int>(len 2/cap 2)" {
		t.Errorf("String = %q", got)
	}
	dispatchAll(t, s)
	e.wantLog("thread-2:1", "thread-2:2", "main:1", "main:2", "main:3", "thread-2:3",
		"thread-2:4", "thread-2:5", "main:4", "main:5", "main:0", "main:2")
}

// catcher builds `void name(Channel<int> c) { try { op } catch
// (ChannelClosedException e) { logs("closed") } }` where op is recv (and
// log) or send(99).
func (e *env) catcher(name string, send bool) *fb {
	f := e.fn(name, 1)
	f.try("ChannelClosedException", func() {
		if send {
			f.send(0, 99).logs("sent")
		} else {
			f.call(chanRecv, 1, nil, 0).log(1)
		}
	}, func() { f.logs("closed") })
	return f.retv()
}

func TestChannelClose(t *testing.T) {
	e := newEnv(t)
	rcv := e.catcher("receiver", false)
	snd := e.catcher("sender", true)
	main := e.fn("main", 0)
	main.newChan(0, 2).send(0, 1).send(0, 2).call(chanClose, 9, nil, 0).
		try("ChannelClosedException", func() { main.send(0, 3) }, func() { main.logs("send on closed") }).
		call(chanRecv, 1, nil, 0).log(1).
		call(chanRecv, 1, nil, 0).log(1).
		try("ChannelClosedException", func() { main.call(chanRecv, 1, nil, 0) }, func() { main.logs("recv on drained") }).
		try("ChannelClosedException", func() { main.call(chanClose, 9, nil, 0) }, func() { main.logs("close twice") }).
		try("ChannelClosedException", func() { main.loadi(1, 5).call(chanTrySnd, 9, nil, 0, 1) }, func() { main.logs("trySend on closed") }).
		loadi(1, -1).call(chanTryRcv, 2, nil, 0, 1).log(2).
		// Parked receivers and senders all wake and throw.
		newChan(0, -1).newChan(1, -1).
		loadk(2, rcv.fv()).spawn(3, threadT, 2, 0).spawn(4, threadT, 2, 0).
		loadk(2, snd.fv()).spawn(3, threadT, 2, 1).spawn(4, threadT, 2, 1).
		sleep(10).
		call(chanClose, 9, nil, 0).call(chanClose, 9, nil, 1).
		sleep(10).ret0()
	if code := e.run(main, Options{}); code != 0 {
		t.Fatalf("exit %d\n%s", code, e.stderr.String())
	}
	e.wantLog("main:send on closed", "main:1", "main:2", "main:recv on drained", "main:close twice",
		"main:trySend on closed", "main:0",
		"thread-2:closed", "thread-3:closed", "thread-4:closed", "thread-5:closed")
}

func TestTryOps(t *testing.T) {
	e := newEnv(t)
	rcv := e.fn("receiver", 1)
	rcv.call(chanRecv, 1, nil, 0).log(1).retv()
	snd := e.fn("sender", 1)
	snd.send(0, 8).retv()
	main := e.fn("main", 0)
	main.newChan(0, 1).
		call(chanTryRcv, 2, nil, 0, 1).log(2).             // empty: false
		loadi(1, 5).call(chanTrySnd, 2, nil, 0, 1).log(2). // true
		loadi(1, 6).call(chanTrySnd, 2, nil, 0, 1).log(2). // full: false
		// tryRecv(out v) writes its out argument (scratch+1) on success.
		call(chanTryRcv, 2, nil, 0, 1).log(2).log(scratch+1).
		newChan(0, -1).
		loadi(1, 7).call(chanTrySnd, 2, nil, 0, 1).log(2). // nobody waits: false
		loadk(3, rcv.fv()).spawn(4, threadT, 3, 0).yield().
		loadi(1, 7).call(chanTrySnd, 2, nil, 0, 1).log(2). // parked receiver: true
		join(4).
		loadk(3, snd.fv()).spawn(4, threadT, 3, 0).yield().
		loadi(1, 0).call(chanTryRcv, 2, nil, 0, 1).log(2).log(scratch + 1).
		join(4).ret0()
	if code := e.run(main, Options{}); code != 0 {
		t.Fatal(code, e.stderr.String())
	}
	e.wantLog("main:0", "main:1", "main:0", "main:1", "main:5", "main:0", "main:1", "thread-2:7", "main:1", "main:8")
}

func TestChannelFIFOParked(t *testing.T) {
	// Receivers park in order 2, 3, 4 and are served in that order; then
	// senders park in order 5, 6, 7 and are received in that order.
	e := newEnv(t)
	rcv := e.fn("receiver", 1)
	rcv.call(chanRecv, 1, nil, 0).log(1).retv()
	snd := e.fn("sender", 2)
	snd.call(chanSend, 9, nil, 0, 1).retv()
	main := e.fn("main", 0)
	main.newChan(0, -1).loadk(1, rcv.fv()).
		spawn(2, threadT, 1, 0).spawn(2, threadT, 1, 0).spawn(2, threadT, 1, 0).
		sleep(5).send(0, 10).send(0, 20).send(0, 30).sleep(5).
		loadk(1, snd.fv())
	for v := int32(1); v <= 3; v++ {
		main.loadi(3, 100*v).spawn(2, threadT, 1, 0, 3)
	}
	main.sleep(5)
	for range 3 {
		main.call(chanRecv, 3, nil, 0).log(3)
	}
	main.ret0()
	if code := e.run(main, Options{}); code != 0 {
		t.Fatal(code)
	}
	e.wantLog("thread-2:10", "thread-3:20", "thread-4:30", "main:100", "main:200", "main:300")
}

// TestNativeCallParks: a native that calls NLang code through a
// continuation (vm.Thread.CallThen) lets that code park like any other:
// here the called function receives from a channel that another thread
// fills later, and the native then finishes with the value plus one.
func TestNativeCallParks(t *testing.T) {
	e := newEnv(t)
	inner := e.fn("inner", 1)
	inner.call(chanRecv, 1, nil, 0).ret(1)
	nested := &vm.Native{Name: "nested", Sig: "int nested(Channel<int> c)", Fn: func(t *vm.Thread, args []vm.Value) (vm.Value, error) {
		return vm.Value{}, t.CallThen(inner.f, []vm.Value{args[0]}, "nested", plusOne{})
	}}
	snd := e.fn("sender", 1)
	snd.send(0, 41).logs("sent").retv()
	main := e.fn("main", 0)
	main.newChan(0, -1).
		loadk(1, snd.fv()).spawn(2, threadT, 1, 0).
		call(nested, 3, nil, 0).log(3).join(2).ret0()
	s := e.start(main, Options{})
	ev := s.Dispatch()
	if ev.Stop != vm.StopPark || ev.Thread.WaitReason != "chan recv" {
		t.Fatalf("main did not park in the called function: %v", ev)
	}
	if st := ev.Thread.CallStack(); len(st) != 3 || st[0].Func != "inner" || st[1].Func != "nested" || st[2].Func != "main" {
		t.Fatalf("stack of the parked thread: %v", st)
	}
	dispatchAll(t, s)
	e.wantLog("thread-2:sent", "main:42")
}

// plusOne finishes a native call with the called function's int result
// plus one.
type plusOne struct{}

func (plusOne) Resume(t *vm.Thread, v vm.Value) (vm.Value, error) { return vm.IntV(v.I() + 1), nil }
