package inspect

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// varsListener records a session's events for the variable tests.
// varsListener is the recording listener of session_test.go.
type varsListener = coreListener

func (l *coreListener) stop(t *testing.T) StopInfo {
	t.Helper()
	return l.waitStop(t)
}

func (l *coreListener) exit(t *testing.T) int {
	t.Helper()
	return l.waitExit(t)
}

// startAt launches src, sets a breakpoint (with cond) at each marker
// `// @name` and runs to the first stop.
func startAt(t *testing.T, src string, cond string, markers ...string) (*Session, *varsListener, StopInfo) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prog.n")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	l := newCoreListener()
	s, err := Launch(Config{Program: path}, l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Terminate)
	var specs []BreakpointSpec
	for _, m := range markers {
		line := 0
		for i, text := range strings.Split(src, "\n") {
			if strings.Contains(text, "// @"+m) {
				line = i + 1
			}
		}
		if line == 0 {
			t.Fatalf("no marker @%s", m)
		}
		specs = append(specs, BreakpointSpec{Line: line, Condition: cond})
	}
	for _, b := range s.SetBreakpoints(path, specs) {
		if !b.Verified {
			t.Fatalf("breakpoint not verified: %+v", b)
		}
	}
	s.ConfigurationDone()
	return s, l, l.stop(t)
}

// byName returns the Var named name of vs.
func byName(t *testing.T, vs []Var, name string) Var {
	t.Helper()
	for _, v := range vs {
		if v.Name == name {
			return v
		}
	}
	var names []string
	for _, v := range vs {
		names = append(names, v.Name)
	}
	t.Fatalf("no variable %s in %v", name, names)
	return Var{}
}

