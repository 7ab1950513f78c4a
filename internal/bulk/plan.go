package bulk

import (
	"context"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// PlanResult is what a run of rows would do, judged against the payments
// as read now, each row after the earlier rows of its payment.
type PlanResult struct {
	Total int
	// Go are the rows that would be sent; Made those whose move the
	// payment already holds (sent again they move nothing); Refused those
	// a run would refuse, with why.
	Go, Made int
	// Refused lists the first MaxPlanRefusals refused rows, in input
	// order; RefusedCount counts them all.
	Refused      []RowError
	RefusedCount int
	// Money is what the rows to go would move, per currency; ByOp
	// splits it by move, for a file of mixed rows.
	Money map[string]decimal.Decimal
	ByOp  map[Op]map[string]decimal.Decimal
	// Repeats counts the rows to go that repeat a settled move of the
	// same payment, op and amount that no row accounts for: they go only
	// with --allow-repeats; RepeatsRefused counts those refused without
	// it. RepeatRows lists the first MaxPlanRefusals of those to go, in
	// input order, each with the move it repeats.
	Repeats, RepeatsRefused int
	RepeatRows              []RowError
}

// String is the plan's summary line.
func (p PlanResult) String() string {
	line := fmt.Sprintf("plan: %d %s: %d would go, %d already made, %d refused", p.Total, plural(p.Total, "row", "rows"), p.Go, p.Made, p.RefusedCount)
	if len(p.Money) > 0 {
		line += "; would move " + TotalsString(p.Money) + byOpString(p.ByOp, "")
	}
	if p.Repeats > 0 {
		line += fmt.Sprintf("; %d %s a settled move of the same payment and amount, going as new with --allow-repeats",
			p.Repeats, plural(p.Repeats, "row repeats", "rows repeat"))
	}
	return line
}

// RepeatLines are the lines that list, after the plan's summary, the rows
// that would go as new although they repeat a settled move: the first
// few, and how many more.
func (p PlanResult) RepeatLines() []string {
	var lines []string
	for i, r := range p.RepeatRows {
		if i == maxListed {
			lines = append(lines, fmt.Sprintf("  ... and %d more", p.Repeats-maxListed))
			break
		}
		lines = append(lines, "  "+r.String())
	}
	return lines
}

// MaxPlanRefusals bounds the refused rows a plan keeps: a file of
// millions of rows, all refused, must not be held in memory to say so.
const MaxPlanRefusals = 1000

// PlanError stops a dry run whose plan refuses rows. Exit 2: nothing was
// sent, and a real run would refuse the same rows.
type PlanError struct{ Plan PlanResult }

func (e *PlanError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d rows would be refused, nothing was sent:", e.Plan.RefusedCount, e.Plan.Total)
	for i, r := range e.Plan.Refused {
		if i == maxListed {
			fmt.Fprintf(&b, "\n  ... and %d more", e.Plan.RefusedCount-maxListed)
			break
		}
		b.WriteString("\n  ")
		b.WriteString(r.String())
	}
	return b.String()
}

func (e *PlanError) ExitCode() int { return 2 }

func (e *PlanError) Hint() string {
	hint := "fix the rows listed (or remove them), then run the plan again"
	if e.Plan.RepeatsRefused > 0 {
		hint += "; a row refused as a possible repeat that is a new move goes with --allow-repeats"
	}
	return hint
}

// DisputeReader reads the disputes of one payment (live payments only).
// A Client that is one lets a refund run refuse, before sending, a refund
// under an open dispute, as a single refund does.
type DisputeReader interface {
	PaymentDisputes(ctx context.Context, paymentID string) ([]api.Dispute, error)
}

// Plan reads every payment the rows name, concurrency at a time, and
// checks every row as a single move of its op would be checked: the
// currency's places and the row's currency, what is left to capture or
// refund after the earlier rows of the same payment, the payment's status,
// an expired authorization, an open dispute (for refunds, when disputes is
// a DisputeReader) and a reference_id the payment holds for another
// amount. progress, when set, is called after each read.
//
// read reads one payment; a dry run passes a read that is sent even then.
// op is the run's: a row without an Op of its own makes that move. prefix
// is the run's Options.ReferencePrefix: a row without a reference_id is
// checked under the one a run derives for it, so that a move an earlier
// run of the file made counts as already made.
func Plan(ctx context.Context, read func(ctx context.Context, id string) (*api.Payment, error), disputes DisputeReader, op Op, rows []Row, concurrency int, now time.Time, prefix string, progress func(done, total int)) (PlanResult, error) {
	fillOp(op, rows)
	var set PaymentSet
	for _, r := range rows {
		set.Add(r)
	}
	pl, err := NewPlanner(ctx, read, disputes, &set, concurrency, now, prefix, progress)
	if err != nil {
		return PlanResult{}, err
	}
	for _, r := range rows {
		pl.Check(r)
	}
	return pl.Result(), nil
}

// PaymentSet is the payments rows name, in the order first named, and
// which of them some row refunds; what a plan reads before it checks
// the rows, kept while the rows themselves are not.
type PaymentSet struct {
	ids     []string
	refunds map[string]bool
	rows    map[string]int // rows per payment
}

// Add counts the payment of row.
func (s *PaymentSet) Add(row Row) {
	if s.refunds == nil {
		s.refunds, s.rows = map[string]bool{}, map[string]int{}
	}
	s.rows[row.PaymentID]++
	refund, seen := s.refunds[row.PaymentID]
	if !seen {
		s.ids = append(s.ids, row.PaymentID)
	}
	s.refunds[row.PaymentID] = refund || row.Op == OpRefund
}

// Len is the number of payments.
func (s *PaymentSet) Len() int { return len(s.ids) }

// Planner checks rows one at a time, in input order, against the payments
// read when it was made: a plan of a file too large to hold, whose rows
// are read a second time to be checked.
type Planner struct {
	payments map[string]*api.Payment
	open     map[string]*api.Dispute
	readErrs map[string]error
	states   map[string]*payState
	now      time.Time
	res      PlanResult
	// prefix and seen derive the reference_id of a row without one, as a
	// run does (see rowIdentity): seen counts the rows of each content,
	// by a 64-bit hash.
	prefix string
	seen   lineTable
	seed   maphash.Seed
	// The repeats: accounted holds, for the payments that hold moves,
	// the reference_ids the file's rows send (by payment and op); a row
	// whose like the payment holds under another reference_id is a
	// candidate, judged once every row is seen (a later row may account
	// for that move). allowRepeats lets candidates go, listed; madeBy names who
	// made a move held.
	accounted    map[string]map[Op]map[string]bool
	candidates   []repeatCandidate
	allowRepeats bool
	madeBy       func(paymentID string, op Op, ref string) (string, int64)
	// input names the file planned; edited says which moves an earlier
	// run of it made (see OfInput).
	input  string
	sketch []uint64
	edited editedFunc
	final  bool
}

// NewPlanner reads the payments of set, concurrency at a time (their
// disputes too, for those some row refunds, when disputes is set).
func NewPlanner(ctx context.Context, read func(ctx context.Context, id string) (*api.Payment, error), disputes DisputeReader, set *PaymentSet, concurrency int, now time.Time, prefix string, progress func(done, total int)) (*Planner, error) {
	pl := &Planner{payments: make(map[string]*api.Payment, len(set.ids)), open: map[string]*api.Dispute{},
		readErrs: map[string]error{}, states: map[string]*payState{}, now: now, accounted: map[string]map[Op]map[string]bool{},
		prefix: prefix, seed: maphash.MakeSeed(),
		res: PlanResult{Money: map[string]decimal.Decimal{}, ByOp: map[Op]map[string]decimal.Decimal{}}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(concurrency, 1))
	done := 0
	for _, id := range set.ids {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return nil, ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			p, err := read(ctx, id)
			var d *api.Dispute
			if err == nil && disputes != nil {
				d = openDispute(ctx, disputes, set.refunds[id], p)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				pl.readErrs[id] = err
			} else {
				pl.payments[id], pl.open[id] = p, d
			}
			done++
			if progress != nil {
				progress(done, len(set.ids))
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return pl, nil
}
