//go:build unix

package bulk

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
		if err := l.planRows([]plannedRow{{seq: 1, line: 2, moveID: moveID("scope", "k"), op: OpCapture, paymentID: pidA, referenceID: "R1", amount: "1"}}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{ledgerFileName, ledgerFileName + "-wal", ledgerFileName + "-shm"} {
			info, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if perm := info.Mode().Perm(); perm != 0o600 {
				t.Errorf("%s has mode %v while a run writes it, want -rw-------", name, perm)
			}
		}
		l.close()
	}
	dir := t.TempDir()
	check(dir)
	if err := os.Chmod(filepath.Join(dir, ledgerFileName), 0o644); err != nil {
		t.Fatal(err)
	}
	check(dir)
}
