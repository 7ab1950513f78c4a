package bulk

import (
	"context"
	"fmt"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// BenchmarkRunRoundRobin is a real run's own cost, the service a fake in
// memory: 20,000 captures of 0.01 over 500 payments, the payments
// interleaved through the file (as bench/bulkrun.sh's large file), with a
// journal, a report and the ledger.
func BenchmarkRunRoundRobin(b *testing.B) {
	for range b.N {
		b.StopTimer()
		f := newFake(b)
		ids := addPayments(f, 500, "AED", "1000", api.StatusAuthorized)
		rows := make([]Row, 20000)
		for i := range rows {
			rows[i] = Row{Line: i + 2, Op: OpCapture, PaymentID: ids[i%len(ids)], Amount: "0.01", ReferenceID: fmt.Sprintf("R%d", i)}
		}
		o := Options{Op: OpCapture, Concurrency: 8, Classify: classifyFake, LedgerDir: b.TempDir(),
			JournalPath: b.TempDir() + "/j", ReportPath: b.TempDir() + "/r.csv", InputName: "input.csv"}
		b.StartTimer()
		if _, err := Run(context.Background(), f, rows, o); err != nil {
			b.Fatal(err)
		}
	}
}
