package bulk

import (
	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

// A run keeps its record in the ledger (package ledger): these turn its
// rows into the ledger's and back, and count its summary from them.

// ledgerRow is res as the ledger records it.
func (res rowResult) ledgerRow() ledger.Row {
	return ledger.Row{
		Line: res.Line, Op: string(res.Op), PaymentID: res.PaymentID, ReferenceID: res.ReferenceID,
		Amount: res.Amount, Currency: res.currency, Outcome: string(res.Outcome), HTTPStatus: res.HTTPStatus,
		ErrorType: res.ErrorType, Message: res.Message, PaymentStatus: res.PaymentStatus,
		Moved: res.moved, Earlier: res.earlier, Adopted: res.adopted, ByRun: res.byRun,
	}
}

// fromLedger is a row the ledger holds as a report line. A row no outcome
// was recorded for was not sent.
func fromLedger(r ledger.Row) rowResult {
	res := rowResult{
		Line: r.Line, Op: Op(r.Op), PaymentID: r.PaymentID, ReferenceID: r.ReferenceID, Amount: r.Amount,
		currency: r.Currency, Outcome: Outcome(r.Outcome), HTTPStatus: r.HTTPStatus, ErrorType: r.ErrorType,
		Message: r.Message, PaymentStatus: r.PaymentStatus, moved: r.Moved, earlier: r.Earlier,
		adopted: r.Adopted, byRun: r.ByRun,
	}
	switch {
	case r.SentUnsettled:
		res.Outcome, res.Message = OutcomeUnknown, sentUnsettled
	case res.Outcome == "" || res.Outcome == OutcomeNotSent:
		res.Outcome, res.notSent = OutcomeNotSent, true
	}
	return res
}

// sentUnsettled is the report's message for a row sent by a run that
// stopped before it recorded the answer.
const sentUnsettled = "sent, and the run stopped before it recorded the answer: whether it moved money is unknown" +
	" (running the same command again reads the payment, counts the move if it is there, and re-sends the row with the same reference_id only if it is not)"

// ledgerRows are skipped rows as the ledger records them.
func ledgerRows(skipped []rowResult) []ledger.Row {
	out := make([]ledger.Row, len(skipped))
	for i, res := range skipped {
		out[i] = res.ledgerRow()
	}
	return out
}

// eachRunRow calls fn with each row of the run as the ledger holds it, in
// input order.
func eachRunRow(l *ledger.Ledger, fn func(rowResult) error) error {
	return l.EachRunRow(func(r ledger.Row) error { return fn(fromLedger(r)) })
}

// ledgerSummary is the run's summary, a query over its rows in the
// ledger: what the report says, counted.
func ledgerSummary(l *ledger.Ledger) (Summary, error) {
	var s Summary
	err := eachRunRow(l, func(res rowResult) error {
		s.Total++
		s.count(res)
		return nil
	})
	// Rows left untouched mean the run did not finish, whatever stopped
	// it; a cancellation that came after the last row changes nothing.
	s.Interrupted = s.NotSent > 0
	return s, err
}

// madeByOf is l's MadeBy for the plan, which names ops as bulk does.
func madeByOf(l *ledger.Ledger) func(paymentID string, op Op, ref string) (string, int64) {
	return func(paymentID string, op Op, ref string) (string, int64) { return l.MadeBy(paymentID, string(op), ref) }
}

// fileRefsOf are the reference_ids the run's rows of paymentID send, by
// op (see ledger.FileRefs).
func fileRefsOf(l *ledger.Ledger, paymentID string) (map[Op]map[string]bool, error) {
	refs, err := l.FileRefs(paymentID)
	out := make(map[Op]map[string]bool, len(refs))
	for op, set := range refs {
		out[Op(op)] = set
	}
	return out, err
}

// editsOf is the editedFunc of ledger l for an input whose rows' sketch
// is sketch (see InputIdentity), named input: a move made by a run of
// the same input, edited or not: a run of a file of the same name (every
// amount of it edited), or, whatever its path, a run whose sketch shares
// at least half of this one's (a renamed or copied file, one amount
// edited, is the same input). A false
// match refuses a row, never sends one twice. nil without a ledger, or
// without a sketch and a file name (rows from stdin or a pipe are then
// known by their sketch alone).
func editsOf(l *ledger.Ledger, input string, sketch []uint64) editedFunc {
	base := inputName(input)
	if l == nil || (base == "" && len(sketch) == 0) {
		return nil
	}
	same := map[int64]bool{}
	return func(paymentID string, op Op, ref string) (string, bool) {
		who, run := l.MadeBy(paymentID, string(op), ref)
		if run == 0 {
			return "", false
		}
		ok, seen := same[run]
		if !seen {
			ok = (base != "" && inputName(l.RunInput(run)) == base) || sameInput(sketch, parseSketch(l.InputSketch(run)))
			same[run] = ok
		}
		return who, ok
	}
}
