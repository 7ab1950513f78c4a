package ledger

import (
	"context"
	"crypto/rand"
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

// FileName is the SQLite ledger's file in bnpl's state directory.
const FileName = "bulk-ledger.db"

// sqliteHalf is the ledger in a SQLite file of bnpl's state directory,
// shared by the runs of one machine. A run lives as long as it holds the
// OS lock of a file of its own under bulk-runs/ beside the ledger.
type sqliteHalf struct {
	path string
	// file is the ledger's file as opened: a run whose ledger was deleted
	// or replaced since stops (see inPlace).
	file os.FileInfo
	// lock is the file whose OS lock says this run lives.
	lock     *os.File
	lockPath string
	// tmpDir is a private ledger's directory, removed on close.
	tmpDir string
}

// openSQLite opens the ledger in dir (bnpl's state directory), or a
// private one, removed on close, when dir is "" (a run without a state
// directory, as tests make).
func openSQLite(l *Ledger, dir string) error {
	h := &sqliteHalf{}
	l.half = h
	if dir == "" {
		tmp, err := os.MkdirTemp("", "bnpl-ledger-")
		if err != nil {
			return err
		}
		dir, h.tmpDir = tmp, tmp
	}
	h.path = filepath.Join(dir, FileName)
	return h.open(l, dir)
}

// Exists reports whether dir holds a SQLite ledger.
func Exists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, FileName))
	return dir != "" && err == nil
}

// open makes dir and the ledger's file, private, and opens it.
func (h *sqliteHalf) open(l *Ledger, dir string) error {
	if err := userfile.PrivateDir("state directory", dir); err != nil {
		return err
	}
	if err := privateLedger(h.path); err != nil {
		return err
	}
	var err error
	if h.file, err = os.Stat(h.path); err != nil {
		return err
	}
	dsn := "file:" + (&url.URL{Path: h.path}).EscapedPath() +
		"?_txlock=immediate&_pragma=busy_timeout(30000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	d, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	// One connection: the workers of a run take turns at it in Go, rather
	// than contend for SQLite's write lock and sleep in its busy handler.
	d.SetMaxOpenConns(1)
	l.db = d
	return h.prepare(l, dir)
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

// prepare makes or upgrades the ledger's schema (and switches it to WAL).
// Runs that start at once on a new ledger would otherwise race to switch
// it to WAL, which SQLite does not wait for: they take turns by an OS lock
// on a file beside it.
func (h *sqliteHalf) prepare(l *Ledger, dir string) error {
	f, err := userfile.OpenPrivate(filepath.Join(dir, FileName+".lock"), os.O_RDWR|os.O_CREATE)
	if err != nil {
		return err
	}
	defer f.Close()
	deadline := time.Now().Add(openWait)
	for {
		busy, err := userfile.Lock(f)
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
	if _, err := l.db.Exec("PRAGMA journal_mode=WAL"); err != nil {
		return err
	}
	return l.migrate("INTEGER PRIMARY KEY AUTOINCREMENT")
}

// openWait bounds the wait for another run opening the ledger.
const openWait = 30 * time.Second

func (h *sqliteHalf) where() string          { return h.path }
func (h *sqliteHalf) rebind(q string) string { return q }
func (h *sqliteHalf) turn(*sql.Tx) error     { return nil }

// beginRun takes the OS lock that says the run lives, on a file of its
// own under the ledger's directory, before the run is recorded.
func (h *sqliteHalf) beginRun(l *Ledger, record func(t tx, lock string) (int64, error)) (int64, error) {
	dir := filepath.Join(filepath.Dir(h.path), "bulk-runs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	var token [12]byte
	_, _ = rand.Read(token[:])
	h.lockPath = filepath.Join(dir, "run-"+hex.EncodeToString(token[:])+".lock")
	f, err := os.OpenFile(h.lockPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	h.lock = f
	if busy, err := userfile.Lock(f); err != nil || busy {
		return 0, fmt.Errorf("locking %s: %v", h.lockPath, err)
	}
	t, err := l.db.BeginTx(context.Background(), nil)
	if err != nil {
		return 0, err
	}
	id, err := record(tx{t, l}, h.lockPath)
	if err != nil {
		_ = t.Rollback()
		return 0, err
	}
	return id, t.Commit()
}

// alive reports whether the run whose lock file is at path still lives:
// its process holds the file's OS lock until it ends, however it ends.
// A file that is gone is a run that ended.
func (h *sqliteHalf) alive(_ int64, path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		return true // cannot tell: taken as alive, so nothing is taken from it
	}
	defer f.Close()
	busy, err := userfile.Lock(f)
	return busy || err != nil
}

// dropDeadLocks removes the lock files runs killed before their end left
// behind (a missing file is a run that ended, as an unlocked one is).
func (h *sqliteHalf) dropDeadLocks(l *Ledger) {
	rows, err := l.db.Query("SELECT lock FROM runs WHERE ended IS NULL AND id <> ?", l.run)
	if err != nil {
		return
	}
	var dead []string
	for rows.Next() {
		var lock string
		if rows.Scan(&lock) == nil && !h.alive(0, lock) {
			dead = append(dead, lock)
		}
	}
	rows.Close()
	for _, lock := range dead {
		_ = os.Remove(lock)
	}
}

// inPlace checks that the ledger at its path is still the file this run
// opened, and this run's lock file still its own: a ledger deleted or
// replaced (bnpl's state directory cleaned while the run goes on) is one
// the runs that start now do not share, and a lock file gone makes this
// run look ended to them, so they would take its payments. The run then
// stops before it claims or sends anything more. A private ledger (no
// state directory) is the run's alone.
func (h *sqliteHalf) inPlace() error {
	if h.tmpDir != "" || h.file == nil {
		return nil
	}
	now, err := os.Stat(h.path)
	if err != nil || !os.SameFile(now, h.file) {
		return &Error{Where: h.path, gone: true,
			Err: errors.New("it was deleted or replaced while this run went on, so runs that start now no longer see this one's claims")}
	}
	if h.lock != nil {
		mine, err1 := h.lock.Stat()
		there, err2 := os.Stat(h.lockPath)
		if err1 != nil || err2 != nil || !os.SameFile(mine, there) {
			return &Error{Where: h.path, gone: true,
				Err: fmt.Errorf("this run's lock file %s was deleted while the run went on, so other runs take it for ended", h.lockPath)}
		}
	}
	return nil
}

// end lets go of the run's lock file.
func (h *sqliteHalf) end() {
	if h.lock != nil {
		// Closed first: Windows removes no open file. The run has ended
		// either way, so another run finding the file unlocked is right.
		_ = h.lock.Close()
		_ = os.Remove(h.lockPath)
		h.lock = nil
	}
}

// removePrivate removes a private ledger's directory, once its database
// is closed.
func (h *sqliteHalf) removePrivate() {
	if h.tmpDir != "" {
		_ = os.RemoveAll(h.tmpDir)
	}
}
