package bulk

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// rowResult is what became of one row; it is a line of the report.
type rowResult struct {
	Line        int     `json:"line"`
	Op          Op      `json:"op"`
	PaymentID   string  `json:"payment_id"`
	ReferenceID string  `json:"reference_id,omitempty"`
	Amount      string  `json:"amount,omitempty"`
	Outcome     Outcome `json:"outcome"`
	HTTPStatus  int     `json:"http_status,omitempty"`
	ErrorType   string  `json:"error_type,omitempty"`
	Message     string  `json:"message,omitempty"`
	// PaymentStatus is the payment's status after the row, when known.
	PaymentStatus string `json:"payment_status,omitempty"`

	earlier  bool   // settled by an earlier run, taken from the journal
	notSent  bool   // left untouched by an interruption
	currency string // of the payment, once known
	// moved: the row's money was moved by this run's own send, made while
	// it held the payment's claim, to a payment that did not show the
	// move before; never a move found already made.
	moved bool
	// byRun is the run that moved a move found made, when the ledger
	// knows it; adopted: that run ended without recording that it moved
	// it (killed, or its answer lost), so no summary of it counted the
	// money, and this run's does, apart from what it moved itself.
	byRun   int64
	adopted bool
	// journal is the outcome the journal records for the row; "" records
	// nothing (a row left for a re-run to try again as new).
	journal Outcome
}

var reportHeader = []string{"line", "op", "payment_id", "reference_id", "amount", "outcome", "http_status", "error_type", "message", "payment_status"}

// report is made ready before anything is sent, so an unwritable path
// stops the run while nothing has moved, and filled at the end, in input
// order, from the run's rows in the ledger. It is written to a temporary file beside the path and renamed
// onto it: a reader never sees half a report, and a link planted at the
// path is replaced, never written through.
type report struct {
	path  string
	tmp   *os.File
	jsonl bool
}

func createReport(path string) (*report, error) {
	if info, err := os.Lstat(path); err == nil && info.IsDir() {
		return nil, fmt.Errorf("report %s is a directory", path)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	ext := strings.ToLower(filepath.Ext(path))
	return &report{path: path, tmp: tmp, jsonl: ext == ".jsonl" || ext == ".ndjson"}, nil
}

// finish writes the run's rows as the ledger holds them, in input order,
// and renames the report onto its path; each also takes every row, as
// read. notSent is the message of the rows the run left untouched.
func (r *report) finish(l *ledger.Ledger, notSent string, each func(rowResult)) error {
	bw := bufio.NewWriter(r.tmp)
	w := newReportWriter(bw, r.jsonl)
	err := w.header()
	if err == nil {
		err = eachRunRow(l, func(res rowResult) error {
			each(res)
			if res.notSent {
				res.Message = notSent
			}
			return w.write(res)
		})
	}
	if err == nil {
		err = w.flush()
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = r.tmp.Sync()
	}
	if cerr := r.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(r.tmp.Name(), r.path)
	}
	if err != nil {
		_ = os.Remove(r.tmp.Name())
		return fmt.Errorf("report %s: %w", r.path, err)
	}
	return nil
}

// abort drops a report that will not be written.
func (r *report) abort() {
	r.tmp.Close()
	_ = os.Remove(r.tmp.Name())
}

// reportWriter writes report lines one at a time, as CSV or JSON lines.
type reportWriter struct {
	enc *json.Encoder
	cw  *csv.Writer
}

func newReportWriter(w io.Writer, jsonl bool) *reportWriter {
	if jsonl {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false) // "<" as it was sent, as payments get writes it
		return &reportWriter{enc: enc}
	}
	return &reportWriter{cw: csv.NewWriter(w)}
}

func (w *reportWriter) header() error {
	if w.cw == nil {
		return nil
	}
	return w.cw.Write(reportHeader)
}

func (w *reportWriter) write(res rowResult) error {
	// Each cell is written as it was sent, the same in CSV and JSON lines
	// and as payments get writes a value: a key pasted into an id column
	// is masked, and a CSV cell a spreadsheet would run as a formula gets
	// the quote bnpl's CSV output gives it (which the bulk reader takes
	// off). Messages and error types quote texts from outside: their
	// terminal escapes are made inert, in both formats.
	var m *secret.Masker
	res.Message, res.ErrorType = m.Text(res.Message), m.Text(res.ErrorType)
	res.PaymentID, res.ReferenceID = m.String(res.PaymentID), m.String(res.ReferenceID)
	res.Op, res.Amount = Op(m.String(string(res.Op))), m.String(res.Amount)
	if w.enc != nil {
		return w.enc.Encode(res)
	}
	status := ""
	if res.HTTPStatus != 0 {
		status = strconv.Itoa(res.HTTPStatus)
	}
	cells := []string{
		strconv.Itoa(res.Line), string(res.Op), res.PaymentID, res.ReferenceID, res.Amount, string(res.Outcome),
		status, res.ErrorType, res.Message, res.PaymentStatus,
	}
	for i, c := range cells {
		cells[i] = neutralised(c)
	}
	return w.cw.Write(cells)
}

// neutralised puts a single quote before a CSV cell a spreadsheet would
// run as a formula (one starting with =, +, -, @, a tab or a carriage
// return, but not a negative number), as bnpl's CSV output does; the
// reader's unneutralised takes it off again.
func neutralised(cell string) string {
	if cell == "" {
		return cell
	}
	switch cell[0] {
	case '=', '+', '@', '\t', '\r':
		return "'" + cell
	case '-':
		if !plainNumber(cell[1:]) {
			return "'" + cell
		}
	}
	return cell
}

func (w *reportWriter) flush() error {
	if w.cw == nil {
		return nil
	}
	w.cw.Flush()
	return w.cw.Error()
}
