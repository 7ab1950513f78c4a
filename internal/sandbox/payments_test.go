package sandbox

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

const badID = "not-a-uuid"
const unknownID = "3fa85f64-5717-4562-b3fc-2c963f66afa6"

func TestGetPaymentErrors(t *testing.T) {
	e := newEnv(t, Options{})
	wantError(t, e.do("ae", "GET", "/api/v2/payments/"+badID, aeTest, nil), 400, "bad_data", "invalid payment id")
	wantError(t, e.do("ae", "GET", "/api/v2/payments/"+unknownID, aeTest, nil), 404, "not_found", "no such payment")
	wantError(t, e.do("ae", "GET", "/api/v2/payments/"+unknownID, "", nil), 401, "not_authorized", "missing Bearer scheme")
}

func TestCaptures(t *testing.T) {
	e := newEnv(t, Options{})
	capture := func(id string, body any) resp {
		return e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, body)
	}
	id := e.authorized("100.00")

	t.Run("request errors", func(t *testing.T) {
		wantError(t, capture(badID, map[string]any{"amount": "1"}), 400, "bad_data", "invalid payment id")
		wantError(t, capture(unknownID, map[string]any{"amount": "1"}), 404, "not_found", "no such payment")
		wantError(t, capture(id, ""), 400, "bad_data", "EOF")
		wantError(t, capture(id, `{"amount": "1`), 400, "bad_data", "EOF")
		wantError(t, capture(id, map[string]any{"amount": "-1.00"}), 400, "bad_data", "Errors: [invalid_value($.amount)...")
		wantError(t, capture(id, map[string]any{"amount": "0"}), 400, "bad_data", "Errors: [invalid_value($.amount)...")
		wantError(t, capture(id, map[string]any{"amount": "1.001"}), 400, "bad_data", "Errors: [invalid_value($.amount): money supports only 2 decimal places, but got: 3]")
		wantError(t, capture(id, map[string]any{"amount": "abc"}), 400, "bad_data", "Errors: [invalid_value($.amount)...")
		wantError(t, capture(id, map[string]any{"reference_id": "x"}), 400, "bad_data", "Errors: [invalid_value($.amount)...")
		wantError(t, capture(id, map[string]any{"amount": "100.01"}), 400, "bad_data", "could not capture: could not capture more than not captured yet: ...")
	})
	t.Run("partial then full closes", func(t *testing.T) {
		r := capture(id, map[string]any{"amount": "40.00", "reference_id": "c1", "tax_amount": "1.00", "items": []any{map[string]any{"title": "Shoes", "quantity": 1, "unit_price": "40.00", "category": "C"}}})
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		p := r.payment(t)
		if p.Status != wire.StatusAuthorized || len(p.Captures) != 1 || p.Captures[0].ReferenceID != "c1" || p.Captures[0].TaxAmount == nil {
			t.Fatalf("after partial: %+v", p)
		}
		wantError(t, capture(id, map[string]any{"amount": "60.01"}), 400, "bad_data", "could not capture: could not capture more than not captured yet: 60.01 > 60.00")
		// A retry with the same reference_id adds nothing.
		again := capture(id, map[string]any{"amount": "40.00", "reference_id": "c1"})
		if again.status != 200 || len(again.payment(t).Captures) != 1 {
			t.Fatalf("idempotent retry: %d %s", again.status, again.body)
		}
		last := capture(id, map[string]any{"amount": "60", "reference_id": "c2"})
		p = last.payment(t)
		if p.Status != wire.StatusClosed || len(p.Captures) != 2 || !p.Captured().Equal(p.Amount) {
			t.Fatalf("after full: %+v", p)
		}
		wantError(t, capture(id, map[string]any{"amount": "60"}), 400, "bad_data", "already closed")
		if r := capture(id, map[string]any{"amount": "60", "reference_id": "c2"}); r.status != 200 {
			t.Fatalf("retry of the closing capture: %d %s", r.status, r.body)
		}
	})
	t.Run("no reference id reads as empty string", func(t *testing.T) {
		id := e.authorized("10.00")
		p := capture(id, map[string]any{"amount": "1.00"}).payment(t)
		if p.Captures[0].ReferenceID != "" {
			t.Fatal("reference_id")
		}
		raw := string(capture(id, map[string]any{"amount": "1.00"}).body)
		if !contains(raw, `"reference_id":""`) {
			t.Fatalf("reference_id should be present and empty: %s", raw)
		}
	})
	t.Run("not authorized", func(t *testing.T) {
		s := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest)
		wantError(t, capture(s.Payment.ID, map[string]any{"amount": "1"}), 400, "bad_data", "could not capture not authorized payments")
		if _, err := e.sb.Reject(context.Background(), s.ID); err != nil {
			t.Fatal(err)
		}
		wantError(t, capture(s.Payment.ID, map[string]any{"amount": "1"}), 400, "bad_data", "could not capture not authorized payments")
	})
	t.Run("after close", func(t *testing.T) {
		id := e.authorized("10.00")
		if r := e.do("ae", "POST", "/api/v2/payments/"+id+"/close", aeTest, nil); r.status != 200 {
			t.Fatal(r.status)
		}
		wantError(t, capture(id, map[string]any{"amount": "1"}), 400, "bad_data", "already closed")
	})
	t.Run("KWD three places", func(t *testing.T) {
		s := e.createSession(checkoutBody("kw-sandbox", "KWD", "10.500"), kwTest)
		if _, err := e.sb.Approve(context.Background(), s.Payment.ID); err != nil {
			t.Fatal(err)
		}
		r := e.do("ae", "POST", "/api/v2/payments/"+s.Payment.ID+"/captures", kwTest, map[string]any{"amount": "0.125"})
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		wantError(t, e.do("ae", "POST", "/api/v2/payments/"+s.Payment.ID+"/captures", kwTest, map[string]any{"amount": "0.1255"}),
			400, "bad_data", "Errors: [invalid_value($.amount): money supports only 3 decimal places, but got: 4]")
	})
}

