package bulk

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the pure-Go "sqlite" driver

	"github.com/bnpl-cli/bnpl/internal/userfile"
)

// The ledger is the machine's record of the moves bulk runs make, shared
// by every run (whatever its file, journal or command), in one SQLite file
// of bnpl's state directory. It holds:
//
//   - runs: each run, its process and the file whose OS lock it holds for
//     as long as it lives (so another run can tell whether it is alive);
//   - moves: a row per move, keyed by the move's identity (see moveID),
//     with its intent (payment, op, amount, reference_id), its phase
//     (planned, claimed, sent, confirmed, unknown, failed), the run that
//     last held it, the run whose send moved it, and the run whose summary
//     counted it for a run that could not (adopted_by, see adopt);
//   - claims: which run works on which payment: one at a time;
//   - run_rows: each run's rows, in input order, with what became of each:
//     the run's summary and report are queries over them.
//
// Every write is one transaction (BEGIN IMMEDIATE, so writers queue for
// the file rather than fail half-way); WAL lets runs read while one
// writes.
type ledger struct {
	db    *sql.DB
	path  string
	scope string
	// file is the ledger's file as opened: a run whose ledger was deleted
	// or replaced since stops (see inPlace).
	file os.FileInfo
	// run is this run's id, and lock the file whose OS lock says it lives.
	run      int64
	lock     *os.File
	lockPath string
	// tmpDir is a private ledger's directory, removed on close.
	tmpDir string
	now    func() time.Time
	// batch groups the workers' writes into shared transactions, with
	// the statements they run prepared once.
	batch ledgerBatch
	stmts map[string]*sql.Stmt
}

// ledgerFileName is the ledger's file in bnpl's state directory.
const ledgerFileName = "bulk-ledger.db"

// Phases of a move in the ledger.
const (
	phasePlanned   = "planned"
	phaseClaimed   = "claimed"
	phaseSent      = "sent"
	phaseConfirmed = "confirmed"
	phaseUnknown   = "unknown"
	phaseFailed    = "failed"
)

const ledgerSchema = `
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	pid     INTEGER NOT NULL,
	lock    TEXT NOT NULL,
	started TEXT NOT NULL,
	ended   TEXT,
	op      TEXT NOT NULL,
	input   TEXT NOT NULL,
	journal TEXT NOT NULL DEFAULT '',
	summarized INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS moves (
	id           TEXT PRIMARY KEY,
	scope        TEXT NOT NULL,
	payment_id   TEXT NOT NULL,
	op           TEXT NOT NULL,
	amount       TEXT NOT NULL,
	reference_id TEXT NOT NULL,
	phase        TEXT NOT NULL,
	run          INTEGER NOT NULL,
	moved_by     INTEGER,
	sent_amount  TEXT NOT NULL DEFAULT '',
	currency     TEXT NOT NULL DEFAULT '',
	input        TEXT NOT NULL DEFAULT '',
	line         INTEGER NOT NULL DEFAULT 0,
	adopted_by   INTEGER,
	updated      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS moves_of_payment ON moves (scope, payment_id, op, reference_id);
CREATE TABLE IF NOT EXISTS claims (
	scope      TEXT NOT NULL,
	payment_id TEXT NOT NULL,
	run        INTEGER NOT NULL,
	last_run   INTEGER NOT NULL DEFAULT 0,
	since      TEXT NOT NULL,
	PRIMARY KEY (scope, payment_id)
);
CREATE TABLE IF NOT EXISTS run_rows (
	run            INTEGER NOT NULL,
	seq            INTEGER NOT NULL,
	line           INTEGER NOT NULL,
	move           TEXT NOT NULL DEFAULT '',
	op             TEXT NOT NULL,
	payment_id     TEXT NOT NULL,
	reference_id   TEXT NOT NULL DEFAULT '',
	amount         TEXT NOT NULL DEFAULT '',
	currency       TEXT NOT NULL DEFAULT '',
	outcome        TEXT NOT NULL DEFAULT '',
	http_status    INTEGER NOT NULL DEFAULT 0,
	error_type     TEXT NOT NULL DEFAULT '',
	message        TEXT NOT NULL DEFAULT '',
	payment_status TEXT NOT NULL DEFAULT '',
	moved          INTEGER NOT NULL DEFAULT 0,
	earlier        INTEGER NOT NULL DEFAULT 0,
	by_run         INTEGER NOT NULL DEFAULT 0,
	adopted        INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (run, seq)
);
CREATE INDEX IF NOT EXISTS run_rows_of_payment ON run_rows (run, payment_id);
`

// How long the ledger keeps what it no longer needs: the rows of an ended
// run (its report is written), and moves settled and runs ended long ago,
// which are then only named no more ("by no bulk run this machine's
// ledger knows"); the payment itself still shows a repeat. It is pruned
// at most once every pruneEvery.
const (
	keepRunRows = 7 * 24 * time.Hour
	keepMoves   = 90 * 24 * time.Hour
	pruneEvery  = 24 * time.Hour
)

// openLedger opens the ledger in dir (bnpl's state directory), or a
// private one, removed on close, when dir is "" (a run without a state
// directory, as tests make). scope names the service the moves are
// made on.
func openLedger(dir, scope string, now func() time.Time) (*ledger, error) {
	l := &ledger{scope: scope, now: now}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "bnpl-ledger-")
		if err != nil {
			return nil, fmt.Errorf("ledger: %w", err)
		}
		dir, l.tmpDir = tmp, tmp
	}
	l.path = filepath.Join(dir, ledgerFileName)
	if err := l.open(dir); err != nil {
		if userfile.Refused(err) {
			return nil, l.failed(err)
		}
		return nil, l.failed(ledgerError(l.path, err))
	}
	return l, nil
}

