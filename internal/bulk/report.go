package bulk

import (
	"bufio"
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
	// buf holds the lines not yet spilled to runs.
	buf   []rowResult
	runs  []*os.File
	chunk int // lines held before they are spilled
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

// spillChunk is how many report lines a run holds before it writes them,
// sorted by line, to a temporary run file; the report is then merged from
// those files in input order. It bounds the report's memory whatever the
// number of rows.
const spillChunk = 16384

// spilledResult is a report line as a temporary run file holds it, with
// what the summary and the final message need.
type spilledResult struct {
	rowResult
	NotSent bool `json:"not_sent_row,omitempty"`
}

// add takes one settled row; the lines are written in input order by
// finish.
func (r *report) add(res rowResult) error {
	r.buf = append(r.buf, res)
	if len(r.buf) < max(r.chunk, 1) {
		return nil
	}
	return r.spill()
}

// spill writes the held lines, sorted by line, to a new run file beside
// the report.
func (r *report) spill() error {
	sortByLine(r.buf)
	f, err := os.CreateTemp(filepath.Dir(r.tmp.Name()), filepath.Base(r.tmp.Name())+".run*")
	if err != nil {
		return fmt.Errorf("report %s: %w", r.path, err)
	}
	r.runs = append(r.runs, f)
	bw := bufio.NewWriter(f)
	enc := json.NewEncoder(bw)
	for _, res := range r.buf {
		if err := enc.Encode(spilledResult{res, res.notSent}); err != nil {
			return fmt.Errorf("report %s: %w", r.path, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report %s: %w", r.path, err)
	}
	clear(r.buf)
	r.buf = r.buf[:0]
	return nil
}

func sortByLine(results []rowResult) {
	sort.SliceStable(results, func(a, b int) bool { return results[a].Line < results[b].Line })
}

// finish writes every line added, and extra (the skipped rows), in input
// order, and renames the report onto its path. notSent is the message of
// the rows the run left untouched.
func (r *report) finish(extra []rowResult, notSent string) error {
	err := r.merge(extra, notSent)
	if err == nil {
		err = r.tmp.Sync()
	}
	if cerr := r.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(r.tmp.Name(), r.path)
	}
	r.dropRuns()
	if err != nil {
		_ = os.Remove(r.tmp.Name())
		return fmt.Errorf("report %s: %w", r.path, err)
	}
	return nil
}

// merge writes the lines of the run files, of the lines still held and of
// extra in line order: a k-way merge that holds one line per source.
func (r *report) merge(extra []rowResult, notSent string) error {
	sortByLine(r.buf)
	sortByLine(extra)
	var sources []*lineSource
	for _, f := range r.runs {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		dec := json.NewDecoder(bufio.NewReader(f))
		sources = append(sources, &lineSource{next: func() (rowResult, bool, error) {
			var sr spilledResult
			if err := dec.Decode(&sr); err == io.EOF {
				return rowResult{}, false, nil
			} else if err != nil {
				return rowResult{}, false, err
			}
			sr.rowResult.notSent = sr.NotSent
			return sr.rowResult, true, nil
		}})
	}
	for _, held := range [][]rowResult{r.buf, extra} {
		sources = append(sources, &lineSource{next: func() (rowResult, bool, error) {
			if len(held) == 0 {
				return rowResult{}, false, nil
			}
			res := held[0]
			held = held[1:]
			return res, true, nil
		}})
	}
	for _, s := range sources {
		if err := s.advance(); err != nil {
			return err
		}
	}
	bw := bufio.NewWriter(r.tmp)
	w := newReportWriter(bw, r.jsonl)
	if err := w.header(); err != nil {
		return err
	}
	for {
		var min *lineSource
		for _, s := range sources {
			if s.ok && (min == nil || s.cur.Line < min.cur.Line) {
				min = s
			}
		}
		if min == nil {
			break
		}
		res := min.cur
		if res.notSent {
			res.Message = notSent
		}
		if err := w.write(res); err != nil {
			return err
		}
		if err := min.advance(); err != nil {
			return err
		}
	}
	if err := w.flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// lineSource is one sorted source of report lines in a merge.
type lineSource struct {
	next func() (rowResult, bool, error)
	cur  rowResult
	ok   bool
}

func (s *lineSource) advance() error {
	var err error
	s.cur, s.ok, err = s.next()
	return err
}

func (r *report) dropRuns() {
	for _, f := range r.runs {
		f.Close()
		_ = os.Remove(f.Name())
	}
	r.runs = nil
}

// abort drops a report that will not be written.
func (r *report) abort() {
	r.dropRuns()
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
		return &reportWriter{enc: json.NewEncoder(w)}
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
	// The report is a file others may be given: what a row quotes from an
	// error or from its input (a key pasted into an id column) is masked,
	// and terminal escapes are made inert.
	var m *secret.Masker
	res.Message, res.ErrorType = m.Text(res.Message), m.Text(res.ErrorType)
	res.PaymentID, res.ReferenceID = m.Text(res.PaymentID), m.Text(res.ReferenceID)
	res.Op = Op(m.Text(string(res.Op)))
	if w.enc != nil {
		return w.enc.Encode(res)
	}
	status := ""
	if res.HTTPStatus != 0 {
		status = strconv.Itoa(res.HTTPStatus)
	}
	return w.cw.Write([]string{
		strconv.Itoa(res.Line), string(res.Op), res.PaymentID, res.ReferenceID, res.Amount, string(res.Outcome),
		status, res.ErrorType, res.Message, res.PaymentStatus,
	})
}

func (w *reportWriter) flush() error {
	if w.cw == nil {
		return nil
	}
	w.cw.Flush()
	return w.cw.Error()
}
