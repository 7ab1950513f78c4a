package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/money"
)

// Column is one column of a table, TSV or CSV rendering of records.
type Column struct {
	// Header is shown in the header row, e.g. "ID".
	Header string
	// Path is a dotted path into the record: "id", "order.reference_id",
	// "captures.0.amount". Numeric segments index arrays.
	Path string
	// Value computes the cell from the decoded record (e.g. a captured
	// total); when set it wins over Path.
	Value func(rec map[string]any) string

	// Kind says what the column holds: how a table shows it and what gives
	// way first when the table is wider than the terminal. Zero means it
	// is guessed from the path.
	Kind Kind
	// CurrencyPath (a dotted path) or Currency (fixed) give a Money
	// column's currency.
	CurrencyPath string
	Currency     string
	// Style colours a cell of a table by its value (e.g. days left);
	// Status columns have one by default.
	Style func(cs *ColorScheme, value string) string
	// TableHidden leaves the column out of tables unless --columns names
	// it: the currency, which a table shows beside each amount already.
	TableHidden bool
	// OptIn leaves the column out of every format unless --columns names
	// it: a value computed for each record (a payment's captured total)
	// that the default shape of the output does not carry.
	OptIn bool
	// Values are the values the column may hold, when they are a fixed
	// set (a status, a reason code): a streamed table makes the column as
	// wide as the widest of them before its first row, so a later row's
	// value is never cut.
	Values []string
}

// Kind of a column's values.
type Kind int

// Kinds, and what each means for a table on a terminal; planTable gives
// the order in which they give way when it is too wide. Ids and amounts are
// never cut.
const (
	KindAuto      Kind = iota // guessed from the path
	KindPlain                 // short words (a mode, a reason code)
	KindID                    // identifiers people copy: never cut
	KindStatus                // a status: coloured
	KindMoney                 // an amount: its currency's places and code, right-aligned
	KindTime                  // a time: shown in the --time style
	KindReference             // a merchant's reference or order number
	KindText                  // free text: descriptions, URLs, names
	KindDaysLeft              // days left to answer a dispute: red at 0 to 2
	// KindLinkID is the id of another record a row points to (a dispute's
	// payment): never cut, but dropped whole before a status is cut.
	KindLinkID
	// KindEnum is a value of a fixed set that a person acts on (a dispute's
	// reason code): never cut, dropped whole when there is no room.
	KindEnum
)

func (c Column) cell(rec map[string]any) string {
	if c.Value != nil {
		return c.Value(rec)
	}
	v, _ := Lookup(rec, c.Path)
	return String(v)
}

// kind resolves KindAuto from the path or header.
func (c Column) kind() Kind {
	if k := c.Kind &^ flagBits; k != KindAuto {
		return k
	}
	name := strings.ToLower(c.Path)
	if name == "" {
		name = strings.ToLower(strings.ReplaceAll(c.Header, " ", "_"))
	}
	last := name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		last = name[i+1:]
	}
	switch {
	case strings.Contains(last, "reference") || last == "order_number":
		return KindReference
	case last == "id" || strings.HasSuffix(last, "_id") || strings.HasSuffix(last, "_ids"):
		return KindID
	case last == "status":
		return KindStatus
	case last == "days_left":
		return KindDaysLeft
	case strings.HasSuffix(last, "_at") || last == "date" || last == "time" || last == "now":
		return KindTime
	case last == "amount" || strings.HasSuffix(last, "_amount") || last == "unit_price":
		return KindMoney
	}
	return KindPlain
}

// display is what a table shows for a cell: money and times in the one
// format people read, everything else as the machine formats have it.
func (c Column) display(ios *IOStreams, rec map[string]any, value string) string {
	switch c.kind() {
	case KindMoney:
		cur := c.currency(rec)
		if cur == "" {
			return value
		}
		return money.DisplayString(value, cur)
	case KindTime:
		return ios.FormatTimeString(value)
	}
	return value
}

// machine is what TSV and CSV write for a cell: the service's value, but
// an amount with exactly its currency's places ("45.750" for KWD), so a
// column of money reads one way whatever the service's JSON left out.
func (c Column) machine(rec map[string]any, value string) string {
	if c.kind() != KindMoney {
		return value
	}
	return money.FormatString(value, c.currency(rec))
}

// currency is a Money column's currency for rec: the record's own (at
// CurrencyPath, or beside a guessed amount, or the record's), else the
// fixed one; "" when unknown, and then an amount's places are unknown.
func (c Column) currency(rec map[string]any) string {
	cur := c.Currency
	if c.CurrencyPath != "" {
		if v, ok := Lookup(rec, c.CurrencyPath); ok && String(v) != "" {
			cur = String(v)
		}
	} else if cur == "" && c.Path != "" {
		sibling := "currency"
		if i := strings.LastIndexByte(c.Path, '.'); i >= 0 {
			sibling = c.Path[:i+1] + "currency"
		}
		v, ok := Lookup(rec, sibling)
		if !ok {
			v, _ = Lookup(rec, "currency")
		}
		cur = String(v)
	}
	return cur
}

