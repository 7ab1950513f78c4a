package ledger

import (
	"database/sql"
	"sync"
)

// ledgerBatch shares transactions among the writes the workers make at
// once (group commit): a row's send and its result are each one write,
// and a commit costs more than the write. Each write still returns only
// once the transaction holding it has committed.
type ledgerBatch struct {
	mu         sync.Mutex
	queue      []*batchWrite
	committing bool
}

type batchWrite struct {
	fn   func(t tx) error
	done chan error
}

// inBatch runs fn in a transaction shared with the writes waiting at the
// moment. The first caller to find none committing commits the queue,
// again while writes come; the others wait for their write's commit. A
// write that fails fails its whole transaction: every write in it gets
// the error (a ledger that cannot be written stops the run).
func (l *Ledger) inBatch(fn func(t tx) error) error {
	w := &batchWrite{fn: fn, done: make(chan error, 1)}
	b := &l.batch
	b.mu.Lock()
	b.queue = append(b.queue, w)
	if b.committing {
		b.mu.Unlock()
		return <-w.done
	}
	b.committing = true
	for len(b.queue) > 0 {
		writes := b.queue
		b.queue = nil
		b.mu.Unlock()
		err := l.inTx(func(t tx) error {
			for _, w := range writes {
				if err := w.fn(t); err != nil {
					return err
				}
			}
			return nil
		})
		for _, w := range writes {
			w.done <- err
		}
		b.mu.Lock()
	}
	b.committing = false
	b.mu.Unlock()
	return <-w.done
}

// The statements every row runs, prepared once per run: parsing them
// again for each row would cost more than running them.
const (
	sqlMarkSent = "UPDATE moves SET phase = ?, run = ?, reference_id = ?, sent_amount = ?, updated = ? WHERE id = ?"

	sqlSettleRow = `UPDATE run_rows SET reference_id = ?, amount = ?, currency = ?, outcome = ?, http_status = ?,
		error_type = ?, message = ?, payment_status = ?, moved = ?, earlier = ?, by_run = ?, adopted = ? WHERE run = ? AND seq = ?`

	// sqlSettleMove leaves a move another run sent and has no answer for
	// (sent, unknown) as that run's when this row neither moved nor
	// adopted it: the money is that run's to count, or, once it has ended,
	// the next finder's to count for it (see adoptable).
	sqlSettleMove = `UPDATE moves SET
		phase = CASE WHEN phase = ? OR (? = 0 AND phase IN (?, ?) AND run <> ?) THEN phase ELSE ? END,
		run = CASE WHEN ? = 0 AND phase IN (?, ?) AND run <> ? THEN run ELSE ? END,
		currency = CASE WHEN ? <> '' THEN ? ELSE currency END,
		moved_by = COALESCE(?, moved_by),
		input = CASE WHEN ? <> 0 THEN ? ELSE input END, line = CASE WHEN ? <> 0 THEN ? ELSE line END,
		updated = ? WHERE id = ?`
)

// sqlRecordOutcome records the outcome of a row's move, as what a later
// run of the same input takes up (see Recorded). A move settled made
// stays the record of the run that settled it: another input's run that
// finds it made later does not take it over (a new send clears it first,
// see MarkSent).
const sqlRecordOutcome = `INSERT INTO move_outcomes (id, run, op, reference_id, amount, outcome, http_status, error_type,
	message, payment_status, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET
	run = excluded.run, op = excluded.op, reference_id = excluded.reference_id, amount = excluded.amount,
	outcome = excluded.outcome, http_status = excluded.http_status, error_type = excluded.error_type,
	message = excluded.message, payment_status = excluded.payment_status, sent_ref = '', sent_amount = '',
	journal = '', updated = excluded.updated
	WHERE move_outcomes.outcome NOT IN ('ok', 'reconciled')`

// sqlClearOutcome drops a move's recorded outcome as it is sent again.
const sqlClearOutcome = "DELETE FROM move_outcomes WHERE id = ?"

// prepareStatements prepares the statements every row runs.
func (l *Ledger) prepareStatements() error {
	l.stmts = map[string]*sql.Stmt{}
	for _, q := range []string{sqlMarkSent, sqlSettleRow, sqlSettleMove, sqlRecordOutcome, sqlClearOutcome} {
		st, err := l.db.Prepare(l.q(q))
		if err != nil {
			return err
		}
		l.stmts[q] = st
	}
	return nil
}

// stmt is query, prepared once by prepareStatements, for tx.
func (l *Ledger) stmt(t tx, query string) *sql.Stmt { return t.Tx.Stmt(l.stmts[query]) }
