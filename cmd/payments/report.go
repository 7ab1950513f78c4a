package payments

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/paysearch"
	"github.com/bnpl-cli/bnpl/internal/walk"
)

// reportPeriods are the values of --by.
var reportPeriods = []string{"day", "week", "month"}

// reportSources are the values of --source: what the service holds, or
// what the ledger of bulk moves says bnpl's bulk runs moved.
var reportSources = []string{"service", "ledger"}

// ReportColumns are the columns of `payments report`.
var ReportColumns = []output.Column{
	{Header: "PERIOD", Path: "period", Kind: output.KindPlain},
	{Header: "CURRENCY", Path: "currency", TableHidden: true}, // tables show it beside each amount
	{Header: "CAPTURED", Path: "captured", Kind: output.KindMoney, CurrencyPath: "currency"},
	{Header: "REFUNDED", Path: "refunded", Kind: output.KindMoney, CurrencyPath: "currency"},
	{Header: "NET", Path: "net", Kind: output.KindMoney, CurrencyPath: "currency"},
	{Header: "CAPTURES", Path: "captures", Kind: output.KindPlain},
	{Header: "REFUNDS", Path: "refunds", Kind: output.KindPlain},
}

// ReportOptions are the inputs of `payments report`.
type ReportOptions struct {
	Since, Until string
	By           string
	Concurrency  int
	// Source is service or ledger; Ledger is --ledger.
	Source, Ledger string
	ledgerSet      bool

	since, until time.Time

	ReadDeps
	// Target, LedgerOf and StateDir find the ledger and the service
	// whose moves it totals, as a bulk run does.
	Target   func() (*config.Target, error)
	LedgerOf func(flag string) (url, source string)
	StateDir string
}

