package bulk

import (
	"fmt"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// answered reads the service's 2xx to a row's move. The move is this
// run's: it held the payment's claim from the read before sending to the
// answer, and that read did not show the move (alreadyMade settles a row
// whose move it shows, without a request), so no earlier send can explain
// it. Whatever the service's clock says: no time is compared.
func (r *runner) answered(q *paymentQueue, t *task, req moveRequest, res rowResult, moved *api.MoveResult) rowResult {
	row := t.row
	res.Outcome, res.moved = OutcomeOK, true
	if moved == nil {
		q.state.apply(row.Op, req.amount)
		res.journal = journalOutcome(res.Outcome)
		return res
	}
	switch {
	case moved.MadeBefore:
		// The service refused a repeat, none of this run's attempts
		// of unknown outcome, and the payment shows the move: it was
		// made before this run sent anything, by a send this machine's
		// ledger does not know.
		res.Outcome, res.moved = OutcomeReconciled, false
		res.Message = fmt.Sprintf("already %s with this reference_id before this run sent it, by a send this machine's ledger does not know (another machine, or a tool or run that does not share this ledger): nothing moved now", pastTense(row.Op))
		if row.Op != OpClose {
			// A close moves no money: nothing to count apart.
			res.Outcome = OutcomeHeldBefore
			res.Message += "; held before, counted apart"
			r.otherSender()
		}
	case moved.Reconciled:
		res.Message = fmt.Sprintf("%s by this run: its answer was lost, and the payment shows the move", pastTense(row.Op))
	}
	if moved.Payment == nil {
		q.state.apply(row.Op, req.amount)
		res.journal = journalOutcome(res.Outcome)
		return res
	}
	q.setPayment(moved.Payment)
	q.state.earlier++
	res.PaymentStatus, res.currency = moved.Payment.Status, moved.Payment.Currency
	// The service answers a reference_id it has seen with the payment as
	// it is, moving nothing: the move is made only if the payment holds
	// it with this row's amounts.
	if row.Op != OpClose {
		if found, held := referenceConflict(row.Op, moved.Payment, req.referenceID, &req.amounts); !found || held != "" {
			res.Outcome, res.moved = OutcomeUnknown, false
			res.Message = unmatchedMessage(row.Op, moved.Payment, req.referenceID)
			q.unresolved = append(q.unresolved, unresolvedRow{t: t, res: res, req: req})
		}
	}
	res.journal = journalOutcome(res.Outcome)
	return res
}

// failedSend reads an error of a row's move: a definite refusal, or an
// unknown outcome (no answer, a 5xx), which the next read of the payment
// may settle.
func (r *runner) failedSend(q *paymentQueue, t *task, req moveRequest, res rowResult, moved *api.MoveResult, err error) rowResult {
	status, errorType, message, unknown := r.o.Classify(err)
	res.Outcome, res.HTTPStatus, res.ErrorType, res.Message = OutcomeFailed, status, errorType, message
	res.moved, res.journal = false, OutcomeFailed
	if moved != nil && moved.Payment != nil {
		res.currency = moved.Payment.Currency // for the summary's totals
		res.PaymentStatus = moved.Payment.Status
	}
	if unknown {
		res.Outcome, res.journal = OutcomeUnknown, OutcomeUnknown
		res.PaymentStatus = ""
		res.Message += unknownHint
		q.unresolved = append(q.unresolved, unresolvedRow{t: t, res: res, req: req})
	}
	return res
}

// unknownHint ends the message of a row of unknown outcome.
const unknownHint = " (outcome unknown: running the same command again reads the payment and re-sends the row with the same reference_id only if the move is not there)"

// resolveUnknown settles, once the payment is read again under the same
// claim, the rows of unknown outcome whose move it now shows: they were
// sent by this run, while it held the claim, to a payment that did not
// show them, so the money is this run's. The others stay unknown.
func (r *runner) resolveUnknown(q *paymentQueue, p *api.Payment) {
	var still []unresolvedRow
	for _, u := range q.unresolved {
		if !madeOn(u.t.row.Op, p, u.req) {
			still = append(still, u)
			continue
		}
		res := u.res
		res.Outcome, res.moved, res.journal = OutcomeOK, true, OutcomeOK
		res.HTTPStatus, res.ErrorType = 0, ""
		res.PaymentStatus, res.currency = p.Status, p.Currency
		res.Message = fmt.Sprintf("%s by this run: its outcome was unknown and the payment read before the next row shows the move", pastTense(u.t.row.Op))
		r.settleRow(u.t, res)
	}
	q.unresolved = still
}

// madeOn reports whether p shows the move req of op: a capture or refund
// under its reference_id with its amount, or the payment CLOSED.
func madeOn(op Op, p *api.Payment, req moveRequest) bool {
	if op == OpClose {
		return p.Status == api.StatusClosed
	}
	found, held := referenceConflict(op, p, req.referenceID, &req.amounts)
	return found && held == ""
}

// journalOutcome is the outcome the journal records for a row's: a move
// held before is reconciled there (settled, nothing to send again).
func journalOutcome(o Outcome) Outcome {
	if o == OutcomeHeldBefore {
		return OutcomeReconciled
	}
	return o
}
