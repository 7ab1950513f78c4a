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
)

// rowResult is what became of one row; it is a line of the report.
type rowResult struct {
	Line        int     `json:"line"`
	PaymentID   string  `json:"payment_id"`
	ReferenceID string  `json:"reference_id,omitempty"`
	Amount      string  `json:"amount,omitempty"`
	Outcome     Outcome `json:"outcome"`
	HTTPStatus  int     `json:"http_status,omitempty"`
	ErrorType   string  `json:"error_type,omitempty"`
	Message     string  `json:"message,omitempty"`
	// PaymentStatus is the payment's status after the row, when known.
	PaymentStatus string `json:"payment_status,omitempty"`

	earlier bool // settled by an earlier run, taken from the journal
	notSent bool // left untouched by an interruption
}

var reportHeader = []string{"line", "payment_id", "reference_id", "amount", "outcome", "http_status", "error_type", "message", "payment_status"}

// report is created before anything is sent, so an unwritable path stops
// the run while nothing has moved, and filled at the end, in input order.
type report struct {
	f     *os.File
	jsonl bool
}

func createReport(path string) (*report, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	ext := strings.ToLower(filepath.Ext(path))
	return &report{f: f, jsonl: ext == ".jsonl" || ext == ".ndjson"}, nil
}

func (r *report) write(results []rowResult) error {
	sort.SliceStable(results, func(a, b int) bool { return results[a].Line < results[b].Line })
	err := writeReport(r.f, results, r.jsonl)
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("report %s: %w", r.f.Name(), err)
	}
	return nil
}

func writeReport(w io.Writer, results []rowResult, jsonl bool) error {
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
			strconv.Itoa(res.Line), res.PaymentID, res.ReferenceID, res.Amount, string(res.Outcome),
			status, res.ErrorType, res.Message, res.PaymentStatus,
		}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
