package output

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/bnpl-cli/bnpl/internal/secret"
	"strings"

	"github.com/clipperhouse/displaywidth"

	"github.com/bnpl-cli/bnpl/internal/money"
)

// Detail is how one record reads for a person: labelled fields first, then
// sections such as the captures and refunds of a payment. Table, TSV and CSV
// render it; JSON formats print the record itself.
type Detail struct {
	Fields   []Field
	Sections []Section
}

// Field is one labelled value of a Detail. Value is as the service sent it
// (TSV and CSV print it so); Kind says how a person reads it: a Money value
// in its Currency's format, a Time in the --time style, a Status coloured.
type Field struct {
	Label    string
	Value    string
	Kind     Kind
	Currency string
	// TableHidden leaves the field out of the table view, where the
	// amounts already show it (the currency); TSV and CSV keep it.
	TableHidden bool
	// Note follows the value where a person reads it, e.g. "(expired)"
	// after a time that has passed; machine formats leave it out.
	Note string
}

// machine is the value TSV and CSV write: the service's, an amount with
// exactly its currency's places.
func (f Field) machine() string {
	if f.Kind == KindMoney {
		return money.FormatString(f.Value, f.Currency)
	}
	return f.Value
}

// display is the value as a table shows it, coloured when cs is on.
func (f Field) display(ios *IOStreams, cs *ColorScheme) string {
	if f.Note != "" {
		return f.plain(ios, cs) + " " + f.Note
	}
	return f.plain(ios, cs)
}

func (f Field) plain(ios *IOStreams, cs *ColorScheme) string {
	v := sanitize(secret.Printable(f.Value))
	switch f.Kind {
	case KindMoney:
		if f.Currency != "" {
			return money.DisplayString(v, f.Currency)
		}
	case KindTime:
		return ios.FormatTimeString(v)
	case KindStatus:
		return cs.Status(v)
	case KindDaysLeft:
		return cs.DaysLeft(v)
	}
	return v
}

// Section is a titled sub-list of a Detail, e.g. "Captures".
type Section struct {
	Title   string
	Columns []Column
	Records []json.RawMessage
}

// SubRecords are the raw elements of one array field of raw, nil when
// there are none, so that a Section shows exactly what the service sent.
func SubRecords(raw json.RawMessage, field string) []json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	var recs []json.RawMessage
	if json.Unmarshal(obj[field], &recs) != nil {
		return nil
	}
	return recs
}

// renderDetail writes a Detail.
//
// Table: "Label:  value" lines with the values aligned, then each section
// as a blank line, its title and a table ("none" when empty).
// TSV/CSV: one "label, value" row per field; each section follows after an
// empty line as a row holding its title, the header (unless --no-header)
// and its rows, so `grep`/`cut` still work on the fields.
func (p *Printer) renderDetail(d *Detail) error {
	switch p.format {
	case FormatTable:
		return p.renderDetailTable(d)
	default:
		return p.renderDetailDelimited(d)
	}
}

