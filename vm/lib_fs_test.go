package vm

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFSPredicatesAndSize(t *testing.T) {
	th, _, _ := libThread("")
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope")
	tests := []struct {
		path                  string
		exists, isFile, isDir bool
	}{
		{file, true, true, false},
		{dir, true, false, true},
		{missing, false, false, false},
		{"", false, false, false},
	}
	for _, tc := range tests {
		p := StrV(tc.path)
		if got := mustLib(t, th, "fs", "bool exists(string p)", p).B(); got != tc.exists {
			t.Errorf("exists(%q) = %v", tc.path, got)
		}
		if got := mustLib(t, th, "fs", "bool isFile(string p)", p).B(); got != tc.isFile {
			t.Errorf("isFile(%q) = %v", tc.path, got)
		}
		if got := mustLib(t, th, "fs", "bool isDirectory(string p)", p).B(); got != tc.isDir {
			t.Errorf("isDirectory(%q) = %v", tc.path, got)
		}
	}
	if got := mustLib(t, th, "fs", "int size(string p)", StrV(file)).I(); got != 5 {
		t.Errorf("size = %d, want 5", got)
	}
	_, err := callLib(t, th, "fs", "int size(string p)", StrV(missing))
	wantLibThrow(t, err, "IOException", "fs.size: cannot stat", missing)
	_, err = callLib(t, th, "fs", "int size(string p)", StrV(dir))
	wantLibThrow(t, err, "IOException", "fs.size", "is not a regular file")
}

func TestFSListFiles(t *testing.T) {
	th, _, _ := libThread("")
	dir := t.TempDir()
	for _, n := range []string{"b.txt", "a.txt", "C.txt", "z"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	v := mustLib(t, th, "fs", "List<string> listFiles(string dir)", StrV(dir))
	l, ok := v.R.(*List)
	if !ok || l.Type != ListOf(String) {
		t.Fatalf("listFiles returned %#v", v.R)
	}
	got := libFormat(t, th, v, l.Type)
	if want := `["C.txt", "a.txt", "b.txt", "link", "z"]`; got != want {
		t.Errorf("listFiles = %s, want %s", got, want)
	}
	_, err := callLib(t, th, "fs", "List<string> listFiles(string dir)", StrV(filepath.Join(dir, "a.txt")))
	wantLibThrow(t, err, "IOException", "fs.listFiles: cannot list")
	_, err = callLib(t, th, "fs", "List<string> listFiles(string dir)", StrV(filepath.Join(dir, "none")))
	wantLibThrow(t, err, "IOException", "no such file")
}

func TestFSMakeDirsRemove(t *testing.T) {
	th, _, _ := libThread("")
	dir := t.TempDir()
	deep := filepath.Join(dir, "x", "y", "z")
	mustLib(t, th, "fs", "void makeDirs(string p)", StrV(deep))
	mustLib(t, th, "fs", "void makeDirs(string p)", StrV(deep)) // existing: fine
	if st, err := os.Stat(deep); err != nil || !st.IsDir() {
		t.Fatalf("makeDirs did not create %s: %v", deep, err)
	}
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := callLib(t, th, "fs", "void makeDirs(string p)", StrV(filepath.Join(file, "sub")))
	wantLibThrow(t, err, "IOException", "fs.makeDirs: cannot create")

	// A non-empty directory cannot be removed; a missing path is no error.
	_, err = callLib(t, th, "fs", "void remove(string p)", StrV(filepath.Join(dir, "x")))
	wantLibThrow(t, err, "IOException", "fs.remove: cannot remove")
	mustLib(t, th, "fs", "void remove(string p)", StrV(deep))
	mustLib(t, th, "fs", "void remove(string p)", StrV(file))
	mustLib(t, th, "fs", "void remove(string p)", StrV(file))
	for _, p := range []string{deep, file} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still exists", p)
		}
	}
}

func TestFSJoin(t *testing.T) {
	th, _, _ := libThread("")
	tests := [][3]string{
		{"a", "b", "a/b"},
		{"a/", "b", "a/b"},
		{"a", "/abs", "/abs"},
		{"", "b", "b"},
		{"a", "", "a/"},
		{"a/b", "../c", "a/b/../c"},
	}
	for _, tc := range tests {
		if got := mustLib(t, th, "fs", "string join(string a, string b)", StrV(tc[0]), StrV(tc[1])).S(); got != tc[2] {
			t.Errorf("join(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
}
