package output

import (
	"fmt"
	"testing"
)

// BenchmarkPlanTable fits a page of 100 disputes (the largest page a list
// renders at once) to a 100-column terminal: every step of the policy runs,
// the payment id is dropped and the reason and date come back.
func BenchmarkPlanTable(b *testing.B) {
	headers := []string{"ID", "STATUS", "REASON", "AMOUNT", "PAYMENT", "DAYS", "CREATED"}
	kinds := []Kind{KindID, KindStatus, KindText, KindMoney, KindLinkID, KindDaysLeft, KindTime}
	rows := make([][]string, 100)
	for i := range rows {
		rows[i] = []string{
			fmt.Sprintf("7f3c2b1a-9e8d-4c7b-a6f5-e4d3c2b1a%03d", i), "evidence_merchant", "product_issue",
			"1250.00 AED", fmt.Sprintf("5b1e8a3c-2f7d-4c1a-9e4b-7d2f1a6c3%03d", i), "2", "2026-11-22 09:28:33Z",
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		planTable(headers, rows, kinds, 100, true)
	}
}
