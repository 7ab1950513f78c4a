package bulk

import (
	"context"
	"fmt"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
)

// runRow runs one row of q, whose claim this run holds. ctx is the run's
// context: once it is done no new request starts, but a money move
// already sent is completed under a context of its own.
func (r *runner) runRow(ctx context.Context, q *paymentQueue, t *task) rowResult {
	row := t.row
	res := rowResult{Line: row.Line, Op: row.Op, PaymentID: row.PaymentID, currency: q.currency}
	var req moveRequest
	if row.Op != OpClose {
		req.referenceID = firstNonEmpty(t.referenceID, row.ReferenceID, t.derivedRef)
		req.reason = row.Reason
		res.ReferenceID = req.referenceID
		res.Amount = t.amount
	}
	p, final := r.paymentFor(ctx, q, t, res)
	if p == nil {
		return final
	}
	res.PaymentStatus, res.currency = p.Status, p.Currency
	if row.Currency != "" && row.Currency != p.Currency {
		return refused(res, colCurrency, currencyMismatch(row, p))
	}
	if settled, ok := r.alreadyMade(q, t, p, res); ok {
		return settled
	}
	req, res, stop := r.prepareMove(q, t, p, req, res)
	if stop {
		return res
	}
	return r.sendMove(ctx, q, t, req, res)
}

// paymentFor is the payment the row is checked against: as last known, or
// read now when the row needs it (the first row of a claim, a "full" row,
// a row an earlier run left without an answer). A nil payment comes with
// the row's final result: a failed read, or not sent when the run stops.
func (r *runner) paymentFor(ctx context.Context, q *paymentQueue, t *task, res rowResult) (*api.Payment, rowResult) {
	needAmount := t.row.Op != OpClose && t.amount == "" && t.row.Full()
	if q.payment != nil && !t.resumed && !needAmount {
		return q.payment, res
	}
	p, failed, err := r.readPayment(ctx, q, t, res)
	if err != nil || ctx.Err() != nil {
		return nil, rowResult{notSent: true}
	}
	if failed != nil {
		return nil, *failed
	}
	return p, res
}

// readPayment reads the row's payment under the claim. A non-nil second
// result is the row's final, failed, result: nothing is to be sent. The
// error means the run is stopping and the row was left alone.
func (r *runner) readPayment(ctx context.Context, q *paymentQueue, t *task, res rowResult) (*api.Payment, *rowResult, error) {
	if err := r.wait(ctx); err != nil {
		return nil, nil, err
	}
	p, err := r.c.GetPayment(ctx, t.row.PaymentID)
	// A read the service failed for a while (a 5xx, a 429, a lost answer,
	// past the client's own retries) is tried again, as settling does:
	// nothing was sent, and the service answers reads.
	for round := 1; err != nil && round < settleRounds && ctx.Err() == nil && transient(r.o.Classify, err); round++ {
		if werr := r.wait(ctx); werr != nil {
			return nil, nil, werr
		}
		p, err = r.c.GetPayment(ctx, t.row.PaymentID)
	}
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	if err != nil {
		failed := readFailed(r.o.Classify, t, res, err)
		return nil, &failed, nil
	}
	if !q.disputeRead {
		q.dispute, q.disputeRead = openDispute(ctx, r.c, q.refunds, p), true
	}
	if q.firstRead {
		q.closedAtRead, q.firstRead = p.Status == api.StatusClosed, false
	}
	q.setPayment(p)
	r.resolveUnknown(q, p)
	return q.payment, nil, nil
}

// transient tells whether err is a failure a later request may not meet
// (the service failed, was busy, or its answer was lost).
func transient(classify ClassifyFunc, err error) bool {
	_, _, _, unknown := classify(err)
	return unknown
}

// readFailed is the result of a row whose payment could not be read:
// nothing was sent. A row an earlier run sent stays unknown.
func readFailed(classify ClassifyFunc, t *task, res rowResult, err error) rowResult {
	status, errorType, message, unknown := classify(err)
	res.Outcome, res.HTTPStatus, res.ErrorType = OutcomeFailed, status, errorType
	res.Message = "reading the payment: " + message + "; nothing was sent"
	res.journal = OutcomeFailed
	if unknown {
		// A re-run reads it again; a definite answer (no such payment,
		// say) is kept.
		res.journal = ""
	}
	if t.resumed {
		// An earlier run sent the row and its outcome is not known:
		// without the payment it still is not.
		res.Outcome, res.journal = OutcomeUnknown, OutcomeUnknown
		res.Message = "reading the payment: " + message + "; an earlier run sent this row and whether it moved money is unknown (a re-run reads the payment again)"
	}
	return res
}

// currencyMismatch is the refusal of a row whose currency column is not
// the payment's.
func currencyMismatch(row Row, p *api.Payment) string {
	return fmt.Sprintf("the row says %s, the payment is in %s", row.Currency, p.Currency)
}

