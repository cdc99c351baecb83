package vm

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// This file is the one rule for reading a file a user names to the
// debugger itself (a program's source, a recording, an exploration's
// result): a regular file of bounded size. A device (/dev/zero) would be
// read until memory runs out, a FIFO would block the reader forever.

// ErrNotRegular is wrapped by ReadRegularFile for a path that is not a
// regular file (a directory, device, FIFO or socket).
var ErrNotRegular = errors.New("not a regular file")

// ErrFileTooLarge is wrapped by ReadRegularFile for a file over its limit.
var ErrFileTooLarge = errors.New("file too large")

// ReadRegularFile reads the file at path. It refuses, with an
// *os.PathError, anything but a regular file of at most limit bytes: a
// device, a FIFO (opened without waiting for a writer) or a directory
// gets a clear error at once, and a file that grows while it is read is
// cut off at the limit and refused. want completes the message of a
// refusal: what the file should be ("a program must be a .n source
// file").
func ReadRegularFile(path string, limit int64, want string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, st, limit, want); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should the path have become a FIFO since the Stat,
	// opening it does not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkRegular(path, st, limit, want); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (more than %s)", ErrFileTooLarge, FormatBytes(limit))}
	}
	return data, nil
}

// CheckRegularFile returns the error ReadRegularFile would return for
// the file at path without reading it (nil if it may be read).
func CheckRegularFile(path string, limit int64, want string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return checkRegular(path, st, limit, want)
}

func checkRegular(path string, st os.FileInfo, limit int64, want string) error {
	if !st.Mode().IsRegular() {
		kind := "a special file"
		switch m := st.Mode(); {
		case m.IsDir():
			kind = "a directory"
		case m&os.ModeNamedPipe != 0:
			kind = "a FIFO"
		case m&os.ModeDevice != 0:
			kind = "a device"
		case m&os.ModeSocket != 0:
			kind = "a socket"
		}
		return &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (it is %s; %s)", ErrNotRegular, kind, want)}
	}
	if st.Size() > limit {
		return &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%d bytes, more than %s)", ErrFileTooLarge, st.Size(), FormatBytes(limit))}
	}
	return nil
}

// MaxSourceSize is the largest source file a program may have (and the
// largest source a recording may hold).
const MaxSourceSize = 16 << 20
