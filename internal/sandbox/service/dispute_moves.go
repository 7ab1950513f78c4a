package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/shopspring/decimal"
)

// The moves of a dispute: the customer opens it, support resolves it,
// and a refund it makes goes through the payment's own refund.

// openDisputes counts the open disputes of a payment, whose id is
// payments.id.
const openDisputes = `SELECT count(*) FROM disputes WHERE payment_id = payments.id
	AND status NOT IN ('declined', 'cancelled', 'refunded')`

// openDisputesAsked is where a move's record holds its payment's count of
// open disputes: every move's load reads it beside the payment
// (store.AskOnMove), rather than a refund running a query of its own.
var openDisputesAsked = store.AskOnMove(openDisputes)

// disputeRefundGuard refuses refunds of a payment with an open dispute. It
// runs inside the refund's transaction, where the move's load counted
// them; a record read outside a move counts them again.
func (s *Service) disputeRefundGuard(rec *store.Record) error {
	var n int64
	if rec.Asked != nil {
		n = rec.Asked[openDisputesAsked]
	} else {
		var q store.Querier = s.DB
		if rec.Tx != nil {
			q = rec.Tx // in memory, the only connection
		}
		if err := q.QueryRowContext(context.Background(), `SELECT (`+openDisputes+`) FROM payments WHERE id = ?`,
			rec.Payment.ID).Scan(&n); err != nil {
			return err
		}
	}
	if n > 0 {
		return errPaymentDisputed
	}
	return nil
}

// changeDispute applies fn to a dispute in one write transaction, and
// notifies dispute webhooks when the status changed.
func (s *Service) changeDispute(ctx context.Context, id, merchant string, fn func(d *DisputeDoc, now time.Time) error) (*DisputeDoc, error) {
	now, err := s.CurrentTime(ctx) // before the transaction: in memory it takes the only connection
	if err != nil {
		return nil, err
	}
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	d, err := LoadDispute(ctx, tx, id, merchant)
	if err != nil {
		return nil, err
	}
	before := d.Status
	if err := fn(d, now); err != nil {
		return nil, err
	}
	if err := saveDispute(ctx, tx, d, false); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	if d.Status != before {
		s.Outbox.DisputeChanged(d.notification(), d.MerchantCode)
	}
	return d, nil
}

// refundDispute settles a dispute in the customer's favour: the disputed
// amount (at most what is still refundable) is refunded on the payment and
// the dispute becomes refunded, both in the payment's move. Approving a
// dispute already refunded changes nothing.
func (s *Service) refundDispute(ctx context.Context, id, merchant string, event DisputeEvent) (*DisputeDoc, error) {
	d, err := LoadDispute(ctx, s.DB, id, merchant)
	if err != nil {
		return nil, err
	}
	var out *DisputeDoc
	changed := false
	qctx := context.WithoutCancel(ctx)
	_, err = s.Move(ctx, d.PaymentID, nil, func(rec *store.Record, now time.Time) (string, error) {
		cur, err := LoadDispute(qctx, rec.Tx, id, merchant)
		if err != nil {
			return "", err
		}
		out = cur
		if cur.Status == StatusRefunded {
			return "", nil
		}
		if FinalDisputeStatuses[cur.Status] {
			return "", errDisputeConflict
		}
		p := &rec.Payment
		amount, err := decimal.NewFromString(cur.Amount)
		if err != nil {
			return "", fmt.Errorf("corrupt dispute amount %q", cur.Amount)
		}
		if refundable := p.Captured().Sub(p.Refunded()); amount.GreaterThan(refundable) {
			amount = refundable
		}
		event.CreatedAt = now
		cur.Status = StatusRefunded
		cur.addEvent(event)
		if err := saveDispute(qctx, rec.Tx, cur, false); err != nil {
			return "", err
		}
		changed = true
		if !amount.IsPositive() {
			return "", nil
		}
		at := now
		p.Refunds = append(p.Refunds, wire.Refund{ID: s.NewID(ctx), Amount: amount, ReferenceID: "dispute-" + cur.ID,
			Reason: "dispute " + cur.ID + " refunded", CreatedAt: &at})
		return "refunded", nil
	})
	if err != nil {
		return nil, err
	}
	if changed {
		s.Outbox.DisputeChanged(out.notification(), out.MerchantCode)
	}
	return out, nil
}

