package bulk

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk/ledger/pgtest"
)

// A PostgreSQL ledger dropped and made again (its schema dropped, its
// database made again) after this state directory's runs recorded their
// moves in it stops the next run, and a dry run, before anything is read
// or sent, exit 12, naming --ledger-lost; --ledger-lost goes on, the
// earlier moves held before, and the runs after it know the new ledger.
// The mark names the database by its address, never its password, in a
// state directory it makes when no run made it before.
func TestAPostgresLedgerMadeAgainStops(t *testing.T) {
	srv, dbURL, dbName, f, rows, o := pgMarkCase(t)
	o.LedgerURL = dbURL
	o.LedgerDir = filepath.Join(t.TempDir(), "state") // not made yet: the mark makes it
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(o.LedgerDir); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("the state directory: %v %v", info, err)
	}
	mark := filepath.Join(o.LedgerDir, markFile)
	b, err := os.ReadFile(mark)
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(mark); info.Mode().Perm() != 0o600 ||
		strings.Contains(string(b), srv.Password) || strings.Contains(string(b), "bnpl@") ||
		!strings.Contains(string(b), " postgres://127.0.0.1:") || !strings.Contains(string(b), "/"+dbName+"?search_path=") {
		t.Fatalf("the mark (%v): %q", info.Mode(), b)
	}

	stops := func(what string) {
		t.Helper()
		sent, reads := len(f.callsOf("capture")), len(f.callsOf("get"))
		for range 2 { // the ledger made by the first refusal is refused too
			_, err := Run(context.Background(), f, rows, o)
			var gone *LedgerGoneError
			if !errors.As(err, &gone) || exitCode(err) != 12 || !gone.Shared || !strings.Contains(gone.Ledger, "/"+dbName+" (search_path ") ||
				!strings.Contains(err.Error(), "nothing was sent") || !strings.Contains(gone.Hint(), "--ledger-lost") ||
				strings.Contains(err.Error()+gone.Hint(), srv.Password) {
				t.Fatalf("%s: %v", what, err)
			}
			l, err := OpenPlanLedger(PlanLedger{URL: o.LedgerURL, Dir: o.LedgerDir, Op: OpCapture})
			if !errors.As(err, &gone) || exitCode(err) != 12 {
				if l != nil {
					l.Close()
				}
				t.Fatalf("%s, a dry run: %v", what, err)
			}
		}
		if len(f.callsOf("capture")) != sent || len(f.callsOf("get")) != reads {
			t.Fatalf("%s: the stopped runs sent or read", what)
		}
		o.LedgerLost = true
		sum, err := Run(context.Background(), f, rows, o)
		if err != nil || sum.HeldBefore != 2 || len(sum.Moved) != 0 || sum.HeldBeforeAmounts["AED"] != "80.00" {
			t.Fatalf("%s, --ledger-lost: %v %+v", what, err, sum)
		}
		o.LedgerLost = false
		if _, err := Run(context.Background(), f, rows, o); err != nil {
			t.Fatalf("%s, the new ledger, named since: %v", what, err)
		}
		if len(f.callsOf("capture")) != sent {
			t.Fatalf("%s: %d captures sent", what, len(f.callsOf("capture"))-sent)
		}
	}
	srv.Exec(t, dbName, "DROP SCHEMA public CASCADE", "CREATE SCHEMA public")
	stops("schema dropped")
	srv.Exec(t, "postgres", "DROP DATABASE "+dbName+" WITH (FORCE)", "CREATE DATABASE "+dbName)
	stops("database made again")
}

// The state directory names its SQLite ledger and each PostgreSQL ledger
// (by database and search_path) apart: a mark file of the old form (the
// SQLite ledger's ID alone) is kept as the SQLite ledger's, and a ledger
// at a place the state directory never used is not taken for a lost one.
func TestTheMarkNamesEachLedgerByItsPlace(t *testing.T) {
	srv, dbURL, dbName, f, rows, o := pgMarkCase(t)
	if _, err := Run(context.Background(), f, rows, o); err != nil { // the old form: one ID
		t.Fatal(err)
	}
	mark := filepath.Join(o.LedgerDir, markFile)
	old, err := os.ReadFile(mark)
	if err != nil || strings.Count(string(old), "\n") != 1 || strings.Contains(string(old), " ") {
		t.Fatalf("the SQLite ledger's mark: %q %v", old, err)
	}
	srv.Exec(t, dbName, "CREATE SCHEMA team")
	pg, team := o, o
	pg.LedgerURL = dbURL
	team.LedgerURL = dbURL + "&search_path=team"
	for _, run := range []Options{pg, team, o, pg, team} {
		if _, err := Run(context.Background(), f, rows, run); err != nil {
			t.Fatalf("%s: %v", run.LedgerURL, err)
		}
	}
	b, _ := os.ReadFile(mark)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || lines[0]+"\n" != string(old) || !strings.Contains(lines[2], "search_path=team") {
		t.Fatalf("the mark: %q", b)
	}

	srv.Exec(t, dbName, "DROP SCHEMA team CASCADE", "CREATE SCHEMA team")
	_, err = Run(context.Background(), f, rows, team)
	var gone *LedgerGoneError
	if !errors.As(err, &gone) || !strings.Contains(gone.Ledger, "(search_path team)") {
		t.Fatalf("schema team made again: %v", err)
	}
	for _, run := range []Options{pg, o} {
		if _, err := Run(context.Background(), f, rows, run); err != nil {
			t.Fatalf("%q, beside it: %v", run.LedgerURL, err)
		}
	}
	// The SQLite ledger gone still stops its runs.
	if err := os.Remove(filepath.Join(o.LedgerDir, "bulk-ledger.db")); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), f, rows, o); !errors.As(err, &gone) || gone.Shared {
		t.Fatalf("the SQLite ledger gone: %v", err)
	}
}

// databaseOf is the database a postgres:// URL names.
func databaseOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// pgMarkCase is what the mark's tests start from: a PostgreSQL database
// of their own (its URL and name), a fake service with two authorized
// payments, rows capturing 40.00 of each, and a capture run's options.
func pgMarkCase(t *testing.T) (srv *pgtest.Server, dbURL, dbName string, f *fakeClient, rows []Row, o Options) {
	srv = pgtest.Get(t)
	dbURL = srv.NewDatabase(t)
	f = newFake(t)
	rows = captureRows(addPayments(f, 2, "AED", "100", api.StatusAuthorized), "40")
	return srv, dbURL, databaseOf(t, dbURL), f, rows, testOptions(t, OpCapture)
}
