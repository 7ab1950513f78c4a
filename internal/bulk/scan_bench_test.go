package bulk

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// benchInput is rows of 0.01 over payments, n rows in all.
func benchInput(f *fakeClient, payments, n int) ([]byte, *PaymentSet) {
	ids := make([]string, payments)
	for i := range ids {
		ids[i] = f.add("AED", "100000.00", api.StatusAuthorized)
	}
	var b bytes.Buffer
	b.WriteString("payment_id,amount,reference_id\n")
	set := &PaymentSet{}
	for i := range n {
		fmt.Fprintf(&b, "%s,0.01,R%d\n", ids[i%payments], i)
		set.Add(Row{PaymentID: ids[i%payments], Op: OpCapture})
	}
	return b.Bytes(), set
}

// BenchmarkScanRows reads and validates rows (one pass of a dry run).
func BenchmarkScanRows(b *testing.B) {
	in, _ := benchInput(newFake(nil), 2500, 100_000)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ScanRows(bytes.NewReader(in), "in.csv", OpCapture, ReadOptions{}, func(Row) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanRows checks rows against payments already read (the second
// pass of a dry run).
func BenchmarkPlanRows(b *testing.B) {
	f := newFake(nil)
	in, set := benchInput(f, 2500, 100_000)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		pl, err := NewPlanner(context.Background(), f.GetPayment, nil, set, 8, time.Now(), "", nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ScanRows(bytes.NewReader(in), "in.csv", OpCapture, ReadOptions{}, pl.Check); err != nil {
			b.Fatal(err)
		}
	}
}
