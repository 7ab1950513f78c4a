package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"
)

// BenchmarkPlanTable fits a page of 100 disputes (the largest page a list
// renders at once) to a 100-column terminal: every step of the policy runs,
// the payment id is dropped and the reason and date come back.
func BenchmarkPlanTable(b *testing.B) {
	headers := []string{"ID", "STATUS", "REASON", "AMOUNT", "PAYMENT", "DAYS", "CREATED"}
	kinds := []Kind{KindID, KindStatus, KindText, KindMoney, KindLinkID, KindDaysLeft, KindTime}
	rows := make([][]string, 100)
	for i := range rows {
		rows[i] = []string{
			fmt.Sprintf("7f3c2b1a-9e8d-4c7b-a6f5-e4d3c2b1a%03d", i), "evidence_merchant", "product_issue",
			"1250.00 AED", fmt.Sprintf("5b1e8a3c-2f7d-4c1a-9e4b-7d2f1a6c3%03d", i), "2", "2026-11-22 09:28:33Z",
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		planTable(headers, rows, kinds, 100, true)
	}
}

// BenchmarkRecords prints a list of 100 payments whose named columns
// cannot fit 80 columns even wrapped: the whole list as records.
func BenchmarkRecords(b *testing.B) {
	cols := []Column{{Header: "ID", Path: "id", Kind: KindID}, {Header: "STATUS", Path: "status"},
		{Header: "BUYER", Path: "buyer"}, {Header: "REFERENCE", Path: "reference"}, {Header: "CREATED", Path: "created_at"}}
	recs := make([]json.RawMessage, 100)
	for i := range recs {
		recs[i] = json.RawMessage(fmt.Sprintf(`{"id":"7f3c2b1a-9e8d-4c7b-a6f5-e4d3c2b1a%03d","status":"AUTHORIZED","buyer":"Layla Haddad <layla.haddad@example.com>","reference":"ORDER-2026-%06d","created_at":"2026-11-22T09:28:33Z"}`, i, i))
	}
	ios, _, out, _ := Test()
	ios.SetStdoutTTY(true)
	p, err := NewPrinter(ios, Options{Columns: []string{"id,status,buyer,reference,created"}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		if err := p.List(cols, recs); err != nil {
			b.Fatal(err)
		}
	}
	if !bytes.Contains(out.Bytes(), []byte("\n\nID")) {
		b.Fatalf("not records:\n%s", out)
	}
}

// BenchmarkWrappedWriter writes the lines stderr carries through the
// writer that wraps them on a terminal: most are short and pass as they
// are; a hint of two lines is wrapped.
func BenchmarkWrappedWriter(b *testing.B) {
	w := &wrappedWriter{w: io.Discard, width: func() int { return 80 }}
	short := []byte("using the embedded sandbox as ae-sandbox (test mode)\n")
	long := []byte("hint: check the id and that the profile (merchant, region, test/live) is the one that created it: test keys see test payments only, and a live one (a disputed payment is) needs --live\n")
	b.ReportAllocs()
	for b.Loop() {
		_, _ = w.Write(short)
		_, _ = w.Write(long)
	}
}
