package bulk

import (
	"context"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
)

// moveRequest is what a row sends, whatever the op.
type moveRequest struct {
	referenceID string
	reason      string
	amounts
}

type amounts struct {
	amount                  decimal.Decimal
	tax, shipping, discount *decimal.Decimal
}

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

// sendMove sends a row's move and reads the answer. The send is recorded
// first, in the ledger: a run that dies while it is in flight leaves a
// re-run to read the payment before sending it again.
func (r *runner) sendMove(ctx context.Context, q *paymentQueue, t *task, req moveRequest, res rowResult) rowResult {
	row := t.row
	if r.wait(ctx) != nil || ctx.Err() != nil {
		return rowResult{notSent: true}
	}
	if err := r.ledger.MarkSent(t.moveID, res.ReferenceID, res.Amount); err != nil {
		r.halt(r.ledger.Stopped(err))
		return rowResult{notSent: true}
	}
	// The request is in flight from here: Ctrl-C must not cut it off, or
	// its outcome would become unknown for no gain.
	reqCtx := context.WithoutCancel(ctx)
	if r.o.RowTimeout > 0 {
		var cancel context.CancelFunc
		reqCtx, cancel = context.WithTimeout(reqCtx, r.o.RowTimeout)
		defer cancel()
	}
	moved, err := r.send(reqCtx, row.Op, row.PaymentID, req)
	// A status read before sending is stale now; only the answer tells.
	res.PaymentStatus = ""
	if err != nil {
		return r.failedSend(q, t, req, res, moved, err)
	}
	return r.answered(q, t, req, res, moved)
}

func (r *runner) send(ctx context.Context, op Op, paymentID string, req moveRequest) (*api.MoveResult, error) {
	switch op {
	case OpCapture:
		return r.c.Capture(ctx, paymentID, api.CaptureRequest{
			Amount: req.amount, ReferenceID: req.referenceID,
			TaxAmount: req.tax, ShippingAmount: req.shipping, DiscountAmount: req.discount,
		})
	case OpRefund:
		return r.c.Refund(ctx, paymentID, api.RefundRequest{Amount: req.amount, ReferenceID: req.referenceID, Reason: req.reason})
	default:
		return r.c.Close(ctx, paymentID)
	}
}

func parseAmounts(row Row, amount string) (amounts, error) {
	var a amounts
	var err error
	if a.amount, err = money.Parse(amount, ""); err != nil {
		return a, err
	}
	optional := func(s string) (*decimal.Decimal, error) {
		if s == "" {
			return nil, nil
		}
		d, err := money.Parse(s, "")
		return &d, err
	}
	if a.tax, err = optional(row.TaxAmount); err != nil {
		return a, err
	}
	if a.shipping, err = optional(row.ShippingAmount); err != nil {
		return a, err
	}
	a.discount, err = optional(row.DiscountAmount)
	return a, err
}
