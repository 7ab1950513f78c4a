package bulk

import (
	"fmt"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

// RowError says why one input row cannot be sent.
type RowError struct {
	Line int
	// PaymentID as written, possibly empty or malformed, so that a skipped
	// row can still be told apart in the report.
	PaymentID string
	// Op, Amount and ReferenceID as written, for the report.
	Op          Op
	Amount      string
	ReferenceID string
	Field       string
	Message     string
}

func (e RowError) String() string {
	if e.Field == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Message)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, e.Field, e.Message)
}

// InputError is an input that cannot be read as rows at all: no header, an
// unknown column, an unreadable stream. Nothing was sent.
type InputError struct {
	Name    string
	Line    int
	Message string
	hint    string
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: line %d: %s", e.Name, e.Line, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Name, e.Message)
}

func (e *InputError) ExitCode() int { return 2 }

func (e *InputError) Hint() string {
	if e.hint != "" {
		return e.hint
	}
	return "the input is CSV with a header row (payment_id,amount,...) or one JSON object per line"
}

// maxListed keeps an error about a large file readable; the report, not the
// error, is where every row is listed.
const maxListed = 20

// InvalidRowsError stops a run that found invalid rows before sending any.
type InvalidRowsError struct{ Rows []RowError }

func (e *InvalidRowsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d invalid %s, nothing was sent:", len(e.Rows), plural(len(e.Rows), "row", "rows"))
	for i, r := range e.Rows {
		if i == maxListed {
			fmt.Fprintf(&b, "\n  ... and %d more", len(e.Rows)-maxListed)
			break
		}
		b.WriteString("\n  ")
		b.WriteString(r.String())
	}
	return b.String()
}

func (e *InvalidRowsError) ExitCode() int { return 2 }

func (e *InvalidRowsError) Hint() string {
	return "fix the rows listed, or pass --skip-invalid to send the valid rows and report the others as skipped"
}

// RunError ends a run in which rows failed or that was interrupted; the
// Summary says how far it got.
type RunError struct {
	Op         Op
	Summary    Summary
	ReportPath string
	// Terminated is an interruption by SIGTERM rather than Ctrl-C.
	Terminated bool
}

func (e *RunError) Error() string {
	// The summary line itself is printed once, by the run; the error only
	// says how the run ended.
	if e.Summary.Interrupted {
		return fmt.Sprintf("bulk %s interrupted: %d of %d rows not sent", e.Op, e.Summary.NotSent, e.Summary.Total)
	}
	if e.Summary.Unknown > 0 {
		return fmt.Sprintf("bulk %s: %d of %d rows of unknown outcome (money may have moved), %d failed", e.Op, e.Summary.Unknown, e.Summary.Total, e.Summary.Failed)
	}
	return fmt.Sprintf("bulk %s: %d of %d rows failed", e.Op, e.Summary.Failed, e.Summary.Total)
}

// ExitCode is 130 for an interruption (143 for SIGTERM), even with failed
// rows, because the first thing to do is to finish the run; then 10 when
// some row's outcome is unknown (money may have moved: that comes before
// the failures), and 11 when rows failed.
func (e *RunError) ExitCode() int {
	if e.Summary.Interrupted && e.Terminated {
		return 143
	}
	if e.Summary.Interrupted {
		return 130
	}
	if e.Summary.Unknown > 0 {
		return 10
	}
	return 11
}

func (e *RunError) Hint() string {
	var hints []string
	if e.Summary.Interrupted {
		hints = append(hints, "run the same command again on the same rows to resume: the ledger holds the run, finished rows are skipped and rows in flight are re-sent with the same reference_id only when their move is not there")
	}
	if e.Summary.Unknown > 0 {
		hints = append(hints, "run the same command again: it reads each payment of unknown outcome and re-sends a row with its reference_id only when its move is not there; "+
			"never give such a row a new reference_id before its payment shows that it moved nothing")
	}
	if e.Summary.Failed > 0 {
		where := "the report"
		if e.ReportPath != "" {
			where = e.ReportPath
		}
		if e.Summary.repeats < e.Summary.Failed {
			hints = append(hints, fmt.Sprintf("%s says why each failed row failed; after fixing the cause, re-run with --retry-failed", where))
		} else {
			hints = append(hints, fmt.Sprintf("%s says why each failed row failed", where))
		}
	}
	if e.Summary.repeats > 0 {
		hints = append(hints, "a row refused as a possible repeat that is a new move goes with --allow-repeats: run the same command again with it")
	}
	return strings.Join(hints, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// JournalError is a journal that cannot be used as it is: not a file bnpl
// wrote, damaged, or not private. Nothing was sent and the file was left
// as it was.
type JournalError struct {
	Path string
	// Line is the damaged line, 0 when the problem is the whole file.
	Line    int
	Problem string
	hint    string
}

func (e *JournalError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("journal %s: line %d %s; nothing was sent", e.Path, e.Line, e.Problem)
	}
	return fmt.Sprintf("journal %s %s; nothing was sent", e.Path, e.Problem)
}

func (e *JournalError) ExitCode() int { return 2 }

func (e *JournalError) Hint() string {
	if e.hint != "" {
		return e.hint
	}
	return "repair or remove that line, keeping every \"send\" record; or move the journal aside and run again: " +
		"rows keep their reference_id (the row's own, or one derived from the row), so the service does not apply a move twice"
}

func journalRefused(path, why string) error {
	return &JournalError{Path: path, Problem: why,
		hint: "give --journal a regular file only you can read and write (it is created with mode 600)"}
}

func journalNotOurs(path string) error {
	return &JournalError{Path: path, Problem: "is not a bnpl journal: its first line is not a run record",
		hint: "check --journal: it names a file bnpl did not write, which is left untouched; choose another path"}
}

// LedgerError is a ledger of moves that cannot be used (see ledger.Error):
// exit 12, nothing sent.
type LedgerError = ledger.Error
