package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/sandbox/fixture"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/sandbox/service"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
	"go.yaml.in/yaml/v3"
)

// ExportFixture writes today's state as a fixture, in the normalised form
// SeedFixture answers: every payment in the order it was created, with the
// moves that brought it where it is, then the payment webhooks (without
// their header values, which are secrets). Seeding it into an empty
// sandbox and exporting again gives the same fixture.
//
// What the state does not keep is not exported: when a checkout was
// rejected or cancelled (seeding does it at the payment's created_at), the
// history of a dispute (its last status and when it took it are), dispute
// webhooks, and the fields of a checkout a fixture does not carry.
func (s *Sandbox) ExportFixture(ctx context.Context) (*fixture.Fixture, error) {
	now, err := s.CurrentTime(ctx)
	if err != nil {
		return nil, err
	}
	fx := &fixture.Fixture{Payments: []fixture.FixturePayment{}}
	rows, err := s.DB.QueryContext(ctx, `SELECT id, `+store.PaymentDoc+` FROM payments ORDER BY seq`)
	if err != nil {
		return nil, err
	}
	var recs []*store.Record
	for rows.Next() {
		var id string
		var doc []byte
		if err := rows.Scan(&id, &doc); err != nil {
			rows.Close()
			return nil, err
		}
		rec, err := store.DecodeRecord(doc, "id", id)
		if err != nil {
			rows.Close()
			return nil, err
		}
		recs = append(recs, rec)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, rec := range recs {
		disputes, err := s.paymentDisputes(ctx, rec.Payment.ID)
		if err != nil {
			return nil, err
		}
		fx.Payments = append(fx.Payments, s.exportPayment(rec, disputes, now))
	}
	for _, m := range s.Merchants() {
		for _, isTest := range []bool{true, false} {
			hooks, err := outbox.ListHooks(ctx, s.DB, outbox.HookKindPayment, m.Code, isTest)
			if err != nil {
				return nil, err
			}
			for _, h := range hooks {
				test := h.IsTest
				fx.Webhooks = append(fx.Webhooks, fixture.FixtureWebhook{ID: h.ID, Merchant: h.MerchantCode, Test: &test, URL: h.URL})
			}
		}
	}
	return fx, nil
}

func (s *Sandbox) paymentDisputes(ctx context.Context, paymentID string) ([]*service.DisputeDoc, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT id, doc FROM disputes WHERE payment_id = ? ORDER BY seq`, paymentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*service.DisputeDoc
	for rows.Next() {
		var id string
		var doc []byte
		if err := rows.Scan(&id, &doc); err != nil {
			return nil, err
		}
		var d service.DisputeDoc
		if err := json.Unmarshal(doc, &d); err != nil {
			return nil, store.CorruptRow("disputes", "id", id, err)
		}
		out = append(out, &d)
	}
	return out, rows.Err()
}

func (s *Sandbox) exportPayment(rec *store.Record, disputes []*service.DisputeDoc, now time.Time) fixture.FixturePayment {
	p := rec.Payment
	stored := p.Status
	rec.Settle(now)
	test := p.IsTest
	cur := p.Currency
	fp := fixture.FixturePayment{ID: p.ID, SessionID: rec.SessionID, Merchant: rec.MerchantCode, Test: &test,
		Status: rec.Payment.Status, Amount: money.Format(p.Amount, cur), Currency: cur, Description: p.Description,
		Order: &fixture.FixtureOrder{}}
	if p.CreatedAt != nil {
		fp.CreatedAt = fixture.Time(*p.CreatedAt)
	}
	if p.Order != nil {
		fp.Order.ReferenceID = p.Order.ReferenceID
		for _, it := range p.Order.Items {
			fp.Order.Items = append(fp.Order.Items, fixture.FixtureItem{Title: it.Title, Quantity: it.Quantity,
				UnitPrice: money.Format(it.UnitPrice, cur), Category: it.Category, ReferenceID: it.ReferenceID})
		}
	}
	if p.Buyer != nil {
		fp.Buyer = &fixture.FixtureBuyer{Name: p.Buyer.Name, Email: p.Buyer.Email, Phone: p.Buyer.Phone}
	}
	if p.ShippingAddress != nil {
		fp.ShippingAddress = &fixture.FixtureShippingAddress{City: p.ShippingAddress.City, Address: p.ShippingAddress.Address, Zip: p.ShippingAddress.Zip}
	}
	switch {
	case rec.AuthorizedAt != nil:
		fp.Checkout, fp.ApprovedAt = "approved", fixture.Time(*rec.AuthorizedAt)
	case stored == wire.StatusRejected:
		fp.Checkout = "rejected"
	case stored == wire.StatusExpired:
		fp.Checkout = "cancelled"
	}
	for _, c := range p.Captures {
		fp.Captures = append(fp.Captures, fixture.FixtureMove{ID: c.ID, Amount: money.Format(c.Amount, cur), ReferenceID: c.ReferenceID, At: timeOrEmpty(c.CreatedAt)})
	}
	if rec.AuthorizedAt != nil && rec.AuthExpiresAt != nil && !rec.AuthExpiresAt.Equal(rec.AuthorizedAt.Add(s.AuthExpiry)) {
		fp.AuthExpiredAt = fixture.Time(*rec.AuthExpiresAt)
	}
	if p.Status == wire.StatusClosed && rec.ClosedAt != nil && p.Captured().LessThan(p.Amount) {
		fp.ClosedAt = fixture.Time(*rec.ClosedAt)
	}
	byDispute := map[string]*fixture.FixtureDispute{}
	for _, d := range disputes {
		fd := fixture.FixtureDispute{ID: d.ID, Reason: d.Reason, Amount: money.FormatString(d.Amount, cur), Status: d.Status, OpenedAt: fixture.Time(d.CreatedAt)}
		if d.Status != service.StatusNew && len(d.History) > 0 {
			fd.ResolvedAt = fixture.Time(d.History[len(d.History)-1].CreatedAt)
		}
		fp.Disputes = append(fp.Disputes, fd)
	}
	for i := range fp.Disputes {
		byDispute["dispute-"+fp.Disputes[i].ID] = &fp.Disputes[i]
	}
	for _, r := range p.Refunds {
		if d, ok := byDispute[r.ReferenceID]; ok && d.Status == service.StatusRefunded {
			d.RefundID = r.ID
			continue
		}
		fp.Refunds = append(fp.Refunds, fixture.FixtureMove{ID: r.ID, Amount: money.Format(r.Amount, cur), ReferenceID: r.ReferenceID, Reason: r.Reason, At: timeOrEmpty(r.CreatedAt)})
	}
	return fp
}

func timeOrEmpty(t *time.Time) string {
	if t == nil {
		return ""
	}
	return fixture.Time(*t)
}

// MarshalFixture writes a fixture as YAML, or as JSON (indented) when
// asJSON.
func MarshalFixture(fx *fixture.Fixture, asJSON bool) ([]byte, error) {
	if asJSON {
		b, err := json.MarshalIndent(fx, "", "  ")
		if err != nil {
			return nil, err
		}
		return append(b, '\n'), nil
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(fx); err != nil {
		return nil, fmt.Errorf("writing the fixture: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