func contains(s, sub string) bool { return len(s) >= len(sub) && (s == sub || indexOf(s, sub) >= 0) }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestRefunds(t *testing.T) {
	e := newEnv(t, Options{})
	refund := func(id string, body any) resp {
		return e.do("ae", "POST", "/api/v2/payments/"+id+"/refunds", aeTest, body)
	}
	id := e.authorized("100.00")
	wantError(t, refund(id, map[string]any{"amount": "1"}), 400, "bad_data", "can not refund payment that has no captures and not closed")
	e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": "30.00"})
	wantError(t, refund(id, map[string]any{"amount": "1"}), 400, "bad_data", "can not refund payment that has no captures and not closed")
	if r := e.do("ae", "POST", "/api/v2/payments/"+id+"/close", aeTest, nil); r.status != 200 || r.payment(t).Status != wire.StatusClosed {
		t.Fatalf("close: %d %s", r.status, r.body)
	}

	wantError(t, refund(badID, map[string]any{"amount": "1"}), 400, "bad_data", "invalid payment id")
	wantError(t, refund(unknownID, map[string]any{"amount": "1"}), 404, "not_found", "no such payment")
	wantError(t, refund(id, map[string]any{"amount": "NaN"}), 400, "bad_data", "error decoding string 'NaN': can't convert NaN to decimal")
	wantFieldError(t, refund(id, map[string]any{"amount": "1.00001"}), "$.amount", "invalid_value", "money supports only 2 decimal places, but got: 5")
	wantError(t, refund(id, map[string]any{"amount": "0"}), 400, "bad_data", "refund amount is less then or equals zero")
	wantError(t, refund(id, map[string]any{"amount": "-3"}), 400, "bad_data", "refund amount is less then or equals zero")
	wantError(t, refund(id, map[string]any{"amount": "30.01"}), 400, "bad_data", "refund amount should be less or equal than billed amount")
	wantError(t, refund(id, ""), 400, "bad_data", "EOF")

	r := refund(id, map[string]any{"amount": "10.00", "reference_id": "r1", "reason": "size"})
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	p := r.payment(t)
	if len(p.Refunds) != 1 || p.Refunds[0].Reason != "size" || p.Status != wire.StatusClosed {
		t.Fatalf("%+v", p)
	}
	if again := refund(id, map[string]any{"amount": "10.00", "reference_id": "r1"}); again.status != 200 || len(again.payment(t).Refunds) != 1 {
		t.Fatalf("idempotent refund retry: %s", again.body)
	}
	wantError(t, refund(id, map[string]any{"amount": "20.01"}), 400, "bad_data", "refund amount should be less or equal than billed amount")
	if r := refund(id, map[string]any{"amount": "20"}); r.status != 200 || !r.payment(t).Refunded().Equal(r.payment(t).Captured()) {
		t.Fatalf("full refund: %s", r.body)
	}
	wantError(t, refund(id, map[string]any{"amount": "0.01"}), 400, "bad_data", "already closed")

	t.Run("closed without captures", func(t *testing.T) {
		id := e.authorized("10.00")
		e.do("ae", "POST", "/api/v2/payments/"+id+"/close", aeTest, nil)
		wantError(t, refund(id, map[string]any{"amount": "1"}), 400, "bad_data", "can not refund payment that has no captures and not closed")
	})
	t.Run("KWD places", func(t *testing.T) {
		wantFieldError(t, e.do("ae", "POST", "/api/v2/payments/"+unknownID+"/refunds", kwTest, map[string]any{"amount": "1.00001"}),
			"$.amount", "invalid_value", "money supports only 3 decimal places, but got: 5")
	})
}

