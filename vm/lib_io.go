package vm

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxReadFile caps io.readFile, as the reference does (16 MiB).
const maxReadFile = 16 << 20

// ioFuncs returns the natives of package io.
//
// Console output goes to Machine.Stdout and Machine.Stderr under
// Machine.OutMu, one Write per call. Input comes from Machine.Stdin; reads
// by different threads are serialised. The token readers (readToken,
// readChar, readInt…) skip spaces, tabs and line breaks first and leave the
// byte after the token unread, so a readLine after readInt returns the
// rest of that line (usually ""), as C++ getline after >> does.
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
		libPinnedFn("io.readLine", "string readLine()", ioReadLine),
		libPinnedFn("io.hasInput", "bool hasInput()", ioHasInput),
		libPinnedFn("io.readToken", "string readToken()", func(t *Thread, a []Value) (Value, error) {
			tok, err := readStdinToken(t.M, "io.readToken")
			return StrV(tok), err
		}),
		libPinnedFn("io.readChar", "char readChar()", ioReadChar),
		libPinnedFn("io.readInt", "int readInt()", readStdinParsed("io.readInt", Int)),
		libPinnedFn("io.readLong", "long readLong()", readStdinParsed("io.readLong", Long)),
		libPinnedFn("io.readFloat", "float readFloat()", readStdinParsed("io.readFloat", Float)),
		libPinnedFn("io.readDouble", "double readDouble()", readStdinParsed("io.readDouble", Double)),
		libPinnedFn("io.readBool", "bool readBool()", readStdinParsed("io.readBool", Bool)),
		libFn("io.readFile", "string readFile(string path)", ioReadFile),
		libFn("io.writeFile", "void writeFile(string path, string s)", func(t *Thread, a []Value) (Value, error) {
			return Value{}, libWriteFile(t, "io.writeFile", a[0].S(), a[1].S(), os.O_TRUNC)
		}),
		libFn("io.appendFile", "void appendFile(string path, string s)", func(t *Thread, a []Value) (Value, error) {
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

// lockStdin returns m's input reader and locks it; the caller must call the
// returned unlock function.
func lockStdin(m *Machine) (*bufio.Reader, func()) {
	st := libStateOf(m)
	st.inMu.Lock()
	in := m.Stdin
	if in == nil {
		in = bufio.NewReader(strings.NewReader(""))
	}
	return in, st.inMu.Unlock
}

// ioReadLine reads one line without its "\n" or "\r\n"; at end of input
// it returns "".
func ioReadLine(t *Thread, a []Value) (Value, error) {
	in, unlock := lockStdin(t.M)
	defer unlock()
	line, err := in.ReadString('\n')
	if err != nil && err != io.EOF {
		return Value{}, Throwf("IOException", "io.readLine: %v", err)
	}
	line = strings.TrimSuffix(line, "\n")
	line = strings.TrimSuffix(line, "\r")
	return StrV(line), nil
}

// ioHasInput reports whether any input byte remains.
func ioHasInput(t *Thread, a []Value) (Value, error) {
	in, unlock := lockStdin(t.M)
	defer unlock()
	_, err := in.Peek(1)
	return BoolV(err == nil), nil
}

func isInputSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// skipStdinSpace consumes spaces, tabs and line breaks. It returns false at
// end of input.
func skipStdinSpace(in *bufio.Reader) (bool, error) {
	for {
		c, err := in.ReadByte()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if !isInputSpace(c) {
			in.UnreadByte()
			return true, nil
		}
	}
}

// readStdinToken reads the next whitespace-delimited token from m's stdin; at
// end of input it raises an IOException naming fn.
func readStdinToken(m *Machine, fn string) (string, error) {
	in, unlock := lockStdin(m)
	defer unlock()
	ok, err := skipStdinSpace(in)
	if err != nil {
		return "", Throwf("IOException", "%s: %v", fn, err)
	}
	if !ok {
		return "", Throwf("IOException", "%s: end of input", fn)
	}
	var b strings.Builder
	for {
		c, err := in.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", Throwf("IOException", "%s: %v", fn, err)
		}
		if isInputSpace(c) {
			in.UnreadByte()
			break
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// ioReadChar skips whitespace and reads one UTF-8 code point.
func ioReadChar(t *Thread, a []Value) (Value, error) {
	in, unlock := lockStdin(t.M)
	defer unlock()
	ok, err := skipStdinSpace(in)
	if err != nil {
		return Value{}, Throwf("IOException", "io.readChar: %v", err)
	}
	if !ok {
		return Value{}, Throwf("IOException", "io.readChar: end of input")
	}
	r, n, err := in.ReadRune()
	if err != nil {
		return Value{}, Throwf("IOException", "io.readChar: %v", err)
	}
	if r == utf8.RuneError && n == 1 {
		in.UnreadRune()
		b, _ := in.Peek(1)
		return Value{}, Throwf("IOException", "io.readChar: invalid UTF-8 byte 0x%02x in input", b[0])
	}
	return Value{N: uint64(r)}, nil
}

// readStdinParsed returns a native that reads a token and parses it strictly
// as typ; malformed text raises a plain Exception.
func readStdinParsed(fn string, typ *Type) NativeFunc {
	return func(t *Thread, a []Value) (Value, error) {
		tok, err := readStdinToken(t.M, fn)
		if err != nil {
			return Value{}, err
		}
		v, ok := parseScalar(tok, typ)
		if !ok {
			return Value{}, libParseError(fn, tok, typ)
		}
		return v, nil
	}
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
