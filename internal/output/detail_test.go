package output

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
)

func sampleDetail(t *testing.T) (json.RawMessage, *Detail) {
	t.Helper()
	rec := samplePayments(t)[0]
	var raw struct{ Captures, Refunds []json.RawMessage }
	if err := json.Unmarshal(rec, &raw); err != nil {
		t.Fatal(err)
	}
	return rec, &Detail{
		Fields: []Field{
			{Label: "ID", Value: "26c1a8e1-5c37-4a4b-9f83-2f1b10d1c001"},
			{Label: "Status", Value: "CLOSED", Kind: KindStatus},
			{Label: "Merchant code", Value: "shop"},
			{Label: "Currency", Value: "AED", TableHidden: true},
		},
		Sections: []Section{
			{Title: "Captures", Columns: []Column{{Header: "ID", Path: "id"}, {Header: "AMOUNT", Path: "amount"}, {Header: "REFERENCE", Path: "reference_id"}, {Header: "CREATED", Path: "created_at"}}, Records: raw.Captures},
			{Title: "Refunds", Columns: []Column{{Header: "ID", Path: "id"}, {Header: "AMOUNT", Path: "amount"}}, Records: raw.Refunds},
			{Title: "Disputes", Columns: []Column{{Header: "ID", Path: "id"}}},
		},
	}
}

// A detail view as CSV is one document: a CSV reader takes it whole, every
// row as wide as the widest, the sections' rows among them.
func TestDetailCSVIsOneDocument(t *testing.T) {
	rec, view := sampleDetail(t)
	for _, noHeader := range []bool{false, true} {
		tp := newTestPrinter(t, false, 0, Options{Format: "csv", NoHeader: noHeader})
		if err := tp.p.Object(rec, view); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(strings.NewReader(tp.out.String())).ReadAll()
		if err != nil {
			t.Fatalf("noHeader=%v: not one CSV document: %v\n%s", noHeader, err, tp.out)
		}
		if strings.Contains(tp.out.String(), "\n\n") {
			t.Errorf("blank line in CSV:\n%s", tp.out)
		}
		want := 4 + 3 + 2 + 1 // fields, section titles, captures, refunds
		if !noHeader {
			want += 3
		}
		if len(rows) != want {
			t.Errorf("noHeader=%v: %d rows, want %d:\n%s", noHeader, len(rows), want, tp.out)
		}
		for _, r := range rows {
			if len(r) != 4 {
				t.Errorf("row %q has %d fields, want 4", r, len(r))
			}
		}
	}
}

// --columns picks a detail view's fields by label (any case, "_" for a
// space), its sections by title, or any JSON path; the rest is left out.
func TestDetailColumns(t *testing.T) {
	rec, view := sampleDetail(t)
	tp := newTestPrinter(t, false, 0, Options{Format: "table", Columns: []string{"status,id", "merchant_code", "buyer.email", "currency"}})
	if err := tp.p.Object(rec, view); err != nil {
		t.Fatal(err)
	}
	want := "Status:         CLOSED\nID:             26c1a8e1-5c37-4a4b-9f83-2f1b10d1c001\nMerchant code:  shop\nbuyer.email:    amira@example.com\nCurrency:       AED\n"
	if got := tp.out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	tp = newTestPrinter(t, false, 0, Options{Format: "tsv", Columns: []string{"ID", "captures"}})
	if err := tp.p.Object(rec, view); err != nil {
		t.Fatal(err)
	}
	got := tp.out.String()
	if !strings.HasPrefix(got, "ID\t26c1a8e1-5c37-4a4b-9f83-2f1b10d1c001\n\nCaptures\nID\tAMOUNT") || strings.Contains(got, "Refunds") || strings.Contains(got, "Status") {
		t.Errorf("tsv with id,captures:\n%s", got)
	}

	// Without a view, the record's top-level fields are the view.
	tp = newTestPrinter(t, false, 0, Options{Format: "tsv", Columns: []string{"status"}})
	if err := tp.p.Object(rec, nil); err != nil {
		t.Fatal(err)
	}
	if got := tp.out.String(); got != "status\tCLOSED\n" {
		t.Errorf("no view: got %q", got)
	}

	tp = newTestPrinter(t, false, 0, Options{Format: "table", Columns: []string{"id", "stauts", "nope.path"}})
	err := tp.p.Object(rec, view)
	if err == nil || exitCodeOf(err) != 2 {
		t.Fatalf("unknown column: %v (exit %d), want exit 2", err, exitCodeOf(err))
	}
	if !strings.Contains(err.Error(), `"stauts", "nope.path"`) {
		t.Errorf("error does not name the unknown columns: %v", err)
	}
	if h := errorHint(err); !strings.Contains(h, "id, status, merchant_code, currency, captures, refunds, disputes") {
		t.Errorf("hint does not list the fields: %q", h)
	}
	if tp.out.Len() != 0 {
		t.Errorf("printed on error: %q", tp.out)
	}
}

// On a terminal a field too long for its line wraps between words under
// itself, or (a URL) starts whole on the next line.
func TestDetailFieldsFitTheTerminal(t *testing.T) {
	if got := fieldLines("blocked: dispute d3b4e967-f30b-4e28-a6e7-922c4c1e15a4 is open", 13, 60); strings.Join(got, "|") != "blocked: dispute|d3b4e967-f30b-4e28-a6e7-922c4c1e15a4 is open" {
		t.Errorf("words: %q", got)
	}
	url := "https://checkout.example.com/hpp/4fe1a94c-d13d-4e47-b9c8-aac345d3ee71"
	if got := fieldLines(url, 17, 80); len(got) != 2 || got[0] != "" || got[1] != url {
		t.Errorf("a URL: %q", got)
	}
	if got := fieldLines("short", 17, 80); len(got) != 1 || got[0] != "short" {
		t.Errorf("a value that fits: %q", got)
	}
}

// SubRecords hands a section the elements of an array field as sent, and
// nothing for a field that is absent, not an array, or of no object.
func TestSubRecordsAreTheElementsAsSent(t *testing.T) {
	raw := json.RawMessage(`{"captures":[{"amount": "10.00"},{"amount":"5.5"}],"status":"CLOSED"}`)
	got := SubRecords(raw, "captures")
	if len(got) != 2 || string(got[0]) != `{"amount": "10.00"}` || string(got[1]) != `{"amount":"5.5"}` {
		t.Errorf("captures: %s", got)
	}
	for _, c := range []struct {
		raw   string
		field string
	}{{`{"status":"CLOSED"}`, "refunds"}, {`{"status":"CLOSED"}`, "status"}, {`[1,2]`, "captures"}, {`not json`, "captures"}} {
		if got := SubRecords(json.RawMessage(c.raw), c.field); got != nil {
			t.Errorf("%s of %s: %s, want none", c.field, c.raw, got)
		}
	}
}
