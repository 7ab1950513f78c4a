package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/clipperhouse/displaywidth"
)

func TestListGolden(t *testing.T) {
	tests := []struct {
		name   string
		tty    bool
		width  int
		format string
	}{
		{"list_table", true, 160, "table"},
		{"list_table_narrow", true, 130, "table"},
		{"list_table_squeezed", true, 72, "table"},
		{"list_json_tty", true, 0, "json"},
		{"list_json", false, 0, "json"},
		{"list_jsonl", false, 0, "jsonl"},
		{"list_tsv", false, 0, "tsv"},
		{"list_csv", false, 0, "csv"},
		{"list_default_tty", true, 160, ""},
		{"list_default_piped", false, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := newTestPrinter(t, tt.tty, tt.width, Options{Format: tt.format})
			if err := tp.p.List(paymentColumns(), samplePayments(t)); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, tp.out.Bytes())
		})
	}
}

// TestJSONKeepsWhatTheServiceSent proves -o json is the service's bytes:
// fields the columns do not know, their order, numbers as written.
func TestJSONKeepsWhatTheServiceSent(t *testing.T) {
	recs := samplePayments(t)
	for _, tty := range []bool{false, true} {
		tp := newTestPrinter(t, tty, 0, Options{Format: "json"})
		if err := tp.p.List(paymentColumns(), recs); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		want.WriteByte('[')
		for i, r := range recs {
			if i > 0 {
				want.WriteByte(',')
			}
			want.Write(r)
		}
		want.WriteByte(']')
		var wantCompact, gotCompact bytes.Buffer
		_ = json.Compact(&wantCompact, want.Bytes())
		if err := json.Compact(&gotCompact, tp.out.Bytes()); err != nil {
			t.Fatalf("tty=%v: output is not JSON: %v", tty, err)
		}
		if gotCompact.String() != wantCompact.String() {
			t.Errorf("tty=%v: JSON changed\n got %s\nwant %s", tty, gotCompact.String(), wantCompact.String())
		}
		for _, s := range []string{`"loyalty_tier"`, `"risk_score": 0.10`, `1e2`, `gold <vip> & friends`} {
			probe := s
			if !tty {
				probe = strings.ReplaceAll(s, ": ", ":")
			}
			if !strings.Contains(tp.out.String(), probe) {
				t.Errorf("tty=%v: output lacks %s", tty, probe)
			}
		}
	}
}

