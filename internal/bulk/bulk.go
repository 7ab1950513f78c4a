package bulk

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// Op is the money move of a row: capture, refund or close. A run has an
// Op too: one of those three, which every row of its input makes, or
// OpApply, whose rows each name their own in an op column. The rows are
// run the same way whatever the run's Op: a bulk capture is an apply
// whose every row is a capture.
type Op string

const (
	OpCapture Op = "capture"
	OpRefund  Op = "refund"
	OpClose   Op = "close"
	// OpApply is a run of mixed rows (the op column).
	OpApply Op = "apply"
)

// valid reports whether op is a move a row can make.
func (op Op) valid() bool { return op == OpCapture || op == OpRefund || op == OpClose }

// validRun reports whether op is what a run can be: a move, or apply.
func (op Op) validRun() bool { return op.valid() || op == OpApply }

// Row is one instruction of the input, as written there (trimmed). Amount is
// a positive decimal or "full"; fields an op does not use are empty.
type Row struct {
	// Line is where the row starts in the input, 1-based, counting the
	// CSV header; it is what people are told when a row is wrong.
	Line int
	// Op is the row's move: the run's, or the row's op column in an
	// apply run.
	Op             Op
	PaymentID      string
	Amount         string
	ReferenceID    string
	TaxAmount      string
	ShippingAmount string
	DiscountAmount string
	Reason         string
	// Currency, when given, must be the payment's: the row is refused
	// before it is sent otherwise.
	Currency string
}

// FullAmount is the Amount that asks for whatever the payment still allows:
// the capturable remainder for a capture, the refundable one for a refund.
const FullAmount = "full"

// Full reports whether the row moves the whole remaining amount.
func (r Row) Full() bool { return r.Amount == FullAmount }

// Client is the part of the API client a bulk run uses. The real client
// retries safely-retryable failures with the same reference_id, reconciles
// unknown outcomes and honours 429 across every goroutine sharing it; the
// run relies on that and does not retry by itself.
type Client interface {
	GetPayment(ctx context.Context, id string) (*api.Payment, error)
	Capture(ctx context.Context, id string, req api.CaptureRequest) (*api.MoveResult, error)
	Refund(ctx context.Context, id string, req api.RefundRequest) (*api.MoveResult, error)
	Close(ctx context.Context, id string) (*api.MoveResult, error)
}

// ClassifyFunc reads an error returned by the Client. status and errorType
// come from an API answer (0 and "" when there was none); unknown is true
// when the request may or may not have taken effect (a network failure or a
// timeout after the client's own retries), so that a later run re-sends the
// row with the same reference_id instead of treating it as failed.
type ClassifyFunc func(err error) (status int, errorType, message string, unknown bool)

