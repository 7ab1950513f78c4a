package api

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/money"
)

// The service deduplicates captures and refunds on reference_id: a second
// move with a used reference_id moves nothing and is answered with the
// payment as it is. So a reference_id reused with other content must be
// refused before sending (CheckCaptureReference, CheckRefundReference),
// and the payment that comes back after a move must show the move as
// asked (runMove checks it, for single moves and bulk runs alike): when it
// does not, the outcome is unknown (*MoveUnknownError), never "nothing was
// moved". Every text a move sends is UTF-8 and within the bounds below
// (CheckText): bytes that are not UTF-8 would be stored as U+FFFD, so
// that the move could not be found by the id it was sent with.

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
	return fmt.Sprintf("`bnpl payments get %s` shows that %s; if it is not the one you mean to make now, give this one a reference id of its own", e.PaymentID, e.Kind)
}

func (e *ReferenceReusedError) ExitCode() int { return exitUsage }

// ErrorDetails are the facts `-o json` writes with the error.
func (e *ReferenceReusedError) ErrorDetails() map[string]any {
	return map[string]any{"outcome": "not_sent", "kind": e.Kind, "payment_id": e.PaymentID,
		"reference_id": e.ReferenceID, "held": e.Held, "asked": e.Asked}
}

// MoveUnknownError is a capture or refund that the service accepted but
// that the payment it answered (or a read after) does not show exactly:
// no move with the reference_id and the amount asked. Something moved
// money or nothing did, and which cannot be told from the payment (the
// reference_id may have been used by another process between the read and
// the move, or stored otherwise than it was sent), so the outcome is
// unknown, exit 10: never "failed", never "nothing was moved". It carries
// what the payment holds, so that a person can match it.
type MoveUnknownError struct {
	Kind        string
	PaymentID   string
	ReferenceID string
	// Asked is the amount asked for; Held what the payment holds under the
	// reference_id, "" for nothing.
	Asked string
	Held  string
	// Status, Captured and Refunded are what the payment holds in all, as
	// answered ("1250.00 AED").
	Status   string
	Captured string
	Refunded string
}

func (e *MoveUnknownError) Error() string {
	held := fmt.Sprintf("it holds no %s under that reference_id", e.Kind)
	if e.Held != "" {
		held = fmt.Sprintf("it holds a %s of %s under that reference_id", e.Kind, e.Held)
	}
	status := ""
	if e.Status != "" {
		status = " " + e.Status
	}
	return fmt.Sprintf("outcome unknown: the %s of %s with reference_id %s was sent, but payment %s does not show it as asked: %s; "+
		"the payment is%s with %s captured and %s refunded",
		e.Kind, e.Asked, e.ReferenceID, e.PaymentID, held, status, e.Captured, e.Refunded)
}

func (e *MoveUnknownError) Hint() string {
	return fmt.Sprintf("money may have moved: check `bnpl payments get %s` (its %ss list every reference_id and amount) before moving more on this payment; "+
		"re-sending with --reference-id %s never moves money twice", e.PaymentID, e.Kind, e.ReferenceID)
}

// ExitCode is 10, the outcome unknown.
func (e *MoveUnknownError) ExitCode() int { return exitNetwork }

// ErrorDetails are the facts `-o json` writes with the error.
func (e *MoveUnknownError) ErrorDetails() map[string]any {
	return map[string]any{"outcome": "unknown", "kind": e.Kind, "payment_id": e.PaymentID,
		"reference_id": e.ReferenceID, "held": e.Held, "asked": e.Asked,
		"payment_status": e.Status, "captured": e.Captured, "refunded": e.Refunded}
}

// Bounds of the text a move sends. The service documents none; these are
// the sandbox's (docs/sandbox.md), far above any real order number, and
// checked before sending so that a long or garbled id is refused here and
// not stored otherwise than it was sent.
const (
	MaxReferenceIDLen = 255
	MaxTextLen        = 4096
)

// CheckText returns what is wrong with a text value a request would
// send, or "": bytes that are not UTF-8 (the service would store them as
// U+FFFD, so that two different ids become one and the move cannot be
// found by the id sent) and more than max characters.
func CheckText(s string, max int) string {
	if i := InvalidUTF8(s); i >= 0 {
		return fmt.Sprintf("byte %d (0x%02X) is not UTF-8: the service would store another value than the one sent", i, s[i])
	}
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Sprintf("has %d characters, at most %d are allowed", n, max)
	}
	return ""
}

// InvalidUTF8 is the offset of the first byte of s that is not part of a
// UTF-8 character, or -1.
func InvalidUTF8(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// checkMoveText adds to v the problems of a move's text: its reference_id,
// its reason and its items' strings.
func checkMoveText(v *ValidationError, referenceID, reason string, items []OrderItem) {
	if msg := CheckText(referenceID, MaxReferenceIDLen); msg != "" {
		v.Add("$.reference_id", "%s", msg)
	}
	if msg := CheckText(reason, MaxTextLen); msg != "" {
		v.Add("$.reason", "%s", msg)
	}
	for i, it := range items {
		for _, f := range []struct {
			name, value string
			max         int
		}{
			{"title", it.Title, MaxTextLen}, {"category", it.Category, MaxTextLen}, {"reference_id", it.ReferenceID, MaxReferenceIDLen},
			{"description", it.Description, MaxTextLen}, {"image_url", it.ImageURL, MaxTextLen}, {"product_url", it.ProductURL, MaxTextLen},
			{"gender", it.Gender, MaxTextLen}, {"color", it.Color, MaxTextLen}, {"product_material", it.ProductMaterial, MaxTextLen},
			{"size_type", it.SizeType, MaxTextLen}, {"size", it.Size, MaxTextLen},
		} {
			if msg := CheckText(f.value, f.max); msg != "" {
				v.Add(fmt.Sprintf("$.items[%d].%s", i, f.name), "%s", msg)
			}
		}
	}
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
// Anything else is a *MoveUnknownError: the payment cannot be matched to
// the move, so whether money moved is unknown.
func (m *move) verifyMade(p *Payment) error {
	if m.kind == moveClose || m.madeOn(p) {
		return nil
	}
	e := &MoveUnknownError{Kind: m.kind.String(), PaymentID: m.paymentID, ReferenceID: m.reference,
		Asked: amountWithCurrency(m.amount, p.Currency), Status: p.Status,
		Captured: amountWithCurrency(p.Captured(), p.Currency), Refunded: amountWithCurrency(p.Refunded(), p.Currency)}
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
