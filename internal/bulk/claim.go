package bulk

import (
	"context"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

// claim takes q's payment for this run, and sets what the rows of this
// turn start from: the payment is read again under the claim unless this
// run held it last (another run may have moved money on it since), and
// the file's moves of it are read from the ledger once.
func (r *runner) claim(ctx context.Context, q *paymentQueue) error {
	kept, err := r.ledger.Claim(ctx, q.paymentID, !q.claimed, func(holder *ledger.RunInfo) { r.announceWait(q.paymentID, holder) })
	if err == nil && q.fileRefs == nil {
		q.fileRefs, err = fileRefsOf(r.ledger, q.paymentID)
	}
	if err != nil {
		if ctx.Err() == nil {
			r.halt(r.ledger.Stopped(err))
		}
		return err
	}
	// The state's count of earlier rows, and whether the payment was
	// CLOSED before this run's rows, carry over from an earlier turn.
	// Once another run has held the payment, what this run knew of it is
	// read again, and its rows still unknown stay so: that run may have
	// sent them, and a read would not tell whose send moved the money.
	if !kept {
		q.payment, q.unresolved = nil, nil
	}
	if !q.claimed {
		q.claimed, q.firstRead = true, true
	}
	return nil
}

// announceWait says, once per run waited for, which run holds what this
// one waits for.
func (r *runner) announceWait(paymentID string, holder *ledger.RunInfo) {
	r.waitMu.Lock()
	defer r.waitMu.Unlock()
	if r.told[holder.ID] {
		return
	}
	if r.told == nil {
		r.told = map[int64]bool{}
	}
	r.told[holder.ID] = true
	r.notice("%s: waiting for payment %s, held by another bnpl %s; its moves are sent by one run at a time",
		r.o.Op, paymentID, holder)
}