func TestStreamMatchesList(t *testing.T) {
	recs := samplePayments(t)
	for _, format := range []string{"json", "jsonl", "tsv", "csv"} {
		for _, tty := range []bool{false, true} {
			for _, noHeader := range []bool{false, true} {
				o := Options{Format: format, NoHeader: noHeader, Columns: []string{"id,amount,buyer.email"}}
				list := newTestPrinter(t, tty, 0, o)
				if err := list.p.List(paymentColumns(), recs); err != nil {
					t.Fatal(err)
				}
				stream := newTestPrinter(t, tty, 0, o)
				s := stream.p.Stream(paymentColumns())
				for i, r := range recs {
					if err := s.Write(r); err != nil {
						t.Fatal(err)
					}
					if i == 1 {
						if err := s.Flush(); err != nil {
							t.Fatal(err)
						}
					}
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				if list.out.String() != stream.out.String() {
					t.Errorf("%s tty=%v noHeader=%v: stream differs from list\n--- list ---\n%s--- stream ---\n%s",
						format, tty, noHeader, list.out, stream.out)
				}
			}
		}
	}
}

func TestJQ(t *testing.T) {
	recs := samplePayments(t)

	tp := newTestPrinter(t, false, 0, Options{JQ: `.[] | select(.currency == "AED") | .id`})
	if err := tp.p.List(nil, recs); err != nil {
		t.Fatal(err)
	}
	golden(t, "jq_ids", tp.out.Bytes())

	for _, tty := range []bool{false, true} {
		tp := newTestPrinter(t, tty, 0, Options{JQ: `.[0] | {id, amount, risk_score, captured: [.captures[].amount]}`})
		if err := tp.p.List(nil, recs); err != nil {
			t.Fatal(err)
		}
		name := "jq_object"
		if tty {
			name += "_tty"
		}
		golden(t, name, tp.out.Bytes())
	}

	// A stream's filter sees what -o json prints: the array, once.
	tp = newTestPrinter(t, false, 0, Options{JQ: `length`})
	writeStream(t, tp.p.Stream(nil), recs)
	if got, want := tp.out.String(), "3\n"; got != want {
		t.Errorf("stream jq over the array: got %q, want %q", got, want)
	}

	// Per record with -o jsonl: the filter sees one payment at a time.
	tp = newTestPrinter(t, false, 0, Options{Format: "jsonl", JQ: `[.id[-3:], (.captures | length)]`})
	writeStream(t, tp.p.Stream(nil), recs)
	if got, want := tp.out.String(), "[\"001\",2]\n[\"002\",0]\n[\"003\",1]\n"; got != want {
		t.Errorf("stream jq: got %q, want %q", got, want)
	}
	if !tp.p.IsJSON() || tp.p.Format() != "json" {
		t.Errorf("jq printer: IsJSON=%v Format=%q", tp.p.IsJSON(), tp.p.Format())
	}
}

func TestJQErrors(t *testing.T) {
	ios, _, _, _ := Test()
	for _, expr := range []string{".[", "nosuchfunc(1)", "$undefined"} {
		_, err := NewPrinter(ios, Options{JQ: expr})
		if err == nil {
			t.Fatalf("%q: no error", expr)
		}
		if code := exitCodeOf(err); code != 2 {
			t.Errorf("%q: exit code %d, want 2", expr, code)
		}
		if errorHint(err) == "" {
			t.Errorf("%q: no hint", expr)
		}
	}

	tp := newTestPrinter(t, false, 0, Options{JQ: `.[] | .amount | tonumber | . + "x"`})
	err := tp.p.List(nil, samplePayments(t))
	if err == nil || exitCodeOf(err) != 1 {
		t.Errorf("runtime jq error: %v (exit %d), want exit 1", err, exitCodeOf(err))
	}
}

func TestTemplate(t *testing.T) {
	recs := samplePayments(t)
	tmpl := `{{range .}}{{.id | upper}} {{.amount}} {{.currency | lower}} {{lookup "captures.0.amount" .}} {{.risk_score}} {{json .buyer}}{{"\n"}}{{end}}`
	tp := newTestPrinter(t, false, 0, Options{Template: tmpl})
	if err := tp.p.List(nil, recs); err != nil {
		t.Fatal(err)
	}
	golden(t, "template_list", tp.out.Bytes())
	if !tp.p.IsJSON() || tp.p.Format() != "template" {
		t.Errorf("template printer: IsJSON=%v Format=%q", tp.p.IsJSON(), tp.p.Format())
	}

	// Per record with -o jsonl, and the missing final newline is supplied.
	tp = newTestPrinter(t, false, 0, Options{Format: "jsonl", Template: `{{.order.reference_id}} {{.status}}`})
	writeStream(t, tp.p.Stream(nil), recs)
	if got, want := tp.out.String(), "ORD-1001 CLOSED\nORD-1002 AUTHORIZED\nORD-1003 CAPTURED\n"; got != want {
		t.Errorf("stream template: got %q, want %q", got, want)
	}

	tp = newTestPrinter(t, false, 0, Options{Template: `{{.order.items | len}} items: {{range .order.items}}{{.title}} {{end}}{{join "+" .order.items}}`})
	if err := tp.p.Object(recs[2], nil); err != nil {
		t.Fatal(err)
	}
	if got, want := tp.out.String(), "1 items: Tea set {\"quantity\":2,\"title\":\"Tea set\",\"unit_price\":\"37.750\"}\n"; got != want {
		t.Errorf("object template: got %q, want %q", got, want)
	}
}

func TestOptionErrors(t *testing.T) {
	ios, _, _, _ := Test()
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"unknown format", Options{Format: "yaml"}, "table, json, jsonl, tsv, csv"},
		{"jq and template", Options{JQ: ".", Template: "{{.}}"}, "--jq"},
		{"bad template", Options{Template: "{{.id"}, "text/template"},
		{"unknown template func", Options{Template: "{{nope .id}}"}, "text/template"},
	}
	for _, tt := range tests {
		_, err := NewPrinter(ios, tt.opts)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		if code := exitCodeOf(err); code != 2 {
			t.Errorf("%s: exit code %d, want 2", tt.name, code)
		}
		if got := err.Error() + " " + errorHint(err); !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q lacks %q", tt.name, got, tt.want)
		}
	}
}

