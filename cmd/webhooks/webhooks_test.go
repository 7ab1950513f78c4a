package webhooks

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/cmd/webhooks/shared"
	"github.com/bnpl-cli/bnpl/cmd/webhooks/shared/sharedtest"
	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/webhook/webhooktest"
)

const hookSecret = sharedtest.HookSecret

type service struct {
	requests []*http.Request
	bodies   []string
}

func newService(t *testing.T) (*service, *httptest.Server) {
	s := &service{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.requests = append(s.requests, r)
		s.bodies = append(s.bodies, string(b))
		var req api.WebhookRequest
		_ = json.Unmarshal(b, &req)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b", "url": req.URL, "is_test": req.IsTest != nil && *req.IsTest, "header": req.Header})
	}))
	t.Cleanup(srv.Close)
	return s, srv
}

func requestOptions(t *testing.T, baseURL string, live bool) (*shared.RequestOptions, *output.IOStreams) {
	opts, ios := sharedtest.Options(baseURL, live)
	return &shared.RequestOptions{
		URLRule: shared.URLCheck{RequireHTTPS: true, Resolver: webhooktest.Resolver{"hooks.shop.com": {"93.184.215.14"}}},
		Stdin:   strings.NewReader(""),
		Getenv:  func(k string) string { return map[string]string{"HOOK": hookSecret}[k] },
		Options: opts,
	}, ios
}

func TestAddSendsTheNormalisedURL(t *testing.T) {
	svc, srv := newService(t)
	ro, ios := requestOptions(t, srv.URL, false)
	ro.URL = "HTTPS://Hooks.Shop.COM:443/bnpl/"
	ro.Header = shared.HeaderFlags{Title: "X-Hook", ValueEnv: "HOOK"}
	if err := shared.Add(context.Background(), Resource, ro); err != nil {
		t.Fatal(err)
	}
	want := `{"url":"https://hooks.shop.com/bnpl","is_test":true,"header":{"title":"X-Hook","value":"` + hookSecret + `"}}`
	if len(svc.bodies) != 1 || svc.bodies[0] != want {
		t.Errorf("sent %v", svc.bodies)
	}
	if svc.requests[0].Header.Get("X-Merchant-Code") != "shop-ae" {
		t.Errorf("X-Merchant-Code %q", svc.requests[0].Header.Get("X-Merchant-Code"))
	}
	out := ios.Out.(interface{ String() string }).String()
	if strings.Contains(out, hookSecret) || !strings.Contains(out, "****6789") {
		t.Errorf("output does not mask the value: %s", out)
	}
}

func TestAddRefusesLocallyAndSendsNothing(t *testing.T) {
	svc, _ := newService(t)
	cases := map[string]func(*shared.RequestOptions){
		"localhost":     func(o *shared.RequestOptions) { o.URL = "https://localhost/x" },
		"http":          func(o *shared.RequestOptions) { o.URL = "http://hooks.shop.com/x" },
		"unresolved":    func(o *shared.RequestOptions) { o.URL = "https://nowhere.shop.com/x" },
		"unset env":     func(o *shared.RequestOptions) { o.Header = shared.HeaderFlags{Title: "X-Hook", ValueEnv: "UNSET"} },
		"local on real": func(o *shared.RequestOptions) { o.URLRule.AllowLocal = true },
	}
	for name, change := range cases {
		ro, _ := requestOptions(t, "https://api.shop-psp.com", false)
		ro.URL = "https://hooks.shop.com/x"
		change(ro)
		if err := shared.Add(context.Background(), Resource, ro); cmdutil.ExitCode(err) != 2 {
			t.Errorf("%s: exit %d: %v", name, cmdutil.ExitCode(err), err)
		}
	}
	if len(svc.requests) != 0 {
		t.Errorf("sent %d requests", len(svc.requests))
	}
}

func TestAllowLocalAgainstASandbox(t *testing.T) {
	svc, srv := newService(t)
	ro, _ := requestOptions(t, srv.URL, true)
	ro.URL = "http://127.0.0.1:8787/"
	ro.URLRule.AllowLocal = true
	test := false
	ro.Test = &test
	ro.ID = "5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b"
	if err := shared.Update(context.Background(), Resource, ro); err != nil {
		t.Fatal(err)
	}
	if len(svc.bodies) != 1 || svc.bodies[0] != `{"url":"http://127.0.0.1:8787","is_test":false}` || svc.requests[0].Method != http.MethodPut {
		t.Errorf("sent %v", svc.bodies)
	}
}
