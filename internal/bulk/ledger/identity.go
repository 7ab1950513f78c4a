package ledger

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
)

// ID is the ledger's own name, made at random the first time it is asked
// for and kept in the ledger: a ledger made again in the place of one
// deleted or moved aside has another. A journal records the ledger its
// runs were recorded in, so that a run can tell that ledger gone.
func (l *Ledger) ID() (string, error) {
	var token [16]byte
	_, _ = rand.Read(token[:])
	var id string
	err := l.inTx(func(t tx) error {
		if _, err := t.Exec("INSERT INTO meta (key, value) VALUES ('ledger_id', ?) ON CONFLICT (key) DO NOTHING",
			hex.EncodeToString(token[:])); err != nil {
			return err
		}
		return t.QueryRow("SELECT value FROM meta WHERE key = 'ledger_id'").Scan(&id)
	})
	return id, err
}

// Place is where the ledger is, as a journal records it: a PostgreSQL
// ledger's database, the same from every machine, or this machine's name
// and the SQLite ledger's file. A private ledger, removed with its run,
// has none.
func (l *Ledger) Place() string {
	switch h := l.half.(type) {
	case *pgHalf:
		return h.where()
	case *sqliteHalf:
		if h.tmpDir != "" {
			return ""
		}
		return placeOf(h.path)
	}
	return ""
}

// SQLitePath is the SQLite ledger's file in dir, bnpl's state directory.
func SQLitePath(dir string) string { return filepath.Join(dir, FileName) }

// SQLitePlace is Place of the SQLite ledger in dir, whether it is there or
// not: a dry run names the place of a ledger it does not make.
func SQLitePlace(dir string) string { return placeOf(SQLitePath(dir)) }

func placeOf(path string) string {
	host, _ := os.Hostname()
	return host + ":" + path
}