func TestFormatAndIsJSON(t *testing.T) {
	tests := []struct {
		tty    bool
		opts   Options
		format string
		isJSON bool
	}{
		{true, Options{}, "table", false},
		{false, Options{}, "tsv", false},
		{false, Options{Format: "CSV"}, "csv", false},
		{false, Options{Format: "json"}, "json", true},
		{true, Options{Format: "jsonl"}, "jsonl", true},
		{true, Options{Format: "table", JQ: ".id"}, "json", true},
		{false, Options{Template: "{{.id}}"}, "template", true},
	}
	for _, tt := range tests {
		tp := newTestPrinter(t, tt.tty, 0, tt.opts)
		if got := tp.p.Format(); got != tt.format {
			t.Errorf("%+v tty=%v: Format %q, want %q", tt.opts, tt.tty, got, tt.format)
		}
		if got := tp.p.IsJSON(); got != tt.isJSON {
			t.Errorf("%+v: IsJSON %v, want %v", tt.opts, got, tt.isJSON)
		}
	}
}

func TestColumnsSelection(t *testing.T) {
	recs := samplePayments(t)
	tests := []struct {
		name    string
		columns []string
		cols    []Column
		want    string
	}{
		{"by header any case", []string{"Id,status"}, paymentColumns(),
			"ID\tSTATUS\n" +
				"26c1a8e1-5c37-4a4b-9f83-2f1b10d1c001\tCLOSED\n" +
				"26c1a8e1-5c37-4a4b-9f83-2f1b10d1c002\tAUTHORIZED\n" +
				"26c1a8e1-5c37-4a4b-9f83-2f1b10d1c003\tCAPTURED\n"},
		{"by path and dotted paths", []string{"order.reference_id", "buyer.email", "captures.0.amount", "captures"},
			paymentColumns(),
			"REFERENCE\tBUYER.EMAIL\tCAPTURES.0.AMOUNT\tCAPTURES\n" +
				"ORD-1001\tamira@example.com\t300.00\t2\n" +
				"ORD-1002\tomar@example.com\t\t0\n" +
				"ORD-1003\tfatima@example.com\t75.500\t1\n"},
		{"no columns given: top-level scalars", nil, nil,
			"id\tcreated_at\texpires_at\tstatus\tis_test\tamount\tcurrency\tdescription\trisk_score\tloyalty_tier\n" +
				"26c1a8e1-5c37-4a4b-9f83-2f1b10d1c001\t2026-11-02T09:15:00Z\t2026-12-02T09:15:00Z\tCLOSED\ttrue\t450.00\tAED\tRunning shoes, size 42\t0.10\tgold <vip> & friends\n" +
				"26c1a8e1-5c37-4a4b-9f83-2f1b10d1c002\t2026-11-03T14:40:12Z\t2026-12-03T14:40:12Z\tAUTHORIZED\ttrue\t1299.99\tAED\tEspresso machine with grinder, milk frother, two portafilters and a very long description that will not fit\t1e2\t\n" +
				"26c1a8e1-5c37-4a4b-9f83-2f1b10d1c003\t2026-11-04T08:05:59Z\t2026-12-04T08:05:59Z\tCAPTURED\tfalse\t75.500\tKWD\tTab here, newline there, café ☕ 日本\t\t\n"},
	}
	for _, tt := range tests {
		tp := newTestPrinter(t, false, 0, Options{Format: "tsv", Columns: tt.columns})
		if err := tp.p.List(tt.cols, recs); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := tp.out.String(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}

	// A name that is neither a column nor in the JSON is a typo: exit 2,
	// with the known columns as the hint.
	for _, mode := range []string{"list", "stream"} {
		tp := newTestPrinter(t, false, 0, Options{Format: "tsv", Columns: []string{"id,stauts"}})
		var err error
		if mode == "list" {
			err = tp.p.List(paymentColumns(), recs)
		} else {
			err = tp.p.Stream(paymentColumns()).Write(recs[0])
		}
		if err == nil || exitCodeOf(err) != 2 || !strings.Contains(err.Error(), `"stauts"`) ||
			!strings.Contains(errorHint(err), "status") {
			t.Errorf("%s: unknown column: err %v, hint %q", mode, err, errorHint(err))
		}
	}

	// loyalty_tier is missing from the third record only; in a list any
	// record vouches for it.
	tp := newTestPrinter(t, false, 0, Options{Format: "csv", Columns: []string{"loyalty_tier"}, NoHeader: true})
	if err := tp.p.List(nil, recs[2:]); err == nil {
		t.Error("loyalty_tier on a record without it: no error")
	}
	tp = newTestPrinter(t, false, 0, Options{Format: "csv", Columns: []string{"loyalty_tier"}, NoHeader: true})
	if err := tp.p.List(nil, []json.RawMessage{recs[2], recs[0]}); err != nil {
		t.Error(err)
	}
	if got, want := tp.out.String(), "\"\"\ngold <vip> & friends\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTableFitsWidth(t *testing.T) {
	recs := samplePayments(t)
	for _, width := range []int{40, 72, 100, 160} {
		tp := newTestPrinter(t, true, width, Options{})
		if err := tp.p.List(paymentColumns(), recs); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(tp.out.String(), "\n"), "\n") {
			if w := displaywidth.String(line); w > width && width >= 72 {
				t.Errorf("width %d: line is %d wide: %q", width, w, line)
			}
		}
		for _, r := range recs {
			var p struct{ ID string }
			_ = json.Unmarshal(r, &p)
			if !strings.Contains(tp.out.String(), p.ID) {
				t.Errorf("width %d: id %s cut", width, p.ID)
			}
		}
		// Wider than 72 the table gives way; narrower it cannot fit and
		// shows records, where nothing is cut.
		if width < 160 && width >= 72 && !strings.Contains(tp.out.String(), "…") {
			t.Errorf("width %d: nothing truncated", width)
		}
		if width < 72 && (strings.Contains(tp.out.String(), "…") || !strings.Contains(tp.out.String(), "\n\nID")) {
			t.Errorf("width %d: not records:\n%s", width, tp.out.String())
		}
	}
}

