package bulk

import (
	"context"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// moveRequest is what a row sends, whatever the op.
type moveRequest struct {
	referenceID string
	reason      string
	amounts
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
