package cmd

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clipperhouse/displaywidth"

	"github.com/bnpl-cli/bnpl/cmd/checkout"
	"github.com/bnpl-cli/bnpl/cmd/disputes"
	"github.com/bnpl-cli/bnpl/cmd/disputewebhooks"
	"github.com/bnpl-cli/bnpl/cmd/payments"
	"github.com/bnpl-cli/bnpl/cmd/profiles"
	"github.com/bnpl-cli/bnpl/cmd/sandbox"
	"github.com/bnpl-cli/bnpl/cmd/webhooks"
	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// wholeURLLine is a line holding one URL and nothing else.
var wholeURLLine = regexp.MustCompile(`^https?://\S+$`)

var update = flag.Bool("update", false, "rewrite testdata/views/*.golden")

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "views", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readRecords(t *testing.T, name string) []json.RawMessage {
	t.Helper()
	var recs []json.RawMessage
	if err := json.Unmarshal(fixture(t, name), &recs); err != nil {
		t.Fatal(err)
	}
	return recs
}

// idsIn collects every value of an "id", "payment_id" or "name" key
// (references excepted): what people copy out of a view.
func idsIn(v any, into *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && s != "" && (k == "id" || k == "payment_id" || k == "name") {
				*into = append(*into, s)
			}
			idsIn(x, into)
		}
	case []any:
		for _, x := range v {
			idsIn(x, into)
		}
	}
}

func unmarshal[T any](t *testing.T, name string) *T {
	t.Helper()
	v := new(T)
	if err := json.Unmarshal(fixture(t, name), v); err != nil {
		t.Fatal(err)
	}
	return v
}

// first is the first record of a fixture that holds a list.
func first[T any](t *testing.T, name string) *T {
	t.Helper()
	v := new(T)
	if err := json.Unmarshal(readRecords(t, name)[0], v); err != nil {
		t.Fatal(err)
	}
	return v
}

// view is one rendering people read, over its fixtures.
type view struct {
	name string
	// sources are the fixtures whose ids must show whole.
	sources []string
	// list views have one header line followed by rows.
	list bool
	// records: at 80 columns the table cannot fit even with its cells
	// wrapped, and shows one block of "FIELD  value" lines per row.
	records bool
	render  func(t *testing.T, ios *output.IOStreams, p *output.Printer) error
}

