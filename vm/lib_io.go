package vm

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"unicode/utf8"
)

// maxReadFile caps io.readFile, as the reference does (16 MiB).
const maxReadFile = 16 << 20

// ioFuncs returns the natives of package io.
//
// Console output goes to Machine.Stdout and Machine.Stderr under
// Machine.OutMu, one Write per call. Input comes from the machine's
// standard input (see input): a read that must wait parks its thread.
func ioFuncs() []*Native {
	return []*Native{
		libFn("io.print", "void print(string x)", func(t *Thread, a []Value) (Value, error) {
			libWrite(t.M, t.M.Stdout, a[0].S()+"\n")
			return Value{}, nil
		}),
		libFn("io.write", "void write(string x)", func(t *Thread, a []Value) (Value, error) {
			libWrite(t.M, t.M.Stdout, a[0].S())
			return Value{}, nil
		}),
		libFn("io.eprint", "void eprint(string x)", func(t *Thread, a []Value) (Value, error) {
			libWrite(t.M, t.M.Stderr, a[0].S()+"\n")
			return Value{}, nil
		}),
		libFn("io.readLine", "string readLine()", stdinReader(parseLine)),
		libFn("io.hasInput", "bool hasInput()", stdinReader(parseHasInput)),
		libFn("io.readToken", "string readToken()", stdinReader(tokenParser("io.readToken", func(tok string) (Value, error) {
			return StrV(tok), nil
		}))),
		libFn("io.readChar", "char readChar()", stdinReader(parseChar)),
		libFn("io.readInt", "int readInt()", readStdinParsed("io.readInt", Int)),
		libFn("io.readLong", "long readLong()", readStdinParsed("io.readLong", Long)),
		libFn("io.readFloat", "float readFloat()", readStdinParsed("io.readFloat", Float)),
		libFn("io.readDouble", "double readDouble()", readStdinParsed("io.readDouble", Double)),
		libFn("io.readBool", "bool readBool()", readStdinParsed("io.readBool", Bool)),
		libPinnedFn("io.readFile", "string readFile(string path)", ioReadFile),
		libPinnedFn("io.writeFile", "void writeFile(string path, string s)", func(t *Thread, a []Value) (Value, error) {
			return Value{}, libWriteFile(t, "io.writeFile", a[0].S(), a[1].S(), os.O_TRUNC)
		}),
		libPinnedFn("io.appendFile", "void appendFile(string path, string s)", func(t *Thread, a []Value) (Value, error) {
			return Value{}, libWriteFile(t, "io.appendFile", a[0].S(), a[1].S(), os.O_APPEND)
		}),
	}
}

// libWrite writes s to w under m.OutMu. Write errors are ignored, as
// printing never fails in NLang.
func libWrite(m *Machine, w io.Writer, s string) {
	if w == nil {
		return
	}
	m.OutMu.Lock()
	defer m.OutMu.Unlock()
	io.WriteString(w, s)
}

// stdinReader returns a native that reads one value with parse from the
// machine's standard input, parking until the input decides it.
func stdinReader(parse inputParse) NativeFunc {
	return func(t *Thread, a []Value) (Value, error) {
		in := t.M.in
		if in == nil { // a Machine made without NewMachine: no input
			in = newInput(nil)
		}
		return in.read(t, parse)
	}
}

func isInputSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// parseChar skips whitespace and reads one UTF-8 code point.
func parseChar(buf []byte, eof bool) (Value, int, error, bool) {
	i, ok := skipSpace(buf, eof)
	if !ok {
		return Value{}, 0, nil, false
	}
	if i == len(buf) {
		return Value{}, i, Throwf("IOException", "io.readChar: end of input"), true
	}
	if !utf8.FullRune(buf[i:]) && !eof {
		return Value{}, 0, nil, false
	}
	r, n := utf8.DecodeRune(buf[i:])
	if r == utf8.RuneError && n == 1 {
		return Value{}, i, Throwf("IOException", "io.readChar: invalid UTF-8 byte 0x%02x in input", buf[i]), true
	}
	return Value{N: uint64(r)}, i + n, nil, true
}

// readStdinParsed returns a native that reads a token and parses it strictly
// as typ; malformed text raises a plain Exception.
func readStdinParsed(fn string, typ *Type) NativeFunc {
	return stdinReader(tokenParser(fn, func(tok string) (Value, error) {
		v, ok := parseScalar(tok, typ)
		if !ok {
			return Value{}, libParseError(fn, tok, typ)
		}
		return v, nil
	}))
}

// ioReadFile reads a whole file of at most maxReadFile bytes.
func ioReadFile(t *Thread, a []Value) (Value, error) {
	path := a[0].S()
	if err := t.checkFS("io.readFile", path, false); err != nil {
		return Value{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return Value{}, libIOError("io.readFile", "open", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return Value{}, Throwf("IOException", "io.readFile: %s is a directory", strconv.Quote(path))
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReadFile+1))
	if err != nil {
		return Value{}, libIOError("io.readFile", "read", path, err)
	}
	if len(data) > maxReadFile {
		return Value{}, Throwf("IOException", "io.readFile: %s is larger than 16 MiB", strconv.Quote(path))
	}
	return StrV(string(data)), nil
}

// libWriteFile writes s to path, creating it, either truncating
// (os.O_TRUNC) or appending (os.O_APPEND).
func libWriteFile(t *Thread, fn, path, s string, mode int) error {
	if err := t.checkFS(fn, path, true); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|mode, 0o644)
	if err != nil {
		return libIOError(fn, "open", path, err)
	}
	_, werr := io.WriteString(f, s)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr != nil {
		return libIOError(fn, "write", path, werr)
	}
	return nil
}

// libIOError returns the IOException for a failed file operation:
// `fn: cannot verb "path": reason`.
func libIOError(fn, verb, path string, err error) *Throw {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return Throwf("IOException", "%s: cannot %s %s: %v", fn, verb, strconv.Quote(path), err)
}
