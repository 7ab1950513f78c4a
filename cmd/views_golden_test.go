package cmd

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhouse/displaywidth"

	"github.com/bnpl-cli/bnpl/cmd/disputes"
	"github.com/bnpl-cli/bnpl/cmd/payments"
	"github.com/bnpl-cli/bnpl/cmd/webhooks"
	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/output"
)

var update = flag.Bool("update", false, "rewrite testdata/views/*.golden")

func readRecords(t *testing.T, name string) []json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "views", name))
	if err != nil {
		t.Fatal(err)
	}
	var recs []json.RawMessage
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	return recs
}

// idsIn collects every value of an "id" or "*_id" key except references.
func idsIn(v any, into *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && (k == "id" || k == "payment_id") {
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

// TestViewsGolden renders the tables people read most on terminals 80, 100
// and 150 columns wide: every id stays whole, and at 100 columns and more
// every line fits.
func TestViewsGolden(t *testing.T) {
	paymentRec, err := os.ReadFile(filepath.Join("testdata", "views", "payment.json"))
	if err != nil {
		t.Fatal(err)
	}
	views := []struct {
		name   string
		source []byte
		render func(p *output.Printer) error
	}{
		{"payments_list", nil, func(p *output.Printer) error {
			return p.List(payments.ListColumns, readRecords(t, "payments.json"))
		}},
		{"disputes_list", nil, func(p *output.Printer) error {
			return p.List(disputes.ListColumns, readRecords(t, "disputes.json"))
		}},
		{"webhooks_list", nil, func(p *output.Printer) error {
			return p.List(webhooks.ListColumns, readRecords(t, "webhooks.json"))
		}},
		{"payments_get", paymentRec, func(p *output.Printer) error {
			var pay api.Payment
			if err := json.Unmarshal(paymentRec, &pay); err != nil {
				return err
			}
			return p.Object(pay.Raw(), payments.Detail(&pay))
		}},
	}
	for _, v := range views {
		for _, width := range []int{80, 100, 150} {
			name := fmt.Sprintf("%s_%d", v.name, width)
			t.Run(name, func(t *testing.T) {
				ios, _, out, _ := output.Test()
				ios.SetStdoutTTY(true)
				ios.SetTerminalWidth(width)
				p, err := output.NewPrinter(ios, output.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := v.render(p); err != nil {
					t.Fatal(err)
				}
				got := out.String()
				var ids []string
				src := v.source
				if src == nil {
					src, _ = os.ReadFile(filepath.Join("testdata", "views", strings.TrimSuffix(v.name, "_list")+".json"))
				}
				var decoded any
				_ = json.Unmarshal(src, &decoded)
				idsIn(decoded, &ids)
				if len(ids) == 0 {
					t.Fatal("fixture has no ids")
				}
				for _, id := range ids {
					if !strings.Contains(got, id) {
						t.Errorf("id %s is not whole:\n%s", id, got)
					}
				}
				if width >= 100 {
					for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
						if w := displaywidth.String(line); w > width {
							t.Errorf("line %d wide at %d: %q", w, width, line)
						}
					}
				}
				path := filepath.Join("testdata", "views", name+".golden")
				if *update {
					if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test ./cmd -run TestViewsGolden -update)", err)
				}
				if !bytes.Equal(out.Bytes(), want) {
					t.Errorf("%s differs\n--- got ---\n%s--- want ---\n%s", path, got, want)
				}
			})
		}
	}
}