func views() []view {
	return []view{
		{name: "payments_list", sources: []string{"payments.json"}, list: true, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			return p.List(payments.ListColumns, readRecords(t, "payments.json"))
		}},
		// An order number longer than its column: wrapped, never cut (it
		// is what `--order` searches for).
		{name: "payments_list_long_reference", sources: []string{"payments_long_reference.json"}, list: true, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			return p.List(payments.ListColumns, readRecords(t, "payments_long_reference.json"))
		}},
		// --columns: every column asked for stays, at every width, its
		// cells wrapped; at 80 even so the six are wider, and show as
		// records.
		{name: "payments_list_columns", sources: []string{"payments.json"}, list: true, records: true, render: func(t *testing.T, ios *output.IOStreams, _ *output.Printer) error {
			p, err := output.NewPrinter(ios, output.Options{Columns: []string{"id,status,amount,currency,reference,created"}})
			if err != nil {
				return err
			}
			return p.List(payments.ListColumns, readRecords(t, "payments.json"))
		}},
		// --buyer: who matched shows beside the amount, whole.
		{name: "payments_list_buyer", sources: []string{"payments_buyers.json"}, list: true, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			return p.List(payments.BuyerColumns("name"), readRecords(t, "payments_buyers.json"))
		}},
		// --columns with a dotted path: its header in the one case.
		{name: "payments_list_dotted", sources: []string{"payments_buyers.json"}, list: true, render: func(t *testing.T, ios *output.IOStreams, _ *output.Printer) error {
			p, err := output.NewPrinter(ios, output.Options{Columns: []string{"id,status,buyer.name"}})
			if err != nil {
				return err
			}
			return p.List(payments.ListColumns, readRecords(t, "payments_buyers.json"))
		}},
		{name: "disputes_list", sources: []string{"disputes.json"}, list: true, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			return p.List(disputes.ListColumns, readRecords(t, "disputes.json"))
		}},
		{name: "disputes_due", sources: []string{"disputes.json"}, list: true, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			return p.List(disputes.DueColumns, readRecords(t, "disputes.json"))
		}},
		{name: "webhooks_list", sources: []string{"webhooks.json"}, list: true, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			return p.List(webhooks.ListColumns, readRecords(t, "webhooks.json"))
		}},
		// No webhook has a header: HEADER and VALUE give their width to
		// the URL.
		{name: "webhooks_list_no_header", sources: []string{"webhooks_no_header.json"}, list: true, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			return p.List(webhooks.ListColumns, readRecords(t, "webhooks_no_header.json"))
		}},
		// A long URL among short words: under its row, whole where the
		// line allows, rather than in a column a few cells wide.
		{name: "webhooks_list_long_url", sources: []string{"webhook_long_url.json"}, list: true, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			return p.List(webhooks.ListColumns, append(readRecords(t, "webhook_long_url.json"), readRecords(t, "webhooks.json")...))
		}},
		{name: "dispute_webhooks_list", sources: []string{"dispute_webhooks.json"}, list: true, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			return p.List(disputewebhooks.ListColumns, readRecords(t, "dispute_webhooks.json"))
		}},
		// `webhooks get|add|update` and `dispute-webhooks get|add|update`.
		{name: "webhooks_get", render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			w := first[api.Webhook](t, "webhooks.json")
			return p.Object(w.Raw(), webhooks.Detail(w))
		}},
		// A URL wider than the terminal: on the line under its label,
		// broken after a "/" within the terminal, never folded by it.
		{name: "webhooks_get_long_url", render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			w := first[api.Webhook](t, "webhook_long_url.json")
			return p.Object(w.Raw(), webhooks.Detail(w))
		}},
		{name: "dispute_webhooks_get", render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			w := first[api.DisputeWebhook](t, "dispute_webhooks.json")
			return p.Object(w.Raw(), disputewebhooks.Detail(w))
		}},
		{name: "profiles_list", sources: []string{"profiles.json"}, list: true, records: true, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			return p.List(profiles.ListColumns, readRecords(t, "profiles.json"))
		}},
		{name: "payments_get", sources: []string{"payment.json"}, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			pay := unmarshal[api.Payment](t, "payment.json")
			return p.Object(pay.Raw(), payments.GetDetail(pay, nil, payments.Timeline(pay, nil, nil)))
		}},
		// Moves made without a reference id: the empty REFERENCE column
		// gives its room to the others (the time of day at 80 columns).
		{name: "payments_get_no_references", sources: []string{"payment_no_references.json"}, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			pay := unmarshal[api.Payment](t, "payment_no_references.json")
			return p.Object(pay.Raw(), payments.GetDetail(pay, nil, payments.Timeline(pay, nil, nil)))
		}},
		// `payments timeline` on a sandbox: the payment's events and the
		// webhook deliveries made for it, oldest first.
		{name: "payments_timeline", list: true, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			pay := unmarshal[api.Payment](t, "payment.json")
			ds := unmarshal[[]payments.Delivery](t, "sandbox_deliveries.json")
			return p.List(payments.TimelineColumns, payments.TimelineRecords(payments.Timeline(pay, nil, *ds)))
		}},
		// An AUTHORIZED payment whose authorization lapsed: "(expired)",
		// nothing capturable.
		{name: "payments_get_expired", sources: []string{"payment_expired.json"}, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			pay := unmarshal[api.Payment](t, "payment_expired.json")
			return p.Object(pay.Raw(), payments.Detail(pay))
		}},
		// A live payment with an open dispute: refunds blocked, and the
		// dispute listed with its days left.
		{name: "payments_get_disputed", sources: []string{"payment_disputed.json", "payment_disputes.json"}, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			pay := unmarshal[api.Payment](t, "payment_disputed.json")
			ds := unmarshal[[]api.Dispute](t, "payment_disputes.json")
			return p.Object(pay.Raw(), payments.GetDetail(pay, *ds, payments.Timeline(pay, *ds, nil)))
		}},
		// `disputes get`, and what `sandbox dispute open|resolve` print.
		{name: "disputes_get", sources: []string{"dispute.json"}, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			d := unmarshal[api.Dispute](t, "dispute.json")
			return p.Object(d.Raw(), disputes.Detail(d))
		}},
		// A refunded dispute has nothing left to answer: no days left.
		{name: "disputes_get_refunded", sources: []string{"dispute_refunded.json"}, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			d := unmarshal[api.Dispute](t, "dispute_refunded.json")
			return p.Object(d.Raw(), disputes.Detail(d))
		}},
		// `checkout get` and the human lines of `checkout create`.
		{name: "checkout_get", sources: []string{"session.json"}, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			s := unmarshal[api.CheckoutSession](t, "session.json")
			return p.Object(fixture(t, "session.json"), checkout.SessionDetail(s))
		}},
		// `sandbox deliveries` and `sandbox logs`: the time of day, the
		// event and the ids stay; the error is cut last.
		{name: "sandbox_deliveries", sources: []string{"sandbox_deliveries.json"}, list: true, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			return p.List(sandbox.DeliveryColumns(ios, p.Format()), readRecords(t, "sandbox_deliveries.json"))
		}},
		{name: "sandbox_logs", list: true, render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			return p.List(sandbox.LogColumns(ios, p.Format()), readRecords(t, "sandbox_logs.json"))
		}},
		// `sandbox clock`: a record with no view of its own.
		{name: "sandbox_clock", render: func(t *testing.T, ios *output.IOStreams, p *output.Printer) error {
			return p.Object(fixture(t, "clock.json"), nil)
		}},
	}
}

