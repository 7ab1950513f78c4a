package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/bnpl-cli/bnpl/internal/secret"
	"strings"
	"text/template"

	"github.com/itchyny/gojq"
)

// Output formats accepted by -o.
const (
	FormatTable = "table"
	FormatJSON  = "json"
	FormatJSONL = "jsonl"
	FormatTSV   = "tsv"
	FormatCSV   = "csv"
)

var validFormats = []string{FormatTable, FormatJSON, FormatJSONL, FormatTSV, FormatCSV}

// Options are the global output flags.
type Options struct {
	// Format is -o; empty means table on a terminal and tsv when piped.
	Format string
	// JQ is --jq; it takes precedence over Format.
	JQ string
	// Template is --template; it takes precedence over Format.
	Template string
	// Columns is --columns: headers, column paths or dotted JSON paths.
	Columns []string
	// NoHeader is --no-header.
	NoHeader bool
	// CSVRaw is --csv-raw: CSV cells are written as they are, even those a
	// spreadsheet would run as a formula.
	CSVRaw bool
}

// Printer writes a command's result to stdout in the chosen format.
type Printer struct {
	ios      *IOStreams
	format   string
	jq       *gojq.Code
	tmpl     *template.Template
	columns  []string
	noHeader bool
	csvRaw   bool
	// perRecord is -o jsonl with --jq or --template: a stream runs the
	// filter on each record (constant memory) rather than on the array.
	perRecord bool
	// csvWidth, when set, pads each CSV row with empty fields to this many,
	// so a detail view's sections make one rectangular CSV document.
	csvWidth int
	// pipedTable: no -o was given and stdout is not a terminal, so the
	// table is written as TSV.
	pipedTable bool
}

// NewPrinter checks the output options up front, so a bad --jq, --template
// or -o fails with exit code 2 before any request is sent.
func NewPrinter(ios *IOStreams, o Options) (*Printer, error) {
	p := &Printer{ios: ios, noHeader: o.NoHeader, csvRaw: o.CSVRaw}
	for _, c := range o.Columns {
		for _, name := range strings.Split(c, ",") {
			if name = strings.TrimSpace(name); name != "" {
				p.columns = append(p.columns, name)
			}
		}
	}

	format := strings.ToLower(strings.TrimSpace(o.Format))
	switch format {
	case "":
		format = FormatTSV
		if ios.IsStdoutTTY() {
			format = FormatTable
		} else {
			p.pipedTable = true
		}
	case FormatTable, FormatJSON, FormatJSONL, FormatTSV, FormatCSV:
	default:
		return nil, &Error{
			Message:  fmt.Sprintf("unknown output format %q", o.Format),
			HintText: "use one of: " + strings.Join(validFormats, ", "),
			Code:     2,
		}
	}
	p.format = format

	if o.JQ != "" && o.Template != "" {
		return nil, &Error{
			Message:  "--jq and --template cannot be used together",
			HintText: "pick values with --jq or lay them out with --template; a template can select fields too",
			Code:     2,
		}
	}
	if o.JQ != "" {
		code, err := compileJQ(o.JQ)
		if err != nil {
			return nil, err
		}
		p.jq = code
		p.perRecord = p.format == FormatJSONL
		p.format = FormatJSON
	}
	if o.Template != "" {
		tmpl, err := compileTemplate(o.Template)
		if err != nil {
			return nil, err
		}
		p.tmpl = tmpl
		p.perRecord = p.format == FormatJSONL
	}
	return p, nil
}

// Format is the effective format: the -o value, its default, "json" when
// --jq is given and "template" when --template is.
func (p *Printer) Format() string {
	if p.tmpl != nil {
		return "template"
	}
	return p.format
}

// IsJSON reports whether stdout carries machine-readable output, so errors
// should also be reported as JSON and notices kept off stdout.
func (p *Printer) IsJSON() bool {
	return p.jq != nil || p.tmpl != nil || p.format == FormatJSON || p.format == FormatJSONL
}

// pretty is true when JSON is for a person.
func (p *Printer) pretty() bool { return p.ios.IsStdoutTTY() }

// Empty lists: a table prints nothing, on a terminal too (the command says
// on stderr that nothing was found: one line, with no empty header under
// it); piped, the default table (TSV) prints nothing, so `| wc -l` counts
// rows; an -o tsv or csv asked for by name keeps its header, a valid empty
// document.

