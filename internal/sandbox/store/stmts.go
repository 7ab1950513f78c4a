package store

import (
	"context"
	"database/sql"
	"errors"
)

// The write path's statements, prepared once when the state opens: SQLite
// would otherwise parse each one again on every move (about a seventh of a
// capture's time). The state writes through one connection, so each is
// prepared on it and every transaction runs it there.
const (
	// A move's payment and the sandbox's clock, in one statement, with
	// what rooms ask beside it (AskOnMove; moveLoadQuery): the writer runs
	// every move, so each statement it saves is one less for all of them
	// to wait on.
	moveLoadColumns = `rev, merchant_code, is_test, lock_owner, lock_until,
		(SELECT v FROM meta WHERE k = 'clock_offset'),
		status, has_captures, has_refunds, fully_refunded`
	moveDocQuery = `SELECT ` + PaymentDoc + ` FROM payments WHERE id = ?`
	// A payment's writes are OR FAIL: one that breaks a constraint (a
	// NOT NULL, a unique id) stops where it is instead of undoing itself,
	// so SQLite keeps no statement journal for it (a copy of each page it
	// changes, made before it changes it). What it left is never
	// committed: its error fails its job, whose group's transaction is
	// then rolled back whole, or to the job's savepoint (groupcommit.go).
	moveSaveQuery = `UPDATE OR FAIL payments SET status = ?, has_captures = ?, has_refunds = ?, fully_refunded = ?,
		view = ?, session = ?, doc_whole = X'', rev = ? WHERE id = ?`
	// A move that leaves the payment where the lists find it (most
	// captures and refunds: the same status, and moves of each kind as
	// before) writes its parts alone. Naming a column of payments_listing
	// in SET makes SQLite delete and insert the payment's index entry,
	// and run payments_relisted's check, even when every value is the
	// one stored: a tenth of a capture's CPU (BenchmarkCaptureParallel).
	moveSavePartsQuery = `UPDATE OR FAIL payments SET view = ?, session = ?, doc_whole = X'', rev = ? WHERE id = ?`
	insertRecordQuery  = `INSERT OR FAIL INTO payments (id, session_id, merchant_code, is_test, status, created_at, view, session, doc_whole, rev)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, X'', ?)`
)

// askedOnMove are the expressions rooms ask a move's load to answer
// beside the payment (AskOnMove).
var askedOnMove []string

// AskOnMove adds expr to what every move's load statement reads beside
// the payment, and answers its place in Record.Asked: an SQL expression
// of an integer, of the payment's row (payments.id is its id), such as a
// count of the rows of another table that stop a move. A room whose
// guard would otherwise run a query of its own in each move (the
// disputes' guard of a refund) asks it here, in the statement the move
// runs anyway. Call it from an init function, or a package variable's
// initializer, before a state opens.
func AskOnMove(expr string) int {
	askedOnMove = append(askedOnMove, expr)
	return len(askedOnMove) - 1
}

// moveLoadQuery is the move's load statement, with what rooms asked.
func moveLoadQuery() string {
	q := `SELECT ` + moveLoadColumns
	for _, expr := range askedOnMove {
		q += ",\n\t\t(" + expr + ")"
	}
	return q + ` FROM payments WHERE id = ?`
}

// preparedQueries are what prepareWrites prepares beside the move's load;
// other rooms add theirs with PrepareOnOpen before a state opens.
var preparedQueries = []string{moveDocQuery, moveSaveQuery, moveSavePartsQuery, insertRecordQuery}

// PrepareOnOpen adds a write-path query to prepare whenever a state opens
// (call it from an init function).
func PrepareOnOpen(query string) { preparedQueries = append(preparedQueries, query) }

func (s *State) prepareWrites(ctx context.Context) error {
	s.moveLoad, s.moveAsked = moveLoadQuery(), len(askedOnMove)
	s.prepared = make(map[string]*sql.Stmt, len(preparedQueries)+1)
	for _, q := range append([]string{s.moveLoad}, preparedQueries...) {
		st, err := s.DB.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		s.prepared[q] = st
	}
	return nil
}

// errNotPrepared is a programming error: a query missing from
// preparedQueries.
var errNotPrepared = errors.New("sandbox state: statement not prepared on open")

// Stmt answers a prepared write-path query bound to tx: in a job of the
// writer, bound once for its whole transaction.
func (s *State) Stmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	st, ok := s.prepared[query]
	if !ok {
		return nil, errNotPrepared
	}
	if sc := scopeOf(ctx, tx); sc != nil {
		return sc.bind(ctx, query, st), nil
	}
	return tx.StmtContext(ctx, st), nil
}
