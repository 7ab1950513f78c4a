package ledger

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger/pgtest"
)

// openErr is the *Error Open gives for the ledger at u.
func openErr(t *testing.T, u string) *Error {
	t.Helper()
	l, err := Open(Options{URL: u, Scope: "scope"})
	if err == nil {
		l.Close()
		t.Fatalf("%s opened", u)
	}
	var le *Error
	if !errors.As(err, &le) || le.ExitCode() != 12 {
		t.Fatalf("not a ledger error: %v", err)
	}
	return le
}

// A PostgreSQL ledger that cannot be used stops the run before anything
// is sent, exit 12, naming the host and what to do, never the password:
// a wrong password, a server that does not answer, a user who may not
// make the tables, a database that is not there.
func TestAPostgresLedgerThatCannotBeUsedSaysWhatToDo(t *testing.T) {
	srv := pgtest.Get(t)
	admin := srv.NewDatabase(t)
	name := strings.TrimPrefix(mustURL(t, admin).Path, "/")
	t.Setenv("PGPASSWORD", "")
	t.Setenv("PGPASSFILE", t.TempDir()+"/none")

	wrong := fmt.Sprintf("postgres://bnpl:not-the-%s@127.0.0.1:%d/%s?sslmode=disable", "s3cret-word", srv.Port, name)
	le := openErr(t, wrong)
	msg := le.Error() + "\n" + le.Hint()
	if !strings.Contains(msg, "127.0.0.1:") || !strings.Contains(le.Hint(), "PGPASSWORD") || strings.Contains(msg, "s3cret-word") {
		t.Errorf("a wrong password:\n%s", msg)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	down := fmt.Sprintf("postgres://bnpl:pw-never-shown@127.0.0.1:%d/x?sslmode=disable&connect_timeout=2", port)
	le = openErr(t, down)
	msg = le.Error() + "\n" + le.Hint()
	if !strings.Contains(msg, fmt.Sprintf("127.0.0.1:%d", port)) || !strings.Contains(le.Hint(), "PostgreSQL runs at") || strings.Contains(msg, "pw-never-shown") {
		t.Errorf("a server that does not answer:\n%s", msg)
	}

	// Roles are the server's, not the database's: one per test database.
	role := "clerk_" + name
	srv.Exec(t, name, "CREATE ROLE "+role+" LOGIN PASSWORD 'clerk-pw'", "REVOKE CREATE ON SCHEMA public FROM PUBLIC")
	clerk := fmt.Sprintf("postgres://%s:clerk-pw@127.0.0.1:%d/%s?sslmode=disable", role, srv.Port, name)
	le = openErr(t, clerk)
	if !strings.Contains(le.Hint(), "GRANT USAGE, CREATE ON SCHEMA public TO "+role) || strings.Contains(le.Error()+le.Hint(), "clerk-pw") {
		t.Errorf("a user who may not make the tables:\n%s\n%s", le, le.Hint())
	}
	// Once the owner made them and granted their use, the clerk's runs go.
	owner, err := Open(Options{URL: admin, Scope: "scope"})
	if err != nil {
		t.Fatal(err)
	}
	owner.Close()
	srv.Exec(t, name, "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "+role,
		"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO "+role)
	openRun(t, Options{URL: clerk, Scope: "scope"})

	missing := strings.Replace(admin, "/"+name+"?", "/no_such_db?", 1)
	if le := openErr(t, missing); !strings.Contains(le.Hint(), "createdb") {
		t.Errorf("a database that is not there:\n%s\n%s", le, le.Hint())
	}
}

// A ledger whose schema a later bnpl made is refused, and left as it is.
func TestALedgerOfANewerSchemaIsRefused(t *testing.T) {
	eachHalfURL(t, func(t *testing.T, o Options) {
		l, err := Open(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.exec("INSERT INTO ledger_schema (version, applied) VALUES (?, 'later')", SchemaVersion+1); err != nil {
			t.Fatal(err)
		}
		l.Close()
		_, err = Open(o)
		var le *Error
		if !errors.As(err, &le) || !le.newer || !strings.Contains(le.Error(), fmt.Sprintf("version %d", SchemaVersion+1)) ||
			!strings.Contains(le.Hint(), "upgrade bnpl") {
			t.Fatalf("a newer ledger: %v", err)
		}
	})
}

// A run whose session the database lost (a restart, a cut connection)
// claims and sends nothing more: runs on other machines take it for
// ended. Its moves are counted by the run that resumes them.
func TestARunThatLostItsSessionStops(t *testing.T) {
	srv := pgtest.Get(t)
	u := srv.NewDatabase(t)
	l := openRun(t, Options{URL: u, Scope: "scope"})
	other := openRun(t, Options{URL: u, Scope: "scope"})
	if _, _, err := l.tryClaim(pidA, true); err != nil {
		t.Fatal(err)
	}
	die(t, l)
	var le *Error
	if err := l.MarkSent(MoveID("scope", "k"), "R1", "1.00"); !errors.As(err, &le) || !le.Gone() || !strings.Contains(le.Hint(), "run the same command again") {
		t.Fatalf("a send after the session was lost: %v", err)
	}
	if holder, _, err := other.tryClaim(pidA, true); err != nil || holder != nil {
		t.Fatalf("the claim of a run whose session is gone: holder %v, err %v", holder, err)
	}
}

// eachHalfURL runs fn with Options of a fresh SQLite and a fresh
// PostgreSQL ledger.
func eachHalfURL(t *testing.T, fn func(t *testing.T, o Options)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, Options{Dir: t.TempDir(), Scope: "scope"}) })
	t.Run("postgres", func(t *testing.T) { fn(t, Options{URL: pgtest.Get(t).NewDatabase(t), Scope: "scope"}) })
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
