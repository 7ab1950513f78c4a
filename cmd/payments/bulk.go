package payments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// BulkOptions are the flags of a run of one move over the rows of a file.
type BulkOptions struct {
	FromFile    string
	Concurrency int
	Journal     string
	Report      string
	Rate        float64
	SkipInvalid bool
	RetryFailed bool
}

var bulkFlagNames = []string{"concurrency", "journal", "report", "rate", "skip-invalid", "retry-failed"}

func addBulkFlags(cmd *cobra.Command, b *BulkOptions) {
	fl := cmd.Flags()
	fl.StringVar(&b.FromFile, "from-file", "", "run over the rows of a CSV or JSON-lines file (- for stdin) instead of one payment")
	fl.IntVar(&b.Concurrency, "concurrency", 8, "with --from-file: payments worked on at once")
	fl.StringVar(&b.Journal, "journal", "", "with --from-file: resume journal (default <file>.journal; required for stdin)")
	fl.StringVar(&b.Report, "report", "", "with --from-file: per-row report, CSV or .jsonl (default <file>.report.csv; none for stdin)")
	fl.Float64Var(&b.Rate, "rate", 0, "with --from-file: at most this many requests per second (0: no cap)")
	fl.BoolVar(&b.SkipInvalid, "skip-invalid", false, "with --from-file: send the valid rows and report invalid ones as skipped")
	fl.BoolVar(&b.RetryFailed, "retry-failed", false, "with --from-file: send again the rows an earlier run saw fail")
}

// checkUnused refuses bulk flags on a single move, where they would be
// silently ignored.
func (b *BulkOptions) checkUnused(cmd *cobra.Command) error {
	for _, n := range bulkFlagNames {
		if fl := cmd.Flags().Lookup(n); fl != nil && fl.Changed {
			return cmdutil.Usagef("--%s applies only with --from-file", n)
		}
	}
	return nil
}

// bulkRun reads the rows, checks them all, and runs the move over them.
func bulkRun(ctx context.Context, op bulk.Op, b *BulkOptions, d *MoveDeps) error {
	if b.Concurrency < 1 {
		return cmdutil.Usagef("--concurrency must be 1 or more, got %d", b.Concurrency)
	}
	if b.Rate < 0 {
		return cmdutil.Usagef("--rate must be 0 (no cap) or more, got %g", b.Rate)
	}
	name := b.FromFile
	journal, report := b.Journal, b.Report
	var in io.Reader
	if name == "-" {
		// Without a journal an interrupted run from a pipe could only be
		// re-run whole, and rows without a reference_id would then move
		// money twice.
		if journal == "" {
			return cmdutil.UsageHint("the journal lets a re-run of the same rows skip those already done",
				"reading rows from stdin needs --journal FILE")
		}
		in = d.IO.In
	} else {
		f, err := os.Open(name)
		if err != nil {
			return cmdutil.Refuse("check the path given to --from-file", "cannot read --from-file: %v", err)
		}
		defer f.Close()
		in = f
		if journal == "" {
			journal = name + ".journal"
		}
		if report == "" {
			report = name + ".report.csv"
		}
	}

	rows, invalid, err := bulk.ReadRows(in, name, op)
	if err != nil {
		return err
	}
	if len(rows) == 0 && len(invalid) == 0 {
		return cmdutil.Refuse("add rows under the header", "%s holds no rows", name)
	}
	if d.DryRun {
		d.Notice("dry run: %d valid and %d invalid rows for %s; nothing was sent", len(rows), len(invalid), op)
		if len(invalid) > 0 && !b.SkipInvalid {
			return &bulk.InvalidRowsError{Rows: invalid}
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
	what := fmt.Sprintf("%s %d %s from %s on merchant %s", op, len(rows), plural(len(rows), "payment row", "payment rows"), name, merchantOf(target))
	if err := d.Confirmer(target.Live).Confirm(what); err != nil {
		return err
	}
	client, err := d.Client()
	if err != nil {
		return err
	}
	opts := bulk.Options{
		Op:          op,
		Concurrency: b.Concurrency,
		Rate:        b.Rate,
		JournalPath: journal,
		ReportPath:  report,
		Invalid:     invalid,
		SkipInvalid: b.SkipInvalid,
		RetryFailed: b.RetryFailed,
		Classify:    classifyMoveError,
	}
	if !d.Quiet {
		opts.Progress = d.IO.ErrOut
		opts.ProgressTTY = d.IO.IsStderrTTY()
	}
	if journal != "" || report != "" {
		d.Notice("%s: journal %s, report %s", op, orNone(journal), orNone(report))
	}
	summary, runErr := bulk.Run(ctx, client, rows, opts)
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
	return 0, "", message, true
}
