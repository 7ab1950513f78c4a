package output

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clipperhouse/displaywidth"
)

func TestWrapKeepsUnitsWhole(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		width      int
		whole      []string
	}{
		{"amount", "LIVE: capture 200.00 AED from payment 5b1e8a3c-2f7d-4c1a-9e4b-7d2f1a6c3e90? Type yes to confirm: ", 40,
			[]string{"200.00 AED", "5b1e8a3c-2f7d-4c1a-9e4b-7d2f1a6c3e90?"}},
		{"order and command", "hint: no payment has order number order:ORDER-2026-004711; list them with bnpl payments list --order ORDER-2026-004711", 40,
			[]string{"order:ORDER-2026-004711;", "bnpl payments list", "--order"}},
		{"quoted", "error: unknown flag --buyr; run 'bnpl payments list --help' for usage", 40,
			[]string{"'bnpl payments list --help'"}},
		{"flag and value", "reference_id: df573a70-4987-48a9-b326-3fdad42d53ef (re-run with --reference-id df573a70-4987-48a9-b326-3fdad42d53ef to retry safely)", 100,
			[]string{"--reference-id df573a70-4987-48a9-b326-3fdad42d53ef"}},
		{"flag and quoted value", `hint: templates use Go's text/template over the JSON, e.g. --template '{{range .}}{{.id}} {{.status}}{{"\n"}}{{end}}'`, 80,
			[]string{`'{{range .}}{{.id}} {{.status}}{{"\n"}}{{end}}'`}},
		{"date and time", "error: cannot close payment f1a7e000-0000-4000-8000-000000000011: the authorization expired at 2026-11-27 22:35:53Z; nothing can be captured", 50,
			[]string{"2026-11-27 22:35:53Z;"}},
		{"currency first", "refund of at most KWD 75.500 left on this payment, then it is refunded in full", 20,
			[]string{"KWD 75.500"}},
		{"short flag and value", "dispute no request opened is opened (and moved to the status a read shows). -o json lists them", 78,
			[]string{"-o json"}},
		{"number and unit", "The sandbox keeps the last 10,000 requests in its state, with the bodies (at most 64 KiB each)", 85,
			[]string{"64 KiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Wrap(tc.text, tc.width)
			for _, line := range strings.Split(got, "\n") {
				if w := displaywidth.String(line); w > tc.width {
					t.Errorf("line %d wide at %d: %q", w, tc.width, line)
				}
			}
			for _, w := range tc.whole {
				if !strings.Contains(got, w) {
					t.Errorf("%q is not whole:\n%s", w, got)
				}
			}
			if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(tc.text), " ") {
				t.Errorf("words changed:\n%s", got)
			}
		})
	}
}

// The lines a message goes on over start under the message, after its
// label, coloured or not.
func TestWrapHangsUnderTheMessage(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		width      int
		want       string
	}{
		{"label", "hint: list the payments of this buyer with bnpl payments list --buyer layla", 40,
			"hint: list the payments of this buyer\n      with bnpl payments list\n      --buyer layla"},
		// An item of a list goes on two further in than it starts, and a
		// method stays with its path: what goes on is not read as the next
		// item.
		{"list item", "  line 2: payment_id: cannot be read: GET /api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6: 404 not_found: no such payment", 80,
			"  line 2: payment_id: cannot be read:\n" +
				"    GET /api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6: 404 not_found: no\n" +
				"    such payment"},
		// A line that fits is left as it is, spaces and all.
		{"fits", "  URL:     http://127.0.0.1:8080", 80, "  URL:     http://127.0.0.1:8080"},
		// A coloured label keeps its colour and its spaces.
		{"coloured label", "\x1b[31merror:\x1b[0m no payment with order number ORDER-2026-004711 (searched 3 payments)", 40,
			"\x1b[31merror:\x1b[0m no payment with order number\n       ORDER-2026-004711 (searched 3\n       payments)"},
		{"spaced label", "LIVE  the sandbox at http://127.0.0.1:8700, live mode, merchant ae-sandbox", 40,
			"LIVE  the sandbox at\n      http://127.0.0.1:8700, live mode,\n      merchant ae-sandbox"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Wrap(tc.text, tc.width); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestWrapSplitsOnlyWhatCannotFit(t *testing.T) {
	// A URL wider than the line is not split: it stands whole on a line
	// of its own, so that a copy of the line is the URL.
	url := "https://shop.example.com/hooks/bnpl/payments/2026/11/receive?source=cli&x=1"
	got := Wrap("error: "+url+" was refused", 30)
	whole := false
	for _, line := range strings.Split(got, "\n") {
		whole = whole || strings.HasSuffix(line, " "+url) || strings.TrimSpace(line) == url
	}
	if !whole || strings.ReplaceAll(strings.ReplaceAll(got, "\n", ""), " ", "") != "error:"+url+"wasrefused" {
		t.Errorf("the URL is not whole on one line:\n%s", got)
	}
	// Other long words are split where a path breaks.
	path := "/hooks/bnpl/payments/2026/11/receive/and/on/and/on"
	for _, line := range strings.Split(Wrap("error: "+path, 30), "\n") {
		if displaywidth.String(line) > 30 {
			t.Errorf("line wider than 30: %q", line)
		}
	}
	// A date is not split at its hyphens.
	if got := breakWord(`{"created":"2026-11-22","name":"x"}`, 20); got != `{"created":` {
		t.Errorf("got %q, want the break after the key", got)
	}
}

func TestWrappedWriterWrapsEachLine(t *testing.T) {
	var buf bytes.Buffer
	w := &wrappedWriter{w: &buf, width: func() int { return 30 }}
	if _, err := w.Write([]byte("short line\n\r\x1b[Kpage 3 of 5\nerror: the table is 103 columns wide, wider than 30\n")); err != nil {
		t.Fatal(err)
	}
	want := "short line\n\r\x1b[Kpage 3 of 5\nerror: the table is 103\n       columns wide, wider\n       than 30\n"
	if buf.String() != want {
		t.Errorf("got\n%q\nwant\n%q", buf.String(), want)
	}
}

// A question's last words, what to type, stay on one line: "Type yes\nto
// confirm:" reads as two instructions.
func TestWrapKeepsAPromptsInstruction(t *testing.T) {
	q := "LIVE: close payment e870e3aa-1b1b-40f1-b21d-a1d03b0aabda of merchant ae-sandbox (200.00 AED captured; the uncaptured 1050.00 AED will not be charged)? Type yes to confirm: "
	got := Wrap(q, 80)
	if !strings.Contains(got, "\nType yes to confirm: ") && !strings.Contains(got, "? Type yes to confirm: ") {
		t.Errorf("the instruction is parted:\n%q", got)
	}
	if !strings.HasSuffix(got, ": ") {
		t.Errorf("the prompt lost its trailing space: %q", got)
	}
}
