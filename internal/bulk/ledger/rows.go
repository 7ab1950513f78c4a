package ledger

// SkippedSeq places the skipped (invalid) rows after the valid ones in
// the ledger: the report orders rows by line.
const SkippedSeq = 1 << 40

// RecordSkipped records the invalid rows a run passes over.
func (l *Ledger) RecordSkipped(skipped []Row) error {
	if len(skipped) == 0 {
		return nil
	}
	return l.inTx(func(t tx) error {
		for i, res := range skipped {
			_, err := t.Exec(`INSERT INTO run_rows (run, seq, line, op, payment_id, reference_id, amount, outcome, message)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run, seq) DO UPDATE SET line = excluded.line, op = excluded.op,
				payment_id = excluded.payment_id, reference_id = excluded.reference_id, amount = excluded.amount,
				outcome = excluded.outcome, message = excluded.message`,
				l.run, SkippedSeq+i, res.Line, res.Op, res.PaymentID, res.ReferenceID, res.Amount, res.Outcome, res.Message)
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// EachRunRow calls fn with each row of this run as the ledger holds it,
// in input order. A row no outcome was recorded for has Outcome "".
func (l *Ledger) EachRunRow(fn func(Row) error) error {
	return l.EachRowOf(l.run, fn)
}

// EachRowOf calls fn with each row of run as the ledger holds it, in
// input order.
func (l *Ledger) EachRowOf(run int64, fn func(Row) error) error {
	rows, err := db{l}.Query(`SELECT r.line, r.op, r.payment_id, r.reference_id, r.amount, r.currency, r.outcome, r.http_status,
		r.error_type, r.message, r.payment_status, r.moved, r.earlier, r.by_run, r.adopted,
		COALESCE(m.phase, ''), COALESCE(m.run, 0)
		FROM run_rows r LEFT JOIN moves m ON m.id = r.move WHERE r.run = ? ORDER BY r.line, r.seq`, run)
	if err != nil {
		return l.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var res Row
		var moved, earlier, adopted int
		var phase string
		var sender int64
		err := rows.Scan(&res.Line, &res.Op, &res.PaymentID, &res.ReferenceID, &res.Amount, &res.Currency, &res.Outcome,
			&res.HTTPStatus, &res.ErrorType, &res.Message, &res.PaymentStatus, &moved, &earlier, &res.ByRun, &adopted,
			&phase, &sender)
		if err != nil {
			return l.wrap(err)
		}
		res.Moved, res.Earlier, res.Adopted = moved != 0, earlier != 0, adopted != 0
		// A row whose send the run recorded, and then no outcome (the
		// ledger failed under it, its session lost, while the request was
		// out): its move may be made.
		res.SentUnsettled = res.Outcome == "" && phase == PhaseSent && sender == run
		if err := fn(res); err != nil {
			return err
		}
	}
	return l.wrap(rows.Err())
}