func TestTableHeaderBoldWithColour(t *testing.T) {
	tp := newTestPrinter(t, true, 120, Options{Columns: []string{"id,status"}})
	tp.ios.SetColorEnabled(true)
	if err := tp.p.List(paymentColumns(), samplePayments(t)[:1]); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(tp.out.String(), "\n")
	if !strings.Contains(first, "\x1b[1mID\x1b[0m") || !strings.Contains(first, "\x1b[1mSTATUS\x1b[0m") {
		t.Errorf("header not bold: %q", first)
	}
	tp = newTestPrinter(t, true, 120, Options{Columns: []string{"id,status"}})
	if err := tp.p.List(paymentColumns(), samplePayments(t)[:1]); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(tp.out.String(), "\x1b[") {
		t.Errorf("escape codes with colour off: %q", tp.out.String())
	}
}

// TestStreamTableBatches checks that a streamed table prints its header
// once and keeps every batch aligned under it.
func TestStreamTableBatches(t *testing.T) {
	recs := samplePayments(t)
	tp := newTestPrinter(t, true, 100, Options{Columns: []string{"id,status,amount"}})
	s := tp.p.Stream(paymentColumns())
	n := 0
	for n < DefaultTableBatch+5 {
		if err := s.Write(recs[n%len(recs)]); err != nil {
			t.Fatal(err)
		}
		n++
		if n == DefaultTableBatch-1 && tp.out.Len() != 0 {
			t.Fatal("table rendered before its batch was full")
		}
	}
	if got := strings.Count(tp.out.String(), "\n"); got != DefaultTableBatch+1 {
		t.Fatalf("after one full batch: %d lines, want %d", got, DefaultTableBatch+1)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(tp.out.String(), "\n"); got != DefaultTableBatch+6 {
		t.Fatalf("after Flush: %d lines, want %d", got, DefaultTableBatch+6)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	golden(t, "stream_table", tp.out.Bytes())
	if strings.Count(tp.out.String(), "STATUS") != 1 {
		t.Error("header printed more than once")
	}
}

func TestObjectGolden(t *testing.T) {
	rec := samplePayments(t)[0]
	view := func() *Detail {
		var v map[string]any
		_ = json.Unmarshal(rec, &v)
		var caps, refs []json.RawMessage
		var raw struct{ Captures, Refunds []json.RawMessage }
		_ = json.Unmarshal(rec, &raw)
		caps, refs = raw.Captures, raw.Refunds
		return &Detail{
			Fields: []Field{
				{Label: "ID", Value: "26c1a8e1-5c37-4a4b-9f83-2f1b10d1c001"},
				{Label: "Status", Value: "CLOSED"},
				{Label: "Amount", Value: "450.00 AED"},
				{Label: "Captured", Value: "450.00"},
				{Label: "Refundable", Value: "400.00"},
				{Label: "Reference", Value: "ORD-1001"},
				{Label: "Buyer", Value: "Amira Haddad <amira@example.com>"},
				{Label: "Note", Value: ""},
			},
			Sections: []Section{
				{Title: "Captures", Columns: []Column{{Header: "ID", Path: "id"}, {Header: "AMOUNT", Path: "amount"}, {Header: "REFERENCE", Path: "reference_id"}, {Header: "CREATED", Path: "created_at"}}, Records: caps},
				{Title: "Refunds", Columns: []Column{{Header: "ID", Path: "id"}, {Header: "AMOUNT", Path: "amount"}, {Header: "REASON", Path: "reason"}}, Records: refs},
				{Title: "Disputes", Columns: []Column{{Header: "ID", Path: "id"}}},
			},
		}
	}
	tests := []struct {
		name   string
		tty    bool
		format string
		nilV   bool
	}{
		{"object_table", true, "table", false},
		{"object_tsv", false, "tsv", false},
		{"object_csv", false, "csv", false},
		{"object_json_tty", true, "json", false},
		{"object_json", false, "json", false},
		{"object_jsonl", false, "jsonl", false},
		{"object_flat_table", true, "table", true},
		{"object_flat_tsv", false, "tsv", true},
	}
	for _, tt := range tests {
		tp := newTestPrinter(t, tt.tty, 100, Options{Format: tt.format})
		v := view()
		if tt.nilV {
			v = nil
		}
		if err := tp.p.Object(rec, v); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		golden(t, tt.name, tp.out.Bytes())
	}
}

func TestLookupAndString(t *testing.T) {
	rec, err := decode([]byte(`{"a":{"b":[{"c":"x"},{"c":1.50}]},"n":12345678901234567890,"t":true,"z":null,"o":{"k":"<&>"}}`))
	if err != nil {
		t.Fatal(err)
	}
	m := asObject(rec)
	tests := []struct {
		path string
		want string
		ok   bool
	}{
		{"a.b.0.c", "x", true},
		{"a.b.1.c", "1.50", true},
		{"a.b.2.c", "", false},
		{"a.b.x", "", false},
		{"n", "12345678901234567890", true},
		{"t", "true", true},
		{"z", "", true},
		{"o", `{"k":"<&>"}`, true},
		{"missing", "", false},
		{"n.deeper", "", false},
	}
	for _, tt := range tests {
		v, ok := Lookup(m, tt.path)
		if ok != tt.ok || String(v) != tt.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tt.path, String(v), ok, tt.want, tt.ok)
		}
	}
	if _, ok := Lookup(nil, "a"); ok {
		t.Error("Lookup on nil found something")
	}
}

