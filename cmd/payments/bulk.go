package payments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// BulkOptions are the flags of a run of one move over the rows of a file.
type BulkOptions struct {
	// FromFile is --input (also spelt --from-file).
	FromFile string
	// InputEncoding converts a legacy file (windows-1252, latin1) to
	// UTF-8 as it is read; "" is UTF-8.
	InputEncoding string
	Concurrency   int
	Journal       string
	Report        string
	Rate          float64
	SkipInvalid   bool
	RetryFailed   bool
	// AllowRepeats takes identical rows without a reference_id as meant.
	AllowRepeats bool
	// ReferencePrefix starts the reference_id derived for rows without one.
	ReferencePrefix string

	rateSet bool // --rate was given, so 0 is refused rather than taken as no cap
}

// rateValue is --rate: a float that remembers it was given.
type rateValue struct{ b *BulkOptions }

func (v rateValue) String() string {
	if v.b == nil || v.b.Rate == 0 {
		return "0"
	}
	return strconv.FormatFloat(v.b.Rate, 'g', -1, 64)
}

func (v rateValue) Set(s string) error {
	r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return fmt.Errorf("%q is not a number of requests per second", s)
	}
	v.b.Rate, v.b.rateSet = r, true
	return nil
}

func (rateValue) Type() string { return "float" }

var bulkFlagNames = []string{"input-encoding", "allow-repeats", "concurrency", "journal", "report", "rate", "skip-invalid", "retry-failed", "reference-prefix"}

// Bounds of --rate: below one request a minute a run of any size would
// never end, and above this the service's own limits decide anyway.
const (
	minRate = 1.0 / 60
	maxRate = 1000
)

func addBulkFlags(cmd *cobra.Command, b *BulkOptions) {
	fl := cmd.Flags()
	fl.StringVar(&b.FromFile, "input", "", "run over the rows of a CSV or JSON-lines file (- for stdin) instead of one payment")
	// The earlier name of --input, kept for scripts that use it.
	fl.StringVar(&b.FromFile, "from-file", "", "the same as --input")
	_ = fl.MarkHidden("from-file")
	fl.StringVar(&b.InputEncoding, "input-encoding", "", "with --input: the file's encoding when it is not UTF-8: windows-1252 or latin1")
	fl.IntVar(&b.Concurrency, "concurrency", 8, "with --input: payments worked on at once")
	fl.StringVar(&b.Journal, "journal", "", "with --input: resume journal (default <file>.journal; required for stdin)")
	fl.StringVar(&b.Report, "report", "", "with --input: per-row report, CSV or .jsonl (default <file>.report.csv; none for stdin)")
	fl.Var(rateValue{b}, "rate", "with --input: at most this many requests per second, 0.0167 to 1000 (default: no cap)")
	fl.BoolVar(&b.SkipInvalid, "skip-invalid", false, "with --input: send the valid rows and report invalid ones as skipped")
	if cmd.Name() != string(bulk.OpClose) {
		fl.BoolVar(&b.AllowRepeats, "allow-repeats", false, "with --input: identical rows without a reference_id each move money (default: the second is refused)")
	}
	fl.BoolVar(&b.RetryFailed, "retry-failed", false, "with --input: send again the rows an earlier run saw fail")
	if cmd.Name() != string(bulk.OpClose) { // a close sends no reference_id
		fl.StringVar(&b.ReferencePrefix, "reference-prefix", "", "with --input: prefix of the reference_id derived for rows without one (default bnpl); a new prefix makes a deliberate second run of the same file move money again")
	}
}

// checkUnused refuses bulk flags on a single move, where they would be
// silently ignored.
func (b *BulkOptions) checkUnused(cmd *cobra.Command) error {
	for _, n := range bulkFlagNames {
		if fl := cmd.Flags().Lookup(n); fl != nil && fl.Changed {
			return cmdutil.Usagef("--%s applies only with --input", n)
		}
	}
	return nil
}

