package bulk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

// The state directory names the ledger its bulk runs recorded their moves
// in: deleted, or another in its place, a run stops before anything is
// read or sent (exit 12, naming --ledger-lost) and makes no ledger; with
// LedgerLost it goes on, nothing moves twice, and the new ledger is the
// one named from then on.
func TestALedgerGoneFromTheStateDirectoryStops(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "100", api.StatusAuthorized)
	rows := captureRows(ids, "40")
	o := testOptions(t, OpCapture)
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(o.LedgerDir, markFile)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the mark: %v %v", info, err)
	}
	db := ledger.SQLitePath(o.LedgerDir)
	for _, side := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + side); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	sent, reads := len(f.callsOf("capture")), len(f.callsOf("get"))
	for _, made := range []bool{false, false} {
		_, err := Run(context.Background(), f, rows, o)
		var gone *LedgerGoneError
		if !errors.As(err, &gone) || exitCode(err) != 12 || gone.Made != made || gone.Ledger != db ||
			!strings.Contains(err.Error(), "nothing was sent") || !strings.Contains(gone.Hint(), "--ledger-lost") {
			t.Fatalf("ledger gone: %v", err)
		}
		if ledger.Exists(o.LedgerDir) {
			t.Fatal("the stopped run made a ledger")
		}
	}
	if len(f.callsOf("capture")) != sent || len(f.callsOf("get")) != reads {
		t.Fatal("the stopped runs sent or read")
	}

	o.LedgerLost = true
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatal(err)
	}
	o.LedgerLost = false
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatalf("the new ledger, named since: %v", err)
	}
	if n := len(f.callsOf("capture")); n != sent {
		t.Fatalf("%d captures sent after the ledger was lost", n-sent)
	}

	// Another ledger in the place of the one named.
	if err := os.WriteFile(filepath.Join(o.LedgerDir, markFile), []byte("0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), f, rows, o)
	var gone *LedgerGoneError
	if !errors.As(err, &gone) || !gone.Made || !strings.Contains(err.Error(), "a new one is there now") {
		t.Fatalf("another ledger in its place: %v", err)
	}
}