// rawTime matches a time as the service writes it: a person never reads
// that form in a view.
var rawTime = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d`)

// bareScheme matches a URL's scheme with nothing after it on its line.
var bareScheme = regexp.MustCompile(`https?://(\s|$)`)

// TestViewsGolden renders every list and detail view people read on
// terminals 80, 100 and 150 columns wide: every id stays whole, at 100
// columns and more every line fits, no blank line parts a header from its
// rows, and times read in the one format.
// renderAt renders view v on a terminal width columns wide.
func renderAt(t *testing.T, v view, width int) string {
	t.Helper()
	out, _ := renderWithErrors(t, v, width)
	return out
}

// renderWithErrors renders view v as renderAt does, and returns what went
// to stderr too.
func renderWithErrors(t *testing.T, v view, width int) (string, string) {
	t.Helper()
	ios, _, out, errOut := output.Test()
	ios.SetStdoutTTY(true)
	ios.SetTerminalWidth(width)
	p, err := output.NewPrinter(ios, output.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.render(t, ios, p); err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String()
}

func TestViewsGolden(t *testing.T) {
	for _, v := range views() {
		for _, width := range []int{80, 100, 150} {
			name := fmt.Sprintf("%s_%d", v.name, width)
			t.Run(name, func(t *testing.T) {
				got, errs := renderWithErrors(t, v, width)
				for _, id := range wantWhole(t, v.sources) {
					if !strings.Contains(got, id) {
						if strings.Contains(got, id[:8]) || !droppable(t, v, id) {
							t.Errorf("id %s is not whole:\n%s", id, got)
						}
					}
				}
				lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
				for _, line := range lines {
					// A URL longer than the terminal stands alone on its
					// line, whole: a copy of the line is the URL.
					if w := displaywidth.String(line); w > width && !wholeURLLine.MatchString(line) {
						t.Errorf("line %d wide at %d: %q", w, width, line)
					}
					// Nothing is cut: what has no room wraps, goes under
					// its row, or the table shows as records.
					if strings.Contains(line, "…") {
						t.Errorf("a value is cut at %d: %q", width, line)
					}
					// A URL is not parted from its host.
					if bareScheme.MatchString(line) {
						t.Errorf("a URL's scheme ends a line at %d: %q", width, line)
					}
				}
				if errs != "" {
					t.Errorf("at %d, stderr: %q", width, errs)
				}
				records := strings.Contains(got, "\n\n")
				if v.records && width == 80 && !records {
					t.Errorf("%s fits at 80 now: drop its records mark", v.name)
				}
				if v.list && !(v.records && width == 80) {
					for i, line := range lines {
						if strings.TrimSpace(line) == "" {
							t.Errorf("blank line %d in a list:\n%s", i+1, got)
						}
					}
				}
				if m := rawTime.FindString(got); m != "" {
					t.Errorf("a raw service time %q shows:\n%s", m, got)
				}
				path := filepath.Join("testdata", "views", name+".golden")
				if *update {
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test ./cmd -run TestViewsGolden -update)", err)
				}
				if got != string(want) {
					t.Errorf("%s differs\n--- got ---\n%s--- want ---\n%s", path, got, want)
				}
			})
		}
	}
}

func wantWhole(t *testing.T, sources []string) []string {
	var ids []string
	for _, src := range sources {
		var decoded any
		if err := json.Unmarshal(fixture(t, src), &decoded); err != nil {
			t.Fatal(err)
		}
		idsIn(decoded, &ids)
	}
	if len(sources) > 0 && len(ids) == 0 {
		t.Fatal("fixture has no ids")
	}
	return ids
}

// droppable reports whether id sits only in a column a narrow table may
// drop whole: a dispute's payment id.
func droppable(t *testing.T, v view, id string) bool {
	for _, src := range v.sources {
		var recs []map[string]any
		if json.Unmarshal(fixture(t, src), &recs) != nil {
			continue
		}
		for _, r := range recs {
			if r["payment_id"] == id && r["id"] != id {
				return true
			}
		}
	}
	return false
}

