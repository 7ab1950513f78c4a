package bulk

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

// Run sends rows, as validated by ReadRows, and reports what became of each.
//
// Rows an earlier run of the same input settled, as the ledger records
// them, are not sent again. On ctx's cancellation Run stops taking
// new rows, lets the requests in flight finish, since cutting one off would
// only make its outcome unknown, records them, and returns with
// Summary.Interrupted set.
//
// The error is an *InvalidRowsError when o.Invalid has rows and
// o.SkipInvalid is false (nothing is sent then), a *JournalError when an
// old journal to import cannot be read, a *LedgerLostError or a
// *ledger.Error when the ledger cannot be used (nothing is sent either), a
// *RunError when rows failed or the run was interrupted, or another error
// when the ledger or the report could not be written.
func Run(ctx context.Context, c Client, rows []Row, o Options) (Summary, error) {
	b, err := Prepare(rows, o)
	if err != nil {
		return Summary{Total: len(rows) + len(o.Invalid)}, err
	}
	defer b.Close()
	return b.Run(ctx, c)
}

// RowSource yields the valid rows of a run to each, in input order. A
// run calls it more than once (to learn what is pending, for the plan of
// the confirmation, to send), and every call must yield the same rows, or
// return an error: a file is read again for each pass, so a run holds no
// rows, only what it keeps per payment.
type RowSource func(each func(Row)) error

// SliceSource is a RowSource of rows held in memory.
func SliceSource(rows []Row) RowSource {
	return func(each func(Row)) error {
		for _, r := range rows {
			each(r)
		}
		return nil
	}
}

// Batch is a run made ready by Prepare: the ledger holds the run and its
// rows (an old journal imported), its report can be written, and it knows
// how many rows are still to send.
type Batch struct {
	r       *runner
	src     RowSource
	skipped []rowResult
	// pending counts the rows no earlier run settled, over the payments
	// of pendingSet.
	pending    int
	pendingSet PaymentSet
	rep        *report
	closed     bool
}

// Prepare is PrepareSource of rows held in memory.
func Prepare(rows []Row, o Options) (*Batch, error) {
	return PrepareSource(SliceSource(rows), o)
}

