package vm

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
)

// The stream types ByteStream and FileStream read and write binary
// values: integers and floating values little-endian in their own width
// (bool and the 8-bit integers one byte, short and ushort two, int, uint,
// char, enums and float four, long, ulong and double eight), strings as an
// int32 byte count and the bytes, structs as their fields in order, and
// class objects (writeObject, or class fields of structs and objects) as a
// tagged record: 0 for null, 1 followed by the class name (as a string)
// and the fields, or 2 followed by the uint32 number of an object already
// written to the stream (so shared objects and cycles come back shared).
// Fields of other reference types (arrays, List, Dict, Func, Object)
// cannot be serialized.
//
// A ByteStream is an in-memory buffer: writes append at the end, reads
// start at position() (0 after reset()). A FileStream opens a file with
// mode "w" (truncate), "a" (append) or "r" (read). Reading past the end,
// using a closed stream or failing I/O raise IOException.

// ByteStream is an in-memory binary stream.
type ByteStream struct {
	buf    []byte
	pos    int
	closed bool
	ser    serState
}

// FileStream is a binary stream on a file.
type FileStream struct {
	path     string
	f        *os.File
	r        *bufio.Reader
	readable bool
	pos      int64
	closed   bool
	ser      serState
}

// serState numbers the objects written to or read from a stream.
type serState struct {
	written map[*Object]uint32
	read    []*Object
}

func (s *serState) clear() { *s = serState{} }

// streamPort is what the serializer needs from a stream.
type streamPort interface {
	write(t *Thread, op string, p []byte) error
	read(t *Thread, op string, n int) ([]byte, error)
	state() *serState
}

func (b *ByteStream) write(t *Thread, op string, p []byte) error {
	if b.closed {
		return streamClosed("ByteStream", op)
	}
	b.buf = append(b.buf, p...)
	b.pos += len(p)
	return nil
}

func (b *ByteStream) read(t *Thread, op string, n int) ([]byte, error) {
	if b.closed {
		return nil, streamClosed("ByteStream", op)
	}
	if n < 0 || b.pos+n > len(b.buf) {
		return nil, Throwf("IOException", "ByteStream.%s: read past the end of the stream", op)
	}
	p := b.buf[b.pos : b.pos+n]
	b.pos += n
	return p, nil
}

func (b *ByteStream) state() *serState { return &b.ser }

func (f *FileStream) write(t *Thread, op string, p []byte) error {
	if f.closed {
		return streamClosed("FileStream", op)
	}
	if f.readable {
		return Throwf("IOException", "FileStream.%s: %s is not open for writing", op, strconv.Quote(f.path))
	}
	_, err := outsideCall(t, "FileStream."+op, func() (Value, error) {
		n, err := f.f.Write(p)
		f.pos += int64(n)
		if err != nil {
			return Value{}, libIOError("FileStream."+op, "write", f.path, err)
		}
		return Value{}, nil
	})
	if err == nil && f.f == nil { // replayed: nothing was written
		f.pos += int64(len(p))
	}
	return err
}

func (f *FileStream) read(t *Thread, op string, n int) ([]byte, error) {
	if f.closed {
		return nil, streamClosed("FileStream", op)
	}
	if !f.readable {
		return nil, Throwf("IOException", "FileStream.%s: %s is not open for reading", op, strconv.Quote(f.path))
	}
	if n < 0 || n > maxReadFile {
		return nil, Throwf("IOException", "FileStream.%s: bad length %d in the stream", op, n)
	}
	v, err := outsideCall(t, "FileStream."+op, func() (Value, error) {
		p := make([]byte, n)
		m, err := io.ReadFull(f.r, p)
		f.pos += int64(m)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return Value{}, Throwf("IOException", "FileStream.%s: read past the end of the stream", op)
		}
		if err != nil {
			return Value{}, libIOError("FileStream."+op, "read", f.path, err)
		}
		return StrV(string(p)), nil
	})
	if err != nil {
		return nil, err
	}
	p := []byte(v.S())
	if f.f == nil { // replayed: nothing was read
		f.pos += int64(len(p))
	}
	return p, nil
}

// outsideCall runs do, through the machine's Outside if there is one
// (recording, replay: see Outside.Call).
func outsideCall(t *Thread, name string, do func() (Value, error)) (Value, error) {
	if o := outsideOf(t); o != nil {
		return o.Call(t, name, do)
	}
	return do()
}

func (f *FileStream) state() *serState { return &f.ser }

