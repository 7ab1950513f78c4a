package bulk

import "sort"

// skippedResults turns the invalid rows into report lines, one per input
// line whatever the number of problems on it.
func skippedResults(op Op, invalid []RowError) []rowResult {
	byLine := map[int]*rowResult{}
	var lines []int
	for _, e := range invalid {
		res := byLine[e.Line]
		if res == nil {
			if e.Op == "" && op.valid() {
				e.Op = op
			}
			res = &rowResult{Line: e.Line, Op: e.Op, PaymentID: e.PaymentID, Amount: e.Amount, ReferenceID: e.ReferenceID, Outcome: OutcomeSkipped, Message: "invalid: "}
			byLine[e.Line] = res
			lines = append(lines, e.Line)
		} else {
			res.Message += "; "
		}
		if e.Field != "" {
			res.Message += e.Field + " "
		}
		res.Message += e.Message
	}
	sort.Ints(lines)
	out := make([]rowResult, 0, len(lines))
	for _, l := range lines {
		out = append(out, *byLine[l])
	}
	return out
}

// settledResult reports whether an earlier run recorded a final answer for the
// row, and that answer as a report line.
func settledResult(row Row, e *journalEntry, retryFailed bool) (rowResult, bool) {
	rec := e.result
	if rec == nil {
		return rowResult{}, false
	}
	switch {
	case rec.Outcome == OutcomeOK, rec.Outcome == OutcomeReconciled:
	case rec.Outcome == OutcomeFailed && !retryFailed:
	default:
		return rowResult{}, false
	}
	msg := "settled by an earlier run"
	if rec.Message != "" {
		msg += ": " + rec.Message
	}
	return rowResult{
		Line: row.Line, Op: row.Op, PaymentID: row.PaymentID, ReferenceID: rec.ReferenceID, Amount: rec.Amount,
		Outcome: rec.Outcome, HTTPStatus: rec.HTTPStatus, ErrorType: rec.ErrorType, Message: msg,
		PaymentStatus: rec.PaymentStatus, earlier: true,
	}, true
}
