package payments

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk"
	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// bulkPlan reads every payment the rows name and prints what a run would
// do; it fails (exit 2) when the plan refuses rows, which a real run would
// refuse too. The rows are read twice and never held: first to check them
// and learn their payments, which are then read, then to check each row
// against its payment; what is kept is bounded by the payments. With -o
// json the plan is printed on stdout as one JSON document.
func bulkPlan(ctx context.Context, op bulk.Op, b *BulkOptions, d *MoveDeps, src *bulkInput, ro bulk.ReadOptions, journal string) error {
	// What the passes keep is a few flat tables the collector need not
	// scan; the rest is each row's garbage. A lower GC percent costs little
	// then, and keeps the peak nearer what is kept than twice it.
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	printer, err := d.Printer()
	if err != nil {
		return err
	}
	var set bulk.PaymentSet
	var split splitRows
	valid := 0
	ident := bulk.NewInputIdentity(op, b.ReferencePrefix)
	invalid, inputID, err := src.scan(op, split.reading(ro), func(r bulk.Row) { valid++; set.Add(r); ident.Add(r) })
	if err != nil {
		return err
	}
	if valid == 0 && len(invalid) == 0 {
		return noRows(src.name)
	}
	doc := planDocument{Op: string(op), DryRun: true, Invalid: len(invalid), InvalidRows: planRows(invalid)}
	split.fill(&doc)
	notice := func() {
		d.Notice("dry run: %d valid and %d invalid rows for %s; nothing was sent", valid, len(invalid), op)
	}
	if len(invalid) > 0 && !b.SkipInvalid {
		notice()
		return printPlan(printer, doc, &bulk.InvalidRowsError{Rows: invalid})
	}
	// The ledger is checked as a real run checks it, before any payment
	// is read: a dry run of a run that would stop (a ledger damaged,
	// unreachable, or gone from where the journal's runs recorded their
	// moves) stops the same way, exit 12, rather than plan it as safe,
	// and says no count of rows that would go.
	led, err := openPlanLedger(op, b, d, journal)
	if err != nil {
		return err
	}
	if led != nil {
		defer led.Close()
	}
	notice()
	plan, err := planSecondPass(ctx, op, b, d, src, ro, &set, ident, inputID, led)
	if err != nil {
		return err
	}
	noticePlan(d, plan)
	for _, line := range split.lines() {
		d.Notice("%s", line)
	}
	doc.fill(plan)
	if plan.RefusedCount > 0 {
		return printPlan(printer, doc, &bulk.PlanError{Plan: plan})
	}
	return printPlan(printer, doc, nil)
}

// planSecondPass reads the payments of set, then the rows again, each
// checked against its payment.
func planSecondPass(ctx context.Context, op bulk.Op, b *BulkOptions, d *MoveDeps, src *bulkInput, ro bulk.ReadOptions, set *bulk.PaymentSet, ident *bulk.InputIdentity, inputID string, led *ledger.Ledger) (bulk.PlanResult, error) {
	client, err := d.Client()
	if err != nil {
		return bulk.PlanResult{}, err
	}
	var progress func(done, total int)
	if !d.Quiet && d.IO.IsStderrTTY() {
		progress = func(done, total int) {
			fmt.Fprintf(d.IO.ErrOut, "\rreading payments: %d/%d", done, total)
			if done == total {
				fmt.Fprintln(d.IO.ErrOut)
			}
		}
	}
	read := func(ctx context.Context, id string) (*api.Payment, error) {
		return client.ReadBeforeMove(ctx, id, pastTenseOf(op))
	}
	planner, err := bulk.NewPlanner(ctx, read, client, set, b.Concurrency, nowOf(d)(), b.ReferencePrefix, progress)
	if err != nil {
		return bulk.PlanResult{}, err
	}
	planner.AllowRepeats(b.AllowRepeats)
	planner.OfInput(src.name)
	planner.OfInputIdentity(ident)
	if led != nil {
		planner.UseLedger(led)
	}
	// What the first pass kept for its checks is garbage now; the second
	// builds its own. Handing it back first keeps the peak to one pass's.
	debug.FreeOSMemory()
	_, again, err := src.scan(op, ro, planner.Check)
	if err != nil {
		return bulk.PlanResult{}, err
	}
	if again != inputID {
		return bulk.PlanResult{}, changedError(src.name)
	}
	return planner.Result(), nil
}

