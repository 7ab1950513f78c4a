package payments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// bulkFiles are a run's input, old journal (to import) and report.
type bulkFiles struct {
	input, journal, report string
}

// bulkRun reads the rows, checks them all, and runs the move over them.
func bulkRun(ctx context.Context, op bulk.Op, b *BulkOptions, d *MoveDeps) error {
	if err := b.check(); err != nil {
		return err
	}
	files, err := b.files()
	if err != nil {
		return err
	}
	src, err := openBulkInput(files.input, d.IO.In, d.StateDir, maxBufferedInput)
	if err != nil {
		return err
	}
	defer src.close()
	ro := bulk.ReadOptions{Encoding: b.InputEncoding, AllowRepeats: b.AllowRepeats, AllowSplitAmounts: b.AllowSplitAmounts}
	if d.DryRun {
		return bulkPlan(ctx, op, b, d, src, ro, files.journal)
	}
	ledgerURL := d.ledger(b.Ledger)
	if err := cmdutil.CheckLedgerFlag(ledgerURL); err != nil {
		return err
	}
	if d.StateDir == "" && ledgerURL == "" {
		return noStateDir()
	}
	// SIGTERM (a CI job cancelled, a service manager stopping) stops the
	// run as Ctrl-C does, from here on: no new rows, the rows in flight
	// finished and recorded, the report written.
	ctx, terminated, stopWatch := watchTerm(ctx)
	defer stopWatch()
	// What a run keeps is per payment and a few flat tables; the rest is
	// each row's garbage, which a lower GC percent keeps from doubling
	// the peak, as in the plan.
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	passes, err := firstPass(src, op, ro)
	if err != nil {
		return err
	}
	passes.split.warn(d)
	printer, err := d.Printer()
	if err != nil {
		return err
	}
	target, err := d.Target()
	if err != nil {
		return err
	}
	confirmer := d.Confirmer(target.Live)
	what := fmt.Sprintf("%s %d %s from %s on %s", op, passes.count, plural(passes.count, "payment row", "payment rows"), files.input, merchantOf(target))
	if err := checkLiveEarly(confirmer, what); err != nil {
		return err
	}
	// The run is recorded in the ledger from here (an old journal of the
	// input imported once), before any question or request.
	opts := b.options(op, files, passes.invalid, d, target)
	opts.LedgerURL = ledgerURL
	if printer.IsJSON() {
		// Written before the run is marked summarized in the ledger.
		opts.WriteSummary = func(s bulk.Summary) error { return printSummary(printer, op, s, files) }
	}
	batch, err := bulk.PrepareSource(passes.rows, opts)
	if err != nil {
		return err
	}
	defer batch.Close()
	client, err := d.Client()
	if err != nil {
		return err
	}
	if err := confirmBatch(ctx, op, batch, client, confirmer, files.input, target, d); err != nil {
		return err
	}
	if files.report != "" {
		d.Notice("%s: report %s", op, files.report)
	}
	passes.sending = true
	return sendBatch(ctx, batch, client, terminated)
}

// noStateDir refuses a run that cannot tell where bnpl's state directory
// is: its ledger of moves would be its own, shared with no other run, so
// two runs of the same moves at once would both send and count them.
func noStateDir() error {
	return cmdutil.Refuse("set HOME (or XDG_STATE_HOME) to an absolute directory: every bulk run on the machine shares its ledger of moves there",
		"cannot tell where bnpl's state directory is (neither XDG_STATE_HOME nor HOME is an absolute directory), where a bulk run keeps the ledger it shares with every other run; nothing was sent")
}

// check refuses flag values a run cannot start with.
func (b *BulkOptions) check() error {
	if b.Concurrency < 1 {
		return cmdutil.Usagef("--concurrency must be 1 or more, got %d", b.Concurrency)
	}
	if b.rateSet && !(b.Rate >= minRate && b.Rate <= maxRate) { // NaN fails both
		return cmdutil.UsageHint("leave --rate out for no cap beyond the service's own 429s",
			"--rate must be between %.4g (one request a minute) and %d requests per second, got %g", minRate, maxRate, b.Rate)
	}
	if b.ReferencePrefix != "" {
		if msg := bulk.CheckReferencePrefix(b.ReferencePrefix); msg != "" {
			return cmdutil.Usagef("--reference-prefix %s", msg)
		}
	}
	if err := bulk.CheckInputEncoding(b.InputEncoding); err != nil {
		return cmdutil.Usagef("--input-encoding %s", err)
	}
	return cmdutil.CheckLedgerFlag(b.Ledger)
}

// files are the run's input, old journal and report, the defaults filled
// in, refused when two are one file. The journal is one an earlier bnpl
// kept beside the input, imported into the ledger if it is there: the
// ledger holds the run, so rows from stdin or a pipe (--input <(…)) resume
// as a file does.
func (b *BulkOptions) files() (bulkFiles, error) {
	f := bulkFiles{input: b.FromFile, journal: b.Journal, report: b.Report}
	if f.input != "-" && regularFile(f.input) {
		if f.journal == "" {
			f.journal = f.input + ".journal"
		}
		if f.report == "" {
			f.report = f.input + ".report.csv"
		}
	}
	return f, distinctFiles(map[string]string{"--input": f.input, "--journal": f.journal, "--report": f.report})
}

// regularFile reports whether path names a regular file (not a pipe, a
// /dev/fd/N of a process substitution, or a device).
func regularFile(path string) bool {
	info, err := os.Stat(path)
	return err != nil || info.Mode().IsRegular()
}