// prepareMove settles the amounts to send and makes the checks the plan
// makes, against the payment as the earlier rows left it: what the plan
// refuses is refused here, nothing sent. stop is true when res is the
// row's final result.
func (r *runner) prepareMove(q *paymentQueue, t *task, p *api.Payment, req moveRequest, res rowResult) (moveRequest, rowResult, bool) {
	row := t.row
	if row.Op != OpClose {
		if t.amount == "" {
			var failed *rowResult
			if res, failed = r.resolveAmounts(q, t, p, res); failed != nil {
				return req, *failed, true
			}
		}
		var err error
		if req.amounts, err = parseAmounts(row, res.Amount); err != nil {
			res.Outcome, res.journal, res.Message = OutcomeFailed, OutcomeFailed, err.Error()
			return req, res, true
		}
		// A "full" row's amount is known only now: its parts are checked
		// here, with the rule rows of fixed amounts met when read.
		if row.Op == OpCapture {
			if field, msg := excessPart(row, res.Amount); msg != "" {
				return req, refused(res, field, msg), true
			}
		}
	}
	if field, msg := checkMove(row.Op, p, q.state, req.amount, r.o.now()); msg != "" {
		return req, refused(res, field, msg), true
	}
	if row.Op == OpClose {
		return req, res, false
	}
	if rep, found := r.repeatOf(q, row.Op, req.amount, req.referenceID); found {
		if !r.o.AllowRepeats {
			res = refused(res, "", rep.refusal())
			// Not journaled: a re-run judges the row again, so the same
			// command with --allow-repeats sends a move that is meant.
			res.ErrorType, res.journal = ErrorTypeRepeat, ""
			return req, res, true
		}
		// Meant, says --allow-repeats; said once per row, on stderr and in
		// the report, so that no repeat goes unseen.
		res.Message = "sent " + rep.allowed()
		r.warn("%s: line %d goes %s", r.o.Op, row.Line, rep.allowed())
	}
	return req, res, false
}

// resolveAmounts settles the amount to send, from the payment p read for
// a "full" row or for an amount with 3 places, which only some currencies
// allow. A non-nil second result is the row's final, failed, result:
// nothing is to be sent.
func (r *runner) resolveAmounts(q *paymentQueue, t *task, p *api.Payment, res rowResult) (rowResult, *rowResult) {
	row := t.row
	res.Amount = row.Amount
	if p != nil && row.Full() {
		remaining := q.state.remaining(row.Op)
		if !remaining.IsPositive() {
			field, msg := checkMove(row.Op, p, q.state, remaining, r.o.now())
			failed := refused(res, field, msg)
			failed.Amount = ""
			return res, &failed
		}
		res.Amount = money.Format(remaining, p.Currency)
	}
	return res, checkPlaces(q, res, row)
}

// checkPlaces applies the currency's places, once known, to the row's
// amounts; with the currency unknown no amount has more than two places,
// which every currency allows.
func checkPlaces(q *paymentQueue, res rowResult, row Row) *rowResult {
	if q.currency == "" {
		return nil
	}
	for _, a := range []struct{ name, value string }{
		{colAmount, res.Amount}, {colTaxAmount, row.TaxAmount}, {colShippingAmount, row.ShippingAmount}, {colDiscountAmount, row.DiscountAmount},
	} {
		if a.value == "" {
			continue
		}
		if _, err := money.Parse(a.value, q.currency); err != nil {
			failed := res
			failed.Outcome, failed.journal = OutcomeFailed, OutcomeFailed
			failed.Message = a.name + ": " + err.Error()
			return &failed
		}
	}
	return nil
}

// excessPart applies api.ExcessCapturePart, the rule of single captures,
// to a capture row sent with amount: tax, shipping and discount are each
// a part of the capture, at most its amount. It returns the column and
// what is wrong, or "" when the row is right (or its amounts do not parse,
// which is reported on its own).
func excessPart(row Row, amount string) (column, msg string) {
	a, err := parseAmounts(row, amount)
	if err != nil {
		return "", ""
	}
	field, part, found := api.ExcessCapturePart(a.amount, a.tax, a.shipping, a.discount)
	if !found {
		return "", ""
	}
	return field, fmt.Sprintf("%s is more than the capture amount %s: tax, shipping and discount are parts of the capture, each at most its amount", part, a.amount)
}

// refused is res failed before anything was sent, with why.
func refused(res rowResult, field, msg string) rowResult {
	res.Outcome, res.journal = OutcomeFailed, OutcomeFailed
	res.Message = refusal(field, msg)
	return res
}

// refusal is the report's message for a row refused before sending.
func refusal(field, msg string) string {
	if field != "" {
		msg = field + ": " + msg
	}
	return msg + "; nothing was sent"
}
