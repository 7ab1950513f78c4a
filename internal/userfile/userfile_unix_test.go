//go:build unix

package userfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := readWaiting(fifo, 50*time.Millisecond)
		assertRefused(t, err, "no writer opened this named pipe within 50ms")
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO with no writer blocked the read")
	}
	_, err0 := OpenRegular("", fifo)
	assertRefused(t, err0, "is a pipe, and this file must be a regular file")
	_, err := Read("--file", "/dev/zero", nil, MaxRequestBody)
	assertRefused(t, err, "/dev/zero: is a device, not a file")
	_, err = Read("--file", link, nil, MaxRequestBody)
	assertRefused(t, err, "is a device")
	_, err = Read("--file", dir, nil, MaxRequestBody)
	assertRefused(t, err, "is a directory")
	_, err = Read("--file", filepath.Join(dir, "none"), nil, MaxRequestBody)
	assertRefused(t, err, "no such file")
	_, err = OpenRegular("", Stdin)
	assertRefused(t, err, "no such file")
}

func readWaiting(name string, wait time.Duration) ([]byte, error) {
	f, err := openPipe("--file", name, wait)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// A named pipe is read once its writer comes, with the bounds of a file.
func TestReadsANamedPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	write := func(data []byte) chan error {
		errc := make(chan error, 1)
		go func() {
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				errc <- err
				return
			}
			_, err = w.Write(data)
			w.Close()
			errc <- err
		}()
		return errc
	}
	errc := write([]byte(`{"a":1}`))
	b, err := Read("--file", fifo, nil, MaxRequestBody)
	if err != nil || string(b) != `{"a":1}` {
		t.Fatalf("Read = %q, %v", b, err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}

	// Past the bound: refused, however the pipe goes on.
	errc = write(make([]byte, 3000))
	_, err = Read("--file", fifo, nil, 1000)
	assertRefused(t, err, "holds more than 1000 bytes")
	<-errc // the writer sees the pipe closed

	// The waited open is released on time-out: the FIFO can be used again.
	if _, err := readWaiting(fifo, 20*time.Millisecond); err == nil {
		t.Fatal("no time-out without a writer")
	}
	errc = write([]byte("again"))
	if b, err := Read("--file", fifo, nil, MaxRequestBody); err != nil || string(b) != "again" {
		t.Fatalf("Read after a time-out = %q, %v", b, err)
	}
	<-errc
}

// /dev/fd/N of a pipe already open (what a shell's <(...) hands over) is
// read at once, without waiting for a writer that is already there.
func TestReadsAnOpenPipeByDevFd(t *testing.T) {
	if _, err := os.Stat("/dev/fd/0"); err != nil {
		t.Skip("no /dev/fd:", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		_, _ = w.Write([]byte("payment_id,amount\n"))
		w.Close()
	}()
	name := fmt.Sprintf("/dev/fd/%d", r.Fd())
	f, err := Open("--from-file", name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size != -1 {
		t.Errorf("Size = %d, want -1 for a pipe", f.Size)
	}
	b, err := io.ReadAll(f)
	if err != nil || string(b) != "payment_id,amount\n" {
		t.Fatalf("read %q, %v", b, err)
	}
	// A device behind /dev/fd stays refused.
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	_, err = Read("--file", fmt.Sprintf("/dev/fd/%d", null.Fd()), nil, MaxRequestBody)
	assertRefused(t, err, "is a device")
}