func TestPlanTable(t *testing.T) {
	headers := []string{"ID", "STATUS", "AMOUNT", "REFERENCE", "NOTE", "CREATED"}
	kinds := []Kind{KindID, KindStatus, KindMoney, KindReference, KindPlain, KindTime}
	rows := [][]string{{
		"3fa85f64-5717-4562-b3fc-2c963f66afa6", "AUTHORIZED", "1250.00 AED", "ORDER-2026-000123", "gift wrap please", "2026-11-22 09:28:33Z",
	}}
	show := func(plan []colPlan) string { return showPlan(headers, plan) }
	for _, tt := range []struct {
		total int
		fit   bool
		want  string
	}{
		{200, true, "ID=36 STATUS=10 AMOUNT=11 REFERENCE=17 NOTE=16 CREATED=20"},
		{10, false, "ID=36 STATUS=10 AMOUNT=11 REFERENCE=17 NOTE=16 CREATED=20"},
		// Times are shortened to the date first...
		{110, true, "ID=36 STATUS=10 AMOUNT=11 REFERENCE=17 NOTE=16 CREATED=10d"},
		// ...then dropped; then references are cut...
		{96, true, "ID=36 STATUS=10 AMOUNT=11 REFERENCE=15 NOTE=16"},
		// ...and dropped; free text is cut last...
		{78, true, "ID=36 STATUS=10 AMOUNT=11 NOTE=15"},
		// ...then dropped; with nothing left to give, the id stays whole.
		{40, true, "ID=36 STATUS=3 AMOUNT=11"},
	} {
		if got := show(planTable(headers, rows, kinds, tt.total, tt.fit)); got != tt.want {
			t.Errorf("width %d fit %v:\n got %s\nwant %s", tt.total, tt.fit, got, tt.want)
		}
	}
}

