package bulk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

// markFile, in the state directory beside the SQLite ledger, names (by
// its ID) the ledger the bulk runs there recorded their moves in: a run
// that finds another ledger there, or none, knows the one that held the
// earlier runs is gone, and what it cannot attribute.
const markFile = "bulk-ledger.id"

// LedgerGoneError is the state directory's ledger gone from its place
// (deleted, moved aside, made again) after bulk runs recorded their moves
// in it: the ledger there now cannot tell which moves the payments hold
// those runs made, nor which summary counted them. Exit 12, nothing sent,
// until the user puts the ledger back or goes on with Options.LedgerLost.
type LedgerGoneError struct {
	// Ledger is where the lost ledger was; Made, that another is there
	// now.
	Ledger string
	Made   bool
}

func (e *LedgerGoneError) Error() string {
	now := "no ledger is there now"
	if e.Made {
		now = "a new one is there now"
	}
	return fmt.Sprintf("the ledger of bulk moves that recorded the earlier bulk runs of this state directory is gone from %s (%s): "+
		"of the moves the payments hold, it cannot tell which those runs made, nor which summary counted them; nothing was sent", e.Ledger, now)
}

// ExitCode is 12, as for a ledger that cannot be used.
func (e *LedgerGoneError) ExitCode() int { return 12 }

func (e *LedgerGoneError) Hint() string {
	return "if the ledger was moved or kept as a copy, put it back at " + e.Ledger + " and run again; " +
		"if it is lost for good, run again with --ledger-lost: the moves the payments already hold are then" + lostLedgerGoesOn
}

// readMark is the ID of the ledger the state directory dir names; "" when
// it names none.
func readMark(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, markFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("ledger of bulk moves: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// ledgerGone is the *LedgerGoneError of the state directory dir when the
// ledger it names is not l (nil: no ledger there); nil when it names
// none, when dir is "" (no state directory), or when goOn (--ledger-lost).
func ledgerGone(dir string, l *ledger.Ledger, goOn bool) error {
	if dir == "" || goOn {
		return nil
	}
	mark, err := readMark(dir)
	if err != nil || mark == "" {
		return err
	}
	if l == nil {
		return &LedgerGoneError{Ledger: ledger.SQLitePath(dir)}
	}
	id, err := l.ID()
	if err != nil {
		return l.Unusable(err)
	}
	if id != mark {
		return &LedgerGoneError{Ledger: ledger.SQLitePath(dir), Made: true}
	}
	return nil
}

// markLedger names l in the state directory dir as the ledger its bulk
// runs record their moves in, privately.
func markLedger(dir string, l *ledger.Ledger) error {
	if dir == "" {
		return nil
	}
	id, err := l.ID()
	if err != nil {
		return l.Unusable(err)
	}
	if mark, err := readMark(dir); err != nil || mark == id {
		return err
	}
	tmp, err := os.CreateTemp(dir, markFile+".*")
	if err != nil {
		return fmt.Errorf("ledger of bulk moves: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err = tmp.WriteString(id + "\n"); err == nil {
		err = tmp.Close()
	} else {
		tmp.Close()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, markFile))
	}
	if err != nil {
		return fmt.Errorf("ledger of bulk moves: %w", err)
	}
	return nil
}
