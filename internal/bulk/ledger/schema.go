package ledger

import (
	"errors"
	"fmt"
	"strings"
)

// migrations make and upgrade the ledger's schema, one version each, in
// order; a ledger records the versions applied in ledger_schema. The
// statements are the same for both halves but for what {{id}} (a run's
// id, given by the database) is in each. A migration is only ever added,
// never changed: ledgers made by earlier versions of bnpl run the ones
// they lack.
var migrations = [][]string{
	// 1: the ledger as bnpl first made it (a ledger made before versions
	// were recorded has these tables already).
	{
		`CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
)`,
		`CREATE TABLE IF NOT EXISTS runs (
	id      {{id}},
	pid     BIGINT NOT NULL,
	lock    TEXT NOT NULL,
	started TEXT NOT NULL,
	ended   TEXT,
	op      TEXT NOT NULL,
	input   TEXT NOT NULL,
	journal TEXT NOT NULL DEFAULT '',
	summarized INTEGER NOT NULL DEFAULT 0
)`,
		`CREATE TABLE IF NOT EXISTS moves (
	id           TEXT PRIMARY KEY,
	scope        TEXT NOT NULL,
	payment_id   TEXT NOT NULL,
	op           TEXT NOT NULL,
	amount       TEXT NOT NULL,
	reference_id TEXT NOT NULL,
	phase        TEXT NOT NULL,
	run          BIGINT NOT NULL,
	moved_by     BIGINT,
	sent_amount  TEXT NOT NULL DEFAULT '',
	currency     TEXT NOT NULL DEFAULT '',
	input        TEXT NOT NULL DEFAULT '',
	line         BIGINT NOT NULL DEFAULT 0,
	adopted_by   BIGINT,
	updated      TEXT NOT NULL
)`,
		`CREATE INDEX IF NOT EXISTS moves_of_payment ON moves (scope, payment_id, op, reference_id)`,
		`CREATE TABLE IF NOT EXISTS claims (
	scope      TEXT NOT NULL,
	payment_id TEXT NOT NULL,
	run        BIGINT NOT NULL,
	last_run   BIGINT NOT NULL DEFAULT 0,
	since      TEXT NOT NULL,
	PRIMARY KEY (scope, payment_id)
)`,
		`CREATE TABLE IF NOT EXISTS run_rows (
	run            BIGINT NOT NULL,
	seq            BIGINT NOT NULL,
	line           BIGINT NOT NULL,
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
	by_run         BIGINT NOT NULL DEFAULT 0,
	adopted        INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (run, seq)
)`,
		`CREATE INDEX IF NOT EXISTS run_rows_of_payment ON run_rows (run, payment_id)`,
	},
	// 2: the ledger is a run's only record: what it knows of its input
	// (a sketch of its rows' identities, so a run of the same input, its
	// copy or an edit of it, is found whatever its path), the outcome of
	// each move as the run that settled it recorded it (what a resumed run
	// takes up), and the journals imported from earlier versions of bnpl.
	{
		`ALTER TABLE runs ADD COLUMN input_sketch TEXT NOT NULL DEFAULT ''`,
		`CREATE TABLE IF NOT EXISTS move_outcomes (
	id             TEXT PRIMARY KEY,
	run            BIGINT NOT NULL,
	op             TEXT NOT NULL,
	reference_id   TEXT NOT NULL DEFAULT '',
	amount         TEXT NOT NULL DEFAULT '',
	outcome        TEXT NOT NULL,
	http_status    INTEGER NOT NULL DEFAULT 0,
	error_type     TEXT NOT NULL DEFAULT '',
	message        TEXT NOT NULL DEFAULT '',
	payment_status TEXT NOT NULL DEFAULT '',
	sent_ref       TEXT NOT NULL DEFAULT '',
	sent_amount    TEXT NOT NULL DEFAULT '',
	journal        TEXT NOT NULL DEFAULT '',
	updated        TEXT NOT NULL
)`,
		`CREATE TABLE IF NOT EXISTS imported_journals (
	digest   TEXT PRIMARY KEY,
	path     TEXT NOT NULL,
	run      BIGINT NOT NULL,
	records  BIGINT NOT NULL,
	imported TEXT NOT NULL
)`,
	},
}

// SchemaVersion is the version of the schema this bnpl makes and reads.
var SchemaVersion = len(migrations)

// errNewer is a ledger whose schema a later bnpl made.
type errNewer struct{ have, know int }

func (e *errNewer) Error() string {
	return fmt.Sprintf("its schema is version %d, made by a later bnpl; this one knows versions up to %d", e.have, e.know)
}

// migrate brings the ledger's schema up to SchemaVersion, in one
// transaction taken in turn with every writer; a ledger of a newer schema
// is refused, and left as it is. idType is what {{id}} is in the half.
func (l *Ledger) migrate(idType string) error {
	return l.inTx(func(t tx) error {
		// Looked up first: PostgreSQL asks for the right to create even
		// where the table is there, and a user may have the right to use
		// the ledger's tables without it.
		exists := "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'ledger_schema'"
		if _, pg := l.half.(*pgHalf); pg {
			exists = "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'ledger_schema'"
		}
		var n, have int
		if err := t.QueryRow(exists).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			if _, err := t.Exec(`CREATE TABLE ledger_schema (
	version INTEGER PRIMARY KEY,
	applied TEXT NOT NULL
)`); err != nil {
				return err
			}
		}
		if err := t.QueryRow("SELECT COALESCE(MAX(version), 0) FROM ledger_schema").Scan(&have); err != nil {
			return err
		}
		if have > SchemaVersion {
			return &errNewer{have: have, know: SchemaVersion}
		}
		for v := have + 1; v <= SchemaVersion; v++ {
			for _, stmt := range migrations[v-1] {
				if _, err := t.Exec(strings.ReplaceAll(stmt, "{{id}}", idType)); err != nil {
					return fmt.Errorf("making its schema version %d: %w", v, err)
				}
			}
			if _, err := t.Exec("INSERT INTO ledger_schema (version, applied) VALUES (?, ?)", v, l.stamp()); err != nil {
				return err
			}
		}
		return nil
	})
}

// isNewer reports whether err is a ledger of a newer schema.
func isNewer(err error) bool {
	var n *errNewer
	return errors.As(err, &n)
}
