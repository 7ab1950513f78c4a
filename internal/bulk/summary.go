package bulk

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/money"
)

// Summary counts the rows of a run by outcome, each row once: Total is OK
// + Reconciled + HeldBefore + Failed + Unknown + Skipped + NotSent. Rows settled by an earlier
// run of the same journal are counted under their recorded outcome and also
// in Earlier, so a re-run gives the same verdict until the failures are
// dealt with.
type Summary struct {
	Total      int `json:"total"`
	OK         int `json:"ok"`
	Reconciled int `json:"reconciled"`
	// HeldBefore are rows whose move the payment held before this run,
	// sent by no run this machine's ledger knows: moved outside it.
	HeldBefore int `json:"held_before"`
	Failed     int `json:"failed"`
	// Unknown are rows whose move may or may not have moved money.
	Unknown int `json:"unknown"`
	// Skipped are invalid rows passed over with SkipInvalid.
	Skipped int `json:"skipped"`
	// NotSent are rows an interruption left untouched.
	NotSent     int  `json:"not_sent"`
	Earlier     int  `json:"earlier"`
	Interrupted bool `json:"interrupted"`
	// Moved is the money this run moved, per currency: its rows ok, each
	// a move it sent while it held the payment's claim, to a payment that
	// did not show the move before. Never a move found already made, nor
	// a row an earlier run settled; no clock is compared.
	Moved map[string]string `json:"moved,omitempty"`
	// FailedAmounts and NotSentAmounts are the amounts of this run's
	// failed and not-sent rows, per currency, for the rows whose amount
	// and currency are known (a "full" row not yet read has no amount; a
	// payment never read or answered, no currency). Unpriced counts the
	// failed and not-sent rows left out of those totals for that reason.
	FailedAmounts  map[string]string `json:"failed_amounts,omitempty"`
	NotSentAmounts map[string]string `json:"not_sent_amounts,omitempty"`
	// UnknownAmounts are the amounts of the rows of unknown outcome.
	UnknownAmounts map[string]string `json:"unknown_amounts,omitempty"`
	Unpriced       int               `json:"unpriced,omitempty"`

	// MovedByOp splits Moved by move (capture, refund), for a file of
	// mixed rows.
	MovedByOp map[Op]map[string]string `json:"moved_by_op,omitempty"`

	// MovedByEndedRuns is the money of moves this run found made whose
	// only send was a run's that ended without recording it (killed while
	// the request was in flight, or left of unknown outcome): no summary
	// of that run counted it, so this one does, apart from Moved. The sum
	// of Moved and MovedByEndedRuns over every run is what the service
	// holds of their moves.
	MovedByEndedRuns map[string]string `json:"moved_by_ended_runs,omitempty"`

	// HeldBeforeAmounts is the money of the rows held before: moved
	// outside this ledger, by a sender it does not know (another machine,
	// a tool), so never in Moved nor in MovedByEndedRuns. One machine's
	// ledger cannot tell whose summary counts it.
	HeldBeforeAmounts map[string]string `json:"held_before_amounts,omitempty"`

	// repeats counts the failed rows refused as possible repeats of a
	// settled move, for the hint.
	repeats int

	moved, failed, notSent, unknown, movedByEnded, heldBefore map[string]decimal.Decimal
	movedByOp                                                 map[Op]map[string]decimal.Decimal
}

// String is the final summary line.
func (s Summary) String() string {
	line := fmt.Sprintf("%d %s: %d ok, %d reconciled, ", s.Total, plural(s.Total, "row", "rows"), s.OK, s.Reconciled)
	if s.HeldBefore > 0 {
		line += fmt.Sprintf("%d held before, ", s.HeldBefore)
	}
	line += fmt.Sprintf("%d failed, ", s.Failed)
	if s.Unknown > 0 {
		line += fmt.Sprintf("%d of unknown outcome, ", s.Unknown)
	}
	line += fmt.Sprintf("%d skipped, %d not sent", s.Skipped, s.NotSent)
	if s.Earlier > 0 {
		line += fmt.Sprintf(" (%d settled by an earlier run)", s.Earlier)
	}
	if len(s.moved) > 0 {
		line += "; moved " + TotalsString(s.moved) + byOpString(s.movedByOp, "ed")
	} else if s.Total > 0 {
		line += "; nothing moved"
	}
	if len(s.movedByEnded) > 0 {
		line += "; found moved by runs that ended before they recorded it " + TotalsString(s.movedByEnded)
	}
	if len(s.heldBefore) > 0 {
		line += "; held before this run, moved outside this ledger " + TotalsString(s.heldBefore)
	}
	if len(s.failed) > 0 {
		line += "; failed " + TotalsString(s.failed)
	}
	if len(s.unknown) > 0 {
		line += "; unknown " + TotalsString(s.unknown)
	}
	if len(s.notSent) > 0 {
		line += "; not sent " + TotalsString(s.notSent)
	}
	if s.Unpriced > 0 {
		line += fmt.Sprintf(" (%d %s of unknown amount or currency not totalled)", s.Unpriced, plural(s.Unpriced, "row", "rows"))
	}
	if s.Interrupted {
		line += "; interrupted"
	}
	return line
}

