package wire

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// Captured and Refunded answer what adding the amounts one by one to
// decimal.Zero answers, digit for digit (String) and exponent, on the
// fast path and off it: mixed places, positive exponents, coefficients
// past int64, totals that overflow it.
func TestSumsAreDecimalAdditions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	big := decimal.RequireFromString("123456789012345678901234567890.12")
	near := decimal.New(1<<62, -2)
	lists := [][]decimal.Decimal{
		nil,
		{decimal.RequireFromString("0.01")},
		{decimal.RequireFromString("0.01"), decimal.RequireFromString("0.10"), decimal.RequireFromString("100.00")},
		{decimal.RequireFromString("0.01"), decimal.RequireFromString("1.5")},
		{decimal.New(5, 2), decimal.New(3, 2)},
		{decimal.New(-7, -3), decimal.New(9, -3)},
		{big, decimal.RequireFromString("0.01")},
		{near, near, near},
		{decimal.New(-(1 << 62), -2), decimal.New(-(1 << 62), -2), decimal.New(-(1 << 62), -2)},
		{{}, decimal.New(1, 0)},
	}
	for range 200 {
		var l []decimal.Decimal
		exp := -int32(r.IntN(4))
		for range r.IntN(120) {
			e := exp
			if r.IntN(20) == 0 {
				e = -int32(r.IntN(4))
			}
			l = append(l, decimal.New(r.Int64N(1e12)-1e6, e))
		}
		lists = append(lists, l)
	}
	for i, amounts := range lists {
		p := &Payment{}
		want := decimal.Zero
		for _, a := range amounts {
			p.Captures = append(p.Captures, Capture{Amount: a})
			p.Refunds = append(p.Refunds, Refund{Amount: a})
			want = want.Add(a)
		}
		for what, got := range map[string]decimal.Decimal{"captured": p.Captured(), "refunded": p.Refunded()} {
			if !got.Equal(want) || got.String() != want.String() || got.Exponent() != want.Exponent() {
				t.Errorf("list %d: %s %s (exp %d), want %s (exp %d)", i, what, got, got.Exponent(), want, want.Exponent())
			}
		}
	}
}