func TestClose(t *testing.T) {
	e := newEnv(t, Options{})
	closeP := func(id string) resp { return e.do("ae", "POST", "/api/v2/payments/"+id+"/close", aeTest, nil) }
	wantError(t, closeP(badID), 400, "bad_data", "invalid payment id")
	wantError(t, closeP(unknownID), 404, "not_found", "no such payment")
	s := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest)
	wantError(t, closeP(s.Payment.ID), 400, "bad_data", "only authorized payments can be closed")
	id := e.authorized("10.00")
	r := closeP(id)
	if r.status != 200 || r.payment(t).Status != wire.StatusClosed || len(r.payment(t).Captures) != 0 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	wantError(t, closeP(id), 400, "bad_data", "already closed")

	t.Run("authorization expired by the clock", func(t *testing.T) {
		e := newEnv(t, Options{AuthExpiry: time.Hour})
		id := e.authorized("10.00")
		e.clock.Advance(time.Hour)
		wantError(t, e.do("ae", "POST", "/api/v2/payments/"+id+"/close", aeTest, nil), 400, "bad_data", "could not cancel payment: payment was already expired")
		wantError(t, e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": "1"}), 400, "bad_data", "could not capture: payment was already expired")
		if p := e.get(id); p.Status != wire.StatusAuthorized {
			t.Fatalf("status after lapse %s (unchanged expected)", p.Status)
		}
	})
	t.Run("authorization expired by ExpireAuth", func(t *testing.T) {
		id := e.authorized("10.00")
		p, err := e.sb.ExpireAuth(context.Background(), id)
		if err != nil || p.Status != wire.StatusAuthorized {
			t.Fatal(err)
		}
		wantError(t, closeP(id), 400, "bad_data", "could not cancel payment: payment was already expired")
	})
}