// byOpString splits a total by move, " (capture 100.00 AED; refund 20.00
// AED)", when more than one move makes it; "" otherwise. verb picks the
// words: "" for the moves' names, "ed" for what was done.
func byOpString(byOp map[Op]map[string]decimal.Decimal, verb string) string {
	if len(byOp) < 2 {
		return ""
	}
	var parts []string
	for _, op := range []Op{OpCapture, OpRefund} {
		if m := byOp[op]; len(m) > 0 {
			name := string(op)
			if verb != "" {
				name = pastTense(op)
			}
			parts = append(parts, name+" "+TotalsString(m))
		}
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// addTo adds amount in cur to m[op].
func addTo(m map[Op]map[string]decimal.Decimal, op Op, cur string, amount decimal.Decimal) {
	if m[op] == nil {
		m[op] = map[string]decimal.Decimal{}
	}
	m[op][cur] = m[op][cur].Add(amount)
}

// TotalsString writes amounts per currency, in currency order: "120.00
// AED, 35.500 KWD".
func TotalsString(m map[string]decimal.Decimal) string {
	curs := make([]string, 0, len(m))
	for c := range m {
		curs = append(curs, c)
	}
	sort.Strings(curs)
	parts := make([]string, len(curs))
	for i, c := range curs {
		parts[i] = money.Display(m[c], c)
	}
	return strings.Join(parts, ", ")
}

func (s *Summary) count(res rowResult) {
	switch {
	case res.notSent:
		s.NotSent++
	case res.Outcome == OutcomeOK:
		s.OK++
	case res.Outcome == OutcomeReconciled:
		s.Reconciled++
	case res.Outcome == OutcomeHeldBefore:
		s.HeldBefore++
	case res.Outcome == OutcomeFailed:
		s.Failed++
		if res.ErrorType == ErrorTypeRepeat {
			s.repeats++
		}
	case res.Outcome == OutcomeUnknown:
		s.Unknown++
	case res.Outcome == OutcomeSkipped:
		s.Skipped++
		return
	}
	if res.earlier {
		s.Earlier++
	}
	if res.Op == OpClose || (res.earlier && !res.adopted) {
		return // a close moves no amount of its own: nothing to total
	}
	total := s.totalOf(res)
	if total == nil {
		return
	}
	// Only a valid amount of its currency is totalled: 10.005 AED is
	// counted apart, never rounded into a total.
	d, err := money.Parse(res.Amount, res.currency)
	if res.Amount == "" || res.currency == "" || err != nil {
		if total != &s.moved && total != &s.movedByEnded && total != &s.heldBefore {
			s.Unpriced++
		}
		return
	}
	if *total == nil {
		*total = map[string]decimal.Decimal{}
	}
	(*total)[res.currency] = (*total)[res.currency].Add(d)
	if total == &s.moved {
		if s.movedByOp == nil {
			s.movedByOp = map[Op]map[string]decimal.Decimal{}
		}
		addTo(s.movedByOp, res.Op, res.currency, d)
	}
	s.strings()
}

// totalOf is the total a row's amount counts in; nil for none.
func (s *Summary) totalOf(res rowResult) *map[string]decimal.Decimal {
	switch {
	case res.moved:
		return &s.moved
	case res.adopted:
		return &s.movedByEnded
	case res.Outcome == OutcomeHeldBefore:
		return &s.heldBefore
	case res.notSent:
		return &s.notSent
	case res.Outcome == OutcomeFailed:
		return &s.failed
	case res.Outcome == OutcomeUnknown:
		return &s.unknown
	}
	return nil
}

// strings sets the exported totals from the exact ones.
func (s *Summary) strings() {
	s.Moved, s.FailedAmounts, s.NotSentAmounts = movedStrings(s.moved), movedStrings(s.failed), movedStrings(s.notSent)
	s.UnknownAmounts, s.MovedByEndedRuns = movedStrings(s.unknown), movedStrings(s.movedByEnded)
	s.HeldBeforeAmounts = movedStrings(s.heldBefore)
	s.MovedByOp = nil
	for op, m := range s.movedByOp {
		if s.MovedByOp == nil {
			s.MovedByOp = map[Op]map[string]string{}
		}
		s.MovedByOp[op] = movedStrings(m)
	}
}

// AmountStrings writes amounts per currency with each currency's places,
// as the JSON summaries give them.
func AmountStrings(m map[string]decimal.Decimal) map[string]string { return movedStrings(m) }

func movedStrings(m map[string]decimal.Decimal) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for cur, d := range m {
		out[cur] = money.Format(d, cur)
	}
	return out
}
