package store

import (
	"context"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/shopspring/decimal"
)

// The columns payments_listing indexes follow every move, whether it
// wrote them (a move that changed where the lists find the payment) or
// only the record's parts (one that did not): after each, they are what
// the stored record says. A column another writer left wrong is put
// right by the next move, even one that changes none of them.
func TestListingColumnsFollowEveryMove(t *testing.T) {
	st, id := openTestState(t)
	ctx := context.Background()
	amount := decimal.RequireFromString
	n := 0
	move := func(what string, change func(p *wire.Payment)) {
		t.Helper()
		n++
		if _, err := st.Move(ctx, id, nil, func(r *Record, _ time.Time) (string, error) {
			change(&r.Payment)
			return "changed", nil
		}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var got listing
		var doc []byte
		if err := st.DB.QueryRow(`SELECT status, has_captures, has_refunds, fully_refunded, `+PaymentDoc+` FROM payments WHERE id = ?`, id).
			Scan(&got.status, &got.captures, &got.refunds, &got.fullyRefunded, &doc); err != nil {
			t.Fatal(err)
		}
		rec, err := DecodeRecord(doc, "id", id)
		if err != nil {
			t.Fatal(err)
		}
		if want := listingOf(&rec.Payment); got != want {
			t.Fatalf("after %s: columns %+v, the record says %+v", what, got, want)
		}
	}
	capture := func(a string) func(p *wire.Payment) {
		return func(p *wire.Payment) {
			p.Captures = append(p.Captures, wire.Capture{ID: "c" + a + time.Now().String(), Amount: amount(a)})
		}
	}
	refund := func(a string) func(p *wire.Payment) {
		return func(p *wire.Payment) {
			p.Refunds = append(p.Refunds, wire.Refund{ID: "r" + a + time.Now().String(), Amount: amount(a)})
		}
	}
	move("the first capture", capture("4.00"))
	move("a capture that changes no column", capture("1.00"))
	move("the first refund", refund("2.00"))
	move("a refund that changes no column", refund("1.00"))
	move("the refund that makes it whole", refund("2.00"))
	move("a capture after that", capture("1.00"))
	move("a status alone", func(p *wire.Payment) { p.Status = wire.StatusClosed })
	move("a move of nothing listed", func(p *wire.Payment) { p.Description = "again" })
	for _, wrong := range []string{`status = 'CLOSED'`, `has_captures = 0`, `has_refunds = 0`, `fully_refunded = 1`} {
		if _, err := st.DB.Exec(`UPDATE payments SET `+wrong+` WHERE id = ?`, id); err != nil {
			t.Fatal(err)
		}
		move("a move after another writer set "+wrong, func(p *wire.Payment) { p.Description = wrong })
	}
	if n < 12 {
		t.Fatalf("%d moves", n)
	}
}