// openPlanLedger opens the ledger a real run of the plan would record in,
// as that run would (nil where there is no target to scope it by).
func openPlanLedger(op bulk.Op, b *BulkOptions, d *MoveDeps, journal string) (*ledger.Ledger, error) {
	target, err := d.Target()
	if err != nil {
		return nil, nil
	}
	return bulk.OpenPlanLedger(bulk.PlanLedger{URL: d.ledger(b.Ledger), Dir: d.StateDir, Scope: ledgerScope(target),
		Journal: journal, Op: op, LedgerLost: b.LedgerLost})
}

// noticePlan writes the plan's summary line and, under it, the rows that
// would go as new with --allow-repeats although they repeat a settled
// move, each naming the move held.
func noticePlan(d *MoveDeps, plan bulk.PlanResult) {
	d.Notice("%s", plan)
	for _, line := range plan.RepeatLines() {
		d.Notice("%s", line)
	}
}

// planDocument is the plan as -o json prints it: the rows by what would
// become of them, the money per currency and per move, and each refused
// or invalid row with why.
type planDocument struct {
	Op          string                       `json:"op"`
	DryRun      bool                         `json:"dry_run"`
	Total       int                          `json:"total"`
	Go          int                          `json:"go"`
	Made        int                          `json:"already_made"`
	Refused     int                          `json:"refused"`
	Invalid     int                          `json:"invalid"`
	Repeats     int                          `json:"repeats,omitempty"`
	RepeatRows  []planRow                    `json:"repeat_rows,omitempty"`
	Money       map[string]string            `json:"money"`
	MoneyByOp   map[string]map[string]string `json:"money_by_op"`
	RefusedRows []planRow                    `json:"refused_rows"`
	InvalidRows []planRow                    `json:"invalid_rows"`

	// SplitAmounts are the rows going as written with
	// --allow-split-amounts (see splitRows).
	SplitAmounts    int       `json:"split_amounts,omitempty"`
	SplitAmountRows []planRow `json:"split_amount_rows,omitempty"`
}

// planRow is a refused or invalid row in a planDocument.
type planRow struct {
	Line        int    `json:"line"`
	Op          string `json:"op,omitempty"`
	PaymentID   string `json:"payment_id"`
	Amount      string `json:"amount,omitempty"`
	ReferenceID string `json:"reference_id,omitempty"`
	Field       string `json:"field,omitempty"`
	Reason      string `json:"reason"`
}

func planRows(errs []bulk.RowError) []planRow {
	rows := make([]planRow, 0, len(errs))
	for _, e := range errs {
		rows = append(rows, planRow{Line: e.Line, Op: string(e.Op), PaymentID: e.PaymentID, Amount: e.Amount,
			ReferenceID: e.ReferenceID, Field: e.Field, Reason: e.Message})
	}
	return rows
}

func (doc *planDocument) fill(plan bulk.PlanResult) {
	doc.Total, doc.Go, doc.Made, doc.Refused, doc.Repeats = plan.Total, plan.Go, plan.Made, plan.RefusedCount, plan.Repeats
	doc.Money = bulk.AmountStrings(plan.Money)
	doc.MoneyByOp = map[string]map[string]string{}
	for op, m := range plan.ByOp {
		if s := bulk.AmountStrings(m); len(s) > 0 {
			doc.MoneyByOp[string(op)] = s
		}
	}
	doc.RefusedRows = planRows(plan.Refused)
	if len(plan.RepeatRows) > 0 {
		doc.RepeatRows = planRows(plan.RepeatRows)
	}
}

// printPlan prints doc when -o json (or --jq, a template) asks for it, and
// returns planErr: a plan that refuses rows still exits 2.
func printPlan(printer *output.Printer, doc planDocument, planErr error) error {
	if !printer.IsJSON() {
		return planErr
	}
	if doc.Money == nil {
		doc.Money, doc.MoneyByOp = map[string]string{}, map[string]map[string]string{}
	}
	if doc.RefusedRows == nil {
		doc.RefusedRows = []planRow{}
	}
	out, err := json.Marshal(doc)
	if err == nil {
		err = printer.Object(out, nil)
	}
	if err != nil {
		return err
	}
	return planErr
}
