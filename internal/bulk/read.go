package bulk

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/bnpl-cli/bnpl/internal/money"
)

// Column names of the input, for CSV headers and JSON keys alike.
const (
	colOp             = "op"
	colPaymentID      = "payment_id"
	colAmount         = "amount"
	colReferenceID    = "reference_id"
	colTaxAmount      = "tax_amount"
	colShippingAmount = "shipping_amount"
	colDiscountAmount = "discount_amount"
	colReason         = "reason"
	colCurrency       = "currency"
)

var columns = []string{colOp, colPaymentID, colAmount, colReferenceID, colTaxAmount, colShippingAmount, colDiscountAmount, colReason, colCurrency}

// opColumns are the columns each op reads, in the order errors list them.
var opColumns = map[Op][]string{
	OpCapture: {colPaymentID, colAmount, colReferenceID, colTaxAmount, colShippingAmount, colDiscountAmount, colCurrency},
	OpRefund:  {colPaymentID, colAmount, colReferenceID, colReason, colCurrency},
	OpClose:   {colPaymentID, colCurrency},
	OpApply:   {colOp, colPaymentID, colAmount, colReferenceID, colTaxAmount, colShippingAmount, colDiscountAmount, colReason, colCurrency},
}

// columnsOf says which columns a run of op reads, for an error about a
// column it does not know: for apply, also which op uses which.
func columnsOf(op Op) string {
	s := fmt.Sprintf("the columns of %s are %s", op, strings.Join(opColumns[op], ", "))
	if op == OpApply {
		parts := make([]string, 0, 3)
		for _, o := range []Op{OpCapture, OpRefund, OpClose} {
			parts = append(parts, fmt.Sprintf("%s uses %s", o, strings.Join(opColumns[o], ", ")))
		}
		s += " (op is capture, refund or close; " + strings.Join(parts, "; ") + ")"
	}
	return s
}

// listHeaders are the headers `bnpl payments list -o csv` writes, so that
// its output can be edited into a bulk file: ID is the payment_id, AMOUNT
// the amount and CURRENCY the currency. The other columns describe the
// payment, not the move, and are read and ignored ("" below): REFERENCE is
// the order's reference_id, never a move's.
var listHeaders = map[string]string{
	"id": colPaymentID, "amount": colAmount, "currency": colCurrency,
	"status": "", "reference": "", "created": "", "captured": "", "refunded": "", "refundable": "",
}

func knownColumn(name string) bool {
	for _, c := range columns {
		if c == name {
			return true
		}
	}
	return false
}

// headerColumn is the column a CSV header names: one of columns, or one
// of listHeaders (upper case, as the list writes them); ignored is true
// for a list column that names no input.
func headerColumn(h string) (col string, ignored, ok bool) {
	lower := strings.ToLower(strings.TrimSpace(h))
	if knownColumn(lower) {
		return lower, false, true
	}
	if c, found := listHeaders[lower]; found && strings.TrimSpace(h) == strings.ToUpper(lower) {
		return c, c == "", true
	}
	return "", false, false
}

// maxPlaces is the most places any settled currency allows (KWD). Before a
// row's payment is read its currency is unknown, so this is all that can be
// checked up front; the currency's own rule is checked when the row runs.
const maxPlaces = 3

// ReadRows reads and validates the rows of a bulk op from r, returning the
// valid rows and, separately, what is wrong with the others, both in input
// order. name is the input's file name, "-" for stdin: an extension of .csv,
// or .jsonl or .ndjson, picks the format; otherwise a first non-blank
// character of '{' means JSON lines and anything else CSV.
//
// CSV needs a header row naming its columns; JSON lines carry one object per
// line with the same names as keys, amounts as strings or numbers. The
// columns are payment_id, amount (a positive decimal or "full"),
// reference_id, tax_amount, shipping_amount, discount_amount and reason; a
// column the op does not use must be absent or empty, so that a file meant
// for another op is not half-understood.
//
// The error is for an input that cannot be read as rows at all (an
// *InputError); a bad row only adds a RowError.
func ReadRows(r io.Reader, name string, op Op) ([]Row, []RowError, error) {
	return ReadRowsWith(r, name, op, ReadOptions{})
}

// ReadOptions change how ReadRowsWith reads.
type ReadOptions struct {
	// Encoding of the input (see CheckInputEncoding), converted to UTF-8
	// as it is read; "" is UTF-8. An input that is not in the encoding is
	// refused whole, naming the line and the byte: text that is not UTF-8
	// cannot be sent as it is.
	Encoding string
	// AllowRepeats takes identical rows without a reference_id as meant:
	// each moves money (they get reference_ids of their own). Without it
	// the second is refused, as a row written twice by mistake.
	AllowRepeats bool
	// AllowSplitAmounts takes as meant a CSV row whose whole amount is
	// followed by a cell of two or three digits under a column that is not
	// an amount (1 then "50"), most likely an unquoted decimal comma
	// (1,50) read as a separator; without it such a row is invalid.
	// SplitAmount, when set, is told of each such row read as valid.
	AllowSplitAmounts bool
	SplitAmount       func(RowError)
}

