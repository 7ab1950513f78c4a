package bulk

import (
	"context"
	"fmt"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// settleRounds bounds the reads (and sends again) that settle, before a
// payment's claim is given back, its rows of unknown outcome.
const settleRounds = 4

// settleUnresolved settles, before the payment's claim is given back,
// the rows of this turn whose outcome is unknown (a lock, a 5xx, an
// answer lost): the payment is read, and a row whose move it shows is
// this run's (it held the claim from the read before sending, see
// resolveUnknown); a row whose move it does not show at all is sent again
// with its reference_id and amount, which the service never applies
// twice. A row whose reference_id the payment holds for another amount is
// not sent: what it holds is no move this row can claim. Only what no read
// could settle is left unknown. Nothing is read or sent once the run
// stops.
func (r *runner) settleUnresolved(ctx context.Context, q *paymentQueue) {
	for round := 0; round < settleRounds && len(q.unresolved) > 0; round++ {
		if r.wait(ctx) != nil || ctx.Err() != nil {
			return
		}
		p, err := r.c.GetPayment(ctx, q.paymentID)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			continue // the next round reads again
		}
		q.setPayment(p)
		r.resolveUnknown(q, p)
		pending := q.unresolved
		q.unresolved = nil
		for _, u := range pending {
			if ctx.Err() != nil || !absent(u.t.row.Op, q.payment, u.req) {
				q.unresolved = append(q.unresolved, u)
				continue
			}
			res := rowResult{Line: u.t.row.Line, Op: u.t.row.Op, PaymentID: u.t.row.PaymentID, ReferenceID: u.res.ReferenceID,
				Amount: u.res.Amount, currency: q.currency,
				Message: fmt.Sprintf("sent again: its outcome was unknown (%s) and the payment read after it showed no move under its reference_id", strings.TrimSuffix(u.res.Message, unknownHint))}
			res = r.sendMove(ctx, q, u.t, u.req, res)
			if res.notSent {
				q.unresolved = append(q.unresolved, u)
				return
			}
			r.settleRow(u.t, completed(u.t, res))
		}
	}
}

// absent reports whether p shows nothing of the move req of op: no
// capture or refund under its reference_id, or, for a close, a payment
// still AUTHORIZED. Only then is the move sent again.
func absent(op Op, p *api.Payment, req moveRequest) bool {
	switch op {
	case OpCapture:
		return p.CaptureByReference(req.referenceID) == nil && p.Status == api.StatusAuthorized
	case OpRefund:
		return p.RefundByReference(req.referenceID) == nil
	}
	return p.Status == api.StatusAuthorized
}
