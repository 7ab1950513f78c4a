package output

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clipperhouse/displaywidth"

	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// DefaultTableBatch is how many rows a streamed table holds before it
// renders them. Twenty rows fill a screen without making the first page of
// an --all run wait for the last.
const DefaultTableBatch = 20

// Stream prints records one at a time, for lists too long to hold (--all
// over tens of thousands of payments). Memory stays constant:
//
//   - jsonl, tsv and csv write each record as it comes;
//   - json writes "[" before the first record, commas between, and "]" on
//     Close, so the output is valid JSON even for no records;
//   - --jq and --template see what -o json prints: the whole list as one
//     array, run once on Close (which holds the records); with -o jsonl
//     they run once per record, the streaming, constant-memory form;
//   - table holds up to DefaultTableBatch rows (or what arrived before
//     Flush) and renders them as one table. The header is printed once, with
//     the first batch, and the column widths are kept, so later batches
//     line up under it. The widths are planned for the first batch and for
//     the widest values the columns' types allow (reserve): a status or a
//     reason as wide as the widest of its Values, a time in the chosen
//     style, an amount of moneyDigits digits in its currency. So a later
//     status, reason, time or amount is never cut, and amounts stay
//     right-aligned; only a value of free text or a short word wider than
//     its column is cut with "…", except in the last column, which may use
//     the rest of the terminal's width.
//
// Output is buffered; Flush at page boundaries to show what has arrived,
// and always Close.
type Stream struct {
	p    *Printer
	cols []Column

	out *bufio.Writer
	csv *csv.Writer

	resolved []Column
	ready    bool
	count    int
	scratch  bytes.Buffer
	fields   []string

	// gathered holds the decoded records a --jq or --template filter
	// sees as one array on Close.
	gathered []any

	batch      int
	pending    [][]string
	plan       []colPlan
	headerDone bool
	// records: the table is too wide for the terminal even with its cells
	// wrapped, so each row is shown as a block of "FIELD  value" lines.
	records      bool
	shownRecords int
	closed       bool
}

// Stream starts printing a list record by record. cols may be nil: the
// first record's top-level scalar fields then become the columns.
func (p *Printer) Stream(cols []Column) *Stream {
	s := &Stream{p: p, cols: cols, out: bufio.NewWriter(p.ios.Out), batch: DefaultTableBatch}
	if p.format == FormatCSV && p.jq == nil && p.tmpl == nil {
		// csv.NewWriter reuses s.out (a bufio.Writer of the default size)
		// rather than wrapping it, so direct writes to s.out stay in order.
		s.csv = csv.NewWriter(s.out)
	}
	return s
}

// Write prints one record, or queues it for the next table batch.
func (s *Stream) Write(rec json.RawMessage) error {
	if s.closed {
		return fmt.Errorf("output: write to a closed stream")
	}
	p := s.p
	switch {
	case p.jq != nil || p.tmpl != nil:
		v, err := decode(rec)
		if err != nil {
			return err
		}
		if !p.perRecord {
			s.gathered = append(s.gathered, v)
			s.count++
			return nil
		}
		s.scratch.Reset()
		if p.jq != nil {
			err = p.runJQ(&s.scratch, v)
		} else {
			err = p.runTemplate(&s.scratch, v)
		}
		if _, werr := s.out.Write(s.scratch.Bytes()); werr != nil && err == nil {
			err = werr
		}
		s.count++
		return err
	case p.format == FormatJSON:
		return s.writeJSONElement(rec)
	case p.format == FormatJSONL:
		s.scratch.Reset()
		if err := json.Compact(&s.scratch, rec); err != nil {
			return fmt.Errorf("invalid JSON in the response: %w", err)
		}
		s.scratch.WriteByte('\n')
		_, err := s.out.Write(s.scratch.Bytes())
		s.count++
		return err
	}
	v, err := decode(rec)
	if err != nil {
		return err
	}
	return s.writeRow(rec, asObject(v), nil)
}

// writeRow turns a decoded record into cells. sample, when given, is what
// --columns names are checked against (List passes every record).
func (s *Stream) writeRow(raw []byte, obj map[string]any, sample []map[string]any) error {
	if !s.ready {
		if sample == nil {
			sample = []map[string]any{obj}
		}
		if err := s.resolve(raw, sample); err != nil {
			return err
		}
	}
	s.count++
	switch s.p.format {
	case FormatTable:
		row := make([]string, len(s.resolved))
		for i, c := range s.resolved {
			// A table is for a person: what a terminal would obey
			// (escapes, bidi overrides) is shown, not obeyed.
			row[i] = sanitize(secret.Printable(c.display(s.p.ios, obj, c.cell(obj))))
		}
		s.pending = append(s.pending, row)
		if s.batch > 0 && len(s.pending) >= s.batch {
			// A batch exists to be seen as soon as it is complete.
			if err := s.renderPending(); err != nil {
				return err
			}
			return s.out.Flush()
		}
		return nil
	case FormatCSV:
		s.fields = s.fields[:0]
		for _, c := range s.resolved {
			s.fields = append(s.fields, s.p.csvCell(c.machine(obj, c.cell(obj))))
		}
		for len(s.fields) < s.p.csvWidth {
			s.fields = append(s.fields, "")
		}
		if len(s.fields) == 1 && s.fields[0] == "" {
			// encoding/csv writes a lone empty field as an empty line,
			// which CSV readers skip: the row would vanish.
			_, err := s.out.WriteString("\"\"\n")
			return err
		}
		return s.csv.Write(s.fields)
	default:
		for i, c := range s.resolved {
			if i > 0 {
				s.out.WriteByte('\t')
			}
			s.out.WriteString(sanitize(c.machine(obj, c.cell(obj))))
		}
		return s.out.WriteByte('\n')
	}
}

