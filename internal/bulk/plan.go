package bulk

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
)

// PlanResult is what a run of rows would do, judged against the payments
// as read now, each row after the earlier rows of its payment.
type PlanResult struct {
	Total int
	// Go are the rows that would be sent; Made those whose move the
	// payment already holds (sent again they move nothing); Refused those
	// a run would refuse, with why.
	Go, Made int
	Refused  []RowError
	// Money is what the rows to go would move, per currency.
	Money map[string]decimal.Decimal
}

// String is the plan's summary line.
func (p PlanResult) String() string {
	line := fmt.Sprintf("plan: %d %s: %d would go, %d already made, %d refused", p.Total, plural(p.Total, "row", "rows"), p.Go, p.Made, len(p.Refused))
	if len(p.Money) > 0 {
		line += "; would move " + TotalsString(p.Money)
	}
	return line
}

// PlanError stops a dry run whose plan refuses rows. Exit 2: nothing was
// sent, and a real run would refuse the same rows.
type PlanError struct{ Plan PlanResult }

func (e *PlanError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d rows would be refused, nothing was sent:", len(e.Plan.Refused), e.Plan.Total)
	for i, r := range e.Plan.Refused {
		if i == maxListed {
			fmt.Fprintf(&b, "\n  ... and %d more", len(e.Plan.Refused)-maxListed)
			break
		}
		b.WriteString("\n  ")
		b.WriteString(r.String())
	}
	return b.String()
}

func (e *PlanError) ExitCode() int { return 2 }

func (e *PlanError) Hint() string {
	return "fix the rows listed (or remove them), then run the plan again"
}

// Plan reads every payment the rows name, concurrency at a time, and
// checks every row as a single move of op would be checked: the
// currency's places and the row's currency, what is left to capture or
// refund after the earlier rows of the same payment, the payment's status
// and an expired authorization, and a reference_id the payment holds for
// another amount. progress, when set, is called after each read.
//
// read reads one payment; a dry run passes a read that is sent even then.
func Plan(ctx context.Context, read func(ctx context.Context, id string) (*api.Payment, error), op Op, rows []Row, concurrency int, now time.Time, progress func(done, total int)) (PlanResult, error) {
	var ids []string
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.PaymentID] {
			seen[r.PaymentID] = true
			ids = append(ids, r.PaymentID)
		}
	}
	payments := make(map[string]*api.Payment, len(ids))
	readErrs := map[string]error{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(concurrency, 1))
	done := 0
	for _, id := range ids {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return PlanResult{}, ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			p, err := read(ctx, id)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				readErrs[id] = err
			} else {
				payments[id] = p
			}
			done++
			if progress != nil {
				progress(done, len(ids))
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return PlanResult{}, ctx.Err()
	}

	res := PlanResult{Total: len(rows), Money: map[string]decimal.Decimal{}}
	type state struct {
		status             string
		capturable, refund decimal.Decimal
	}
	states := map[string]*state{}
	for _, row := range rows {
		refuse := func(field, format string, args ...any) {
			res.Refused = append(res.Refused, RowError{Line: row.Line, PaymentID: row.PaymentID, Amount: row.Amount,
				ReferenceID: row.ReferenceID, Field: field, Message: fmt.Sprintf(format, args...)})
		}
		p := payments[row.PaymentID]
		if p == nil {
			refuse(colPaymentID, "cannot be read: %v", readErrs[row.PaymentID])
			continue
		}
		st := states[p.ID]
		if st == nil {
			st = &state{status: p.Status, capturable: p.Capturable(), refund: p.Refundable()}
			states[p.ID] = st
		}
		if row.Currency != "" && row.Currency != p.Currency {
			refuse(colCurrency, "the row says %s, the payment is in %s", row.Currency, p.Currency)
			continue
		}
		if op == OpClose {
			if st.status != api.StatusAuthorized {
				refuse("", "the payment is %s; only AUTHORIZED payments can be closed", st.status)
				continue
			}
			st.status = api.StatusClosed
			st.refund = p.Captured().Sub(p.Refunded())
			res.Go++
			continue
		}
		remaining, what, need := st.capturable, "capture", api.StatusAuthorized
		if op == OpRefund {
			remaining, what, need = st.refund, "refund", api.StatusClosed
		}
		var amount decimal.Decimal
		if row.Full() {
			amount = remaining
		} else {
			var err error
			if amount, err = money.Parse(row.Amount, p.Currency); err != nil {
				refuse(colAmount, "%v", err)
				continue
			}
		}
		if row.ReferenceID != "" {
			var want *decimal.Decimal
			if !row.Full() {
				want = &amount
			}
			// The parts were checked when the rows were read; "1" stands
			// for a full row's amount, which the check then ignores.
			a, _ := parseAmounts(row, "1")
			if found, held := ReferenceConflict(op, p, row.ReferenceID, want, a.tax, a.shipping, a.discount); found && held != "" {
				refuse(colReferenceID, "%s", held)
				continue
			} else if found {
				res.Made++
				continue
			}
		}
		switch {
		case st.status != need:
			refuse("", "the payment is %s; only %s payments can be %s", st.status, need, pastTense(op))
			continue
		case op == OpCapture && p.AuthorizationExpired(now):
			refuse("", "the authorization expired at %s: nothing can be captured", p.ExpiresAt.UTC().Format(time.RFC3339))
			continue
		case !amount.IsPositive():
			refuse(colAmount, "nothing left to %s after the earlier rows of this payment", what)
			continue
		case amount.GreaterThan(remaining):
			refuse(colAmount, "%s is more than the %s left to %s after the earlier rows of this payment", money.Display(amount, p.Currency), money.Display(remaining, p.Currency), what)
			continue
		}
		if op == OpCapture {
			st.capturable = st.capturable.Sub(amount)
			if !st.capturable.IsPositive() {
				st.status = api.StatusClosed // the whole remainder closes the payment
				st.refund = p.Captured().Add(p.Amount.Sub(p.Captured())).Sub(p.Refunded())
			}
		} else {
			st.refund = st.refund.Sub(amount)
		}
		res.Go++
		res.Money[p.Currency] = res.Money[p.Currency].Add(amount)
	}
	return res, nil
}