// style is the colour of a table cell.
func (c Column) style(cs *ColorScheme, value string) string {
	if c.Style != nil {
		return c.Style(cs, value)
	}
	switch c.kind() {
	case KindStatus:
		return cs.Status(value)
	case KindDaysLeft:
		return cs.DaysLeft(value)
	}
	return value
}

// decode turns one raw record into Go values, keeping numbers as
// json.Number: an amount must print exactly as the service sent it.
func decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decoding record: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("decoding record: more than one JSON value")
	}
	return v, nil
}

// Lookup follows a dotted path through decoded JSON. Object keys are matched
// exactly; a numeric segment indexes an array.
func Lookup(rec map[string]any, path string) (any, bool) {
	if rec == nil || path == "" {
		return nil, false
	}
	var cur any = rec
	for path != "" {
		seg := path
		if i := strings.IndexByte(path, '.'); i >= 0 {
			seg, path = path[:i], path[i+1:]
		} else {
			path = ""
		}
		switch node := cur.(type) {
		case map[string]any:
			v, ok := node[seg]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			cur = node[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// String renders a decoded JSON value for a cell: strings as they are,
// numbers verbatim, null as empty, and objects or arrays as compact JSON.
func String(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return fmt.Sprint(v)
		}
		return strings.TrimSuffix(buf.String(), "\n")
	}
}

// topLevelScalars lists the record's top-level keys holding strings,
// numbers, booleans or null, in the order the service sent them (a decoded
// map would lose that order).
func topLevelScalars(raw []byte) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("decoding record: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil
	}
	var fields []Field
	for dec.More() {
		keyTok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("decoding record: %w", err)
		}
		key, _ := keyTok.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("decoding record: %w", err)
		}
		switch v.(type) {
		case map[string]any, []any:
			continue
		}
		fields = append(fields, Field{Label: key, Value: String(v)})
	}
	// A person reads a record with no view of its own (a raw API answer,
	// the sandbox's clock) like any other: times in the --time style,
	// amounts in the one money format with the record's currency, statuses
	// coloured. TSV and CSV print Value, as sent.
	currency := ""
	for _, f := range fields {
		if f.Label == "currency" {
			currency = f.Value
		}
	}
	for i := range fields {
		switch k := (Column{Path: fields[i].Label}).kind(); k {
		case KindTime, KindStatus, KindDaysLeft:
			fields[i].Kind = k
		case KindMoney:
			if currency != "" {
				fields[i].Kind, fields[i].Currency = k, currency
			}
		}
	}
	return fields, nil
}

// resolveColumns picks the columns to show.
//
// With no --columns every given column is shown; when the caller gave none
// either (e.g. a raw API call), the first record's top-level scalar fields
// become the columns.
//
// Each --columns name is matched against the columns' headers
// (case-insensitively), then their paths; a name matching neither is taken
// as a dotted path into the JSON, headed by the name as typed. Such a path is
// refused, as a likely typo, only when it resolves in none of the sample
// records; with no records there is nothing to check against and it is kept.
func resolveColumns(cols []Column, names []string, first []byte, sample []map[string]any) ([]Column, error) {
	if len(cols) == 0 && len(names) == 0 && first != nil {
		fields, err := topLevelScalars(first)
		if err != nil {
			return nil, err
		}
		for _, f := range fields {
			cols = append(cols, Column{Header: f.Label, Path: f.Label})
		}
	}
	if len(names) == 0 {
		shown := make([]Column, 0, len(cols))
		for _, c := range cols {
			if !c.OptIn {
				shown = append(shown, c)
			}
		}
		return shown, nil
	}
	picked := make([]Column, 0, len(names))
	var unknown []string
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if c, ok := findColumn(cols, name); ok {
			picked = append(picked, c)
			continue
		}
		if len(sample) > 0 && !resolvesInAny(sample, name) {
			unknown = append(unknown, name)
			continue
		}
		picked = append(picked, Column{Header: name, Path: name})
	}
	if len(unknown) > 0 {
		return nil, &Error{
			Message:  fmt.Sprintf("unknown column %s", strings.Join(quoteAll(unknown), ", ")),
			HintText: columnsHint(cols),
			Code:     2,
		}
	}
	if len(picked) == 0 {
		return nil, &Error{Message: "--columns names no column", HintText: columnsHint(cols), Code: 2}
	}
	return picked, nil
}

func findColumn(cols []Column, name string) (Column, bool) {
	for _, c := range cols {
		if strings.EqualFold(c.Header, name) {
			return c, true
		}
	}
	for _, c := range cols {
		if c.Path != "" && c.Path == name {
			return c, true
		}
	}
	return Column{}, false
}

func resolvesInAny(sample []map[string]any, path string) bool {
	for _, rec := range sample {
		if _, ok := Lookup(rec, path); ok {
			return true
		}
	}
	return false
}

func columnsHint(cols []Column) string {
	if len(cols) == 0 {
		return "name a field of the JSON output as a dotted path, e.g. --columns id,buyer.email"
	}
	names := make([]string, 0, len(cols))
	for _, c := range cols {
		names = append(names, strings.ToLower(c.Header))
	}
	return "columns: " + strings.Join(names, ", ") + "; or any dotted path into the JSON output, e.g. buyer.email"
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// asObject gives Column.Value and Lookup a map even when a record is not an
// object, so a stray scalar renders as empty cells instead of a panic.
func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