// TestViewsPipedTableCutsNothing: `-o table` not on a terminal is for
// scripts: no value is cut and no column dropped, however narrow $COLUMNS.
func TestViewsPipedTableCutsNothing(t *testing.T) {
	for _, v := range views() {
		if !v.list {
			continue
		}
		ios, _, out, _ := output.Test()
		ios.SetTerminalWidth(40)
		p, err := output.NewPrinter(ios, output.Options{Format: "table"})
		if err != nil {
			t.Fatal(err)
		}
		if err := v.render(t, ios, p); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if strings.Contains(got, "…") {
			t.Errorf("%s: a piped table cut a value:\n%s", v.name, got)
		}
		for _, id := range wantWhole(t, v.sources) {
			if !strings.Contains(got, id) {
				t.Errorf("%s: id %s missing from a piped table:\n%s", v.name, id, got)
			}
		}
	}
}

// TestViewsColour: statuses and days left carry colour on a terminal that
// takes it, and none at all otherwise.
func TestViewsColour(t *testing.T) {
	render := func(colour bool) string {
		ios, _, out, _ := output.Test()
		ios.SetStdoutTTY(true)
		ios.SetTerminalWidth(150)
		ios.SetColorEnabled(colour)
		p, err := output.NewPrinter(ios, output.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.List(disputes.ListColumns, readRecords(t, "disputes.json")); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	got := render(true)
	for _, want := range []string{
		"\x1b[33mevidence_merchant\x1b[0m", // waits for the merchant
		"\x1b[31m2\x1b[0m",                 // two days left: red
		"\x1b[31m0\x1b[0m",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("coloured table lacks %q:\n%q", want, got)
		}
	}
	if strings.Contains(got, "\x1b[31m11") {
		t.Errorf("11 days left is red:\n%q", got)
	}
	if plain := render(false); strings.Contains(plain, "\x1b[") {
		t.Errorf("colour off, yet escapes:\n%q", plain)
	}
}

// TestSandboxViewsKeepWhatRowsAreReadBy: at every width the delivery ids,
// the ids in request paths, the time of day and the event names show
// whole, and a long error never takes more than its cap.
func TestSandboxViewsKeepWhatRowsAreReadBy(t *testing.T) {
	var deliveries, logs []map[string]any
	if err := json.Unmarshal(fixture(t, "sandbox_deliveries.json"), &deliveries); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(fixture(t, "sandbox_logs.json"), &logs); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{80, 100, 150, 240} {
		for _, v := range views() {
			if v.name != "sandbox_deliveries" && v.name != "sandbox_logs" {
				continue
			}
			got := renderAt(t, v, width)
			var want []string
			recs := logs
			if v.name == "sandbox_deliveries" {
				recs = deliveries
			}
			days := map[string]bool{}
			for _, r := range recs {
				at, _ := time.Parse(time.RFC3339Nano, r["at"].(string))
				want = append(want, at.UTC().Format("15:04:05Z"))
				// Rows on both sides of midnight are told apart: each day
				// shows.
				if day := at.UTC().Format(time.DateOnly); !days[day] {
					days[day] = true
					want = append(want, day)
				}
				for _, k := range []string{"delivery_id", "event", "method"} {
					if s, ok := r[k].(string); ok {
						want = append(want, s)
					}
				}
				// What a delivery was about: its dispute, else its payment.
				if s, ok := r["dispute_id"].(string); ok && s != "" {
					want = append(want, s)
				} else if s, ok := r["payment_id"].(string); ok && s != "" {
					want = append(want, s)
				}
				// A path wraps after a "/" only: what lies between two
				// (an id) is whole on one line.
				if s, ok := r["path"].(string); ok {
					for _, piece := range strings.Split(s, "/") {
						if piece != "" {
							want = append(want, piece)
						}
					}
				}
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("%s at %d: %q is not whole:\n%s", v.name, width, w, got)
				}
			}
			// The lines under a row start under its second column.
			header := strings.SplitN(got, "\n", 2)[0]
			second := len(header) - len(strings.TrimLeft(strings.TrimPrefix(header, "TIME"), " "))
			for _, line := range strings.Split(got, "\n") {
				sep := "  "
				if strings.HasPrefix(line, strings.Repeat(" ", second)) && len(line) > second && line[second] != ' ' {
					sep = ": " // the cells that went under their row, in one line
				}
				for _, cell := range strings.Split(line, sep) {
					if displaywidth.String(strings.TrimSpace(cell)) > 60 && !strings.HasPrefix(strings.TrimSpace(cell), "/api/") {
						t.Errorf("%s at %d: a cell wider than the cap: %q", v.name, width, cell)
					}
				}
			}
		}
	}
}