func TestUpdatePayment(t *testing.T) {
	e := newEnv(t, Options{})
	put := func(id string, body any) resp { return e.do("ae", "PUT", "/api/v2/payments/"+id, aeTest, body) }
	id := e.authorized("10.00")
	wantError(t, put(badID, map[string]any{"order": map[string]any{"reference_id": "x"}}), 400, "bad_data", "invalid payment id")
	wantError(t, put(id, "{"), 400, "bad_data", "failed to decode request")
	wantError(t, put(id, ""), 400, "bad_data", "failed to decode request")
	wantError(t, put(unknownID, map[string]any{"order": map[string]any{"reference_id": "x"}}), 404, "not_found", "no such payment")
	wantFieldError(t, put(id, map[string]any{"order": map[string]any{}}), "$.order.reference_id", "required", "")
	r := put(id, map[string]any{"order": map[string]any{"reference_id": "order-2"}, "amount": "1.00"})
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if p := r.payment(t); p.Order.ReferenceID != "order-2" || p.Amount.String() != "10" || len(p.Order.Items) != 1 {
		t.Fatalf("%+v", p.Order)
	}
	s := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest)
	wantError(t, put(s.Payment.ID, map[string]any{"order": map[string]any{"reference_id": "x"}}), 400, "bad_data", "could not update payment: only authorized or closed payments can be updated")
}

func TestStateMachine(t *testing.T) {
	e := newEnv(t, Options{})
	ctx := context.Background()
	newSession := func() *wire.CheckoutSession {
		return e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest)
	}
	t.Run("approve by session id", func(t *testing.T) {
		s := newSession()
		p, err := e.sb.Approve(ctx, s.ID)
		if err != nil || p.Status != wire.StatusAuthorized {
			t.Fatal(p, err)
		}
		if got := e.do("ae", "GET", "/api/v2/checkout/"+s.ID, aeTest, nil).json(t)["status"]; got != "approved" {
			t.Fatalf("session status %v", got)
		}
		if _, err := e.sb.Approve(ctx, s.ID); err == nil {
			t.Fatal("approving twice should fail")
		}
		if _, err := e.sb.Cancel(ctx, s.ID); err == nil {
			t.Fatal("cancelling an authorized payment should fail")
		}
	})
	t.Run("reject by payment id", func(t *testing.T) {
		s := newSession()
		p, err := e.sb.Reject(ctx, s.Payment.ID)
		if err != nil || p.Status != wire.StatusRejected {
			t.Fatal(p, err)
		}
		if _, err := e.sb.Approve(ctx, s.ID); err == nil {
			t.Fatal("a rejected payment cannot be approved")
		}
	})
	t.Run("cancel", func(t *testing.T) {
		s := newSession()
		p, err := e.sb.Cancel(ctx, s.ID)
		if err != nil || p.Status != wire.StatusExpired {
			t.Fatal(p, err)
		}
		if got := e.do("ae", "GET", "/api/v2/checkout/"+s.ID, aeTest, nil).json(t)["status"]; got != "expired" {
			t.Fatalf("session status %v", got)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		s := newSession()
		e.clock.Advance(20 * time.Minute)
		if got := e.do("ae", "GET", "/api/v2/checkout/"+s.ID, aeTest, nil).json(t)["status"]; got != "expired" {
			t.Fatalf("session status after 20m: %v", got)
		}
		if p := e.get(s.Payment.ID); p.Status != wire.StatusCreated {
			t.Fatalf("payment after 20m %s", p.Status)
		}
		e.clock.Advance(10 * time.Minute)
		if p := e.get(s.Payment.ID); p.Status != wire.StatusExpired {
			t.Fatalf("payment after 30m %s", p.Status)
		}
		if _, err := e.sb.Approve(ctx, s.ID); err == nil {
			t.Fatal("an expired payment cannot be approved")
		}
		if p := e.get(s.Payment.ID); p.Status != wire.StatusExpired {
			t.Fatalf("stored status %s", p.Status)
		}
	})
	t.Run("errors", func(t *testing.T) {
		if _, err := e.sb.Approve(ctx, "nope"); err == nil {
			t.Fatal("bad id")
		}
		if _, err := e.sb.Approve(ctx, unknownID); err == nil {
			t.Fatal("unknown id")
		}
		s := newSession()
		if _, err := e.sb.ExpireAuth(ctx, s.Payment.ID); err == nil {
			t.Fatal("expire-auth of a CREATED payment")
		}
	})
	t.Run("observers hear every change", func(t *testing.T) {
		var events []string
		e.sb.OnPaymentChange(func(_ context.Context, c store.Change) { events = append(events, c.Event) })
		id := e.authorized("10.00")
		e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": "10"})
		e.do("ae", "POST", "/api/v2/payments/"+id+"/refunds", aeTest, map[string]any{"amount": "1"})
		e.do("ae", "PUT", "/api/v2/payments/"+id, aeTest, map[string]any{"order": map[string]any{"reference_id": "z"}})
		want := "[created authorized captured refunded updated]"
		if fmt.Sprint(events) != want {
			t.Fatalf("events %v, want %s", events, want)
		}
	})
}