func newReportCmd(f *cmdutil.Factory, run func(context.Context, *ReportOptions) error) *cobra.Command {
	opts := &ReportOptions{ReadDeps: newReadDeps(f, f.Printer), Target: f.Target, LedgerOf: cmdutil.LedgerOf(f), StateDir: config.StateDir(f.Getenv)}
	cmd := &cobra.Command{
		Use:   "report --since TIME [--until TIME] [--by day|week|month] [--source service|ledger]",
		Short: "Total captured, refunded and net money per currency and period",
		Long: `Total the money captured and refunded, and the net of the two, per currency and
period (a UTC day, an ISO week starting on Monday, or a month), for reconciling with the
provider's payouts.

Each capture and refund counts on the day it was made (its created_at), whatever the
day its payment was created: every authorized and closed payment created up to --until
is read (--concurrency pages at a time), and its captures and refunds made from --since
to --until are totalled. Amounts are exact decimals with each currency's places.

A period with no capture and no refund in a currency has no row.

--source ledger totals instead the captures and refunds bnpl's bulk runs moved, as the
ledger of bulk moves records them, in the same columns and JSON keys: the ledger bulk
runs use (--ledger, else BNPL_LEDGER, else the profile's ledger, else this machine's in
bnpl's state directory), its moves on the service the profile names. A move counts on
the day the ledger recorded it settled (seconds after the service made it), once, by the
run whose send made it; one the service held before any run of that ledger sent it
(held_before) is not counted, nor is one whose outcome is still unknown. Nothing is read
from the service. Where every capture and refund of a window was made by bulk runs
sharing that ledger, the two sources agree; a difference is money moved outside them
(single moves, the dashboard, another machine's ledger) or a run not yet resumed. A
ledger that cannot be used (a PostgreSQL ledger unreachable, a file damaged) stops the
report with exit 12, as it stops a bulk run.`,
		Example: `  bnpl payments report --since 2026-11-01 --until 2026-11-30
  bnpl payments report --since 30d --by week
  bnpl payments report --since 2026-01-01 --by month -o csv > totals.csv
  bnpl payments report --since 2026-11-01 --source ledger --ledger postgres://clerk@db.example.com/bnpl`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.bind(f)
			opts.ledgerSet = cmd.Flags().Changed("ledger")
			if err := opts.validate(); err != nil {
				return err
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return reportRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Since, "since", "", "moves made at or after: a date, an RFC 3339 time, or a duration back (24h, 7d); required")
	fl.StringVar(&opts.Until, "until", "", "moves made at or before: a date, an RFC 3339 time, or a duration back (default now)")
	fl.StringVar(&opts.By, "by", "day", "period of each row: "+strings.Join(reportPeriods, ", "))
	fl.IntVar(&opts.Concurrency, "concurrency", walk.DefaultConcurrency, fmt.Sprintf("pages read at once, 1 to %d", MaxListConcurrency))
	fl.StringVar(&opts.Source, "source", "service", "what to total: service (the captures and refunds the payments hold) or ledger (what bnpl's bulk runs moved, as the ledger records it)")
	fl.StringVar(&opts.Ledger, "ledger", "", "with --source ledger: the ledger a team shares, a postgres:// URL (default: BNPL_LEDGER, the profile's ledger, else this machine's)")
	return cmd
}

func (o *ReportOptions) validate() error {
	o.By = strings.ToLower(strings.TrimSpace(o.By))
	if !slices.Contains(reportPeriods, o.By) {
		return cmdutil.UsageHint("use --by "+strings.Join(reportPeriods, ", --by "), "invalid --by %q", o.By)
	}
	o.Source = strings.ToLower(strings.TrimSpace(o.Source))
	if !slices.Contains(reportSources, o.Source) {
		return cmdutil.UsageHint("use --source service (what the payments hold) or --source ledger (what bulk runs moved)", "invalid --source %q", o.Source)
	}
	if o.ledgerSet && o.Source != "ledger" {
		return cmdutil.UsageHint("add --source ledger to total what the bulk runs of that ledger moved", "--ledger applies only with --source ledger")
	}
	if err := cmdutil.CheckLedgerFlag(o.Ledger); err != nil {
		return err
	}
	if o.Concurrency < 1 || o.Concurrency > MaxListConcurrency {
		return cmdutil.Usagef("--concurrency must be between 1 and %d, got %d", MaxListConcurrency, o.Concurrency)
	}
	now := o.Now()
	if strings.TrimSpace(o.Since) == "" {
		return cmdutil.UsageHint("give the start of the report: --since 2026-11-01, or --since 30d", "--since is required")
	}
	var err error
	if o.since, err = cmdutil.ParseTimeFlag("since", o.Since, now); err != nil {
		return err
	}
	o.until = now
	if o.Until != "" {
		if o.until, err = cmdutil.ParseTimeFlag("until", o.Until, now); err != nil {
			return err
		}
	}
	return cmdutil.CheckTimeWindow(o.Since, o.since, o.until)
}

// reportKey names one row of the report.
type reportKey struct{ period, currency string }

// reportTotals are the sums of one row.
type reportTotals struct {
	captured, refunded decimal.Decimal
	captures, refunds  int
}

// reportTally totals the moves of payments, safe for concurrent use.
type reportTally struct {
	since, until time.Time
	by           string

	mu     sync.Mutex
	totals map[reportKey]*reportTotals
}

func newReportTally(since, until time.Time, by string) *reportTally {
	return &reportTally{since: since, until: until, by: by, totals: map[reportKey]*reportTotals{}}
}

// in is whether a move made at t counts.
func (r *reportTally) in(t *time.Time) bool {
	return t != nil && !t.Before(r.since) && !t.After(r.until)
}

// add counts the captures and refunds of p made within the window.
func (r *reportTally) add(p *api.Payment) {
	for _, c := range p.Captures {
		if r.in(c.CreatedAt) {
			r.addMove(p.Currency, "capture", c.Amount, *c.CreatedAt)
		}
	}
	for _, rf := range p.Refunds {
		if r.in(rf.CreatedAt) {
			r.addMove(p.Currency, "refund", rf.Amount, *rf.CreatedAt)
		}
	}
}

// addMove counts a capture or a refund of amount in currency, made at.
func (r *reportTally) addMove(currency, op string, amount decimal.Decimal, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := reportKey{period: periodOf(at, r.by), currency: currency}
	tot := r.totals[k]
	if tot == nil {
		tot = &reportTotals{}
		r.totals[k] = tot
	}
	if op == "refund" {
		tot.refunded = tot.refunded.Add(amount)
		tot.refunds++
		return
	}
	tot.captured = tot.captured.Add(amount)
	tot.captures++
}

// reportRow is one line of the report as printed.
type reportRow struct {
	Period   string `json:"period"`
	Currency string `json:"currency"`
	Captured string `json:"captured"`
	Refunded string `json:"refunded"`
	Net      string `json:"net"`
	Captures int    `json:"captures"`
	Refunds  int    `json:"refunds"`
}

// rows are the report's lines, by period then currency.
func (r *reportTally) rows() []reportRow {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]reportKey, 0, len(r.totals))
	for k := range r.totals {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].period != keys[j].period {
			return keys[i].period < keys[j].period
		}
		return keys[i].currency < keys[j].currency
	})
	out := make([]reportRow, 0, len(keys))
	for _, k := range keys {
		t := r.totals[k]
		out = append(out, reportRow{
			Period: k.period, Currency: k.currency,
			Captured: money.Format(t.captured, k.currency),
			Refunded: money.Format(t.refunded, k.currency),
			Net:      money.Format(t.captured.Sub(t.refunded), k.currency),
			Captures: t.captures, Refunds: t.refunds,
		})
	}
	return out
}

