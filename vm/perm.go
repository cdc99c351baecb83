package vm

// This file restricts what a program may do with the file system
// (Machine.FS): opt-in permissions in the spirit of Deno's.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FSPolicy restricts a program's file access. A nil policy allows
// everything the user running it may do. Otherwise the program may read
// only inside Read's directories and write (create, truncate, append,
// make directories, remove) only inside Write's; Deny allows nothing.
// Paths are compared after symbolic links are resolved, so a link cannot
// lead outside.
type FSPolicy struct {
	Deny  bool
	Read  []string // absolute, resolved directories
	Write []string
}

// NewFSPolicy returns the policy of the flags --allow-read, --allow-write
// and --deny-fs (nil if none is given). Directories are relative to cwd
// ("" means the process's) and must exist.
func NewFSPolicy(read, write []string, deny bool, cwd string) (*FSPolicy, error) {
	if !deny && len(read) == 0 && len(write) == 0 {
		return nil, nil
	}
	if deny && (len(read) > 0 || len(write) > 0) {
		return nil, errors.New("deny-fs cannot be combined with allow-read or allow-write")
	}
	p := &FSPolicy{Deny: deny}
	resolve := func(flag string, dirs []string) ([]string, error) {
		var out []string
		for _, d := range dirs {
			abs := absIn(cwd, d)
			r, err := filepath.EvalSymlinks(abs)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", flag, d, unwrapPath(err))
			}
			if st, err := os.Stat(r); err != nil || !st.IsDir() {
				return nil, fmt.Errorf("%s %s: not a directory", flag, d)
			}
			out = append(out, r)
		}
		return out, nil
	}
	var err error
	if p.Read, err = resolve("allow-read", read); err != nil {
		return nil, err
	}
	if p.Write, err = resolve("allow-write", write); err != nil {
		return nil, err
	}
	return p, nil
}

func absIn(cwd, p string) string {
	if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// resolved returns path made absolute with its symbolic links resolved;
// for a path that does not exist yet, those of its deepest existing
// ancestor.
func resolved(path string) string {
	abs := absIn("", path)
	rest := ""
	for dir := abs; ; {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

func within(path string, dirs []string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, d+string(filepath.Separator)) || d == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// checkFS returns the IOException for an access the machine's policy
// forbids (write: a change, else a read), or nil.
func (t *Thread) checkFS(fn, path string, write bool) error {
	if t == nil || t.M == nil || t.M.FS == nil {
		return nil
	}
	p := t.M.FS
	if p.Deny {
		return Throwf("IOException", "%s: permission denied for %s: file access is off (--deny-fs)", fn, strconv.Quote(path))
	}
	dirs, flag := p.Read, "--allow-read"
	if write {
		dirs, flag = p.Write, "--allow-write"
	}
	if within(resolved(path), dirs) {
		return nil
	}
	if len(dirs) == 0 {
		return Throwf("IOException", "%s: permission denied for %s: no %s directory is given", fn, strconv.Quote(path), flag)
	}
	return Throwf("IOException", "%s: permission denied for %s: outside the %s directories (%s)", fn, strconv.Quote(path), flag, strings.Join(dirs, ", "))
}
