package api

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/money"
)

// The service deduplicates captures and refunds on reference_id: a second
// move with a used reference_id moves nothing and is answered with the
// payment as it is. So a reference_id reused with other content must be
// refused before sending (CheckCaptureReference, CheckRefundReference),
// and the payment that comes back after a move must show the move as
// asked (runMove checks it, for single moves and bulk runs alike).

// ReferenceReusedError refuses, before anything is sent, a capture or
// refund whose reference_id the payment already holds for another amount
// (or, for a capture, other tax, shipping or discount amounts). Exit 2.
type ReferenceReusedError struct {
	Kind        string // "capture" or "refund"
	PaymentID   string
	ReferenceID string
	// Held is what the payment holds under the reference_id, as text
	// ("7.00 AED", "10.00 AED with tax 1.00 AED").
	Held string
	// Asked is what was asked for, in the same form.
	Asked string
}

func (e *ReferenceReusedError) Error() string {
	return fmt.Sprintf("reference_id %s was already used on payment %s for a %s of %s (asked now: %s): nothing was moved",
		e.ReferenceID, e.PaymentID, e.Kind, e.Held, e.Asked)
}

func (e *ReferenceReusedError) Hint() string {
	return "use a new reference id, or omit --reference-id to get one"
}

func (e *ReferenceReusedError) ExitCode() int { return exitUsage }

// ErrorDetails are the facts `-o json` writes with the error.
func (e *ReferenceReusedError) ErrorDetails() map[string]any {
	return map[string]any{"outcome": "not_sent", "kind": e.Kind, "payment_id": e.PaymentID,
		"reference_id": e.ReferenceID, "held": e.Held, "asked": e.Asked}
}

// MoveConflictError is a capture or refund that the service answered
// with success but that the payment does not show as asked: no move with
// the reference_id and the amount exists, typically because the
// reference_id was used for another amount (by another process, between
// the read and the move). Exit 7.
type MoveConflictError struct {
	Kind        string
	PaymentID   string
	ReferenceID string
	// Asked is the amount asked for; Held what the payment holds under the
	// reference_id, "" for nothing.
	Asked string
	Held  string
}

func (e *MoveConflictError) Error() string {
	if e.Held == "" {
		return fmt.Sprintf("the %s of %s with reference_id %s is not on payment %s after the service accepted it: it holds no %s with that reference_id",
			e.Kind, e.Asked, e.ReferenceID, e.PaymentID, e.Kind)
	}
	return fmt.Sprintf("the %s of %s with reference_id %s was not made: payment %s holds a %s of %s under that reference_id, so nothing more was moved",
		e.Kind, e.Asked, e.ReferenceID, e.PaymentID, e.Kind, e.Held)
}

func (e *MoveConflictError) Hint() string {
	return fmt.Sprintf("`bnpl payments get %s` shows the %ss; to move more, use a new reference id, or omit --reference-id to get one", e.PaymentID, e.Kind)
}

func (e *MoveConflictError) ExitCode() int { return exitConflict }

// ErrorDetails are the facts `-o json` writes with the error.
func (e *MoveConflictError) ErrorDetails() map[string]any {
	return map[string]any{"outcome": "conflict", "kind": e.Kind, "payment_id": e.PaymentID,
		"reference_id": e.ReferenceID, "held": e.Held, "asked": e.Asked}
}

// CheckCaptureReference compares a capture about to be sent with what the
// payment, as read, holds under its reference_id. It reports made when the
// payment already holds this very capture (sending it again is safe and
// moves nothing), and a *ReferenceReusedError when the reference_id holds
// a different capture. An empty reference_id always passes.
func CheckCaptureReference(p *Payment, req CaptureRequest) (made bool, err error) {
	if req.ReferenceID == "" {
		return false, nil
	}
	prior := p.CaptureByReference(req.ReferenceID)
	if prior == nil {
		return false, nil
	}
	same := prior.Amount.Equal(req.Amount) &&
		sameOptional(prior.TaxAmount, req.TaxAmount) &&
		sameOptional(prior.ShippingAmount, req.ShippingAmount) &&
		sameOptional(prior.DiscountAmount, req.DiscountAmount)
	if same {
		return true, nil
	}
	return false, &ReferenceReusedError{
		Kind: "capture", PaymentID: p.ID, ReferenceID: req.ReferenceID,
		Held:  captureText(p.Currency, prior.Amount, prior.TaxAmount, prior.ShippingAmount, prior.DiscountAmount),
		Asked: captureText(p.Currency, req.Amount, req.TaxAmount, req.ShippingAmount, req.DiscountAmount),
	}
}

// CheckRefundReference is CheckCaptureReference for refunds: the amount
// is compared.
func CheckRefundReference(p *Payment, req RefundRequest) (made bool, err error) {
	if req.ReferenceID == "" {
		return false, nil
	}
	prior := p.RefundByReference(req.ReferenceID)
	if prior == nil {
		return false, nil
	}
	if prior.Amount.Equal(req.Amount) {
		return true, nil
	}
	return false, &ReferenceReusedError{
		Kind: "refund", PaymentID: p.ID, ReferenceID: req.ReferenceID,
		Held: amountWithCurrency(prior.Amount, p.Currency), Asked: amountWithCurrency(req.Amount, p.Currency),
	}
}

// sameOptional compares two optional amounts, an absent one being zero.
func sameOptional(a, b *decimal.Decimal) bool {
	x, y := decimal.Zero, decimal.Zero
	if a != nil {
		x = *a
	}
	if b != nil {
		y = *b
	}
	return x.Equal(y)
}

func amountWithCurrency(d decimal.Decimal, currency string) string {
	return money.Display(d, currency)
}

func captureText(cur string, amount decimal.Decimal, tax, shipping, discount *decimal.Decimal) string {
	parts := []string{}
	for _, o := range []struct {
		name string
		d    *decimal.Decimal
	}{{"tax", tax}, {"shipping", shipping}, {"discount", discount}} {
		if o.d != nil && !o.d.IsZero() {
			parts = append(parts, o.name+" "+amountWithCurrency(*o.d, cur))
		}
	}
	s := amountWithCurrency(amount, cur)
	if len(parts) > 0 {
		s += " with " + strings.Join(parts, ", ")
	}
	return s
}

// verifyMade checks the payment the service answered a capture or refund
// with: the move succeeded only if the payment holds a move with our
// reference_id and amount. A close needs no check: a 2xx is the close.
func (m *move) verifyMade(p *Payment) error {
	if m.kind == moveClose || m.madeOn(p) {
		return nil
	}
	e := &MoveConflictError{Kind: m.kind.String(), PaymentID: m.paymentID, ReferenceID: m.reference,
		Asked: amountWithCurrency(m.amount, p.Currency)}
	switch m.kind {
	case moveCapture:
		if c := p.CaptureByReference(m.reference); c != nil {
			e.Held = amountWithCurrency(c.Amount, p.Currency)
		}
	case moveRefund:
		if r := p.RefundByReference(m.reference); r != nil {
			e.Held = amountWithCurrency(r.Amount, p.Currency)
		}
	}
	return e
}
