package bulk

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
)

// ErrorTypeRepeat marks, in the report, a row refused because the payment
// holds a settled move of the same op and amount that no row of the file
// accounts for.
const ErrorTypeRepeat = "possible_repeat"

// alreadyMade settles a row whose move the payment already shows, made by
// an earlier run (whose answer was lost, or whose journal is another) or
// by a run of the same moves from another file or command, which derives
// the same reference_id: reconciled, nothing sent, the run that moved it
// named when the ledger knows it. A close is made when the payment was
// CLOSED before this run's rows of it. It also refuses a reference_id the
// payment holds for another amount.
func (r *runner) alreadyMade(q *paymentQueue, t *task, p *api.Payment, res rowResult) (rowResult, bool) {
	row := t.row
	if row.Op == OpClose {
		if !q.closedAtRead {
			return res, false
		}
		res.Outcome, res.journal = OutcomeReconciled, OutcomeReconciled
		res.Message = "the payment is already CLOSED" + r.byWhom(t, "", &res) + ": nothing was sent"
		return res, true
	}
	want, amount := wantedAmounts(t)
	found, held := referenceConflict(row.Op, p, res.ReferenceID, want)
	switch {
	case !found:
		return res, false
	case held != "" && t.resumed:
		// An earlier run sent this row under ref; the payment holds
		// another amount there: that cannot be matched to the row.
		res.Outcome, res.journal, res.Message = OutcomeUnknown, OutcomeUnknown, unmatchedMessage(row.Op, p, res.ReferenceID)
		return res, true
	case held != "":
		res.Outcome, res.journal, res.ErrorType, res.Message = OutcomeFailed, OutcomeFailed, ErrorTypeConflict, held
		return res, true
	}
	if want == nil {
		res.Amount = money.Format(heldAmount(row.Op, p, res.ReferenceID), p.Currency)
	} else if res.Amount == "" {
		res.Amount = amount
	}
	res.Outcome, res.journal = OutcomeReconciled, OutcomeReconciled
	res.Message = fmt.Sprintf("already %s with this reference_id%s: nothing was sent", pastTense(row.Op), r.byWhom(t, res.ReferenceID, &res))
	return res, true
}

// wantedAmounts are the amounts a row's move must have to be the one the
// payment holds under its reference_id: nil for a "full" row, whose
// amount is not fixed (any amount there is the row's move).
func wantedAmounts(t *task) (*amounts, string) {
	if t.row.Full() {
		return nil, ""
	}
	amount := firstNonEmpty(t.sentAmount, t.amount, t.row.Amount)
	a, err := parseAmounts(t.row, amount)
	if err != nil {
		return nil, "" // left to the checks before sending
	}
	return &a, amount
}

// byWhom names the run that made a move found made: ", by run 12
// (process …), line 3 of caps.csv", or ", before this run (by no run this
// machine's ledger knows)"; it sets res.byRun. A move whose only send was
// a run's that ended without recording it (killed in flight, or left
// unknown) is that run's, and this run's summary counts it for it
// (res.adopted): no other summary did.
func (r *runner) byWhom(t *task, ref string, res *rowResult) string {
	if ended := r.ledger.Adopt(t.moveID); ended != nil {
		res.byRun, res.adopted = ended.ID, true
		return fmt.Sprintf(", by %s, which ended before it counted it (its money is counted in this run's summary, apart)", ended)
	}
	who, run := r.ledger.MadeBy(t.row.PaymentID, string(t.row.Op), ref)
	if who == "" {
		if sender := r.ledger.InDoubt(t.moveID); sender != nil {
			return fmt.Sprintf(", by %s, which sent it and has no answer yet (its money is counted by that run, or once it has ended by the next run that finds it)", sender)
		}
		if t.row.Op == OpClose {
			// A close moves no money: nothing to count apart.
			return ", before this run (by no bulk run this machine's ledger knows)"
		}
		return r.heldBefore(t, res)
	}
	res.byRun = run
	return ", by " + who
}

// heldBefore makes res a row whose move the payment held, sent by no run
// this machine's ledger knows: moved outside this ledger (another
// machine, a single command, an earlier run of an imported journal whose ledger
// is another or was deleted). Its money is counted apart, never as this
// run's nor as an ended run's, and the run warns, once, that another
// sender moves money of this file.
func (r *runner) heldBefore(t *task, res *rowResult) string {
	res.Outcome, res.journal = OutcomeHeldBefore, OutcomeReconciled
	r.otherSender()
	if t.resumed && t.journal != "" {
		return fmt.Sprintf(", before this run, by an earlier run of journal %s that this machine's ledger does not know "+
			"(run on another machine, or before the ledger was deleted; whether its summary counted it, this machine cannot tell): held before, counted apart", t.journal)
	}
	return ", before this run, by a send this machine's ledger does not know (another machine, or a tool or run that does not share this ledger): held before, counted apart"
}

// otherSender warns, once a run, that the ledger saw a move of this file
// it did not send: another machine or tool moves money of this file, and
// the runs of two ledgers cannot tell their moves apart.
func (r *runner) otherSender() {
	r.senderOnce.Do(func() {
		r.warn("%s: money of %s was moved outside this machine's ledger of bulk moves (another machine, or a tool or run that does not share it): "+
			"those rows are held_before, counted apart and never as this run's; runs that do not share one ledger cannot tell their moves apart, "+
			"and their summaries may not add up: give every run of this file one shared ledger with --ledger",
			r.o.Op, orRows(r.o.InputName))
	})
}