// open makes dir and the ledger's file, private, and opens it.
func (l *ledger) open(dir string) error {
	if err := userfile.PrivateDir("state directory", dir); err != nil {
		return err
	}
	if err := privateLedger(l.path); err != nil {
		return err
	}
	var err error
	if l.file, err = os.Stat(l.path); err != nil {
		return err
	}
	dsn := "file:" + (&url.URL{Path: l.path}).EscapedPath() +
		"?_txlock=immediate&_pragma=busy_timeout(30000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	// One connection: the workers of a run take turns at it in Go, rather
	// than contend for SQLite's write lock and sleep in its busy handler.
	db.SetMaxOpenConns(1)
	l.db = db
	if err := l.prepare(dir); err != nil {
		return err
	}
	return l.prepareStatements()
}

// privateLedger makes the ledger's file, and the files SQLite keeps beside
// it, private before SQLite opens them: SQLite gives its -wal and -shm
// files the mode of the database file, so a file SQLite made (mode 644
// under the usual umask) would leave every move readable by others. A
// file another user owns is refused.
func privateLedger(path string) error {
	f, err := userfile.OpenPrivate(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return userfile.PrivateSQLite(path)
}

// prepare makes the ledger's tables (and switches it to WAL). Runs
// that start at once on a new ledger would otherwise race to switch it to
// WAL, which SQLite does not wait for: they take turns by an OS lock on a
// file beside it.
func (l *ledger) prepare(dir string) error {
	f, err := userfile.OpenPrivate(filepath.Join(dir, ledgerFileName+".lock"), os.O_RDWR|os.O_CREATE)
	if err != nil {
		return err
	}
	defer f.Close()
	deadline := time.Now().Add(ledgerOpenWait)
	for {
		busy, err := lockFile(f)
		if err != nil {
			return err
		}
		if !busy {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("another run has been opening the ledger for too long")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err = l.db.Exec(ledgerSchema)
	return err
}

// ledgerOpenWait bounds the wait for another run opening the ledger.
const ledgerOpenWait = 30 * time.Second

// failed closes what openLedger opened and returns err.
func (l *ledger) failed(err error) error {
	l.close()
	return err
}

// close ends the run's life in the ledger (its claims go, its lock file
// too) and closes the database.
func (l *ledger) close() {
	if l.db != nil {
		if l.run != 0 {
			_ = l.exec("DELETE FROM claims WHERE run = ? OR (run = 0 AND last_run = ?)", l.run, l.run)
			_ = l.exec("UPDATE runs SET ended = ? WHERE id = ?", l.stamp(), l.run)
		}
		_ = l.db.Close()
		l.db = nil
	}
	if l.lock != nil {
		// Closed first: Windows removes no open file. The run has ended
		// either way, so another run finding the file unlocked is right.
		_ = l.lock.Close()
		_ = os.Remove(l.lockPath)
		l.lock = nil
	}
	if l.tmpDir != "" {
		_ = os.RemoveAll(l.tmpDir)
	}
}

func (l *ledger) stamp() string { return l.now().UTC().Format(time.RFC3339Nano) }

// exec runs one statement as a transaction of its own.
func (l *ledger) exec(query string, args ...any) error {
	if _, err := l.db.Exec(query, args...); err != nil {
		return fmt.Errorf("ledger %s: %w", l.path, err)
	}
	return nil
}

// inTx runs fn in one transaction, committed when fn returns nil.
func (l *ledger) inTx(fn func(tx *sql.Tx) error) error {
	tx, err := l.db.BeginTx(context.Background(), nil)
	if err != nil {
		return fmt.Errorf("ledger %s: %w", l.path, err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("ledger %s: %w", l.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("ledger %s: %w", l.path, err)
	}
	return nil
}

// inPlace checks that the ledger at its path is still the file this run
// opened, and this run's lock file still its own: a ledger deleted or
// replaced (bnpl's state directory cleaned while the run goes on) is one
// the runs that start now do not share, and a lock file gone makes this
// run look ended to them, so they would take its payments. The run then
// stops before it claims or sends anything more. A private ledger (no
// state directory) is the run's alone.
func (l *ledger) inPlace() error {
	if l.tmpDir != "" || l.file == nil {
		return nil
	}
	now, err := os.Stat(l.path)
	if err != nil || !os.SameFile(now, l.file) {
		return &LedgerError{Path: l.path, gone: true,
			Err: errors.New("it was deleted or replaced while this run went on, so runs that start now no longer see this one's claims")}
	}
	if l.lock != nil {
		mine, err1 := l.lock.Stat()
		there, err2 := os.Stat(l.lockPath)
		if err1 != nil || err2 != nil || !os.SameFile(mine, there) {
			return &LedgerError{Path: l.path, gone: true,
				Err: fmt.Errorf("this run's lock file %s was deleted while the run went on, so other runs take it for ended", l.lockPath)}
		}
	}
	return nil
}

// moveID is a move's key in the ledger: its scope (the service)
// and its identity, the row key of rowIdentity (its meaning once decoded
// and its occurrence among identical moves, never the file's bytes).
func moveID(scope, key string) string {
	sum := sha256.Sum256([]byte("move\x1f" + scope + "\x1f" + key))
	return hex.EncodeToString(sum[:16])
}