func streamClosed(typ, op string) error {
	return Throwf("IOException", "%s.%s: the stream is closed", typ, op)
}

// Host types.
var (
	byteStreamHost = &HostType{Name: "ByteStream", Format: func(v any) string {
		if b, ok := v.(*ByteStream); ok {
			return fmt.Sprintf("ByteStream(%d bytes)", len(b.buf))
		}
		return "ByteStream"
	}}
	fileStreamHost = &HostType{Name: "FileStream", Format: func(v any) string {
		if f, ok := v.(*FileStream); ok {
			return "FileStream(" + strconv.Quote(f.path) + ")"
		}
		return "FileStream"
	}}
)

func init() {
	byteStreamHost.Ctors = []*Native{{Name: "ByteStream", Sig: "ByteStream()", Fn: func(t *Thread, a []Value) (Value, error) {
		return RefV(&ByteStream{}), nil
	}}}
	byteStreamHost.Methods = append(streamMethods("ByteStream", func(v Value) (streamPort, bool) {
		b, ok := v.R.(*ByteStream)
		return b, ok && b != nil
	}),
		streamMethod("ByteStream", "int length()", func(t *Thread, a []Value) (Value, error) {
			b := a[0].R.(*ByteStream)
			if b.closed {
				return Value{}, streamClosed("ByteStream", "length")
			}
			return IntV(int64(len(b.buf))), nil
		}),
		streamMethod("ByteStream", "int position()", func(t *Thread, a []Value) (Value, error) {
			b := a[0].R.(*ByteStream)
			if b.closed {
				return Value{}, streamClosed("ByteStream", "position")
			}
			return IntV(int64(b.pos)), nil
		}),
		streamMethod("ByteStream", "void reset()", func(t *Thread, a []Value) (Value, error) {
			b := a[0].R.(*ByteStream)
			if b.closed {
				return Value{}, streamClosed("ByteStream", "reset")
			}
			b.pos = 0
			b.ser.clear()
			return Value{}, nil
		}),
		streamMethod("ByteStream", "void close()", func(t *Thread, a []Value) (Value, error) {
			b := a[0].R.(*ByteStream)
			b.closed, b.buf, b.pos = true, nil, 0
			b.ser.clear()
			return Value{}, nil
		}),
	)
	fileStreamHost.Ctors = []*Native{{Name: "FileStream", Sig: "FileStream(string path, string mode)", Fn: openFileStream}}
	fileStreamHost.Methods = append(streamMethods("FileStream", func(v Value) (streamPort, bool) {
		f, ok := v.R.(*FileStream)
		return f, ok && f != nil
	}),
		streamMethod("FileStream", "int length()", func(t *Thread, a []Value) (Value, error) {
			f := a[0].R.(*FileStream)
			if f.closed {
				return Value{}, streamClosed("FileStream", "length")
			}
			return outsideCall(t, "FileStream.length", func() (Value, error) {
				st, err := f.f.Stat()
				if err != nil {
					return Value{}, libIOError("FileStream.length", "stat", f.path, err)
				}
				return IntV(st.Size()), nil
			})
		}),
		streamMethod("FileStream", "int position()", func(t *Thread, a []Value) (Value, error) {
			f := a[0].R.(*FileStream)
			if f.closed {
				return Value{}, streamClosed("FileStream", "position")
			}
			return IntV(f.pos), nil
		}),
		streamMethod("FileStream", "void close()", func(t *Thread, a []Value) (Value, error) {
			f := a[0].R.(*FileStream)
			if f.closed {
				return Value{}, nil
			}
			f.closed = true
			f.ser.clear()
			return outsideCall(t, "FileStream.close", func() (Value, error) {
				if err := f.f.Close(); err != nil {
					return Value{}, libIOError("FileStream.close", "close", f.path, err)
				}
				return Value{}, nil
			})
		}),
	)
	for _, h := range []*HostType{byteStreamHost, fileStreamHost} {
		withFlags(OutsideState, h.Ctors...) // host data the state hash does not see
		withFlags(OutsideState, h.Methods...)
	}
}