// OpenDisputeDoc is the customer opening a dispute on a live payment.
func (s *Service) OpenDisputeDoc(ctx context.Context, paymentID, reason string, amountText *string, comment string) (*DisputeDoc, error) {
	paymentID, ok := edge.CanonicalID(paymentID)
	if !ok {
		return nil, edge.ErrInvalidID
	}
	if reason == "" {
		reason = "product_issue"
	}
	if !slices.Contains(wire.DisputeReasons, reason) {
		return nil, edge.BadData(fmt.Sprintf("reason %q is not one of %s", reason, strings.Join(wire.DisputeReasons, ", ")))
	}
	var out *DisputeDoc
	qctx := context.WithoutCancel(ctx)
	_, err := s.Move(ctx, paymentID, nil, func(rec *store.Record, now time.Time) (string, error) {
		p := &rec.Payment
		if p.IsTest {
			return "", edge.BadData("disputes have no test mode: open one on a live payment (one created with a live key)")
		}
		if p.Status != wire.StatusClosed || len(p.Captures) == 0 {
			return "", edge.BadData(fmt.Sprintf("only CLOSED payments with captures can be disputed; this one is %s with %d capture(s)", p.Status, len(p.Captures)))
		}
		refundable := p.Captured().Sub(p.Refunded())
		if !refundable.IsPositive() {
			return "", edge.BadData("nothing is left to dispute: everything captured was refunded")
		}
		amount := refundable
		if amountText != nil {
			d, why := ParseAmount(*amountText, p.Currency)
			if why == "" && !d.IsPositive() {
				why = "the amount must be positive"
			}
			if why != "" {
				return "", edge.BadData("invalid amount: " + why)
			}
			if d.GreaterThan(refundable) {
				return "", edge.BadData(fmt.Sprintf("the amount %s is more than captured minus refunded, %s",
					money.Format(d, p.Currency), money.Format(refundable, p.Currency)))
			}
			amount = d
		}
		d := &DisputeDoc{MerchantCode: rec.MerchantCode}
		d.ID = s.NewID(ctx)
		d.PaymentID = p.ID
		d.Amount = money.Format(amount, p.Currency)
		d.Currency = p.Currency
		d.CreatedAt = now
		d.ExpiredAt = now.Add(disputeLifetime)
		d.Status = StatusNew
		d.Reason = reason
		d.Attachments = []string{}
		d.Items = []DisputeItem{}
		d.Comment = comment
		if p.Order != nil {
			d.OrderNumber = p.Order.ReferenceID
			for _, it := range p.Order.Items {
				d.Items = append(d.Items, DisputeItem{ReferenceID: it.ReferenceID, Title: it.Title,
					UnitPrice: money.Format(it.UnitPrice, p.Currency)})
			}
		}
		by := "customer"
		if p.Buyer != nil && p.Buyer.Email != "" {
			by = p.Buyer.Email
		}
		d.addEvent(DisputeEvent{CreatedAt: now, CreatedBy: by, Content: comment, Source: "customer",
			EventType: "dispute_created", Note: "reason: " + reason})
		if err := saveDispute(qctx, rec.Tx, d, true); err != nil {
			return "", err
		}
		out = d
		return "", nil // the payment itself does not change
	})
	if err != nil {
		return nil, err
	}
	s.Outbox.DisputeChanged(out.notification(), out.MerchantCode)
	return out, nil
}

// OpenDispute opens a dispute as the customer would, on a live CLOSED
// payment with captures. reason "" is product_issue; amount "" is what
// was captured and not refunded.
func (s *Service) OpenDispute(ctx context.Context, paymentID, reason, amount string) (*wire.Dispute, error) {
	var amt *string
	if amount != "" {
		amt = &amount
	}
	d, err := s.OpenDisputeDoc(ctx, paymentID, reason, amt, "")
	return s.disputeNow(ctx, d, err)
}

// ResolveDispute moves a dispute as the service's support would: to a
// final status (declined, cancelled, refunded, which refunds the disputed
// amount) or to another open one (in_progress, evidence_merchant,
// evidence_customer).
func (s *Service) ResolveDispute(ctx context.Context, id, status string) (*wire.Dispute, error) {
	d, err := s.ResolveDisputeDoc(ctx, id, status)
	return s.disputeNow(ctx, d, err)
}

// disputeNow is d, just moved (err: the move's error, passed on), as the
// API shows it at the sandbox clock's now.
func (s *Service) disputeNow(ctx context.Context, d *DisputeDoc, err error) (*wire.Dispute, error) {
	if err != nil {
		return nil, err
	}
	now, err := s.CurrentTime(ctx)
	if err != nil {
		return nil, err
	}
	return d.toAPI(now)
}

func (s *Service) ResolveDisputeDoc(ctx context.Context, id, status string) (*DisputeDoc, error) {
	id, ok := edge.CanonicalID(id)
	if !ok {
		return nil, edge.BadData("invalid dispute id")
	}
	if status == StatusNew || !slices.Contains(wire.DisputeStatuses, status) {
		return nil, edge.BadData(fmt.Sprintf("status %q: use one of declined, cancelled, refunded (final) or in_progress, evidence_merchant, evidence_customer", status))
	}
	event := DisputeEvent{CreatedBy: "support", Source: "support", EventType: "status_changed",
		Content: "support moved the dispute to " + status}
	if status == StatusRefunded {
		return s.refundDispute(ctx, id, "", event)
	}
	return s.changeDispute(ctx, id, "", func(d *DisputeDoc, now time.Time) error {
		if FinalDisputeStatuses[d.Status] {
			return &edge.Refusal{Status: 409, ErrorType: "conflict", Message: fmt.Sprintf("the dispute is already resolved (%s)", d.Status)}
		}
		if d.Status == status {
			return nil
		}
		d.Status = status
		event.CreatedAt = now
		d.addEvent(event)
		return nil
	})
}
