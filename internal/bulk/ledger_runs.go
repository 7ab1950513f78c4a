package bulk

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/bnpl-cli/bnpl/internal/output"
)

// runInfo is what the ledger says of a run: enough for a person to find
// it.
type runInfo struct {
	ID      int64
	PID     int
	Op      Op
	Input   string
	Journal string
	Started time.Time
	lock    string
	// summarized: the run made its summary, which counted what it moved.
	summarized bool
}

// String names the run: "run 12 (process 4242, capture of caps.csv since
// 2026-11-25 14:50:02 UTC, journal alice.journal)".
func (r *runInfo) String() string {
	s := fmt.Sprintf("run %d (process %d, %s of %s since %s", r.ID, r.PID, r.Op, r.Input,
		output.FormatTime(r.Started, output.TimeUTC, time.Time{}))
	if r.Journal != "" {
		s += ", journal " + r.Journal
	}
	return s + ")"
}

// beginRun records this run and takes the OS lock that says it lives: a
// file of its own under the ledger's directory, locked before the run is
// recorded, so that no other run ever sees it recorded and not alive.
func (l *ledger) beginRun(op Op, input, journal string) error {
	dir := filepath.Join(filepath.Dir(l.path), "bulk-runs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	var token [12]byte
	_, _ = rand.Read(token[:])
	l.lockPath = filepath.Join(dir, "run-"+hex.EncodeToString(token[:])+".lock")
	f, err := os.OpenFile(l.lockPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	l.lock = f
	if busy, err := lockFile(f); err != nil || busy {
		return fmt.Errorf("ledger: locking %s: %v", l.lockPath, err)
	}
	if input == "" {
		input = "(rows)"
	}
	res, err := l.db.Exec("INSERT INTO runs (pid, lock, started, op, input, journal) VALUES (?, ?, ?, ?, ?, ?)",
		os.Getpid(), l.lockPath, l.stamp(), string(op), input, journal)
	if err == nil {
		l.run, err = res.LastInsertId()
	}
	if err != nil {
		return fmt.Errorf("ledger %s: %w", l.path, err)
	}
	l.prune()
	return nil
}

// prune drops, at most once a day, the rows of runs that ended a week ago
// (their reports are written), and the moves settled and the runs ended
// long ago (keepMoves): the ledger does not grow without end.
func (l *ledger) prune() {
	now := l.now().UTC()
	var last string
	_ = l.db.QueryRow("SELECT value FROM meta WHERE key = 'pruned'").Scan(&last)
	if t, err := time.Parse(time.RFC3339Nano, last); err == nil && now.Sub(t) < pruneEvery {
		return
	}
	if err := l.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('pruned', ?)", now.Format(time.RFC3339Nano)); err != nil {
		return
	}
	stamp := func(d time.Duration) string { return now.Add(-d).Format(time.RFC3339Nano) }
	_ = l.exec("DELETE FROM run_rows WHERE run IN (SELECT id FROM runs WHERE ended IS NOT NULL AND ended < ?)", stamp(keepRunRows))
	_ = l.exec("DELETE FROM moves WHERE updated < ? AND phase IN (?, ?, ?)", stamp(keepMoves), phaseConfirmed, phaseFailed, phasePlanned)
	_ = l.exec("DELETE FROM runs WHERE ended IS NOT NULL AND ended < ?", stamp(keepMoves))
	l.dropDeadLocks()
}

// dropDeadLocks removes the lock files runs killed before their end left
// behind (a missing file is a run that ended, as an unlocked one is).
func (l *ledger) dropDeadLocks() {
	rows, err := l.db.Query("SELECT lock FROM runs WHERE ended IS NULL AND id <> ?", l.run)
	if err != nil {
		return
	}
	var dead []string
	for rows.Next() {
		var lock string
		if rows.Scan(&lock) == nil && !alive(lock) {
			dead = append(dead, lock)
		}
	}
	rows.Close()
	for _, lock := range dead {
		_ = os.Remove(lock)
	}
}

// alive reports whether the run whose lock file is at path still lives:
// its process holds the file's OS lock until it ends, however it ends.
// A file that is gone is a run that ended.
func alive(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		return true // cannot tell: taken as alive, so nothing is taken from it
	}
	defer f.Close()
	busy, err := lockFile(f)
	return busy || err != nil
}

// runByID reads what the ledger says of run id; nil when it does not know
// it.
func (l *ledger) runByID(q interface {
	QueryRow(string, ...any) *sql.Row
}, id int64) *runInfo {
	r := &runInfo{ID: id}
	var op, started string
	err := q.QueryRow("SELECT pid, lock, op, input, journal, started, summarized FROM runs WHERE id = ?", id).
		Scan(&r.PID, &r.lock, &op, &r.Input, &r.Journal, &started, &r.summarized)
	if err != nil {
		return nil
	}
	r.Op = Op(op)
	r.Started, _ = time.Parse(time.RFC3339Nano, started)
	return r
}
