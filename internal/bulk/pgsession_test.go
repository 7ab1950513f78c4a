package bulk

import (
	"context"
	"database/sql"
	"os"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk/ledger/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Done()
	os.Exit(code)
}

// A run whose PostgreSQL session is lost after a row's move was sent and
// answered, before its answer is recorded, stops (exit 12); its report
// and summary never call that row not sent: the service holds its move.
// It is of unknown outcome there, and the next run counts its money.
func TestARowSentBeforeTheSessionWasLostIsNotNotSent(t *testing.T) {
	srv := pgtest.Get(t)
	url := srv.NewDatabase(t)
	f := newFake(t)
	ids := addPayments(f, 1, "AED", "100", api.StatusAuthorized)
	rows := captureRows(ids, "30")
	o := testOptions(t, OpCapture)
	o.LedgerURL = url
	f.afterCommit = func(ctx context.Context, c call) error {
		// The run's session ends (a database restart, a cut connection)
		// while the move's answer is on its way.
		db, err := sql.Open("pgx", url)
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = db.Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'bnpl' AND pid <> pg_backend_pid()")
		if err != nil {
			t.Error(err)
		}
		return nil
	}
	sum, err := Run(context.Background(), f, rows, o)
	if exitCode(err) != 12 {
		t.Fatalf("session lost: %v", err)
	}
	if sum.NotSent != 0 || len(sum.NotSentAmounts) != 0 || sum.Unknown != 1 {
		t.Fatalf("session lost: %+v", sum)
	}
	rep := readReport(t, o.ReportPath)
	if rep[0]["outcome"] != string(OutcomeUnknown) {
		t.Fatalf("report %v", rep[0])
	}
	f.afterCommit = nil
	sum, err = Run(context.Background(), f, rows, o)
	if err != nil || sum.MovedByEndedRuns["AED"] != "30.00" || len(sum.Moved) != 0 {
		t.Fatalf("the next run: %v %+v", err, sum)
	}
	f.wantSent(t, "capture", 1)
}
