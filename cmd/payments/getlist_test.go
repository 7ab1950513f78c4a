package payments

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

const paymentID = "5b0f1a8e-8f5e-4a77-9d8e-2f5a0c1d9e01"

// A payment as the service sends it, with a field this client does not
// model, which -o json must keep.
const paymentJSON = `{"id":"` + paymentID + `","amount":"100.00","currency":"AED","status":"AUTHORIZED","is_test":true,
"created_at":"2026-11-20T10:00:00Z","order":{"reference_id":"ORDER-7"},"loyalty_tier":"gold",
"captures":[{"id":"c1","amount":"30.00","reference_id":"cap-1","created_at":"2026-11-20T11:00:00Z"}],"refunds":[]}`

func newServer(t *testing.T, hits *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("Authorization") != "Bearer sk_test_0123456789abcdef" {
			w.WriteHeader(401)
			fmt.Fprint(w, `{"status":"error","errorType":"not_authorized","error":"invalid secret key"}`)
			return
		}
		switch {
		case r.URL.Path == "/api/v2/payments/"+paymentID:
			fmt.Fprint(w, paymentJSON)
		case r.URL.Path == "/api/v2/payments":
			offset := r.URL.Query().Get("offset")
			if offset != "" && offset != "0" {
				fmt.Fprint(w, `{"payments":[],"pagination":{"limit":20,"offset":1,"total_count":1}}`)
				return
			}
			fmt.Fprint(w, `{"payments":[`+paymentJSON+`],"pagination":{"limit":20,"offset":0,"total_count":1}}`)
		default:
			w.WriteHeader(404)
			fmt.Fprint(w, "404 page not found")
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func clientFor(srv *httptest.Server, key string) func() (*api.Client, error) {
	return func() (*api.Client, error) {
		return api.New(api.Options{BaseURL: srv.URL, SecretKey: key, Version: "test", Retries: 0})
	}
}

func TestGetEveryFormat(t *testing.T) {
	var hits atomic.Int32
	srv := newServer(t, &hits)
	cases := map[string][]string{
		"json":  {`"loyalty_tier":"gold"`, `"reference_id":"cap-1"`},
		"jsonl": {`"loyalty_tier":"gold"`},
		"tsv":   {"Captured\t30.00", "Capturable\t70.00", "Refundable\t0.00", "Reference\tORDER-7"},
		"csv":   {"Captured,30.00", "Capturable,70.00"},
		"table": {"Captured:", "70.00", "Captures"},
	}
	for format, wants := range cases {
		ios, _, out, _ := output.Test()
		opts := &GetOptions{onePayment: onePayment{
			ID:      paymentID,
			Client:  clientFor(srv, "sk_test_0123456789abcdef"),
			Printer: func() (*output.Printer, error) { return output.NewPrinter(ios, output.Options{Format: format}) },
		}}
		if err := getRun(context.Background(), opts); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		for _, w := range wants {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s output lacks %q:\n%s", format, w, out.String())
			}
		}
	}
}

func TestGetErrorsMapToExitCodes(t *testing.T) {
	var hits atomic.Int32
	srv := newServer(t, &hits)
	ios, _, _, _ := output.Test()
	printer := func() (*output.Printer, error) { return output.NewPrinter(ios, output.Options{Format: "json"}) }

	err := getRun(context.Background(), &GetOptions{onePayment: onePayment{ID: paymentID, Client: clientFor(srv, "sk_test_wrongwrongwrong1"), Printer: printer}})
	if got := cmdutil.ExitCode(err); got != cmdutil.ExitAuth {
		t.Errorf("bad key: exit %d (%v), want 4", got, err)
	}
	if strings.Contains(err.Error(), "wrongwrong") {
		t.Errorf("error leaks the key: %v", err)
	}
	err = getRun(context.Background(), &GetOptions{onePayment: onePayment{ID: "3fa85f64-5717-4562-b3fc-2c963f66afa6", Client: clientFor(srv, "sk_test_0123456789abcdef"), Printer: printer}})
	if got := cmdutil.ExitCode(err); got != cmdutil.ExitNotFound {
		t.Errorf("unknown path: exit %d (%v), want 6", got, err)
	}
}

func TestListAllWalksPages(t *testing.T) {
	var hits atomic.Int32
	srv := newServer(t, &hits)
	ios, _, out, _ := output.Test()
	opts := &ListOptions{
		All: true, Limit: 20,
		ReadDeps: ReadDeps{
			Now:     time.Now,
			Client:  clientFor(srv, "sk_test_0123456789abcdef"),
			Printer: func() (*output.Printer, error) { return output.NewPrinter(ios, output.Options{Format: "jsonl"}) },
		},
	}
	if err := listRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want 1 record, got %d: %q", len(lines), out.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil || rec["id"] != paymentID {
		t.Fatalf("record %q: %v", lines[0], err)
	}
}

func TestListValidationSendsNothing(t *testing.T) {
	for _, o := range []ListOptions{
		{Statuses: []string{"paid"}, Limit: 20},
		{Limit: 0},
		{Limit: 5, Offset: -1},
		{Limit: 5, Since: "last tuesday"},
	} {
		o.Now = time.Now
		if err := o.validate(nil); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
			t.Errorf("%+v: want exit 2, got %v", o, err)
		}
	}
}
