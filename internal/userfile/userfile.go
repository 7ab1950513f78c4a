// Package userfile opens the files a person names on the command line
// (--file, --input, -F key=@FILE, --from-file, --merchants, an attachment):
// regular files, stdin for "-", and pipes (a shell's process substitution,
// /dev/fd/N, a named FIFO), and never more of them than the command can
// use. A device such as /dev/zero would otherwise be read until memory
// runs out, so devices, sockets and directories are refused before
// anything is read; a named pipe's writer is waited for at most
// PipeWait, so a FIFO nobody writes cannot block the command for good.
package userfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// pipeWait is how long Open waits for a named pipe's writer.
var pipeWait atomic.Int64

func init() { pipeWait.Store(int64(30 * time.Second)) }

// SetPipeWait sets how long Open waits for the writer of a named pipe
// before it gives up (the command's --timeout).
func SetPipeWait(d time.Duration) {
	if d > 0 {
		pipeWait.Store(int64(d))
	}
}

// PipeWait is how long Open waits for the writer of a named pipe.
func PipeWait() time.Duration { return time.Duration(pipeWait.Load()) }

// MaxRequestBody is the largest request body the service accepts, and the
// sandbox with it: a file meant as one request's body (or part of one) is
// refused beyond it, before anything is sent.
const MaxRequestBody = 1 << 20

// Stdin is the name that means standard input.
const Stdin = "-"

// Error is a user file that cannot be used. Nothing was sent; it exits 2.
type Error struct {
	// What names the file's role: "--file", "--input", "-F note=@FILE".
	What    string
	Name    string
	Problem string
	Advice  string
	Err     error
}

func (e *Error) Error() string {
	shown := e.Name
	if shown == Stdin {
		shown = "stdin"
	}
	if e.What != "" {
		return fmt.Sprintf("%s %s: %s", e.What, shown, e.Problem)
	}
	return fmt.Sprintf("%s: %s", shown, e.Problem)
}

func (e *Error) Unwrap() error { return e.Err }
func (e *Error) Hint() string  { return e.Advice }

// ExitCode is 2: the input is wrong and nothing was sent.
func (e *Error) ExitCode() int { return 2 }

// File is an opened user file, or stdin.
type File struct {
	io.Reader
	// Name is as given; "-" for stdin.
	Name string
	// Size is the file's size, -1 for stdin.
	Size int64
	f    *os.File
}

// Close closes the file; stdin is left open.
func (f *File) Close() error {
	if f.f == nil {
		return nil
	}
	return f.f.Close()
}

// Open opens name for reading, or stdin for "-". what names the file's role
// in errors. A pipe (/dev/fd/N of a process substitution, a named FIFO) is
// read as stdin is, Size -1, its writer waited for at most PipeWait.
// Anything else but a regular file is refused without being opened for a
// read that could never end (a device).
func Open(what, name string, stdin io.Reader) (*File, error) {
	if name == Stdin {
		if stdin == nil {
			stdin = os.Stdin
		}
		return &File{Reader: stdin, Name: name, Size: -1}, nil
	}
	if st, err := os.Stat(name); err == nil && st.Mode()&fs.ModeNamedPipe != 0 {
		f, err := openPipe(what, name, PipeWait())
		if err != nil {
			return nil, err
		}
		return &File{Reader: f, Name: name, Size: -1, f: f}, nil
	}
	f, err := OpenRegular(what, name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &Error{What: what, Name: name, Problem: err.Error(), Err: err}
	}
	return &File{Reader: f, Name: name, Size: st.Size(), f: f}, nil
}

// OpenRegular opens name, which must be a regular file (a symbolic link to
// one is fine), for reading; stdin and pipes are not accepted (an
// attachment's size must be known before it is sent). The type is checked
// before opening, and the open itself does not wait for a writer, so that
// a named pipe put in the file's place in between is refused too.
func OpenRegular(what, name string) (*os.File, error) {
	if name == "" {
		return nil, &Error{What: what, Name: "\"\"", Problem: "no file named", Advice: "give the path of a file"}
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil, openError(what, name, err)
	}
	if err := regular(what, name, st); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, openError(what, name, err)
	}
	st, err = f.Stat()
	if err == nil {
		err = regular(what, name, st)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func openError(what, name string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Error{What: what, Name: name, Problem: "no such file", Advice: "check the path", Err: err}
	case errors.Is(err, fs.ErrPermission):
		return &Error{What: what, Name: name, Problem: "permission denied", Advice: "check the file's permissions", Err: err}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &Error{What: what, Name: name, Problem: err.Error(), Advice: "check the path", Err: err}
}

// regular refuses what is not a regular file, saying what it is.
func regular(what, name string, st fs.FileInfo) error {
	mode := st.Mode()
	if mode.IsRegular() {
		return nil
	}
	advice := "give a regular file, or - to read stdin"
	var kind string
	switch {
	case mode.IsDir():
		kind = "is a directory"
	case mode&fs.ModeNamedPipe != 0:
		kind = "is a pipe, and this file must be a regular file"
		advice = "write the data to a regular file"
	case mode&fs.ModeSocket != 0:
		kind = "is a socket"
	case mode&fs.ModeDevice != 0:
		kind = "is a device, not a file"
	default:
		kind = "is not a regular file"
	}
	return &Error{What: what, Name: name, Problem: kind, Advice: advice}
}

// Read reads all of name (or stdin for "-"), refusing more than limit
// bytes: a file meant as a request body is refused past MaxRequestBody
// with the limit stated, rather than read whole and sent to be refused.
func Read(what, name string, stdin io.Reader, limit int64) ([]byte, error) {
	f, err := Open(what, name, stdin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Size > limit {
		return nil, tooLarge(what, name, limit, fmt.Sprintf("is %s", Size(f.Size)))
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &Error{What: what, Name: name, Problem: "cannot read it: " + err.Error(), Advice: "check the file", Err: err}
	}
	if int64(len(b)) > limit {
		return nil, tooLarge(what, name, limit, "holds more than "+Size(limit))
	}
	return b, nil
}

func tooLarge(what, name string, limit int64, is string) error {
	limitText := fmt.Sprintf("%s (%d bytes)", Size(limit), limit)
	if limit == MaxRequestBody {
		return &Error{What: what, Name: name,
			Problem: fmt.Sprintf("%s; the service accepts a request body of at most %s", is, limitText),
			Advice:  "send less: split the data, or shorten what the file holds"}
	}
	return &Error{What: what, Name: name,
		Problem: fmt.Sprintf("%s; at most %s is read", is, limitText),
		Advice:  "give a smaller file"}
}

// Size writes a byte count for a person: "1 MiB", "50.0 MiB", "312 bytes".
func Size(n int64) string {
	const mib = 1 << 20
	const kib = 1 << 10
	switch {
	case n >= mib && n%mib == 0:
		return fmt.Sprintf("%d MiB", n/mib)
	case n >= mib:
		return fmt.Sprintf("%.1f MiB", float64(n)/mib)
	case n >= kib && n%kib == 0:
		return fmt.Sprintf("%d KiB", n/kib)
	case n >= kib:
		return fmt.Sprintf("%.1f KiB", float64(n)/kib)
	}
	return fmt.Sprintf("%d bytes", n)
}