// bulkRun reads the rows, checks them all, and runs the move over them.
func bulkRun(ctx context.Context, op bulk.Op, b *BulkOptions, d *MoveDeps) error {
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
	name := b.FromFile
	journal, report := b.Journal, b.Report
	if name == "-" {
		// Without a journal an interrupted run from a pipe could only be
		// re-run whole.
		if journal == "" {
			return cmdutil.UsageHint("the journal lets a re-run of the same rows skip those already done",
				"reading rows from stdin needs --journal FILE")
		}
	} else {
		if journal == "" {
			journal = name + ".journal"
		}
		if report == "" {
			report = name + ".report.csv"
		}
	}
	if err := distinctFiles(map[string]string{"--input": name, "--journal": journal, "--report": report}); err != nil {
		return err
	}
	src, err := openBulkInput(name, d.IO.In, d.StateDir, maxBufferedInput)
	if err != nil {
		return err
	}
	defer src.close()
	ro := bulk.ReadOptions{Encoding: b.InputEncoding, AllowRepeats: b.AllowRepeats}
	if d.DryRun {
		return bulkPlan(ctx, op, b, d, src, ro)
	}

	// What a run keeps is per payment and a few flat tables; the rest is
	// each row's garbage, which a lower GC percent keeps from doubling
	// the peak, as in the plan.
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	// The input's bytes name it for the input lock: one run per file at a
	// time, whatever the journal. The rows are not held: each later pass
	// reads the input again and must find the same bytes.
	count := 0
	invalid, inputID, err := src.scan(op, ro, func(bulk.Row) { count++ })
	if err != nil {
		return err
	}
	if count == 0 && len(invalid) == 0 {
		return noRows(name)
	}
	sending := false // the pass that sends has begun
	rows := func(each func(bulk.Row)) error {
		_, again, err := src.scan(op, ro, each)
		if err != nil {
			return err
		}
		if again != inputID {
			if sending {
				return changedWhileRunError(name)
			}
			return changedError(name)
		}
		return nil
	}

	printer, err := d.Printer()
	if err != nil {
		return err
	}
	target, err := d.Target()
	if err != nil {
		return err
	}
	confirmer := d.Confirmer(target.Live)
	what := fmt.Sprintf("%s %d %s from %s on %s", op, count, plural(count, "payment row", "payment rows"), name, merchantOf(target))
	if err := checkLiveEarly(confirmer, what); err != nil {
		return err
	}
	opts := bulk.Options{
		Op:              op,
		Concurrency:     b.Concurrency,
		Rate:            b.Rate,
		JournalPath:     journal,
		ReportPath:      report,
		Invalid:         invalid,
		SkipInvalid:     b.SkipInvalid,
		RetryFailed:     b.RetryFailed,
		ReferencePrefix: b.ReferencePrefix,
		Classify:        classifyMoveError,
		LockDir:         d.StateDir,
		InputID:         inputID,
		InputName:       name,
	}
	if !d.Quiet {
		opts.Progress = d.IO.ErrOut
		opts.ProgressTTY = d.IO.IsStderrTTY() && !d.IO.PlainProgress()
	}
	// The journal is locked from here to the end: a second run of the same
	// journal stops now, before any question or request.
	batch, err := bulk.PrepareSource(rows, opts)
	if err != nil {
		return err
	}
	defer batch.Close()
	client, err := d.Client()
	if err != nil {
		return err
	}
	if confirmer.Live && !confirmer.Yes {
		// The confirmation shows the plan a dry run prints, for the rows
		// still to send.
		plan, err := batch.PlanPending(ctx, client.GetPayment, client, nowOf(d)())
		if err != nil {
			return err
		}
		pending, payments := batch.PendingRows(), batch.PendingPayments()
		what = fmt.Sprintf("%s %d %s over %d %s from %s on %s", op, pending, plural(pending, "row", "rows"),
			payments, plural(payments, "payment", "payments"), name, merchantOf(target))
		what += "; " + plan.String()
		if err := confirmer.Confirm(what); err != nil {
			return err
		}
	}
	if journal != "" || report != "" {
		d.Notice("%s: journal %s, report %s", op, orNone(journal), orNone(report))
	}

	// SIGTERM (a CI job cancelled, a service manager stopping) stops the
	// run as Ctrl-C does: no new rows, the rows in flight finished and
	// journaled, the report written.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	defer signal.Stop(term)
	var terminated atomic.Bool
	go func() {
		select {
		case <-term:
			terminated.Store(true)
			cancel()
		case <-ctx.Done():
		}
	}()

	sending = true
	summary, runErr := batch.Run(ctx, client)
	var re *bulk.RunError
	if terminated.Load() && errors.As(runErr, &re) {
		re.Terminated = true
	}
	if printer.IsJSON() {
		out, err := json.Marshal(struct {
			Op string `json:"op"`
			bulk.Summary
			Journal string `json:"journal,omitempty"`
			Report  string `json:"report,omitempty"`
		}{string(op), summary, journal, report})
		if err != nil {
			return err
		}
		if err := printer.Object(out, nil); err != nil {
			return errors.Join(runErr, err)
		}
	}
	return runErr
}