func (s *Stream) resolve(first []byte, sample []map[string]any) error {
	cols, err := resolveColumns(s.cols, s.p.columns, first, sample)
	if err != nil {
		return err
	}
	if s.p.format == FormatTable && len(s.p.columns) == 0 {
		shown := cols[:0:0]
		for _, c := range cols {
			if !c.TableHidden {
				shown = append(shown, c)
			}
		}
		cols = shown
	}
	s.resolved = cols
	s.ready = true
	if s.p.noHeader || s.p.format == FormatTable || len(cols) == 0 {
		return nil
	}
	// One case: upper, as tables have it, whether a view named the column
	// or --columns gave a dotted path (ID,AMOUNT,BUYER.NAME); a record
	// with no view (a raw API answer) keeps its fields' names, all lower.
	headers := make([]string, len(cols))
	for i, c := range cols {
		headers[i] = c.Header
		if len(s.cols) > 0 {
			headers[i] = strings.ToUpper(c.Header)
		}
	}
	if s.csv != nil {
		for len(headers) < s.p.csvWidth {
			headers = append(headers, "")
		}
		return s.csv.Write(headers)
	}
	for i, h := range headers {
		headers[i] = sanitize(h)
	}
	_, err = s.out.WriteString(strings.Join(headers, "\t") + "\n")
	return err
}

func (s *Stream) writeJSONElement(rec []byte) error {
	s.scratch.Reset()
	if s.count == 0 {
		s.scratch.WriteByte('[')
	} else {
		s.scratch.WriteByte(',')
	}
	var err error
	if s.p.pretty() {
		// Indenting each element as the whole array would be indented gives
		// the same bytes as List, without holding the list.
		s.scratch.WriteString("\n  ")
		err = json.Indent(&s.scratch, rec, "  ", "  ")
	} else {
		err = json.Compact(&s.scratch, rec)
	}
	if err != nil {
		return fmt.Errorf("invalid JSON in the response: %w", err)
	}
	s.count++
	_, err = s.out.Write(s.scratch.Bytes())
	return err
}

func (s *Stream) renderPending() error {
	if len(s.pending) == 0 {
		return nil
	}
	fit := s.p.ios.IsStdoutTTY()
	if s.plan == nil {
		s.plan = s.planFirstBatch(fit)
		// A table that cannot fit even with its cells wrapped is shown as
		// records, one block per row, rather than folded by the terminal.
		s.records = fit && overflows(s.plan, s.p.ios.TerminalWidth())
	}
	if s.records {
		return s.renderRecords()
	}
	var headers []string
	if !s.headerDone && !s.p.noHeader {
		headers = s.tableHeaders()
	}
	plan := s.plan
	if s.headerDone && fit {
		plan = s.widenLast()
	}
	cs := s.p.ios.Colors()
	err := renderTable(s.out, cs, headers, s.pending, plan, s.styles(cs), fit)
	s.headerDone = true
	clear(s.pending)
	s.pending = s.pending[:0]
	return err
}

// tableHeaders are the headers of a table or of its records: one case,
// upper, whether a view named them or --columns gave a dotted path.
func (s *Stream) tableHeaders() []string {
	headers := make([]string, len(s.resolved))
	for i, c := range s.resolved {
		headers[i] = strings.ToUpper(sanitize(c.Header))
	}
	return headers
}

// planFirstBatch fits the columns to the first batch of rows.
func (s *Stream) planFirstBatch(fit bool) []colPlan {
	measured := s.tableHeaders()
	kinds := make([]Kind, len(s.resolved))
	for i, c := range s.resolved {
		kinds[i] = c.kind()
		kinds[i] |= c.Kind & flagBits
		if len(s.p.columns) > 0 {
			kinds[i] = Pinned(kinds[i])
		}
	}
	if s.headerDone || s.p.noHeader {
		measured = make([]string, len(s.resolved))
	}
	if fit && s.batch == 0 && len(s.p.columns) == 0 {
		// Every row is known (a list, not a stream of batches): a column
		// of the view with nothing in it gives its width to the others.
		return planWithoutEmpty(measured, s.pending, kinds, s.p.ios.TerminalWidth())
	}
	rows := s.pending
	if s.batch > 0 {
		// Rows are still to come: the widths are those of the widest
		// values the columns' types allow, so later rows line up.
		rows = append(rows[:len(rows):len(rows)], s.reserve())
	}
	return planTable(measured, rows, kinds, s.p.ios.TerminalWidth(), fit)
}