// orRows names the input, or "these rows" when it has no name.
func orRows(name string) string {
	if name == "" {
		return "these rows"
	}
	return name
}

// repeatOf finds a move of op and amount whose like the payment holds,
// settled, under a reference_id no row of this file sends: the move of a
// row edited since it ran (a fixed typo, a reference_id read in another
// encoding, yesterday's file changed), which sent again under its new
// identity the service would take as new. ok is false when there is none.
func (r *runner) repeatOf(q *paymentQueue, op Op, amount decimal.Decimal, ref string) (settledRepeat, bool) {
	heldRef, found := unaccounted(q.payment, op, amount, ref, q.fileRefs[op])
	if !found {
		return editedRepeat(q.payment, op, amount, ref, q.fileRefs[op], editsOf(r.ledger, r.o.InputName, r.sketch))
	}
	who, _ := r.ledger.MadeBy(q.paymentID, string(op), heldRef)
	return settledRepeat{op: op, amount: money.Display(amount, q.payment.Currency), heldRef: heldRef, who: who}, true
}

// editedRepeat finds a move of op that p holds, of another amount, under a
// reference_id that is neither ref nor one of accounted, which an earlier
// run of this input made (edited says so, naming it): the move of a row
// of this file whose amount was edited since it ran, which is no longer
// in it. Sent, the edited row would move the money again.
func editedRepeat(p *api.Payment, op Op, amount decimal.Decimal, ref string, accounted map[string]bool, edited editedFunc) (settledRepeat, bool) {
	if edited == nil {
		return settledRepeat{}, false
	}
	for _, h := range heldMoves(p, op) {
		if h.ref == ref || accounted[h.ref] || h.amount.Equal(amount) {
			continue
		}
		if who, ok := edited(p.ID, op, h.ref); ok {
			return settledRepeat{op: op, amount: money.Display(h.amount, p.Currency), heldRef: h.ref, who: who,
				rowAmount: money.Display(amount, p.Currency)}, true
		}
	}
	return settledRepeat{}, false
}

// editedFunc names the run, file and row that made the move p holds
// under ref, when the ledger knows it as made by an earlier run of this
// input; ok is false otherwise.
type editedFunc func(paymentID string, op Op, ref string) (who string, ok bool)

// heldMove is a capture or refund a payment holds.
type heldMove struct {
	ref    string
	amount decimal.Decimal
}

// heldMoves are the moves of op p holds.
func heldMoves(p *api.Payment, op Op) []heldMove {
	var out []heldMove
	switch op {
	case OpCapture:
		for _, c := range p.Captures {
			out = append(out, heldMove{c.ReferenceID, c.Amount})
		}
	case OpRefund:
		for _, rf := range p.Refunds {
			out = append(out, heldMove{rf.ReferenceID, rf.Amount})
		}
	}
	return out
}

// unaccounted finds a move of op and amount p holds under a reference_id
// that is neither ref nor one of accounted.
func unaccounted(p *api.Payment, op Op, amount decimal.Decimal, ref string, accounted map[string]bool) (string, bool) {
	check := func(heldRef string, heldAmount decimal.Decimal) bool {
		return heldAmount.Equal(amount) && heldRef != ref && !accounted[heldRef]
	}
	switch op {
	case OpCapture:
		for _, c := range p.Captures {
			if check(c.ReferenceID, c.Amount) {
				return c.ReferenceID, true
			}
		}
	case OpRefund:
		for _, rf := range p.Refunds {
			if check(rf.ReferenceID, rf.Amount) {
				return rf.ReferenceID, true
			}
		}
	}
	return "", false
}

// settledRepeat is a settled move of a payment that a row would repeat:
// its op and amount (as displayed), the reference_id it is held under,
// and the run, file and row that made it when the ledger knows them.
type settledRepeat struct {
	op              Op
	amount, heldRef string
	who             string
	// rowAmount is the row's own amount when it is not the move's: a row
	// whose amount was edited since that move was made by this input.
	rowAmount string
}

// held names the move held and who made it.
func (s settledRepeat) held() string {
	who := ""
	if s.who != "" {
		who = ", made by " + s.who
	}
	return fmt.Sprintf("the payment already holds a %s of %s under reference_id %s%s, which no row of this file accounts for",
		s.op, s.amount, s.heldRef, who)
}

// refusal is the refusal of a possible repeat, the plan's and the run's.
func (s settledRepeat) refusal() string {
	if s.rowAmount != "" {
		return s.held() + fmt.Sprintf(": if this row (%s) is that %s with its amount edited since it ran, sending it would %s %s more; "+
			"if it is a new %s, run again with --allow-repeats", s.rowAmount, s.op, s.op, s.rowAmount, s.op)
	}
	return s.held() + fmt.Sprintf(": if this row is that %s edited since it ran (a fixed typo, another encoding), sending it would %s the money again; "+
		"if it is a new %s of the same amount, run again with --allow-repeats", s.op, s.op, s.op)
}

// allowed is the warning of a possible repeat that goes as a new move
// with --allow-repeats, the plan's and the run's, after "goes" or "would
// go".
func (s settledRepeat) allowed() string {
	if s.rowAmount != "" {
		return fmt.Sprintf("as a new %s of %s with --allow-repeats, although %s (if this row is that %s with its amount edited since it ran, the money is %s twice)",
			s.op, s.rowAmount, s.held(), s.op, pastTense(s.op))
	}
	return fmt.Sprintf("as a new %s with --allow-repeats, although %s (if this row is that %s edited since it ran, the money is %s twice)",
		s.op, s.held(), s.op, pastTense(s.op))
}