func (p *Printer) renderDetailTable(d *Detail) error {
	cs := p.ios.Colors()
	var b strings.Builder
	labelWidth := 0
	fields := make([]Field, 0, len(d.Fields))
	for _, f := range d.Fields {
		if !f.TableHidden {
			fields = append(fields, f)
		}
	}
	for _, f := range fields {
		labelWidth = max(labelWidth, displaywidth.String(sanitize(f.Label))+1)
	}
	valueCol := labelWidth + columnGap
	for _, f := range fields {
		label := sanitize(f.Label) + ":"
		b.WriteString(cs.Bold(label))
		// Values are not cut here: a detail view is where a person copies
		// a whole URL or reference from. On a terminal, one too long for
		// its line wraps between words under itself, or, a URL or an id
		// with no space, starts on the next line.
		if value := f.display(p.ios, cs); value != "" {
			lines := []string{value}
			if p.ios.IsStdoutTTY() {
				lines = fieldLines(value, valueCol, p.ios.TerminalWidth())
			}
			// A value that starts on the next line is indented less.
			indent := valueCol
			if lines[0] == "" {
				indent = fieldNextIndent
			}
			for i, l := range lines {
				switch {
				case i == 0 && l == "":
				case i == 0:
					b.WriteString(strings.Repeat(" ", labelWidth-displaywidth.String(label)+columnGap))
				case indent+displaywidth.String(l) > p.ios.TerminalWidth() && isURL(l):
					// A URL longer than the line stands at its start,
					// alone and whole.
					b.WriteString("\n")
				default:
					b.WriteString("\n")
					b.WriteString(strings.Repeat(" ", indent))
				}
				b.WriteString(l)
			}
		}
		b.WriteString("\n")
	}
	if _, err := p.ios.Out.Write([]byte(b.String())); err != nil {
		return err
	}
	for i, sec := range d.Sections {
		if len(d.Fields) > 0 || i > 0 {
			if _, err := p.ios.Out.Write([]byte("\n")); err != nil {
				return err
			}
		}
		title := sanitize(sec.Title)
		if len(sec.Records) == 0 {
			if _, err := p.ios.Out.Write([]byte(cs.Bold(title) + ": none\n")); err != nil {
				return err
			}
			continue
		}
		if _, err := p.ios.Out.Write([]byte(cs.Bold(title) + "\n")); err != nil {
			return err
		}
		if err := p.sectionPrinter().List(sec.Columns, sec.Records); err != nil {
			return err
		}
	}
	return nil
}

// fieldLines lays a field's value out for a terminal total cells wide
// whose values start at column col, as a record's value is (recordLines):
// whole when it fits; else wrapped between words under itself; else (a
// URL, an id) from the next line, indented by fieldNextIndent, after an
// empty first line, and wrapped there too when wider than the terminal.
// A coloured value (a status) is short and kept as it is.
func fieldLines(value string, col, total int) []string {
	if strings.Contains(value, "\x1b[") {
		return []string{value}
	}
	lines, _ := recordLines(value, col, total)
	return lines
}

// fieldNextIndent indents a value that starts on the line under its label.
const fieldNextIndent = 2

// sectionPrinter renders a section's rows like a list, without --columns,
// which chooses the columns of lists, not of a detail view's sections.
func (p *Printer) sectionPrinter() *Printer {
	return &Printer{ios: p.ios, format: p.format, noHeader: p.noHeader, csvRaw: p.csvRaw}
}

func (p *Printer) renderDetailDelimited(d *Detail) error {
	if p.format == FormatCSV {
		return p.renderDetailCSV(d)
	}
	for _, f := range d.Fields {
		if err := p.writeDelimited('\t', []string{f.Label, f.machine()}); err != nil {
			return err
		}
	}
	for i, sec := range d.Sections {
		if len(d.Fields) > 0 || i > 0 {
			if _, err := p.ios.Out.Write([]byte("\n")); err != nil {
				return err
			}
		}
		if err := p.writeDelimited('\t', []string{sec.Title}); err != nil {
			return err
		}
		if err := p.sectionPrinter().List(sec.Columns, sec.Records); err != nil {
			return err
		}
	}
	return nil
}

// renderDetailCSV writes a detail view as one CSV document that any CSV
// reader takes whole: every row has as many fields as the widest (a
// "label,value" row or a section's table), padded with empty fields, and no
// blank lines; a section starts with a row holding its title alone.
func (p *Printer) renderDetailCSV(d *Detail) error {
	width := 2
	for _, sec := range d.Sections {
		width = max(width, sectionWidth(sec))
	}
	pad := func(cells ...string) []string {
		for len(cells) < width {
			cells = append(cells, "")
		}
		return cells
	}
	for _, f := range d.Fields {
		if err := p.writeDelimited(',', pad(f.Label, f.machine())); err != nil {
			return err
		}
	}
	for _, sec := range d.Sections {
		if err := p.writeDelimited(',', pad(sec.Title)); err != nil {
			return err
		}
		sp := p.sectionPrinter()
		sp.csvWidth = width
		if err := sp.List(sec.Columns, sec.Records); err != nil {
			return err
		}
	}
	return nil
}

