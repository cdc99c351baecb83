package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// permProgram tries every kind of file access on the paths in
// in/ (allowed) and out/ (not), printing the outcome of each.
const permProgram = `import io;
import fs;
int main() {
    string dir = io.readFile("DIR/base.txt");
    string inside = dir + "/in";
    string outside = dir + "/out";
    try { io.readFile(inside + "/a.txt"); io.print("read in: ok"); } catch (IOException e) { io.print("read in: " + e.message); }
    try { io.readFile(outside + "/b.txt"); io.print("read out: ok"); } catch (IOException e) { io.print("read out: " + e.message); }
    try { io.readFile(inside + "/link.txt"); io.print("read link: ok"); } catch (IOException e) { io.print("read link: " + e.message); }
    try { io.writeFile(inside + "/new.txt", "x"); io.print("write in: ok"); } catch (IOException e) { io.print("write in: " + e.message); }
    try { io.writeFile(outside + "/new.txt", "x"); io.print("write out: ok"); } catch (IOException e) { io.print("write out: " + e.message); }
    try { io.appendFile(outside + "/b.txt", "x"); io.print("append out: ok"); } catch (IOException e) { io.print("append out: " + e.message); }
    try { FileStream s = new FileStream(outside + "/b.txt", "r"); io.print("stream out: ok"); } catch (IOException e) { io.print("stream out: " + e.message); }
    try { FileStream s = new FileStream(inside + "/s.txt", "w"); s.close(); io.print("stream write in: ok"); } catch (IOException e) { io.print("stream write in: " + e.message); }
    try { fs.listFiles(outside); io.print("list out: ok"); } catch (IOException e) { io.print("list out: " + e.message); }
    try { fs.makeDirs(outside + "/d"); io.print("mkdir out: ok"); } catch (IOException e) { io.print("mkdir out: " + e.message); }
    try { fs.remove(outside + "/b.txt"); io.print("remove out: ok"); } catch (IOException e) { io.print("remove out: " + e.message); }
    io.print(fs.exists(outside + "/b.txt"));
    io.print(fs.exists(inside + "/a.txt"));
    return 0;
}
`

func permFixture(t *testing.T) (dir, prog string) {
	dir, _ = filepath.EvalSymlinks(t.TempDir())
	for _, d := range []string{"in", "out"} {
		os.Mkdir(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "in", "a.txt"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(dir, "out", "b.txt"), []byte("b"), 0o644)
	os.Symlink(filepath.Join(dir, "out", "b.txt"), filepath.Join(dir, "in", "link.txt"))
	os.WriteFile(filepath.Join(dir, "in", "base.txt"), []byte(dir), 0o644)
	prog = filepath.Join(dir, "perm.n")
	os.WriteFile(prog, []byte(strings.ReplaceAll(permProgram, "DIR", filepath.Join(dir, "in"))), 0o644)
	return dir, prog
}

// TestAllowReadWrite: with --allow-read and --allow-write the program
// reaches only their directories (a symbolic link does not lead out),
// and every refusal is an IOException that says why.
func TestAllowReadWrite(t *testing.T) {
	dir, prog := permFixture(t)
	in := filepath.Join(dir, "in")
	var out, errb bytes.Buffer
	code := doMain([]string{"run", "--allow-read", in, "--allow-write", in, prog}, nil, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	q := func(p string) string { return `"` + filepath.Join(dir, p) + `"` }
	want := strings.Join([]string{
		"read in: ok",
		"read out: io.readFile: permission denied for " + q("out/b.txt") + ": outside the --allow-read directories (" + in + ")",
		"read link: io.readFile: permission denied for " + q("in/link.txt") + ": outside the --allow-read directories (" + in + ")",
		"write in: ok",
		"write out: io.writeFile: permission denied for " + q("out/new.txt") + ": outside the --allow-write directories (" + in + ")",
		"append out: io.appendFile: permission denied for " + q("out/b.txt") + ": outside the --allow-write directories (" + in + ")",
		"stream out: FileStream: permission denied for " + q("out/b.txt") + ": outside the --allow-read directories (" + in + ")",
		"stream write in: ok",
		"list out: fs.listFiles: permission denied for " + q("out") + ": outside the --allow-read directories (" + in + ")",
		"mkdir out: fs.makeDirs: permission denied for " + q("out/d") + ": outside the --allow-write directories (" + in + ")",
		"remove out: fs.remove: permission denied for " + q("out/b.txt") + ": outside the --allow-write directories (" + in + ")",
		"false",
		"true",
	}, "\n") + "\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "b.txt")); err != nil {
		t.Errorf("out/b.txt was removed: %v", err)
	}
}

// TestDenyFS: --deny-fs refuses every file access, and cannot be
// combined with an allow flag.
func TestDenyFS(t *testing.T) {
	dir, prog := permFixture(t)
	var out, errb bytes.Buffer
	code := doMain([]string{"run", "--deny-fs", prog}, nil, &out, &errb)
	want := "Runtime error: IOException: io.readFile: permission denied for \"" + filepath.Join(dir, "in", "base.txt") + "\": file access is off (--deny-fs)"
	if code != 1 || !strings.HasPrefix(errb.String(), want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errb.String(), want)
	}
	errb.Reset()
	code = doMain([]string{"run", "--deny-fs", "--allow-read", dir, prog}, nil, &out, &errb)
	if code != 2 || errb.String() != "nlangdbg run: deny-fs cannot be combined with allow-read or allow-write\n" {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	code = doMain([]string{"run", "--allow-read", filepath.Join(dir, "nosuch"), prog}, nil, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "allow-read "+filepath.Join(dir, "nosuch")+": no such file or directory") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
