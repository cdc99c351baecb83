package vm

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// fsFuncs returns the natives of package fs. All but join go through the
// machine's Outside (recording, replay). The predicates (exists,
// isFile, isDirectory) never fail: a path that cannot be examined answers
// false. The other functions raise IOException on failure. Symbolic links
// are followed.
func fsFuncs() []*Native {
	stat := func(name string, pred func(fs.FileInfo) bool) *Native {
		return libFn("fs."+name, "bool "+name+"(string p)", outsideFn("fs."+name, func(t *Thread, a []Value) (Value, error) {
			if t.checkFS("fs."+name, a[0].S(), false) != nil {
				return BoolV(false), nil // a path the program may not see cannot be examined
			}
			st, err := os.Stat(a[0].S())
			return BoolV(err == nil && pred(st)), nil
		}))
	}
	return []*Native{
		stat("exists", func(fs.FileInfo) bool { return true }),
		stat("isFile", func(st fs.FileInfo) bool { return st.Mode().IsRegular() }),
		stat("isDirectory", func(st fs.FileInfo) bool { return st.IsDir() }),
		libFn("fs.size", "int size(string p)", outsideFn("fs.size", fsSize)),
		libFn("fs.listFiles", "List<string> listFiles(string dir)", outsideFn("fs.listFiles", fsListFiles)),
		libFn("fs.makeDirs", "void makeDirs(string p)", outsideFn("fs.makeDirs", func(t *Thread, a []Value) (Value, error) {
			p := a[0].S()
			if err := t.checkFS("fs.makeDirs", p, true); err != nil {
				return Value{}, err
			}
			if err := os.MkdirAll(p, 0o755); err != nil {
				return Value{}, libIOError("fs.makeDirs", "create", p, err)
			}
			return Value{}, nil
		})),
		libFn("fs.remove", "void remove(string p)", outsideFn("fs.remove", func(t *Thread, a []Value) (Value, error) {
			p := a[0].S()
			if err := t.checkFS("fs.remove", p, true); err != nil {
				return Value{}, err
			}
			// A missing path is not an error; a non-empty directory is.
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return Value{}, libIOError("fs.remove", "remove", p, err)
			}
			return Value{}, nil
		})),
		libFn("fs.join", "string join(string a, string b)", func(t *Thread, a []Value) (Value, error) {
			return StrV(fsJoinPath(a[0].S(), a[1].S())), nil
		}),
	}
}

// fsSize returns the size in bytes of a regular file.
func fsSize(t *Thread, a []Value) (Value, error) {
	p := a[0].S()
	if err := t.checkFS("fs.size", p, false); err != nil {
		return Value{}, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return Value{}, libIOError("fs.size", "stat", p, err)
	}
	if !st.Mode().IsRegular() {
		return Value{}, Throwf("IOException", "fs.size: %s is not a regular file", strconv.Quote(p))
	}
	if st.Size() > math.MaxInt32 {
		return Value{}, Throwf("IOException", "fs.size: %s is too large for int (%d bytes)", strconv.Quote(p), st.Size())
	}
	return IntV(st.Size()), nil
}

// fsListFiles returns the names (without the directory) of the regular
// files in dir, sorted bytewise.
func fsListFiles(t *Thread, a []Value) (Value, error) {
	dir := a[0].S()
	if err := t.checkFS("fs.listFiles", dir, false); err != nil {
		return Value{}, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Value{}, libIOError("fs.listFiles", "list", dir, err)
	}
	var names []string
	for _, e := range entries {
		st, err := os.Stat(filepath.Join(dir, e.Name()))
		if err == nil && st.Mode().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	l := &List{Type: ListOf(String), Data: make([]Value, len(names))}
	for i, n := range names {
		l.Data[i] = StrV(n)
	}
	return RefV(l), nil
}

// fsJoinPath joins two path parts with one "/", as C++'s path operator/
// does: an absolute b replaces a, and an empty part yields the other.
func fsJoinPath(a, b string) string {
	switch {
	case a == "" || filepath.IsAbs(b):
		return b
	case b == "":
		if strings.HasSuffix(a, "/") {
			return a
		}
		return a + "/"
	case strings.HasSuffix(a, "/"):
		return a + b
	}
	return a + "/" + b
}