// openFileStream is the FileStream(path, mode) constructor. Recorded or
// replayed, the opening goes through the machine's Outside (its result is
// the starting position); a replayed stream has no file and its reads and
// writes are replayed too.
func openFileStream(t *Thread, a []Value) (Value, error) {
	path, mode := a[0].S(), a[1].S()
	fs := &FileStream{path: path, readable: mode == "r"}
	if mode != "r" && mode != "w" && mode != "a" {
		return Value{}, Throwf("Exception", "FileStream: mode must be \"r\", \"w\" or \"a\", got %s", strconv.Quote(mode))
	}
	if err := t.checkFS("FileStream", path, mode != "r"); err != nil {
		return Value{}, err
	}
	pos, err := outsideCall(t, "FileStream.open", func() (Value, error) {
		return fs.open(mode)
	})
	if err != nil {
		return Value{}, err
	}
	fs.pos = pos.I()
	return RefV(fs), nil
}

// open opens the stream's file in mode ("r", "w" or "a") and returns the
// starting position.
func (fs *FileStream) open(mode string) (Value, error) {
	var err error
	switch mode {
	case "r":
		fs.f, err = os.Open(fs.path)
	case "w":
		fs.f, err = os.OpenFile(fs.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	case "a":
		fs.f, err = os.OpenFile(fs.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err == nil {
			if st, serr := fs.f.Stat(); serr == nil {
				fs.pos = st.Size()
			}
		}
	}
	if err != nil {
		fs.f = nil
		return Value{}, libIOError("FileStream", "open", fs.path, err)
	}
	if st, serr := fs.f.Stat(); serr == nil && st.IsDir() {
		fs.f.Close()
		fs.f = nil
		return Value{}, Throwf("IOException", "FileStream: %s is a directory", strconv.Quote(fs.path))
	}
	if fs.readable {
		fs.r = bufio.NewReader(fs.f)
	}
	return IntV(fs.pos), nil
}

// streamMethod returns a method of a stream type whose receiver
// (args[0]) is known to be non-null.
func streamMethod(typ, sig string, fn NativeFunc) *Native {
	name := typ + "." + sigMethodName(sig)
	return &Native{Name: name, Sig: sig, Fn: func(t *Thread, a []Value) (Value, error) {
		if a[0].R == nil {
			return Value{}, Throwf("NullPointerException", "%s called on null", name)
		}
		return fn(t, a)
	}}
}

// sigMethodName returns the method name of a signature "R name(params)".
func sigMethodName(sig string) string {
	end := 0
	for end < len(sig) && sig[end] != '(' {
		end++
	}
	start := end
	for start > 0 && sig[start-1] != ' ' {
		start--
	}
	return sig[start:end]
}

// streamMethods returns the reading and writing methods shared by the
// stream types; port extracts the stream from a receiver.
func streamMethods(typ string, port func(Value) (streamPort, bool)) []*Native {
	m := func(sig string, fn func(t *Thread, s streamPort, op string, a []Value) (Value, error)) *Native {
		op := sigMethodName(sig)
		return streamMethod(typ, sig, func(t *Thread, a []Value) (Value, error) {
			s, ok := port(a[0])
			if !ok {
				return Value{}, Throwf("NullPointerException", "%s.%s called on null", typ, op)
			}
			return fn(t, s, op, a)
		})
	}
	writeScalar := func(sig string, st *Type) *Native {
		return m(sig, func(t *Thread, s streamPort, op string, a []Value) (Value, error) {
			return Value{}, s.write(t, op, appendScalar(nil, a[1].N, st))
		})
	}
	readScalar := func(sig string, st *Type) *Native {
		return m(sig, func(t *Thread, s streamPort, op string, a []Value) (Value, error) {
			p, err := s.read(t, op, scalarSize(st))
			if err != nil {
				return Value{}, err
			}
			return Value{N: decodeScalar(p, st)}, nil
		})
	}
	return []*Native{
		writeScalar("void writeInt(int v)", Int),
		readScalar("int readInt()", Int),
		writeScalar("void writeFloat(float v)", Float),
		readScalar("float readFloat()", Float),
		writeScalar("void writeLong(long v)", Long),
		readScalar("long readLong()", Long),
		writeScalar("void writeDouble(double v)", Double),
		readScalar("double readDouble()", Double),
		m("void writeString(string s)", func(t *Thread, s streamPort, op string, a []Value) (Value, error) {
			return Value{}, s.write(t, op, appendString(nil, a[1].S()))
		}),
		m("string readString()", func(t *Thread, s streamPort, op string, a []Value) (Value, error) {
			str, err := readStreamString(t, s, op)
			return StrV(str), err
		}),
		m("void writeStruct(Object v)", func(t *Thread, s streamPort, op string, a []Value) (Value, error) {
			o, ok := a[1].R.(*Object)
			if !ok || !o.Class.IsStruct {
				return Value{}, Throwf("Exception", "%s.writeStruct: the value is not a struct", typ)
			}
			var buf []byte
			buf, err := serializeFields(t, s, buf, o, 0)
			if err != nil {
				return Value{}, err
			}
			return Value{}, s.write(t, op, buf)
		}),
		m("Object readStruct(string name)", func(t *Thread, s streamPort, op string, a []Value) (Value, error) {
			c := t.M.Prog.ClassByName(a[1].S())
			if c == nil || !c.IsStruct {
				return Value{}, Throwf("Exception", "%s.readStruct: no struct %s", typ, a[1].S())
			}
			o := t.M.NewObject(c)
			if err := deserializeFields(t, s, op, o, 0); err != nil {
				return Value{}, err
			}
			return RefV(o), nil
		}),
		m("void writeObject(Object o)", func(t *Thread, s streamPort, op string, a []Value) (Value, error) {
			buf, err := serializeObject(t, s, nil, a[1], 0)
			if err != nil {
				return Value{}, err
			}
			return Value{}, s.write(t, op, buf)
		}),
		m("Object readObject(string name)", func(t *Thread, s streamPort, op string, a []Value) (Value, error) {
			c := t.M.Prog.ClassByName(a[1].S())
			if c == nil || c.IsStruct || c.IsEnum {
				return Value{}, Throwf("Exception", "%s.readObject: no class %s", typ, a[1].S())
			}
			return deserializeObject(t, s, op, c, 0)
		}),
	}
}

// serializeDepth bounds the nesting of serialized values.
const serializeDepth = 1000

func scalarSize(t *Type) int {
	switch t.Kind {
	case KBool, KByte, KUbyte:
		return 1
	case KShort, KUshort:
		return 2
	case KLong, KUlong, KDouble:
		return 8
	}
	return 4 // int, uint, char, enum, float
}

// appendScalar appends the encoding of the scalar bits v of type t.
func appendScalar(buf []byte, v uint64, t *Type) []byte {
	switch t.Kind {
	case KFloat:
		return binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(math.Float64frombits(v))))
	case KDouble:
		return binary.LittleEndian.AppendUint64(buf, v)
	}
	switch scalarSize(t) {
	case 1:
		return append(buf, byte(v))
	case 2:
		return binary.LittleEndian.AppendUint16(buf, uint16(v))
	case 4:
		return binary.LittleEndian.AppendUint32(buf, uint32(v))
	}
	return binary.LittleEndian.AppendUint64(buf, v)
}

