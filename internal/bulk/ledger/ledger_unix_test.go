//go:build unix

package ledger

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The ledger and the files SQLite keeps beside it (-wal, -shm) are private
// from the first write, whatever the umask: SQLite gives them the mode of
// the database file. A ledger left readable by others is made private
// before it is opened.
func TestLedgerFilesArePrivate(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	check := func(dir string) {
		t.Helper()
		l := openTestLedger(t, dir)
		if err := l.PlanRows([]PlannedRow{{Seq: 1, Line: 2, MoveID: MoveID("scope", "k"), Op: "capture", PaymentID: pidA, ReferenceID: "R1", Amount: "1", MoveAmount: "1"}}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
			info, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if perm := info.Mode().Perm(); perm != 0o600 {
				t.Errorf("%s has mode %v while a run writes it, want -rw-------", name, perm)
			}
		}
		l.Close()
	}
	dir := t.TempDir()
	check(dir)
	if err := os.Chmod(filepath.Join(dir, FileName), 0o644); err != nil {
		t.Fatal(err)
	}
	check(dir)
}
