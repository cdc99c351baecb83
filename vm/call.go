package vm

import "math"

// Call runs fn(args…) to completion on t as a nested call from a native
// (for example a user toString called while formatting a List). The
// nested code cannot park: a blocking operation inside it fails with an
// IllegalStateException. An exception escaping fn is returned as a *Throw.
func (t *Thread) Call(fn *Funcode, args []Value) (Value, error) {
	// Registers of the nested call start above the current top frame.
	base := int32(len(t.stack))
	if n := len(t.frames); n > 0 {
		top := &t.frames[n-1]
		base = top.Base + int32(top.Fn.NumRegs)
	}
	t.growStack(int(base)+1+len(args)+fn.NumRegs, false)
	copy(t.stack[base+1:], args)
	savedBottom := t.bottom
	t.bottom = len(t.frames)
	t.nested++
	defer func() {
		t.bottom = savedBottom
		t.nested--
	}()
	if !t.push(fn, base+1, base) {
		return Value{}, Throwf("StackOverflowException", "stack overflow")
	}
	savedDest, savedType := t.nativeDest, t.nativeType
	defer func() { t.nativeDest, t.nativeType = savedDest, savedType }()
	switch t.Run(math.MaxInt) {
	case StopDone:
		if t.Uncaught != nil {
			exc := t.Uncaught
			t.Uncaught = nil
			return Value{}, &Throw{Obj: exc}
		}
		return t.stack[base], nil
	default:
		t.frames = t.frames[:t.bottom]
		return Value{}, Throwf("IllegalStateException", "%s cannot block or yield when called by the runtime", fn.Name)
	}
}