// sectionWidth is how many CSV fields a section's rows hold.
func sectionWidth(sec Section) int {
	var first []byte
	if len(sec.Records) > 0 {
		first = sec.Records[0]
	}
	cols, err := resolveColumns(sec.Columns, nil, first, nil)
	if err != nil {
		return len(sec.Columns)
	}
	return len(cols)
}

func (p *Printer) writeDelimited(comma rune, fields []string) error {
	if comma == ',' {
		w := csv.NewWriter(p.ios.Out)
		cells := make([]string, len(fields))
		for i, f := range fields {
			cells[i] = p.csvCell(f)
		}
		if err := w.Write(cells); err != nil {
			return err
		}
		w.Flush()
		return w.Error()
	}
	clean := make([]string, len(fields))
	for i, f := range fields {
		clean[i] = sanitize(f)
	}
	_, err := p.ios.Out.Write([]byte(strings.Join(clean, "\t") + "\n"))
	return err
}

// pickDetail applies --columns to a detail view: each name picks a field by
// its label or a section by its title (case-insensitively, with spaces,
// "_" and "-" alike), else a dotted path into the record, labelled as
// typed; the picked fields keep the order given. A name that is none of
// these is a usage error listing the names there are.
func pickDetail(d *Detail, names []string, rec json.RawMessage) (*Detail, error) {
	var obj map[string]any
	if v, err := decode(rec); err == nil {
		obj = asObject(v)
	}
	out := &Detail{}
	var unknown []string
	for _, name := range names {
		key := labelKey(name)
		if f, ok := findField(d.Fields, key); ok {
			f.TableHidden = false
			out.Fields = append(out.Fields, f)
			continue
		}
		if sec, ok := findSection(d.Sections, key); ok {
			out.Sections = append(out.Sections, sec)
			continue
		}
		if v, ok := Lookup(obj, name); ok {
			switch v.(type) {
			case map[string]any, []any:
				b, err := json.Marshal(v)
				if err != nil {
					return nil, err
				}
				out.Fields = append(out.Fields, Field{Label: name, Value: string(b)})
			default:
				out.Fields = append(out.Fields, Field{Label: name, Value: String(v)})
			}
			continue
		}
		unknown = append(unknown, name)
	}
	if len(unknown) > 0 {
		return nil, &Error{
			Message:  fmt.Sprintf("unknown column %s", strings.Join(quoteAll(unknown), ", ")),
			HintText: detailHint(d),
			Code:     2,
		}
	}
	if len(out.Fields) == 0 && len(out.Sections) == 0 {
		return nil, &Error{Message: "--columns names no field", HintText: detailHint(d), Code: 2}
	}
	return out, nil
}

// labelKey folds a label or a --columns name for matching: "Merchant
// code", "merchant_code" and "merchant-code" are one name.
func labelKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer("_", " ", "-", " ").Replace(s)
}

func findField(fields []Field, key string) (Field, bool) {
	for _, f := range fields {
		if labelKey(f.Label) == key {
			return f, true
		}
	}
	return Field{}, false
}

func findSection(secs []Section, key string) (Section, bool) {
	for _, s := range secs {
		if labelKey(s.Title) == key {
			return s, true
		}
	}
	return Section{}, false
}

// detailHint lists the names --columns takes for a detail view.
func detailHint(d *Detail) string {
	var names []string
	for _, f := range d.Fields {
		names = append(names, strings.ReplaceAll(labelKey(f.Label), " ", "_"))
	}
	for _, s := range d.Sections {
		names = append(names, strings.ReplaceAll(labelKey(s.Title), " ", "_"))
	}
	return "fields: " + strings.Join(names, ", ") + "; or any dotted path into the JSON output, e.g. buyer.email"
}