// Options of a bulk run. Only Op is required.
type Options struct {
	Op Op
	// Concurrency is how many payments are worked on at once; default 8.
	Concurrency int
	// Rate caps the requests per second across all workers; 0 means no
	// cap beyond what the client does on 429.
	Rate float64
	// RowTimeout bounds the requests of one row, retries included; 0
	// leaves it to the client's per-request timeout.
	RowTimeout time.Duration

	// JournalPath is an old journal (one an earlier bnpl kept beside the
	// input), imported into the ledger once if it is there; "" for none.
	// The ledger holds the run: a run is resumed by running it again.
	JournalPath string
	// LedgerDir is bnpl's state directory, which holds the ledger every
	// run on the machine shares (see ledger); empty keeps a private
	// ledger for this run alone. Scope names the service the moves
	// are made on, spelt one way (moves of one scope are one set: a
	// payment id names one merchant's payment there), and
	// InputName the input, for people.
	LedgerDir string
	Scope     string
	InputName string
	// LedgerURL is a PostgreSQL ledger (postgres://…) shared by the runs
	// of every machine that names it, used instead of LedgerDir's.
	LedgerURL string
	// ReportPath gets one line per row: CSV, or JSON lines when it ends in
	// .jsonl or .ndjson; empty writes no report.
	ReportPath string

	// Invalid are the rows ReadRows refused. The run stops before sending
	// anything when there are some, unless SkipInvalid, which reports them
	// as skipped.
	Invalid     []RowError
	SkipInvalid bool
	// ReferencePrefix starts the reference_id derived for rows without one
	// (DefaultReferencePrefix when empty): a deliberate second run of the
	// same file takes a prefix of its own, or the service takes its rows
	// for repeats of the first run's.
	ReferencePrefix string
	// RetryFailed sends again the rows an earlier run recorded as definitely
	// failed; without it a resumed run keeps their earlier answer.
	RetryFailed bool
	// AllowRepeats sends a move whose like (same payment, op and amount)
	// the payment holds settled under a reference_id no row of the input
	// sends, with a warning naming the move held and who made it; without
	// it such a row is refused as a possible repeat. --allow-repeats sets
	// it together with ReadOptions.AllowRepeats (identical rows of the
	// input, each meant): one flag says the file's moves are all meant.
	AllowRepeats bool
	// LedgerLost goes on with a journal whose earlier runs were recorded
	// in a ledger gone from where this run's is (see LedgerLostError):
	// their moves are held before, counted apart.
	LedgerLost bool

	// Progress receives the progress display and the final summary line;
	// nil shows nothing. ProgressTTY draws a bar, fitted to a terminal
	// ProgressWidth columns wide (0: 80), instead of printing a summary
	// line every SummaryEvery (default 2s).
	Progress      io.Writer
	ProgressTTY   bool
	ProgressWidth int
	SummaryEvery  time.Duration
	// Notice says what a person should know that is no row's outcome
	// (which run this one waits for, journal records no row matches), as
	// the command's other notices; nil writes it to Progress.
	Notice func(format string, args ...any)
	// Warn says what a person must know whatever --quiet or -o json say:
	// a row sent as a new move although it repeats a settled one. nil
	// writes it as a notice.
	Warn func(msg string)

	// WriteSummary, when set, writes the run's summary where its caller
	// shows it (the JSON summary on stdout), after the summary line. The
	// run is marked summarized in the ledger only once it returns: a run
	// killed before has its moves counted by the next run that finds them.
	WriteSummary func(Summary) error

	// Classify reads the client's errors; nil treats every error as an
	// unknown outcome, the choice that can never lose a row: a re-run
	// sends it again with the same reference_id.
	Classify ClassifyFunc

	// Test seams: a limiter to wait on before every request, a clock for
	// journal times, a ticker for the periodic summary, and the bounds of
	// the rows waiting for a worker and of the report lines held.
	limiter waiter
	now     func() time.Time
	ticker  func(time.Duration) (<-chan time.Time, func())
	// window, when set, replaces windowRows.
	window int
}

// Outcome of a row, as the report and the journal write it.
type Outcome string

const (
	OutcomeOK         Outcome = "ok"
	OutcomeReconciled Outcome = "reconciled"
	// OutcomeHeldBefore is a row whose move the payment already held
	// when this run came to it, by a send this machine's ledger does not
	// know (another machine, a single command, a run whose ledger was
	// deleted since): moved outside this ledger, never this run's nor an
	// ended run's. The journal records it reconciled.
	OutcomeHeldBefore Outcome = "held_before"
	OutcomeFailed     Outcome = "failed"
	// OutcomeUnknown is a row whose move may or may not have moved money:
	// no answer, or a payment that does not show the move as sent. A
	// re-run reads the payment and re-sends it with
	// the same reference_id, which the service never applies twice.
	OutcomeUnknown Outcome = "unknown"
	OutcomeSkipped Outcome = "skipped"
	// OutcomeNotSent is a row an interruption left untouched.
	OutcomeNotSent Outcome = "not_sent"
)

// plainNumber is digits, with at most one decimal point between them:
// a number a spreadsheet reads as such, which the CSV writer leaves alone
// after a minus sign.
func plainNumber(s string) bool {
	whole, frac, dot := strings.Cut(s, ".")
	return digitsOnly(whole) && (!dot || digitsOnly(frac))
}

func digitsOnly(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
