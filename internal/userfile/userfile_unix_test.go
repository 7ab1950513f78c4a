//go:build unix

package userfile

import (
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
		_, err := Read("--file", fifo, nil, MaxRequestBody)
		assertRefused(t, err, "is a named pipe (FIFO)")
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO with no writer blocked the read")
	}
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
