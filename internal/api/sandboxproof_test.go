package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// hostRecorder answers every request in-process with handler, as a host
// that is not loopback would (no DNS, no network), and records what each
// request carried.
type hostRecorder struct {
	handler http.Handler
	mu      sync.Mutex
	seen    []string // "METHOD PATH auth=<Authorization>"
}

func (h *hostRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Method+" "+r.URL.Path+" auth="+r.Header.Get("Authorization"))
	h.mu.Unlock()
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, r)
	return rec.Result(), nil
}

func (h *hostRecorder) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

func sandboxHost(health func(w http.ResponseWriter)) *hostRecorder {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /_sandbox/health", func(w http.ResponseWriter, r *http.Request) { health(w) })
	mux.HandleFunc("GET /api/v2/payments", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"payments":[],"pagination":{"limit":1,"offset":0,"total_count":0}}`))
	})
	return &hostRecorder{handler: mux}
}

func answer(status int, body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

const sandboxHealthOK = `{"service":"bnpl-sandbox","status":"ok","version":"1.0.0","state":"memory"}`

func TestSandboxKeyGoesToAProvenSandboxByName(t *testing.T) {
	host := sandboxHost(answer(http.StatusOK, sandboxHealthOK))
	c, err := New(Options{BaseURL: "http://bnpl-sandbox:8700", SecretKey: "sk_test_ae_sandbox", SandboxKey: true, Transport: host, Retries: 0})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	for range 2 {
		if _, err := c.ListPayments(context.Background(), ListPaymentsParams{Limit: 1}); err != nil {
			t.Fatalf("ListPayments: %v", err)
		}
	}
	got := strings.Join(host.requests(), "\n")
	want := "GET /_sandbox/health auth=\nGET /api/v2/payments auth=Bearer sk_test_ae_sandbox\nGET /api/v2/payments auth=Bearer sk_test_ae_sandbox"
	if got != want {
		t.Fatalf("requests:\n%s\nwant (the proof once, without the key, before the first request):\n%s", got, want)
	}
}

func TestSandboxKeyKeptFromAHostThatIsNotASandbox(t *testing.T) {
	cases := []struct {
		name   string
		health func(w http.ResponseWriter)
		code   int
		reason string
	}{
		{"another service's health", answer(http.StatusOK, `{"status":"ok"}`), exitUsage, "answered 200 OK, not as a bnpl sandbox"},
		{"not JSON", answer(http.StatusOK, `<html>ok</html>`), exitUsage, "not as a bnpl sandbox"},
		{"not found", answer(http.StatusNotFound, `{"service":"bnpl-sandbox"}`), exitUsage, "answered 404 Not Found"},
		{"a redirect elsewhere", func(w http.ResponseWriter) {
			w.Header().Set("Location", "http://127.0.0.1:8700/_sandbox/health")
			w.WriteHeader(http.StatusFound)
		}, exitUsage, "answered 302 Found"},
		{"the sandbox's host guard", answer(http.StatusForbidden, `{"status":"error","errorType":"forbidden","error":"host bnpl-sandbox is not this sandbox's address"}`), exitUsage, "it refused GET /_sandbox/health: host bnpl-sandbox"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			host := sandboxHost(tc.health)
			c, err := New(Options{BaseURL: "http://bnpl-sandbox:8700", SecretKey: "sk_test_ae_sandbox", SandboxKey: true, Transport: host, Retries: 2})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			_, err = c.ListPayments(context.Background(), ListPaymentsParams{Limit: 1})
			var pe *SandboxProofError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a SandboxProofError", err)
			}
			if pe.ExitCode() != tc.code || !strings.Contains(err.Error(), tc.reason) || !strings.Contains(err.Error(), "refusing to send the sandbox key over plain http to bnpl-sandbox:8700") {
				t.Fatalf("err = %q (exit %d), want exit %d naming %q", err, pe.ExitCode(), tc.code, tc.reason)
			}
			for _, r := range host.requests() {
				if !strings.HasSuffix(r, "auth=") {
					t.Fatalf("a request carried the key: %q", r)
				}
			}
		})
	}
}

func TestSandboxProofNoAnswerIsANetworkFailureAskedAgain(t *testing.T) {
	down := true
	var mu sync.Mutex
	host := &hostRecorder{handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer(http.StatusOK, sandboxHealthOK)(w)
	})}
	failing := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		d := down
		mu.Unlock()
		if d {
			return nil, errors.New("connection refused")
		}
		return host.RoundTrip(r)
	})
	c, err := New(Options{BaseURL: "http://bnpl-sandbox:8700", SecretKey: "sk_test_ae_sandbox", SandboxKey: true, Transport: failing, Retries: 0})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	_, err = c.Raw(context.Background(), RawRequest{Method: http.MethodGet, Path: "/_sandbox/clock"})
	var pe *SandboxProofError
	if !errors.As(err, &pe) || pe.ExitCode() != exitNetwork || !strings.Contains(err.Error(), "no answer: connection refused") {
		t.Fatalf("err = %v, want a network SandboxProofError", err)
	}
	mu.Lock()
	down = false
	mu.Unlock()
	if _, err := c.Raw(context.Background(), RawRequest{Method: http.MethodGet, Path: "/_sandbox/clock"}); err != nil {
		t.Fatalf("after the sandbox came up: %v", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestPlainHTTPKeyRule(t *testing.T) {
	cases := []struct {
		base, key  string
		sandboxKey bool
		refused    bool
	}{
		{"http://bnpl-sandbox:8700", "sk_test_0123456789abcdef", false, true}, // a real key: never
		{"http://10.0.0.5:8700", "sk_test_0123456789abcdef", false, true},
		{"http://bnpl-sandbox:8700", "sk_test_ae_sandbox", true, false}, // a sandbox key: after the proof
		{"http://bnpl-sandbox:8700", "sk_sa_sandbox", true, false},
		{"http://bnpl-sandbox:8700", "sk_test_0123456789abcdef", true, true}, // marked by mistake: still refused
		{"http://127.0.0.1:8700", "sk_test_0123456789abcdef", false, false},
		{"http://localhost:8700", "sk_live_0123456789abcdef", false, false},
		{"https://api.example.com", "sk_test_0123456789abcdef", false, false},
	}
	for _, tc := range cases {
		c, err := New(Options{BaseURL: tc.base, SecretKey: tc.key, SandboxKey: tc.sandboxKey})
		var oe *OptionsError
		if refused := errors.As(err, &oe); refused != tc.refused {
			t.Errorf("New(%s, key sandbox=%t): err = %v, want refused %t", tc.base, tc.sandboxKey, err, tc.refused)
			continue
		}
		if err == nil && (c.proof != nil) != (tc.sandboxKey && !strings.HasPrefix(tc.base, "http://127.") && !strings.HasPrefix(tc.base, "http://localhost")) {
			t.Errorf("New(%s): proof asked %t, want %t", tc.base, c.proof != nil, tc.sandboxKey)
		}
	}
}

func TestDryRunAsksNoProof(t *testing.T) {
	host := sandboxHost(answer(http.StatusOK, sandboxHealthOK))
	var out strings.Builder
	c, err := New(Options{BaseURL: "http://bnpl-sandbox:8700", SecretKey: "sk_test_ae_sandbox", SandboxKey: true, Transport: host, DryRun: &out})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if _, err := c.ListPayments(context.Background(), ListPaymentsParams{Limit: 1}); !errors.Is(err, ErrDryRun) {
		t.Fatalf("err = %v, want ErrDryRun", err)
	}
	if got := host.requests(); len(got) != 0 {
		t.Fatalf("a dry run sent %v", got)
	}
}

// Concurrent first requests (a bulk run's workers) wait for one proof.
func TestSandboxProofAskedOnceByConcurrentRequests(t *testing.T) {
	host := sandboxHost(answer(http.StatusOK, sandboxHealthOK))
	c, err := New(Options{BaseURL: "http://bnpl-sandbox:8700", SecretKey: "sk_test_ae_sandbox", SandboxKey: true, Transport: host, Retries: 0})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	atOnce(t, 8, func() error {
		_, err := c.ListPayments(context.Background(), ListPaymentsParams{Limit: 1})
		return err
	})
	proofs := 0
	for _, r := range host.requests() {
		if strings.HasPrefix(r, "GET /_sandbox/health ") {
			proofs++
		}
	}
	if proofs != 1 {
		t.Fatalf("%d proofs asked, want 1: %v", proofs, host.requests())
	}
}
