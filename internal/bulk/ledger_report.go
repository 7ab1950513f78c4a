package bulk

import (
	"database/sql"
	"fmt"
)

// skippedSeq places the skipped (invalid) rows after the valid ones in
// the ledger: the report orders rows by line.
const skippedSeq = 1 << 40

// recordSkipped records the invalid rows a run passes over.
func (l *ledger) recordSkipped(skipped []rowResult) error {
	if len(skipped) == 0 {
		return nil
	}
	return l.inTx(func(tx *sql.Tx) error {
		for i, res := range skipped {
			_, err := tx.Exec(`INSERT OR REPLACE INTO run_rows (run, seq, line, op, payment_id, reference_id, amount, outcome, message)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				l.run, skippedSeq+i, res.Line, string(res.Op), res.PaymentID, res.ReferenceID, res.Amount, string(res.Outcome), res.Message)
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// eachRunRow calls fn with each row of this run as the ledger holds it, in
// input order. A row no outcome was recorded for was not sent.
func (l *ledger) eachRunRow(fn func(rowResult) error) error {
	rows, err := l.db.Query(`SELECT line, op, payment_id, reference_id, amount, currency, outcome, http_status,
		error_type, message, payment_status, moved, earlier, by_run, adopted FROM run_rows WHERE run = ? ORDER BY line, seq`, l.run)
	if err != nil {
		return fmt.Errorf("ledger %s: %w", l.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var res rowResult
		var op, outcome string
		err := rows.Scan(&res.Line, &op, &res.PaymentID, &res.ReferenceID, &res.Amount, &res.currency, &outcome,
			&res.HTTPStatus, &res.ErrorType, &res.Message, &res.PaymentStatus, &res.moved, &res.earlier, &res.byRun, &res.adopted)
		if err != nil {
			return fmt.Errorf("ledger %s: %w", l.path, err)
		}
		res.Op, res.Outcome = Op(op), Outcome(outcome)
		if res.Outcome == "" || res.Outcome == OutcomeNotSent {
			res.Outcome, res.notSent = OutcomeNotSent, true
		}
		if err := fn(res); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("ledger %s: %w", l.path, err)
	}
	return nil
}

// summary is the run's summary, a query over its rows in the ledger: what
// the report says, counted.
func (l *ledger) summary() (Summary, error) {
	var s Summary
	err := l.eachRunRow(func(res rowResult) error {
		s.Total++
		s.count(res)
		return nil
	})
	// Rows left untouched mean the run did not finish, whatever stopped
	// it; a cancellation that came after the last row changes nothing.
	s.Interrupted = s.NotSent > 0
	return s, err
}
