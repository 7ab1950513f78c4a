package bulk

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

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
	// moved: this run's own request moved the row's money (ok, or
	// reconciled after an attempt of this run whose outcome was unknown);
	// never a move found already made.
	moved bool
}

var reportHeader = []string{"line", "op", "payment_id", "reference_id", "amount", "outcome", "http_status", "error_type", "message", "payment_status"}

// report is made ready before anything is sent, so an unwritable path
// stops the run while nothing has moved, and filled at the end, in input
// order. It is written to a temporary file beside the path and renamed
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

func (r *report) write(results []rowResult) error {
	sort.SliceStable(results, func(a, b int) bool { return results[a].Line < results[b].Line })
	err := writeReport(r.tmp, results, r.jsonl)
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

func writeReport(w io.Writer, results []rowResult, jsonl bool) error {
	// The report is a file others may be given: what a row quotes from an
	// error or from its input (a key pasted into an id column) is masked,
	// and terminal escapes are made inert.
	var m *secret.Masker
	for i := range results {
		r := &results[i]
		r.Message, r.ErrorType = m.Text(r.Message), m.Text(r.ErrorType)
		r.PaymentID, r.ReferenceID = m.Text(r.PaymentID), m.Text(r.ReferenceID)
		r.Op = Op(m.Text(string(r.Op)))
	}
	if jsonl {
		enc := json.NewEncoder(w)
		for _, res := range results {
			if err := enc.Encode(res); err != nil {
				return err
			}
		}
		return nil
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(reportHeader); err != nil {
		return err
	}
	for _, res := range results {
		status := ""
		if res.HTTPStatus != 0 {
			status = strconv.Itoa(res.HTTPStatus)
		}
		if err := cw.Write([]string{
			strconv.Itoa(res.Line), string(res.Op), res.PaymentID, res.ReferenceID, res.Amount, string(res.Outcome),
			status, res.ErrorType, res.Message, res.PaymentStatus,
		}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