// decodeScalar decodes a scalar of type t from p (of scalarSize(t) bytes).
func decodeScalar(p []byte, t *Type) uint64 {
	switch t.Kind {
	case KBool:
		return b2u(p[0] != 0)
	case KByte:
		return uint64(int64(int8(p[0])))
	case KUbyte:
		return uint64(p[0])
	case KShort:
		return uint64(int64(int16(binary.LittleEndian.Uint16(p))))
	case KUshort:
		return uint64(binary.LittleEndian.Uint16(p))
	case KInt, KEnum:
		return uint64(int64(int32(binary.LittleEndian.Uint32(p))))
	case KUint, KChar:
		return uint64(binary.LittleEndian.Uint32(p))
	case KFloat:
		return math.Float64bits(float64(math.Float32frombits(binary.LittleEndian.Uint32(p))))
	}
	return binary.LittleEndian.Uint64(p) // long, ulong, double
}

func appendString(buf []byte, s string) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(s)))
	return append(buf, s...)
}

func readStreamString(t *Thread, s streamPort, op string) (string, error) {
	p, err := s.read(t, op, 4)
	if err != nil {
		return "", err
	}
	n := int32(binary.LittleEndian.Uint32(p))
	if n < 0 || n > maxReadFile {
		return "", Throwf("IOException", "%s: bad string length %d in the stream", op, n)
	}
	p, err = s.read(t, op, int(n))
	if err != nil {
		return "", err
	}
	return string(p), nil
}