// options are the bulk run's options from the flags.
func (b *BulkOptions) options(op bulk.Op, files bulkFiles, invalid []bulk.RowError, d *MoveDeps, target *config.Target) bulk.Options {
	o := bulk.Options{
		Op:              op,
		Concurrency:     b.Concurrency,
		Rate:            b.Rate,
		JournalPath:     files.journal,
		ReportPath:      files.report,
		Invalid:         invalid,
		SkipInvalid:     b.SkipInvalid,
		RetryFailed:     b.RetryFailed,
		AllowRepeats:    b.AllowRepeats,
		LedgerLost:      b.LedgerLost,
		ReferencePrefix: b.ReferencePrefix,
		Classify:        classifyMoveError,
		LedgerDir:       d.StateDir,
		Scope:           ledgerScope(target),
		InputName:       files.input,
	}
	if d.Warn != nil {
		// A row sent as new although it repeats a settled move is said
		// whatever --quiet says.
		o.Warn = func(msg string) { d.Warn(msg, "") }
	}
	if !d.Quiet {
		o.Progress = d.IO.ErrOut
		o.ProgressTTY = d.IO.IsStderrTTY() && !d.IO.PlainProgress()
		o.ProgressWidth = d.IO.ErrWidth()
		o.Notice = d.Notice
	}
	return o
}

// ledgerScope names the service a run's moves are made on: the same moves
// on another service (another sandbox) are other moves. It is the service's
// address alone, spelt one way: on one service a payment id names one
// payment of one merchant, so a run with the merchant code or without it,
// with another key of the merchant, or through "HTTP://127.0.0.1:8700/"
// for "http://localhost:8700" makes the same moves and claims the same
// payments.
func ledgerScope(t *config.Target) string {
	base := t.BaseURL
	if base == "" {
		base, _ = config.RegionBaseURL(t.Region)
	}
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || u.Host == "" {
		return base
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if host == "localhost" {
		host = "127.0.0.1"
	}
	if port == "" || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(host, port) + strings.TrimRight(u.EscapedPath(), "/")
}

// inputPasses reads the input once to count and check it, and again for
// each later pass of the run, which must read the same bytes: the rows
// are not held.
type inputPasses struct {
	src     *bulkInput
	op      bulk.Op
	ro      bulk.ReadOptions
	count   int
	invalid []bulk.RowError
	inputID string
	// sending: the pass that sends has begun.
	sending bool
	// split: the rows read as written with --allow-split-amounts.
	split splitRows
}

func firstPass(src *bulkInput, op bulk.Op, ro bulk.ReadOptions) (*inputPasses, error) {
	p := &inputPasses{src: src, op: op, ro: ro}
	var err error
	p.invalid, p.inputID, err = src.scan(op, p.split.reading(ro), func(bulk.Row) { p.count++ })
	if err != nil {
		return nil, err
	}
	if p.count == 0 && len(p.invalid) == 0 {
		return nil, noRows(src.name)
	}
	return p, nil
}

// rows is the run's RowSource: another pass over the same bytes.
func (p *inputPasses) rows(each func(bulk.Row)) error {
	_, again, err := p.src.scan(p.op, p.ro, each)
	if err != nil {
		return err
	}
	if again != p.inputID {
		if p.sending {
			return changedWhileRunError(p.src.name)
		}
		return changedError(p.src.name)
	}
	return nil
}

// confirmBatch asks a terminal to confirm a live run, showing the plan a
// dry run prints for the rows still to send.
func confirmBatch(ctx context.Context, op bulk.Op, batch *bulk.Batch, client *api.Client, confirmer cmdutil.Confirmer, input string, target *config.Target, d *MoveDeps) error {
	if !confirmer.Live || confirmer.Yes {
		return nil
	}
	plan, err := batch.PlanPending(ctx, client.GetPayment, client, nowOf(d)())
	if err != nil {
		return err
	}
	pending, payments := batch.PendingRows(), batch.PendingPayments()
	what := fmt.Sprintf("%s %d %s over %d %s from %s on %s", op, pending, plural(pending, "row", "rows"),
		payments, plural(payments, "payment", "payments"), input, merchantOf(target))
	for _, line := range plan.RepeatLines() {
		d.Notice("%s", line)
	}
	return confirmer.Confirm(what + "; " + plan.String())
}

// watchTerm is ctx, cancelled by SIGTERM, and whether SIGTERM came; stop
// ends the watch.
func watchTerm(ctx context.Context) (context.Context, *atomic.Bool, func()) {
	ctx, cancel := context.WithCancel(ctx)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	terminated := &atomic.Bool{}
	go func() {
		select {
		case <-term:
			terminated.Store(true)
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, terminated, func() { signal.Stop(term); cancel() }
}

// sendBatch runs the batch; its summary is printed as JSON, when asked,
// by the run itself (Options.WriteSummary).
func sendBatch(ctx context.Context, batch *bulk.Batch, client *api.Client, terminated *atomic.Bool) error {
	_, runErr := batch.Run(ctx, client)
	var re *bulk.RunError
	if terminated.Load() && errors.As(runErr, &re) {
		re.Terminated = true
	}
	return runErr
}

// printSummary prints a run's summary as one JSON object.
func printSummary(printer *output.Printer, op bulk.Op, summary bulk.Summary, files bulkFiles) error {
	out, err := json.Marshal(struct {
		Op string `json:"op"`
		bulk.Summary
		Report string `json:"report,omitempty"`
	}{string(op), summary, files.report})
	if err == nil {
		err = printer.Object(out, nil)
	}
	return err
}
