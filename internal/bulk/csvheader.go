package bulk

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// csvHeader is a CSV input's header: where each column is.
type csvHeader struct {
	index map[string]int
	// raw are the header's cells as written; named counts those up to
	// the last with a name: empty cells after it (Excel's trailing
	// separator) name nothing, and must be empty in every row.
	raw    []string
	named  int
	layout csvLayout
}

// amountColumns are the columns that hold an amount.
var amountColumns = map[string]bool{colAmount: true, colTaxAmount: true, colShippingAmount: true, colDiscountAmount: true}

func readHeader(cr *csv.Reader, name string, op Op, l csvLayout) (*csvHeader, error) {
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &InputError{Name: name, Message: "is empty: expected a header row such as payment_id,amount"}
	}
	if err != nil {
		return nil, inputError(err, name, 0)
	}
	h := &csvHeader{index: map[string]int{}, raw: header, named: len(header), layout: l}
	for h.named > 1 && strings.TrimSpace(header[h.named-1]) == "" {
		h.named--
	}
	line := l.skipped + 1
	for i, raw := range header[:h.named] {
		col, ignored, ok := headerColumn(raw)
		if !ok {
			return nil, unknownColumn(name, raw, l, op)
		}
		if ignored {
			continue
		}
		if _, dup := h.index[col]; dup {
			return nil, &InputError{Name: name, Line: line, Message: fmt.Sprintf("column %s appears twice", col)}
		}
		h.index[col] = i
	}
	if _, ok := h.index[colPaymentID]; !ok {
		return nil, &InputError{Name: name, Line: line, Message: "the header has no payment_id column (the first row must name the columns)"}
	}
	if _, ok := h.index[colAmount]; !ok && (op == OpCapture || op == OpRefund) {
		return nil, &InputError{Name: name, Line: line, Message: fmt.Sprintf("the header has no amount column, which %s needs", op)}
	}
	if _, ok := h.index[colOp]; !ok && op == OpApply {
		return nil, &InputError{Name: name, Line: line, Message: "the header has no op column: apply reads each row's move (capture, refund or close) from it"}
	}
	return h, nil
}

// cell is the row's value of col, trimmed, or "" when the row is too
// short to have one.
func (h *csvHeader) cell(record []string, col string) string {
	if i, ok := h.index[col]; ok && i < len(record) {
		return strings.TrimSpace(record[i])
	}
	return ""
}

// fieldCount says what is wrong with the number of the row's cells, or
// "": it has a cell for every named column, and the cells under the
// header's trailing empty ones, if it has them, are empty.
func (h *csvHeader) fieldCount(record []string) string {
	if len(record) >= h.named && len(record) <= len(h.raw) {
		for i := h.named; i < len(record); i++ {
			if strings.TrimSpace(record[i]) != "" {
				return fmt.Sprintf("has %q in column %d, which the header does not name: name the column or empty the cell", record[i], i+1)
			}
		}
		return ""
	}
	msg := fmt.Sprintf("has %d fields, the header has %d", len(record), h.named)
	for _, c := range separators {
		if c != h.layout.sep && len(record) < h.named && strings.ContainsRune(strings.Join(record, ""), c) {
			return msg + fmt.Sprintf(" (the header is separated by %s and this row holds %s: separate every cell with one character)",
				separatorName(h.layout.sep), separatorName(c))
		}
	}
	if len(record) > h.named {
		if i, a, b, ok := h.commaSplit(record); ok {
			return msg + fmt.Sprintf(" (is %s,%s in column %d an amount with a decimal comma? write %s.%s)", a, b, i+1, a, b)
		}
	}
	return msg
}

// commaSplit finds, in a row of a comma-separated file, a cell of an
// amount column holding a whole number followed by a cell of two or three
// digits: the cells an unquoted decimal comma makes of 1,50. It returns
// the amount cell's index and the two cells.
func (h *csvHeader) commaSplit(record []string) (int, string, string, bool) {
	if h.layout.sep != ',' {
		return 0, "", "", false
	}
	for i := 0; i+1 < len(record) && i < h.named; i++ {
		if col, _, _ := headerColumn(h.raw[i]); !amountColumns[col] {
			continue
		}
		a, b := strings.TrimSpace(record[i]), strings.TrimSpace(record[i+1])
		if digitsOnly(a) && digitsOnly(b) && (len(b) == 2 || len(b) == 3) {
			return i, a, b, true
		}
	}
	return 0, "", "", false
}

// splitCells are a whole amount and the cell of two or three digits after
// it, under a column that is not an amount: most likely an unquoted
// decimal comma that made two cells of 1,50.
type splitCells struct {
	field, amount, next, digits string
}

// refusal is the row's problem when the cells are not said to be meant.
func (s splitCells) refusal() RowError {
	return RowError{Field: s.field, Message: fmt.Sprintf("%s, then %s %q: is this %s,%s, its decimal comma read as a separator? write %s.%s; "+
		"if %s %s and %s %s are meant, pass --allow-split-amounts", s.amount, s.next, s.digits, s.amount, s.digits, s.amount, s.digits, s.field, s.amount, s.next, s.digits)}
}

// allowed says the row goes as written.
func (s splitCells) allowed() RowError {
	return RowError{Field: s.field, Message: fmt.Sprintf("%s, then %s %q, as written with --allow-split-amounts (not %s.%s)", s.amount, s.next, s.digits, s.amount, s.digits)}
}

// splitAmount finds a row whose whole amount is followed by a cell of two
// or three digits under a named column that is not an amount (ID,1,50
// under payment_id,amount,reference_id). Such a row is invalid unless
// ReadOptions.AllowSplitAmounts says it is meant.
func (h *csvHeader) splitAmount(record []string) (splitCells, bool) {
	i, a, b, ok := h.commaSplit(record)
	if !ok || i+1 >= h.named {
		return splitCells{}, false
	}
	next, _, _ := headerColumn(h.raw[i+1])
	if amountColumns[next] {
		return splitCells{}, false
	}
	field, _, _ := headerColumn(h.raw[i])
	return splitCells{field: field, amount: a, next: strings.TrimSpace(h.raw[i+1]), digits: b}, true
}
