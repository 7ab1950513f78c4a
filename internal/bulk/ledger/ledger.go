// Package ledger is the record of the moves bulk runs make, shared by
// every run that names the same ledger (whatever its file, journal or
// command): one schema and one set of transactions, kept in one of two
// halves. The SQLite half is a file of bnpl's state directory, shared by
// the runs of one machine; the PostgreSQL half is a team's database,
// shared by the runs of every machine that names it. It holds:
//
//   - runs: each run, its process and what says it is alive for as long
//     as it lives (an OS lock on a file of its own, or a PostgreSQL
//     advisory lock its session holds), so another run can tell;
//   - moves: a row per move, keyed by the move's identity (see MoveID),
//     with its intent (payment, op, amount, reference_id), its phase
//     (planned, claimed, sent, confirmed, unknown, failed), the run that
//     last held it, the run whose send moved it, and the run whose summary
//     counted it for a run that could not (adopted_by, see Adopt);
//   - claims: which run works on which payment: one at a time;
//   - run_rows: each run's rows, in input order, with what became of each:
//     the run's summary and report are queries over them.
//
// Every write is one transaction, and the writers of a ledger take turns
// (SQLite's BEGIN IMMEDIATE; a transaction-scoped advisory lock in
// PostgreSQL), so each transaction sees the ledger as the last one left
// it; readers never wait.
package ledger

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// Ledger is one run's (or one reader's) handle on a ledger.
type Ledger struct {
	db    *sql.DB
	half  half
	scope string
	// run is this run's id once BeginRun has recorded it.
	run int64
	now func() time.Time
	// batch groups the workers' writes into shared transactions, with
	// the statements they run prepared once.
	batch ledgerBatch
	stmts map[string]*sql.Stmt
}

// half is what differs between the SQLite and the PostgreSQL ledger:
// where it is, how a run shows it is alive, and how writers take turns.
// The schema and the transactions are the same.
type half interface {
	// where names the ledger in messages: a path, or a database's host
	// and name (never its password).
	where() string
	// rebind turns a statement's ? placeholders into the half's own.
	rebind(query string) string
	// turn makes tx wait for the writers before it (nothing for SQLite,
	// whose BEGIN IMMEDIATE does).
	turn(tx *sql.Tx) error
	// beginRun records the run (record, given what others check it lives
	// by) and makes it alive, so that no other run ever sees it recorded
	// and not alive. It returns the run's id.
	beginRun(l *Ledger, record func(t tx, lock string) (int64, error)) (int64, error)
	// alive reports whether the run recorded with lock still lives.
	alive(run int64, lock string) bool
	// inPlace is nil while what others see of this run (its ledger, its
	// lock) is still there, and the *Error that stops it when not.
	inPlace() error
	// fail turns err into the *Error that says what to do.
	fail(err error) *Error
	// end ends this run's life (its lock goes) and closes the half.
	end()
}

// Options say which ledger to open.
type Options struct {
	// URL is a PostgreSQL ledger's address (postgres://…); "" keeps the
	// ledger in Dir.
	URL string
	// Dir is bnpl's state directory, which holds the SQLite ledger;
	// "" (and no URL) keeps a private ledger, removed on close.
	Dir string
	// Scope names the service the moves are made on.
	Scope string
	Now   func() time.Time
}

// Phases of a move in the ledger.
const (
	PhasePlanned   = "planned"
	PhaseClaimed   = "claimed"
	PhaseSent      = "sent"
	PhaseConfirmed = "confirmed"
	PhaseUnknown   = "unknown"
	PhaseFailed    = "failed"
)

// How long the ledger keeps what it no longer needs: the rows of an ended
// run (its report is written), and moves settled and runs ended long ago,
// which are then only named no more ("by no bulk run this ledger
// knows"); the payment itself still shows a repeat. It is pruned at most
// once every pruneEvery.
const (
	keepRunRows = 7 * 24 * time.Hour
	keepMoves   = 90 * 24 * time.Hour
	pruneEvery  = 24 * time.Hour
)

// Open opens the ledger o names: PostgreSQL at o.URL, else SQLite in
// o.Dir (or a private one).
func Open(o Options) (*Ledger, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	l := &Ledger{scope: o.Scope, now: o.Now}
	var err error
	if o.URL != "" {
		err = openPostgres(l, o.URL)
	} else {
		err = openSQLite(l, o.Dir)
	}
	if err != nil {
		return nil, l.failed(err)
	}
	if err := l.prepareStatements(); err != nil {
		return nil, l.failed(err)
	}
	return l, nil
}

