package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/money"
)

// Money moves (capture, refund, close) are retried on any failure that may
// pass, because a repeat cannot move money twice: captures and refunds
// carry a fixed reference_id that the service deduplicates on, and a close
// of a closed payment is refused. The price is that a repeat of a move
// that did happen is answered with a refusal ("already closed", "could not
// capture more than not captured yet"), and a move that did happen may
// have been answered with a dropped connection or a 5xx. Reconciliation
// reads the payment in those cases and reports the move as made when it
// is there.

type moveKind int

const (
	moveCapture moveKind = iota
	moveRefund
	moveClose
)

func (k moveKind) String() string {
	switch k {
	case moveCapture:
		return "capture"
	case moveRefund:
		return "refund"
	}
	return "close"
}

// move is one money move to run and reconcile.
type move struct {
	kind      moveKind
	paymentID string
	reference string          // captures and refunds
	amount    decimal.Decimal // captures and refunds
	// resumed is true when the caller supplied the reference_id: the move
	// may be a re-run of one whose outcome was unknown (the hint of
	// NetworkError asks for exactly that, and bulk runs resume that way),
	// so a refusal on the very first attempt may be about the earlier run.
	resumed bool
	call    *call
}

// Capture captures funds of an AUTHORIZED payment. Without a ReferenceID,
// a fresh UUID is used; either way every attempt sends the same one, and
// MoveResult.ReferenceID reports it. See reconcile.go for when a refusal or
// an unknown outcome is reported as a success with Reconciled set.
//
// On an error after something was sent, the MoveResult is returned too,
// with ReferenceID and Attempts.
func (c *Client) Capture(ctx context.Context, id string, req CaptureRequest) (*MoveResult, error) {
	v := &ValidationError{}
	checkID(v, "payment id", id)
	if !req.Amount.IsPositive() {
		v.Add("$.amount", "must be greater than zero, got %s", req.Amount)
	}
	for _, a := range []struct {
		path string
		d    *decimal.Decimal
	}{{"$.tax_amount", req.TaxAmount}, {"$.shipping_amount", req.ShippingAmount}, {"$.discount_amount", req.DiscountAmount}} {
		if a.d != nil && a.d.IsNegative() {
			v.Add(a.path, "must not be negative, got %s", a.d)
		}
	}
	if field, part, found := ExcessCapturePart(req.Amount, req.TaxAmount, req.ShippingAmount, req.DiscountAmount); found {
		v.Add("$."+field, "must not be more than the capture amount %s, got %s", req.Amount, part)
	}
	checkMoveText(v, req.ReferenceID, "", req.Items)
	if err := v.Err(); err != nil {
		return nil, err
	}
	m := &move{kind: moveCapture, paymentID: id, reference: req.ReferenceID, amount: req.Amount, resumed: req.ReferenceID != ""}
	if m.reference == "" {
		m.reference = uuid.NewString()
		req.ReferenceID = m.reference
	}
	cl, err := newJSONCall(http.MethodPost, paymentPath(id)+"/captures", "/api/v2/payments/{id}/captures", req, retrySafe)
	if err != nil {
		return nil, err
	}
	m.call = cl
	return c.runMove(ctx, m)
}

// Refund returns captured money of a CLOSED payment, with the same
// reference_id handling and reconciliation as Capture.
func (c *Client) Refund(ctx context.Context, id string, req RefundRequest) (*MoveResult, error) {
	v := &ValidationError{}
	checkID(v, "payment id", id)
	if !req.Amount.IsPositive() {
		v.Add("$.amount", "must be greater than zero, got %s", req.Amount)
	}
	checkMoveText(v, req.ReferenceID, req.Reason, req.Items)
	if err := v.Err(); err != nil {
		return nil, err
	}
	m := &move{kind: moveRefund, paymentID: id, reference: req.ReferenceID, amount: req.Amount, resumed: req.ReferenceID != ""}
	if m.reference == "" {
		m.reference = uuid.NewString()
		req.ReferenceID = m.reference
	}
	cl, err := newJSONCall(http.MethodPost, paymentPath(id)+"/refunds", "/api/v2/payments/{id}/refunds", req, retrySafe)
	if err != nil {
		return nil, err
	}
	m.call = cl
	return c.runMove(ctx, m)
}

// Close closes an AUTHORIZED payment. It is retried like a capture: a
// repeat of a close that happened is refused, and reconciliation turns
// that refusal into a success when an earlier attempt's outcome was
// unknown and the payment is CLOSED.
func (c *Client) Close(ctx context.Context, id string) (*MoveResult, error) {
	if err := validID("payment id", id); err != nil {
		return nil, err
	}
	cl := &call{method: http.MethodPost, path: paymentPath(id) + "/close", op: "POST /api/v2/payments/{id}/close", policy: retrySafe}
	return c.runMove(ctx, &move{kind: moveClose, paymentID: id, call: cl})
}