func TestInvalidRecord(t *testing.T) {
	for _, format := range []string{"json", "jsonl", "tsv", "table"} {
		tp := newTestPrinter(t, false, 0, Options{Format: format})
		err := tp.p.List(paymentColumns(), []json.RawMessage{json.RawMessage(`{"id":`)})
		if err == nil {
			t.Errorf("%s: invalid record accepted", format)
		}
		var oe *Error
		if errors.As(err, &oe) {
			t.Errorf("%s: invalid data reported as an option error: %v", format, err)
		}
	}
}

func TestObjectJQAndClosedStream(t *testing.T) {
	rec := samplePayments(t)[0]
	tp := newTestPrinter(t, true, 0, Options{JQ: `.buyer.email, .order`})
	if err := tp.p.Object(rec, nil); err != nil {
		t.Fatal(err)
	}
	want := "amira@example.com\n{\n  \"items\": [\n    {\n      \"quantity\": 1,\n      \"title\": \"Shoes\",\n      \"unit_price\": \"450.00\"\n    }\n  ],\n  \"reference_id\": \"ORD-1001\"\n}\n"
	if got := tp.out.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	jl := newTestPrinter(t, true, 0, Options{Format: "jsonl", JQ: `.id`})
	s := jl.p.Stream(nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(rec); err == nil {
		t.Error("Write after Close succeeded")
	}
}

// A later batch keeps the first batch's widths, cutting what is longer,
// except an id, which stays whole even if it breaks the alignment.
func TestStreamTableLaterBatchKeepsWidths(t *testing.T) {
	tp := newTestPrinter(t, true, 80, Options{})
	cols := []Column{{Header: "ID", Path: "id"}, {Header: "NOTE", Path: "note"}}
	s := tp.p.Stream(cols)
	for _, r := range []string{`{"id":"a","note":"short"}`, `{"id":"bbbbbbbbbbbb","note":"a much longer note"}`} {
		if err := s.Write(json.RawMessage(r)); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := "ID  NOTE\na   short\nbbbbbbbbbbbb  a much longer note\n"
	if got := tp.out.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain":              "plain",
		"a\tb\nc\rd":         "a b c d",
		"\x1b[31mred\x1b[0m": " [31mred [0m",
		"csi\u009b31m":       "csi 31m",
		"café ☕":             "café ☕",
	} {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

// A coloured table's lines end at their last cell, so a line that fits the
// terminal does not wrap into a blank line under the header.
func TestColouredTableHasNoTrailingPadding(t *testing.T) {
	tp := newTestPrinter(t, true, 150, Options{})
	tp.ios.SetColorEnabled(true)
	if err := tp.p.List(paymentColumns(), samplePayments(t)); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(tp.out.String(), "\n"), "\n") {
		plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(line, "")
		if strings.HasSuffix(plain, " ") || plain == "" {
			t.Errorf("line %q ends in padding or is blank", line)
		}
	}
	if !strings.Contains(tp.out.String(), "\x1b[33mAUTHORIZED\x1b[0m") {
		t.Errorf("status not coloured:\n%q", tp.out.String())
	}
}

// TestPlanTableLinkedID: a dispute's payment id is dropped whole before its
// status is cut, and the reason dropped earlier comes back in the room.
func TestPlanTableLinkedID(t *testing.T) {
	headers := []string{"ID", "STATUS", "REASON", "AMOUNT", "PAYMENT", "DAYS", "CREATED"}
	kinds := []Kind{KindID, KindStatus, KindText, KindMoney, KindLinkID, KindDaysLeft, KindTime}
	rows := [][]string{
		{"7f3c2b1a-9e8d-4c7b-a6f5-e4d3c2b1a098", "evidence_merchant", "product_issue", "1250.00 AED", "5b1e8a3c-2f7d-4c1a-9e4b-7d2f1a6c3e90", "2", "2026-11-22 09:28:33Z"},
		{"1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "new", "not_delivered", "20.250 KWD", "0c9d4f2e-8a1b-4e7d-b3c5-1f6a9e2d7b48", "11", "2026-11-21 10:00:00Z"},
	}
	show := func(plan []colPlan) string { return showPlan(headers, plan) }
	for _, tt := range []struct {
		total int
		want  string
	}{
		{150, "ID=36 STATUS=17 REASON=13 AMOUNT=11 PAYMENT=36 DAYS=4 CREATED=20"},
		// The payment id goes whole; the reason dropped before it comes
		// back, and the date where there is room for it.
		{102, "ID=36 STATUS=17 REASON=13 AMOUNT=11 DAYS=4 CREATED=10d"},
		{100, "ID=36 STATUS=17 REASON=13 AMOUNT=11 DAYS=4"},
		{85, "ID=36 STATUS=17 REASON=9 AMOUNT=11 DAYS=4"},
		{80, "ID=36 STATUS=17 AMOUNT=11 DAYS=4"},
		// Only when nothing else is left is a status cut.
		{66, "ID=36 STATUS=9 AMOUNT=11 DAYS=4"},
	} {
		if got := show(planTable(headers, rows, kinds, tt.total, true)); got != tt.want {
			t.Errorf("width %d:\n got %s\nwant %s", tt.total, got, tt.want)
		}
	}
}

// showPlan writes a table plan as "ID=36 CREATED=10d": the columns shown,
// their widths, d for a time cut to its date.
func showPlan(headers []string, plan []colPlan) string {
	var parts []string
	for i, c := range plan {
		if c.show {
			s := headers[i] + "=" + itoa(c.width)
			if c.dateOnly {
				s += "d"
			}
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// A list printed whole (one page) and the same records streamed give the
// same bytes under -o jsonl with --jq or --template: per record.
func TestListPerRecordLikeStream(t *testing.T) {
	recs := []json.RawMessage{json.RawMessage(`{"id":"a","n":1}`), json.RawMessage(`{"id":"b","n":2}`)}
	for _, o := range []Options{{Format: "jsonl", JQ: ".id"}, {Format: "jsonl", Template: "{{.id}}-{{.n}}"}} {
		list := newTestPrinter(t, false, 0, o)
		if err := list.p.List(nil, recs); err != nil {
			t.Fatal(err)
		}
		stream := newTestPrinter(t, false, 0, o)
		writeStream(t, stream.p.Stream(nil), recs)
		if list.out.String() != stream.out.String() || strings.Count(list.out.String(), "\n") != 2 {
			t.Errorf("%+v: list %q, stream %q", o, list.out, stream.out)
		}
	}
}

// CSV cells a spreadsheet would run are neutralised with a quote, plain
// numbers are not, and --csv-raw writes them as they are. TSV and CSV
// write every amount with its currency's places.
func TestCSVCellsAndMoneyPlaces(t *testing.T) {
	recs := []json.RawMessage{
		json.RawMessage(`{"id":"a","amount":"45.75","currency":"KWD","description":"=HYPERLINK(\"http://x\")"}`),
		json.RawMessage(`{"id":"b","amount":"250.5","currency":"AED","description":"+cmd|' /C calc'!A0"}`),
		json.RawMessage(`{"id":"c","amount":"-5.00","currency":"AED","description":"@SUM(1)"}`),
		json.RawMessage(`{"id":"d","amount":"10.005","currency":"AED","description":"-2+3"}`),
	}
	cols := []Column{{Header: "ID", Path: "id"}, {Header: "AMOUNT", Path: "amount"}, {Header: "DESCRIPTION", Path: "description"}}
	tp := newTestPrinter(t, false, 0, Options{Format: "csv"})
	if err := tp.p.List(cols, recs); err != nil {
		t.Fatal(err)
	}
	want := "ID,AMOUNT,DESCRIPTION\n" +
		"a,45.750,\"'=HYPERLINK(\"\"http://x\"\")\"\n" +
		"b,250.50,'+cmd|' /C calc'!A0\n" +
		"c,-5.00,'@SUM(1)\n" +
		"d,10.005,'-2+3\n"
	if got := tp.out.String(); got != want {
		t.Errorf("csv:\n got %q\nwant %q", got, want)
	}
	raw := newTestPrinter(t, false, 0, Options{Format: "csv", CSVRaw: true})
	if err := raw.p.List(cols, recs[:1]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(raw.out.String(), "\"=HYPERLINK(") {
		t.Errorf("--csv-raw changed the cell: %q", raw.out)
	}
	tsv := newTestPrinter(t, false, 0, Options{Format: "tsv"})
	if err := tsv.p.List(cols, recs[:2]); err != nil {
		t.Fatal(err)
	}
	if got := tsv.out.String(); !strings.Contains(got, "a\t45.750\t") || !strings.Contains(got, "b\t250.50\t") {
		t.Errorf("tsv amounts: %q", got)
	}
}

// On a terminal, what the data would make a terminal do (an OSC 8 link, a
// clear-screen, a bidi override) is shown as escapes in every path:
// tables, --jq, --template, JSON. Piped, the bytes are the data's.
func TestTerminalShowsEscapesPipesKeepThem(t *testing.T) {
	rec := json.RawMessage(`{"id":"a","amount":"1.00","currency":"AED","description":"\u001b]8;;http://evil\u0007x\u001b[2J \u202egpj.exe"}`)
	cols := []Column{{Header: "ID", Path: "id"}, {Header: "DESCRIPTION", Path: "description"}}
	for _, o := range []Options{{Format: "table"}, {JQ: ".[0].description"}, {Template: "{{range .}}{{.description}}{{end}}"}, {Format: "json"}} {
		tty := newTestPrinter(t, true, 0, o)
		if err := tty.p.List(cols, []json.RawMessage{rec}); err != nil {
			t.Fatal(err)
		}
		got := tty.out.String()
		if strings.ContainsAny(got, "\x1b\x07\u202e") {
			t.Errorf("%+v on a terminal: raw control or bidi characters: %q", o, got)
		}
		if o.Format != "json" && (!strings.Contains(got, `\x1b`) || !strings.Contains(got, `\u202e`)) {
			t.Errorf("%+v on a terminal: not made visible: %q", o, got)
		}
		if o.Format == "table" {
			continue
		}
		piped := newTestPrinter(t, false, 0, o)
		if err := piped.p.List(cols, []json.RawMessage{rec}); err != nil {
			t.Fatal(err)
		}
		if o.Format != "json" && !strings.Contains(piped.out.String(), "\x1b]8;;") {
			t.Errorf("%+v piped: the data changed: %q", o, piped.out)
		}
	}
}