// Where names the ledger: its file, or its database's host and name.
func (l *Ledger) Where() string { return l.half.where() }

// Scope is the service the ledger's moves are made on, as opened.
func (l *Ledger) Scope() string { return l.scope }

// Run is this run's id in the ledger (0 before BeginRun).
func (l *Ledger) Run() int64 { return l.run }

// failed closes what Open opened and returns err as an *Error.
func (l *Ledger) failed(err error) error {
	var e *Error
	if l.half != nil {
		e = l.half.fail(err)
	} else {
		e = &Error{Where: "ledger", Err: err}
	}
	l.Close()
	return e
}

// Close ends the run's life in the ledger (its claims go, its lock too)
// and closes the database.
func (l *Ledger) Close() {
	if l.db != nil {
		if l.run != 0 {
			_ = l.exec("DELETE FROM claims WHERE run = ? OR (run = 0 AND last_run = ?)", l.run, l.run)
			_ = l.exec("UPDATE runs SET ended = ? WHERE id = ?", l.stamp(), l.run)
		}
		for _, st := range l.stmts {
			_ = st.Close()
		}
	}
	if l.half != nil {
		l.half.end()
	}
	if l.db != nil {
		_ = l.db.Close()
		l.db = nil
	}
	if s, ok := l.half.(*sqliteHalf); ok {
		s.removePrivate()
	}
}

func (l *Ledger) stamp() string { return l.now().UTC().Format(time.RFC3339Nano) }

// q is query in the half's own placeholders.
func (l *Ledger) q(query string) string { return l.half.rebind(query) }

// wrap names the ledger in err. A shared ledger that fails while a run
// goes on (the database restarted, the network lost) stops the run with
// exit 12 and says how to resume it.
func (l *Ledger) wrap(err error) error {
	if err == nil {
		return nil
	}
	if h, ok := l.half.(*pgHalf); ok && l.run != 0 {
		var le *Error
		if errors.As(err, &le) {
			return le
		}
		return &Error{Where: h.where(), gone: true, Err: errors.New(h.scrub(err.Error())), hint: resumeHint}
	}
	return fmt.Errorf("ledger %s: %w", l.half.where(), err)
}

// exec runs one statement as a transaction of its own.
func (l *Ledger) exec(query string, args ...any) error {
	_, err := l.db.Exec(l.q(query), args...)
	return l.wrap(err)
}

// tx is a transaction whose statements are written with ? placeholders.
type tx struct {
	*sql.Tx
	l *Ledger
}

func (t tx) Exec(query string, args ...any) (sql.Result, error) {
	return t.Tx.Exec(t.l.q(query), args...)
}

func (t tx) Query(query string, args ...any) (*sql.Rows, error) {
	return t.Tx.Query(t.l.q(query), args...)
}

func (t tx) QueryRow(query string, args ...any) *sql.Row {
	return t.Tx.QueryRow(t.l.q(query), args...)
}

// db is the database as a querier whose statements are written with ?
// placeholders.
type db struct{ l *Ledger }

func (d db) Query(query string, args ...any) (*sql.Rows, error) {
	return d.l.db.Query(d.l.q(query), args...)
}

func (d db) QueryRow(query string, args ...any) *sql.Row {
	return d.l.db.QueryRow(d.l.q(query), args...)
}

// querier is the database or a transaction.
type querier interface {
	Query(string, ...any) (*sql.Rows, error)
	QueryRow(string, ...any) *sql.Row
}

// inTx runs fn in one transaction, committed when fn returns nil.
func (l *Ledger) inTx(fn func(tx tx) error) error {
	t, err := l.db.BeginTx(context.Background(), nil)
	if err != nil {
		return l.wrap(err)
	}
	if err := l.half.turn(t); err != nil {
		_ = t.Rollback()
		return l.wrap(err)
	}
	if err := fn(tx{t, l}); err != nil {
		_ = t.Rollback()
		return l.wrap(err)
	}
	return l.wrap(t.Commit())
}

// MoveID is a move's key in the ledger: its scope (the service) and its
// identity (its meaning once decoded and its occurrence among identical
// moves, never the file's bytes).
func MoveID(scope, key string) string {
	sum := sha256.Sum256([]byte("move\x1f" + scope + "\x1f" + key))
	return hex.EncodeToString(sum[:16])
}

// b2i is a flag as the schema stores it.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
