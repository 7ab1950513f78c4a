package bulk

import (
	"database/sql"
	"fmt"
)

// plannedRow is a row of this run as the ledger first records it: its
// move's intent, before anything is sent.
type plannedRow struct {
	seq         int
	line        int
	moveID      string // "" for a row that is no move (an invalid row)
	op          Op
	paymentID   string
	referenceID string
	amount      string
}

// planBatch is how many rows one transaction records.
const planBatch = 4096

// planRows records rows of this run and the intent of their moves; a move
// the ledger knows already (another run's, or an earlier one's) keeps
// what it holds.
func (l *ledger) planRows(rows []plannedRow) error {
	if len(rows) == 0 {
		return nil
	}
	return l.inTx(func(tx *sql.Tx) error {
		insRow, err := tx.Prepare(`INSERT OR REPLACE INTO run_rows (run, seq, line, move, op, payment_id, reference_id, amount)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer insRow.Close()
		insMove, err := tx.Prepare(`INSERT INTO moves (id, scope, payment_id, op, amount, reference_id, phase, run, updated)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`)
		if err != nil {
			return err
		}
		defer insMove.Close()
		now := l.stamp()
		for _, r := range rows {
			if _, err := insRow.Exec(l.run, r.seq, r.line, r.moveID, string(r.op), r.paymentID, r.referenceID, r.amount); err != nil {
				return err
			}
			if r.moveID == "" {
				continue
			}
			if _, err := insMove.Exec(r.moveID, l.scope, r.paymentID, string(r.op), canonicalAmount(r.amount), r.referenceID,
				phasePlanned, l.run, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// markSent records, before its request goes out, that this run sends move
// id with ref and amount.
func (l *ledger) markSent(id, ref, amount string) error {
	if err := l.inPlace(); err != nil {
		return err
	}
	return l.inBatch(func(tx *sql.Tx) error {
		_, err := l.stmt(tx, sqlMarkSent).Exec(
			phaseSent, l.run, ref, amount, l.stamp(), id)
		return err
	})
}

// settle records what became of a row of this run, and of its move, in
// one transaction. phase is the move's new phase ("" leaves the move as
// it is); a move the ledger holds confirmed stays confirmed, and one
// another run sent with no answer yet stays that run's unless this row
// moved or adopted it.
func (l *ledger) settle(seq int, moveID string, res rowResult, phase string, input string) error {
	return l.inBatch(func(tx *sql.Tx) error {
		_, err := l.stmt(tx, sqlSettleRow).Exec(
			res.ReferenceID, res.Amount, res.currency, string(res.Outcome), res.HTTPStatus, res.ErrorType, res.Message,
			res.PaymentStatus, res.moved, res.earlier, res.byRun, res.adopted, l.run, seq)
		if err != nil || moveID == "" || phase == "" {
			return err
		}
		movedBy := sql.NullInt64{Int64: l.run, Valid: res.moved}
		if res.adopted {
			movedBy = sql.NullInt64{Int64: res.byRun, Valid: true}
		}
		ours := res.moved || res.adopted
		_, err = l.stmt(tx, sqlSettleMove).Exec(
			phaseConfirmed, ours, phaseSent, phaseUnknown, l.run, phase,
			ours, phaseSent, phaseUnknown, l.run, l.run,
			res.currency, res.currency, movedBy,
			ours, input, ours, res.Line, l.stamp(), moveID)
		return err
	})
}

// fileRefs are the reference_ids this run's rows of paymentID send, by op:
// the moves of the payment this file accounts for.
func (l *ledger) fileRefs(paymentID string) (map[Op]map[string]bool, error) {
	rows, err := l.db.Query("SELECT op, reference_id FROM run_rows WHERE run = ? AND payment_id = ? AND move <> ''", l.run, paymentID)
	if err != nil {
		return nil, fmt.Errorf("ledger %s: %w", l.path, err)
	}
	defer rows.Close()
	refs := map[Op]map[string]bool{}
	for rows.Next() {
		var op, ref string
		if err := rows.Scan(&op, &ref); err != nil {
			return nil, fmt.Errorf("ledger %s: %w", l.path, err)
		}
		if refs[Op(op)] == nil {
			refs[Op(op)] = map[string]bool{}
		}
		refs[Op(op)][ref] = true
	}
	return refs, rows.Err()
}

// madeBy names, for a move of paymentID the service holds under ref (""
// for a close), the run that moved it and where it read it: "run 12
// (process …), line 3 of refunds.csv", and that run's id; "" and 0 when
// the ledger does not know who moved it.
func (l *ledger) madeBy(paymentID string, op Op, ref string) (string, int64) {
	if l == nil {
		return "", 0
	}
	var movedBy sql.NullInt64
	var run int64
	var input string
	var line int
	err := l.db.QueryRow(`SELECT run, moved_by, input, line FROM moves
		WHERE scope = ? AND payment_id = ? AND op = ? AND reference_id = ? AND phase = ? ORDER BY moved_by IS NULL LIMIT 1`,
		l.scope, paymentID, string(op), ref, phaseConfirmed).Scan(&run, &movedBy, &input, &line)
	if err != nil || !movedBy.Valid {
		return "", 0
	}
	info := l.runByID(l.db, movedBy.Int64)
	if info == nil {
		return "", 0
	}
	if line > 0 {
		return fmt.Sprintf("%s, line %d of %s", info, line, input), info.ID
	}
	return info.String(), info.ID
}

// adopt takes, for this run's summary, the money of move id when the run
// that moved it cannot count it: it sent the move and ended without
// recording that it moved (killed while the request was in flight, or
// left it of unknown outcome), or it recorded the move and was killed
// before its summary. That run's send is the only one that can explain
// the move, since it held the payment's claim. The service applies a
// reference_id once per payment, so the ledger's moves of one payment, op
// and reference_id (its twins: a row with a reference_id of its own,
// edited since) are one move there, adopted as one. A move is adopted
// once, by the first run that finds it and makes its summary (a run
// killed before its summary leaves what it adopted to the next); nil when
// there is nothing to adopt.
func (l *ledger) adopt(id string) *runInfo {
	var ended *runInfo
	err := l.inTx(func(tx *sql.Tx) error {
		var twins []string
		if ended, twins = l.adoptable(tx, id); ended == nil {
			return nil
		}
		for _, twin := range append(twins, id) {
			if _, err := tx.Exec("UPDATE moves SET adopted_by = ? WHERE id = ?", l.run, twin); err != nil {
				return err
			}
		}
		_, err := tx.Exec("UPDATE moves SET moved_by = ? WHERE id = ?", ended.ID, id)
		return err
	})
	if err != nil {
		return nil
	}
	return ended
}

// querier is a database or a transaction.
type querier interface {
	Query(string, ...any) (*sql.Rows, error)
	QueryRow(string, ...any) *sql.Row
}

// twinMove is a move of the ledger as adoption reads it.
type twinMove struct {
	id, phase          string
	run                int64
	movedBy, adoptedBy sql.NullInt64
}

// twins are move id and the ledger's other moves of the same scope,
// payment, op and reference_id that were sent or settled.
func (l *ledger) twins(q querier, id string) ([]twinMove, error) {
	rows, err := q.Query(`SELECT m.id, m.phase, m.run, m.moved_by, m.adopted_by FROM moves m, moves o
		WHERE o.id = ? AND (m.id = o.id OR (m.scope = o.scope AND m.payment_id = o.payment_id AND m.op = o.op
			AND m.reference_id = o.reference_id AND m.phase IN (?, ?, ?)))`, id, phaseSent, phaseUnknown, phaseConfirmed)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []twinMove
	for rows.Next() {
		var m twinMove
		if err := rows.Scan(&m.id, &m.phase, &m.run, &m.movedBy, &m.adoptedBy); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// adoptable is the run whose move id (one move on the service with its
// twins) this run would adopt, and the twins' ids (see adopt); nil when
// some run counts the move already (it confirmed it and made or will make
// its summary, or adopted it and so), or none can be named.
func (l *ledger) adoptable(q querier, id string) (*runInfo, []string) {
	twins, err := l.twins(q, id)
	if err != nil {
		return nil, nil
	}
	var ended *runInfo
	var ids []string
	for _, m := range twins {
		if m.id != id {
			ids = append(ids, m.id)
		}
		if m.adoptedBy.Valid && l.counts(q, m.adoptedBy.Int64) {
			return nil, nil
		}
		run, confirmed := m.run, false
		switch {
		case m.phase == phaseSent || m.phase == phaseUnknown:
		case m.phase == phaseConfirmed && m.movedBy.Valid:
			run, confirmed = m.movedBy.Int64, true
		default:
			continue
		}
		info := l.runByID(q, run)
		// A run that made its summary counted the moves it confirmed; a
		// live one (or this one) has its own send to settle.
		if run == l.run || info == nil || alive(info.lock) || (confirmed && info.summarized) {
			return nil, nil
		}
		if ended == nil || confirmed {
			ended = info
		}
	}
	return ended, ids
}

// inDoubt is the other run that sent move id, or a twin of it (see
// adopt), and has no answer for it yet (the move is sent, or of unknown
// outcome), or nil.
func (l *ledger) inDoubt(id string) *runInfo {
	twins, err := l.twins(l.db, id)
	if err != nil {
		return nil
	}
	for _, m := range twins {
		if (m.phase == phaseSent || m.phase == phaseUnknown) && m.run != l.run {
			return l.runByID(l.db, m.run)
		}
	}
	return nil
}

// counts reports whether the run that adopted a move counts it: this run,
// a run still alive (its summary is to come), or one that made its
// summary. A run killed before its summary counted nothing, so what it
// adopted is adopted again by the next run that finds it.
func (l *ledger) counts(q querier, adopter int64) bool {
	if adopter == l.run {
		return true
	}
	info := l.runByID(q, adopter)
	return info == nil || info.summarized || alive(info.lock)
}

// summarized records that this run's summary is made: a run killed after
// this counted its moves itself, and none is adopted from it.
func (l *ledger) summarized() error {
	return l.exec("UPDATE runs SET summarized = 1 WHERE id = ?", l.run)
}
