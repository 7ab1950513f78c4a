//go:build unix

package userfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// openPipe opens a pipe for reading. An anonymous pipe (/dev/fd/N of a
// process substitution) opens at once; a named FIFO's open waits for a
// writer, here at most wait: then a writer of our own, opened without
// blocking, releases the waiting open, and the time-out is reported.
func openPipe(what, name string, wait time.Duration) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.OpenFile(name, os.O_RDONLY, 0)
		done <- opened{f, err}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case o := <-done:
		if o.err != nil {
			return nil, openError(what, name, o.err)
		}
		return checkPipe(what, name, o.f)
	case <-timer.C:
	}
	// Release the open that waits, so that nothing is left blocked.
	if w, err := os.OpenFile(name, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
	select {
	case o := <-done:
		if o.f != nil {
			o.f.Close()
		}
	case <-time.After(time.Second):
		// The open was released by a writer of someone else's in between
		// or is still waiting; either way it is not ours to read.
	}
	return nil, &Error{What: what, Name: name,
		Problem: fmt.Sprintf("no writer opened this named pipe within %s", wait),
		Advice:  "start the program that writes to it first, or give a longer --timeout",
		Err:     errors.New("timed out waiting for a writer")}
}

// checkPipe makes sure what was opened is still a pipe: the name could
// have been replaced by a device between the look and the open.
func checkPipe(what, name string, f *os.File) (*os.File, error) {
	st, err := f.Stat()
	if err == nil && st.Mode()&os.ModeNamedPipe == 0 {
		err = regular(what, name, st)
	}
	if err != nil {
		f.Close()
		var ue *Error
		if errors.As(err, &ue) {
			return nil, ue
		}
		return nil, &Error{What: what, Name: name, Problem: err.Error(), Err: err}
	}
	return f, nil
}
