package payments

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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
	// AllowRepeats takes the file's moves as meant: identical rows without
	// a reference_id each move money, and a row like a move its payment
	// holds settled (same op and amount) that no row of the file accounts
	// for goes as new, with a warning.
	AllowRepeats bool
	// AllowSplitAmounts takes as meant a CSV row whose whole amount is
	// followed by a cell of two or three digits under a column that is
	// not an amount (1 then "50": an unquoted decimal comma?).
	AllowSplitAmounts bool
	// ReferencePrefix starts the reference_id derived for rows without one.
	ReferencePrefix string
	// Ledger is --ledger: a PostgreSQL ledger of moves shared by a team's
	// machines; "" is BNPL_LEDGER's, the profile's, else the state
	// directory's.
	Ledger string
	// LedgerLost imports an old journal whose earlier runs were recorded
	// in a ledger now gone from where this run's is.
	LedgerLost bool

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

var bulkFlagNames = []string{"input-encoding", "allow-repeats", "allow-split-amounts", "concurrency", "journal", "report", "rate", "skip-invalid", "retry-failed", "reference-prefix", "ledger", "ledger-lost"}

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
	fl.StringVar(&b.InputEncoding, "input-encoding", "", "with --input: the file's encoding when it is not UTF-8: windows-1252, latin1 or macintosh (UTF-16 is told by itself)")
	fl.IntVar(&b.Concurrency, "concurrency", 8, "with --input: payments worked on at once")
	fl.StringVar(&b.Journal, "journal", "", "with --input: an old journal an earlier bnpl kept, imported once into the ledger, which holds every run (default <file>.journal, when it is there); a run is resumed by running it again")
	fl.StringVar(&b.Report, "report", "", "with --input: per-row report, CSV or .jsonl (default <file>.report.csv; none for stdin or a pipe)")
	fl.Var(rateValue{b}, "rate", "with --input: at most this many requests per second, 0.0167 to 1000 (default: no cap)")
	fl.BoolVar(&b.SkipInvalid, "skip-invalid", false, "with --input: send the valid rows and report invalid ones as skipped")
	if cmd.Name() != string(bulk.OpClose) {
		fl.BoolVar(&b.AllowRepeats, "allow-repeats", false, "with --input: identical rows without a reference_id each move money, and a row like a move its payment holds settled (same op and amount, or any amount when an earlier run of this file made it: an edited row) that no row of the file accounts for goes as new, with a warning (default: both refused)")
	}
	if cmd.Name() != string(bulk.OpClose) { // a close moves no amount
		fl.BoolVar(&b.AllowSplitAmounts, "allow-split-amounts", false, `with --input: a CSV row whose whole amount is followed by a cell of 2 or 3 digits under a column that is not an amount (1 then "50": an unquoted decimal comma, 1,50?) goes as written (default: refused)`)
	}
	fl.BoolVar(&b.RetryFailed, "retry-failed", false, "with --input: send again the rows an earlier run saw fail")
	fl.StringVar(&b.Ledger, "ledger", "", "with --input: the ledger of moves shared with other machines, a postgres:// URL (default: BNPL_LEDGER, the profile's ledger, else this machine's)")
	fl.BoolVar(&b.LedgerLost, "ledger-lost", false, "with --input: go on although the ledger of bulk moves that recorded the earlier runs (of this state directory, or of an old journal) is gone (deleted, moved aside, made again): the moves they made are counted apart as held before (default: the run stops, exit 12)")
	if cmd.Name() != string(bulk.OpClose) { // a close sends no reference_id
		fl.StringVar(&b.ReferencePrefix, "reference-prefix", "", "with --input: prefix of the reference_id derived for rows without one (default bnpl); a new prefix, with --allow-repeats, makes a deliberate second run of the same file move money again")
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
