package bulkproof

import (
	"database/sql"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/shopspring/decimal"
)

// The ledger of bulk moves is a run's only record: the tests watch it to
// choose their kill points and read it back to check what each run sent.

// ledgerAt names the ledger bnpl keeps for the state directory state
// (its XDG_STATE_HOME), read-only, or a PostgreSQL ledger's URL as it is.
type ledgerAt struct{ driver, dsn string }

func sqliteLedger(state string) ledgerAt {
	return ledgerAt{"sqlite", "file:" + filepath.Join(state, "bnpl", "bulk-ledger.db") + "?mode=ro&_pragma=busy_timeout(30000)"}
}

func pgLedger(url string) ledgerAt { return ledgerAt{"pgx", url} }

// query answers query (in ? placeholders) with args; nil while the ledger
// is not there yet (no file, no tables).
func (l ledgerAt) query(query string, args ...any) (*sql.DB, *sql.Rows) {
	if l.driver == "pgx" {
		for i := 1; strings.Contains(query, "?"); i++ {
			query = strings.Replace(query, "?", "$"+strconv.Itoa(i), 1)
		}
	}
	db, err := sql.Open(l.driver, l.dsn)
	if err != nil {
		return nil, nil
	}
	rows, err := db.Query(query, args...)
	if err != nil {
		db.Close()
		return nil, nil
	}
	return db, rows
}

// count answers a query of one count; 0 while the ledger is not there.
func (l ledgerAt) count(query string, args ...any) int {
	db, rows := l.query(query, args...)
	if rows == nil {
		return 0
	}
	defer db.Close()
	defer rows.Close()
	n := 0
	if rows.Next() {
		_ = rows.Scan(&n)
	}
	return n
}

// outcomes counts the moves of op ("" for every op) whose outcome the
// ledger records (a move sent again counts once): what a run has done.
func (l ledgerAt) outcomes(op string) int {
	return l.count("SELECT COUNT(*) FROM move_outcomes WHERE ? = '' OR op = ?", op, op)
}

// outcomesBy counts the outcomes the ledger records of the run that
// process pid is and that has not ended.
func (l ledgerAt) outcomesBy(pid int) int {
	return l.count(`SELECT COUNT(*) FROM move_outcomes o JOIN runs r ON r.id = o.run
		WHERE r.pid = ? AND r.ended IS NULL`, pid)
}

// waitResults waits until the ledger records n outcomes of the run c is,
// or the run ends (done).
func waitResults(l ledgerAt, c *exec.Cmd, n int, done <-chan int) (code int, finished bool) {
	return waitUntil(done, func() bool { return l.outcomesBy(c.Process.Pid) >= n })
}

// waitHolding waits until the run c is has settled a row and holds the
// claim of a payment it has settled nothing of yet: it is in the middle of
// a payment's turn (its read and its move, each after a wait on --rate),
// not passing from one payment to the next, where another run may slip
// in ahead of it. Or until the run ends (done).
func waitHolding(l ledgerAt, c *exec.Cmd, done <-chan int) (code int, finished bool) {
	return waitUntil(done, func() bool {
		return l.outcomesBy(c.Process.Pid) >= 1 && l.count(`SELECT COUNT(*) FROM claims c JOIN runs r ON r.id = c.run
			WHERE r.pid = ? AND r.ended IS NULL AND c.payment_id NOT IN
			(SELECT m.payment_id FROM move_outcomes o JOIN moves m ON m.id = o.id WHERE o.run = r.id)`, c.Process.Pid) >= 1
	})
}

// checkLedger checks that every move of op the ledger records was sent
// with the payment, reference_id and amount of a row of the report: a row
// re-sent under a fresh reference_id is exactly how money moves twice;
// and that each of the report's rows is such a move. It answers, per
// payment, the status after the last of its moves to settle: what the
// service must show now. (That row is not always the payment's last in
// the file: a row that failed on a 429 and was re-run with --retry-failed
// finishes after the rows that followed it.)
func checkLedger(t *testing.T, l ledgerAt, op string, report map[int]reportRow) (lastStatus map[string]string) {
	t.Helper()
	db, rows := l.query(`SELECT m.payment_id, m.reference_id, CASE WHEN m.sent_amount = '' THEN m.amount ELSE m.sent_amount END, COALESCE(o.outcome, ''), COALESCE(o.payment_status, ''), COALESCE(o.updated, '')
		FROM moves m LEFT JOIN move_outcomes o ON o.id = m.id WHERE m.op = ?`, op)
	if rows == nil {
		t.Fatalf("the ledger %s cannot be read", l.dsn)
	}
	defer db.Close()
	defer rows.Close()
	byRef := map[string]reportRow{}
	for _, row := range report {
		byRef[row.ReferenceID] = row
	}
	type settled struct {
		at     time.Time
		status string
	}
	last := map[string]settled{}
	moves := map[string]int{}
	for rows.Next() {
		var pid, ref, amount, outcome, status, updated string
		if err := rows.Scan(&pid, &ref, &amount, &outcome, &status, &updated); err != nil {
			t.Fatal(err)
		}
		moves[ref]++
		row, ok := byRef[ref]
		if !ok {
			t.Errorf("the ledger records %s %s %s, which no row of the report names", pid, ref, amount)
			continue
		}
		if pid != row.PaymentID || !sameAmount(amount, row.Amount) {
			t.Errorf("line %d was sent as %s %s %s, the report says %s %s %s", row.Line, pid, ref, amount, row.PaymentID, row.ReferenceID, row.Amount)
		}
		if outcome != "ok" && outcome != "reconciled" {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, updated)
		if err != nil {
			t.Fatal(err)
		}
		if at.After(last[pid].at) || last[pid].status == "" {
			last[pid] = settled{at, status}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, line := range slices.Sorted(maps.Keys(report)) {
		if n := moves[report[line].ReferenceID]; n != 1 {
			t.Errorf("line %d (%s) is %d moves in the ledger, want 1", line, report[line].ReferenceID, n)
		}
	}
	lastStatus = map[string]string{}
	for pid, s := range last {
		lastStatus[pid] = s.status
	}
	return lastStatus
}

// sameAmount: a and b are one amount (a decimal, or "full" as written).
func sameAmount(a, b string) bool {
	x, errA := decimal.NewFromString(a)
	y, errB := decimal.NewFromString(b)
	if errA != nil || errB != nil {
		return strings.EqualFold(a, b)
	}
	return x.Equal(y)
}
