package disputewebhooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/cmd/webhooks/shared"
	"github.com/bnpl-cli/bnpl/cmd/webhooks/shared/sharedtest"
	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

const hookSecret = sharedtest.HookSecret

func options(t *testing.T, baseURL string, live bool) (*shared.RequestOptions, *strings.Builder) {
	opts, _ := sharedtest.Options(baseURL, live)
	var notices strings.Builder
	opts.Notice = func(f string, a ...any) { fmt.Fprintf(&notices, f+"\n", a...) }
	return &shared.RequestOptions{
		Stdin:   strings.NewReader(hookSecret + "\n"),
		Getenv:  func(string) string { return "" },
		Options: opts,
	}, &notices
}

func TestTestModeAndBadInputSendNothing(t *testing.T) {
	sent := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sent++ }))
	defer srv.Close()

	ro, _ := options(t, srv.URL, false)
	ro.URL, ro.URLRule.AllowLocal = "http://127.0.0.1:8787", true
	err := shared.Add(context.Background(), Resource, ro)
	if cmdutil.ExitCode(err) != 2 || !strings.Contains(err.Error(), "dispute webhooks have no test mode") {
		t.Errorf("test mode: %v", err)
	}
	err = shared.List(context.Background(), Resource, &shared.Options{Target: ro.Target, Client: ro.Client, Printer: ro.Printer})
	if cmdutil.ExitCode(err) != 2 {
		t.Errorf("list in test mode: %v", err)
	}

	ro, _ = options(t, srv.URL, true)
	ro.URL = "https://shop.test/hooks"
	if err := shared.Add(context.Background(), Resource, ro); cmdutil.ExitCode(err) != 2 || !strings.Contains(err.Error(), ".test") {
		t.Errorf("reserved name: %v", err)
	}
	if sent != 0 {
		t.Errorf("%d requests sent", sent)
	}
}

func TestAddNormalisesAndReadsTheValueFromStdin(t *testing.T) {
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		fmt.Fprint(w, `{"id":"5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b","url":"http://127.0.0.1:8787/h","header":{"title":"X-Hook","value":"****6789"}}`)
	}))
	defer srv.Close()
	ro, notices := options(t, srv.URL, true)
	ro.URL, ro.URLRule.AllowLocal = "HTTP://127.0.0.1:8787/h/", true
	ro.Header = shared.HeaderFlags{Title: "X-Hook", ValueStdin: true}
	if err := shared.Add(context.Background(), Resource, ro); err != nil {
		t.Fatal(err)
	}
	if body != `{"url":"http://127.0.0.1:8787/h","header":{"title":"X-Hook","value":"`+hookSecret+`"}}` {
		t.Errorf("sent %s", body)
	}
	if !strings.Contains(notices.String(), "URL normalised to http://127.0.0.1:8787/h") {
		t.Errorf("notices %q", notices.String())
	}
}

func TestRefusalIsExplained(t *testing.T) {
	hooks := `[{"id":"1b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b","url":"https://a.shop.com"},{"id":"2b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b","url":"https://b.shop.com"},{"id":"3b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b","url":"https://c.shop.com"},{"id":"4b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b","url":"https://d.shop.com"}]`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			fmt.Fprint(w, hooks)
			return
		}
		w.WriteHeader(400)
		fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"bad_request"}`)
	}))
	defer srv.Close()
	client, _ := api.New(api.Options{BaseURL: srv.URL, SecretKey: "sk_live0123456789abcdef", Retries: 0})
	_, cerr := client.CreateDisputeWebhook(context.Background(), api.DisputeWebhookRequest{URL: "https://e.shop.com"})

	var h interface{ Hint() string }
	err := explainRefusal(context.Background(), client, "https://e.shop.com", cerr)
	if cmdutil.ExitCode(err) != 3 || !errors.As(err, &h) || !strings.Contains(h.Hint(), "at most 4 dispute webhooks and 4 are registered") {
		t.Errorf("limit: %v", err)
	}
	err = explainRefusal(context.Background(), client, "https://c.shop.com", cerr)
	if !errors.As(err, &h) || !strings.Contains(h.Hint(), "already registered as 3b0e4f3a") {
		t.Errorf("duplicate: %v", err)
	}
}
