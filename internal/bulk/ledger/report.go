package ledger

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// MovedMove is a capture or refund a bulk run of this ledger moved: its
// own send made it (or a run that ended before its summary did, counted
// by the run that found it). A move the service held before any run of
// the ledger sent it (held_before) is not one.
type MovedMove struct {
	PaymentID, Op, ReferenceID string
	Currency                   string
	Amount                     decimal.Decimal
	// Run is the run whose send moved it.
	Run int64
	// At is when the ledger recorded the move settled.
	At time.Time
}

// EachMoved calls fn for every capture and refund a bulk run of this
// ledger moved on the service scope names, settled from since to until
// (inclusive), in the order the ledger recorded them. Moves of one
// payment, op and reference_id (a row edited since it ran) are one move
// on the service, counted once, when first recorded. It only reads.
func (l *Ledger) EachMoved(scope string, since, until time.Time, fn func(MovedMove) error) error {
	rows, err := db{l}.Query(`SELECT payment_id, op, reference_id, currency, sent_amount, amount, moved_by, updated FROM moves
		WHERE scope = ? AND phase = ? AND moved_by IS NOT NULL AND op IN ('capture', 'refund') ORDER BY updated, id`,
		scope, PhaseConfirmed)
	if err != nil {
		return l.Unusable(err)
	}
	defer rows.Close()
	seen := map[[3]string]bool{}
	for rows.Next() {
		var m MovedMove
		var sent, intent, at string
		if err := rows.Scan(&m.PaymentID, &m.Op, &m.ReferenceID, &m.Currency, &sent, &intent, &m.Run, &at); err != nil {
			return l.Unusable(err)
		}
		if sent == "" {
			sent = intent
		}
		if m.Amount, err = decimal.NewFromString(sent); err != nil {
			return l.Unusable(fmt.Errorf("the %s of payment %s under reference_id %s has no amount the ledger can read (%q)", m.Op, m.PaymentID, m.ReferenceID, sent))
		}
		if m.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return l.Unusable(fmt.Errorf("the %s of payment %s under reference_id %s has no time the ledger can read (%q)", m.Op, m.PaymentID, m.ReferenceID, at))
		}
		key := [3]string{m.PaymentID, m.Op, m.ReferenceID}
		first := !seen[key]
		seen[key] = true
		if !first || m.At.Before(since) || m.At.After(until) {
			continue
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return l.Unusable(err)
	}
	return nil
}