// moneyDigits are the digits before the point a streamed table keeps room
// for in an amount column before the rows that hold them arrive: amounts
// up to 9,999,999 in any currency.
const moneyDigits = 7

// reserve is a row of the widest values the columns' types allow, known
// before the rows: the widest of a column's Values (a status, a reason),
// a time in the chosen style, and an amount of moneyDigits digits in the
// currencies of the rows so far, with their places. A table that streams
// is planned for it as well as for its first batch.
func (s *Stream) reserve() []string {
	row := make([]string, len(s.resolved))
	sample := s.p.ios.FormatTimeString("2026-12-28T23:59:59Z")
	for i, c := range s.resolved {
		switch {
		case len(c.Values) > 0:
			for _, v := range c.Values {
				if displaywidth.String(v) > displaywidth.String(row[i]) {
					row[i] = v
				}
			}
		case c.kind() == KindTime:
			row[i] = sample
		case c.kind() == KindMoney:
			for _, p := range s.pending {
				if cur := currencyOf(p[i]); cur != "" {
					if v := money.DisplayString(strings.Repeat("9", moneyDigits), cur); displaywidth.String(v) > displaywidth.String(row[i]) {
						row[i] = v
					}
				}
			}
		}
	}
	return row
}

// currencyOf is the currency code an amount shown with it ends in
// ("250.00 AED"), or "".
func currencyOf(cell string) string {
	i := strings.LastIndexByte(cell, ' ')
	if i < 0 || len(cell)-i-1 != 3 {
		return ""
	}
	return cell[i+1:]
}

// widenLast is the plan for a later batch: nothing sits right of the last
// column, so it may use the rest of the terminal there without breaking
// the alignment.
func (s *Stream) widenLast() []colPlan {
	plan := append([]colPlan(nil), s.plan...)
	room := s.p.ios.TerminalWidth()
	last := -1
	for i, c := range plan {
		if c.show {
			if last >= 0 {
				room -= plan[last].width + columnGap
			}
			last = i
		}
	}
	if last >= 0 && plan[last].kind != KindMoney {
		plan[last].width = max(plan[last].width, room)
	}
	return plan
}

// styles colour the cells of each column, when cs is on.
func (s *Stream) styles(cs *ColorScheme) []func(string) string {
	styles := make([]func(string) string, len(s.resolved))
	if cs.Enabled() {
		for i, c := range s.resolved {
			styles[i] = func(v string) string { return c.style(cs, v) }
		}
	}
	return styles
}

// Flush renders a pending table batch and pushes buffered output to
// stdout. Call it at page boundaries.
func (s *Stream) Flush() error {
	if s.p.format == FormatTable && s.p.jq == nil && s.p.tmpl == nil {
		if err := s.renderPending(); err != nil {
			return err
		}
	}
	if s.csv != nil {
		s.csv.Flush()
		if err := s.csv.Error(); err != nil {
			return err
		}
	}
	return s.out.Flush()
}

// Close finishes the output: the closing "]" of a JSON array, the result
// of --jq or --template over the gathered array, the header of an empty TSV
// or CSV list, the last table batch. A table with no rows prints nothing,
// on a terminal too: saying "no payments match" is the caller's job, in
// one line on stderr.
func (s *Stream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	p := s.p
	switch {
	case p.jq != nil || p.tmpl != nil:
		if !p.perRecord {
			arr := s.gathered
			if arr == nil {
				arr = []any{}
			}
			s.gathered = nil
			s.scratch.Reset()
			var err error
			if p.jq != nil {
				err = p.runJQ(&s.scratch, arr)
			} else {
				err = p.runTemplate(&s.scratch, arr)
			}
			if _, werr := s.out.Write(s.scratch.Bytes()); werr != nil && err == nil {
				err = werr
			}
			if ferr := s.out.Flush(); ferr != nil && err == nil {
				err = ferr
			}
			return err
		}
	case p.format == FormatJSON:
		switch {
		case s.count == 0:
			s.out.WriteString("[]\n")
		case p.pretty():
			s.out.WriteString("\n]\n")
		default:
			s.out.WriteString("]\n")
		}
	case (p.format == FormatTSV || p.format == FormatCSV) && !(s.count == 0 && p.pipedTable):
		if !s.ready {
			if err := s.resolve(nil, nil); err != nil {
				return err
			}
		}
	}
	return s.Flush()
}
