package bulk

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
	"github.com/bnpl-cli/bnpl/internal/userfile"
)

// markFile, in the state directory beside the SQLite ledger, names (by
// its ID) each ledger the bulk runs there recorded their moves in: the
// SQLite ledger of the state directory, and each PostgreSQL ledger they
// named, by its address (see ledger.Address: never a user or password).
// A run that finds another ledger at one of these places, or none, knows
// the one that held the earlier runs is gone, and what it cannot
// attribute. One ledger a line: the SQLite ledger's ID alone (as the file
// has always named it), each other's as "ID ADDRESS".
const markFile = "bulk-ledger.id"

// LedgerGoneError is a ledger gone from its place (the state directory's
// deleted, moved aside or made again; a PostgreSQL ledger's schema or
// database dropped and made again, or another database at its address)
// after bulk runs of this state directory recorded their moves in it: the
// ledger there now cannot tell which moves the payments hold those runs
// made, nor which summary counted them. Exit 12, nothing sent, until the
// user puts the ledger back or goes on with Options.LedgerLost.
type LedgerGoneError struct {
	// Ledger is where the lost ledger was; Made, that another is there
	// now; Shared, that it is a PostgreSQL ledger.
	Ledger string
	Made   bool
	Shared bool
}

func (e *LedgerGoneError) Error() string {
	now := "no ledger is there now"
	if e.Made {
		now = "a new one is there now"
	}
	where := e.Ledger + " (" + now + "):"
	if e.Shared {
		where = e.Ledger + ": another ledger, made again or new, is there now;"
	}
	return fmt.Sprintf("the ledger of bulk moves that recorded the earlier bulk runs of this state directory is gone from %s "+
		"of the moves the payments hold, it cannot tell which those runs made, nor which summary counted them; nothing was sent", where)
}

// ExitCode is 12, as for a ledger that cannot be used.
func (e *LedgerGoneError) ExitCode() int { return 12 }

func (e *LedgerGoneError) Hint() string {
	back := "if the ledger was moved or kept as a copy, put it back at " + e.Ledger + " and run again; "
	if e.Shared {
		back = "if the ledger's database was restored elsewhere, name it with --ledger; if it is kept as a dump, restore it at " + e.Ledger + " and run again; "
	}
	return back + "if it is lost for good, run again with --ledger-lost: the moves the payments already hold are then" + lostLedgerGoesOn
}

// readMarks is the IDs of the ledgers the state directory dir names, by
// address ("" for the SQLite ledger's); none when it names none.
func readMarks(dir string) (map[string]string, error) {
	marks := map[string]string{}
	b, err := os.ReadFile(filepath.Join(dir, markFile))
	if errors.Is(err, os.ErrNotExist) {
		return marks, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ledger of bulk moves: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		switch f := strings.Fields(line); len(f) {
		case 1:
			marks[""] = f[0]
		case 2:
			marks[f[1]] = f[0]
		}
	}
	return marks, nil
}

// ledgerGone is the *LedgerGoneError of the state directory dir when the
// ledger it names at l's place is not l (nil: no SQLite ledger there); nil
// when it names none there, when dir is "" (no state directory), or when
// goOn (--ledger-lost).
func ledgerGone(dir string, l *ledger.Ledger, goOn bool) error {
	if dir == "" || goOn {
		return nil
	}
	marks, err := readMarks(dir)
	if err != nil {
		return err
	}
	gone := &LedgerGoneError{Ledger: ledger.SQLitePath(dir)}
	addr := ""
	if l != nil {
		if addr, err = l.Address(); err != nil {
			return l.Unusable(err)
		}
		if addr != "" {
			gone = &LedgerGoneError{Ledger: l.Where() + searchPathOf(addr), Shared: true}
		}
	}
	mark := marks[addr]
	if mark == "" {
		return nil
	}
	if l == nil {
		return gone
	}
	id, err := l.ID()
	if err != nil {
		return l.Unusable(err)
	}
	if id != mark {
		gone.Made = true
		return gone
	}
	return nil
}

// searchPathOf is the search_path of a PostgreSQL ledger's address, as
// a message names it.
func searchPathOf(addr string) string {
	u, err := url.Parse(addr)
	if err != nil || u.Query().Get("search_path") == "" {
		return ""
	}
	return " (search_path " + u.Query().Get("search_path") + ")"
}

// markLedger names l in the state directory dir as the ledger its bulk
// runs record their moves in at l's place, privately.
func markLedger(dir string, l *ledger.Ledger) error {
	if dir == "" {
		return nil
	}
	id, err := l.ID()
	if err != nil {
		return l.Unusable(err)
	}
	addr, err := l.Address()
	if err != nil {
		return l.Unusable(err)
	}
	marks, err := readMarks(dir)
	if err != nil || marks[addr] == id {
		return err
	}
	marks[addr] = id
	return writeMarks(dir, marks)
}

// writeMarks replaces the state directory dir's mark file with marks, the
// SQLite ledger's first, in the form an older bnpl reads when it is the
// only one.
func writeMarks(dir string, marks map[string]string) error {
	var b strings.Builder
	if id := marks[""]; id != "" {
		b.WriteString(id + "\n")
	}
	addrs := make([]string, 0, len(marks))
	for addr := range marks {
		if addr != "" {
			addrs = append(addrs, addr)
		}
	}
	sort.Strings(addrs)
	for _, addr := range addrs {
		b.WriteString(marks[addr] + " " + addr + "\n")
	}
	// A PostgreSQL ledger's runs may be the first to write there.
	if err := userfile.PrivateDir("state directory", dir); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, markFile+".*")
	if err != nil {
		return fmt.Errorf("ledger of bulk moves: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err = tmp.WriteString(b.String()); err == nil {
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