// distinctFiles refuses a run whose input, journal and report are not
// three different files, links resolved: a journal written over the input,
// or a report over the journal, would lose what keeps money from moving
// twice. "-" and "" name no file.
func distinctFiles(files map[string]string) error {
	flags := make([]string, 0, len(files))
	for fl := range files {
		flags = append(flags, fl)
	}
	sort.Strings(flags)
	for i, a := range flags {
		for _, b := range flags[i+1:] {
			pa, pb := files[a], files[b]
			if pa == "" || pb == "" || pa == "-" || pb == "-" {
				continue
			}
			if sameFile(pa, pb) {
				return cmdutil.UsageHint("give --input, --journal and --report three different files",
					"%s %s and %s %s are the same file", a, pa, b, pb)
			}
		}
	}
	return nil
}

func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(ia, ib)
	}
	return resolvedPath(a) == resolvedPath(b)
}

// resolvedPath is p made absolute with every link resolved, as far as the
// path exists.
func resolvedPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	dir, base := filepath.Split(abs)
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(r, base)
	}
	return abs
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// classifyMoveError tells the bulk run what a move's error means. Anything
// that is not a definite answer of the service is an unknown outcome, so
// that a re-run sends the row again with the same reference_id rather than
// give it up.
func classifyMoveError(err error) (status int, errorType, message string, unknown bool) {
	message = err.Error()
	if h, ok := err.(interface{ Hint() string }); ok && h.Hint() != "" {
		message += " (" + h.Hint() + ")"
	}
	if e, ok := api.AsAPIError(err); ok {
		msg := e.Message
		if msg == "" {
			msg = strings.TrimSpace(e.Error())
		}
		if h, ok := err.(interface{ Hint() string }); ok && h.Hint() != "" {
			msg += " (" + h.Hint() + ")"
		}
		// A lock or a rate limit that outlasted the retries moved nothing
		// this time, and a 5xx may or may not have: either way a resume
		// must send the row again with its reference_id rather than count
		// it as finally failed.
		resend := e.Status >= 500 || e.Status == http.StatusTooManyRequests || api.IsLocked(err)
		return e.Status, e.ErrorType, msg, resend
	}
	var ve *api.ValidationError
	if errors.As(err, &ve) {
		return 0, "", message, false
	}
	// The payment does not show the move as sent: whether money moved is
	// unknown, so it is never reported failed.
	var mu *api.MoveUnknownError
	if errors.As(err, &mu) {
		return 0, "", message, true
	}
	return 0, "", message, true
}

func noRows(name string) error {
	return cmdutil.Refuse("add rows under the header", "%s holds no rows", name)
}

// bulkPlan reads every payment the rows name and prints what a run would
// do; it fails (exit 2) when the plan refuses rows, which a real run would
// refuse too. The rows are read twice and never held: first to check them
// and learn their payments, which are then read, then to check each row
// against its payment; what is kept is bounded by the payments.
func bulkPlan(ctx context.Context, op bulk.Op, b *BulkOptions, d *MoveDeps, src *bulkInput, ro bulk.ReadOptions) error {
	// What the passes keep is a few flat tables the collector need not
	// scan; the rest is each row's garbage. A lower GC percent costs little
	// then, and keeps the peak nearer what is kept than twice it.
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	var set bulk.PaymentSet
	valid := 0
	invalid, inputID, err := src.scan(op, ro, func(r bulk.Row) { valid++; set.Add(r) })
	if err != nil {
		return err
	}
	if valid == 0 && len(invalid) == 0 {
		return noRows(src.name)
	}
	d.Notice("dry run: %d valid and %d invalid rows for %s; nothing was sent", valid, len(invalid), op)
	if len(invalid) > 0 && !b.SkipInvalid {
		return &bulk.InvalidRowsError{Rows: invalid}
	}
	client, err := d.Client()
	if err != nil {
		return err
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
	now := nowOf(d)
	read := func(ctx context.Context, id string) (*api.Payment, error) {
		return client.ReadBeforeMove(ctx, id, pastTenseOf(op))
	}
	planner, err := bulk.NewPlanner(ctx, read, client, &set, b.Concurrency, now(), b.ReferencePrefix, progress)
	if err != nil {
		return err
	}
	// What the first pass kept for its checks is garbage now; the second
	// builds its own. Handing it back first keeps the peak to one pass's.
	debug.FreeOSMemory()
	_, again, err := src.scan(op, ro, planner.Check)
	if err != nil {
		return err
	}
	if again != inputID {
		return changedError(src.name)
	}
	plan := planner.Result()
	d.Notice("%s", plan)
	if plan.RefusedCount > 0 {
		return &bulk.PlanError{Plan: plan}
	}
	return nil
}

func pastTenseOf(op bulk.Op) string {
	switch op {
	case bulk.OpCapture:
		return "captured"
	case bulk.OpRefund:
		return "refunded"
	case bulk.OpClose:
		return "closed"
	}
	return "moved"
}

func nowOf(d *MoveDeps) func() time.Time {
	if d.Now != nil {
		return d.Now
	}
	return time.Now
}
