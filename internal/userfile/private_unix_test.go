//go:build unix

package userfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrivateDirRefusesWhatOthersCanWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "bnpl")
	if err := PrivateDir("state directory", dir); err != nil {
		t.Fatalf("a new directory: %v", err)
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o700 {
		t.Errorf("made with mode %04o, want 0700", info.Mode().Perm())
	}
	for _, mode := range []os.FileMode{0o777, 0o770, 0o702} {
		os.Chmod(dir, mode)
		var de *DirError
		err := PrivateDir("state directory", dir)
		if !errors.As(err, &de) || de.ExitCode() != 12 || !strings.Contains(de.Hint(), "chmod 700 "+dir) {
			t.Errorf("mode %04o: %v, want a DirError with the chmod", mode, err)
		}
	}
	os.Chmod(dir, 0o750)
	if err := PrivateDir("state directory", dir); err != nil {
		t.Errorf("mode 0750: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	if err := PrivateDir("state directory", filepath.Join(file, "bnpl")); err == nil || !strings.Contains(err.Error(), "cannot be made") {
		t.Errorf("under a file: %v", err)
	}
	if err := CheckPrivateDir("config directory", filepath.Join(t.TempDir(), "missing")); err != nil {
		t.Errorf("a missing directory: %v", err)
	}
}

// A link planted as SQLite's -wal file is refused and the file it leads
// to keeps its mode; files with a wider mode are made 0600.
func TestPrivateSQLiteFollowsNoLink(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "bulk-ledger.db")
	other := filepath.Join(t.TempDir(), "other")
	os.WriteFile(db, []byte("x"), 0o644)
	os.WriteFile(db+"-shm", []byte("x"), 0o666)
	os.WriteFile(other, []byte("x"), 0o644)
	if err := PrivateSQLite(db); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{db, db + "-shm"} {
		if info, _ := os.Stat(p); info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %04o, want 0600", p, info.Mode().Perm())
		}
	}
	os.Symlink(other, db+"-wal")
	var fe *FileError
	if err := PrivateSQLite(db); !errors.As(err, &fe) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a linked -wal: %v", err)
	}
	if info, _ := os.Stat(other); info.Mode().Perm() != 0o644 {
		t.Errorf("the linked file's mode changed to %04o", info.Mode().Perm())
	}
	os.Remove(db + "-wal")
	os.Symlink(other, db+"-new")
	if _, err := OpenPrivate(db+"-new", os.O_RDWR|os.O_CREATE); !errors.As(err, &fe) {
		t.Errorf("OpenPrivate through a link: %v", err)
	}
}

// A directory others could move away is refused: its parent writable by
// them without the sticky bit; a sticky one (such as /tmp) is fine.
func TestPrivateDirRefusesAParentOthersCanWrite(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "state")
	dir := filepath.Join(parent, "bnpl")
	if err := PrivateDir("state directory", dir); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o777, 0o757, 0o775} {
		os.Chmod(parent, mode)
		var de *DirError
		err := PrivateDir("state directory", dir)
		if !errors.As(err, &de) || de.ExitCode() != 12 || de.Path != dir || !strings.Contains(err.Error(), "is in "+parent+", which other users can write") ||
			!strings.Contains(de.Hint(), "chmod go-w "+parent) {
			t.Errorf("parent mode %04o: %v (%s), want a DirError with the chmod", mode, err, de.Hint())
		}
	}
	os.Chmod(parent, 0o777|os.ModeSticky)
	if err := PrivateDir("state directory", dir); err != nil {
		t.Errorf("a sticky parent: %v", err)
	}
	os.Chmod(parent, 0o755)
	if err := CheckPrivateDir("directory of --state", dir); err != nil {
		t.Errorf("a parent of mode 0755: %v", err)
	}
	os.Chmod(parent, 0o777)
	if err := CheckPrivateDir("directory of --state", dir); err == nil || !strings.Contains(err.(*DirError).Hint(), "set --state to") {
		t.Errorf("--state's directory: %v", err)
	}
	os.Chmod(parent, 0o700)
}