// ReadRowsWith is ReadRows with options.
func ReadRowsWith(r io.Reader, name string, op Op, ro ReadOptions) ([]Row, []RowError, error) {
	var rows []Row
	invalid, err := ScanRows(r, name, op, ro, func(row Row) { rows = append(rows, row) })
	if err != nil {
		return nil, nil, err
	}
	return rows, invalid, nil
}

// ScanRows reads and validates the rows as ReadRowsWith does, but hands
// each valid row to each, in input order, instead of keeping it: what it
// keeps is bounded by the payments and the distinct rows of the input
// (one 64-bit hash and a line number per distinct row, to find rows given
// twice), not by its size. It returns the invalid rows.
func ScanRows(r io.Reader, name string, op Op, ro ReadOptions, each func(Row)) ([]RowError, error) {
	if !op.validRun() {
		return nil, fmt.Errorf("bulk: unknown op %q", op)
	}
	if err := CheckInputEncoding(ro.Encoding); err != nil {
		return nil, err
	}
	br, err := openText(r, name, ro.Encoding)
	if err != nil {
		return nil, err
	}
	v := newValidator(op)
	v.allowRepeats, v.emit = ro.AllowRepeats, each
	if jsonLines(br, name) {
		err = readJSONLines(br, name, v)
	} else {
		err = readCSV(br, name, op, v, ro)
	}
	if err != nil {
		return nil, err
	}
	return v.invalid, nil
}

func jsonLines(br *bufio.Reader, name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return false
	case ".jsonl", ".ndjson":
		return true
	}
	for i := 1; ; i++ {
		b, _ := br.Peek(i)
		if len(b) < i {
			return false
		}
		switch c := b[i-1]; c {
		case ' ', '\t', '\r', '\n':
		default:
			return c == '{'
		}
	}
}

func readCSV(br *bufio.Reader, name string, op Op, v *validator, ro ReadOptions) error {
	layout, err := readLayout(br, name)
	if err != nil {
		return err
	}
	cr := csv.NewReader(br)
	cr.Comma = layout.sep
	cr.FieldsPerRecord = -1 // a short row is a row error, not the end of the file
	h, err := readHeader(cr, name, op, layout)
	if err != nil {
		return err
	}
	for {
		record, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var perr *csv.ParseError
		if errors.As(err, &perr) {
			v.reject(RowError{Line: perr.StartLine + layout.skipped, Message: "is not valid CSV: " + perr.Err.Error()})
			continue
		}
		if err != nil {
			return inputError(err, name, 0)
		}
		line, _ := cr.FieldPos(0)
		line += layout.skipped
		if blankRecord(record) {
			continue
		}
		if msg := h.fieldCount(record); msg != "" {
			v.reject(RowError{Line: line, PaymentID: h.cell(record, colPaymentID), Message: msg})
			continue
		}
		fields := make(map[string]string, len(h.index))
		for col, i := range h.index {
			fields[col] = strings.TrimSpace(unneutralised(record[i]))
		}
		var problems []RowError
		split, isSplit := h.splitAmount(record)
		if isSplit && !ro.AllowSplitAmounts {
			problems = append(problems, split.refusal())
		}
		before := len(v.invalid)
		v.check(line, fields, problems)
		if isSplit && ro.AllowSplitAmounts && ro.SplitAmount != nil && len(v.invalid) == before {
			e := split.allowed()
			e.Line, e.Op, e.PaymentID = line, Op(strings.ToLower(fields[colOp])), strings.ToLower(fields[colPaymentID])
			if e.Op == "" {
				e.Op = op
			}
			e.Amount, e.ReferenceID = fields[colAmount], fields[colReferenceID]
			ro.SplitAmount(e)
		}
	}
}

// unneutralised undoes the quote bnpl's CSV output puts before a cell a
// spreadsheet would run as a formula (see csvCell in internal/output), so
// that what `bnpl payments list -o csv` wrote reads back as the values it
// was written from. The writer puts a single quote before a cell that
// starts with =, +, -, @, a tab or a carriage return, except a "-" that
// starts a plain number; the quote is removed exactly when the rest is a
// cell the writer would have quoted, and kept otherwise (it is then the
// cell's own).
func unneutralised(cell string) string {
	if len(cell) < 2 || cell[0] != '\'' {
		return cell
	}
	rest := cell[1:]
	switch rest[0] {
	case '=', '+', '@', '\t', '\r':
		return rest
	case '-':
		if !plainNumber(rest[1:]) {
			return rest
		}
	}
	return cell
}