func TestListPayments(t *testing.T) {
	e := newEnv(t, Options{})
	ctx := context.Background()
	list := func(query string) (*wire.PaymentList, resp) {
		r := e.do("ae", "GET", "/api/v2/payments?"+query, aeTest, nil)
		var l wire.PaymentList
		if r.status == 200 {
			if err := l.UnmarshalJSON(r.body); err != nil {
				t.Fatal(err)
			}
		}
		return &l, r
	}
	// Day 1: one of each kind.
	created := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest).Payment.ID
	e.clock.Advance(time.Minute)
	authorized := e.authorized("10.00")
	e.clock.Advance(time.Minute)
	captured := e.authorized("10.00")
	e.do("ae", "POST", "/api/v2/payments/"+captured+"/captures", aeTest, map[string]any{"amount": "10"})
	e.clock.Advance(time.Minute)
	refunded := e.authorized("10.00")
	e.do("ae", "POST", "/api/v2/payments/"+refunded+"/captures", aeTest, map[string]any{"amount": "10"})
	e.do("ae", "POST", "/api/v2/payments/"+refunded+"/refunds", aeTest, map[string]any{"amount": "10"})
	e.clock.Advance(time.Minute)
	closedEmpty := e.authorized("10.00")
	e.do("ae", "POST", "/api/v2/payments/"+closedEmpty+"/close", aeTest, nil)
	e.clock.Advance(time.Minute)
	rejected := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest).Payment.ID
	e.sb.Reject(ctx, rejected)
	cancelled := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest).Payment.ID
	e.sb.Cancel(ctx, cancelled)
	e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeLive) // other mode: never listed

	ids := func(l *wire.PaymentList) []string {
		var out []string
		for _, p := range l.Payments {
			out = append(out, p.ID)
		}
		return out
	}
	check := func(query string, want ...string) {
		t.Helper()
		l, r := list(query)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", query, r.status, r.body)
		}
		if fmt.Sprint(ids(l)) != fmt.Sprint(want) || l.Pagination.TotalCount != len(want) {
			t.Fatalf("%s: got %v (total %d), want %v", query, ids(l), l.Pagination.TotalCount, want)
		}
	}
	check("", closedEmpty, refunded, captured, authorized)
	check("status=authorized", authorized)
	check("status=closed", closedEmpty, refunded, captured)
	check("status=rejected", rejected)
	check("status=new", created)
	check("status=captured", captured)
	check("status=refunded", refunded)
	check("status=cancelled", cancelled, closedEmpty)
	check("status=authorized&created_at__gte="+url.QueryEscape(testStart.Add(time.Minute).Format(time.RFC3339)), authorized)
	check("created_at__lte="+url.QueryEscape(testStart.Add(2*time.Minute).Format(time.RFC3339)), captured, authorized)
	check("created_at__gte=2026-03-10", closedEmpty, refunded, captured, authorized)
	check("created_at__gte=2026-03-11")
	check("created_at__lte=2026-03-10")

	l, _ := list("limit=2&offset=1")
	if fmt.Sprint(ids(l)) != fmt.Sprint([]string{refunded, captured}) || l.Pagination.Limit != 2 || l.Pagination.Offset != 1 || l.Pagination.TotalCount != 4 {
		t.Fatalf("page: %v %+v", ids(l), l.Pagination)
	}
	l, r := list("limit=500")
	if l.Pagination.Limit != 20 {
		t.Fatalf("limit should clamp to 20: %s", r.body)
	}
	l, r = list("offset=100")
	if len(l.Payments) != 0 || !contains(string(r.body), `"payments":[]`) {
		t.Fatalf("past the end: %s", r.body)
	}
	for _, q := range []string{"limit=x", "limit=-1", "offset=y", "status=weird", "created_at__gte=yesterday", "created_at__lte=2026-13-01"} {
		_, r := list(q)
		wantError(t, r, 400, "bad_data", "failed to decode request")
	}

	// A CREATED payment that times out leaves "new" for "cancelled".
	e.clock.Advance(31 * time.Minute)
	check("status=new")
	check("status=cancelled", cancelled, closedEmpty, created)
}