// List prints a whole list of records. --jq and --template see the list as
// one JSON array, or each record with -o jsonl. The other formats share Stream's code, so a list and a
// stream of the same records print the same bytes; the differences are that
// a table is fitted to all its rows at once, and --columns paths are checked
// against every record rather than the first.
func (p *Printer) List(cols []Column, records []json.RawMessage) error {
	if p.perRecord {
		// -o jsonl with --jq or --template: the filter runs on each
		// record, one page or many, as a stream does.
		for _, r := range records {
			v, err := decode(r)
			if err != nil {
				return err
			}
			if err := p.transform(v); err != nil {
				return err
			}
		}
		return nil
	}
	if p.jq != nil || p.tmpl != nil {
		arr := make([]any, 0, len(records))
		for _, r := range records {
			v, err := decode(r)
			if err != nil {
				return err
			}
			arr = append(arr, v)
		}
		return p.transform(arr)
	}
	s := p.Stream(cols)
	if p.format == FormatJSON || p.format == FormatJSONL {
		for _, r := range records {
			if err := s.Write(r); err != nil {
				return err
			}
		}
		return s.Close()
	}
	objs := make([]map[string]any, len(records))
	for i, r := range records {
		v, err := decode(r)
		if err != nil {
			return err
		}
		objs[i] = asObject(v)
	}
	s.batch = 0
	for i, r := range records {
		if err := s.writeRow(r, objs[i], objs); err != nil {
			return err
		}
	}
	return s.Close()
}

// Object prints one record. JSON-ish formats print the record itself;
// table, TSV and CSV render view, or the record's top-level scalar fields
// when view is nil.
func (p *Printer) Object(rec json.RawMessage, view *Detail) error {
	switch {
	case p.jq != nil, p.tmpl != nil:
		v, err := decode(rec)
		if err != nil {
			return err
		}
		return p.transform(v)
	case p.format == FormatJSON:
		return p.writeJSON(rec)
	case p.format == FormatJSONL:
		return p.writeJSONLine(rec)
	}
	if view == nil {
		fields, err := topLevelScalars(rec)
		if err != nil {
			return err
		}
		view = &Detail{Fields: fields}
	}
	if len(p.columns) > 0 {
		picked, err := pickDetail(view, p.columns, rec)
		if err != nil {
			return err
		}
		view = picked
	}
	return p.renderDetail(view)
}

func (p *Printer) transform(v any) error {
	var buf bytes.Buffer
	var err error
	if p.jq != nil {
		err = p.runJQ(&buf, v)
	} else {
		err = p.runTemplate(&buf, v)
	}
	// What the filter produced before failing is still worth showing.
	if _, werr := p.ios.Out.Write(p.termSafe(buf.Bytes())); werr != nil && err == nil {
		err = werr
	}
	return err
}

// writeJSON prints a JSON value as the service sent it: indented for a
// terminal, compacted when piped. Neither reorders nor drops a field, which
// decoding and re-encoding would.
func (p *Printer) writeJSON(raw []byte) error {
	var buf bytes.Buffer
	var err error
	if p.pretty() {
		err = json.Indent(&buf, raw, "", "  ")
	} else {
		err = json.Compact(&buf, raw)
	}
	if err != nil {
		return fmt.Errorf("invalid JSON in the response: %w", err)
	}
	buf.WriteByte('\n')
	_, err = p.ios.Out.Write(p.termSafe(buf.Bytes()))
	return err
}

// termSafe is out as a terminal should show it: on a terminal, the
// control characters and bidi overrides of the data (an OSC 8 link, a
// clear-screen, U+202E) are made visible as escapes (\x1b, \u202e), as
// listen shows them; newlines and tabs stay. Piped, out is unchanged.
func (p *Printer) termSafe(out []byte) []byte {
	if !p.ios.IsStdoutTTY() {
		return out
	}
	if s := secret.Printable(string(out)); s != string(out) {
		return []byte(s)
	}
	return out
}

func (p *Printer) writeJSONLine(raw []byte) error {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return fmt.Errorf("invalid JSON in the response: %w", err)
	}
	buf.WriteByte('\n')
	_, err := p.ios.Out.Write(buf.Bytes())
	return err
}

// csvCell neutralises a CSV cell a spreadsheet would run as a formula (the
// OWASP rule): one that starts with =, +, -, @, a tab or a carriage return
// gets a single quote in front, so `=HYPERLINK(...)` from a buyer's name
// is shown as text. A plain number ("-5.00") is left alone, since a
// spreadsheet reads it as the number it is. --csv-raw turns this off.
func (p *Printer) csvCell(s string) string {
	if p.csvRaw || s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if s[0] == '-' && plainNumber(s[1:]) {
			return s
		}
		return "'" + s
	}
	return s
}

// plainNumber is digits with at most one decimal point inside.
func plainNumber(s string) bool {
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot && i > 0 && i < len(s)-1:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}
