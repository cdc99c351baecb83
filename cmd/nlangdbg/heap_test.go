package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nlangdbg/nlangdbg/internal/testmode"
)

// heapPrograms grow the heap without bound in the shapes that escaped
// the old per-allocation check: a List of Lists, a growing Dict, a
// string doubled, objects chained. Each catches the OutOfMemoryException
// and reports how far it got. (Not in testdata/run: the limit measures
// the process's heap, and those scripts run in parallel.)
var heapPrograms = map[string]string{
	"listoflists": `import io;
int main() {
    List<List<int>> outer = new List<List<int>>();
    try {
        while (true) {
            List<int> inner = new List<int>();
            for (int i = 0; i < 1000; i += 1) { inner.add(i); }
            outer.add(inner);
        }
    } catch (OutOfMemoryException e) {
        int n = outer.length();
        outer = new List<List<int>>();
        io.print("caught " + e.message);
        io.print(n > 100);
    }
    return 0;
}`,
	"dict": `import io;
int main() {
    Dict<int, string> d = new Dict<int, string>();
    int i = 0;
    try {
        while (true) { d.set(i, "v" + i); i += 1; }
    } catch (OutOfMemoryException e) {
        d = new Dict<int, string>();
        io.print("caught " + e.message);
        io.print(i > 1000);
    }
    return 0;
}`,
	"string": `import io;
int main() {
    string s = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    try {
        while (true) { s = s + s; }
    } catch (OutOfMemoryException e) {
        s = "";
        io.print("caught " + e.message);
        io.print(true);
    }
    return 0;
}`,
	"objects": `import io;
class Node { public Node next; public int v; }
int main() {
    Node head = null;
    try {
        while (true) { Node n = new Node(); n.next = head; head = n; }
    } catch (OutOfMemoryException e) {
        head = null;
        io.print("caught " + e.message);
        io.print(true);
    }
    return 0;
}`,
}

// TestMaxHeapBoundsTheHeap: under --max-heap every shape of growth ends
// in a catchable OutOfMemoryException, not in the process running out of
// memory; the program goes on after it.
func TestMaxHeapBoundsTheHeap(t *testing.T) {
	dir := t.TempDir()
	for name, src := range heapPrograms {
		path := filepath.Join(dir, name+".n")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		limit := "16MB" // (64MB in the full run)
		if testmode.Full() {
			limit = "64MB"
		}
		var out, errb bytes.Buffer
		code := doMain([]string{"run", "--max-heap", limit, path}, strings.NewReader(""), &out, &errb)
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if code != 0 || len(lines) != 2 || !strings.Contains(lines[0], "the heap limit of "+limit+" is reached") && !strings.Contains(lines[0], "exceeds the heap limit") || lines[1] != "true" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", name, code, out.String(), errb.String())
		}
	}
}

// TestMaxHeapIgnoresGarbage: what the program no longer holds does not
// count: 1.2 GB allocated in pieces of 2.4 and 1 MB, each dropped, runs
// to the end under a 64MB limit (400 MB outside the full run).
func TestMaxHeapIgnoresGarbage(t *testing.T) {
	n, want := 100, "5050\n"
	if !testmode.Full() {
		n, want = 33, "561\n"
	}
	path := filepath.Join(t.TempDir(), "garbage.n")
	os.WriteFile(path, []byte(`import io;
int main() {
    int sum = 0;
    for (int i = 0; i < `+strconv.Itoa(n)+`; i += 1) {
        int[] a = new int[100000];
        a[i] = i;
        sum += a[i];
        string s = "x";
        for (int k = 0; k < 20; k += 1) { s = s + s; }
        sum += s.length() / 1048576;
        List<int> l = new List<int>();
        for (int k = 0; k < 100000; k += 1) { l.add(k); }
    }
    io.print(sum);
    return 0;
}`), 0o644)
	var out, errb bytes.Buffer
	code := doMain([]string{"run", "--max-heap", "64MB", path}, strings.NewReader(""), &out, &errb)
	if code != 0 || out.String() != want {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestMaxHeapBoundsTheStack: a deep recursion whose frames would take
// the heap past --max-heap overflows before --max-frames; without the
// limit it runs. (A million frames over 64MB in the full run, 200,000
// over 8MB otherwise.)
func TestMaxHeapBoundsTheStack(t *testing.T) {
	depth, limit := "200000", "8MB"
	if testmode.Full() {
		depth, limit = "1000000", "64MB"
	}
	path := filepath.Join(t.TempDir(), "rec.n")
	os.WriteFile(path, []byte(`import io;
int down(int n) {
    if (n == 0) { return 0; }
    int a = n; int b = a + 1; int c = b + 1;
    return 1 + down(n - 1) + c - c;
}
int main() {
    io.print(down(`+depth+`));
    return 0;
}`), 0o644)
	var out, errb bytes.Buffer
	code := doMain([]string{"run", "--max-heap", limit, path}, strings.NewReader(""), &out, &errb)
	if code != 1 || !strings.HasPrefix(errb.String(), "Runtime error: StackOverflowException") {
		t.Fatalf("--max-heap %s: exit %d, stderr %.200q", limit, code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := doMain([]string{"run", path}, strings.NewReader(""), &out, &errb); code != 0 || out.String() != depth+"\n" {
		t.Fatalf("no limit: exit %d, stdout %q, stderr %.200q", code, out.String(), errb.String())
	}
}
