package bulk

import (
	"fmt"
	"slices"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

// LedgerLostError is a journal whose earlier runs sent moves recorded in
// a ledger that is no longer where it was (deleted, moved aside, made
// again): the ledger in its place cannot tell which of those moves a run
// counted, nor which run made them. Exit 12, nothing sent, until the user
// puts the ledger back or goes on with Options.LedgerLost.
type LedgerLostError struct {
	Journal string
	// Ledger is where the lost ledger was, as the run names it.
	Ledger string
	// Sent counts the rows the journal records a send of.
	Sent int
}

func (e *LedgerLostError) Error() string {
	return fmt.Sprintf("the ledger of bulk moves that recorded the earlier runs of journal %s is gone from %s (a new one is there now): "+
		"of the %d %s the journal records as sent, it cannot tell which run moved the money, nor which summary counted it; nothing was sent",
		e.Journal, e.Ledger, e.Sent, plural(e.Sent, "row", "rows"))
}

// ExitCode is 12, as for a ledger that cannot be used.
func (e *LedgerLostError) ExitCode() int { return 12 }

func (e *LedgerLostError) Hint() string {
	return "if the ledger was moved or kept as a copy, put it back at " + e.Ledger + " and run again; " +
		"if it is lost for good, run again with --ledger-lost: the moves of the journal's rows that the payments hold are then" + lostLedgerGoesOn
}

// lostLedgerGoesOn is what --ledger-lost does with the moves a lost
// ledger recorded.
const lostLedgerGoesOn = " counted apart as held before (moved outside this ledger, never this run's), " +
	"and the money of a run killed before its summary is in no summary; rows keep their reference_id, so the service applies none twice"

// ledgerLost is the *LedgerLostError of a journal (its index ix, at
// path) whose earlier runs sent moves recorded in a ledger that was where
// l is and is not l; nil when l is that ledger, when none was recorded
// there, or when goOn (--ledger-lost).
func ledgerLost(l *ledger.Ledger, ix *journalIndex, path string, goOn bool) error {
	place := l.Place()
	if ix == nil || place == "" || goOn {
		return nil
	}
	known := ix.ledgers[place]
	if len(known) == 0 || ix.sent == 0 {
		return nil
	}
	id, err := l.ID()
	if err != nil {
		return l.Unusable(err)
	}
	if slices.Contains(known, id) {
		return nil
	}
	return &LedgerLostError{Journal: path, Ledger: l.Where(), Sent: ix.sent}
}
