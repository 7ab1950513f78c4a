package ledger

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"strings"
)

// What a run takes up of the runs of its input before it: for each move,
// its last send (the reference_id and the exact amount sent, so that a
// row sent before goes again, if it must, as it went) and the outcome the
// run that settled it recorded. The ledger is a run's only record: a run
// is resumed by running the same command on its input again, and finds
// there what its earlier runs did.

// Recorded is what the ledger holds of a move for a run of its input.
type Recorded struct {
	// SentRef and SentAmount are the move's last send ("" when none).
	SentRef, SentAmount string
	// Outcome is "" when the move has no outcome recorded by a run the
	// caller takes up; the rest describe it.
	Outcome, ReferenceID, Amount string
	HTTPStatus                   int
	ErrorType, Message           string
	PaymentStatus                string
	// Journal is the journal the outcome was imported from, if it was.
	Journal string
}

// Recorded is what the runs ours says are of this run's input (this run
// among them) recorded of move id: its last send, when one of them sent
// it, and its outcome, when one of them settled it. nil when nothing.
func (l *Ledger) Recorded(id string, ours func(run int64) bool) (*Recorded, error) {
	var r Recorded
	var phase, sentRef, sentAmount string
	var run int64
	err := db{l}.QueryRow("SELECT phase, run, reference_id, sent_amount FROM moves WHERE id = ?", id).Scan(&phase, &run, &sentRef, &sentAmount)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, l.wrap(err)
	case sentAmount != "" && phase != PhasePlanned && ours(run):
		r.SentRef, r.SentAmount = sentRef, sentAmount
	}
	var outRun int64
	var oSentRef, oSentAmount string
	err = db{l}.QueryRow(`SELECT run, outcome, reference_id, amount, http_status, error_type, message, payment_status,
		sent_ref, sent_amount, journal FROM move_outcomes WHERE id = ?`, id).Scan(&outRun, &r.Outcome, &r.ReferenceID,
		&r.Amount, &r.HTTPStatus, &r.ErrorType, &r.Message, &r.PaymentStatus, &oSentRef, &oSentAmount, &r.Journal)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, l.wrap(err)
	case !ours(outRun):
		r.Outcome = ""
	case r.SentAmount == "" && oSentAmount != "":
		r.SentRef, r.SentAmount = oSentRef, oSentAmount
	}
	if r.SentAmount == "" && r.Outcome == "" {
		return nil, nil
	}
	return &r, nil
}

// ImportedMove is a move an old journal records: its last send and the
// outcome of that send (Outcome "" when the journal has none).
type ImportedMove struct {
	MoveID, Op          string
	SentRef, SentAmount string
	Outcome             string
	ReferenceID, Amount string
	HTTPStatus          int
	ErrorType, Message  string
	PaymentStatus       string
}

// importBatch is how many moves one statement imports (14 values each,
// within SQLite's bound on a statement's values).
const importBatch = 1000

// JournalDigest names a journal's content: the same journal, wherever it
// is, is imported once.
func JournalDigest(content []byte) string {
	sum := sha256.Sum256(append([]byte("journal\x1f"), content...))
	return hex.EncodeToString(sum[:16])
}

// JournalImported reports whether the ledger imported the journal whose
// content is digest.
func (l *Ledger) JournalImported(digest string) (bool, error) {
	var n int
	err := db{l}.QueryRow("SELECT count(*) FROM imported_journals WHERE digest = ?", digest).Scan(&n)
	return n > 0, l.wrap(err)
}

// ImportJournal records, as this run's, the moves of the journal at path
// whose content is digest, once: false, and nothing written, when the
// ledger imported that journal before. What the ledger holds of a move
// already (its own runs' record) is kept.
func (l *Ledger) ImportJournal(digest, path string, moves []ImportedMove) (bool, error) {
	imported := false
	err := l.inTx(func(t tx) error {
		var n int
		if err := t.QueryRow("SELECT count(*) FROM imported_journals WHERE digest = ?", digest).Scan(&n); err != nil || n > 0 {
			return err
		}
		for start := 0; start < len(moves); start += importBatch {
			if err := l.importMoves(t, path, moves[start:min(start+importBatch, len(moves))]); err != nil {
				return err
			}
		}
		if _, err := t.Exec("UPDATE runs SET journal = ? WHERE id = ?", path, l.run); err != nil {
			return err
		}
		if _, err := t.Exec("INSERT INTO imported_journals (digest, path, run, records, imported) VALUES (?, ?, ?, ?, ?)",
			digest, path, l.run, len(moves), l.stamp()); err != nil {
			return err
		}
		imported = true
		return nil
	})
	return imported, err
}

func (l *Ledger) importMoves(t tx, path string, moves []ImportedMove) error {
	var q strings.Builder
	q.WriteString(`INSERT INTO move_outcomes (id, run, op, reference_id, amount, outcome, http_status, error_type, message,
		payment_status, sent_ref, sent_amount, journal, updated) VALUES `)
	args := make([]any, 0, 14*len(moves))
	now := l.stamp()
	for i, m := range moves {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		args = append(args, m.MoveID, l.run, m.Op, m.ReferenceID, m.Amount, m.Outcome, m.HTTPStatus, m.ErrorType,
			m.Message, m.PaymentStatus, m.SentRef, m.SentAmount, path, now)
	}
	q.WriteString(" ON CONFLICT (id) DO NOTHING")
	_, err := t.Exec(q.String(), args...)
	return err
}

// StrayOutcomes counts the moves of ops that the runs of this input before
// this one (runs) settled and that no row of this run is: rows of the
// input edited (or removed) since they ran.
func (l *Ledger) StrayOutcomes(runs []int64, ops []string) (int, error) {
	if len(runs) == 0 || len(ops) == 0 {
		return 0, nil
	}
	args := []any{}
	in := func(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }
	for _, r := range runs {
		args = append(args, r)
	}
	for _, op := range ops {
		args = append(args, op)
	}
	args = append(args, l.run)
	var n int
	err := db{l}.QueryRow(`SELECT count(*) FROM move_outcomes o WHERE o.run IN (`+in(len(runs))+`) AND o.op IN (`+in(len(ops))+`)
		AND o.outcome <> '' AND NOT EXISTS (SELECT 1 FROM run_rows r WHERE r.run = ? AND r.move = o.id)`, args...).Scan(&n)
	return n, l.wrap(err)
}
