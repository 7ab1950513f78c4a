package ledger

import (
	"database/sql"
	"fmt"
)

// PlannedRow is a row of this run as the ledger first records it: its
// move's intent, before anything is sent.
type PlannedRow struct {
	Seq         int
	Line        int
	MoveID      string // "" for a row that is no move (an invalid row)
	Op          string
	PaymentID   string
	ReferenceID string
	// Amount is the row's as read; MoveAmount the move's, canonical (so
	// that "10" and "10.00" are one intent).
	Amount, MoveAmount string
}

// PlanBatch is how many rows one transaction records.
const PlanBatch = 4096

// Row is a row of a run as the ledger holds it, with what became of it.
type Row struct {
	Line                       int
	Op, PaymentID, ReferenceID string
	Amount, Currency, Outcome  string
	HTTPStatus                 int
	ErrorType, Message         string
	PaymentStatus              string
	// Moved: this run's own send moved the row's money. Earlier: an
	// earlier run settled it. ByRun: the run that moved a move found
	// made, when the ledger knows it; Adopted: that run ended before it
	// counted it, so this run's summary does.
	Moved, Earlier, Adopted bool
	ByRun                   int64
	// SentUnsettled, as read: the run recorded the row's send and then
	// no outcome (it stopped with the request out): whether it moved
	// money is unknown, never "not sent".
	SentUnsettled bool
	// Record, when Settle is given it, is the outcome a later run of the
	// same input takes up for the row's move (see Recorded); "" records
	// none (the row was not sent, or is to be judged again).
	Record string
}

// PlanRows records rows of this run and the intent of their moves; a move
// the ledger knows already (another run's, or an earlier one's) keeps
// what it holds.
func (l *Ledger) PlanRows(rows []PlannedRow) error {
	if len(rows) == 0 {
		return nil
	}
	return l.inTx(func(t tx) error {
		insRow, err := t.Prepare(l.q(`INSERT INTO run_rows (run, seq, line, move, op, payment_id, reference_id, amount)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run, seq) DO UPDATE SET line = excluded.line, move = excluded.move,
			op = excluded.op, payment_id = excluded.payment_id, reference_id = excluded.reference_id, amount = excluded.amount`))
		if err != nil {
			return err
		}
		defer insRow.Close()
		insMove, err := t.Prepare(l.q(`INSERT INTO moves (id, scope, payment_id, op, amount, reference_id, phase, run, updated)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`))
		if err != nil {
			return err
		}
		defer insMove.Close()
		now := l.stamp()
		for _, r := range rows {
			if _, err := insRow.Exec(l.run, r.Seq, r.Line, r.MoveID, r.Op, r.PaymentID, r.ReferenceID, r.Amount); err != nil {
				return err
			}
			if r.MoveID == "" {
				continue
			}
			if _, err := insMove.Exec(r.MoveID, l.scope, r.PaymentID, r.Op, r.MoveAmount, r.ReferenceID,
				PhasePlanned, l.run, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// MarkSent records, before its request goes out, that this run sends move
// id with ref and amount.
func (l *Ledger) MarkSent(id, ref, amount string) error {
	if err := l.half.inPlace(); err != nil {
		return err
	}
	return l.inBatch(func(t tx) error {
		if _, err := l.stmt(t, sqlMarkSent).Exec(PhaseSent, l.run, ref, amount, l.stamp(), id); err != nil {
			return err
		}
		// The outcome of an earlier send is not this send's.
		_, err := l.stmt(t, sqlClearOutcome).Exec(id)
		return err
	})
}

// Settle records what became of a row of this run, and of its move, in
// one transaction. phase is the move's new phase ("" leaves the move as
// it is); a move the ledger holds confirmed stays confirmed, and one
// another run sent with no answer yet stays that run's unless this row
// moved or adopted it.
func (l *Ledger) Settle(seq int, moveID string, res Row, phase string, input string) error {
	return l.inBatch(func(t tx) error {
		_, err := l.stmt(t, sqlSettleRow).Exec(
			res.ReferenceID, res.Amount, res.Currency, res.Outcome, res.HTTPStatus, res.ErrorType, res.Message,
			res.PaymentStatus, b2i(res.Moved), b2i(res.Earlier), res.ByRun, b2i(res.Adopted), l.run, seq)
		if err == nil && moveID != "" && res.Record != "" {
			_, err = l.stmt(t, sqlRecordOutcome).Exec(moveID, l.run, res.Op, res.ReferenceID, res.Amount, res.Record,
				res.HTTPStatus, res.ErrorType, res.Message, res.PaymentStatus, l.stamp())
		}
		if err != nil || moveID == "" || phase == "" {
			return err
		}
		movedBy := sql.NullInt64{Int64: l.run, Valid: res.Moved}
		if res.Adopted {
			movedBy = sql.NullInt64{Int64: res.ByRun, Valid: true}
		}
		ours := b2i(res.Moved || res.Adopted)
		_, err = l.stmt(t, sqlSettleMove).Exec(
			PhaseConfirmed, ours, PhaseSent, PhaseUnknown, l.run, phase,
			ours, PhaseSent, PhaseUnknown, l.run, l.run,
			res.Currency, res.Currency, movedBy,
			ours, input, ours, res.Line, l.stamp(), moveID)
		return err
	})
}

// FileRefs are the reference_ids this run's rows of paymentID send, by
// op: the moves of the payment this file accounts for.
func (l *Ledger) FileRefs(paymentID string) (map[string]map[string]bool, error) {
	rows, err := db{l}.Query("SELECT op, reference_id FROM run_rows WHERE run = ? AND payment_id = ? AND move <> ''", l.run, paymentID)
	if err != nil {
		return nil, l.wrap(err)
	}
	defer rows.Close()
	refs := map[string]map[string]bool{}
	for rows.Next() {
		var op, ref string
		if err := rows.Scan(&op, &ref); err != nil {
			return nil, l.wrap(err)
		}
		if refs[op] == nil {
			refs[op] = map[string]bool{}
		}
		refs[op][ref] = true
	}
	return refs, l.wrap(rows.Err())
}

// MadeBy names, for a move of paymentID the service holds under ref (""
// for a close), the run that moved it and where it read it: "run 12
// (process …), line 3 of refunds.csv", and that run's id; "" and 0 when
// the ledger does not know who moved it.
func (l *Ledger) MadeBy(paymentID, op, ref string) (string, int64) {
	if l == nil {
		return "", 0
	}
	var movedBy sql.NullInt64
	var run int64
	var input string
	var line int
	err := db{l}.QueryRow(`SELECT run, moved_by, input, line FROM moves
		WHERE scope = ? AND payment_id = ? AND op = ? AND reference_id = ? AND phase = ? ORDER BY moved_by IS NULL LIMIT 1`,
		l.scope, paymentID, op, ref, PhaseConfirmed).Scan(&run, &movedBy, &input, &line)
	if err != nil || !movedBy.Valid {
		return "", 0
	}
	info := l.runByID(db{l}, movedBy.Int64)
	if info == nil {
		return "", 0
	}
	if line > 0 {
		return fmt.Sprintf("%s, line %d of %s", info, line, input), info.ID
	}
	return info.String(), info.ID
}
