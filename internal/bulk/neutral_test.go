package bulk

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/output"
)

// What bnpl's own CSV output wrote reads back as the values it was written
// from: the quote that neutralises a formula-looking cell is removed, and
// only that quote. (A value that itself starts with a quote and then =, +,
// @ or a "-" that starts no number, "'=x", is written as it is and cannot
// be told from a neutralised "=x": it reads back as "=x".)
func TestCSVWrittenByBnplReadsBackToTheSameValues(t *testing.T) {
	refs := []string{
		"=HYPERLINK(\"x\")", "+971500000001", "@SUM(A1)", "-abc", "-5.00", "-5", "-5.", "-.5",
		"'-5.00", "'plain", "'", "ORDER-1", "\tTAB-1", "=", "-",
	}
	ios, _, out, _ := output.Test()
	p, err := output.NewPrinter(ios, output.Options{Format: "csv"})
	if err != nil {
		t.Fatal(err)
	}
	cols := []output.Column{{Header: "payment_id", Path: "payment_id"}, {Header: "amount", Path: "amount"}, {Header: "reason", Path: "reason"}}
	var recs []json.RawMessage
	for _, r := range refs {
		b, _ := json.Marshal(map[string]string{"payment_id": pidA, "amount": "1.00", "reason": r})
		recs = append(recs, b)
	}
	if err := p.List(cols, recs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "'=HYPERLINK") {
		t.Fatalf("the writer no longer neutralises: %s", out)
	}
	rows, invalid, err := ReadRowsWith(strings.NewReader(out.String()), "list.csv", OpRefund, ReadOptions{AllowRepeats: true})
	if err != nil || len(invalid) != 0 || len(rows) != len(refs) {
		t.Fatalf("rows %d, invalid %v, err %v\n%s", len(rows), invalid, err, out)
	}
	for i, r := range refs {
		if want := strings.TrimSpace(r); rows[i].Reason != want {
			t.Errorf("reason written from %q read back as %q", r, rows[i].Reason)
		}
	}
}

func TestUnneutralisedRemovesOnlyTheWritersQuote(t *testing.T) {
	for in, want := range map[string]string{
		"'=1+1": "=1+1", "'+1": "+1", "'@a": "@a", "'-a": "-a", "'\tx": "\tx", "'\rx": "\rx",
		"'-5.00": "'-5.00", "'-5": "'-5", "'-5.": "-5.", "'abc": "'abc", "'": "'", "''=1": "''=1", "=1": "=1", "": "",
	} {
		if got := unneutralised(in); got != want {
			t.Errorf("unneutralised(%q) = %q, want %q", in, got, want)
		}
	}
}