// PrepareSource checks the rows and the files of a run before anything is
// sent: it opens the ledger and records the run there, learns its input's
// identity and the earlier runs of that input, imports an old journal of
// it once, records its rows, makes sure the report can be written, and
// counts the rows still to send (those no earlier run of the input
// settled). Two runs of one input at once both go on: the ledger's claims
// let one payment's moves be sent by one run at a time. The caller confirms the run, then calls Run, and Close in
// any case.
func PrepareSource(src RowSource, o Options) (*Batch, error) {
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	skipped := skippedResults(o.Op, o.Invalid)
	if len(skipped) > 0 && !o.SkipInvalid {
		return nil, &InvalidRowsError{Rows: o.Invalid}
	}
	o = withDefaults(o)
	b := &Batch{r: &runner{o: o, limiter: o.limiter}, src: withRunOp(o.Op, src), skipped: skipped}
	if err := b.open(); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

func checkOptions(o Options) error {
	if !o.Op.validRun() {
		return fmt.Errorf("bulk: unknown op %q", o.Op)
	}
	if o.ReferencePrefix != "" {
		if msg := CheckReferencePrefix(o.ReferencePrefix); msg != "" {
			return fmt.Errorf("bulk: reference prefix %s", msg)
		}
	}
	return nil
}

// openLedger opens the run's ledger. The SQLite ledger of the state
// directory must be the one its earlier runs recorded their moves in
// (see LedgerGoneError): a run finds it gone before it makes another.
func (b *Batch) openLedger() error {
	o := b.r.o
	dir := o.LedgerDir
	if o.LedgerURL != "" {
		dir = ""
	}
	if dir != "" && !ledger.Exists(dir) {
		if err := ledgerGone(dir, nil, o.LedgerLost); err != nil {
			return err
		}
	}
	var err error
	if b.r.ledger, err = ledger.Open(ledger.Options{URL: o.LedgerURL, Dir: o.LedgerDir, Scope: o.Scope, Now: o.now}); err != nil {
		return err
	}
	if err := ledgerGone(o.LedgerDir, b.r.ledger, o.LedgerLost); err != nil {
		return err
	}
	return markLedger(o.LedgerDir, b.r.ledger)
}

// open opens the ledger and the report, records the run, takes up what
// the earlier runs of its input recorded (an old journal imported), and
// records the run's rows.
func (b *Batch) open() error {
	o := b.r.o
	var err error
	if err := b.openLedger(); err != nil {
		return err
	}
	if err := b.r.ledger.BeginRun(string(o.Op), o.InputName, ""); err != nil {
		return b.r.ledger.Unusable(err)
	}
	if err := b.identify(); err != nil {
		return err
	}
	if err := b.importJournal(); err != nil {
		return err
	}
	if o.ReportPath != "" {
		if b.rep, err = createReport(o.ReportPath); err != nil {
			return err
		}
	}
	if err := b.countPending(); err != nil {
		return err
	}
	return b.r.ledger.Unusable(b.r.ledger.RecordSkipped(ledgerRows(b.skipped)))
}

// inputName is the file name of an input, by which a file edited whole
// (every row) is still known as itself; "" for rows from stdin or a pipe,
// whose name says nothing of what they hold.
func inputName(input string) string {
	if input == "" || input == "-" || input == "(rows)" || strings.HasPrefix(input, "/dev/fd/") || strings.HasPrefix(input, "/proc/") {
		return ""
	}
	return filepath.Base(input)
}

// identify reads the rows once to learn the input's identity (see
// InputIdentity), and records it with the run: a later run of the same
// input, a copy or an edit of it, finds this one by it. The runs of this
// input are then known: those whose rows are at least half this one's
// (whatever their file), and those of a file of the same name.
func (b *Batch) identify() error {
	in := NewInputIdentity(b.r.o.Op, b.r.o.ReferencePrefix)
	id := identifier{prefix: b.r.o.ReferencePrefix}
	if err := b.src(func(row Row) {
		key, _ := id.next(row)
		in.addKey(key)
	}); err != nil {
		return err
	}
	b.r.sketch = in.min
	l := b.r.ledger
	if err := l.SetInputSketch(in.String()); err != nil {
		return l.Unusable(err)
	}
	inputs, err := l.RunInputs()
	if err != nil {
		return l.Unusable(err)
	}
	b.r.inputRuns = map[int64]bool{l.Run(): true}
	name := inputName(b.r.o.InputName)
	for run, theirs := range inputs {
		if (name != "" && inputName(theirs.Name) == name) || sameInput(in.min, parseSketch(theirs.Sketch)) {
			b.r.inputRuns[run] = true
		}
	}
	return nil
}

// recorded is what the ledger recorded of the move id for a run of this
// input (this one, an earlier one, or an imported journal): its latest
// send and the result of that send; nil when nothing.
func (r *runner) recorded(id string) (*journalEntry, error) {
	rec, err := r.ledger.Recorded(id, func(run int64) bool { return r.inputRuns[run] })
	if err != nil || rec == nil {
		return nil, r.ledger.Unusable(err)
	}
	e := &journalEntry{journal: rec.Journal}
	if rec.SentAmount != "" {
		e.send = &journalRecord{Event: eventSend, ReferenceID: rec.SentRef, Amount: rec.SentAmount}
	}
	if rec.Outcome != "" {
		e.result = &journalRecord{Event: eventResult, ReferenceID: rec.ReferenceID, Amount: rec.Amount,
			Outcome: Outcome(rec.Outcome), HTTPStatus: rec.HTTPStatus, ErrorType: rec.ErrorType,
			Message: rec.Message, PaymentStatus: rec.PaymentStatus}
	}
	return e, nil
}

// withRunOp gives the rows without an Op the run's op, when it is a move:
// rows made by hand for a bulk capture need not name theirs.
func withRunOp(op Op, src RowSource) RowSource {
	if !op.valid() {
		return src
	}
	return func(each func(Row)) error {
		return src(func(r Row) {
			if r.Op == "" {
				r.Op = op
			}
			each(r)
		})
	}
}

// rowPass is one row of a pass over the source: its place among the
// valid rows, its identity (key, derived reference_id, the reference_id
// it is sent with) and what the ledger records of it for a run of this
// input (nil if nothing).
type rowPass struct {
	seq     int
	row     Row
	key     string
	derived string
	sendRef string
	entry   *journalEntry
}

// eachRow calls each with every row of the source; a ledger that cannot
// be read stops the pass.
func (b *Batch) eachRow(each func(rp rowPass)) error {
	id := identifier{prefix: b.r.o.ReferencePrefix}
	var failed error
	seq := 0
	err := b.src(func(row Row) {
		if failed != nil {
			return
		}
		if !row.Op.valid() {
			failed = fmt.Errorf("bulk: line %d: unknown op %q", row.Line, row.Op)
			return
		}
		seq++
		rp := rowPass{seq: seq, row: row}
		rp.key, rp.derived = id.next(row)
		if rp.entry, failed = b.r.recorded(ledger.MoveID(b.r.ledger.Scope(), rp.key)); failed != nil {
			return
		}
		rp.sendRef = firstNonEmpty(row.ReferenceID, rp.derived)
		if rp.entry != nil && rp.entry.send != nil && rp.entry.send.ReferenceID != "" {
			rp.sendRef = rp.entry.send.ReferenceID
		}
		each(rp)
	})
	if failed != nil {
		return failed
	}
	return err
}

// countPending records the rows in the ledger and counts those no earlier
// run settled, and their payments.
func (b *Batch) countPending() error {
	var planned []ledger.PlannedRow
	var failed error
	l, o := b.r.ledger, b.r.o
	err := b.eachRow(func(rp rowPass) {
		planned = append(planned, ledger.PlannedRow{Seq: rp.seq, Line: rp.row.Line, MoveID: ledger.MoveID(l.Scope(), rp.key),
			Op: string(rp.row.Op), PaymentID: rp.row.PaymentID, ReferenceID: rp.sendRef, Amount: rp.row.Amount,
			MoveAmount: canonicalAmount(rp.row.Amount)})
		if len(planned) == ledger.PlanBatch && failed == nil {
			failed = l.Unusable(l.PlanRows(planned))
			planned = planned[:0]
		}
		if rp.entry != nil {
			if _, settled := settledResult(rp.row, rp.entry, o.RetryFailed); settled {
				return
			}
		}
		b.pending++
		b.pendingSet.Add(rp.row)
	})
	if err == nil {
		err = failed
	}
	if err == nil {
		err = l.Unusable(l.PlanRows(planned))
	}
	if err != nil {
		return err
	}
	return b.strayNotice()
}

// strayNotice says how many moves the runs of this input (and the journal
// imported) settled that are no row of it now: rows edited or removed
// since they ran. They are not sent, and a row of the input that repeats
// one is judged a possible repeat.
func (b *Batch) strayNotice() error {
	o, l := b.r.o, b.r.ledger
	runs := make([]int64, 0, len(b.r.inputRuns))
	for run := range b.r.inputRuns {
		runs = append(runs, run)
	}
	ops := []string{string(o.Op)}
	if o.Op == OpApply {
		ops = []string{string(OpCapture), string(OpRefund), string(OpClose)}
	}
	stray, err := l.StrayOutcomes(runs, ops)
	if err != nil {
		return l.Unusable(err)
	}
	if stray > 0 {
		then := "is refused unless --allow-repeats"
		if o.AllowRepeats {
			then = "goes as new with --allow-repeats, said row by row"
		}
		o.notice("%s: earlier runs of this input settled %d %s not in it now (edited since?); they are not sent, and a row of this input that repeats one of their moves %s",
			o.Op, stray, plural(stray, "row", "rows"), then)
	}
	return nil
}

// PendingRows is the number of rows this run is to send: those no earlier
// run settled.
func (b *Batch) PendingRows() int { return b.pending }

// PendingPayments is the number of payments of the pending rows.
func (b *Batch) PendingPayments() int { return b.pendingSet.Len() }

// PlanPending plans the pending rows, as Plan does: what the confirmation
// of a live run shows. The rows are read again, not held.
func (b *Batch) PlanPending(ctx context.Context, read func(ctx context.Context, id string) (*api.Payment, error), disputes DisputeReader, now time.Time) (PlanResult, error) {
	o := b.r.o
	pl, err := NewPlanner(ctx, read, disputes, &b.pendingSet, o.Concurrency, now, o.ReferencePrefix, nil)
	if err != nil {
		return PlanResult{}, err
	}
	pl.AllowRepeats(o.AllowRepeats)
	pl.madeBy = madeByOf(b.r.ledger)
	pl.edited = editsOf(b.r.ledger, o.InputName, b.r.sketch)
	err = b.eachRow(func(rp rowPass) {
		if rp.entry != nil {
			if _, settled := settledResult(rp.row, rp.entry, o.RetryFailed); settled {
				pl.Settled(rp.row)
				return
			}
		}
		pl.Check(rp.row)
	})
	return pl.Result(), err
}

// Close releases the ledger and drops an unwritten report; it does
// nothing after Run.
func (b *Batch) Close() {
	if b.closed {
		return
	}
	b.closed = true
	if b.rep != nil {
		b.rep.abort()
	}
	if b.r.ledger != nil {
		b.r.ledger.Close()
	}
}

// Run sends the pending rows through c; see the package function Run.
func (b *Batch) Run(ctx context.Context, c Client) (Summary, error) {
	if b.closed {
		return Summary{}, errors.New("bulk: the batch was closed")
	}
	r, o := b.r, b.r.o
	r.c = c
	rep := b.rep
	b.rep = nil // finished or aborted here
	defer b.Close()

	r.progress = startProgress(o, b.pending)
	r.runStream(ctx, b)

	notSent := "not sent: the run was interrupted"
	if r.stopErr != nil {
		notSent = "not sent: the run stopped: " + r.stopErr.Error()
	}
	summary, reportErr := r.summarize(rep, notSent)
	writeErr := r.progress.finish(summary)
	if o.WriteSummary != nil {
		writeErr = errors.Join(writeErr, o.WriteSummary(summary))
	}
	// Only now, its summary written (the line, and the JSON when asked),
	// is the run marked summarized: a run killed before (or whose summary
	// could not be written: its reader gone) leaves the moves it counted to the next run that finds them,
	// which counts them for it (moved_by_ended_runs). A run that writes
	// its summary nowhere (--quiet without -o json) is never marked: what
	// it moved is shown by the next run that finds it, as an ended run's.
	if writeErr == nil && (o.Progress != nil || o.WriteSummary != nil) {
		if err := r.ledger.Summarized(); err != nil {
			r.halt(r.ledger.Stopped(err))
		}
	}
	verdict := r.verdict(summary, reportErr)
	if writeErr != nil {
		return summary, errors.Join(verdict, writeErr)
	}
	return summary, verdict
}

// summarize reads the run's rows from the ledger once: the report is
// written from them and the summary counted as they go (read again
// alone when there is no report, or it failed). A ledger that cannot be
// read stops the run; reportErr is the report's own failure.
func (r *runner) summarize(rep *report, notSent string) (summary Summary, reportErr error) {
	counted := false
	if rep != nil {
		reportErr = rep.finish(r.ledger, notSent, func(res rowResult) { summary.Total++; summary.count(res) })
		counted = reportErr == nil
	}
	var err error
	if !counted {
		summary, err = ledgerSummary(r.ledger)
	}
	// Rows left untouched mean the run did not finish, whatever stopped
	// it; a cancellation that came after the last row changes nothing.
	summary.Interrupted = summary.NotSent > 0
	if err != nil {
		r.halt(r.ledger.Stopped(err))
	}
	return summary, reportErr
}

// verdict is the error Run returns for a run that ended with summary.
func (r *runner) verdict(summary Summary, reportErr error) error {
	o := r.o
	switch {
	case r.stopErr != nil:
		return errors.Join(r.stopErr, reportErr)
	case summary.Interrupted || summary.Failed > 0 || summary.Unknown > 0:
		runErr := &RunError{Op: o.Op, Summary: summary, ReportPath: o.ReportPath}
		if reportErr != nil {
			return errors.Join(runErr, reportErr)
		}
		return runErr
	}
	return reportErr
}

func withDefaults(o Options) Options {
	if o.Concurrency <= 0 {
		o.Concurrency = defaultConcurrency
	}
	if o.limiter == nil && o.Rate > 0 {
		o.limiter = newLimiter(o.Rate)
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.window <= 0 {
		o.window = windowRows
	}
	if o.ticker == nil {
		o.ticker = realTicker
	}
	if o.Scope == "" {
		o.Scope = "local"
	}
	if o.Classify == nil {
		o.Classify = func(err error) (int, string, string, bool) { return 0, "", err.Error(), true }
	}
	return o
}

// fillOp gives the rows without an Op the run's op, when it is a move:
// rows made by hand for a bulk capture need not name theirs.
func fillOp(op Op, rows []Row) {
	if !op.valid() {
		return
	}
	for i := range rows {
		if rows[i].Op == "" {
			rows[i].Op = op
		}
	}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