func TestRefundGuard(t *testing.T) {
	e := newEnv(t, Options{})
	id := e.authorized("10.00")
	e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": "10"})
	saved := e.sb.RefundGuards
	t.Cleanup(func() { e.sb.RefundGuards = saved })
	e.sb.RefundGuards = append(e.sb.RefundGuards, func(rec *store.Record) error {
		if rec.Payment.ID == id {
			return &edge.Refusal{Status: 409, ErrorType: "conflict", Message: "payment is disputed"}
		}
		return nil
	})
	wantError(t, e.do("ae", "POST", "/api/v2/payments/"+id+"/refunds", aeTest, map[string]any{"amount": "1"}), 409, "conflict", "payment is disputed")
	if p := e.get(id); len(p.Refunds) != 0 {
		t.Fatal("a refused refund was recorded")
	}
	// The lock was released: the next call is answered on its merits.
	e.sb.RefundGuards = saved
	if r := e.do("ae", "POST", "/api/v2/payments/"+id+"/refunds", aeTest, map[string]any{"amount": "1"}); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

func TestChangeDetails(t *testing.T) {
	e := newEnv(t, Options{AuthExpiry: time.Hour})
	var got []store.Change
	e.sb.OnPaymentChange(func(_ context.Context, c store.Change) { got = append(got, c) })
	id := e.authorized("10.00")
	e.do("ae", "POST", "/api/v2/payments/"+id+"/close", aeTest, nil)
	last := got[len(got)-1]
	if last.Event != "closed" || last.Before != wire.StatusAuthorized || last.ClosedAt == nil || last.IsExpired || last.MerchantCode != "ae-sandbox" {
		t.Fatalf("%+v", last)
	}
	s := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest)
	e.clock.Advance(31 * time.Minute)
	e.sb.Approve(context.Background(), s.ID) // refused, but the expiry it found is committed
	last = got[len(got)-1]
	if last.Event != "expired" || !last.IsExpired || last.Payment.ID != s.Payment.ID {
		t.Fatalf("%+v", last)
	}
}

func TestInternalError(t *testing.T) {
	e := newEnv(t, Options{})
	id := e.authorized("10.00")
	e.sb.Close()
	wantError(t, e.do("ae", "GET", "/api/v2/payments/"+id, aeTest, nil), 500, "internal", "Internal Server Error")
	wantError(t, e.do("ae", "POST", "/api/v2/checkout", aeTest, checkoutBody("ae-sandbox", "AED", "10")), 500, "internal", "Internal Server Error")
	wantError(t, e.do("ae", "POST", "/api/v2/payments/"+id+"/close", aeTest, nil), 500, "internal", "Internal Server Error")
}