// inputError is err as an *InputError: its own, from lineCap, or one made.
func inputError(err error, name string, line int) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie
	}
	return &InputError{Name: name, Line: line, Message: err.Error()}
}

// blankRecord is a row of empty cells, which spreadsheets like to leave at
// the end of an export.
func blankRecord(record []string) bool {
	for _, f := range record {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

func readJSONLines(br *bufio.Reader, name string, v *validator) error {
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return inputError(err, name, line)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			fields, problems := decodeJSONRow(b, v.op)
			v.check(line, fields, problems)
		}
		if err != nil {
			return nil
		}
	}
}

// decodeJSONRow turns one JSON object into column values. Numbers are kept
// as their literal text, never as floats, so 10.10 stays 10.10. A key given
// twice is refused: which of the two values counts would be a guess.
func decodeJSONRow(b []byte, op Op) (map[string]string, []RowError) {
	notObject := []RowError{{Message: "is not a JSON object"}}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, notObject
	}
	obj := map[string]any{}
	var problems []RowError
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, notObject
		}
		k, _ := tok.(string)
		var val any
		if err := dec.Decode(&val); err != nil {
			return nil, notObject
		}
		if _, dup := obj[k]; dup {
			problems = append(problems, RowError{Field: k, Message: "appears twice in the object: keep one"})
			continue
		}
		obj[k] = val
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, notObject
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, notObject
	}
	fields := map[string]string{}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // stable messages
	for _, k := range keys {
		if !knownColumn(k) {
			problems = append(problems, RowError{Field: k, Message: "is not a known field: " + strings.Replace(columnsOf(op), "columns", "fields", 1)})
			continue
		}
		switch val := obj[k].(type) {
		case nil:
		case string:
			fields[k] = strings.TrimSpace(val)
		case json.Number:
			fields[k] = val.String()
		default:
			problems = append(problems, RowError{Field: k, Message: "must be a string"})
		}
	}
	return fields, problems
}

// MaxLineBytes caps one line of bulk input: a row takes a few hundred
// bytes, so a longer line is not a row (a binary file, a file with no line
// breaks) and reading it whole could take all memory.
const MaxLineBytes = 64 << 10

// lineCap fails the read of an input once a line grows past MaxLineBytes.
type lineCap struct {
	r    io.Reader
	name string
	line int // lines ended so far
	cur  int // bytes of the current line
}

func (l *lineCap) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i := 0; i < n; i++ {
		if p[i] == '\n' {
			l.line++
			l.cur = 0
			continue
		}
		if l.cur++; l.cur > MaxLineBytes {
			return i, &InputError{Name: l.name, Line: l.line + 1,
				Message: fmt.Sprintf("is longer than %d KiB, the most one row may take: is this a CSV or JSON-lines file?", MaxLineBytes>>10)}
		}
	}
	return n, err
}

// lineNumber keeps a line in 32 bits.
func lineNumber(line int) uint32 { return uint32(min(line, math.MaxUint32)) }

// sameRowKey is what makes two rows the same move: the values sent, as
// written (amounts as numbers).
func sameRowKey(row Row) []string {
	return []string{string(row.Op), row.PaymentID, canonicalAmount(row.Amount), canonicalAmount(row.TaxAmount),
		canonicalAmount(row.ShippingAmount), canonicalAmount(row.DiscountAmount), row.Reason}
}

// isUUID accepts only the canonical 36-character form: uuid.Parse also takes
// braces and urn: prefixes, which the service's paths do not.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// checkAmount applies the rules that hold whatever the currency; it returns
// what is wrong, or "".
func checkAmount(s string, positive bool) string {
	parse := money.ParseNonNegative
	if positive {
		parse = money.ParsePositive
	}
	if _, err := parse(s, ""); err != nil {
		if whole, frac, ok := strings.Cut(s, ","); ok && digitsOnly(whole) && digitsOnly(frac) && len(frac) <= maxPlaces {
			if len(frac) == 3 {
				return fmt.Sprintf("%q has a comma: write %s.%s if it is a decimal comma, or %s%s if it is a thousands separator", s, whole, frac, whole, frac)
			}
			return fmt.Sprintf("%q has a decimal comma: write %s.%s, with a point", s, whole, frac)
		}
		var merr *money.Error
		if errors.As(err, &merr) {
			return fmt.Sprintf("%q %s", s, merr.Reason)
		}
		return err.Error()
	}
	if p := places(s); p > maxPlaces {
		return fmt.Sprintf("%q has %d decimal places; no currency allows more than %d", s, p, maxPlaces)
	}
	return ""
}

// places counts the decimal places as written: "10.50" has 2.
func places(s string) int {
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}