// children loads all children of a Var.
func children(t *testing.T, s *Session, v Var) []Var {
	t.Helper()
	if v.Ref == 0 {
		t.Fatalf("%s (%s) has no children", v.Name, v.Value)
	}
	vs, err := s.Variables(v.Ref, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// scopeVars returns the variables of the named scope of a frame.
func scopeVars(t *testing.T, s *Session, tid int64, depth int, name string) (Scope, []Var) {
	t.Helper()
	scopes, err := s.Scopes(tid, depth)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scopes {
		if sc.Name == name {
			vs, err := s.Variables(sc.Ref, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != sc.Count {
				t.Errorf("scope %s: Count %d, %d variables", name, sc.Count, len(vs))
			}
			return sc, vs
		}
	}
	t.Fatalf("no scope %s in %+v", name, scopes)
	return Scope{}, nil
}

func checkVar(t *testing.T, v Var, typ, value, evalName string) {
	t.Helper()
	if v.Type != typ || v.Value != value || v.EvaluateName != evalName {
		t.Errorf("%s = {%s %q eval %q}, want {%s %q eval %q}", v.Name, v.Type, v.Value, v.EvaluateName, typ, value, evalName)
	}
}

const varsProg = `import io;
import thread;
enum Color { Red, Green, Blue }
struct Vec {
    int x;
    int y;
}
class Node {
    public int val;
    public Node next;
    public Node(int v) { val = v; }
}
class Point {
    public int x;
    public int y;
    public Point(int x, int y) { this.x = x; this.y = y; }
    public int sum() { return x + y; }
}
int spin() {
    int k = 0;
    while (true) { k = k + 1; }
    return k;
}
string repeat(string s, int n) {
    string r = "";
    for (int i = 0; i < n; i += 1) { r = r + s; }
    return r;
}
void producer(Channel<int> c) {
    thread.current().setName("producer");
    c.send(3);
}
void holder(Mutex m, Channel<int> ready, Channel<int> release) {
    thread.current().setName("holder");
    m.lock();
    ready.send(1);
    release.recv();
    m.unlock();
}
int answer() { return 42; }
int main() {
    int x = 20;
    string s = "hi";
    char c0 = 'z';
    double dd = 0.1 + 0.2;
    Color col = Color.Green;
    string big = repeat("ab", 150);
    int[] arr = [0, 10, 20, 30, 40, 50];
    List<string> names = ["ann", "bob"];
    Dict<string, int> d = new Dict<string, int>{"a": 1, "b": 2};
    Point p = new Point(3, 4);
    Vec v = new Vec{x: 1, y: 2};
    Node n1 = new Node(1);
    Node n2 = new Node(2);
    n1.next = n2;
    n2.next = n1;
    Point nothing = null;
    AtomicInt ai = new AtomicInt(7);
    Channel<int> ch = new Channel<int>(2);
    ch.send(1);
    ch.send(2);
    Thread prod = thread.spawn(producer, ch);
    thread.yield();
    Mutex mu = new Mutex();
    Channel<int> ready = new Channel<int>();
    Channel<int> release = new Channel<int>();
    Thread h = thread.spawn(holder, mu, ready, release);
    ready.recv();
    Future<int> fut = thread.spawn(answer);
    int got = fut.get();
    io.print("at bp"); // @bp
    io.print(x);
    io.print(p.x);
    io.print(arr[2]);
    io.print(d["a"]);
    io.print(names[1]);
    io.print(v.x);
    release.send(1);
    h.join();
    io.print(ch.recv() + ch.recv() + ch.recv());
    return 0;
}
`

func TestVariables(t *testing.T) {
	s, l, stop := startAt(t, varsProg, "", "bp")
	if stop.Reason != ReasonBreakpoint {
		t.Fatalf("stop %+v", stop)
	}
	tid := stop.ThreadID
	_, args := scopeVars(t, s, tid, 0, "Arguments")
	if len(args) != 0 {
		t.Errorf("main has arguments %+v", args)
	}
	scopes, _ := s.Scopes(tid, 0)
	for _, sc := range scopes {
		if sc.Name == "this" {
			t.Errorf("a this scope in main")
		}
	}
	_, locals := scopeVars(t, s, tid, 0, "Locals")
	checkVar(t, byName(t, locals, "x"), "int", "20", "x")
	checkVar(t, byName(t, locals, "s"), "string", `"hi"`, "s")
	checkVar(t, byName(t, locals, "c0"), "char", `'z'`, "c0")
	checkVar(t, byName(t, locals, "dd"), "double", "0.30000000000000004", "dd")
	checkVar(t, byName(t, locals, "col"), "Color", "Green", "col")
	checkVar(t, byName(t, locals, "got"), "int", "42", "got")
	checkVar(t, byName(t, locals, "nothing"), "Point", "null", "nothing")
	checkVar(t, byName(t, locals, "ai"), "AtomicInt", "7", "ai")

	big := byName(t, locals, "big")
	if big.Len != 300 || !strings.HasSuffix(big.Value, `ab…"`) || len(big.Value) != 2+200+len("…") || big.Ref != 0 {
		t.Errorf("big = %+v", big)
	}

	p := byName(t, locals, "p")
	checkVar(t, p, "Point", "Point {x: 3, y: 4}", "p")
	if p.Named != 2 {
		t.Errorf("p.Named = %d", p.Named)
	}
	pk := children(t, s, p)
	checkVar(t, byName(t, pk, "x"), "int", "3", "p.x")
	checkVar(t, byName(t, pk, "y"), "int", "4", "p.y")

	v := byName(t, locals, "v")
	checkVar(t, v, "Vec", "Vec {x: 1, y: 2}", "v")

	arr := byName(t, locals, "arr")
	checkVar(t, arr, "int[]", "int[6]", "arr")
	if arr.Indexed != 6 {
		t.Errorf("arr.Indexed = %d", arr.Indexed)
	}
	page, err := s.Variables(arr.Ref, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 2 {
		t.Fatalf("page = %+v", page)
	}
	checkVar(t, page[0], "int", "20", "arr[2]")
	checkVar(t, page[1], "int", "30", "arr[3]")
	if page[0].Name != "[2]" {
		t.Errorf("page[0].Name = %q", page[0].Name)
	}

	names := byName(t, locals, "names")
	checkVar(t, names, "List<string>", "List<string>(len 2)", "names")
	checkVar(t, children(t, s, names)[1], "string", `"bob"`, "names[1]")

	d := byName(t, locals, "d")
	checkVar(t, d, "Dict<string, int>", "Dict<string, int>(len 2)", "d")
	dk := children(t, s, d)
	checkVar(t, byName(t, dk, `["b"]`), "int", "2", `d["b"]`)

	// A cycle: n1.next.next is n1 again, with n1's reference.
	n1 := byName(t, locals, "n1")
	next := byName(t, children(t, s, n1), "next")
	if next.Value != "Node {val: 2, next: Node {…}}" {
		t.Errorf("n1.next = %q", next.Value)
	}
	back := byName(t, children(t, s, next), "next")
	if back.Ref != n1.Ref || back.EvaluateName != "n1.next.next" {
		t.Errorf("n1.next.next = %+v, want ref %d", back, n1.Ref)
	}

	// Concurrency objects.
	ch := children(t, s, byName(t, locals, "ch"))
	checkVar(t, byName(t, ch, "capacity"), "int", "2", "ch.capacity()")
	checkVar(t, byName(t, ch, "length"), "int", "2", "ch.length()")
	checkVar(t, byName(t, ch, "closed"), "bool", "false", "ch.isClosed()")
	buf := byName(t, ch, "buffer")
	if buf.Value != "[1, 2]" || buf.Indexed != 2 {
		t.Errorf("buffer = %+v", buf)
	}
	checkVar(t, children(t, s, buf)[1], "int", "2", "")
	senders := byName(t, ch, "senders")
	if !strings.HasSuffix(senders.Value, "] producer (sending 3)") {
		t.Errorf("senders = %+v", senders)
	}
	sender := children(t, s, senders)[0]
	sk := children(t, s, sender)
	checkVar(t, byName(t, sk, "state"), "string", `"waiting"`, "")
	checkVar(t, byName(t, sk, "waitReason"), "string", `"chan send"`, "")
	checkVar(t, byName(t, sk, "function"), "string", `"producer"`, "")
	if byName(t, ch, "receivers").Value != "none" {
		t.Errorf("receivers = %+v", byName(t, ch, "receivers"))
	}

	mu := byName(t, locals, "mu")
	if mu.Type != "Mutex" || !strings.Contains(mu.Value, "locked by holder") {
		t.Errorf("mu = %+v", mu)
	}
	mk := children(t, s, mu)
	owner := byName(t, mk, "owner")
	if !strings.HasSuffix(owner.Value, "] holder") || owner.Ref == 0 {
		t.Errorf("owner = %+v", owner)
	}
	ok := children(t, s, owner)
	checkVar(t, byName(t, ok, "waitReason"), "string", `"chan recv"`, "")
	// The parked owner's frame: its locals and arguments.
	hid, _ := strconv.ParseInt(byName(t, ok, "id").Value, 10, 64)
	if hv, err := s.Evaluate(hid, 0, "m", "hover"); err != nil || hv.Value != "Mutex(locked by holder)" {
		t.Errorf("m in holder: %+v %v", hv, err)
	}
	_, hargs := scopeVars(t, s, hid, 0, "Arguments")
	if len(hargs) != 3 || hargs[2].Name != "release" {
		t.Errorf("holder's arguments: %+v", hargs)
	}
	checkVar(t, byName(t, mk, "holds"), "int", "1", "")

	fut := byName(t, locals, "fut")
	if fut.Type != "Future<int>" || fut.Value != "Future<int>(done)" {
		t.Errorf("fut = %+v", fut)
	}
	fk := children(t, s, fut)
	checkVar(t, byName(t, fk, "state"), "string", `"done"`, "")
	checkVar(t, byName(t, fk, "value"), "int", "42", "")

	prod := children(t, s, byName(t, locals, "prod"))
	checkVar(t, byName(t, prod, "name"), "string", `"producer"`, "prod.name()")
	checkVar(t, byName(t, prod, "alive"), "bool", "true", "prod.isAlive()")

	if _, err := s.Variables(99999, 0, 0); !errors.Is(err, ErrBadRef) {
		t.Errorf("bad ref: %v", err)
	}

	// Setting variables: a local, a field, an element, a Dict value, a
	// List element, a struct field.
	scopes, _ = s.Scopes(tid, 0)
	loc := scopes[0].Ref
	if nv, err := s.SetVariable(loc, "x", "x * 2 + 1"); err != nil || nv.Value != "41" {
		t.Errorf("set x: %+v %v", nv, err)
	}
	if _, err := s.SetVariable(loc, "x", `"str"`); err == nil || !strings.Contains(err.Error(), "cannot use string as int") {
		t.Errorf("set x to a string: %v", err)
	}
	if _, err := s.SetVariable(loc, "nope", "1"); err == nil {
		t.Error("set of a missing variable: no error")
	}
	if nv, err := s.SetVariable(p.Ref, "x", "100"); err != nil || nv.Value != "100" || nv.EvaluateName != "p.x" {
		t.Errorf("set p.x: %+v %v", nv, err)
	}
	if _, err := s.SetVariable(arr.Ref, "[2]", "7"); err != nil {
		t.Errorf("set arr[2]: %v", err)
	}
	if _, err := s.SetVariable(arr.Ref, "[9]", "7"); err == nil {
		t.Error("set arr[9]: no error")
	}
	if _, err := s.SetVariable(d.Ref, `["a"]`, "99"); err != nil {
		t.Errorf(`set d["a"]: %v`, err)
	}
	if _, err := s.SetVariable(names.Ref, "[1]", `s + "!"`); err != nil {
		t.Errorf("set names[1]: %v", err)
	}
	if _, err := s.SetVariable(v.Ref, "x", "5"); err != nil {
		t.Errorf("set v.x: %v", err)
	}
	if _, err := s.SetVariable(buf.Ref, "[0]", "5"); err == nil {
		t.Error("set of a channel's buffer: no error")
	}
	// Inspecting changed nothing else; the sets show in the output.
	if err := s.Continue(tid, false); err != nil {
		t.Fatal(err)
	}
	if code := l.exit(t); code != 0 {
		t.Errorf("exit code %d", code)
	}
	want := "at bp\n41\n100\n7\n99\nhi!\n5\n6\n"
	if got := l.stdout(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	if _, err := s.Variables(p.Ref, 0, 0); err == nil {
		t.Error("Variables after the end: no error")
	}
}

func TestEvaluate(t *testing.T) {
	s, _, stop := startAt(t, varsProg, "", "bp")
	tid := stop.ThreadID
	for _, tc := range []struct {
		expr  string
		ctx   EvalContext
		typ   string
		value string
	}{
		{"x + 1", "watch", "int", "21"},
		{"s + c0", "hover", "string", `"hiz"`},
		{"names.length() + d[\"b\"]", "watch", "int", "4"},
		{"big.length()", "watch", "int", "300"},
		{"ch.length()", "watch", "int", "2"},
		{"p", "hover", "Point", "Point {x: 3, y: 4}"},
		{"p.sum()", "repl", "int", "7"},
		{"math.absi(-2) + math.sqrt(16.0)", "watch", "double", "6"},
		{"col == Color.Green && dd > 0.3", "watch", "bool", "true"},
	} {
		v, err := s.Evaluate(tid, 0, tc.expr, tc.ctx)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if v.Type != tc.typ || v.Value != tc.value {
			t.Errorf("%s = %s %q, want %s %q", tc.expr, v.Type, v.Value, tc.typ, tc.value)
		}
	}
	pv, _ := s.Evaluate(tid, 0, "p", "watch")
	checkVar(t, byName(t, children(t, s, pv), "y"), "int", "4", "p.y")
	nv, _ := s.Evaluate(0, 0, "n1.next", "watch")
	checkVar(t, byName(t, children(t, s, nv), "val"), "int", "2", "n1.next.val")
	ov, _ := s.Evaluate(tid, 0, "arr[1] + arr[2]", "watch")
	if ov.Ref != 0 || ov.Value != "30" {
		t.Errorf("arr[1] + arr[2] = %+v", ov)
	}

	for _, tc := range []struct {
		expr string
		ctx  EvalContext
		want error
		text string
	}{
		{"p.sum()", "watch", ErrCallsNotAllowed, ""},
		{"repeat(s, 2)", "hover", ErrCallsNotAllowed, ""},
		{`"at " + p`, "watch", ErrCallsNotAllowed, ""},
		{"names.add(\"x\")", "watch", ErrCallsNotAllowed, ""},
		{"io.print(1)", "watch", ErrCallsNotAllowed, ""},
		{"spin()", "repl", ErrStepLimit, ""},
		{"nothing.x", "watch", nil, "NullPointerException"},
		{"undefinedName", "watch", nil, "undefined: undefinedName"},
		{"x +", "repl", nil, "column 4: expected expression"},
	} {
		_, err := s.Evaluate(tid, 0, tc.expr, tc.ctx)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s (%s): error %v, want %v %q", tc.expr, tc.ctx, err, tc.want, tc.text)
		}
	}
	if _, err := s.Evaluate(tid, 5, "x", "watch"); !errors.Is(err, ErrNoFrame) {
		t.Errorf("frame 5: %v", err)
	}
	// The REPL may change the heap; the change is seen.
	if _, err := s.Evaluate(tid, 0, `names.add("cy")`, "repl"); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Evaluate(tid, 0, "names.length()", "watch"); v.Value != "3" {
		t.Errorf("after add: %+v", v)
	}
	if v, err := s.Evaluate(tid, 0, `names.add("dy")`, "repl"); err != nil || v.Type != "void" || v.Value != "" {
		t.Errorf("void call: %+v %v", v, err)
	}
}

const methodProg = `import io;
class Counter {
    public int count;
    public string label;
    public Counter(string l) { label = l; }
    public int addAll(int[] xs, int scale) {
        int total = 0;
        for (int i = 0; i < xs.length; i += 1) {
            total = total + xs[i] * scale; // @loop
        }
        count = count + total;
        return count;
    }
}
int main() {
    Counter c = new Counter("c");
    int[] xs = [1, 2, 3, 4, 5];
    io.print(c.addAll(xs, 10));
    io.print(c.label);
    return 0;
}
`

func TestScopesInMethodAndCondition(t *testing.T) {
	s, l, stop := startAt(t, methodProg, "i == 3", "loop")
	tid := stop.ThreadID
	v, err := s.Evaluate(tid, 0, "i", "watch")
	if err != nil || v.Value != "3" {
		t.Fatalf("i = %+v %v (the condition i == 3 should hold)", v, err)
	}
	_, args := scopeVars(t, s, tid, 0, "Arguments")
	if len(args) != 2 || args[0].Name != "xs" || args[1].Name != "scale" {
		t.Errorf("arguments = %+v", args)
	}
	checkVar(t, args[1], "int", "10", "scale")
	_, locals := scopeVars(t, s, tid, 0, "Locals")
	checkVar(t, byName(t, locals, "total"), "int", "60", "total")
	checkVar(t, byName(t, locals, "i"), "int", "3", "i")
	_, this := scopeVars(t, s, tid, 0, "this")
	checkVar(t, byName(t, this, "label"), "string", `"c"`, "this.label")
	checkVar(t, byName(t, this, "count"), "int", "0", "this.count")

	// Fields by bare name, locals and arguments together.
	if v, err := s.Evaluate(tid, 0, "label + (total + scale + count)", "watch"); err != nil || v.Value != `"c70"` {
		t.Errorf("expression in the method: %+v %v", v, err)
	}
	// The caller's frame sees its own locals.
	if v, err := s.Evaluate(tid, 1, "xs.length + c.count", "watch"); err != nil || v.Value != "5" {
		t.Errorf("in main: %+v %v", v, err)
	}
	if _, err := s.Evaluate(tid, 1, "total", "watch"); err == nil {
		t.Error("main sees total")
	}
	// Set a field of this and an argument.
	scopes, _ := s.Scopes(tid, 0)
	for _, sc := range scopes {
		switch sc.Name {
		case "this":
			if _, err := s.SetVariable(sc.Ref, "count", "1000"); err != nil {
				t.Error(err)
			}
		case "Arguments":
			if _, err := s.SetVariable(sc.Ref, "scale", "scale + 90"); err != nil {
				t.Error(err)
			}
		}
	}
	if err := s.Continue(tid, false); err != nil {
		t.Fatal(err)
	}
	// i == 3 holds once: no other stop. total = 60 + (4+5)*100.
	if code := l.exit(t); code != 0 {
		t.Errorf("exit %d", code)
	}
	if got, want := l.stdout(), "1960\nc\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

const syncProg = `import io;
import thread;
int boom(int x) {
    if (x > 0) {
        throw new IllegalStateException("boom " + x);
    }
    return x;
}
int slow(Channel<int> go) { return go.recv(); }
int waiter(Future<int> f) { return f.get(); }
int main() {
    Semaphore sem = new Semaphore(2);
    sem.acquire();
    Future<int> bad = thread.spawn(boom, 1);
    try {
        bad.get();
    } catch (IllegalStateException e) {
        io.print("caught");
    }
    Channel<int> go = new Channel<int>();
    Future<int> pend = thread.spawn(slow, go);
    Future<int> w = thread.spawn(waiter, pend);
    thread.yield();
    io.print("bp"); // @bp
    go.send(5);
    io.print(w.get());
    return 0;
}
`

func TestConcurrencyVariables(t *testing.T) {
	s, l, stop := startAt(t, syncProg, "", "bp")
	_, locals := scopeVars(t, s, stop.ThreadID, 0, "Locals")
	sem := children(t, s, byName(t, locals, "sem"))
	checkVar(t, byName(t, sem, "available"), "int", "1", "sem.available()")
	if w := byName(t, sem, "waiters"); w.Value != "none" || w.Ref != 0 {
		t.Errorf("sem waiters = %+v", w)
	}

	bad := byName(t, locals, "bad")
	if bad.Value != "Future<int>(failed: IllegalStateException: boom 1)" {
		t.Errorf("bad = %+v", bad)
	}
	bk := children(t, s, bad)
	checkVar(t, byName(t, bk, "state"), "string", `"failed"`, "")
	exc := byName(t, bk, "exception")
	checkVar(t, exc, "IllegalStateException", "IllegalStateException: boom 1", "")
	checkVar(t, byName(t, children(t, s, exc), "message"), "string", `"boom 1"`, "")

	pend := children(t, s, byName(t, locals, "pend"))
	checkVar(t, byName(t, pend, "state"), "string", `"pending"`, "")
	waiters := byName(t, pend, "waiters")
	if !strings.HasSuffix(waiters.Value, "] thread-4") || waiters.Indexed != 1 {
		t.Errorf("pend waiters = %+v", waiters)
	}
	wt := children(t, s, children(t, s, waiters)[0])
	checkVar(t, byName(t, wt, "waitReason"), "string", `"future get"`, "")
	checkVar(t, byName(t, wt, "function"), "string", `"waiter"`, "")
	th := byName(t, pend, "thread")
	if !strings.Contains(th.Value, "(waiting: chan recv)") {
		t.Errorf("pend thread = %+v", th)
	}
	gk := children(t, s, byName(t, locals, "go"))
	if r := byName(t, gk, "receivers"); !strings.HasSuffix(r.Value, "] thread-3") {
		t.Errorf("receivers = %+v", r)
	}
	if err := s.Continue(stop.ThreadID, false); err != nil {
		t.Fatal(err)
	}
	l.exit(t)
	if got := l.stdout(); got != "caught\nbp\n5\n" {
		t.Errorf("output %q", got)
	}
}
