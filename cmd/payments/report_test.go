package payments

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
)

func TestPeriodOf(t *testing.T) {
	at := time.Date(2027, 1, 1, 2, 0, 0, 0, time.FixedZone("+04", 4*3600)) // 2026-12-31T22:00Z
	for by, want := range map[string]string{"day": "2026-12-31", "week": "2026-W53", "month": "2026-12"} {
		if got := periodOf(at, by); got != want {
			t.Errorf("%s: %q, want %q", by, got, want)
		}
	}
}

// A payment created in the second of --until is listed: the list's bound
// has whole seconds, rounded up.
func TestListedUntilRoundsUp(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-25T20:34:11.547Z":  "2026-11-25T20:34:12Z",
		"2026-11-25T20:34:11Z":      "2026-11-25T20:34:11Z",
		"2026-11-25T23:59:59.001Z":  "2026-11-26T00:00:00Z",
		"2026-11-26T00:34:11+04:00": "2026-11-25T20:34:11Z",
	} {
		at, err := time.Parse(time.RFC3339Nano, in)
		if err != nil {
			t.Fatal(err)
		}
		if got := listedUntil(at); got != want {
			t.Errorf("listedUntil(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestReportTallyCountsMovesByTheirOwnTime(t *testing.T) {
	ts := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	d := decimal.RequireFromString
	since, until := *ts("2026-11-01T00:00:00Z"), *ts("2026-11-30T23:59:59Z")
	tally := newReportTally(since, until, "day")
	tally.add(&api.Payment{Currency: "KWD",
		Captures: []api.Capture{
			{Amount: d("10.125"), CreatedAt: ts("2026-10-31T23:59:59Z")}, // before the window
			{Amount: d("10.125"), CreatedAt: ts("2026-11-02T10:00:00Z")},
			{Amount: d("0.001"), CreatedAt: ts("2026-11-02T23:00:00Z")},
		},
		Refunds: []api.Refund{{Amount: d("20"), CreatedAt: ts("2026-11-03T00:00:00Z")}},
	})
	tally.add(&api.Payment{Currency: "AED",
		Captures: []api.Capture{{Amount: d("0.1"), CreatedAt: ts("2026-11-02T01:00:00Z")}, {Amount: d("0.2"), CreatedAt: ts("2026-11-02T02:00:00Z")}},
		Refunds:  []api.Refund{{Amount: d("5"), CreatedAt: ts("2026-12-01T00:00:00Z")}}, // after it
	})
	want := []reportRow{
		{Period: "2026-11-02", Currency: "AED", Captured: "0.30", Refunded: "0.00", Net: "0.30", Captures: 2},
		{Period: "2026-11-02", Currency: "KWD", Captured: "10.126", Refunded: "0.000", Net: "10.126", Captures: 2},
		{Period: "2026-11-03", Currency: "KWD", Captured: "0.000", Refunded: "20.000", Net: "-20.000", Refunds: 1},
	}
	if got := tally.rows(); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows\n got %+v\nwant %+v", got, want)
	}
}

// --source is service or ledger; --ledger names a ledger only for
// --source ledger, and only a postgres:// one.
func TestReportSourceAndLedgerFlags(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		source, ledger string
		set            bool
		want           string
	}{
		{"service", "", false, ""},
		{" Ledger ", "", false, ""},
		{"ledger", "postgres://clerk@db.example.com/bnpl", true, ""},
		{"provider", "", false, `invalid --source "provider"`},
		{"service", "postgres://clerk@db.example.com/bnpl", true, "--ledger applies only with --source ledger"},
		{"ledger", "/tmp/ledger.db", true, "--ledger must be a postgres:// URL"},
	} {
		o := &ReportOptions{Since: "7d", By: "day", Concurrency: 1, ReadDeps: ReadDeps{Now: now}, Source: tc.source, Ledger: tc.ledger, ledgerSet: tc.set}
		err := o.validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("--source %q --ledger %q: %v", tc.source, tc.ledger, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("--source %q --ledger %q: %v, want %q", tc.source, tc.ledger, err, tc.want)
		}
	}
}