// runMove sends a move and reconciles it. The rules, in one place:
//
//   - A 2xx is the move made if the payment it answers holds a capture
//     or refund with our reference_id and amount (a close: always);
//     otherwise the payment cannot be matched to the move (the
//     reference_id held by another move, or not there at all), and the
//     answer is a *MoveUnknownError (exit 10): whether money moved is
//     unknown, and the error says what the payment holds.
//   - A refusal that a repeat of our own move would earn (refusedAsRepeat)
//     makes the client read the payment. If an earlier attempt's outcome
//     was unknown, or the caller supplied the reference_id (a re-run), and
//     the payment shows the move (a capture or refund with our
//     reference_id and amount; for close, the CLOSED status), the move is
//     reported made with Reconciled set. Otherwise the refusal is returned,
//     its hint naming what the payment allows.
//   - When the attempts ran out and any of them had an unknown outcome (no
//     answer, or a 5xx), the client reads the payment once and reports
//     the move made if it is there; otherwise the final error is
//     returned, its hint saying whether a re-run with the same
//     reference_id is safe.
//
// Attempts counts the move's requests, not the reads of the payment.
func (c *Client) runMove(ctx context.Context, m *move) (*MoveResult, error) {
	out := &MoveResult{ReferenceID: m.reference}
	res, err := c.execute(ctx, m.call)
	if res != nil {
		out.Attempts = res.attempts
	}
	if err == nil {
		var p Payment
		if err := c.decodeAnswer(m.call, res, &p); err != nil {
			return out, err
		}
		out.Payment = &p
		// A 2xx may answer a move made before this call (the service
		// deduplicates on the reference_id and moves nothing): whether
		// this call moved the money is not in the answer. The caller,
		// who knows what the payment held before it sent, decides; no
		// clock is compared.
		return out, m.verifyMade(&p)
	}
	if errors.Is(err, ErrDryRun) || res == nil || ctx.Err() != nil {
		return out, err
	}

	switch {
	case m.refusedAsRepeat(err):
		p, readErr := c.GetPayment(ctx, m.paymentID)
		if readErr != nil {
			return out, err
		}
		mayBeOurs := res.earlierUnknown() || m.resumed
		if mayBeOurs && m.madeOn(p) {
			out.Payment, out.Reconciled = p, true
			// With no attempt of ours of unknown outcome, the refusal
			// answered a move made before this call: none of ours moved.
			out.MadeBefore = !res.earlierUnknown()
			return out, nil
		}
		if m.heldOtherwise(p) {
			out.Payment = p
			return out, m.verifyMade(p)
		}
		out.Payment = p // as read: what the refusal left
		return out, WithHint(err, m.refusalHint(p, err))

	case res.unknownAttempts > 0:
		// The final answer may be anything (no answer, a 5xx, a lock that
		// outlasted the retries): some attempt may have moved the money.
		p, readErr := c.GetPayment(ctx, m.paymentID)
		if readErr == nil && m.madeOn(p) {
			out.Payment, out.Reconciled = p, true
			return out, nil
		}
		if readErr == nil && m.heldOtherwise(p) {
			out.Payment = p
			return out, m.verifyMade(p)
		}
		if readErr == nil {
			out.Payment = p
		}
		if IsOutcomeUnknown(err) {
			return out, WithHint(err, m.unknownHint(readErr == nil))
		}
	}
	return out, err
}

// refusedAsRepeat reports whether err is a refusal that the service gives
// to a repeat of a move that was already made.
func (m *move) refusedAsRepeat(err error) bool {
	e, ok := AsAPIError(err)
	if !ok || e.Status != http.StatusBadRequest {
		return false
	}
	switch m.kind {
	case moveCapture:
		return e.has(msgAlreadyClosed) || e.has(msgCaptureTooMuch)
	case moveRefund:
		return e.has(msgAlreadyClosed) || e.has(msgRefundTooMuch)
	default:
		return e.has(msgAlreadyClosed) || e.has(msgCloseNotAuth)
	}
}

// madeOn reports whether p shows the move. The amount is compared too: a
// merchant may reuse an order number as reference_id for several captures,
// and a different capture under the same reference is not ours.
func (m *move) madeOn(p *Payment) bool {
	switch m.kind {
	case moveCapture:
		c := p.CaptureByReference(m.reference)
		return c != nil && c.Amount.Equal(m.amount)
	case moveRefund:
		r := p.RefundByReference(m.reference)
		return r != nil && r.Amount.Equal(m.amount)
	default:
		return p.Status == StatusClosed
	}
}

// heldOtherwise reports whether p holds a capture or refund with our
// reference_id but another amount: the reference_id was used by another
// move, so ours can never be made under it.
func (m *move) heldOtherwise(p *Payment) bool {
	switch m.kind {
	case moveCapture:
		return p.CaptureByReference(m.reference) != nil && !m.madeOn(p)
	case moveRefund:
		return p.RefundByReference(m.reference) != nil && !m.madeOn(p)
	}
	return false
}

// refusalHint names what the payment allows, now that it has been read.
func (m *move) refusalHint(p *Payment, err error) string {
	switch m.kind {
	case moveCapture:
		if p.Status != StatusAuthorized {
			return fmt.Sprintf("the payment is %s; only AUTHORIZED payments can be captured", p.Status)
		}
		return fmt.Sprintf("%s %s is left to capture on this payment", money.Format(p.Capturable(), p.Currency), p.Currency)
	case moveRefund:
		return fmt.Sprintf("%s %s is left to refund on this payment (status %s)", money.Format(p.Refundable(), p.Currency), p.Currency, p.Status)
	}
	if e, ok := AsAPIError(err); ok && e.Hint() != "" && p.Status == StatusClosed {
		return e.Hint()
	}
	return fmt.Sprintf("the payment is %s; only AUTHORIZED payments can be closed", p.Status)
}

// unknownHint tells what to do after a move whose outcome stayed unknown.
func (m *move) unknownHint(readBack bool) string {
	if m.kind == moveClose {
		if readBack {
			return "the payment is not CLOSED yet; running the close again is safe"
		}
		return "the close may or may not have been made; check with `bnpl payments get " + m.paymentID + "` and run it again if needed"
	}
	if readBack {
		return fmt.Sprintf("the payment does not show a %s with reference_id %s; re-running it with --reference-id %s is safe", m.kind, m.reference, m.reference)
	}
	return fmt.Sprintf("the %s may or may not have been made; re-run it with --reference-id %s, which the service will not apply twice", m.kind, m.reference)
}