// periodOf names the period of t (in UTC): 2026-11-25, 2026-W48 (ISO
// week) or 2026-11. The names sort in time order.
func periodOf(t time.Time, by string) string {
	t = t.UTC()
	switch by {
	case "week":
		y, w := t.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	case "month":
		return t.Format("2006-01")
	}
	return t.Format("2006-01-02")
}

// listedUntil is the list's created_at__lte for --until, in whole seconds
// rounded up: rounded down, a payment created in the second of --until (one
// captured just before a report without --until) would not be read. The
// moves of a payment read in that extra part of a second are still judged
// by --until itself.
func listedUntil(until time.Time) string {
	lte := until.Truncate(time.Second)
	if lte.Before(until) {
		lte = lte.Add(time.Second)
	}
	return cmdutil.FormatTimeFlag(lte)
}

func reportRun(ctx context.Context, o *ReportOptions) error {
	if o.Source == "ledger" {
		return reportLedger(o)
	}
	printer, client, err := o.open()
	if err != nil {
		return err
	}
	tally := newReportTally(o.since, o.until, o.By)
	progress := o.progress()
	// A payment created after --until has no move before it; one created
	// long before --since may still have been captured or refunded since.
	params := api.ListPaymentsParams{CreatedAtLTE: listedUntil(o.until), Limit: api.MaxPageLimit}
	w := &walk.Walker{
		Fetch:       paysearch.Pages(client, params),
		PageSize:    api.MaxPageLimit,
		Concurrency: o.Concurrency,
		Progress:    func(read, total int) { progress.Show("reading payments: page %d of %d", read, total) },
	}
	payments := 0
	err = w.Walk(ctx, func(it walk.Item) (bool, error) {
		var p api.Payment
		if err := json.Unmarshal(it.Raw, &p); err != nil {
			return false, err
		}
		tally.add(&p)
		payments++
		return true, nil
	})
	progress.Done()
	if err != nil {
		return err
	}
	return tally.print(printer, o, fmt.Sprintf("%d %s read", payments, plural(payments, "payment", "payments")))
}

// print prints the report's rows, or says there are none, and why (read:
// what was read).
func (r *reportTally) print(printer *output.Printer, o *ReportOptions, read string) error {
	rows := r.rows()
	recs := make([]json.RawMessage, 0, len(rows))
	for _, row := range rows {
		b, err := json.Marshal(row)
		if err != nil {
			return err
		}
		recs = append(recs, b)
	}
	if len(recs) == 0 && o.Notice != nil {
		o.Notice("no captures or refunds from %s to %s (%s)", cmdutil.FormatTimeFlag(o.since), cmdutil.FormatTimeFlag(o.until), read)
	}
	return printer.List(ReportColumns, recs)
}
