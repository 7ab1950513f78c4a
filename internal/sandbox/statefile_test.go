//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The state file and its -wal and -shm are created 0600 even under a
// umask that would leave them readable by everyone, and an existing
// readable state is made private when opened.
func TestStateFileIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)

	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	e := newEnv(t, Options{StatePath: path})
	e.authorized("10.00") // writes: the -wal and -shm exist now
	check := func() {
		t.Helper()
		seen := 0
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			fi, err := os.Stat(p)
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			seen++
			if perm := fi.Mode().Perm(); perm != 0o600 {
				t.Errorf("%s: mode %o, want 600", filepath.Base(p), perm)
			}
		}
		if seen < 2 {
			t.Fatalf("only %d of the state files exist", seen)
		}
	}
	check()
	e.sb.Close()

	// An older bnpl left them 0644: opening makes them private again.
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		_ = os.Chmod(p, 0o644)
	}
	e2 := newEnv(t, Options{StatePath: path})
	e2.authorized("10.00")
	check()
}

func TestStateFileMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	if _, err := New(Options{StatePath: dir}); err == nil {
		t.Fatal("a directory was accepted as the state file")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	if _, err := New(Options{StatePath: fifo}); err == nil {
		t.Fatal("a FIFO was accepted as the state file")
	}
}