// serializeFields appends the fields of the struct or object o.
func serializeFields(t *Thread, s streamPort, buf []byte, o *Object, depth int) ([]byte, error) {
	if depth > serializeDepth {
		return nil, Throwf("Exception", "serialization nested too deeply")
	}
	for i, f := range o.Class.Fields {
		v := o.Fields[i]
		var err error
		switch {
		case f.Type.IsScalar():
			buf = appendScalar(buf, v.N, f.Type)
		case f.Type.Kind == KString:
			buf = appendString(buf, v.S())
		case f.Type.Kind == KStruct:
			inner, _ := v.R.(*Object)
			if inner == nil {
				inner = t.M.NewObject(f.Type.Class)
			}
			buf, err = serializeFields(t, s, buf, inner, depth+1)
		case f.Type.Kind == KClass || f.Type.Kind == KInterface:
			buf, err = serializeObject(t, s, buf, v, depth+1)
		default:
			err = Throwf("Exception", "cannot serialize field %s.%s of type %s", o.Class.Name, f.Name, f.Type)
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// serializeObject appends the tagged record of the class reference v.
func serializeObject(t *Thread, s streamPort, buf []byte, v Value, depth int) ([]byte, error) {
	if v.R == nil {
		return append(buf, 0), nil
	}
	o, ok := v.R.(*Object)
	if !ok || o.Class.IsStruct {
		return nil, Throwf("Exception", "writeObject: %s is not a class object", dynTypeName(v))
	}
	st := s.state()
	if id, ok := st.written[o]; ok {
		buf = append(buf, 2)
		return binary.LittleEndian.AppendUint32(buf, id), nil
	}
	if st.written == nil {
		st.written = map[*Object]uint32{}
	}
	st.written[o] = uint32(len(st.written))
	buf = append(buf, 1)
	buf = appendString(buf, o.Class.Name)
	return serializeFields(t, s, buf, o, depth)
}

// deserializeFields reads the fields of o (a fresh struct or object).
func deserializeFields(t *Thread, s streamPort, op string, o *Object, depth int) error {
	if depth > serializeDepth {
		return Throwf("Exception", "%s: the stream is nested too deeply", op)
	}
	for i, f := range o.Class.Fields {
		switch {
		case f.Type.IsScalar():
			p, err := s.read(t, op, scalarSize(f.Type))
			if err != nil {
				return err
			}
			o.Fields[i] = Value{N: decodeScalar(p, f.Type)}
		case f.Type.Kind == KString:
			str, err := readStreamString(t, s, op)
			if err != nil {
				return err
			}
			o.Fields[i] = StrV(str)
		case f.Type.Kind == KStruct:
			inner := t.M.NewObject(f.Type.Class)
			if err := deserializeFields(t, s, op, inner, depth+1); err != nil {
				return err
			}
			o.Fields[i] = RefV(inner)
		case f.Type.Kind == KClass || f.Type.Kind == KInterface:
			v, err := deserializeObject(t, s, op, f.Type.Class, depth+1)
			if err != nil {
				return err
			}
			o.Fields[i] = v
		default:
			return Throwf("Exception", "%s: cannot deserialize field %s.%s of type %s", op, o.Class.Name, f.Name, f.Type)
		}
	}
	return nil
}

// deserializeObject reads a tagged class record whose object must be a
// want (or a subclass).
func deserializeObject(t *Thread, s streamPort, op string, want *Class, depth int) (Value, error) {
	p, err := s.read(t, op, 1)
	if err != nil {
		return Value{}, err
	}
	st := s.state()
	switch p[0] {
	case 0:
		return Value{}, nil
	case 2:
		p, err := s.read(t, op, 4)
		if err != nil {
			return Value{}, err
		}
		id := binary.LittleEndian.Uint32(p)
		if int(id) >= len(st.read) {
			return Value{}, Throwf("IOException", "%s: reference to unknown object %d in the stream", op, id)
		}
		o := st.read[id]
		if !o.Class.IsSubclassOf(want) {
			return Value{}, Throwf("Exception", "%s: expected %s, got %s", op, want.Name, o.Class.Name)
		}
		return RefV(o), nil
	case 1:
	default:
		return Value{}, Throwf("IOException", "%s: bad object tag %d in the stream", op, p[0])
	}
	name, err := readStreamString(t, s, op)
	if err != nil {
		return Value{}, err
	}
	c := t.M.Prog.ClassByName(name)
	if c == nil || c.IsStruct || c.IsEnum || c.IsInterface {
		return Value{}, Throwf("Exception", "%s: class %s of the stream is not in the program", op, name)
	}
	if !c.IsSubclassOf(want) {
		return Value{}, Throwf("Exception", "%s: expected %s, got %s", op, want.Name, name)
	}
	o := t.M.NewObject(c)
	st.read = append(st.read, o)
	if err := deserializeFields(t, s, op, o, depth); err != nil {
		return Value{}, err
	}
	return RefV(o), nil
}
