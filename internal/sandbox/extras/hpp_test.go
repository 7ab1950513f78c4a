package extras

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestSchedule(t *testing.T) {
	for _, c := range []struct {
		amount, currency string
		want             []string
	}{
		{"100.00", "AED", []string{"25.00", "25.00", "25.00", "25.00"}},
		{"100.01", "AED", []string{"25.01", "25.00", "25.00", "25.00"}},
		{"10.00", "SAR", []string{"2.50", "2.50", "2.50", "2.50"}},
		{"0.07", "AED", []string{"0.04", "0.01", "0.01", "0.01"}},
		{"10.001", "KWD", []string{"2.501", "2.500", "2.500", "2.500"}},
	} {
		plan := Schedule(decimal.RequireFromString(c.amount), c.currency, testStart)
		sum := decimal.Zero
		for i, in := range plan {
			if in.Amount != c.want[i] {
				t.Fatalf("%s %s: installment %d = %s, want %s", c.amount, c.currency, i, in.Amount, c.want[i])
			}
			sum = sum.Add(decimal.RequireFromString(in.Amount))
		}
		if !sum.Equal(decimal.RequireFromString(c.amount)) {
			t.Fatalf("%s: installments add up to %s", c.amount, sum)
		}
		if plan[0].Due != "Today" || plan[3].Due != "10 Jun 2026" {
			t.Fatalf("dates %+v", plan)
		}
	}
}

// testStart is the time the tests start from.
var testStart = time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
